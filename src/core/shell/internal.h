/* internal.h - the shell model shared by the lexer (lex.c), the
 * per-command rules (analyze.c, target.c) and the program tables
 * (programs.c). Not installed.
 *
 * Normalized word text: quotes removed, escapes resolved, and every expansion
 * replaced by a two-byte marker SH_MARK + kind, so rules see `r''m` as "rm"
 * and `"${HOME}"/` as MARK 'H' "/".
 */
#ifndef WAGGLE_SHELL_INTERNAL_H
#define WAGGLE_SHELL_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "waggle/shell.h"

#define SH_MARK '\x01'
#define SH_K_HOME 'H'     /* $HOME, ${HOME}, ~ */
#define SH_K_USER 'U'     /* ~user */
#define SH_K_PARAM '?'    /* any other parameter or arithmetic expansion */
#define SH_K_CMDSUB '('   /* $(..) or `..` */
#define SH_K_PROCSUB '<'  /* <(..) or >(..) */
#define SH_K_CONV 'C'     /* $EDITOR, $CC, ...: a program by convention, not a hidden sudo */
#define SH_K_ARGS 'A'     /* $@ $* (and '1'..'9' for $1..$9): positional parameters */
/* Only inside the lexer, resolved before a word reaches the rules
 * (sh_word_expand, sh_word_literal): */
#define SH_K_SPLIT 'S'          /* a field-splitting point ($IFS, an unquoted value's blanks) */
#define SH_K_BRACE_OPEN '{'     /* unquoted { , } of brace expansion */
#define SH_K_BRACE_COMMA ','
#define SH_K_BRACE_CLOSE '}'

/* Bounds of the model (docs/gate.md "Limits"). Every table below is sized
 * from the input (analyze.c, sh_arena); these cap what one decision
 * may hold. Past any of them the decision fails closed: bash.too_complex
 * (destructive), or critical.unparsed_signal when the input shows a
 * never-autopass signal anywhere (sh_signal_scan over the whole text). */
enum {
    SH_MAX_WORDS = 65536,       /* words in one simple command */
    SH_MAX_COMMANDS = 65536,    /* simple commands analysed in one decision, nested included */
    SH_MAX_DEPTH = 8,           /* nested lists: $(..), (..), `..`, sh -c, eval, ... */
    SH_MAX_LEX_DEPTH = 32,      /* "..", ${..} nested inside one word */
    SH_MAX_VIEW_DEPTH = 16,     /* wrappers around one command: env nice xargs find -exec ... */
    SH_MAX_HEREDOCS = 16,       /* here-documents pending on one line */
    SH_MAX_DELIM = 64,          /* bytes of a here-document delimiter */
    SH_STACK_INPUT = 1024,      /* inputs up to this size are analysed in stack scratch */
    SH_STACK_REDIRS = SH_STACK_INPUT / 8 + 32,  /* redirections there (larger inputs: n/4 + 32) */
    SH_MAX_BRACE_WORDS = 64,    /* words one brace expansion makes; past it the word */
    SH_MAX_BRACE_TEXT = 4096,   /* stays one word with SH_W_BRACE (a glob for the rules) */
    SH_MAX_BRACE_GROUPS = 8,    /* '{' in one word that the expansion looks at */
    SH_MAX_VALUE = 4096,        /* a variable's value the model follows (longer: unknown) */
    SH_MAX_PROBES = 64,         /* symbol-table probes (colliding names fail closed) */
    SH_WORK_PER_BYTE = 64,      /* steps per input byte (plus 1 Mi) before failing closed */
    SH_MAX_PROBE_RUNS = 64,     /* probes of launchers' arguments and inline code (launch.c) */
};

/* word flags */
enum {
    SH_W_QUOTED = 1 << 0,   /* some part was quoted or escaped */
    SH_W_EXP = 1 << 1,      /* contains a parameter/arithmetic expansion */
    SH_W_CMDSUB = 1 << 2,   /* contains $(..) or `..` */
    SH_W_GLOB = 1 << 3,     /* unquoted * ? [ */
    SH_W_BRACE = 1 << 4,    /* brace syntax not expanded (too many words): like a glob */
    SH_W_TRUNC = 1 << 5,    /* text did not fit; rules needing it fail closed */
    SH_W_PROCSUB = 1 << 6,  /* <(..) or >(..) */
    SH_W_CTRL = 1 << 7,     /* a raw control byte in the input */
    SH_W_SPLIT = 1 << 8,    /* lexer only: holds SH_K_SPLIT markers */
};
#define SH_W_OPAQUE (SH_W_EXP | SH_W_CMDSUB | SH_W_PROCSUB | SH_W_TRUNC | SH_W_CTRL)

