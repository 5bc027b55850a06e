/* hook.c - libFuzzer target for the coding-agent hook faces (src/hook/,
 * issue #14 §3): any bytes as Claude Code, Codex and Gemini CLI hook input
 * at every autonomy level. Checks invariants, not only crashes: the exit
 * code is 0 (answered) or 2 (malformed: nothing on stdout, a reason on
 * stderr); an answer is one JSON object; a never-autopass call is never
 * allowed; a call allowed at Normal is allowed at every level. */
#include "hook/protocol.h"

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const wg_gate *gate(void)
{
    static wg_gate *g;
    if (!g && wg_gate_new(&g, NULL) != 0)
        abort();
    return g;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const wg_agent agents[] = { WG_AGENT_CLAUDE_CODE, WG_AGENT_CODEX, WG_AGENT_GEMINI };
    for (size_t a = 0; a < 3; a++) {
        int allowed_at_normal = 0;
        for (int lv = WG_AUTONOMY_NORMAL; lv <= WG_AUTONOMY_YOLO; lv++) {
            wg_hook_options o = { WG_HOOK_POLICY_INIT, 0, 0 };
            o.policy.agent = agents[a];
            o.policy.level = (wg_autonomy)lv;
            wg_hook_reply r;
            wg_hook_respond(&r, gate(), &o, (const char *)data, size);
            if (r.exit_code != 0 && r.exit_code != 2)
                abort();
            if (r.exit_code == 2 && (r.out || !r.err[0] || r.decided))
                abort();
            if (r.out) {
                json_t *j = json_loads(r.out, 0, NULL);
                if (!json_is_object(j))
                    abort();
                json_decref(j);
            }
            if (r.decided) {
                if (r.v.d.critical && r.v.outcome == WG_HOOK_ALLOW)
                    abort();
                if (lv == WG_AUTONOMY_NORMAL)
                    allowed_at_normal = r.v.outcome == WG_HOOK_ALLOW;
                else if (allowed_at_normal && r.v.outcome != WG_HOOK_ALLOW)
                    abort();
            }
            wg_hook_reply_clear(&r);
        }
    }
    return 0;
}
