/* analyze.c - classifies one simple command (issue #2 §3): reserved
 * words, assignments, the program in command position, redirections; then
 * hands the arguments to the program's rule (the rule files: wrappers.c ... git.c) found in the
 * program table (programs.c). Also the entry point wg_shell_analyze and
 * the fail-closed scan used when the text cannot be parsed.
 *
 * The worst verdict of any part wins; among equals the first one found
 * explains the decision.
 */
#include "core/shell/internal.h"
#include "core/shell/rules_common.h"
#include "waggle/error.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

int sh_weq(const sh_cmd *c, int i, const char *lit)
{
    return sh_streq(sh_wtext(c, i), lit);
}

int sh_word_is_literal(const sh_cmd *c, int i)
{
    const sh_word *w = &c->w[i];
    return !(w->flags & (SH_W_OPAQUE | SH_W_GLOB | SH_W_BRACE)) &&
           !memchr(c->text + w->off, SH_MARK, w->len);
}

int sh_wprefix(const sh_cmd *c, int i, const char *lit)
{
    return strncmp(sh_wtext(c, i), lit, strlen(lit)) == 0;
}

/* Appends s, showing expansion markers the way a person would write them
 * and control bytes as '?'. */
static int unknown_on_raw_disk(sh_ctx *cx, const sh_view *v, const char *name);
static size_t cat(char *dst, size_t k, size_t cap, const char *s)
{
    if (!s)
        return k;
    for (;;) {
        size_t run = 0;
        while ((unsigned char)s[run] >= 0x20)
            run++;                      /* plain text: copy in one go */
        if (run > cap - 1 - k)
            run = cap - 1 - k;
        memcpy(dst + k, s, run);
        k += run;
        s += run;
        if (!*s || k + 1 >= cap)
            return k;
        if (*s == SH_MARK && s[1]) {
            const char *show = s[1] == SH_K_HOME ? "~" : s[1] == SH_K_USER ? "~user"
                             : s[1] == SH_K_CMDSUB ? "$(...)" : s[1] == SH_K_PROCSUB ? "<(...)"
                             : "$VAR";
            s += 2;
            while (*show && k + 1 < cap)
                dst[k++] = *show++;
            continue;
        }
        dst[k++] = '?';
        s++;
    }
}

void sh_verdict(sh_ctx *cx, wg_shell_class cls, const char *rule,
                const char *a, const char *b, const char *c, const char *via)
{
    wg_shell_verdict *o = cx->out;
    if (cls <= o->cls && o->rule)
        return;
    o->cls = cls;
    o->rule = rule;
    size_t k = 0, cap = sizeof o->reason;
    k = cat(o->reason, k, cap, a);
    k = cat(o->reason, k, cap, b);
    k = cat(o->reason, k, cap, c);
    if (via) {                          /* the brackets as cat would copy them, cut at cap */
        for (const char *p = " ("; *p && k + 1 < cap; p++)
            o->reason[k++] = *p;
        k = cat(o->reason, k, cap, via);
        if (k + 1 < cap)
            o->reason[k++] = ')';
    }
    o->reason[k] = '\0';
}

/* ---- reserved words and assignments -------------------------------------- */

/* The reserved words dropped in command position: ! coproc do done elif
 * else esac fi if then until while { } (a fixed set of the grammar, told
 * apart by the first byte; this runs on every simple command). */
static int is_noop_word(const char *w)
{
    switch (w[0]) {
    case '!': case '{': case '}':
        return w[1] == '\0';
    case 'c': return sh_streq(w, "coproc");
    case 'd': return w[1] == 'o' && (w[2] == '\0' || sh_streq(w + 2, "ne"));
    case 'e': return sh_streq(w, "elif") || sh_streq(w, "else") || sh_streq(w, "esac");
    case 'f': return sh_streq(w, "fi");
    case 'i': return sh_streq(w, "if");
    case 't': return sh_streq(w, "then");
    case 'u': return sh_streq(w, "until");
    case 'w': return sh_streq(w, "while");
    default: return 0;
    }
}

/* Variables that change what a later program does (loader, shell start-up,
 * pagers and editors git runs, interpreter options, HOME itself). */
static int dangerous_var(const char *s, size_t n)
{
    /* what the program loads or runs first (a library, a start-up file, a
     * wrapper), or where it reads a configuration that may name a command
     * (git's core.pager under XDG_CONFIG_HOME, an AWS profile's
     * credential_process, a curlrc's -o, a cargo target's runner) */
    static const char *const exact[] = {
        "AWS_CONFIG_FILE", "AWS_SHARED_CREDENTIALS_FILE", "BASHOPTS", "BASH_ENV", "CARGO_BUILD_RUSTC",
        "CARGO_BUILD_RUSTC_WORKSPACE_WRAPPER", "CARGO_BUILD_RUSTC_WRAPPER", "CARGO_BUILD_RUSTFLAGS",
        "CARGO_ENCODED_RUSTFLAGS", "CARGO_HOME", "CDPATH",
        "CLOUDSDK_CONFIG", "CURL_HOME", "EDITOR", "ENV", "GCONV_PATH", "GLOBIGNORE", "GOENV",
        "GOFLAGS", "GRADLE_OPTS", "HOME", "JAVA_TOOL_OPTIONS", "JDK_JAVA_OPTIONS",
        "LESSCLOSE", "LESSOPEN", "LUA_CPATH", "LUA_INIT", "LUA_PATH", "MANPAGER", "MAVEN_OPTS",
        "NODE_OPTIONS", "NODE_PATH", "PAGER", "PATH", "PERL5LIB", "PERL5OPT", "PHPRC",
        "PHP_INI_SCAN_DIR", "PROMPT_COMMAND", "PS4", "PYTHONBREAKPOINT", "PYTHONHOME", "PYTHONPATH",
        "PYTHONSTARTUP", "PYTHONWARNINGS", "RUBYLIB", "RUBYOPT", "RUSTDOCFLAGS", "RUSTFLAGS",
        "SHELLOPTS", "SUDO_ASKPASS", "SSH_ASKPASS", "TF_CLI_CONFIG_FILE", "VISUAL", "WGETRC",
        "XDG_CONFIG_DIRS", "XDG_CONFIG_HOME", "ZDOTDIR", "_JAVA_OPTIONS",
    };
    static const char *const prefix[] = {
        "LD_", "DYLD_", "GIT_", "BASH_FUNC", "CARGO_TARGET_", "CGO_", "NPM_CONFIG_", "npm_config_",
        "RUSTC_",
    };
    for (size_t i = 0; i < sizeof exact / sizeof *exact; i++)
        if (strlen(exact[i]) == n && memcmp(exact[i], s, n) == 0)
            return 1;
    for (size_t i = 0; i < sizeof prefix / sizeof *prefix; i++)
        if (n >= strlen(prefix[i]) && memcmp(prefix[i], s, strlen(prefix[i])) == 0)
            return 1;
    return 0;
}

/* Length of NAME in a NAME=value / NAME+=value word written unquoted, or 0. */
size_t sh_assignment_name(const sh_cmd *c, int i)
{
    if (!memchr(sh_wtext(c, i), '=', c->w[i].len))
        return 0;
    const char *r = c->src + c->w[i].raw_off;
    size_t n = c->w[i].raw_len, k = 0;
    if (n == 0 || !((r[0] >= 'a' && r[0] <= 'z') || (r[0] >= 'A' && r[0] <= 'Z') || r[0] == '_'))
        return 0;
    while (k < n && ((r[k] >= 'a' && r[k] <= 'z') || (r[k] >= 'A' && r[k] <= 'Z') ||
                     (r[k] >= '0' && r[k] <= '9') || r[k] == '_'))
        k++;
    if (k < n && r[k] == '=')
        return k;
    if (k + 1 < n && r[k] == '+' && r[k + 1] == '=')
        return k;
    return 0;
}

