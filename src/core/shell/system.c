/* system.c - process control, power and mounts: kill, shutdown, reboot, halt,
 * mount. */
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

/* mount: with no operand it lists what is mounted (`mount`, `mount -l`,
 * `mount -t ext4`); any other word names something to mount (or -a mounts
 * everything in fstab), which changes the system. */
void sh_rule_mount(sh_ctx *cx, const sh_view *v, const sh_program *p)
{
    static const char *const lists[] = { "-l", "--show-labels", "-v", "--verbose", NULL };
    static const char *const typed[] = { "-t", "--types", NULL };
    for (int j = v->i + 1; j < v->end; j++) {
        const char *t = W(j);
        int typed_arg = j > v->i + 1 && in_set(W(j - 1), typed);
        if ((v->c->w[j].flags & SH_W_OPAQUE) ||
            (!in_set(t, lists) && !in_set(t, typed) && strncmp(t, "--types=", 8) != 0 && !typed_arg)) {
            sh_verdict(cx, WG_SHELL_RISKY, "bash.unknown_program", p->name,
                       " mounts a file system", NULL, v->via);
            return;
        }
    }
}