typedef struct {
    uint32_t off, len;          /* normalized text in the arena's text pool */
    uint32_t raw_off, raw_len;  /* span in the source being parsed */
    uint16_t flags;
} sh_word;

enum {
    SH_R_IN, SH_R_OUT, SH_R_APPEND, SH_R_CLOBBER, SH_R_RDWR,
    SH_R_DUP,               /* N>&M, N<&M, >&- : descriptor only */
    SH_R_HEREDOC, SH_R_HERESTR,
};

typedef struct {
    sh_word target;         /* file, here-string word, or here-doc delimiter */
    uint32_t body_off, body_len;
    int fd;                 /* -1 when not given */
    uint8_t op;
    uint8_t body_ok;        /* here-doc: body seen (span above, in src) */
    uint8_t body_literal;   /* here-doc: quoted delimiter, no expansion */
} sh_redir;

/* One simple command as the lexer hands it to the rules. Words and
 * redirections live in the arena (sh_ctx.ar) while the command is analysed;
 * w[i].off indexes text (the arena's text pool, every word NUL-terminated). */
typedef struct {
    const char *src;        /* the source the raw spans refer to */
    size_t src_len;
    const char *text;
    sh_word *w;
    int nw;
    sh_redir *r;
    int nr;
    int piped_in;           /* stdin comes from the previous pipeline stage */
    int piped_out;          /* stdout goes to the next stage */
    int background;         /* ended by & */
    int overflow;           /* some word or redirection did not fit */
    unsigned serial;
    const char *pipe_text;  /* literal text echoed into this stage, or NULL */
    int pipe_text_len;
} sh_cmd;

/* Names the text defines: functions, variables with the values assigned,
 * and command remaps (alias, hash -p, BASH_CMDS). Kept for the whole
 * decision (vars.c). */
enum { SH_SYM_FUNC = 1, SH_SYM_VAR, SH_SYM_REMAP,
       SH_SYM_FILE,             /* FILE: a file this command wrote, val its text (persist.c) */
       SH_SYM_LINK };           /* LINK: ln -s made NAME lead to a target of class state */           /* FILE: a file this command wrote, val its text (persist.c) */
enum {
    SH_V_ONE = 1,           /* every assignment seen gave this one literal value */
    SH_V_MULTI,             /* assigned different values (branches, loops): unknown which */
    SH_V_UNKNOWN,           /* assigned something it cannot see (read, $(..), ...) */
    SH_V_UNSET,             /* unset NAME: empty, and ${NAME-x} is x */
};

typedef struct {
    uint32_t name, nlen;    /* in the keep pool */
    uint32_t val, vlen;     /* VAR: the value; REMAP: the replacement text */
    uint8_t kind, state;
    uint8_t busy;           /* REMAP: being expanded (not again inside itself) */
    uint8_t unknown_call;   /* FUNC not defined (yet): a body called it as a program */
    int16_t runs_args;      /* FUNC: 1 + the first positional parameter its body runs as a
                             * command ("$@" is 1), 0 when it runs none */
} sh_sym;

/* A call of one function from another's body (the fork-bomb graph). */
typedef struct {
    uint32_t from, to;      /* symbol indexes */
    uint8_t forked;         /* through a pipe, &, coproc, a subshell or a substitution */
} sh_edge;

/* Scratch for one decision, carved from one block: on the stack for inputs
 * up to SH_STACK_INPUT bytes, else one heap block sized from the input
 * (freed before wg_shell_analyze returns). Pools are stacks: a nested parse
 * allocates above its caller and gives everything back when it returns.
 * The last byte of text is a permanent NUL (words that do not fit point
 * at it). The symbol table, its keep pool and the call edges live for the
 * whole decision. */
typedef struct {
    char *text;
    uint32_t tcap, ttop;
    sh_word *w;
    uint32_t wcap, wtop;
    sh_redir *r;
    uint32_t rcap, rtop;
    uint32_t *slot;         /* symbols: open hash of 1 + index into sym */
    uint32_t smask;
    int sready;             /* slot cleared (done on the first definition) */
    sh_sym *sym;
    uint32_t scap, nsym;
    char *keep;
    uint32_t kcap, ktop;
    sh_edge *edge;
    uint32_t ecap, nedge;
} sh_arena;