/* Variables whose value is a command some program runs later. */
static int command_var(const char *s, size_t n)
{
    static const char *const vars[] = {
        "EDITOR", "GIT_EDITOR", "GIT_EXTERNAL_DIFF", "GIT_PAGER", "GIT_SEQUENCE_EDITOR",
        "GIT_SSH_COMMAND", "LESSCLOSE", "LESSOPEN", "MANPAGER", "PAGER", "PROMPT_COMMAND",
        "VISUAL",
    };
    for (size_t i = 0; i < sizeof vars / sizeof *vars; i++)
        if (strlen(vars[i]) == n && memcmp(vars[i], s, n) == 0)
            return 1;
    return 0;
}

/* Variables whose value is by convention a program the user's tools run
 * ($CC, $PYTHON, ...): an assignment is read as a script, and asks only
 * when what it names is destructive or worse. */
static int program_var(const char *s, size_t n)
{
    static const char *const vars[] = {
        "AR", "AS", "BROWSER", "CARGO", "CC", "CPP", "CXX", "DOCKER", "FC", "GO", "JAVA",
        "KUBECTL", "LD", "MAKE", "NODE", "NPM", "PERL", "PHP", "PYTHON", "PYTHON3", "RUBY",
        "RUSTC", "SHELL", "YARN",
    };
    for (size_t i = 0; i < sizeof vars / sizeof *vars; i++)
        if (strlen(vars[i]) == n && memcmp(vars[i], s, n) == 0)
            return 1;
    return 0;
}

/* PAGER=cat, GIT_PAGER= : a command variable set to nothing or to one
 * read-only program word changes nothing worth asking about. */
static int harmless_program_value(const sh_view *v, int i, size_t k)
{
    const sh_word *w = &v->c->w[i];
    const char *val = sh_wtext(v->c, i) + k + 1;
    size_t n = w->len - k - 1;
    if (w->flags & SH_W_OPAQUE)
        return 0;
    if (n == 0)
        return 1;
    /* the program, then only plain options: GIT_PAGER='less -FRX' */
    size_t prog = 0;
    while (prog < n && val[prog] != ' ')
        prog++;
    for (size_t q = prog; q < n; q++) {
        char ch = val[q];
        /* no o/O/k: less -oFILE writes its input to FILE, -k reads a key file */
        int plain = (ch >= 'a' && ch <= 'z' && ch != 'o' && ch != 'k') ||
                    (ch >= 'A' && ch <= 'Z' && ch != 'O') || (ch >= '0' && ch <= '9') || ch == '-' || ch == '=';
        if (ch == ' ' ? q + 1 >= n || val[q + 1] != '-' : !plain)
            return 0;
    }
    const sh_program *p = sh_program_lookup(val, prog);
    /* less and more are checked for +CMD and -o/-k: the options were vetted above */
    return p && (p->cls == SH_P_SAFE || (p->cls == SH_P_CHECK && (strcmp(p->name, "less") == 0 ||
                                                                  strcmp(p->name, "more") == 0)));
}

void sh_check_assignment(sh_ctx *cx, const sh_view *v, int i)
{
    size_t k = sh_assignment_name(v->c, i);
    const char *t = sh_wtext(v->c, i);
    if (k) {
        const char *raw = v->c->src + v->c->w[i].raw_off;
        int append = raw[k] == '+';
        const char *val = t + k + 1 + append;
        size_t vlen = v->c->w[i].len - k - 1 - (size_t)append;
        const sh_word *w = &v->c->w[i];
        size_t after = (size_t)w->raw_off + w->raw_len;
        if (vlen == 0 && after < v->c->src_len && v->c->src[after] == '(')
            ;                           /* NAME=( ... ): bound by the lexer */
        else if (w->flags & (SH_W_TRUNC | SH_W_CTRL | SH_W_GLOB | SH_W_BRACE))
            sh_var_unknown(cx, t, k);
        else
            sh_var_assign(cx, t, k, val, vlen, append);
    }
    if (k && dangerous_var(t, k) && !(command_var(t, k) && harmless_program_value(v, i, k))) {
        char name[40];
        size_t m = k < sizeof name - 1 ? k : sizeof name - 1;
        memcpy(name, t, m);
        name[m] = '\0';
        sh_verdict(cx, WG_SHELL_RISKY, "bash.env_assignment", "sets ", name,
                   ", which changes what later programs run", v->via);
    }
    if (k && command_var(t, k)) {
        const char *val = strchr(t, '=');
        if (v->c->w[i].flags & (SH_W_CMDSUB | SH_W_TRUNC | SH_W_CTRL))
            sh_verdict(cx, WG_SHELL_CRITICAL, "critical.shell_unseen_text", "sets a command variable ",
                       "to text it cannot see", NULL, v->via);
        else if (val && val[1] && sh_parse_script(cx, val + 1, strlen(val + 1),
                                                  "in a command variable") < 0)
            sh_coarse_scan(cx, val + 1, strlen(val + 1));
    } else if (k && program_var(t, k)) {
        const char *val = strchr(t, '=');
        if (val && val[1]) {
            wg_shell_verdict keep = *cx->out;
            if (sh_parse_script(cx, val + 1, strlen(val + 1), "in a program variable") < 0)
                sh_coarse_scan(cx, val + 1, strlen(val + 1));
            if (cx->out->cls < WG_SHELL_DESTRUCTIVE)
                *cx->out = keep;        /* CC=gcc is no reason to ask */
        }
    }
    if (k)
        sh_check_persist_var(cx, v, i, t, k);
}

void sh_arith_text(sh_ctx *cx, const char *t, size_t n)
{
    if (!memmem(t, n, "$(", 2) && !memchr(t, '`', n))
        return;
    if (sh_parse_script(cx, t, n, "inside an arithmetic expression") < 0)
        sh_coarse_scan(cx, t, n);
}

/* ---- the program word ------------------------------------------------------ */

static const char *const trusted_dirs[] = {
    "/bin/", "/sbin/", "/usr/bin/", "/usr/sbin/", "/usr/local/bin/", "/usr/local/sbin/",
};

/* Lower-cased base name without ".exe" into buf; *trusted says whether a
 * directory part names a system directory (or there is none). One pass:
 * the copy starts again after each separator. */
static size_t program_name(const char *t, size_t n, char *buf, size_t cap, int *trusted)
{
    /* most program words are a lower-case name: copied as they are until
     * the first byte the loop below treats apart (a separator, '^', upper
     * case), where it takes over with the same state */
    static const unsigned char apart[256] = {
        ['/'] = 1, ['\\'] = 1, ['^'] = 1,
        ['A'] = 1, ['B'] = 1, ['C'] = 1, ['D'] = 1, ['E'] = 1, ['F'] = 1, ['G'] = 1, ['H'] = 1,
        ['I'] = 1, ['J'] = 1, ['K'] = 1, ['L'] = 1, ['M'] = 1, ['N'] = 1, ['O'] = 1, ['P'] = 1,
        ['Q'] = 1, ['R'] = 1, ['S'] = 1, ['T'] = 1, ['U'] = 1, ['V'] = 1, ['W'] = 1, ['X'] = 1,
        ['Y'] = 1, ['Z'] = 1,
    };
    size_t lim = n < cap - 1 ? n : cap - 1;
    size_t start = 0, k = 0;            /* the base name starts at t[start] */
    while (k < lim && !apart[(unsigned char)t[k]]) {
        buf[k] = t[k];
        k++;
    }
    int fits = 1;
    for (size_t i = k; i < n; i++) {
        char ch = t[i];
        if (ch == '/' || ch == '\\') {
            start = i + 1;
            k = 0;
            fits = 1;
            continue;
        }
        if (ch == '^')                  /* c^m^d is cmd to cmd.exe (a lone ^ is kept below) */
            continue;
        if (k + 1 >= cap)
            fits = 0;
        else
            buf[k++] = (ch >= 'A' && ch <= 'Z') ? (char)(ch + 32) : ch;
    }
    size_t bn = n - start;
    *trusted = 1;
    if (start > 0) {
        *trusted = 0;
        for (size_t i = 0; i < sizeof trusted_dirs / sizeof *trusted_dirs; i++)
            if (strlen(trusted_dirs[i]) == start && memcmp(trusted_dirs[i], t, start) == 0)
                *trusted = 1;
    }
    if (bn + 1 > cap || bn == 0 || !fits)
        return 0;
    if (bn == 1 && t[start] == '^')
        buf[k++] = '^';
    n = k;
    if (n > 4 && (memcmp(buf + n - 4, ".exe", 4) == 0 || memcmp(buf + n - 4, ".com", 4) == 0))
        n -= 4;
    buf[n] = '\0';
    return n;
}

