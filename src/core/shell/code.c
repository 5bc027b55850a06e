/* code.c - inline code of another language (issue #10 §2,
 * "interpreters"): python -c, perl -e, ruby -e, node -e, php -r, lua -e,
 * osascript -e, R -e, julia -e, a here-document or a pipe fed to one.
 *
 * Not a parser for each language: one linear pass splits the code into
 * identifiers and string literals, which is enough to see what matters for
 * the never-autopass list:
 *   process execution  an exec-like name (system, popen, subprocess, exec*,
 *                      spawn*, shell_exec, os.execute, `...`, ...) with the
 *                      string literals read as a shell command line - each
 *                      one, and all of them joined the way the code builds
 *                      them ('rm -rf ' + '~', ['rm', '-rf', '/']);
 *   recursive delete   rmtree, remove_tree, rm_rf, rmSync/removeSync/rm/
 *                      unlink with `recursive`, ... of a literal /, ~ or
 *                      system directory, or of the home directory spelled
 *                      the language's way (expanduser, homedir, Dir.home,
 *                      $ENV{HOME}, Path.home);
 *   fork loops         fork/spawn in code that loops (while, for, loop,
 *                      until, iter, repeat).
 * The token-level signal scan (sh_signal_scan) still runs on the whole text.
 */
#include "core/shell/internal.h"

#include <string.h>
#include <strings.h>

static const char *const exec_names[] = {
    "system", "popen", "popen2", "popen3", "exec", "execv", "execvp", "execvpe", "execl",
    "execlp", "execle", "execve", "execsync", "execfilesync", "execfile", "spawn", "spawnsync",
    "spawnp", "spawnv", "spawnvp", "subprocess", "shell_exec", "passthru", "proc_open",
    "pcntl_exec", "execute", "check_output", "check_call", "getoutput", "getstatusoutput",
    "run_program", "process", "qx", "readpipe", "startfile", "pty", "cmd", "run", "open3",
    "capture2", "capture3", "capture2e", "shell", "command", "invoke", "iex", "startprocess",
    "start-process", "invoke-expression", "call", "output", "spawnprocess", "createprocess",
};
static const char *const rmtree_names[] = {
    "rmtree", "remove_tree", "rm_rf", "rm_r", "remove_entry_secure", "remove_dir",
    "removedirs", "deltree", "rimraf", "delete_directory", "remove_dir_all", "emptydirsync",
    "removeall", "deletedirectory",
};
static const char *const rm_names[] = {    /* recursive only with a `recursive` flag */
    "rmsync", "rmdirsync", "removesync", "remove", "unlink", "rm", "rmdir", "rmdirs",
    "remove-item", "delete", "deletesync",
};
static const char *const home_names[] = {
    "expanduser", "homedir", "home", "userprofile", "gethomedir", "home_dir", "homepath",
};
/* decoders: an exec-like call of decoded text runs a command nobody can read */
static const char *const decode_names[] = {
    "b64decode", "b32decode", "b85decode", "a85decode", "decodebytes", "decodestring", "atob",
    "decode64", "base64_decode", "frombase64string", "unhexlify", "hex2bin", "gzinflate",
    "gzdecode", "gzuncompress", "str_rot13", "decompress", "urlsafe_b64decode", "unpack1",
    "fromhex", "chr", "fromcharcode", "reverse", "rot13", "unescape", "pack",
};
static const char *const fork_names[] = {
    "fork", "pcntl_fork", "spawn", "spawnsync", "execsync", "popen", "system", "thread",
};
static const char *const loop_names[] = {
    "while", "for", "loop", "until", "iter", "repeat", "forever", "cycle",
};

static int in_names(const char *t, const char *const *set, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (set[i][0] == t[0] && strcmp(set[i], t) == 0)
            return 1;
    return 0;
}
#define IN(t, set) in_names((t), (set), sizeof (set) / sizeof *(set))

typedef struct {
    int exec, rmtree, rm, recursive, home, fork, loop, backtick;
    int crit_target;            /* a literal names /, ~ or a system directory */
} code_facts;

