/* limit.c - wg_registry_check_limit's rules (reference 13 item 19): every
 * outcome carries its rule id and a reason; the refusal names the lowest
 * tier whose connectorLimit admits one more connector. */
#include <criterion/criterion.h>
#include <string.h>

#include "connect_fixture.h"

static wgt_connect f;

static void connect_id(const char *id)
{
    wg_connect_request req = { .token = "tok_unit_limit_0123456789" };
    cr_assert_eq(wg_registry_connect(f.reg, id, &req), 0, "%s: %s", id, wg_error_last());
}

static void setup(void)
{
    wgt_connect_open(&f, NULL, NULL, 1);
    static const char *const ids[] = { "github", "slack", "discord", "linear" };
    for (size_t i = 0; i < sizeof ids / sizeof *ids; i++)
        connect_id(ids[i]);
}

static void teardown(void)
{
    wgt_connect_close(&f);
}

TestSuite(connect_limit, .init = setup, .fini = teardown);

Test(connect_limit, fifth_on_free_is_within_and_counts_no_demo)
{
    wg_connector_limit_decision d;
    cr_assert_eq(wg_registry_check_limit(&d, f.reg, "notion", WG_TIER_FREE), 0);
    cr_assert(d.allowed);
    cr_assert_str_eq(d.rule, "connector.limit.within");
    cr_assert_eq(d.used, 4, "the three demo connectors do not count");
    cr_assert_eq(d.limit, 5);
    cr_assert_str_eq(d.reason, "notion would be connector 5; the FREE tier allows 5");
}

Test(connect_limit, sixth_on_free_is_exceeded_and_requires_pro)
{
    connect_id("notion");
    wg_connector_limit_decision d;
    cr_assert_eq(wg_registry_check_limit(&d, f.reg, "gitlab", WG_TIER_FREE), 0);
    cr_assert_not(d.allowed);
    cr_assert_str_eq(d.rule, "connector.limit.exceeded");
    cr_assert_eq(d.denial.status, 403);
    cr_assert_str_eq(d.denial.error, "TIER_INSUFFICIENT");
    cr_assert_str_eq(d.denial.required, "PRO");
    cr_assert_str_eq(d.denial.actual, "FREE");
    cr_assert_str_eq(d.denial.message, "This feature requires the PRO tier. You are on FREE.");
}

Test(connect_limit, reconnect_demo_and_unlimited_rules)
{
    connect_id("notion");
    wg_connector_limit_decision d;
    cr_assert_eq(wg_registry_check_limit(&d, f.reg, "github", WG_TIER_FREE), 0);
    cr_assert(d.allowed);
    cr_assert_str_eq(d.rule, "connector.limit.reconnect");
    cr_assert_eq(wg_registry_check_limit(&d, f.reg, "slack-mock", WG_TIER_FREE), 0);
    cr_assert(d.allowed);
    cr_assert_str_eq(d.rule, "connector.limit.demo");
    cr_assert_eq(wg_registry_check_limit(&d, f.reg, "gitlab", WG_TIER_PRO), 0);
    cr_assert(d.allowed);
    cr_assert_str_eq(d.rule, "connector.limit.unlimited");
    cr_assert_eq(wg_registry_check_limit(&d, f.reg, "gitlab", WG_TIER_TRIAL), 0);
    cr_assert_str_eq(d.rule, "connector.limit.unlimited", "an active trial has no limit");
    cr_assert_eq(wg_registry_check_limit(&d, f.reg, "nope", WG_TIER_FREE), WG_ENOTFOUND);
}
