/* fuzz/shell.c - libFuzzer target for the shell model and the gate.
 *
 * The input is a bash command for wg_shell_analyze; the same bytes are also
 * tried as a tool call's JSON arguments and as a --batch line, so the JSON
 * reader is fuzzed too. Invariants are checked, not only crashes: a verdict
 * always has a rule and a reason, and the gate's levels are monotone. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "waggle/gate.h"
#include "waggle/shell.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    wg_shell_verdict v;
    if (wg_shell_analyze(&v, (const char *)data, size) != 0 || !v.rule || !v.reason[0])
        abort();
    wg_gate *g;
    if (wg_gate_new(&g, NULL) != 0)
        return 0;
    wg_gate_decision d[3];
    for (int l = 0; l < 3; l++)
        if (wg_gate_check_bash(&d[l], g, (const char *)data, size, (wg_autonomy)l) != 0)
            abort();
    if (d[0].needs_confirmation != d[0].needs_confirmation_base ||
        d[1].needs_confirmation > d[0].needs_confirmation ||
        d[2].needs_confirmation > d[1].needs_confirmation ||
        (d[0].critical && !d[2].needs_confirmation) ||
        (int)v.cls != (d[0].critical ? 3 : (int)v.cls))
        abort();
    wg_gate_decision j;
    (void)wg_gate_check(&j, g, "bash", (const char *)data, size, WG_AUTONOMY_YOLO);
    (void)wg_gate_check(&j, g, "git_push", (const char *)data, size, WG_AUTONOMY_YOLO);
    (void)wg_gate_check(&j, g, "install_capability", (const char *)data, size, WG_AUTONOMY_YOLO);
    char tool[64];
    (void)wg_gate_check_line(&j, g, (const char *)data, size, WG_AUTONOMY_NORMAL, tool, sizeof tool);
    wg_gate_free(g);
    return 0;
}