/* cwd classes, tracked across `cd` so `cd / && rm -rf *` is seen. */
enum { SH_CWD_PROJECT = 0, SH_CWD_ROOT, SH_CWD_HOME, SH_CWD_OPAQUE };

typedef struct {
    unsigned serial;
    int quoted;
    int strip_tabs;
    char delim[SH_MAX_DELIM];
    int dlen;
    sh_redir *redir;        /* in the owning command while it is current */
    int pipe_next;          /* `cat <<X | next`: the body is what next reads */
} sh_heredoc;

/* Analysis state for one wg_shell_analyze call. */
typedef struct {
    wg_shell_verdict *out;
    int depth;              /* nested lists (SH_MAX_DEPTH) */
    int lex_depth;          /* nesting inside one word (SH_MAX_LEX_DEPTH) */
    int view_depth;         /* wrappers (SH_MAX_VIEW_DEPTH) */
    int cwd;
    unsigned serial;
    unsigned ncmd;          /* simple commands seen (SH_MAX_COMMANDS) */
    const char *overflow;   /* which bound was passed, or NULL */
    uint64_t steps;         /* work done, for the linearity tests */
    uint64_t budget;        /* steps one decision may take (SH_WORK_PER_BYTE per input byte) */
    int nheredoc;
    sh_heredoc heredoc[SH_MAX_HEREDOCS];
    int vars_unknown;       /* after `source`: any variable may hold anything */
    int cur_func;           /* symbol index of the function whose body is being read, or -1 */
    int fork_level;         /* subshells and substitutions entered (fork-bomb edges) */
    int body_fork_level;    /* fork_level where the current function's body began */
    int probes;             /* probes run (SH_MAX_PROBE_RUNS) */
    int feed_tree;          /* target class of a find piping its file names on, or -1 */
    int loop_depth;         /* open while/until/for loops (loops.c) */
    uint32_t loop_bits[2];  /* per open loop (first 32): [0] never ends, [1] may never end */
    /* An environment dump piped on (env | ...) waits for the next stage: a
     * stage that only counts (grep -c, grep -q, wc) keeps it silent, any
     * other command gives the verdict (sh_env_dump, sh_dump_flush). */
    const char *dump_who, *dump_how, *dump_via;
    int dump_depth;         /* cx->depth of the dumping stage; -1 when none waits */
    sh_arena ar;
} sh_ctx;

/* A range of words of one command being analysed, plus what the wrappers
 * around it told us. */
typedef struct {
    const sh_cmd *c;
    int i, end;
    int hidden_args;        /* xargs appends arguments it cannot see */
    int placeholder;        /* target class of {} (find -exec), or -1 */
    const char *repl;       /* xargs -I string the inner command gets, or NULL */
    const char *via;        /* "wrapped by env", "inside $(...)", ... */
    int tree;               /* run for every file of a tree (find -exec, fd -x): a delete
                             * of each file deletes the tree */
} sh_view;

/* A bound was passed: the decision fails closed (see the limits above). */
void sh_overflow(sh_ctx *cx, const char *what);
#define SH_STEP(cx, k) ((cx)->steps += (uint64_t)(k))
/* Counts work that is bounded only by the budget: 0, or -1 past it
 * (sh_overflow was called). */
int sh_charge(sh_ctx *cx, size_t k);

/* Scratch text of cap bytes above everything in use (a nested parse of it
 * allocates above it); NULL when the pool is out (sh_overflow was called).
 * Give it back with sh_scratch_release(cx, mark). */
char *sh_scratch(sh_ctx *cx, size_t cap, uint32_t *mark);
void sh_scratch_release(sh_ctx *cx, uint32_t mark);

/* wg_shell_analyze that also reports the work done (tests). */
int sh_analyze_counted(wg_shell_verdict *out, const char *cmd, size_t len, uint64_t *steps);

/* ---- lex.c ---- */
/* Parses and analyses a script; returns 0, or -1 when it cannot be parsed
 * (the caller classifies fail-closed). */
