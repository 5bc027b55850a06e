/* jira.c - every Jira action against the replay server: the request we send
 * and how we read the documented response (basic auth email:token, ADF bodies, two-step transitions). */
#include <criterion/criterion.h>
#include "connect_replay.h"

Test(connect_jira, every_action_sends_the_documented_request)
{
    int ran = 0;
    int failures = wgt_connect_run_service("jira", &ran);
    cr_expect_gt(ran, 0, "ran %d cases", ran);
    cr_assert_eq(failures, 0, "%d of %d Jira cases failed (see stderr)", failures, ran);
}
