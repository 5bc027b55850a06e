/* launch.c - programs that run other programs (issue #10 §2,
 * "launchers and remote shells").
 *
 * The gate cannot know every program, but it can read what an unknown
 * program is given: when its argument vector holds a command (`strace -f
 * rm -rf ~`, `docker exec web sudo id`, `parallel rm -rf ::: ~`), or one of
 * its string arguments reads as a script (`ssh host 'rm -rf ~'`, `tmux new
 * 'sudo reboot'`, `vim -c '!rm -rf ~'`, `--command='sudo id'`), or its
 * input is a script (`at now <<< 'rm -rf ~'`), that command is analysed as
 * if it ran here. Only a never-autopass finding is kept (the program may
 * well treat the words as data); anything less leaves the verdict as it
 * was. Bounded: at most SH_PROBE_STARTS program words per command, and
 * SH_MAX_PROBE_RUNS probes per decision (each linear in what it reads).
 *
 * Also here: command-line tools with read-only subcommands (docker ps,
 * kubectl get, systemctl status, gh pr list, ...) and the generic
 * "prints its version" form of any program.
 */
#include "core/shell/internal.h"
#include "core/shell/rules.h"
#include "core/shell/rules_common.h"

#include <string.h>
#include <strings.h>

enum { SH_PROBE_STARTS = 8, SH_PROBE_WORDS = 32 };   /* program words: the first 32 only */

static const char *const probe_via = "in the arguments of a program that runs commands";

/* Text that reads as a shell command line: a blank or an operator in it. */
static int scriptish(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == ';' || s[i] == '|' || s[i] == '&')
            return 1;
    return 0;
}

static void probe_text(sh_ctx *cx, const char *s, size_t n)
{
    while (n > 0 && (*s == '!' || *s == ':' || *s == ' ' || *s == '+'))
        s++, n--;                       /* vim's :!cmd and +!cmd, gdb's shell cmd is a word */
    if (n == 0)
        return;
    cx->probes++;
    if (sh_parse_script(cx, s, n, probe_via) < 0)
        sh_coarse_scan(cx, s, n);
}

/* Word j names a program that can do harm (not a plain read-only one). */
static int harmful_program(const sh_view *v, int j)
{
    if (FL(j) & (SH_W_OPAQUE | SH_W_GLOB | SH_W_BRACE))
        return 0;
    const sh_program *p = sh_program_lookup(W(j), v->c->w[j].len);
    if (!p || p->cls == SH_P_SAFE)
        return 0;
    /* `apt install sudo`: a privilege tool with nothing to run is a name */
    return p->cls != SH_P_PRIV || j + 1 < v->end;
}

/* The words from `from` on: scripts in string arguments and option values,
 * harmful programs named as words. */
static void probe_words(sh_ctx *cx, const sh_view *v, int from)
{
    int starts = 0;
    const sh_cmd *c = v->c;
    for (int j = from; j < v->end && cx->out->cls < WG_SHELL_CRITICAL; j++) {
        if (cx->probes >= SH_MAX_PROBE_RUNS)
            break;
        const char *t = W(j);
        size_t n = c->w[j].len;
        if (FL(j) & (SH_W_CMDSUB | SH_W_TRUNC | SH_W_CTRL))
            continue;                   /* its substitution was analysed where it is */
        if (t[0] == '-') {
            const char *eq = memchr(t, '=', n);
            if (!eq)
                continue;
            n -= (size_t)(eq + 1 - t);
            t = eq + 1;                 /* --command='sudo id' */
            if (n > 5 && memcmp(t, "exec=", 5) == 0)
                t += 5, n -= 5;         /* tar --checkpoint-action=exec='sudo id' */
            if (scriptish(t, n) || sh_program_lookup(t, n))
                probe_text(cx, t, n);
            continue;
        }
        if (scriptish(t, n)) {
            probe_text(cx, t, n);
            continue;
        }
        if (starts < SH_PROBE_STARTS && j - from < SH_PROBE_WORDS && harmful_program(v, j)) {
            starts++;
            cx->probes++;
            sh_view sub = *v;
            sub.i = j;
            sub.via = probe_via;
            sh_analyze_view(cx, &sub);
        }
    }
}

/* A probe keeps only a never-autopass finding: anything less it found is
 * undone (the verdict and the working directory as they were). */
static void keep_only_critical(sh_ctx *cx, const wg_shell_verdict *keep, int cwd)
{
    if (cx->out->cls < WG_SHELL_CRITICAL) {
        *cx->out = *keep;
        cx->cwd = cwd;
    }
}

void sh_probe_text(sh_ctx *cx, const char *s, size_t n)
{
    if (cx->out->cls == WG_SHELL_CRITICAL || cx->probes >= SH_MAX_PROBE_RUNS)
        return;
    wg_shell_verdict keep = *cx->out;
    int cwd = cx->cwd;
    probe_text(cx, s, n);
    keep_only_critical(cx, &keep, cwd);
}

