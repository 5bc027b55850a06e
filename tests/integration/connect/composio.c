/* composio.c - every Composio action against the replay server
 * (tests/data/connect/composio/): the v3 requests we send (x-api-key, the
 * slug as one checked segment, arguments only in the JSON body), cursor
 * pages, Retry-After, and each action's risk from Composio's metadata
 * (readOnlyHint low, destructiveHint high, a stated non-destructive write
 * medium, nothing stated high). */
#include <criterion/criterion.h>
#include "connect_replay.h"
#include "waggle/connector.h"

Test(connect_composio, every_action_sends_the_documented_request)
{
    int ran = 0;
    int failures = wgt_connect_run_service("composio", &ran);
    cr_expect_gt(ran, 0, "ran %d cases", ran);
    cr_assert_eq(failures, 0, "%d of %d Composio cases failed (see stderr)", failures, ran);
}

/* The gate reads the registry's table: execute_action is high whatever
 * the action, so it asks at Normal and Trusted (the original never asked). */
Test(connect_composio, execute_action_is_declared_high)
{
    wg_connect_vault *v = NULL;
    wg_registry *reg = NULL;
    cr_assert_eq(wg_connect_memvault_new(&v), 0);
    wg_registry_options o = WG_REGISTRY_OPTIONS_INIT;
    o.vault = v;
    cr_assert_eq(wg_registry_new(&reg, &o), 0);
    wg_risk_level r;
    cr_assert_eq(wg_registry_action_risk(&r, reg, "connector_composio_execute_action"), 0);
    cr_assert_eq(r, WG_RISK_HIGH);
    cr_assert_eq(wg_registry_action_risk(&r, reg, "connector_composio_list_actions"), 0);
    cr_assert_eq(r, WG_RISK_LOW);
    wg_registry_free(reg);
    wg_connect_memvault_free(v);
}