int sh_parse_script(sh_ctx *cx, const char *s, size_t n, const char *via);
/* ---- vars.c ---- */
/* The symbol kind/name, or NULL. */
sh_sym *sh_sym_find(const sh_ctx *cx, int kind, const char *name, size_t n);
/* The symbol, added when new; NULL when the table is full (sh_overflow was
 * called: the decision fails closed). */
sh_sym *sh_sym_add(sh_ctx *cx, int kind, const char *name, size_t n);
static inline const char *sh_sym_name(const sh_ctx *cx, const sh_sym *y) { return cx->ar.keep + y->name; }
/* Copies s into the keep pool; 0 and *off, or -1 (overflow). */
int sh_keep(sh_ctx *cx, const char *s, size_t n, uint32_t *off);
/* NAME=value (append: NAME+=value). value is normalized word text; a value
 * with an expansion it cannot see makes the variable unknown. */
void sh_var_assign(sh_ctx *cx, const char *name, size_t n, const char *val, size_t vlen, int append);
void sh_var_unknown(sh_ctx *cx, const char *name, size_t n);
/* The one value the variable surely has here: 1 with *val and *vlen, else 0. */
int sh_var_value(const sh_ctx *cx, const char *name, size_t n, const char **val, uint32_t *vlen);
/* unset NAME */
void sh_var_unset(sh_ctx *cx, const char *name, size_t n);
/* 1 when NAME is known to be unset here. */
int sh_var_is_unset(const sh_ctx *cx, const char *name, size_t n);

/* A call of function f by the command of v, recorded as an edge of the
 * call graph when it is made from a function's body (fork bombs). */
void sh_call(sh_ctx *cx, const sh_view *v, const sh_sym *f);
/* Checks the call graph once the text is read: a function that reaches
 * itself through a fork (pipe, &, coproc, subshell, substitution) is a
 * fork bomb (critical.fork_bomb). */
void sh_check_fork_bombs(sh_ctx *cx);

/* Arithmetic text in a word (let 'a[$(cmd)]=1', [[ 'x[$(cmd)]' -eq 1 ]]):
 * bash expands a subscript's substitutions when it evaluates it, so text
 * holding $( or ` is read as a script. */
void sh_arith_text(sh_ctx *cx, const char *t, size_t n);
/* 1 when name was defined as a shell function earlier in the text. */
int sh_is_function(const sh_ctx *cx, const char *name);

/* ---- words.c ---- */
/* Resolves the markers of w in place: brace syntax and split points become
 * plain text (`{` `,` `}` and a blank). */
void sh_word_literal(char *text, sh_word *w);
/* Brace expansion then field splitting of a word read with markers: calls
 * emit(ctx, word) for each resulting word, in order (none for an unquoted
 * expansion that is empty). The texts go where w's text was, in the arena.
 * Returns the first negative emit result, else 0. */
typedef int (*sh_emit_fn)(void *ctx, const sh_word *w);
int sh_word_expand(sh_ctx *cx, sh_word *w, sh_emit_fn emit, void *ctx);

/* The text `echo ARGS` (with -n -e -E) or `printf FORMAT ARGS` writes,
 * the program being word i of c, its arguments words (i, end): into out
 * (cap bytes); its length, or -1 when it cannot be known (an expansion, a
 * conversion other than %s %b %d %i %u %c %%, more than cap bytes). */
long sh_printed_text(const sh_cmd *c, int i, int end, char *out, size_t cap);

/* ---- analyze.c ---- */
/* /dev/stdin, /dev/fd/0, /proc/self/fd/0 (what a shell reads its script from). */
int sh_is_stdin_path(const char *t);
/* An input redirection target whose text the model cannot see: <(..),
 * $(..), an expansion, /dev/tcp and /dev/udp. */
int sh_unseen_input(const sh_cmd *c, const sh_word *target);
void sh_analyze_command(sh_ctx *cx, sh_cmd *c, const char *via);
void sh_analyze_view(sh_ctx *cx, const sh_view *v);
void sh_verdict(sh_ctx *cx, wg_shell_class cls, const char *rule,
                const char *a, const char *b, const char *c, const char *via);
void sh_coarse_scan(sh_ctx *cx, const char *s, size_t n);
const char *sh_signal_scan(const char *s, size_t n, int shell_text);
/* The same, adding the work done to *steps (may be NULL). */
const char *sh_signal_scan_counted(const char *s, size_t n, int shell_text, uint64_t *steps);