void sh_probe_args(sh_ctx *cx, const sh_view *v, int from)
{
    if (cx->out->cls == WG_SHELL_CRITICAL || cx->probes >= SH_MAX_PROBE_RUNS)
        return;
    wg_shell_verdict keep = *cx->out;
    int cwd = cx->cwd;
    const sh_cmd *c = v->c;
    probe_words(cx, v, from);
    /* its input: at now <<< 'rm -rf ~', echo 'sudo id' | batch */
    for (int k = 0; k < c->nr && cx->out->cls < WG_SHELL_CRITICAL && cx->probes < SH_MAX_PROBE_RUNS; k++) {
        const sh_redir *r = &c->r[k];
        if (r->fd > 0)
            continue;
        if (r->op == SH_R_HEREDOC && r->body_ok)
            probe_text(cx, c->src + r->body_off, r->body_len);
        else if (r->op == SH_R_HERESTR && !(r->target.flags & SH_W_OPAQUE))
            probe_text(cx, c->text + r->target.off, r->target.len);
    }
    if (c->piped_in && c->pipe_text && c->pipe_text_len > 0 && cx->out->cls < WG_SHELL_CRITICAL &&
        cx->probes < SH_MAX_PROBE_RUNS)
        probe_text(cx, c->pipe_text, (size_t)c->pipe_text_len);
    keep_only_critical(cx, &keep, cwd);
}

/* ---- "prints its version" ------------------------------------------------- */

int sh_version_query(const sh_view *v)
{
    static const char *const forms[] = {
        "--version", "-V", "-v", "-version", "version", "-dumpversion", "-dumpmachine",
        "--help", "-h", "-help", "help", "-vV", NULL,
    };
    if (v->end - v->i != 2 || (FL(v->i + 1) & SH_W_OPAQUE))
        return 0;
    for (const char *const *f = forms; *f; f++)
        if (strcmp(W(v->i + 1), *f) == 0)
            return 1;
    return 0;
}

/* ---- tools with read-only subcommands -------------------------------------- */

/* A subcommand path: "ps" or "config current-context" (two words). */
typedef struct {
    const char *prog;
    const char *const *read;    /* first operands (or "A B" pairs) that only read */
    const char *const *bad;     /* options that make any subcommand write or run */
    int launches;               /* its other subcommands may run a command (exec, run) */
    int bare_reads;             /* with no arguments it shows its status (timedatectl) */
    const char *const *needs;   /* read == NULL: it only reads when one of these options is
                                 * given (tsc --noEmit); NULL: every form reads */
    int eq_writes;              /* an option holding '=' or '<' sets a value (exiftool -Artist=x) */
} query_spec;

static const char *const Q_docker[] = {
    "ps", "images", "version", "info", "logs", "inspect", "stats", "top", "port", "history",
    "diff", "search", "events", "image ls", "image list", "image inspect", "image history",
    "container ls", "container list", "container inspect", "container logs", "volume ls",
    "volume inspect", "network ls", "network inspect", "system df", "system info",
    "compose ps", "compose logs", "compose config", "compose ls", "context ls", "buildx ls", NULL,
};
static const char *const Q_kubectl[] = {
    "get", "describe", "logs", "version", "explain", "api-resources", "api-versions",
    "cluster-info", "top", "config current-context", "config get-contexts",
    "config get-clusters", "config view", "auth can-i", "auth whoami", "events", "diff",
    "rollout status", "rollout history", NULL,
};
static const char *const Q_helm[] = {
    "list", "ls", "status", "history", "version", "get", "show", "search", "env", "lint",
    "template", "dependency list", "repo list", "plugin list", NULL,
};
static const char *const Q_systemctl[] = {
    "status", "list-units", "list-unit-files", "list-timers", "list-sockets", "list-jobs",
    "list-dependencies", "list-machines", "is-active", "is-enabled", "is-failed",
    "is-system-running", "show", "cat", "get-default", "show-environment", NULL,
};
static const char *const Q_go[] = {
    "version", "env", "list", "doc", "help", "mod graph", "mod why", "mod verify", "vet", "build -n", NULL,
};
static const char *const Q_cargo[] = {
    "version", "metadata", "tree", "search", "pkgid", "locate-project", "read-manifest",
    "verify-project", "help", "--list", NULL,
};
static const char *const Q_brew[] = {
    "list", "ls", "info", "search", "config", "doctor", "deps", "uses", "leaves", "outdated",
    "--prefix", "--cellar", "--repository", "desc", "home", "services list", NULL,
};
static const char *const Q_apt[] = {
    "list", "show", "search", "policy", "depends", "rdepends", "madison", "showpkg", "stats",
    "pkgnames", "showsrc", "dump", "unmet", "changelog", NULL,
};
static const char *const Q_rpm[] = {
    "-q", "-qa", "-qi", "-ql", "-qf", "-qc", "-qd", "-qR", "-qp", "-qpl", "-qpi", "--query",
    "-V", "--verify", NULL,
};
static const char *const Q_dpkg[] = {
    "-l", "-L", "-s", "-S", "-p", "-c", "-I", "--list", "--listfiles", "--status", "--search",
    "--print-avail", "--get-selections", "--print-architecture", "--contents", "--info",
    "--audit", "-C", NULL,
};
static const char *const Q_ip[] = {
    "addr", "a", "address", "link", "l", "route", "r", "neigh", "n", "rule", "maddr", "-br",
    "-c", "-4", "-6", "-s", "-j", "-d", "monitor", NULL,
};
static const char *const Q_terraform[] = {
    "version", "show", "output", "providers", "validate", "fmt -check", "graph", "state list", "plan",
    "state show", "workspace list", "workspace show", NULL,
};
static const char *const Q_npm[] = {
    "config get", "config list", "config ls", "ls", "list", "view", "info", "show", "outdated",
    "help", "search", "why", "explain", "root", "prefix", "bin", "doctor", "ping", "whoami",
    "audit", "fund", "query", NULL,
};
static const char *const Q_arp[] = { "-a", "-n", "-an", "-na", "-e", "-v", NULL };
static const char *const Q_resolvectl[] = {
    "query", "status", "dns", "domain", "statistics", "service", "openpgp", "tlsa", "monitor", NULL,
};
static const char *const Q_nmcli[] = {
    "dev status", "device status", "dev show", "device show", "con show", "connection show",
    "general status", "radio all", "dev wifi list", "device wifi list", NULL,
};
static const char *const Q_ctl[] = { "status", "show", "list", "list-sessions", "list-users",
    "list-seats", "show-session", "show-user", "list-timezones", "timesync-status", "lldp", NULL };
