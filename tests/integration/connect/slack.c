/* slack.c - every Slack action against the replay server: the request we send
 * and how we read the documented response (reference 1.4; hostile query values encoded). */
#include <criterion/criterion.h>
#include "connect_replay.h"

Test(connect_slack, every_action_sends_the_documented_request)
{
    int ran = 0;
    int failures = wgt_connect_run_service("slack", &ran);
    cr_expect_gt(ran, 0, "ran %d cases", ran);
    cr_assert_eq(failures, 0, "%d of %d Slack cases failed (see stderr)", failures, ran);
}