static int ident_byte(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-';
}

/* Reads the name starting at s[i] (with '-' when dash: start-process) into
 * tok lower-cased, cut to 31 bytes; returns the index after the name. */
static size_t lower_name(char tok[32], const char *s, size_t n, size_t i, int dash)
{
    size_t t = 0;
    while (i < n && ident_byte(s[i]) && (dash || s[i] != '-')) {
        if (t + 1 < 32)
            tok[t++] = (s[i] >= 'A' && s[i] <= 'Z') ? (char)(s[i] + 32) : s[i];
        i++;
    }
    tok[t] = '\0';
    return i;
}

/* One literal: note a critical target, and append it to the joined text. */
static void literal(code_facts *f, const char *s, size_t n, int cwd)
{
    int cls = sh_target_class(s, n, cwd);
    if (n > 0 && n < 256 && (cls == SH_T_ROOT || cls == SH_T_HOME || cls == SH_T_SYSTEM) &&
        (s[0] == '/' || s[0] == '~' || (n >= 2 && s[1] == ':')))
        f->crit_target = 1;
    if (n == 1 && s[0] == '~')
        f->crit_target = 1;
    if (n == 4 && memcmp(s, "HOME", 4) == 0)
        f->home = 1;                    /* ENV["HOME"], getenv("HOME"), os.environ['HOME'] */
}

/* Appends text to the joined literals with the pending glue. */
static size_t put(char *out, size_t k, size_t cap, char *glue, const char *t, size_t n)
{
    if (k > 0 && *glue && k < cap)
        out[k++] = *glue;
    for (size_t m = 0; m < n && k < cap; m++)
        out[k++] = t[m];
    *glue = '\n';
    return k;
}

/* Reads code once: facts into *f, literals joined into out (cap bytes;
 * joined with nothing after + . .. or when only blanks separate two (adjacent
 * literals are one string in awk, Python, Ruby and C), with a blank after a
 * comma, else a newline). Returns the joined length. */
static size_t scan(const char *s, size_t n, code_facts *f, char *out, size_t cap, int cwd)
{
    size_t k = 0, i = 0;
    char glue = '\n';
    int argglue = -1;           /* glue of the argument list being read (',' or '+'), across names */
    while (i < n) {
        char c = s[i];
        if (c == '\'' || c == '"' || c == '`') {
            if (c == '`')
                f->backtick = 1;
            size_t b = ++i;
            while (i < n && s[i] != c) {
                if (s[i] == '\\' && i + 1 < n)
                    i++;
                i++;
            }
            size_t len = i - b;
            literal(f, s + b, len, cwd);
            if (len == 4 && memcmp(s + b, "HOME", 4) == 0) {
                glue = argglue >= 0 ? (char)argglue : '\n';
                k = put(out, k, cap, &glue, "~", 1);    /* the home directory, as a word */
                argglue = -1;
                i += i < n;
                continue;
            }
            argglue = -1;
            if (k > 0 && glue && k < cap)
                out[k++] = glue;
            for (size_t m = 0; m < len && k < cap; m++) {
                char ch = s[b + m];
                if (ch == '\\' && m + 1 < len) {
                    ch = s[b + ++m];
                    ch = ch == 'n' ? '\n' : ch == 't' ? '\t' : ch;
                }
                out[k++] = ch;
            }
            glue = 0;                   /* "sud" "o id": awk, Python, Ruby and C join adjacent literals */
            i += i < n;
            continue;
        }
        if (c == '+' || c == '.' || c == '~' || c == '<') {
            if (glue == '\n' && k > 0)
                glue = 0;               /* 'a' + 'b', "a" . "b", 'a' .. 'b' */
            if (c == '+' && k > 0)
                argglue = 0;
        } else if (c == ',') {
            glue = ' ';                 /* ['rm', '-rf', '/'] */
            argglue = k > 0 ? ' ' : -1;
        } else if (ident_byte(c) && c != '-') {
            char tok[32];
            i = lower_name(tok, s, n, i, 1);
            f->exec |= IN(tok, exec_names);
            f->rmtree |= IN(tok, rmtree_names);
            f->rm |= IN(tok, rm_names);
            f->recursive |= strcmp(tok, "recursive") == 0 || strcmp(tok, "recurse") == 0 ||
                            strcmp(tok, "rf") == 0;
            if (IN(tok, home_names)) {
                f->home = 1;
                if (argglue >= 0) {     /* system "rm", "-rf", Dir.home: the home directory is an argument */
                    glue = (char)argglue;
                    k = put(out, k, cap, &glue, "~", 1);
                    argglue = -1;
                    continue;
                }
            }
            f->fork |= IN(tok, fork_names);
            f->loop |= IN(tok, loop_names);
            if (glue != '\n' && k > 0)
                glue = '\n';
            continue;
        } else if (c != ' ' && c != '\t' && c != '(' && c != ')' && c != '[' && c != ']') {
            glue = '\n';
            argglue = -1;
        }
        i++;
    }
    return k;
}

