/* notion.c - every Notion action against the replay server: the request we send
 * and how we read the documented response (page and block ids are encoded segments). */
#include <criterion/criterion.h>
#include "connect_replay.h"

Test(connect_notion, every_action_sends_the_documented_request)
{
    int ran = 0;
    int failures = wgt_connect_run_service("notion", &ran);
    cr_expect_gt(ran, 0, "ran %d cases", ran);
    cr_assert_eq(failures, 0, "%d of %d Notion cases failed (see stderr)", failures, ran);
}