/* The row of a program name, also through a version suffix: python3.12,
 * lua5.4, ksh93, perl5.36 are python3/python, lua, ksh, perl. */
static const sh_program *find_versioned(char *name, size_t *n)
{
    const sh_program *p = sh_program_find(name, *n);
    size_t k = *n;
    while (!p && k > 1 && ((name[k - 1] >= '0' && name[k - 1] <= '9') || name[k - 1] == '.' ||
                           name[k - 1] == '-')) {
        k--;
        if (!((name[k - 1] >= '0' && name[k - 1] <= '9') || name[k - 1] == '.' || name[k - 1] == '-'))
            p = sh_program_find(name, k);
        if (!p && name[k - 1] >= '0' && name[k - 1] <= '9' && k >= 2 && name[k - 2] >= 'a')
            p = sh_program_find(name, k);       /* python3 of python3.12 */
    }
    if (p && k != *n) {
        if (p->cls != SH_P_SHELL && p->cls != SH_P_INTERP)
            return NULL;                /* npm2 is not npm */
        *n = k;
        name[k] = '\0';
    }
    return p;
}

const sh_program *sh_program_lookup(const char *t, size_t n)
{
    char name[48];
    int trusted;
    size_t nlen = program_name(t, n, name, sizeof name, &trusted);
    return nlen ? find_versioned(name, &nlen) : NULL;
}

int sh_word_target(const sh_ctx *cx, const sh_view *v, int i)
{
    const sh_cmd *c = v->c;
    if (v->placeholder >= 0 && strstr(sh_wtext(c, i), "{}"))
        return v->placeholder;
    if (c->w[i].flags & (SH_W_TRUNC | SH_W_CTRL))
        return SH_T_OPAQUE;
    const char *raw = c->src + c->w[i].raw_off;
    if (sh_is_drive_root(raw, c->w[i].raw_len))
        return SH_T_ROOT;
    const char *t = sh_wtext(c, i);
    size_t n = c->w[i].len;
    /* C:\Windows, %USERPROFILE%, $env:WINDIR, \\?\C:\Users\bob: as written or unquoted */
    int win = sh_is_windows_critical(raw, c->w[i].raw_len);
    if (!win && n > 0 && t[0] != SH_MARK)
        win = sh_is_windows_critical(t, n);
    if (win)
        return win;
    if (cx->ar.nsym > 0 && n > 0 && t[0] != '/' && t[0] != SH_MARK) {
        /* through a link made earlier (ln -s / x; rm -rf x/) */
        size_t k = 0;
        while (k < n && t[k] != '/')
            k++;
        const sh_sym *y = sh_sym_find(cx, SH_SYM_LINK, t, k);
        if (y && (k == n || strspn(t + k, "/*.") == n - k))
            return y->state;
    }
    return sh_target_class(t, n, cx->cwd);
}

static void analyze_view(sh_ctx *cx, const sh_view *v);

void sh_analyze_view(sh_ctx *cx, const sh_view *v)
{
    if (cx->view_depth >= SH_MAX_VIEW_DEPTH) {
        sh_overflow(cx, "a command is wrapped more deeply than the model follows");
        return;
    }
    SH_STEP(cx, v->end - v->i);
    cx->view_depth++;
    analyze_view(cx, v);
    cx->view_depth--;
}

/* for NAME in WORDS / select NAME in WORDS: NAME takes each word in turn. */
static void bind_loop(sh_ctx *cx, const sh_view *v, int i)
{
    const sh_cmd *c = v->c;
    if (i + 1 >= v->end)
        return;
    const char *name = sh_wtext(c, i + 1);
    size_t n = c->w[i + 1].len;
    int seen = i + 2 < v->end && sh_weq(c, i + 2, "in") && sh_wtext(c, i)[0] == 'f';
    for (int j = i + 3; seen && j < v->end; j++) {
        if (c->w[j].flags & (SH_W_CMDSUB | SH_W_PROCSUB | SH_W_TRUNC | SH_W_CTRL | SH_W_GLOB | SH_W_BRACE)) {
            seen = 0;
            break;
        }
        sh_var_assign(cx, name, n, sh_wtext(c, j), c->w[j].len, 0);
    }
    if (!seen)
        sh_var_unknown(cx, name, n);    /* positional parameters, a glob, select's answer */
}

/* NAME[SUB]=value: 1 + the length of NAME, or 0. */
static size_t subscript_assignment(const sh_cmd *c, int i)
{
    const char *t = sh_wtext(c, i);
    size_t k = 0;
    if (!(c->w[i].flags & SH_W_QUOTED) || c->src[c->w[i].raw_off] != '\'') {
        while (k < c->w[i].len && ((t[k] >= 'A' && t[k] <= 'Z') || (t[k] >= 'a' && t[k] <= 'z') ||
                                   (t[k] >= '0' && t[k] <= '9' && k > 0) || t[k] == '_'))
            k++;
    }
    if (k == 0 || t[k] != '[')
        return 0;
    const char *close = strchr(t + k, ']');
    return close && (close[1] == '=' || (close[1] == '+' && close[2] == '=')) ? k + 1 : 0;
}

/* Builtins that set variables the model cannot see (read, mapfile, ...),
 * unset, source, hash -p and alias: their effect on later commands. */
enum { FX_NONE, FX_READS, FX_OPTVAR, FX_UNSET, FX_SOURCE, FX_HASH, FX_ALIAS };

static int effect_of(const char *prog)
{
    switch (prog[0]) {                  /* one look at the first byte for most programs */
    case '.': return prog[1] == '\0' ? FX_SOURCE : FX_NONE;
    case 'a': return strcmp(prog, "alias") == 0 ? FX_ALIAS : FX_NONE;
    case 'g': return strcmp(prog, "getopts") == 0 ? FX_READS : FX_NONE;
    case 'h': return strcmp(prog, "hash") == 0 ? FX_HASH : FX_NONE;
    case 'm': return strcmp(prog, "mapfile") == 0 ? FX_READS : FX_NONE;
    case 'p': return strcmp(prog, "printf") == 0 ? FX_OPTVAR : FX_NONE;
    case 'r': return strcmp(prog, "read") == 0 || strcmp(prog, "readarray") == 0 ? FX_READS : FX_NONE;
    case 's': return strcmp(prog, "source") == 0 ? FX_SOURCE : FX_NONE;
    case 'u': return strcmp(prog, "unset") == 0 ? FX_UNSET : FX_NONE;
    case 'w': return strcmp(prog, "wait") == 0 ? FX_OPTVAR : FX_NONE;
    default: return FX_NONE;
    }
}