/* A decoder name (b64decode, atob, fromhex, chr, ...) or a 'base64'/'hex'
 * encoding literal in code that also runs a command: a second pass, made
 * only for such code, so the common case pays nothing for it. */
static int decodes_in(const char *s, size_t n, int code_only)
{
    for (size_t i = 0; i < n;) {
        if (code_only && (s[i] == '\'' || s[i] == '"')) {
            char q = s[i++];            /* a string literal: its text is data here */
            size_t from = i;
            while (i < n && s[i] != q)
                i += s[i] == '\\' ? 2 : 1;
            size_t len = i < n ? i - from : 0;
            if ((len == 6 && strncasecmp(s + from, "base64", 6) == 0) ||
                (len == 3 && strncasecmp(s + from, "hex", 3) == 0))
                return 1;               /* Buffer.from(x, 'base64'), .decode('hex') */
            i++;
            continue;
        }
        if (!ident_byte(s[i]) || s[i] == '-') {
            i++;
            continue;
        }
        size_t b = i;
        char tok[32];
        i = lower_name(tok, s, n, i, 0);
        if (IN(tok, decode_names))
            return 1;
        int quoted = b > 0 && (s[b - 1] == '\'' || s[b - 1] == '"') && i < n && s[i] == s[b - 1];
        if (quoted && (strcmp(tok, "base64") == 0 || strcmp(tok, "hex") == 0))
            return 1;                   /* Buffer.from(x, 'base64'), .decode('hex') */
    }
    return 0;
}

static int decodes(const char *s, size_t n)
{
    return decodes_in(s, n, 0);
}

/* eval or loadstring whose argument calls a decoder in code (not inside a
 * string literal): what it evaluates is code nobody can read here
 * (perl's eval pack "H*", ..., eval(atob(...))); eval('[1,2].reverse()')
 * and eval('1+1') next to struct.pack(...) are not; eval of a value with
 * no literal in it (eval $x) counts when the code calls a decoder at all.
 * The argument is the balanced (...) after the name, or up to ';' or a
 * newline (perl). */
#define EVAL_WINDOWS_MAX 16   /* eval arguments read one by one; past them the whole code decides */

