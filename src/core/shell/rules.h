/* rules.h - the per-program rules (the rule files: wrappers.c ... git.c) the program table
 * (programs.c) points at. Not installed. */
#ifndef WAGGLE_SHELL_RULES_H
#define WAGGLE_SHELL_RULES_H

#include "core/shell/internal.h"

void sh_rule_wrapper(sh_ctx *cx, const sh_view *v, const sh_program *p);
void sh_rule_env(sh_ctx *cx, const sh_view *v, const sh_program *p);
void sh_rule_xargs(sh_ctx *cx, const sh_view *v, const sh_program *p);
void sh_rule_busybox(sh_ctx *cx, const sh_view *v, const sh_program *p);
void sh_rule_priv(sh_ctx *cx, const sh_view *v, const sh_program *p);
void sh_rule_shell(sh_ctx *cx, const sh_view *v, const sh_program *p);
void sh_rule_source(sh_ctx *cx, const sh_view *v, const sh_program *p);
void sh_rule_eval(sh_ctx *cx, const sh_view *v, const sh_program *p);
void sh_rule_trap(sh_ctx *cx, const sh_view *v, const sh_program *p);
void sh_rule_interp(sh_ctx *cx, const sh_view *v, const sh_program *p);
void sh_rule_version_only(sh_ctx *cx, const sh_view *v, const sh_program *p);
void sh_rule_pkg(sh_ctx *cx, const sh_view *v, const sh_program *p);
void sh_rule_rm(sh_ctx *cx, const sh_view *v, const sh_program *p);
void sh_rule_rd(sh_ctx *cx, const sh_view *v, const sh_program *p);
void sh_rule_del(sh_ctx *cx, const sh_view *v, const sh_program *p);
void sh_rule_remove_item(sh_ctx *cx, const sh_view *v, const sh_program *p);
void sh_rule_format(sh_ctx *cx, const sh_view *v, const sh_program *p);
void sh_rule_disk(sh_ctx *cx, const sh_view *v, const sh_program *p);
void sh_rule_diskutil(sh_ctx *cx, const sh_view *v, const sh_program *p);
void sh_rule_dd(sh_ctx *cx, const sh_view *v, const sh_program *p);
void sh_rule_shred(sh_ctx *cx, const sh_view *v, const sh_program *p);
void sh_rule_reg(sh_ctx *cx, const sh_view *v, const sh_program *p);
void sh_rule_query(sh_ctx *cx, const sh_view *v, const sh_program *p);
void sh_rule_crontab(sh_ctx *cx, const sh_view *v, const sh_program *p);
void sh_rule_at(sh_ctx *cx, const sh_view *v, const sh_program *p);
void sh_rule_setcap(sh_ctx *cx, const sh_view *v, const sh_program *p);
void sh_rule_installer(sh_ctx *cx, const sh_view *v, const sh_program *p);
void sh_rule_runas(sh_ctx *cx, const sh_view *v, const sh_program *p);
void sh_rule_launcher(sh_ctx *cx, const sh_view *v, const sh_program *p);
void sh_rule_man(sh_ctx *cx, const sh_view *v, const sh_program *p);
void sh_rule_make(sh_ctx *cx, const sh_view *v, const sh_program *p);
void sh_rule_disk_verbs(sh_ctx *cx, const sh_view *v, const sh_program *p);
void sh_rule_rmtree(sh_ctx *cx, const sh_view *v, const sh_program *p);
void sh_rule_tar(sh_ctx *cx, const sh_view *v, const sh_program *p);
void sh_rule_unzip(sh_ctx *cx, const sh_view *v, const sh_program *p);
void sh_rule_win_admin(sh_ctx *cx, const sh_view *v, const sh_program *p);
void sh_rule_net(sh_ctx *cx, const sh_view *v, const sh_program *p);
void sh_rule_envdump(sh_ctx *cx, const sh_view *v, const sh_program *p);
void sh_rule_chmod(sh_ctx *cx, const sh_view *v, const sh_program *p);
void sh_rule_mv(sh_ctx *cx, const sh_view *v, const sh_program *p);
void sh_rule_writer(sh_ctx *cx, const sh_view *v, const sh_program *p);
void sh_rule_rsync(sh_ctx *cx, const sh_view *v, const sh_program *p);
void sh_rule_kill(sh_ctx *cx, const sh_view *v, const sh_program *p);
void sh_rule_destructive(sh_ctx *cx, const sh_view *v, const sh_program *p);
void sh_rule_mount(sh_ctx *cx, const sh_view *v, const sh_program *p);
void sh_rule_iex(sh_ctx *cx, const sh_view *v, const sh_program *p);
/* PowerShell pipeline filters (Where-Object, Select-Object, Sort-Object, ...):
 * read-only unless given a script block, a subexpression or a value it
 * cannot see (any of which may run code). */
