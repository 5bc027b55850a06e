/* linear.c - every Linear action against the replay server: the request we send
 * and how we read the documented response (GraphQL values only in variables (reference 13 item 11)). */
#include <criterion/criterion.h>
#include "connect_replay.h"

Test(connect_linear, every_action_sends_the_documented_request)
{
    int ran = 0;
    int failures = wgt_connect_run_service("linear", &ran);
    cr_expect_gt(ran, 0, "ran %d cases", ran);
    cr_assert_eq(failures, 0, "%d of %d Linear cases failed (see stderr)", failures, ran);
}