static const char *const B_journalctl[] = {
    "--vacuum-size", "--vacuum-time", "--vacuum-files", "--rotate", "--flush", "--sync",
    "--relinquish-var", "--setup-keys", "--update-catalog", NULL,
};
/* Go's flag package reads --x as -x: both spellings */
static const char *const B_go[] = {
    "-w", "-u", "-exec", "-toolexec", "-vettool", "--w", "--u", "--exec", "--toolexec", "--vettool", NULL,
};
static const char *const B_ip[] = {
    "add", "del", "delete", "set", "change", "replace", "flush", "append", "prepend", "exec",
    "save", "restore", "-batch", "-b", "-force", NULL,
};
static const char *const B_kubectl[] = { "--raw", "--exec-command", NULL };
static const char *const B_nmcli[] = { "--show-secrets", "-s", "-show-secrets", NULL };   /* Wi-Fi keys */
static const char *const Q_openssl[] = {
    "version", "x509", "verify", "crl", "list", "ciphers", "asn1parse", "errstr", "req",
    "dgst", "rand", "speed", NULL,
};
static const char *const B_openssl[] = { "-out", "-keyout", "-signkey", "-passout", "-CAkey", NULL };
static const char *const Q_rustup[] = {
    "show", "toolchain list", "target list", "component list", "which", "check", "help", NULL,
};
static const char *const Q_conda[] = {
    "list", "info", "env list", "search", "config --show", "config --get", "config --describe",
    "doctor", NULL,
};
static const char *const Q_snap[] = {
    "list", "info", "find", "search", "version", "services", "changes", "tasks", "connections",
    "interfaces", "warnings", "get", "help", "known", NULL,
};
static const char *const Q_flatpak[] = {
    "list", "info", "search", "remotes", "remote-ls", "remote-info", "history", "ps",
    "documents", "permissions", "permission-list", NULL,
};
static const char *const Q_localectl[] = {
    "status", "list-locales", "list-keymaps", "list-x11-keymap-models",
    "list-x11-keymap-layouts", "list-x11-keymap-variants", "list-x11-keymap-options", NULL,
};
/* compressors: -c (to standard output), -l (list), -t (test) only read;
 * a short option cluster holding one of the letters counts (gzip -dc) */