static int eval_decodes(const char *s, size_t n)
{
    static const char *const names[] = { "eval", "loadstring" };
    int anywhere = -1;                  /* decodes_in(s, n, 1), once: every pass stays linear */
    unsigned windows = 0;
    for (size_t k = 0; k < sizeof names / sizeof *names; k++) {
        size_t nl = strlen(names[k]);
        for (const char *p = s; (p = memmem(p, n - (size_t)(p - s), names[k], nl)) != NULL; p += nl) {
            size_t i = (size_t)(p - s) + nl;
            if ((p > s && ident_byte(p[-1])) || (i < n && ident_byte(s[i]) && s[i] != '-'))
                continue;               /* part of a longer name */
            if (++windows > EVAL_WINDOWS_MAX) {
                if (anywhere < 0)
                    anywhere = decodes_in(s, n, 1);
                return anywhere;        /* many evals: a decoder anywhere is enough (fail closed) */
            }
            while (i < n && (s[i] == ' ' || s[i] == '\t'))
                i++;
            size_t from = i, end = i;
            if (i < n && s[i] == '(') {
                int depth = 0;
                for (end = i; end < n; end++) {
                    if (s[end] == '\'' || s[end] == '"') {
                        char q = s[end++];
                        while (end < n && s[end] != q)
                            end += s[end] == '\\' ? 2 : 1;
                        if (end >= n)
                            break;
                        continue;
                    }
                    depth += s[end] == '(' ? 1 : s[end] == ')' ? -1 : 0;
                    if (depth == 0)
                        break;
                }
            } else {
                while (end < n && s[end] != ';' && s[end] != '\n')
                    end++;
            }
            if (end > n)
                end = n;
            if (end > from && decodes_in(s + from, end - from, 1))
                return 1;
            /* eval $x, eval(x): a value built elsewhere, by a decoder in the code */
            if (end > from && !memchr(s + from, '\'', end - from) && !memchr(s + from, '"', end - from)) {
                if (anywhere < 0)
                    anywhere = decodes_in(s, n, 1);
                if (anywhere)
                    return 1;
            }
        }
    }
    return 0;
}

/* Code that evaluates text and fetches from the network: exec(urlopen(u)
 * .read()), eval `curl -s u`, iex (irm u), eval(await (await fetch(u))
 * .text()). What runs is what the server sends: text nobody can read here. */
static const char *const eval_names[] = {
    "eval", "exec", "iex", "invoke-expression", "loadstring", "dostring", "execfile",
    "instance_eval", "class_eval", "module_eval", "runpy", "run_code",
};
static const char *const fetch_names[] = {
    "urlopen", "urlretrieve", "urllib", "requests", "httpx", "fetch", "downloadstring",
    "downloaddata", "webclient", "invoke-webrequest", "invoke-restmethod", "iwr", "irm",
    "curl", "wget", "open-uri", "lwp", "http", "https", "axios", "got",
};

int sh_code_fetch_exec(const char *s, size_t n)
{
    int ev = 0, fe = 0;
    for (size_t i = 0; i < n && !(ev && fe);) {
        if (!ident_byte(s[i])) {
            i++;
            continue;
        }
        char tok[32];
        i = lower_name(tok, s, n, i, 1);
        ev |= IN(tok, eval_names);
        fe |= IN(tok, fetch_names);
    }
    return ev && fe;
}

/* AppleScript's elevation: do shell script "..." with administrator privileges. */
static int asks_admin(const char *s, size_t n)
{
    static const char k[] = "with administrator privileges";
    for (size_t i = 0; i + sizeof k - 1 <= n; i++)
        if ((s[i] | 32) == 'w' && strncasecmp(s + i, k, sizeof k - 1) == 0)
            return 1;
    return 0;
}

