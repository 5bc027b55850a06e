/* disks.c - disk tools: formatting, partitioning and wiping (critical), dd,
 * and the verb forms of cryptsetup, nvme, zpool, badblocks, ... */
#include "core/shell/internal.h"
#include "core/shell/rules.h"
#include "core/shell/rules_common.h"

#include <string.h>
#include <strings.h>

void sh_rule_disk(sh_ctx *cx, const sh_view *v, const sh_program *p)
{
    int list_only = 0;
    if (strcmp(p->name, "fdisk") == 0 || strcmp(p->name, "sfdisk") == 0 ||
        strcmp(p->name, "parted") == 0) {
        for (int j = v->i + 1; j < v->end; j++)
            if (strcmp(W(j), "-l") == 0 || strcmp(W(j), "--list") == 0 || strcmp(W(j), "print") == 0)
                list_only = 1;
    }
    /* macOS asr: restore (and --erase) overwrites a volume; info and
     * imagescan read an image */
    if (strcmp(p->name, "asr") == 0 && v->i + 1 < v->end &&
        (strcmp(W(v->i + 1), "info") == 0 || strcmp(W(v->i + 1), "imagescan") == 0 ||
         strcmp(W(v->i + 1), "help") == 0))
        list_only = 1;
    if (list_only) {
        sh_verdict(cx, WG_SHELL_RISKY, "bash.disk_tool", p->name, " reads the partition table or an image",
                   NULL, v->via);
        return;
    }
    sh_verdict(cx, WG_SHELL_CRITICAL, "critical.disk_format", p->name,
               " formats, partitions or wipes a disk", NULL, v->via);
}

void sh_rule_diskutil(sh_ctx *cx, const sh_view *v, const sh_program *p)
{
    static const char *const wipe[] = {
        "erasedisk", "erasevolume", "reformat", "partitiondisk", "zerodisk",
        "randomdisk", "secureerase", NULL,
    };
    if (v->i + 1 < v->end) {
        char verb[24];
        size_t n = strlen(W(v->i + 1));
        if (n < sizeof verb) {
            for (size_t k = 0; k <= n; k++)
                verb[k] = (char)(W(v->i + 1)[k] | (W(v->i + 1)[k] >= 'A' && W(v->i + 1)[k] <= 'Z' ? 32 : 0));
            static const char *const reads[] = { "list", "info", "information", NULL };
            if (in_set(verb, reads) ||
                (strcmp(verb, "apfs") == 0 && v->i + 2 < v->end && strcmp(W(v->i + 2), "list") == 0))
                return;                 /* diskutil list, info disk2, apfs list */
            if (in_set(verb, wipe)) {
                sh_verdict(cx, WG_SHELL_CRITICAL, "critical.disk_format", p->name,
                           " erases a disk", NULL, v->via);
                return;
            }
        }
    }
    sh_verdict(cx, WG_SHELL_RISKY, "bash.disk_tool", p->name, " manages disks", NULL, v->via);
}

void sh_rule_dd(sh_ctx *cx, const sh_view *v, const sh_program *p)
{
    (void)p;
    for (int j = v->i + 1; j < v->end; j++) {
        const char *t = W(j);
        if (strncmp(t, "of=", 3) == 0 && (FL(j) & SH_W_OPAQUE)) {
            sh_verdict(cx, WG_SHELL_CRITICAL, "critical.raw_disk_write", "dd writes to a device or file ",
                       "it cannot see (it may be a disk)", NULL, v->via);
            return;
        }
        if (strncmp(t, "of=", 3) == 0 && sh_is_raw_disk(t + 3, v->c->w[j].len - 3)) {
            sh_verdict(cx, WG_SHELL_CRITICAL, "critical.raw_disk_write", "dd writes to the raw disk ",
                       t + 3, NULL, v->via);
            return;
        }
        if (strncmp(t, "of=", 3) == 0) {
            sh_word tw = v->c->w[j];    /* the path after of= */
            tw.off += 3;
            tw.len -= 3;
            if (sh_check_vital(cx, v, &tw, "dd", " overwrites "))
                return;
        }
    }
    sh_verdict(cx, WG_SHELL_DESTRUCTIVE, "bash.dd", "dd copies raw data over a file or device",
               NULL, NULL, v->via);
}

void sh_rule_disk_verbs(sh_ctx *cx, const sh_view *v, const sh_program *p)
{
    static const struct { const char *prog; const char *const verbs[8]; } tools[] = {
        { "badblocks", { "-w", NULL } },
        { "cryptsetup", { "luksformat", "erase", "lukserase", "reencrypt", "format", NULL } },
        { "flashrom", { "-w", "--write", "-e", "--erase", NULL } },
        { "hdparm", { "--security-erase", "--security-erase-enhanced", "--trim-sector-ranges",
                      "--write-sector", "--make-bad-sector", "--dco-restore", NULL } },
        { "mdadm", { "--zero-superblock", "--create", "-c", NULL } },
        { "nvme", { "format", "sanitize", "write-zeroes", "delete-ns", "detach-ns", NULL } },
        { "zfs", { "destroy", NULL } },
        { "zpool", { "create", "destroy", "labelclear", NULL } },
    };
    for (size_t k = 0; k < sizeof tools / sizeof *tools; k++) {
        if (strcmp(tools[k].prog, p->name) != 0)
            continue;
        for (int j = v->i + 1; j < v->end; j++) {
            const char *t = W(j);
            for (const char *const *vb = tools[k].verbs; *vb; vb++)
                if (strcasecmp(t, *vb) == 0 ||
                    ((*vb)[0] == '-' && (*vb)[1] != '-' && t[0] == '-' && t[1] != '-' &&
                     strchr(t + 1, (*vb)[1]))) {
                    sh_verdict(cx, WG_SHELL_CRITICAL, "critical.disk_format", p->name, " ", t, v->via);
                    return;
                }
        }
    }
    if (sh_version_query(v))
        return;
    sh_verdict(cx, WG_SHELL_RISKY, "bash.disk_tool", p->name, " manages disks", NULL, v->via);
}

/* rimraf, srm, wipe, trash-put, cmake -E remove_directory: recursive by
 * nature, whatever the options say. */