/* An environment dump waiting for its pipe's next stage (cx->dump_depth):
 * c is the command about to be analysed (NULL at the end of the decision).
 * Dropped when c reads the pipe at the same depth and only counts; else the
 * bash.env_dump verdict is given now. */
void sh_dump_flush(sh_ctx *cx, const sh_cmd *c);

/* ---- secrets.c ---- */
/* What secret a path names ("an SSH private key"), or NULL. t is normalized
 * word text (not NUL-terminated), n its length. */
const char *sh_secret_path(const char *t, size_t n);
/* Risky verdict bash.reads_secret when program prog (a read-only one) reads
 * a credential file through an argument or an input redirection. */
void sh_check_secret_reads(sh_ctx *cx, const sh_view *v, const char *prog);
/* The same for one path a program reads (xargs -a FILE, git show REV:FILE). */
void sh_check_secret_path(sh_ctx *cx, const sh_view *v, const char *prog, const char *t, size_t n);
/* 1 when the secret table's cheap pre-checks cover every row (tests). */
int sh_secret_table_ok(void);

/* ---- target.c ---- */
enum {
    SH_T_PROJECT = 0,       /* relative, inside the working directory */
    SH_T_OUTSIDE,           /* absolute or ../, outside the project */
    SH_T_OPAQUE,            /* starts with an expansion it cannot see */
    SH_T_SYSTEM,            /* /etc, /usr, /home, ... */
    SH_T_HOME,              /* ~, $HOME, ~/-star, /home/NAME */
    SH_T_ROOT,              /* /, /-star, /. */
};
int sh_target_class(const char *t, size_t n, int cwd);
int sh_is_raw_disk(const char *t, size_t n);
int sh_is_drive_root(const char *t, size_t n);
/* A Windows path that names a drive root, a system or a profile folder,
 * case-insensitive, with \\?\ and forward-slash spellings: its class
 * (SH_T_ROOT for %SystemDrive%, SH_T_SYSTEM for C:\\Windows[\\X],
 * C:\\Users, %WINDIR%, SH_T_HOME for %USERPROFILE%, $env:USERPROFILE,
 * C:\\Users\\NAME), or 0. Raw or normalized text. */
int sh_is_windows_critical(const char *t, size_t n);
/* A token scan of cmd.exe or PowerShell text s[0,n) for the never-autopass
 * commands (drive-root deletes, Get-ChildItem -Recurse piped into a
 * deleter, format, Run keys, Administrators group, iex of downloads): what
 * it does in words, or NULL (windows.c). */
const char *sh_win_scan(const char *s, size_t n);
const char *sh_target_phrase(int cls);
/* The cwd class after `cd t` when t is of class cls = SH_T_SYSTEM, else -1. */
int sh_cwd_after_cd(const char *t, size_t n, int cls);

/* ---- vital.c ---- */
/* t[0,n) with repeated '/', '.' and '..' resolved into out (cap bytes; ".."
 * stops at "/"): its length, or -1 (too long, or relative while cwd is not
 * SH_CWD_ROOT). */
long sh_path_normalize(const char *t, size_t n, int cwd, char *out, size_t cap);
/* What vital system file path names ("the password database": /etc/passwd,
 * /etc/shadow, /boot/..., ...), or NULL. t is normalized word text of n
 * bytes; a relative path counts after `cd /` (cwd); glob: t is a pattern
 * (the text before its first pattern byte must be a prefix of the name). */
const char *sh_vital_path(const char *t, size_t n, int cwd, int glob);
/* critical.system_file "who" + verb + what when word w names one; 1 if so. */
int sh_check_vital(sh_ctx *cx, const sh_view *v, const sh_word *w, const char *who, const char *verb);
/* critical.system_file when word w names a file whose write acts on the
 * running kernel at once (/proc/sysrq-trigger, /sys/power/state); 1 if so. */
int sh_check_kernel_trigger(sh_ctx *cx, const sh_view *v, const sh_word *w, const char *who);
/* What kernel trigger file t[0,n) names (normalized as sh_vital_path), or NULL. */
const char *sh_kernel_trigger_path(const char *t, size_t n, int cwd);

/* ---- secrets.c ---- */
/* 1 when t[0,n) names a directory that holds credentials below it: the
 * root, a home directory ("\x01H" for ~ and $HOME, "\x01U" for ~user,
 * /root, /home/NAME, /Users/NAME), ~/.config, ~/.local, ~/.cache, /etc,
 * /var/lib, /proc. Trailing "/" and "/." are ignored. What a recursive
 * search of it reads includes every secret file below. */