int sh_code_scan(sh_ctx *cx, const sh_view *v, const char *who, const char *code, size_t n)
{
    if (cx->out->cls == WG_SHELL_CRITICAL)
        return 1;
    SH_STEP(cx, n);
    code_facts f;
    memset(&f, 0, sizeof f);
    uint32_t mark;
    char *buf = sh_scratch(cx, n + 1, &mark);
    if (!buf)
        return 0;
    size_t len = scan(code, n, &f, buf, n, cx->cwd);
    const char *why = NULL, *rule = "critical.code_signal";
    if (f.fork && f.loop) {
        why = "forks processes in a loop (a fork bomb)";
        rule = "critical.fork_bomb";
    } else if ((f.rmtree || (f.rm && f.recursive)) && (f.crit_target || f.home)) {
        why = "deletes a directory tree at /, the home directory or a system directory";
    }
    if (!why && (f.exec || f.backtick || memmem(code, n, "eval", 4) || memmem(code, n, "string", 6) ||
                 memmem(code, n, "runpy", 5)) &&
        sh_code_fetch_exec(code, n)) {  /* the second pass only for code that may evaluate */
        why = "evaluates text it fetches from the network, which nobody can read here";
        rule = "critical.shell_unseen_text";
    }
    if (!why && asks_admin(code, n)) {
        why = "asks for administrator rights (AppleScript \"with administrator privileges\")";
        rule = "critical.privilege";
    }
    /* eval of decoded text is the same: code nobody can read (perl's eval
     * pack "H*", node's eval(atob(...)), lua's loadstring(...)) */
    if (!why && (((f.exec || f.backtick) && decodes(code, n)) || eval_decodes(code, n))) {
        why = "runs a command or code it decodes at run time (base64, hex, ...), text nobody can read here";
        rule = "critical.shell_unseen_text";
    }
    if (why) {
        sh_scratch_release(cx, mark);
        sh_verdict(cx, WG_SHELL_CRITICAL, rule, who, " runs code that ", why, v->via);
        return 1;
    }
    if ((f.exec || f.backtick) && len > 0 && cx->probes < SH_MAX_PROBE_RUNS) {
        /* the literals, read as the command line the code runs */
        wg_shell_verdict keep = *cx->out;
        int cwd = cx->cwd;
        cx->probes++;
        if (sh_parse_script(cx, buf, len, "in a command run by inline code") < 0)
            sh_coarse_scan(cx, buf, len);
        if (cx->out->cls < WG_SHELL_CRITICAL) {
            *cx->out = keep;
            cx->cwd = cwd;
        } else {
            cx->out->rule = "critical.code_signal";    /* the reason says what it runs */
        }
    }
    sh_scratch_release(cx, mark);
    if (cx->out->cls == WG_SHELL_CRITICAL)
        return 1;
    const char *crit = sh_signal_scan(code, n, 0);
    if (!crit)
        return 0;
    sh_verdict(cx, WG_SHELL_CRITICAL, "critical.code_signal", who, " runs code that ", crit, v->via);
    return 1;
}

/* ---- code that only prints ------------------------------------------------- */

/* Names inline code may use and still only compute and print: no name that
 * opens, imports, executes, reaches the environment or reflects (open,
 * __import__, os, subprocess, eval, getattr, require, env, ...) is here, so
 * code built from these alone cannot do more than print. One-letter names
 * are loop variables (no builtin of either language has one). */
static const char *const py_names[] = {
    "print", "import", "sys", "version", "version_info", "platform", "python_version",
    "machine", "executable", "prefix", "path", "maxsize", "byteorder", "implementation",
    "name", "len", "str", "int", "float", "sum", "range", "min", "max", "abs", "round",
    "sorted", "list", "tuple", "dict", "math", "pi", "sqrt", "pow", "floor", "ceil", "json",
    "dumps", "True", "False", "None", "for", "in", "if", "else", "and", "or", "not", "is",
    "hex", "bin", "oct", "chr", "ord", "upper", "lower", "join", "split", "strip", "encoding",
    "getdefaultencoding", "getrecursionlimit", "float_info", "hexversion", "api_version",
    "uuid", "uuid4", "uuid1", "datetime", "date", "now", "today", "utcnow", "isoformat",
    "strftime", "timezone", "utc", "base64", "b64encode", "b64decode", "urlsafe_b64encode",
    "encode", "decode", "hashlib", "sha256", "sha1", "md5", "hexdigest", "random", "randint",
    "choice", "string", "ascii_letters", "digits", "token_hex", "token_urlsafe", "secrets",
    "format", "zfill", "replace",
};
static const char *const js_names[] = {
    "console", "log", "process", "version", "versions", "platform", "arch", "JSON",
    "stringify", "Math", "PI", "sqrt", "max", "min", "floor", "ceil", "round", "Number",
    "String", "length", "toFixed", "toString", "Date", "now", "toISOString", "new", "true",
    "false", "null", "for", "of", "in", "let", "const", "var", "node", "v8", "uv", "release",
    "join", "map", "Object", "keys", "cpus", "totalmem", "freemem", "hostname", "type",
    "uptime", "EOL", "randomUUID", "basename", "dirname", "extname", "sep",
};