static const char *const N_compress[] = {
    "-c", "-l", "-t", "--stdout", "--to-stdout", "--list", "--test", NULL,
};
static const char *const B_compress[] = { "-o", "--output", "--rm", "--output-dir-flat", NULL };
static const char *const Q_systemd_analyze[] = {
    "blame", "time", "critical-chain", "dot", "dump", "security", "calendar", "timespan",
    "timestamp", "verify", "cat-config", "unit-paths", "syscall-filter", "filesystems",
    "condition", "exit-status", "capability", "inspect-elf", "plot", "unit-files", NULL,
};
static const char *const Q_poetry[] = {
    "show", "env info", "env list", "check", "version", "search", "about", "debug info", NULL,
};
static const char *const Q_uv[] = {
    "pip list", "pip show", "pip tree", "pip freeze", "pip check", "tree", "version",
    "python list", "tool list", "cache dir", NULL,
};
static const char *const Q_pyenv[] = {
    "versions", "version", "which", "root", "prefix", "commands", "whence", "help",
    "version-name", NULL,
};
static const char *const Q_nvm[] = { "ls", "list", "current", "version", "which", "ls-remote", NULL };
static const char *const Q_mvn[] = {
    "dependency:tree", "dependency:list", "dependency:analyze", "help:effective-pom",
    "help:describe", "help:active-profiles", NULL,
};
static const char *const Q_composer[] = {
    "show", "info", "outdated", "licenses", "depends", "why", "why-not", "validate", "diagnose",
    "search", "status", "check-platform-reqs", "fund", "about", "list", "suggests", "audit", NULL,
};
static const char *const Q_dotnet[] = {
    "--info", "--list-sdks", "--list-runtimes", "list", "sln list", NULL,
};
static const char *const Q_ldconfig[] = { "-p", "--print-cache", NULL };
static const char *const Q_xmlstarlet[] = {
    "sel", "select", "val", "validate", "el", "elements", "fo", "format", "c14n", "pyx", "esc",
    "unesc", "ed", "edit", NULL,
};
static const char *const B_xmlstarlet[] = { "-L", "--inplace", NULL };
static const char *const B_iconv[] = { "-o", "--output", NULL };
static const char *const Q_7z[] = { "l", "t", "i", "h", NULL };
static const char *const Q_unrar[] = { "l", "lt", "lta", "lb", "t", "v", "vt", "vta", "vb", NULL };
static const char *const Q_ruff[] = {
    "check", "version", "rule", "linter", "config", "format --check", "format --diff", NULL,
};
static const char *const B_ruff[] = {
    "--fix", "--fix-only", "--unsafe-fixes", "--add-noqa", "--output-file", "-o", NULL,
};
static const char *const Q_sshkeygen[] = { "-l", "-lf", "-lv", "-lvf", "-F", "-B", "-Bf", NULL };
static const char *const B_sshkeygen[] = {
    "-R", "-p", "-t", "-N", "-c", "-i", "-e", "-s", "-A", "-k", "-u", "-Y", "-M", "-y", "-D",
    "-K", NULL,
};
static const char *const B_ffprobe[] = { "-o", "-report", NULL };
static const char *const B_xmllint[] = { "--output", "-o", "--shell", NULL };
static const char *const B_exiftool[] = {
    "-o", "-out", "-w", "-W", "-overwrite_original", "-overwrite_original_in_place",
    "-tagsfromfile", "-tagsFromFile", "-geotag", "-delete_original", "-restore_original",
    "-srcfile", "-@", NULL,
};
static const char *const N_tsc[] = { "--noEmit", "--showConfig", "--listFilesOnly", NULL };
static const char *const B_tsc[] = { "--generateTrace", "--init", "--build", "-b", NULL };
static const char *const B_none[] = { NULL };
/* gate6 round: key listings, charset conversion to stdout, GPU and pipx listings */
static const char *const Q_gpg[] = {
    "--list-keys", "-k", "--list-public-keys", "--list-secret-keys", "-K", "--fingerprint",
    "--list-sigs", "--check-sigs", "--verify", "--list-packets", NULL,
};
static const char *const B_gpg[] = { "--output", "-o", "--export-secret-keys", "--export-secret-subkeys",
                                     "--delete-keys", "--delete-secret-keys", "--import", "--send-keys", NULL };
static const char *const Q_nvsmi[] = { "-L", "--list-gpus", "-q", "--query", "topo", NULL };
static const char *const Q_pipx[] = { "list", "environment", NULL };
/* redteam2 round */
static const char *const Q_ipconfig[] = { "/all", "/displaydns", "-all", NULL };
static const char *const Q_defaults[] = { "read", "read-type", "domains", "find", NULL };
/* cmake -N: "view mode only, only load the cache" (no configure step) */
static const char *const N_cmake[] = { "-N", NULL };
static const char *const B_cmake[] = { "-P", "-E", "-C", "--build", "--install", "--open", "--workflow", NULL };
/* Apple's developer tools: listings; xcrun runs any other tool it is given */
static const char *const Q_xcodebuild[] = {
    "-showsdks", "-version", "-list", "-showBuildSettings", "-showdestinations", NULL,
};
static const char *const Q_xcrun[] = {
    "simctl list", "--show-sdk-path", "--show-sdk-version", "--show-sdk-platform-path", "--find", "-f", NULL,
};
static const char *const Q_stty[] = { "size", "-a", "--all", "-g", "--save", NULL };
static const char *const Q_winget[] = { "list", "search", "show", NULL };
static const char *const Q_choco[] = { "list", "search", "info", "outdated", NULL };
static const char *const B_shuf[] = { "-o", "--output", "--random-source", NULL };
static const char *const B_units[] = { "--log", "-L", NULL };
static const char *const B_clang_format[] = { "-i", NULL };
static const char *const N_black[] = { "--check", "--diff", NULL };