int sh_holds_secrets(const char *t, size_t n);

/* ---- autorun.c ---- */
/* What makes path t[0,n) a file whose contents a program runs later (a shell
 * start-up file, a git hook, a coding agent's settings: "a Claude Code
 * settings file ..."), or NULL. agents_only: only coding agents' settings
 * and MCP lists (.claude/settings*.json, .mcp.json, .cursor/mcp.json,
 * .codex/config.toml, .envrc, ...). Relative paths match too. */
const char *sh_runs_code_path(const char *t, size_t n, int agents_only);
/* 1 when every agent row holds a '.' (sh_runs_code_path's pre-check; tests). */
int sh_autorun_table_ok(void);
/* critical.agent_config "who" + verb + what when word w names a coding
 * agent's settings; 1 if so. */
int sh_check_agent_config(sh_ctx *cx, const sh_view *v, const sh_word *w, const char *who, const char *verb);
/* An in-place editor (sed -i, perl -i, ...): each of its words that names a
 * vital system file or an agent's settings is critical; 1 if one did. */
int sh_check_edited(sh_ctx *cx, const sh_view *v, const char *who);

/* ---- loops.c ---- */
/* Tracks the loops command c opens and closes (while/until/for ... done);
 * critical.fork_bomb when c is backgrounded inside a loop that never ends
 * (or may never end, and c starts a shell or the script again). */
void sh_loop_command(sh_ctx *cx, const sh_cmd *c, const char *via);

/* ---- launch.c ---- */
/* The words from index from on of an unknown program (or a launcher), its
 * string arguments read as scripts and its here-documents and piped text:
 * a never-autopass command among them makes the call never-autopass; any
 * lesser finding is dropped (the program may treat them as data). */
void sh_probe_args(sh_ctx *cx, const sh_view *v, int from);
/* The same for one text an option runs as a command (less +!CMD, sed's e
 * CMD; leading '+', '!', ':' are skipped): only a never-autopass finding
 * is kept. */
void sh_probe_text(sh_ctx *cx, const char *s, size_t n);
/* 1 when the command is PROGRAM --version (or -V, -v, version, --help, ...). */
int sh_version_query(const sh_view *v);

/* ---- code.c ---- */
/* Inline code of another language (python -c, perl -e, a here-doc fed to
 * node, ...): process execution with literal command lines, recursive
 * deletes of /, ~ or system directories, fork loops. 1 when it gave a
 * critical verdict. */
int sh_code_scan(sh_ctx *cx, const sh_view *v, const char *who, const char *code, size_t n);
/* 1 when inline code for interp (python*, pypy*, node) uses only names that
 * compute and print (print, sys.version, console.log, process.version, ...:
 * code.c's lists), no prefixed or template strings, at most 4 KiB: it can do
 * no more than print. Pure. */
int sh_code_prints_only(const char *interp, const char *code, size_t n);
/* 1 when code names both an evaluator (eval, exec, iex, ...) and a network
 * fetch (urlopen, fetch, curl, irm, ...): it runs text it downloads. Pure. */
int sh_code_fetch_exec(const char *code, size_t n);

/* ---- persist.c ---- */
/* What makes path a persistence target, or NULL: a shell start-up or
 * profile file (~/.bashrc, ~/.bash_logout, ~/.profile, config.fish,
 * authorized_keys, ...), a cron table, a git hook or .git/config, a systemd
 * or launchd unit, /etc/profile.d, ... Any write counts, overwrite or
 * append. t is normalized word text of n bytes. */
const char *sh_persist_path(const char *t, size_t n);
/* critical.persistence when the write goes to such a path; 1 if so. */
int sh_check_persist_write(sh_ctx *cx, const sh_view *v, const char *t, size_t n, const char *what);
/* cp/mv/install SRC DST where DST is a directory (ends in '/', or is the
 * home directory): the file lands as DST/basename(SRC); 1 if that is a
 * persistence target (critical.persistence). */
int sh_check_persist_copy(sh_ctx *cx, const sh_view *v, int src, int dst, const char *what);
/* 1 when a git configuration key names a program git runs (core.pager, alias.*, ...). */
int sh_git_exec_key(const char *k, size_t n);
/* The assignment word i (NAME of k bytes): PS4/ENV with a substitution,
 * BASH_ENV, PROMPT_COMMAND, GIT_CONFIG_KEY_n are critical.persistence. */