static void builtin_effects(sh_ctx *cx, const sh_view *v, int i, const char *prog)
{
    const sh_cmd *c = v->c;
    int fx = effect_of(prog);
    if (fx == FX_NONE)
        return;
    if (fx == FX_READS || fx == FX_OPTVAR) {
        int printf_like = fx == FX_OPTVAR;
        for (int j = i + 1; j < v->end; j++) {
            const char *t = sh_wtext(c, j);
            if (printf_like) {          /* printf -v NAME, wait -p NAME */
                if ((strcmp(t, "-v") == 0 || strcmp(t, "-p") == 0) && j + 1 < v->end)
                    sh_var_unknown(cx, sh_wtext(c, j + 1), c->w[j + 1].len);
                continue;
            }
            if (t[0] != '-')
                sh_var_unknown(cx, t, c->w[j].len);
            else if (t[1] && strchr("adinNptu", t[strlen(t) - 1]) && !t[2] && j + 1 < v->end) {
                j++;                    /* read -a NAME, -p PROMPT */
                sh_var_unknown(cx, sh_wtext(c, j), c->w[j].len);
            }
        }
        if (prog[0] == 'r' || prog[0] == 'm')
            sh_var_unknown(cx, prog[0] == 'r' && prog[4] == '\0' ? "REPLY" : "MAPFILE",
                           prog[0] == 'r' && prog[4] == '\0' ? 5 : 7);
        return;
    }
    if (fx == FX_UNSET) {
        for (int j = i + 1; j < v->end; j++)
            if (sh_wtext(c, j)[0] != '-' && !(c->w[j].flags & SH_W_OPAQUE))
                sh_var_unset(cx, sh_wtext(c, j), c->w[j].len);
        return;
    }
    if (fx == FX_SOURCE) {
        cx->vars_unknown = 1;           /* the file may set anything */
        return;
    }
    if (fx == FX_HASH) {
        /* hash -p PATH NAME: NAME now runs PATH */
        for (int j = i + 1; j + 2 < v->end; j++)
            if (sh_weq(c, j, "-p")) {
                sh_sym *y = sh_sym_add(cx, SH_SYM_REMAP, sh_wtext(c, j + 2), c->w[j + 2].len);
                if (y && sh_keep(cx, sh_wtext(c, j + 1), c->w[j + 1].len, &y->val) == 0)
                    y->vlen = c->w[j + 1].len;
            }
        return;
    }
    if (fx == FX_ALIAS) {
        for (int j = i + 1; j < v->end; j++) {
            const char *t = sh_wtext(c, j), *eq = strchr(t, '=');
            if (!eq || t[0] == '-' || (c->w[j].flags & SH_W_OPAQUE))
                continue;
            sh_sym *y = sh_sym_add(cx, SH_SYM_REMAP, t, (size_t)(eq - t));
            size_t vl = c->w[j].len - (size_t)(eq + 1 - t);
            if (y && sh_keep(cx, eq + 1, vl, &y->val) == 0)
                y->vlen = (uint32_t)vl;
        }
    }
}

/* A remapped command name (alias, hash -p, BASH_CMDS): the replacement
 * text then the rest of the command, read again as a script. */
static void run_remap(sh_ctx *cx, const sh_view *v, int i, sh_sym *y)
{
    const sh_cmd *c = v->c;
    size_t rest = 0, from = 0;
    if (i + 1 < v->end) {
        from = c->w[i + 1].raw_off;
        rest = c->w[v->end - 1].raw_off + c->w[v->end - 1].raw_len - from;
    }
    uint32_t mark;
    char *buf = sh_scratch(cx, y->vlen + rest + 2, &mark);
    if (!buf)
        return;
    memcpy(buf, cx->ar.keep + y->val, y->vlen);
    buf[y->vlen] = ' ';
    memcpy(buf + y->vlen + 1, c->src + from, rest);
    size_t n = y->vlen + 1 + rest;
    y->busy = 1;                        /* alias a=a: not expanded again inside itself */
    if (sh_parse_script(cx, buf, n, "through an alias or hash -p") < 0)
        sh_coarse_scan(cx, buf, n);
    y->busy = 0;
    sh_scratch_release(cx, mark);
}

/* The program word is an expansion: what can be told about it. */
static void hidden_program(sh_ctx *cx, const sh_view *v, int i)
{
    const sh_cmd *c = v->c;
    const sh_word *pw = &c->w[i];
    const char *pt = sh_wtext(c, i);
    for (int j = i + 1; j < v->end; j++) {
        int t = sh_word_target(cx, v, j);
        if (t == SH_T_ROOT || t == SH_T_HOME || t == SH_T_SYSTEM) {
            sh_verdict(cx, WG_SHELL_CRITICAL, "critical.hidden_program",
                       "a command hidden behind an expansion targets ",
                       sh_target_phrase(t), NULL, v->via);
            return;
        }
    }
    for (int j = i + 1; j + 1 < v->end; j++)
        if (strcmp(sh_wtext(c, j), "-c") == 0 && !(c->w[j + 1].flags & SH_W_OPAQUE)) {
            /* $SHELL -c '...': read the script anyway */
            if (sh_parse_script(cx, sh_wtext(c, j + 1), c->w[j + 1].len,
                                "inside $SHELL -c") < 0)
                sh_coarse_scan(cx, sh_wtext(c, j + 1), c->w[j + 1].len);
            break;
        }
    const sh_word *last = &c->w[v->end - 1];
    const char *crit = sh_signal_scan(c->src + pw->raw_off,
                                      last->raw_off + last->raw_len - pw->raw_off, 1);
    if (crit) {
        sh_verdict(cx, WG_SHELL_CRITICAL, "critical.hidden_program",
                   "a command hidden behind an expansion ", crit, NULL, v->via);
        return;
    }
    /* "$@", $1 in a function's body: the function runs its arguments (the
     * calls are checked, run_function) */
    if (pw->len == 2 && pt[0] == SH_MARK && (pt[1] == SH_K_ARGS || (pt[1] >= '1' && pt[1] <= '9')) &&
        cx->cur_func >= 0) {
        cx->ar.sym[cx->cur_func].runs_args = (int16_t)(pt[1] == SH_K_ARGS ? 1 : pt[1] - '0');
        return;
    }
    if (pw->len == 2 && pt[0] == SH_MARK && pt[1] == SH_K_CONV) {
        sh_verdict(cx, WG_SHELL_RISKY, "bash.unknown_program",
                   "runs the program a variable such as $EDITOR or $CC names", NULL, NULL, v->via);
        return;
    }
    /* what cannot be resolved and could be critical is critical: the value
     * may be sudo, or rm with these arguments */
    sh_verdict(cx, WG_SHELL_CRITICAL, "critical.hidden_program",
               "the program to run comes from an expansion it cannot see (it may be sudo or rm)",
               NULL, NULL, v->via);
}

/* A call of a shell function: its body was analysed where it was defined;
 * one that runs its arguments ("$@") runs them here. */
/* In a function's body: a command that passes "$@", "$*" or $N to program
 * name (command rm "$@") makes every call run name with the call's
 * arguments (run_function). The first such program is kept. */
static void note_passed_args(sh_ctx *cx, const sh_view *v, int i, const char *name, size_t nlen)
{
    for (int j = i + 1; j < v->end; j++) {
        const char *t = sh_wtext(v->c, j);
        if (v->c->w[j].len == 2 && t[0] == SH_MARK && (t[1] == SH_K_ARGS || (t[1] >= '1' && t[1] <= '9'))) {
            sh_sym *f = &cx->ar.sym[cx->cur_func];
            if (sh_keep(cx, name, nlen, &f->val) == 0)
                f->vlen = (uint32_t)nlen;
            return;
        }
    }
}

static void run_function(sh_ctx *cx, const sh_view *v, int i, const sh_sym *f)
{
    if (f->vlen > 0 && i + 1 < v->end && !f->busy && cx->cur_func < 0) {
        /* rm(){ command rm "$@"; }; rm -rf ~: the body hands the call's
         * arguments to a program: that program runs with them */
        size_t len;
        uint32_t mark;
        char *args = sh_join_scratch(cx, v, i + 1, v->end, &len, &mark);
        if (!args) {
            sh_verdict(cx, WG_SHELL_RISKY, "bash.hidden_program", "a function gets arguments it cannot see",
                       NULL, NULL, v->via);
        } else {
            uint32_t mark2;
            char *buf = sh_scratch(cx, f->vlen + 1 + len + 1, &mark2);
            if (buf) {
                memcpy(buf, cx->ar.keep + f->val, f->vlen);
                buf[f->vlen] = ' ';
                memcpy(buf + f->vlen + 1, args, len);
                sh_sym *w = &cx->ar.sym[f - cx->ar.sym];
                w->busy = 1;            /* the program, not the function again */
                sh_parse_script(cx, buf, f->vlen + 1 + len, "run by a function with its arguments");
                w->busy = 0;
            }
            sh_scratch_release(cx, mark);
        }
    }
    if (f->runs_args <= 0 || i + f->runs_args >= v->end)
        return;
    sh_view sub = *v;
    sub.i = i + f->runs_args;
    sub.via = "run by a function";
    sh_analyze_view(cx, &sub);
}