static const query_spec queries[] = {
    { "7z", Q_7z, B_none, 0, 0, NULL, 0 },
    { "7za", Q_7z, B_none, 0, 0, NULL, 0 },
    { "7zz", Q_7z, B_none, 0, 0, NULL, 0 },
    { "apt", Q_apt, B_none, 0, 0, NULL, 0 },
    { "apt-cache", Q_apt, B_none, 0, 0, NULL, 0 },
    { "arp", Q_arp, B_none, 0, 1, NULL, 0 },
    { "black", NULL, B_none, 0, 0, N_black, 0 },
    { "brew", Q_brew, B_none, 0, 0, NULL, 0 },
    { "bunzip2", NULL, B_compress, 0, 0, N_compress, 0 },
    { "bzip2", NULL, B_compress, 0, 0, N_compress, 0 },
    { "cargo", Q_cargo, B_none, 1, 0, NULL, 0 },
    { "choco", Q_choco, B_none, 0, 0, NULL, 0 },
    { "clang-format", NULL, B_clang_format, 0, 0, NULL, 0 },
    { "composer", Q_composer, B_none, 0, 0, NULL, 0 },
    { "conda", Q_conda, B_none, 0, 0, NULL, 0 },
    { "cmake", NULL, B_cmake, 1, 0, N_cmake, 0 },
    { "defaults", Q_defaults, B_none, 0, 0, NULL, 0 },
    { "docker", Q_docker, B_none, 1, 0, NULL, 0 },
    { "dotnet", Q_dotnet, B_none, 0, 0, NULL, 0 },
    { "dpkg", Q_dpkg, B_none, 0, 0, NULL, 0 },
    { "exiftool", NULL, B_exiftool, 0, 0, NULL, 1 },
    { "ffprobe", NULL, B_ffprobe, 0, 0, NULL, 0 },
    { "flatpak", Q_flatpak, B_none, 0, 0, NULL, 0 },
    { "go", Q_go, B_go, 1, 0, NULL, 0 },
    { "gpg", Q_gpg, B_gpg, 0, 0, NULL, 0 },
    { "gunzip", NULL, B_compress, 0, 0, N_compress, 0 },
    { "gzip", NULL, B_compress, 0, 0, N_compress, 0 },
    { "helm", Q_helm, B_none, 0, 0, NULL, 0 },
    { "hostnamectl", Q_ctl, B_none, 0, 1, NULL, 0 },
    { "iconv", NULL, B_iconv, 0, 0, NULL, 0 },
    { "ip", Q_ip, B_ip, 1, 0, NULL, 0 },
    { "ipconfig", Q_ipconfig, B_none, 0, 1, NULL, 0 },
    { "journalctl", NULL, B_journalctl, 0, 0, NULL, 0 },
    { "kubectl", Q_kubectl, B_kubectl, 1, 0, NULL, 0 },
    { "ldconfig", Q_ldconfig, B_none, 0, 0, NULL, 0 },
    { "localectl", Q_localectl, B_none, 0, 1, NULL, 0 },
    { "loginctl", Q_ctl, B_none, 0, 1, NULL, 0 },
    { "lz4", NULL, B_compress, 0, 0, N_compress, 0 },
    { "mamba", Q_conda, B_none, 0, 0, NULL, 0 },
    { "micromamba", Q_conda, B_none, 0, 0, NULL, 0 },
    { "mvn", Q_mvn, B_none, 0, 0, NULL, 0 },
    { "nerdctl", Q_docker, B_none, 1, 0, NULL, 0 },
    { "networkctl", Q_ctl, B_none, 0, 1, NULL, 0 },
    { "nmcli", Q_nmcli, B_nmcli, 0, 1, NULL, 0 },
    { "npm", Q_npm, B_none, 1, 0, NULL, 0 },
    { "nvidia-smi", Q_nvsmi, B_none, 0, 1, NULL, 0 },
    { "nvm", Q_nvm, B_none, 0, 0, NULL, 0 },
    { "oc", Q_kubectl, B_kubectl, 1, 0, NULL, 0 },
    { "openssl", Q_openssl, B_openssl, 0, 0, NULL, 0 },
    { "pipx", Q_pipx, B_none, 1, 0, NULL, 0 },
    { "podman", Q_docker, B_none, 1, 0, NULL, 0 },
    { "poetry", Q_poetry, B_none, 0, 0, NULL, 0 },
    { "pyenv", Q_pyenv, B_none, 0, 0, NULL, 0 },
    { "resolvectl", Q_resolvectl, B_none, 0, 1, NULL, 0 },
    { "rpm", Q_rpm, B_none, 0, 0, NULL, 0 },
    { "ruff", Q_ruff, B_ruff, 0, 0, NULL, 0 },
    { "rustup", Q_rustup, B_none, 0, 0, NULL, 0 },
    { "shuf", NULL, B_shuf, 0, 0, NULL, 0 },
    { "snap", Q_snap, B_none, 0, 0, NULL, 0 },
    { "ssh-keygen", Q_sshkeygen, B_sshkeygen, 0, 0, NULL, 0 },
    { "stty", Q_stty, B_none, 0, 1, NULL, 0 },
    { "systemctl", Q_systemctl, B_none, 0, 0, NULL, 0 },
    { "systemd-analyze", Q_systemd_analyze, B_none, 0, 1, NULL, 0 },
    { "terraform", Q_terraform, B_none, 1, 0, NULL, 0 },
    { "timedatectl", Q_ctl, B_none, 0, 1, NULL, 0 },
    { "tsc", NULL, B_tsc, 0, 0, N_tsc, 0 },
    { "units", NULL, B_units, 0, 0, NULL, 0 },
    { "xcodebuild", Q_xcodebuild, B_none, 0, 0, NULL, 0 },
    { "xcrun", Q_xcrun, B_none, 1, 0, NULL, 0 },
    { "unrar", Q_unrar, B_none, 0, 0, NULL, 0 },
    { "unxz", NULL, B_compress, 0, 0, N_compress, 0 },
    { "unzstd", NULL, B_compress, 0, 0, N_compress, 0 },
    { "uv", Q_uv, B_none, 0, 0, NULL, 0 },
    { "winget", Q_winget, B_none, 0, 0, NULL, 0 },
    { "xmllint", NULL, B_xmllint, 0, 0, NULL, 0 },
    { "xmlstarlet", Q_xmlstarlet, B_xmlstarlet, 0, 0, NULL, 0 },
    { "xz", NULL, B_compress, 0, 0, N_compress, 0 },
    { "zstd", NULL, B_compress, 0, 0, N_compress, 0 },
};