void sh_check_persist_var(sh_ctx *cx, const sh_view *v, int i, const char *name, size_t k);
/* This command wrote path with text[0..tlen) (tlen < 0: text it cannot see). */
void sh_file_written(sh_ctx *cx, const char *path, size_t n, const char *text, long tlen);
/* The command runs path: when this command wrote it, its text is analysed
 * (or it is critical when unseen); 1 when path was written here. */
int sh_run_written(sh_ctx *cx, const sh_view *v, const char *path, size_t n);

/* ---- forge.c ---- */
/* 1 when URL t is a code-hosting API's repository, organisation or group
 * (https://api.github.com/repos/O/R, https://host/api/v4/projects/ID):
 * DELETE of it deletes the repository. */
int sh_forge_repo_url(const char *t);

/* ---- programs.c ---- */
typedef enum {
    SH_P_UNKNOWN = 0,
    SH_P_SAFE,              /* read-only with any arguments */
    SH_P_CHECK,             /* read-only when its handler accepts the args */
    SH_P_WRAPPER,           /* runs the command in its arguments */
    SH_P_PRIV,              /* privilege escalation: critical */
    SH_P_SHELL,             /* a POSIX-ish shell */
    SH_P_INTERP,            /* another interpreter (python, perl, node, ...) */
    SH_P_RULE,              /* a handler decides (rm, dd, git, curl, ...) */
} sh_pclass;

typedef struct sh_program sh_program;
typedef void (*sh_handler)(sh_ctx *cx, const sh_view *v, const sh_program *p);

struct sh_program {
    const char *name;
    sh_pclass cls;
    sh_handler fn;          /* for CHECK, WRAPPER, PRIV and RULE */
    const char *via;        /* for wrappers: "wrapped by env" */
};

const sh_program *sh_program_find(const char *name, size_t n);
/* The table row of a program word as written (a path, upper case, .exe, a
 * version suffix such as python3.12 are normalized), or NULL (analyze.c). */
const sh_program *sh_program_lookup(const char *t, size_t n);
int sh_programs_sorted(void);     /* 1 when the table is in order (tests) */
int sh_lex_tables_ok(void);       /* 1 when the lexer's byte tables agree (tests) */

/* helpers shared by the rules (analyze.c) */
size_t sh_assignment_name(const sh_cmd *c, int i);
void sh_check_assignment(sh_ctx *cx, const sh_view *v, int i);
int sh_word_target(const sh_ctx *cx, const sh_view *v, int i);
void sh_check_write(sh_ctx *cx, const sh_view *v, const sh_word *w, const char *what);
/* The same for an append (>>, tee -a): start-up files count as persistence. */
void sh_check_write_mode(sh_ctx *cx, const sh_view *v, const sh_word *w, const char *what, int append);

/* option scanning (the rule files: wrappers.c ... git.c): index of the first operand at or after j,
 * skipping options; optarg lists the short options taking an argument,
 * longarg the long ones (NULL-terminated). "--" ends options. */
int sh_skip_opts(const sh_view *v, int j, const char *optarg, const char *const *longarg);

/* word helpers (analyze.c) */
static inline const char *sh_wtext(const sh_cmd *c, int i) { return c->text + c->w[i].off; }
/* strcmp(s, lit) == 0 without a library call: the hot checks compare a
 * word with a short literal (a reserved word, an option) on every word. */
static inline int sh_streq(const char *s, const char *lit)
{
    while (*lit && *s == *lit) {
        s++;
        lit++;
    }
    return *s == *lit;
}
/* memchr(s, ch, n) != NULL without a library call, for the few bytes of
 * one word (the program word is checked for '=' on every command). */
static inline int sh_has_byte(const char *s, size_t n, char ch)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] == ch)
            return 1;
    return 0;
}
/* Length needed to join words [from, to) with spaces (join_words in the rule files). */
size_t sh_words_len(const sh_cmd *c, int from, int to);
int sh_weq(const sh_cmd *c, int i, const char *lit);
/* 1 when word i's text is exactly what runs: no expansion left unresolved,
 * no glob or brace pattern (variables, braces, $IFS are already applied). */
int sh_word_is_literal(const sh_cmd *c, int i);
int sh_wprefix(const sh_cmd *c, int i, const char *lit);

#endif