static int name_listed(const char *t, size_t k, const char *const *set, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strlen(set[i]) == k && memcmp(set[i], t, k) == 0)
            return 1;
    return 0;
}

/* s starts with ".version", ".versions", ".platform", ".arch" or ".release"
 * followed by a byte that ends the name. */
static int js_process_fact(const char *s, size_t n)
{
    static const char *const facts[] = { "versions", "version", "platform", "arch", "release" };
    if (n < 2 || s[0] != '.')
        return 0;
    for (size_t f = 0; f < sizeof facts / sizeof *facts; f++) {
        size_t k = strlen(facts[f]);
        if (n - 1 >= k && memcmp(s + 1, facts[f], k) == 0 && (n - 1 == k || !ident_byte(s[1 + k])))
            return 1;
    }
    return 0;
}

/* s starts with ('os'), ("path"), ('util') or ('crypto'): modules with
 * nothing that runs, writes or reaches the environment. Returns the bytes
 * of the call, 0 for any other module. */
static size_t js_pure_require(const char *s, size_t n)
{
    static const char *const mods[] = { "os", "path", "util", "crypto" };
    if (n < 4 || s[0] != '(' || (s[1] != '\'' && s[1] != '"'))
        return 0;
    for (size_t m = 0; m < sizeof mods / sizeof *mods; m++) {
        size_t k = strlen(mods[m]);
        if (n >= k + 4 && memcmp(s + 2, mods[m], k) == 0 && s[2 + k] == s[1] && s[3 + k] == ')')
            return k + 4;
    }
    return 0;
}

int sh_code_prints_only(const char *interp, const char *s, size_t n)
{
    int py = strncmp(interp, "python", 6) == 0 || strncmp(interp, "pypy", 4) == 0;
    int js = strcmp(interp, "node") == 0 || strcmp(interp, "nodejs") == 0;
    if ((!py && !js) || n == 0 || n > 4096)
        return 0;
    int named = 0;                      /* a listed name was used: `x` alone says nothing */
    for (size_t i = 0; i < n;) {
        char c = s[i];
        if (c == '\'' || c == '"') {
            /* a prefixed literal (f"{…}", rb'…') or an unterminated one: no */
            if (i > 0 && ident_byte(s[i - 1]))
                return 0;
            size_t j = i + 1;
            while (j < n && s[j] != c && s[j] != '\n')
                j += s[j] == '\\' ? 2 : 1;
            if (j >= n || s[j] != c)
                return 0;
            i = j + 1;
            continue;
        }
        if (c == '`' || c == '\\' || c == '@' || c == '$' || (unsigned char)c >= 0x80)
            return 0;                   /* templates, escapes, decorators, non-ASCII names */
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_') {
            size_t b = i;
            while (i < n && (ident_byte(s[i]) && s[i] != '-'))
                i++;
            if (i - b == 1)
                continue;               /* a loop variable */
            if (js && i - b == 7 && memcmp(s + b, "require", 7) == 0) {
                size_t used = js_pure_require(s + i, n - i);
                if (!used)
                    return 0;
                i += used;
                named = 1;
                continue;
            }
            if (!(py ? name_listed(s + b, i - b, py_names, sizeof py_names / sizeof *py_names)
                     : name_listed(s + b, i - b, js_names, sizeof js_names / sizeof *js_names)))
                return 0;
            named = 1;
            /* node's process only through its version facts: process.env,
             * console.log(process) would print the environment */
            if (js && i - b == 7 && memcmp(s + b, "process", 7) == 0 &&
                !js_process_fact(s + i, n - i))
                return 0;
            continue;
        }
        i++;
    }
    return named;
}