/* Does the subcommand at word j (and j+1) match one of the entries? */
static int sub_matches(const sh_view *v, int j, const char *const *read)
{
    for (; *read; read++) {
        const char *sp = strchr(*read, ' ');
        size_t n1 = sp ? (size_t)(sp - *read) : strlen(*read);
        if (strlen(W(j)) != n1 || strncmp(W(j), *read, n1) != 0)
            continue;
        if (!sp)
            return 1;
        if (j + 1 < v->end && strcmp(W(j + 1), sp + 1) == 0)
            return 1;
    }
    return 0;
}

static int bad_option(const sh_view *v, const char *const *bad)
{
    for (int j = v->i + 1; j < v->end; j++)
        for (const char *const *b = bad; *b; b++) {
            size_t n = strlen(*b);
            if (strncmp(W(j), *b, n) == 0 && (W(j)[n] == '\0' || W(j)[n] == '='))
                return 1;
        }
    return 0;
}

/* A host path bind-mounted into a container: the root (-v /:/host,
 * --volume=/:/mnt, --mount type=bind,source=/,target=/h), a system
 * directory (-v /etc:/e) or the daemon's socket (-v /var/run/docker.sock:...). */
static int mounts_host_root(const char *t)
{
    const char *src = strncmp(t, "source=/", 8) == 0 ? t + 7 : NULL;
    const char *s = strstr(t, ",source=/");
    if (!s)
        s = strstr(t, ",src=/");
    if (s)
        src = strchr(s, '=') + 1;
    if (!src)
        src = t;
    if (src[0] != '/')
        return 0;
    while (*src == '/')
        src++;
    if (*src == ':' || *src == ',' || *src == '\0')
        return 1;
    /* the host's configuration, programs or the container daemon's socket:
     * writing them from inside is root on the host */
    static const char *const host_dirs[] = {
        "etc", "root", "boot", "usr", "bin", "sbin", "lib", "lib64", "proc", "sys", "dev",
        "var/run/docker.sock", "run/docker.sock", "var/run/containerd", "run/containerd",
        "var/lib/docker", "run/podman/podman.sock", NULL,
    };
    for (const char *const *d = host_dirs; *d; d++) {
        size_t n = strlen(*d);
        if (strncmp(src, *d, n) == 0 && (src[n] == ':' || src[n] == ',' || src[n] == '\0' ||
                                         (src[n] == '/' && (src[n + 1] == ':' || src[n + 1] == ','))))
            return 1;
    }
    return 0;
}

/* "key": true somewhere in JSON text s (blanks and quotes around allowed). */
static int json_true(const char *s, const char *key)
{
    size_t k = strlen(key);
    for (const char *p = strstr(s, key); p; p = strstr(p + 1, key)) {
        const char *q = p + k;
        while (*q == '"' || *q == '\'' || *q == ' ' || *q == ':' || *q == '\\')
            q++;
        if (strncmp(q, "true", 4) == 0)
            return 1;
    }
    return 0;
}

/* docker run --privileged, -v /:/host, --pid=host, --cap-add=ALL|SYS_ADMIN;
 * kubectl debug node/NAME, kubectl run --overrides with privileged, hostPID,
 * hostIPC or a hostPath volume: root on the host, whatever the container
 * runs (rule critical.privilege). 1 when it gave that verdict. */