void sh_rule_ps_filter(sh_ctx *cx, const sh_view *v, const sh_program *p);
/* New-ItemProperty, Set-ItemProperty: a Run/RunOnce/Winlogon value is
 * critical.persistence, any other a registry write. */
void sh_rule_win_regset(sh_ctx *cx, const sh_view *v, const sh_program *p);
/* db.c: psql, mysql, sqlite3, redis-cli, mongosh: read-only when every
 * statement on the command line only reads, else bash.database. */
void sh_rule_db(sh_ctx *cx, const sh_view *v, const sh_program *p);
/* less, more: read-only unless +CMD is more than a move or a search, or a
 * log/key-binding file is given (readonly.c). */
void sh_rule_pager(sh_ctx *cx, const sh_view *v, const sh_program *p);
/* defaults write ... LoginHook|LogoutHook is persistence; else the query
 * table (persist.c). */
void sh_rule_defaults(sh_ctx *cx, const sh_view *v, const sh_program *p);
void sh_rule_cloud(sh_ctx *cx, const sh_view *v, const sh_program *p);
void sh_rule_network(sh_ctx *cx, const sh_view *v, const sh_program *p);
void sh_rule_net_query(sh_ctx *cx, const sh_view *v, const sh_program *p);
void sh_rule_winshell(sh_ctx *cx, const sh_view *v, const sh_program *p);
void sh_rule_find(sh_ctx *cx, const sh_view *v, const sh_program *p);
void sh_rule_fd(sh_ctx *cx, const sh_view *v, const sh_program *p);
void sh_rule_sed(sh_ctx *cx, const sh_view *v, const sh_program *p);
void sh_rule_awk(sh_ctx *cx, const sh_view *v, const sh_program *p);
void sh_rule_sort(sh_ctx *cx, const sh_view *v, const sh_program *p);
void sh_rule_uniq(sh_ctx *cx, const sh_view *v, const sh_program *p);
void sh_rule_date(sh_ctx *cx, const sh_view *v, const sh_program *p);
void sh_rule_no_operands(sh_ctx *cx, const sh_view *v, const sh_program *p);
void sh_rule_forbid(sh_ctx *cx, const sh_view *v, const sh_program *p);
void sh_rule_alias(sh_ctx *cx, const sh_view *v, const sh_program *p);
void sh_rule_cd(sh_ctx *cx, const sh_view *v, const sh_program *p);
void sh_rule_declare(sh_ctx *cx, const sh_view *v, const sh_program *p);
void sh_rule_sysctl(sh_ctx *cx, const sh_view *v, const sh_program *p);
void sh_rule_net_fetch(sh_ctx *cx, const sh_view *v, const sh_program *p);
void sh_rule_git(sh_ctx *cx, const sh_view *v, const sh_program *p);
void sh_rule_forge(sh_ctx *cx, const sh_view *v, const sh_program *p);

/* main/master/production after trimming, case-folding and refs/heads/. */
int sh_git_protected_branch(const char *ref, size_t n);

#endif
