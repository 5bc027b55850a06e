/* system.c - process control and power: kill, shutdown, reboot, halt. */
#include "core/shell/internal.h"
#include "core/shell/rules.h"
#include "core/shell/rules_common.h"

#include <string.h>
#include <strings.h>

void sh_rule_kill(sh_ctx *cx, const sh_view *v, const sh_program *p)
{
    for (int j = v->i + 1; j < v->end; j++) {
        const char *t = W(j);
        if (strcmp(t, "-9") == 0 || strcasecmp(t, "-KILL") == 0 || strcasecmp(t, "-SIGKILL") == 0 ||
            strcmp(t, "-1") == 0 || strcasecmp(t, "KILL") == 0) {
            sh_verdict(cx, WG_SHELL_DESTRUCTIVE, "bash.kill", p->name,
                       " force-kills processes", NULL, v->via);
            return;
        }
    }
    sh_verdict(cx, WG_SHELL_RISKY, "bash.kill", p->name, " stops processes", NULL, v->via);
}

void sh_rule_destructive(sh_ctx *cx, const sh_view *v, const sh_program *p)
{
    sh_verdict(cx, WG_SHELL_DESTRUCTIVE, "bash.destructive", p->name,
               " can destroy data or take the machine down", NULL, v->via);
}