static int container_escape(sh_ctx *cx, const sh_view *v, const sh_program *p)
{
    int kube = strcmp(p->name, "kubectl") == 0 || strcmp(p->name, "oc") == 0;
    int runs = 0;
    if (!kube && strcmp(p->name, "docker") != 0 && strcmp(p->name, "podman") != 0 &&
        strcmp(p->name, "nerdctl") != 0)
        return 0;
    for (int j = v->i + 1; j < v->end; j++) {
        const char *t = W(j);
        if (kube) {
            if (strncmp(t, "--overrides", 11) == 0) {
                const char *ov = t[11] == '=' ? t + 12 : (j + 1 < v->end ? W(j + 1) : "");
                if (json_true(ov, "privileged") || json_true(ov, "hostPID") || json_true(ov, "hostIPC") ||
                    strstr(ov, "hostPath"))
                    goto escape;        /* kubectl run --overrides='{..."privileged":true...}' */
            }
            if (strcmp(t, "debug") == 0)
                runs = 1;
            else if (runs && (strncmp(t, "node/", 5) == 0 || strncmp(t, "nodes/", 6) == 0))
                goto escape;
            continue;
        }
        if (!runs) {
            runs = strcmp(t, "run") == 0 || strcmp(t, "create") == 0 || strcmp(t, "exec") == 0;
            continue;
        }
        if (t[0] != '-')
            break;                      /* the image: what follows is the container's command */
        const char *val = strchr(t, '=');
        val = val ? val + 1 : (j + 1 < v->end ? W(j + 1) : "");
        if (strcmp(t, "--privileged") == 0 || strcmp(t, "--privileged=true") == 0)
            goto escape;
        if ((strcmp(t, "-v") == 0 || strncmp(t, "--volume", 8) == 0 || strncmp(t, "--mount", 7) == 0) &&
            mounts_host_root(val))
            goto escape;
        if (strncmp(t, "-v/", 3) == 0 && mounts_host_root(t + 2))
            goto escape;
        if ((strncmp(t, "--pid", 5) == 0 || strncmp(t, "--userns", 8) == 0) && strcmp(val, "host") == 0)
            goto escape;
        if (strncmp(t, "--cap-add", 9) == 0 && (strcasecmp(val, "ALL") == 0 || strcasecmp(val, "SYS_ADMIN") == 0 ||
                                                strcasecmp(val, "CAP_SYS_ADMIN") == 0))
            goto escape;
    }
    return 0;
escape:
    sh_verdict(cx, WG_SHELL_CRITICAL, "critical.privilege", p->name,
               kube ? " runs a root shell on a cluster node (debug node/..., a privileged or host pod)"
                    : " runs a container with root access to the host (privileged, host root, system directory or daemon socket mounted, host PID)",
               NULL, v->via);
    return 1;
}

/* t is one of needs, or a short option cluster holding one of needs'
 * one-letter options (-dc holds -c). */
static int needs_match(const char *t, const char *const *needs)
{
    if (in_set(t, needs))
        return 1;
    if (t[0] != '-' || t[1] == '-' || t[1] == '\0')
        return 0;
    for (; *needs; needs++)
        if ((*needs)[0] == '-' && (*needs)[1] != '-' && (*needs)[2] == '\0' && strchr(t + 1, (*needs)[1]))
            return 1;
    return 0;
}

/* kubectl get secret NAME -o yaml|json|jsonpath=...: the secret's values
 * (base64 is not encryption); a plain listing shows names only. */
static int prints_cluster_secret(const sh_view *v)
{
    int get = 0, secret = 0, output = 0;
    for (int j = v->i + 1; j < v->end; j++) {
        const char *t = W(j);
        if (t[0] != '-') {
            get |= strcmp(t, "get") == 0;
            secret |= strncmp(t, "secret", 6) == 0 ? (t[6] == '\0' || strcmp(t + 6, "s") == 0 || t[6] == '/' ||
                                                      strncmp(t + 6, "s/", 2) == 0)
                                                   : strstr(t, ",secret") != NULL;
            continue;
        }
        if (strcmp(t, "-o") == 0 || strcmp(t, "--output") == 0)
            t = j + 1 < v->end ? W(j + 1) : "";
        else if (strncmp(t, "-o", 2) == 0)
            t += 2 + (t[2] == '=');
        else if (strncmp(t, "--output=", 9) == 0)
            t += 9;
        else
            continue;
        output |= strcmp(t, "wide") != 0 && strcmp(t, "name") != 0 && t[0] != '\0';
    }
    return get && secret && output;
}

void sh_rule_query(sh_ctx *cx, const sh_view *v, const sh_program *p)
{
    if ((p->name[0] == 'k' || p->name[0] == 'o') &&
        (strcmp(p->name, "kubectl") == 0 || strcmp(p->name, "oc") == 0) && prints_cluster_secret(v)) {
        sh_verdict(cx, WG_SHELL_RISKY, "bash.reads_secret", p->name,
                   " prints a cluster secret's values (base64 only)", NULL, v->via);
        return;
    }
    const query_spec *q = NULL;
    for (size_t k = 0; k < sizeof queries / sizeof *queries && !q; k++)
        if (queries[k].prog[0] == p->name[0] && strcmp(queries[k].prog, p->name) == 0)
            q = &queries[k];
    if (!q || sh_version_query(v) || (q->bare_reads && v->end - v->i == 1))
        return;
    int opaque = 0, sets = 0, needed = q->needs == NULL;
    for (int j = v->i + 1; j < v->end; j++) {
        const char *t = W(j);
        /* ~/x is a path, not hidden text */
        int home = t[0] == SH_MARK && t[1] == SH_K_HOME && !(FL(j) & ~(SH_W_EXP | SH_W_QUOTED)) &&
                   !memchr(t + 2, SH_MARK, v->c->w[j].len - 2);
        opaque |= (FL(j) & SH_W_OPAQUE) != 0 && !home;
        sets |= q->eq_writes && t[0] == '-' && strpbrk(t, "=<") != NULL;
        needed |= q->needs && needs_match(t, q->needs);
    }
    if (!opaque && !sets && !bad_option(v, q->bad)) {
        if (!q->read && needed)
            return;                     /* every form reads (journalctl), or this one does */
        /* the subcommand: the first word that is not a global option, or a
         * listed option itself (dpkg -l, rpm -qa) */
        for (int j = v->i + 1; q->read && j < v->end; j++) {
            if (sub_matches(v, j, q->read))
                return;
            if (W(j)[0] != '-')
                break;
        }
    }
    if (q->launches && container_escape(cx, v, p))
        return;
    sh_verdict(cx, WG_SHELL_RISKY, "bash.unknown_program", p->name,
               " with these arguments may change the system or run commands", NULL, v->via);
    if (q->launches)
        sh_probe_args(cx, v, v->i + 1);
}

