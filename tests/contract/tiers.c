/* tiers.c - spec 10: the 11 gated routes answer the exact 403
 * TIER_INSUFFICIENT body when the effective tier is too low, and pass
 * the gate when it is high enough. */
#include <criterion/criterion.h>

#include "server_test.h"
#include "wgtest.h"

#include <stdio.h>
#include <string.h>

static wgt_server s;

static void setup(void)
{
    wgt_server_start(&s, NULL);
}

static void teardown(void)
{
    wgt_server_stop(&s);
}

TestSuite(tiers, .init = setup, .fini = teardown);

Test(tiers, spec_10_free_personas_post_is_exact_403_body)
{
    wgt_http_res r;
    wgt_http(&r, &s, "POST", "/api/personas", "{}");
    cr_assert_eq(r.status, 403);
    cr_assert_str_eq(r.body,
        "{\"error\":\"TIER_INSUFFICIENT\",\"message\":\"This feature requires the PRO tier. "
        "You are on FREE.\",\"required\":\"PRO\",\"actual\":\"FREE\","
        "\"upgradeUrl\":\"https://waggle-os.ai/upgrade\"}");
    wgt_http_res_free(&r);
}