static void analyze_view(sh_ctx *cx, const sh_view *v)
{
    const sh_cmd *c = v->c;
    int i = v->i;
    while (i < v->end && !(c->w[i].flags & SH_W_QUOTED) && is_noop_word(sh_wtext(c, i)))
        i++;
    char first = i < v->end ? sh_wtext(c, i)[0] : '\0';
    if (i < v->end && !(c->w[i].flags & SH_W_QUOTED) &&
        (first == 'f' || first == 's' || first == 'c' || first == 'e')) {
        const char *w = sh_wtext(c, i);
        if (sh_streq(w, "for") || sh_streq(w, "select")) {
            bind_loop(cx, v, i);
            return;                     /* loop header: its words are data */
        }
    }
    while (i < v->end && sh_has_byte(sh_wtext(c, i), c->w[i].len, '=')) {
        size_t k;
        if (sh_assignment_name(c, i)) {
            sh_check_assignment(cx, v, i);
        } else if (memchr(sh_wtext(c, i), '[', c->w[i].len) && (k = subscript_assignment(c, i)) != 0) {
            /* NAME[SUB]=v; BASH_CMDS[ls]=/usr/bin/sudo makes ls run sudo */
            const char *t = sh_wtext(c, i);
            const char *eq = strchr(t + k, '=');
            if (k - 1 == 9 && memcmp(t, "BASH_CMDS", 9) == 0 && eq) {
                const char *close = strchr(t + k, ']');
                sh_sym *y = sh_sym_add(cx, SH_SYM_REMAP, t + k, (size_t)(close - t) - k);
                size_t vl = strlen(eq + 1);
                if (y && sh_keep(cx, eq + 1, vl, &y->val) == 0)
                    y->vlen = (uint32_t)vl;
            }
            sh_var_unknown(cx, t, k - 1);
        } else {
            break;
        }
        i++;
    }
    if (i >= v->end) {
        if (c->nr > 0 && v->i == 0)
            sh_check_secret_reads(cx, v, "a loop or group");  /* done < .env, } < key.pem */
        return;
    }

    const sh_word *pw = &c->w[i];
    const char *pt = sh_wtext(c, i);
    int home_path = 0;
    /* every marker comes with an opaque flag (the lexer sets one with each) */
    if (pw->flags & (SH_W_OPAQUE | SH_W_GLOB | SH_W_BRACE)) {
        /* ~/bin/tool: a path under the home directory, not a hidden program */
        home_path = pw->len > 2 && pt[0] == SH_MARK && (pt[1] == SH_K_HOME || pt[1] == SH_K_USER) &&
                    !memchr(pt + 2, SH_MARK, pw->len - 2) && !(pw->flags & (SH_W_CMDSUB | SH_W_GLOB));
        if (!home_path) {
            hidden_program(cx, v, i);
            return;
        }
    }

    if (pt[0] == 'l' && pt[1] == 'e' && !(pw->flags & SH_W_QUOTED) && strcmp(pt, "let") == 0) {
        /* let EXPR...: arithmetic, silent; a subscript's $(..) runs */
        for (int j = i + 1; j < v->end; j++)
            sh_arith_text(cx, sh_wtext(c, j), c->w[j].len);
        return;
    }
    /* a remapped name, then a function (exact spelling: names are case-sensitive) */
    if (cx->ar.nsym > 0 && !home_path) {
        sh_sym *y = sh_sym_find(cx, SH_SYM_REMAP, pt, pw->len);
        if (y && !y->busy && !(pw->flags & SH_W_QUOTED)) {
            run_remap(cx, v, i, y);
            return;
        }
        const sh_sym *f = sh_sym_find(cx, SH_SYM_FUNC, pt, pw->len);
        /* `command NAME` runs the program, never the function NAME */
        if (f && f->state && !f->busy && !(v->via && strcmp(v->via, "wrapped by command") == 0)) {
            sh_call(cx, v, f);
            run_function(cx, v, i, f);
            return;
        }
    }
    sh_sym *later = NULL;
    if (cx->cur_func >= 0 && !home_path) {
        later = sh_sym_add(cx, SH_SYM_FUNC, pt, pw->len);     /* a function defined later? */
        sh_call(cx, v, later);
    }
    char name[48];
    int trusted;
    size_t nlen = program_name(pt, pw->len, name, sizeof name, &trusted);
    if (home_path)
        trusted = 0;
    if (!nlen) {
        sh_verdict(cx, WG_SHELL_RISKY, "bash.unknown_program", "runs a program it does not know",
                   NULL, NULL, v->via);
        return;
    }
    builtin_effects(cx, v, i, name);
    sh_view sub = *v;
    sub.i = i;
    if (!trusted && memchr(pt, '/', pw->len) && sh_run_written(cx, &sub, pt, pw->len))
        return;                         /* echo ... > x.sh; ./x.sh */
    const sh_program *p = find_versioned(name, &nlen);
    if (cx->cur_func >= 0 && cx->ar.sym[cx->cur_func].vlen == 0 && !(p && p->cls == SH_P_WRAPPER))
        note_passed_args(cx, v, i, name, nlen);     /* command rm "$@": rm, not command */
    if (!p) {
        if (later) {
            later->unknown_call = 1;    /* decided once the text is read */
        } else if (!sh_version_query(&sub)) {
            if (unknown_on_raw_disk(cx, &sub, name))
                return;
            sh_verdict(cx, WG_SHELL_RISKY, "bash.unknown_program", name,
                       " is not a known read-only program", NULL, v->via);
            sh_probe_args(cx, &sub, i + 1);
        }
        return;
    }
    if (!trusted && (p->cls == SH_P_SAFE || p->cls == SH_P_CHECK)) {
        sh_verdict(cx, WG_SHELL_RISKY, "bash.program_path", "runs ", pt,
                   ", not the system program", v->via);
        return;
    }
    if (p->cls == SH_P_SAFE || p->cls == SH_P_CHECK)
        sh_check_secret_reads(cx, &sub, name);
    switch (p->cls) {
    case SH_P_SAFE:
        return;
    case SH_P_CHECK:
        if (v->hidden_args) {
            sh_verdict(cx, WG_SHELL_RISKY, "bash.unchecked_args", name,
                       " gets arguments from xargs that cannot be checked", NULL, v->via);
            return;
        }
        /* fall through */
    default:
        if (p->fn)
            p->fn(cx, &sub, p);
        else
            sh_verdict(cx, WG_SHELL_RISKY, "bash.unknown_program", name,
                       " is not a known read-only program", NULL, v->via);
    }
}

/* An unknown program given a raw disk (ddrescue /dev/zero /dev/sdb, dcfldd
 * of=/dev/sdb, bmaptool copy x.img /dev/sdb): it may write the device, and a
 * raw write destroys the disk, so it fails closed as a raw disk write. The
 * same for a start-up file or another persistence target as an operand
 * (vim -c '...' -c wq ~/.bashrc): it may write it. 1 if so. */
static int unknown_on_raw_disk(sh_ctx *cx, const sh_view *v, const char *name)
{
    for (int j = v->i + 1; j < v->end; j++) {
        const char *t = sh_wtext(v->c, j);
        size_t n = v->c->w[j].len;
        const char *eq = memchr(t, '=', n);     /* of=/dev/sdb, --output=/dev/sdb */
        if (eq) {
            n -= (size_t)(eq + 1 - t);
            t = eq + 1;
        }
        if (n > 5 && memcmp(t, "/dev/", 5) == 0 && sh_is_raw_disk(t, n)) {
            sh_verdict(cx, WG_SHELL_CRITICAL, "critical.raw_disk_write", name,
                       " is not a known program and is given a raw disk (it may write it)",
                       NULL, v->via);
            return 1;
        }
        const char *rc = t[0] != '-' ? sh_persist_path(t, n) : NULL;
        if (rc) {                       /* vim -c 'normal Go...' -c wq ~/.bashrc */
            sh_verdict(cx, WG_SHELL_CRITICAL, "critical.persistence", name,
                       " is not a known program and is given ", rc, v->via);
            cx->out->rule = "critical.persistence";
            return 1;
        }
    }
    return 0;
}

int sh_is_stdin_path(const char *t)
{
    return strcmp(t, "/dev/stdin") == 0 || strcmp(t, "/dev/fd/0") == 0 ||
           strcmp(t, "/proc/self/fd/0") == 0 || strcmp(t, "/dev/fd/0/") == 0;
}