/* ---- launchers and run-as tools ------------------------------------------- */

/* npx, bunx, pnpx: fetch a package and run it with the arguments. */
void sh_rule_launcher(sh_ctx *cx, const sh_view *v, const sh_program *p)
{
    if (sh_version_query(v))
        return;
    sh_verdict(cx, WG_SHELL_RISKY, "bash.package_manager", p->name, " installs or runs packages",
               NULL, v->via);
    sh_probe_args(cx, v, v->i + 1);
}

/* wsl -l -v, wsl --status: listings of the installed distributions only. */
static int wsl_lists(const sh_view *v)
{
    static const char *const reads[] = {
        "-l", "--list", "-v", "--verbose", "--status", "--version", "-q", "--quiet", "--running",
        "--all", "-o", "--online", NULL,
    };
    int list = 0;
    for (int j = v->i + 1; j < v->end; j++) {
        if (!in_set(W(j), reads))
            return 0;
        list |= strcmp(W(j), "-l") == 0 || strcmp(W(j), "--list") == 0 ||
                strcmp(W(j), "--status") == 0 || strcmp(W(j), "--version") == 0;
    }
    return list;
}

/* wsl -u root, machinectl shell, setpriv --reuid=0, chpst -u root,
 * capsh --user=root, Start-Process -Verb RunAs, systemd-run --uid=0: run a
 * command as another user (root when it says so). */
void sh_rule_runas(sh_ctx *cx, const sh_view *v, const sh_program *p)
{
    int as_root = 0, user_opt = 0;
    if (strcmp(p->name, "wsl") == 0 && wsl_lists(v))
        return;
    for (int j = v->i + 1; j < v->end; j++) {
        const char *t = W(j);
        if (FL(j) & SH_W_OPAQUE)
            as_root |= user_opt;        /* -u $WHO: it may be root */
        as_root |= strcasecmp(t, "root") == 0 || strcasecmp(t, "runas") == 0 ||
                   strncmp(t, "root@", 5) == 0 || strcmp(t, "0") == 0 ||
                   (strchr(t, '=') && (strcmp(strchr(t, '=') + 1, "0") == 0 ||
                                       strcasecmp(strchr(t, '=') + 1, "root") == 0));
        user_opt = t[0] == '-' && (strcmp(t, "-u") == 0 || strcmp(t, "--user") == 0 ||
                                   strcmp(t, "--uid") == 0 || strcasecmp(t, "-verb") == 0);
        if (strcmp(p->name, "machinectl") == 0 && (strcmp(t, "shell") == 0 || strcmp(t, "login") == 0))
            as_root = 1;
    }
    if (as_root) {
        sh_verdict(cx, WG_SHELL_CRITICAL, "critical.privilege", p->name,
                   " runs a command as root or another user", NULL, v->via);
        return;
    }
    if (strcmp(p->name, "systemd-run") == 0)
        for (int j = v->i + 1; j < v->end; j++)
            if (strncmp(W(j), "--on-", 5) == 0 || strncmp(W(j), "--timer-property", 16) == 0) {
                /* systemd-run --on-calendar=hourly CMD: a timer unit, CMD runs later and again */
                sh_verdict(cx, WG_SHELL_CRITICAL, "critical.persistence", p->name,
                           " installs a timer (the command runs later, again and again)", NULL, v->via);
                return;
            }
    if (sh_version_query(v))
        return;
    sh_verdict(cx, WG_SHELL_RISKY, "bash.unknown_program", p->name, " runs a command", NULL, v->via);
    sh_probe_args(cx, v, v->i + 1);
}

/* man: read-only, unless it is told which program shows the page. */
void sh_rule_man(sh_ctx *cx, const sh_view *v, const sh_program *p)
{
    for (int j = v->i + 1; j < v->end; j++) {
        const char *t = W(j);
        if (strncmp(t, "-P", 2) == 0 || strncmp(t, "--pager", 7) == 0 || strncmp(t, "-H", 2) == 0 ||
            strncmp(t, "--html", 6) == 0 || strcmp(t, "-l") == 0) {
            sh_verdict(cx, WG_SHELL_RISKY, "bash.unsafe_option", p->name,
                       " with an option that runs a program", NULL, v->via);
            sh_probe_args(cx, v, v->i + 1);
            return;
        }
    }
}
