/* gitlab.c - every GitLab action against the replay server: the request we send
 * and how we read the documented response (project ids and file paths are one encoded segment). */
#include <criterion/criterion.h>
#include "connect_replay.h"

Test(connect_gitlab, every_action_sends_the_documented_request)
{
    int ran = 0;
    int failures = wgt_connect_run_service("gitlab", &ran);
    cr_expect_gt(ran, 0, "ran %d cases", ran);
    cr_assert_eq(failures, 0, "%d of %d GitLab cases failed (see stderr)", failures, ran);
}