int sh_unseen_input(const sh_cmd *c, const sh_word *target)
{
    const char *t = c->text + target->off;
    return (target->flags & (SH_W_PROCSUB | SH_W_CMDSUB | SH_W_EXP | SH_W_CTRL | SH_W_TRUNC)) ||
           strncmp(t, "/dev/tcp/", 9) == 0 || strncmp(t, "/dev/udp/", 9) == 0;
}

/* ---- redirections ---------------------------------------------------------- */

static int harmless_sink(const char *t)
{
    return sh_streq(t, "/dev/null") || sh_streq(t, "/dev/stdout") ||
           sh_streq(t, "/dev/stderr") || sh_streq(t, "/dev/tty") ||
           strncmp(t, "/dev/fd/", 8) == 0;
}

/* The command prints nothing, so a redirection of it truncates the file:
 * `> f`, `: > f`, `true > f`, `cat /dev/null > f`, `echo -n > f`,
 * `printf '' > f`. */
static int writes_nothing(const sh_cmd *c)
{
    if (c->nw == 0)
        return 1;
    if (!sh_word_is_literal(c, 0))
        return 0;
    if (sh_weq(c, 0, ":") || sh_weq(c, 0, "true") || sh_weq(c, 0, "false"))
        return 1;
    int cat = sh_weq(c, 0, "cat"), echo = sh_weq(c, 0, "echo"), printf_ = sh_weq(c, 0, "printf");
    if (!cat && !echo && !printf_)
        return 0;
    for (int j = 1; j < c->nw; j++) {
        if (cat && sh_weq(c, j, "/dev/null"))
            continue;
        if (echo && sh_weq(c, j, "-n"))
            continue;
        if (printf_ && j == 1 && c->w[j].len == 0 && (c->w[j].flags & SH_W_QUOTED))
            continue;
        return 0;
    }
    return cat || printf_ || c->nw > 1;
}

/* Output to a file: raw disk is critical, outside the project destructive,
 * a project file risky. Shared with tee/cp in the rule files. */
void sh_check_write(sh_ctx *cx, const sh_view *v, const sh_word *w, const char *what)
{
    sh_check_write_mode(cx, v, w, what, 0);
}

void sh_check_write_mode(sh_ctx *cx, const sh_view *v, const sh_word *w, const char *what, int append)
{
    const sh_cmd *c = v->c;
    const char *t = c->text + w->off;
    if (harmless_sink(t))
        return;
    if (sh_is_raw_disk(t, w->len) || sh_is_raw_disk(c->src + w->raw_off, w->raw_len)) {
        sh_verdict(cx, WG_SHELL_CRITICAL, "critical.raw_disk_write", what,
                   " writes to the raw disk ", t, v->via);
        return;
    }
    /* every write of a start-up file is persistence */
    if (sh_check_persist_write(cx, v, t, w->len, what))
        return;
    /* `>> /etc/sudoers`, `tee -a /etc/passwd` add a rule or an account
     * whatever prints it: a grant of privileges, never a plain write */
    if (append && sh_check_vital(cx, v, w, what, " appends to "))
        return;
    if (sh_check_kernel_trigger(cx, v, w, what))
        return;
    /* `echo hi > /etc/passwd` stays destructive (reference vector 12.1);
     * `> /etc/passwd` alone, cp, tee, truncate, unlink destroy it */
    if ((writes_nothing(c) || strcmp(what, "an output redirection") != 0) &&
        sh_check_vital(cx, v, w, what, " overwrites or deletes "))
        return;
    if (sh_check_agent_config(cx, v, w, what, " writes to "))
        return;
    int cls = (w->flags & (SH_W_TRUNC | SH_W_CTRL)) ? SH_T_OPAQUE
            : sh_target_class(t, w->len, cx->cwd);
    if (cls == SH_T_PROJECT) {
        sh_verdict(cx, WG_SHELL_RISKY, "bash.writes_file", what, " writes to a file", NULL, v->via);
    } else if (cls == SH_T_OPAQUE) {
        sh_verdict(cx, WG_SHELL_DESTRUCTIVE, "bash.write_outside_project", what,
                   " writes to a path it cannot see", NULL, v->via);
    } else {
        sh_verdict(cx, WG_SHELL_DESTRUCTIVE, "bash.write_outside_project", what,
                   " writes outside the project: ", t, v->via);
    }
}

/* The text a command writes to its standard output, when the model can
 * see it: echo/printf arguments, or cat's literal here-document. */
static long written_text(sh_ctx *cx, const sh_cmd *c, char *buf, size_t cap)
{
    (void)cx;
    if (c->nw == 0)
        return -1;
    const char *prog = sh_wtext(c, 0);
    if (strcmp(prog, "echo") == 0 || strcmp(prog, "printf") == 0)
        return sh_printed_text(c, 0, c->nw, buf, cap);
    if (strcmp(prog, "cat") == 0 && c->nw == 1)
        for (int k = 0; k < c->nr; k++)
            if (c->r[k].op == SH_R_HEREDOC && c->r[k].body_ok && c->r[k].body_len <= cap &&
                (c->r[k].body_literal || (!memchr(c->src + c->r[k].body_off, '$', c->r[k].body_len) &&
                                          !memchr(c->src + c->r[k].body_off, '`', c->r[k].body_len)))) {
                memcpy(buf, c->src + c->r[k].body_off, c->r[k].body_len);
                return (long)c->r[k].body_len;
            }
    return -1;
}

static void note_written(sh_ctx *cx, const sh_cmd *c, const sh_word *target)
{
    if (target->flags & SH_W_OPAQUE)
        return;
    uint32_t mark;
    char *buf = sh_scratch(cx, SH_MAX_VALUE + 1, &mark);
    if (!buf)
        return;
    long n = written_text(cx, c, buf, SH_MAX_VALUE);
    sh_file_written(cx, c->text + target->off, target->len, buf, n);
    sh_scratch_release(cx, mark);
}

void sh_analyze_command(sh_ctx *cx, sh_cmd *c, const char *via)
{
    sh_view v = { c, 0, c->nw, 0, -1, NULL, via, 0 };
    SH_STEP(cx, c->nr);
    if (cx->dump_depth >= 0)
        sh_dump_flush(cx, c);           /* env | grep -c: this stage decides */
    for (int k = 0; k < c->nr; k++) {
        const sh_redir *r = &c->r[k];
        switch (r->op) {
        case SH_R_OUT: case SH_R_APPEND: case SH_R_CLOBBER: case SH_R_RDWR:
            sh_check_write_mode(cx, &v, &r->target, "an output redirection", r->op == SH_R_APPEND);
            if (r->op != SH_R_RDWR && (r->fd < 0 || r->fd == 1))
                note_written(cx, c, &r->target);
            break;
        default:
            break;
        }
    }
    if (!c->piped_in)
        cx->feed_tree = -1;
    sh_loop_command(cx, c, via);
    if (c->nw == 0 && c->nr > 0)
        sh_check_secret_reads(cx, &v, "$(< file)");     /* $(< ~/.aws/credentials) */
    if (c->nw > 0)
        sh_analyze_view(cx, &v);
}

/* ---- fail closed ----------------------------------------------------------- */

/* A token-level look for never-autopass signals in text the shell model
 * cannot read as shell (unparseable input, inline code of other languages):
 * the reason, or NULL. Crude on purpose: it only ever adds gating. */
/* 1: separates tokens; 2: also skipped before a token ('$'). */
static const unsigned char scan_sep[256] = {
    [' '] = 1, ['\t'] = 1, ['\n'] = 1, [';'] = 1, ['&'] = 1, ['|'] = 1, ['('] = 1, [')'] = 1,
    ['<'] = 1, ['>'] = 1, ['`'] = 1, ['"'] = 1, ['\''] = 1, ['\\'] = 1, ['{'] = 1, ['}'] = 1,
    ['$'] = 1, [0] = 1,
};

const char *sh_signal_scan(const char *s, size_t n, int shell_text)
{
    return sh_signal_scan_counted(s, n, shell_text, NULL);
}

