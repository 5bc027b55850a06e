/* github.c - every GitHub action against the replay server (reference 1.4),
 * including hostile owner/repo/path values (reference 13 item 11). */
#include <criterion/criterion.h>
#include "connect_replay.h"

Test(connect_github, every_action_sends_the_documented_request)
{
    int ran = 0;
    int failures = wgt_connect_run_service("github", &ran);
    cr_expect_gt(ran, 7, "ran %d cases", ran);
    cr_assert_eq(failures, 0, "%d of %d GitHub cases failed (see stderr)", failures, ran);
}
