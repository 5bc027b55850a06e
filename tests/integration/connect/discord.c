/* discord.c - every Discord action against the replay server: the request we send
 * and how we read the documented response (reference 13 item 11: ids are encoded segments). */
#include <criterion/criterion.h>
#include "connect_replay.h"

Test(connect_discord, every_action_sends_the_documented_request)
{
    int ran = 0;
    int failures = wgt_connect_run_service("discord", &ran);
    cr_expect_gt(ran, 0, "ran %d cases", ran);
    cr_assert_eq(failures, 0, "%d of %d Discord cases failed (see stderr)", failures, ran);
}
