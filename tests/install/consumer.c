/* consumer.c - a program outside the tree that uses an installed libwaggle
 * through pkg-config (scripts/test.sh builds and runs it against a temporary
 * `cmake --install` prefix). Exits 0 when the gate asks for `sudo ls` at YOLO. */
#include <stdio.h>
#include <string.h>
#include <waggle/waggle.h>

int main(void)
{
    static const char args[] = "{\"command\":\"sudo ls\"}";
    wg_gate *gate = NULL;
    wg_gate_decision d;
    if (wg_gate_new(&gate, NULL) != 0)
        return 1;
    int rc = wg_gate_check(&d, gate, "bash", args, strlen(args), WG_AUTONOMY_YOLO);
    wg_gate_free(gate);
    if (rc != 0 || !d.needs_confirmation || !d.critical)
        return 1;
    printf("libwaggle %s: sudo at yolo -> %s\n", wg_version(), d.rule);
    return 0;
}