const char *sh_signal_scan_counted(const char *s, size_t n, int shell_text, uint64_t *steps)
{
    static const char *const words[] = {
        "sudo", "doas", "pkexec", "su", "runuser", "mkfs", "wipefs", "mke2fs",
        "diskpart", "format", "fdisk", "sfdisk", "sgdisk", "parted", "blkdiscard",
    };
    char tok[64];
    int saw_rm = 0, saw_push = 0, saw_force = 0, saw_prot = 0, saw_pipe = 0, saw_root = 0;
    int has_reg = -1;                   /* "reg " somewhere in s: looked up once */
    const char *crit = NULL;
    size_t i = 0;
    if (steps && shell_text)
        *steps += n;                    /* the "()" pass below reads the text once */
    for (const char *q = s; shell_text && (q = memmem(q, n - (size_t)(q - s), "()", 2)); q += 2) {
        const char *e = q + 2;
        while (e < s + n && (*e == ' ' || *e == '\t'))
            e++;
        if (e < s + n && *e == '{')
            crit = "defines a function the way fork bombs do";
    }
    while (i < n && !crit) {
        while (i < n && scan_sep[(unsigned char)s[i]]) {
            if (s[i] == '|')
                saw_pipe = 1;
            if (s[i] == '$') {                  /* $NAME ends where the name ends */
                size_t b = ++i;
                while (i < n && ((s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= 'a' && s[i] <= 'z') ||
                                 (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
                    i++;
                if (i - b == 4 && strncasecmp(s + b, "home", 4) == 0)
                    saw_root = 1;
                if (i - b == 3 && i < n && s[i] == ':' && strncasecmp(s + b, "env", 3) == 0) {
                    size_t e = i + 1;           /* $env:USERPROFILE, $env:SystemDrive */
                    while (e < n && e - b < 40 && ((s[e] | 32) >= 'a' && (s[e] | 32) <= 'z'))
                        e++;
                    if (sh_is_windows_critical(s + b - 1, e - b + 1))
                        saw_root = 1;
                    i = e;
                }
                continue;
            }
            i++;
        }
        size_t k = 0;
        while (i < n && scan_sep[(unsigned char)s[i]] != 1) {
            if (k + 1 < sizeof tok && s[i] != '^')      /* cmd's escape: r^d is rd */
                tok[k++] = (s[i] >= 'A' && s[i] <= 'Z') ? (char)(s[i] + 32) : s[i];
            i++;
        }
        tok[k] = '\0';
        if (steps)
            *steps += k + 1;
        if (!k)
            continue;
        const char *base = memrchr(tok, '/', k);
        base = base && base[1] ? base + 1 : tok;
        /* each test below starts with a cheap look at the first byte */
        for (size_t w = 0; w < sizeof words / sizeof *words; w++)
            if (words[w][0] == base[0] && strncmp(base, words[w], strlen(words[w])) == 0 &&
                (base[strlen(words[w])] == '\0' || base[strlen(words[w])] == '.'))
                crit = "contains a never-autopass program";
        if ((base[0] == 'r' || base[0] == 'd' || base[0] == 'e') &&
            (strcmp(base, "rm") == 0 || strcmp(base, "rd") == 0 || strcmp(base, "rmdir") == 0 ||
             strcmp(base, "del") == 0 || strcmp(base, "erase") == 0 ||
             strcmp(base, "remove-item") == 0))
            saw_rm = 1;
        if ((base[0] == 'i' && (strcmp(base, "iex") == 0 || strcmp(base, "invoke-expression") == 0)))
            crit = "runs PowerShell text built or downloaded at run time (iex)";
        if (!saw_root && tok[0] == '%' && sh_is_windows_critical(tok, k))
            saw_root = 1;
        if (!saw_root && (strcmp(tok, "/") == 0 || strcmp(tok, "~") == 0 || strcmp(tok, "~/") == 0 ||
                          strcmp(tok, "/*") == 0 || strcmp(tok, "home") == 0 ||
                          strcmp(tok, "~/*") == 0 || (k >= 2 && tok[1] == ':' && sh_is_drive_root(tok, k))))
            saw_root = 1;
        if ((tok[0] == 'o' || tok[0] == '/') &&
            (strncmp(tok, "of=/dev/", 8) == 0 || strncmp(tok, "/dev/sd", 7) == 0))
            crit = "writes to a raw disk";
        if (tok[0] == 'p' && strcmp(tok, "push") == 0)
            saw_push = 1;
        if ((tok[0] == '-' || tok[0] == '+') &&
            (strncmp(tok, "--force", 7) == 0 || strcmp(tok, "-f") == 0 || tok[0] == '+' ||
             strcmp(tok, "--delete") == 0 || strcmp(tok, "--mirror") == 0))
            saw_force = 1;
        if (!saw_prot && (memchr(tok, 'm', k) || memchr(tok, 'p', k)) &&
            (strstr(tok, "main") || strstr(tok, "master") || strstr(tok, "production")))
            saw_prot = 1;
        if (saw_pipe && (strcmp(base, "sh") == 0 || strcmp(base, "bash") == 0 ||
                         strcmp(base, "zsh") == 0 || strcmp(base, "dash") == 0))
            crit = "pipes text into a shell";
        if (strcmp(tok, "delete") == 0 && i > 0) {
            if (has_reg < 0) {
                has_reg = 0;
                size_t q = 0;
                for (; q + 4 <= n && !has_reg; q++)
                    has_reg = (s[q] | 32) == 'r' && strncasecmp(s + q, "reg ", 4) == 0;
                if (steps)
                    *steps += q;
            }
            if (has_reg)
                crit = "deletes registry keys";
        }
    }
    if (!crit && saw_rm && saw_root)
        crit = "deletes what looks like / or the home directory";
    if (!crit && saw_push && saw_force && saw_prot)
        crit = "force-pushes what looks like a protected branch";
    return crit;
}

/* Text the model cannot parse: destructive (gates at Normal and Trusted),
 * and critical when a never-autopass signal appears anywhere in it. */
void sh_coarse_scan(sh_ctx *cx, const char *s, size_t n)
{
    const char *crit = sh_signal_scan_counted(s, n, 1, &cx->steps);
    if (!crit)
        crit = sh_win_scan(s, n);       /* PowerShell typed as bash: gci C:\ -r | % { $_.Delete() } */
    if (crit)
        sh_verdict(cx, WG_SHELL_CRITICAL, "critical.unparsed_signal",
                   "cannot be parsed and ", crit, NULL, NULL);
    else
        sh_verdict(cx, WG_SHELL_DESTRUCTIVE, "bash.unparsed",
                   "cannot be parsed fully by the shell model (unterminated quote, "
                   "unsupported syntax or too deep nesting)", NULL, NULL, NULL);
}

/* ---- bounds and scratch ----------------------------------------------------- */

void sh_overflow(sh_ctx *cx, const char *what)
{
    if (!cx->overflow)
        cx->overflow = what;
}

int sh_charge(sh_ctx *cx, size_t k)
{
    if (cx->steps + k <= cx->budget) {
        cx->steps += k;
        return 0;
    }
    sh_overflow(cx, "the command takes more work to check than the model spends on one");
    return -1;
}

char *sh_scratch(sh_ctx *cx, size_t cap, uint32_t *mark)
{
    sh_arena *a = &cx->ar;
    *mark = a->ttop;
    if ((size_t)a->ttop + cap + 1 > a->tcap) {
        sh_overflow(cx, "the command does not fit in the model's scratch space");
        return NULL;
    }
    char *p = a->text + a->ttop;
    a->ttop += (uint32_t)cap;
    return p;
}

void sh_scratch_release(sh_ctx *cx, uint32_t mark)
{
    cx->ar.ttop = mark;
}

size_t sh_words_len(const sh_cmd *c, int from, int to)
{
    size_t k = 0;
    for (int i = from; i < to; i++)
        k += c->w[i].len + 1;
    return k;
}

/* Pool sizes for an input of n bytes. Top-level text needs at most 1.5n + 3
 * bytes (a word "~" becomes MARK 'H' NUL), words (n + 1) / 2; redirections
 * are fewer than n / 4 in any real command (a denser input overflows and
 * fails closed); the rest is room for the nested parses of text the rules re-read
 * (sh -c, eval, backticks). Running out is an overflow, never a crash. */
typedef struct {
    size_t text, words, redirs, slots, syms, keep, edges;
} arena_plan;

static arena_plan plan_for(size_t n)
{
    arena_plan p;
    p.text = 4 * n + 512;
    p.words = n / 2 + 64;
    p.redirs = n / 4 + 32;
    p.syms = n / 4 + 16;                /* a definition takes 4 bytes or more */
    p.slots = 64;
    while (p.slots < 2 * p.syms)        /* the hash stays at most half full */
        p.slots *= 2;
    p.keep = 2 * n + 256;
    p.edges = n / 4 + 16;
    return p;
}

enum {
    STACK_TEXT = 4 * SH_STACK_INPUT + 512,
    STACK_WORDS = SH_STACK_INPUT / 2 + 64,
    STACK_REDIRS = SH_STACK_REDIRS,
    STACK_SYMS = 256,
    STACK_SLOTS = 512,
    STACK_KEEP = 2 * SH_STACK_INPUT + 256,
    STACK_EDGES = 128,
};

typedef struct {
    sh_word w[STACK_WORDS];
    sh_redir r[STACK_REDIRS];
    sh_sym sym[STACK_SYMS];
    sh_edge edge[STACK_EDGES];
    uint32_t slot[STACK_SLOTS];
    char text[STACK_TEXT];
    char keep[STACK_KEEP];
} stack_arena;

static void arena_carve(sh_arena *a, sh_word *w, sh_redir *r, sh_sym *sym, sh_edge *edge,
                        uint32_t *slot, char *text, char *keep, const arena_plan *p)
{
    a->w = w;
    a->wcap = (uint32_t)p->words;
    a->r = r;
    a->rcap = (uint32_t)p->redirs;
    a->sym = sym;
    a->scap = (uint32_t)p->syms;
    a->edge = edge;
    a->ecap = (uint32_t)p->edges;
    a->slot = slot;
    a->smask = (uint32_t)p->slots - 1;
    a->sready = 0;                      /* cleared when the first name is defined */
    a->text = text;
    a->tcap = (uint32_t)p->text;
    a->text[a->tcap - 1] = '\0';
    a->keep = keep;
    a->kcap = (uint32_t)p->keep;
    a->wtop = a->rtop = a->ttop = a->ktop = a->nsym = a->nedge = 0;
}

/* Stack scratch for small inputs, else one heap block sized from the
 * input; returns the block to free (or NULL), *ok 0 when out of memory. */
static void *arena_open(sh_arena *a, stack_arena *st, size_t n, int *ok)
{
    *ok = 1;
    if (n <= SH_STACK_INPUT) {
        arena_plan p = { STACK_TEXT, STACK_WORDS, STACK_REDIRS, STACK_SLOTS, STACK_SYMS,
                         STACK_KEEP, STACK_EDGES };
        arena_carve(a, st->w, st->r, st->sym, st->edge, st->slot, st->text, st->keep, &p);
        return NULL;
    }
    arena_plan p = plan_for(n);
    size_t bytes = p.words * sizeof(sh_word) + p.redirs * sizeof(sh_redir) +
                   p.syms * sizeof(sh_sym) + p.edges * sizeof(sh_edge) +
                   p.slots * sizeof(uint32_t) + p.text + p.keep;
    char *block = malloc(bytes);
    if (!block) {
        *ok = 0;
        return NULL;
    }
    sh_word *w = (sh_word *)block;
    sh_redir *r = (sh_redir *)(w + p.words);
    sh_sym *sym = (sh_sym *)(r + p.redirs);
    sh_edge *edge = (sh_edge *)(sym + p.syms);
    uint32_t *slot = (uint32_t *)(edge + p.edges);
    char *text = (char *)(slot + p.slots);
    arena_carve(a, w, r, sym, edge, slot, text, text + p.text, &p);
    return block;
}

/* ---- entry point ----------------------------------------------------------- */

/* Past a bound: destructive, critical when the text shows a never-autopass
 * signal anywhere (one linear scan of everything that was read). */
static void fail_closed(sh_ctx *cx, const char *cmd, size_t len, const char *why)
{
    const char *crit = sh_signal_scan_counted(cmd, len, 1, &cx->steps);
    if (crit)
        sh_verdict(cx, WG_SHELL_CRITICAL, "critical.unparsed_signal",
                   "is too large or complex to check fully and ", crit, NULL, NULL);
    sh_verdict(cx, WG_SHELL_DESTRUCTIVE, "bash.too_complex", why,
               " (it asks for confirmation)", NULL, NULL);
}

int sh_analyze_counted(wg_shell_verdict *out, const char *cmd, size_t len, uint64_t *steps)
{
    if (!out || (!cmd && len > 0))
        return wg_error_set(WG_EINVAL, "wg_shell_analyze: NULL argument");
    out->cls = WG_SHELL_SAFE;
    out->rule = NULL;
    out->reason[0] = '\0';
    sh_ctx cx;
    cx.out = out;
    cx.depth = 0;
    cx.lex_depth = 0;
    cx.view_depth = 0;
    cx.cwd = SH_CWD_PROJECT;
    cx.serial = 0;
    cx.ncmd = 0;
    cx.overflow = NULL;
    cx.steps = 0;
    cx.budget = (uint64_t)SH_WORK_PER_BYTE * len + (1u << 20);
    cx.nheredoc = 0;
    cx.vars_unknown = 0;
    cx.cur_func = -1;
    cx.fork_level = 0;
    cx.body_fork_level = 0;
    cx.probes = 0;
    cx.feed_tree = -1;
    cx.loop_depth = 0;
    cx.loop_bits[0] = cx.loop_bits[1] = 0;
    cx.dump_depth = -1;
    size_t b = 0;
    while (b < len && (cmd[b] == ' ' || cmd[b] == '\t' || cmd[b] == '\n' || cmd[b] == '\r'))
        b++;
    if (b == len) {
        sh_verdict(&cx, WG_SHELL_RISKY, "bash.empty", "the command is empty", NULL, NULL, NULL);
    } else if (len > WG_SHELL_MAX_COMMAND) {
        fail_closed(&cx, cmd, len, "the command is longer than the 262144 bytes the model reads");
    } else {
        stack_arena st;
        int ok;
        void *block = arena_open(&cx.ar, &st, len, &ok);
        if (!ok) {
            fail_closed(&cx, cmd, len, "out of memory while reading the command");
        } else {
            int bad = memchr(cmd, '\0', len) != NULL;
            if (bad || sh_parse_script(&cx, cmd, len, NULL) < 0)
                sh_coarse_scan(&cx, cmd, len);
            sh_dump_flush(&cx, NULL);
            if (cx.ar.nedge)
                sh_check_fork_bombs(&cx);
            for (uint32_t k = 0; k < cx.ar.nsym; k++) {
                const sh_sym *y = &cx.ar.sym[k];
                if (y->kind == SH_SYM_FUNC && y->unknown_call && !y->state)
                    sh_verdict(&cx, WG_SHELL_RISKY, "bash.unknown_program", sh_sym_name(&cx, y),
                               " is not a known read-only program (called in a function)", NULL, NULL);
            }
            if (cx.overflow)
                fail_closed(&cx, cmd, len, cx.overflow);
        }
        if (block)
            free(block);
    }
    if (!out->rule) {
        out->rule = "bash.safe";
        memcpy(out->reason, "runs only read-only programs with safe arguments",
               sizeof "runs only read-only programs with safe arguments");
    }
    if (steps)
        *steps = cx.steps;
    return 0;
}

int wg_shell_analyze(wg_shell_verdict *out, const char *cmd, size_t len)
{
    return sh_analyze_counted(out, cmd, len, NULL);
}

const char *wg_shell_class_name(wg_shell_class c)
{
    switch (c) {
    case WG_SHELL_SAFE: return "safe";
    case WG_SHELL_RISKY: return "risky";
    case WG_SHELL_DESTRUCTIVE: return "destructive";
    case WG_SHELL_CRITICAL: return "critical";
    }
    return "critical";
}
