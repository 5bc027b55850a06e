/* types.c - spellings of the shared enums (waggle/types.h). Tables, no state. */
#include "waggle/types.h"
#include "waggle/error.h"

#include <string.h>

static const char *const risk_names[] = { "low", "medium", "high" };
static const char *const approval_names[] = { "standard", "elevated", "critical" };
static const char *const autonomy_names[] = { "normal", "trusted", "yolo" };
#define N_NAMES 3

static int parse(int *out, const char *s, const char *const names[], const char *what)
{
    for (int i = 0; s && i < N_NAMES; i++) {
        if (strcmp(s, names[i]) == 0) {
            *out = i;
            return 0;
        }
    }
    return wg_error_set(WG_EINVAL, "unknown %s '%s' (expected %s, %s or %s)", what,
                        s ? s : "(null)", names[0], names[1], names[2]);
}

const char *wg_risk_name(wg_risk_level r)
{
    return (r >= 0 && r < N_NAMES) ? risk_names[r] : "unknown";
}

const char *wg_approval_name(wg_approval_class c)
{
    return (c >= 0 && c < N_NAMES) ? approval_names[c] : "critical";
}

const char *wg_autonomy_name(wg_autonomy a)
{
    return (a >= 0 && a < N_NAMES) ? autonomy_names[a] : "normal";
}

int wg_risk_parse(wg_risk_level *out, const char *s)
{
    int v = 0, rc = parse(&v, s, risk_names, "risk level");
    if (rc == 0)
        *out = (wg_risk_level)v;
    return rc;
}

int wg_approval_parse(wg_approval_class *out, const char *s)
{
    int v = 0, rc = parse(&v, s, approval_names, "approval class");
    if (rc == 0)
        *out = (wg_approval_class)v;
    return rc;
}

int wg_autonomy_parse(wg_autonomy *out, const char *s)
{
    int v = 0, rc = parse(&v, s, autonomy_names, "autonomy level");
    if (rc == 0)
        *out = (wg_autonomy)v;
    return rc;
}

wg_approval_class wg_approval_for_risk(wg_risk_level r)
{
    static const wg_approval_class by_risk[] = {
        WG_APPROVAL_STANDARD, WG_APPROVAL_ELEVATED, WG_APPROVAL_CRITICAL };
    return (r >= 0 && r < N_NAMES) ? by_risk[r] : WG_APPROVAL_CRITICAL;
}
