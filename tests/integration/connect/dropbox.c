/* dropbox.c - every Dropbox action against the replay server, with requests and
 * responses shaped as the Dropbox API reference documents them (docs/connect.md
 * lists the pages), hostile inputs included. */
#include <criterion/criterion.h>
#include "connect_replay.h"

Test(connect_dropbox, every_action_sends_the_documented_request)
{
    int ran = 0;
    int failures = wgt_connect_run_service("dropbox", &ran);
    cr_expect_gt(ran, 5, "ran %d cases", ran);
    cr_assert_eq(failures, 0, "%d of %d Dropbox cases failed (see stderr)", failures, ran);
}
