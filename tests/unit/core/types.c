/* Tests for the shared enums' spellings (waggle/types.h). */
#include <criterion/criterion.h>

#include "waggle/error.h"
#include "waggle/types.h"

Test(types, names_round_trip)
{
    for (int i = 0; i < 3; i++) {
        wg_risk_level r; wg_approval_class c; wg_autonomy a;
        cr_assert_eq(wg_risk_parse(&r, wg_risk_name((wg_risk_level)i)), 0);
        cr_assert_eq((int)r, i);
        cr_assert_eq(wg_approval_parse(&c, wg_approval_name((wg_approval_class)i)), 0);
        cr_assert_eq((int)c, i);
        cr_assert_eq(wg_autonomy_parse(&a, wg_autonomy_name((wg_autonomy)i)), 0);
        cr_assert_eq((int)a, i);
    }
}

Test(types, unknown_spelling_is_einval_and_out_untouched)
{
    wg_autonomy a = WG_AUTONOMY_TRUSTED;
    cr_assert_eq(wg_autonomy_parse(&a, "YOLO"), WG_EINVAL);
    cr_assert_eq(wg_autonomy_parse(&a, NULL), WG_EINVAL);
    cr_assert_eq(a, WG_AUTONOMY_TRUSTED);
    cr_assert_str_eq(wg_risk_name(WG_RISK_UNKNOWN), "unknown");
}

Test(types, approval_for_risk_follows_spec_5_2)
{
    cr_assert_eq(wg_approval_for_risk(WG_RISK_LOW), WG_APPROVAL_STANDARD);
    cr_assert_eq(wg_approval_for_risk(WG_RISK_MEDIUM), WG_APPROVAL_ELEVATED);
    cr_assert_eq(wg_approval_for_risk(WG_RISK_HIGH), WG_APPROVAL_CRITICAL);
    cr_assert_eq(wg_approval_for_risk(WG_RISK_UNKNOWN), WG_APPROVAL_CRITICAL);
}
