/* secrets.c - does a read-only command read a credential file?
 *
 * The original gate let `cat ~/.ssh/id_rsa` run silently (reference 12.1 #5,
 * 13 item 1): the command changes nothing, but it puts a private key into
 * the model's context, one step from exfiltration. A read-only program whose
 * argument or input names a well-known secret location is therefore "risky"
 * (asks at Normal, auto-passes at Trusted), rule bash.reads_secret. Listing
 * or measuring such a path (ls, stat, wc, test) reads no secret and stays
 * safe. Pure table lookups over the normalized word text, where ~ and $HOME
 * are a marker byte followed by 'H', so "~/.ssh/x" contains "/.ssh/". */
#include "core/shell/internal.h"
#include "core/shell/rules.h"
#include "core/shell/rules_common.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef enum { AT_ANYWHERE, BASENAME_IS, BASENAME_PREFIX, BASENAME_SUFFIX } where;

typedef struct {
    where at;
    const char *needle;
    uint8_t len;            /* strlen(needle) (sh_secret_table_ok checks it) */
    const char *what;
} secret_row;

/* Paths anywhere in the word (needles start with "/"). */
static const secret_row anywhere_rows[] = {
    { AT_ANYWHERE,     "/.ssh/", 6,                "an SSH key or config" },
    { AT_ANYWHERE,     "/.aws/", 6,                "AWS credentials" },
    { AT_ANYWHERE,     "/.azure/", 8,              "Azure tokens" },
    { AT_ANYWHERE,     "/.config/gcloud/", 16,      "Google Cloud credentials" },
    { AT_ANYWHERE,     "/.config/op/", 12,          "1Password CLI state" },
    { AT_ANYWHERE,     "/.terraform.d/credentials", 25, "Terraform Cloud tokens" },
    { AT_ANYWHERE,     "/.docker/", 9,             "Docker registry credentials" },
    { AT_ANYWHERE,     "/.kube/", 7,               "a Kubernetes credential" },
    { AT_ANYWHERE,     "/.config/gh/", 12,          "a GitHub CLI token" },
    { AT_ANYWHERE,     "/environ", 8,              "a process environment (tokens and keys)" },
    { AT_ANYWHERE,     "/.gnupg/", 8,              "a GnuPG key" },
    { AT_ANYWHERE,     "/.aws/credentials", 17,     "AWS credentials" },
    { AT_ANYWHERE,     "/.kube/config", 13,         "a Kubernetes credential" },
    { AT_ANYWHERE,     "/.docker/config.json", 20,  "Docker registry credentials" },
    { AT_ANYWHERE,     "/.config/gh/hosts.yml", 21, "a GitHub CLI token" },
    { AT_ANYWHERE,     "/.waggle/", 9,             "waggle's own vault key or API tokens" },
    { AT_ANYWHERE,     "/etc/shadow", 11,           "the system password hashes" },
    { AT_ANYWHERE,     "/etc/gshadow", 12,          "the system password hashes" },
    { AT_ANYWHERE,     "/serviceaccount/", 16,      "a Kubernetes service account token" },
    { AT_ANYWHERE,     "/secrets/", 9,              "a secrets directory (Docker, Kubernetes)" },
    { AT_ANYWHERE,     "/.cargo/credentials", 19,   "a crates.io token" },
    { AT_ANYWHERE,     "/.m2/settings.xml", 17,     "Maven repository passwords" },
    { AT_ANYWHERE,     "/.m2/settings-security.xml", 26, "Maven's master password" },
    { AT_ANYWHERE,     "/.gradle/gradle.properties", 26, "Gradle signing keys and repository tokens" },
    { AT_ANYWHERE,     "/.config/hub", 12,          "a GitHub token (hub)" },
    { AT_ANYWHERE,     "/keyrings/", 10,            "a desktop keyring (saved passwords)" },
    { AT_ANYWHERE,     "/Keychains/", 11,           "a macOS keychain (saved passwords)" },
    { AT_ANYWHERE,     "/.password-store/", 17,     "a pass password store" },
    { AT_ANYWHERE,     "/Login Data", 11,           "a browser's saved passwords" },
    { AT_ANYWHERE,     "/logins.json", 12,          "a browser's saved passwords" },
    { AT_ANYWHERE,     "/key4.db", 8,               "a browser's password key" },
};
/* Basenames, exact or prefix (first byte in NAME_FIRST_BYTES). */
static const secret_row name_rows[] = {
    { BASENAME_IS,     ".bash_history", 13,         "shell history (typed passwords and tokens)" },
    { BASENAME_IS,     ".boto", 5,                 "cloud storage credentials" },
    { BASENAME_IS,     ".env", 4,                  "an environment file with secrets" },
    { BASENAME_PREFIX, ".env.", 5,                 "an environment file with secrets" },
    { BASENAME_IS,     ".envrc", 6,                "an environment file with secrets" },
    { BASENAME_IS,     ".git-credentials", 16,      "stored git credentials" },
    { BASENAME_IS,     ".history", 8,              "shell history (typed passwords and tokens)" },
    { BASENAME_IS,     ".htpasswd", 9,             "web server password hashes" },
    { BASENAME_IS,     ".my.cnf", 7,               "stored MySQL passwords" },
    { BASENAME_IS,     ".mysql_history", 14,        "database history" },
    { BASENAME_IS,     ".netrc", 6,                "stored login passwords" },
    { BASENAME_IS,     ".netrc", 6,                "stored login passwords" },
    { BASENAME_IS,     ".npmrc", 6,                "an npm token" },
    { BASENAME_IS,     ".pgpass", 7,               "stored PostgreSQL passwords" },
    { BASENAME_IS,     ".psql_history", 13,         "database history" },
    { BASENAME_IS,     ".pypirc", 7,               "a PyPI token" },
    { BASENAME_IS,     ".python_history", 15,       "interpreter history" },
    { BASENAME_IS,     ".s3cfg", 6,                "cloud storage credentials" },
    { BASENAME_IS,     ".sh_history", 11,           "shell history (typed passwords and tokens)" },
    { BASENAME_IS,     ".vault-token", 12,          "a Vault token" },
    { BASENAME_IS,     ".zsh_history", 12,          "shell history (typed passwords and tokens)" },
    { BASENAME_IS,     "accessTokens.json", 17,     "cloud access tokens" },
    { BASENAME_IS,     "admin-token", 11,           "an admin token" },
    { BASENAME_IS,     "api-token", 9,             "an API token" },
    { BASENAME_IS,     "application_default_credentials.json", 36, "Google Cloud credentials" },
    { BASENAME_IS,     "credentials", 11,           "stored credentials" },
    { BASENAME_IS,     "credentials.db", 14,        "stored credentials" },
    { BASENAME_IS,     "credentials.json", 16,      "stored credentials" },
    { BASENAME_PREFIX, "id_dsa", 6,                "an SSH private key" },
    { BASENAME_PREFIX, "id_ecdsa", 8,              "an SSH private key" },
    { BASENAME_PREFIX, "id_ed25519", 10,            "an SSH private key" },
    { BASENAME_PREFIX, "id_rsa", 6,                "an SSH private key" },
    { BASENAME_IS,     "master.key", 10,            "an application master key" },
    { BASENAME_IS,     "msal_token_cache.json", 21, "cloud access tokens" },
    { BASENAME_IS,     "rclone.conf", 11,           "cloud storage credentials" },
    { BASENAME_PREFIX, "secrets.", 8,              "a secrets file" },
    { BASENAME_PREFIX, "service-account", 15,       "a cloud service-account key" },
    { BASENAME_IS,     "vault.key", 9,             "a vault key" },
    { BASENAME_IS,     "wp-config.php", 13,         "WordPress's database password and keys" },
};
/* [first byte] = { first row, one past the last row } of name_rows (sorted
 * by first byte; sh_secret_table_ok checks it). */
static const struct { uint8_t lo, hi; } name_first[128] = {
    ['.'] = { 0, 21 },
    ['a'] = { 21, 25 },
    ['c'] = { 25, 28 },
    ['i'] = { 28, 32 },
    ['m'] = { 32, 34 },
    ['r'] = { 34, 35 },
    ['s'] = { 35, 37 },
    ['v'] = { 37, 38 },
    ['w'] = { 38, 39 },
};
/* Basename suffixes (last byte in SUFFIX_LAST_BYTES). */
static const secret_row suffix_rows[] = {
    { BASENAME_SUFFIX, ".key", 4,                  "a private key" },
    { BASENAME_SUFFIX, "_key", 4,                  "a private key" },
    { BASENAME_SUFFIX, ".pem", 4,                  "a key or certificate bundle" },
    { BASENAME_SUFFIX, ".p12", 4,                  "a key store" },
    { BASENAME_SUFFIX, ".pfx", 4,                  "a key store" },
    { BASENAME_SUFFIX, ".tfstate", 8,              "Terraform state (secrets in plain text)" },
    { BASENAME_SUFFIX, ".tfstate.backup", 15,       "Terraform state (secrets in plain text)" },
    { BASENAME_SUFFIX, "_history", 8,              "a shell, database or REPL history (typed passwords and tokens)" },
    { BASENAME_SUFFIX, "credentials.json", 16,      "stored credentials" },
};

/* The first bytes of every BASENAME_IS / BASENAME_PREFIX needle above; a
 * basename starting with anything else skips those rows (checked by the
 * assert in sh_secret_path whenever a row is tried). */
#define NAME_FIRST_BYTES ".acimrsvw"
/* The last bytes of every BASENAME_SUFFIX needle. */
#define SUFFIX_LAST_BYTES "ymp2xen"

/* Environment-file templates are meant to be read. */
static const char *const env_templates[] = {
    ".env.example", ".env.sample", ".env.template", ".env.dist", NULL,
};

/* Public files in ~/.ssh and ~/.aws: meant to be read. */
static const char *const public_names[] = {
    "known_hosts", "known_hosts.old", "config", "authorized_keys", "authorized_keys2", NULL,
};

/* Programs that look at a path without printing its contents. */
static const char *const metadata_only[] = {
    "ls", "dir", "stat", "test", "[", "du", "wc", "realpath", "readlink",
    "basename", "dirname", "file", "test-path", "get-childitem", NULL,
};

static int in_list(const char *s, const char *const *list)
{
    for (; *list; list++)       /* first bytes first: most names match no row */
        if ((*list)[0] == s[0] && sh_streq(s, *list))
            return 1;
    return 0;
}

static int row_matches(const secret_row *r, const char *t, size_t n, const char *base)
{
    size_t bn = n - (size_t)(base - t), k = r->len;
    switch (r->at) {
    case AT_ANYWHERE:
        /* "/.ssh/" also matches a relative ".ssh/..." at the start, and a
         * directory named at the end ("grep -r x ~/.ssh") */
        if (memmem(t, n, r->needle, k) != NULL || (n >= k - 1 && memcmp(t, r->needle + 1, k - 1) == 0))
            return 1;
        return r->needle[k - 1] == '/' && n >= k - 1 && memcmp(t + n - (k - 1), r->needle, k - 1) == 0;
    case BASENAME_IS:
        return bn == k && memcmp(base, r->needle, k) == 0;
    case BASENAME_PREFIX:
        return bn >= k && memcmp(base, r->needle, k) == 0 && !in_list(base, env_templates);
    case BASENAME_SUFFIX:
        return bn > k && memcmp(base + bn - k, r->needle, k) == 0 &&
               !(bn >= 4 && memcmp(base + bn - 4, ".pub", 4) == 0);
    }
    return 0;
}

/* Cheap rejects first (this runs on every argument of every read-only
 * command): one pass over the word finds its basename and whether a path
 * row can match (a "/." or "/e" in it, or a leading ".x"); name rows need
 * the basename's first byte in NAME_FIRST_BYTES, suffix rows its last byte
 * in SUFFIX_LAST_BYTES. Each kind has its own short table. */
static int is_public(const char *base, size_t bn)
{
    return in_list(base, public_names) || (bn > 4 && memcmp(base + bn - 4, ".pub", 4) == 0);
}

/* The second byte of every anywhere needle ("/.ssh/" -> '.'): a path
 * segment starting with anything else skips the table (sh_secret_table_ok
 * checks it). */
static int anywhere_first(char c)
{
    return c == '.' || c == 'e' || c == 's' || c == 'k' || c == 'K' || c == 'l' || c == 'L';
}

/* The first path row found in t: its needle ("/.ssh/") after a '/' of t,
 * its tail (".ssh/") at the start of a relative t, or a needle's directory
 * ending t ("~/.ssh"). Each segment start of t is compared once per row,
 * first bytes first: linear in t, no memmem. */
static const secret_row *anywhere_match(const char *t, size_t n)
{
    for (size_t s = 0; s < n; s++) {
        if (s > 0 && t[s - 1] != '/')
            continue;
        if (!anywhere_first(t[s]))
            continue;
        size_t left = n - s;
        for (size_t i = 0; i < sizeof anywhere_rows / sizeof anywhere_rows[0]; i++) {
            const char *nd = anywhere_rows[i].needle + 1;
            size_t k = anywhere_rows[i].len - 1u;
            if (nd[0] != t[s] || (left > 1 && nd[1] != t[s + 1]))
                continue;
            if (left >= k && memcmp(t + s, nd, k) == 0)
                return &anywhere_rows[i];
            if (s > 0 && nd[k - 1] == '/' && left == k - 1 && memcmp(t + s, nd, k - 1) == 0)
                return &anywhere_rows[i];
        }
    }
    return NULL;
}

const char *sh_secret_path(const char *t, size_t n)
{
    if (n == 0)
        return NULL;
    const char *base = t;
    int pathy = t[0] == '.' && n > 1 && t[1] != '/' && t[1] != '.';
    for (size_t i = 0; i + 1 < n; i++)
        if (t[i] == '/') {
            base = t + i + 1;
            pathy |= anywhere_first(t[i + 1]);
        }
    if (t[n - 1] == '/')
        base = t + n;
    size_t bn = n - (size_t)(base - t);
    if (pathy) {
        const secret_row *hit = anywhere_match(t, n);
        if (hit) {
            const char *nd = hit->needle;
            if ((nd[2] == 's' || nd[2] == 'a') && bn > 0 && is_public(base, bn))
                return NULL;            /* ~/.ssh/known_hosts, id_rsa.pub, ~/.aws/config */
            return hit->what;
        }
    }
    if (bn == 0)
        return NULL;
    unsigned char b0 = (unsigned char)base[0];
    if (b0 < 128)
        for (size_t i = name_first[b0].lo; i < name_first[b0].hi; i++) {
            const secret_row *r = &name_rows[i];
            /* the basename's length and second byte first: a row never
             * matches a shorter name (exact rows only their own length) */
            if (bn < r->len || (r->at == BASENAME_IS && bn != r->len) || base[1] != r->needle[1])
                continue;
            if (row_matches(r, t, n, base))
                return r->what;
        }
    if (bn > 3 && strchr(SUFFIX_LAST_BYTES, base[bn - 1]))
        for (size_t i = 0; i < sizeof suffix_rows / sizeof suffix_rows[0]; i++)
            if (row_matches(&suffix_rows[i], t, n, base))
                return suffix_rows[i].what;
    return NULL;
}

static int lens_ok(const secret_row *rows, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strlen(rows[i].needle) != rows[i].len)
            return 0;
    return 1;
}

int sh_secret_table_ok(void)
{
    if (!lens_ok(anywhere_rows, sizeof anywhere_rows / sizeof anywhere_rows[0]) ||
        !lens_ok(name_rows, sizeof name_rows / sizeof name_rows[0]) ||
        !lens_ok(suffix_rows, sizeof suffix_rows / sizeof suffix_rows[0]))
        return 0;
    for (size_t i = 0; i < sizeof name_rows / sizeof name_rows[0]; i++) {
        unsigned char b0 = (unsigned char)name_rows[i].needle[0];
        if ((name_rows[i].at != BASENAME_IS && name_rows[i].at != BASENAME_PREFIX) ||
            name_rows[i].len < 2 ||     /* sh_secret_path looks at the second byte first */
            !strchr(NAME_FIRST_BYTES, name_rows[i].needle[0]) || b0 >= 128 ||
            i < name_first[b0].lo || i >= name_first[b0].hi)
            return 0;
    }
    for (size_t i = 0; i < sizeof suffix_rows / sizeof suffix_rows[0]; i++) {
        size_t k = strlen(suffix_rows[i].needle);
        if (suffix_rows[i].at != BASENAME_SUFFIX || k < 2 ||
            !strchr(SUFFIX_LAST_BYTES, suffix_rows[i].needle[k - 1]))
            return 0;
    }
    for (size_t i = 0; i < sizeof anywhere_rows / sizeof anywhere_rows[0]; i++) {
        const char *nd = anywhere_rows[i].needle;
        /* a path row is tried only for segments anywhere_first accepts */
        if (anywhere_rows[i].at != AT_ANYWHERE || nd[0] != '/' ||
            !anywhere_first(nd[1]))
            return 0;
    }
    return 1;
}

/* ": <source spelling>" of a word for the reason text, control bytes shown
 * as '?', cut to fit cap. */
static void shown_word(const sh_cmd *c, const sh_word *w, char *buf, size_t cap)
{
    size_t n = w->raw_len < cap - 3 ? w->raw_len : cap - 3;
    buf[0] = ':';
    buf[1] = ' ';
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)c->src[w->raw_off + i];
        buf[2 + i] = (ch < 0x20 || ch == 0x7f) ? '?' : (char)ch;
    }
    buf[2 + n] = '\0';
}

/* The secret a word names, or NULL. */
/* A Windows spelling as written (bash has eaten its backslashes:
 * %USERPROFILE%\.aws\credentials, "$env:USERPROFILE\.ssh\id_rsa"): read
 * again with '/' for '\\' and quotes dropped. */
static const char *windows_secret(const char *raw, size_t n)
{
    char buf[256];
    size_t k = 0;
    for (size_t i = 0; i < n && k < sizeof buf; i++)
        if (raw[i] != '"' && raw[i] != '\'')
            buf[k++] = raw[i] == '\\' ? '/' : raw[i];
    return sh_secret_path(buf, k);
}

static const char *word_secret(const sh_cmd *c, const sh_word *w)
{
    const char *t = c->text + w->off;
    if (t[0] == '-') {
        /* an option names no file, unless it carries one: --file=PATH
         * (looked for inline: most options are a few bytes) */
        for (size_t i = 1; i < w->len; i++)
            if (t[i] == '=')
                return sh_secret_path(t + i + 1, w->len - i - 1);
        return NULL;
    }
    const char *what = sh_secret_path(t, w->len);
    /* raw == normalized (most words): no backslash was eaten */
    if (!what && w->raw_len != w->len && w->raw_len < 256 && memchr(c->src + w->raw_off, '\\', w->raw_len))
        what = windows_secret(c->src + w->raw_off, w->raw_len);
    return what;
}

static void report(sh_ctx *cx, const sh_view *v, const char *prog, const sh_word *w,
                   const char *what)
{
    char lead[64], shown[72];
    snprintf(lead, sizeof lead, "%s reads ", prog);
    shown_word(v->c, w, shown, sizeof shown);
    sh_verdict(cx, WG_SHELL_RISKY, "bash.reads_secret", lead, what, shown, v->via);
}

/* ---- recursive searches of a directory that holds credentials ----------
 * `grep -r password ~` names no secret file, yet reads every one under the
 * home directory. A recursive reader (grep -r, rg, ag, ack, tar c) whose
 * operand is a directory known to hold credentials reads them. */

/* Directories that hold credential files below them, as normalized text
 * with trailing slashes removed; "*" is one path component. */
static const char *const secret_holders[] = {
    "\x01H", "\x01U", "\x01H/.config", "\x01H/.local", "\x01H/.local/share", "\x01H/.cache",
    "", "/root", "/home", "/home/*", "/Users", "/Users/*", "/etc", "/var/lib", "/proc",
};

static int holder_matches(const char *pat, const char *t, size_t n)
{
    size_t i = 0;
    for (; *pat; pat++) {
        if (*pat == '*') {
            size_t k = i;
            while (k < n && t[k] != '/')
                k++;
            if (k == i)
                return 0;
            i = k;
        } else if (i >= n || t[i++] != *pat) {
            return 0;
        }
    }
    return i == n;
}

/* The word names the file system root, a home directory or another
 * directory of secret_holders (trailing "/" and "/." ignored). */
int sh_holds_secrets(const char *t, size_t n)
{
    for (;;) {
        if (n > 0 && t[n - 1] == '/')
            n--;
        else if (n > 1 && t[n - 1] == '.' && t[n - 2] == '/')
            n -= 2;
        else
            break;
    }
    for (size_t i = 0; i < sizeof secret_holders / sizeof *secret_holders; i++)
        if (holder_matches(secret_holders[i], t, n))
            return 1;
    return 0;
}

/* Does prog read the directories it is given file by file? */
static int reads_recursively(const sh_cmd *c, const sh_view *v, const char *prog)
{
    static const char *const always[] = { "rg", "ag", "ack", "ack-grep", NULL };
    static const char *const greps[] = { "grep", "egrep", "fgrep", "zgrep", "ugrep", NULL };
    if (in_list(prog, always))
        return 1;
    int grep = in_list(prog, greps), tar = sh_streq(prog, "tar") || sh_streq(prog, "bsdtar");
    if (!grep && !tar)
        return 0;
    for (int j = v->i + 1; j < v->end; j++) {
        const char *t = sh_wtext(c, j);
        if (sh_weq(c, j, "--"))
            break;
        if (grep && (short_has(t, 'r') || short_has(t, 'R') || sh_weq(c, j, "--recursive") ||
                     sh_weq(c, j, "--dereference-recursive") || sh_weq(c, j, "--directories=recurse") ||
                     (sh_weq(c, j, "recurse") && j > v->i + 1 && sh_weq(c, j - 1, "-d"))))
            return 1;
        /* tar c / -c / -czf / --create: every file under each operand goes in */
        if (tar && (sh_weq(c, j, "--create") || (j == v->i + 1 && t[0] && t[0] != '-' && strchr(t, 'c')) ||
                    short_has(t, 'c')))
            return 1;
    }
    return 0;
}

static void check_recursive_reads(sh_ctx *cx, const sh_view *v, const char *prog)
{
    const sh_cmd *c = v->c;
    if (!reads_recursively(c, v, prog))
        return;
    for (int j = v->i + 1; j < v->end; j++) {
        const sh_word *w = &c->w[j];
        const char *t = c->text + w->off;
        if (w->len > 0 && t[0] != '-' && sh_holds_secrets(t, w->len)) {
            report(cx, v, prog, w, "every file under a directory that holds credentials");
            return;
        }
    }
}

/* $AWS_SECRET_ACCESS_KEY, ${GITHUB_TOKEN}: a variable whose name says it
 * holds a secret, printed into the model's context. */
static int secret_var_word(const sh_cmd *c, const sh_word *w)
{
    static const char *const parts[] = {
        "TOKEN", "SECRET", "PASSWORD", "PASSWD", "API_KEY", "APIKEY", "ACCESS_KEY", "PRIVATE_KEY",
        "CREDENTIAL", "AUTH",
    };
    const char *raw = c->src + w->raw_off;
    size_t n = w->raw_len;
    const char *d = memchr(raw, '$', n);
    if (!d)
        return 0;
    for (size_t i = 0; i < sizeof parts / sizeof *parts; i++)
        if (memmem(d, n - (size_t)(d - raw), parts[i], strlen(parts[i])))
            return 1;
    return 0;
}

static int secret_var_name(const char *t, size_t n)
{
    static const char *const parts[] = {
        "TOKEN", "SECRET", "PASSWORD", "PASSWD", "API_KEY", "APIKEY", "ACCESS_KEY", "PRIVATE_KEY",
        "CREDENTIAL",
    };
    for (size_t i = 0; i < sizeof parts / sizeof *parts; i++)
        if (memmem(t, n, parts[i], strlen(parts[i])))
            return 1;
    return 0;
}

void sh_check_secret_path(sh_ctx *cx, const sh_view *v, const char *prog, const char *t, size_t n)
{
    const char *what = sh_secret_path(t, n);
    if (what)
        sh_verdict(cx, WG_SHELL_RISKY, "bash.reads_secret", prog, " reads ", what, v->via);
}

void sh_check_secret_reads(sh_ctx *cx, const sh_view *v, const char *prog)
{
    const sh_cmd *c = v->c;
    const sh_word *hit = NULL;
    const char *what = NULL;
    for (int j = v->i + 1; j < v->end && !what; j++) {
        const sh_word *w = &c->w[j];
        if (w->len > 14 && memcmp(c->text + w->off, "--files0-from=", 14) == 0) {
            if ((what = sh_secret_path(c->text + w->off + 14, w->len - 14))) {
                report(cx, v, prog, w, what);      /* names read from a secret file */
                return;
            }
        } else if ((what = word_secret(c, w))) {
            hit = w;
        } else if ((w->flags & SH_W_EXP) && secret_var_word(c, w)) {
            report(cx, v, prog, w, "a variable that holds a secret");
            return;
        }
    }
    for (int r = 0; r < c->nr && !what; r++)
        if ((c->r[r].op == SH_R_IN || c->r[r].op == SH_R_RDWR) &&
            (what = word_secret(c, &c->r[r].target)))
            hit = &c->r[r].target;
    /* the program list is only consulted for the rare command that names a secret */
    if (what && !in_list(prog, metadata_only))
        report(cx, v, prog, hit, what);
    else if (!what && v->i + 1 < v->end)
        check_recursive_reads(cx, v, prog);     /* it reports an operand: none, nothing to do */
}

/* printenv, set, ps e, jq env: print the environment (tokens, keys). */
void sh_rule_envdump(sh_ctx *cx, const sh_view *v, const sh_program *p)
{
    const sh_cmd *c = v->c;
    const char *prog = p->name;
    int dump = 0;
    if (strcmp(prog, "printenv") == 0) {
        /* printenv alone prints every variable, tokens and keys among them
         * (issue #10 §2 names it; reference vector 12.1 #6 changed to ask,
         * docs/gate.md); printenv TOKEN prints a secret, printenv HOME not */
        int operands = 0, opts = 0;
        for (int j = v->i + 1; j < v->end; j++) {
            const char *t = c->text + c->w[j].off;
            dump |= secret_var_name(t, c->w[j].len);
            if (t[0] == '-' && strcmp(t, "--help") != 0 && strcmp(t, "--version") != 0)
                opts++;
            else
                operands++;
        }
        dump |= operands == 0;                  /* printenv, printenv -0: every variable */
    } else if (strcmp(prog, "compgen") == 0) {
        /* compgen -v | while read v; do echo "$v=${!v}"; done: the names of
         * every variable handed on to a loop that prints their values */
        int vars = 0;
        for (int j = v->i + 1; j < v->end; j++) {
            const char *t = c->text + c->w[j].off;
            vars |= (t[0] == '-' && t[1] != '-' && strpbrk(t + 1, "ve")) ||
                    ((strcmp(t, "variable") == 0 || strcmp(t, "export") == 0) && j > v->i + 1 &&
                     strcmp(c->text + c->w[j - 1].off, "-A") == 0);
        }
        dump = vars && (c->piped_out || (v->via && (strcmp(v->via, "inside $(...)") == 0 ||
                                                    strcmp(v->via, "inside `...`") == 0)));
    } else if (strcmp(prog, "set") == 0) {
        dump = v->end - v->i == 1;
    } else if (strcmp(prog, "ps") == 0) {
        /* BSD options without a dash: e shows every process's environment */
        for (int j = v->i + 1; j < v->end; j++) {
            const char *t = c->text + c->w[j].off;
            if ((t[0] != '-' && strchr(t, 'e') && strspn(t, "aAcCeEfhjlLmMrsSTuvwxXZ") == strlen(t)) ||
                strcmp(t, "-E") == 0)
                dump = 1;
        }
    } else if (strcmp(prog, "jq") == 0) {
        for (int j = v->i + 1; j < v->end; j++) {
            const char *t = c->text + c->w[j].off;
            size_t n = c->w[j].len;
            const char *e = memmem(t, n, "env", 3);
            if (memmem(t, n, "$ENV", 4) ||
                (e && (e == t || !((e[-1] >= 'a' && e[-1] <= 'z') || e[-1] == '_' || e[-1] == '"')) &&
                 !((e[3] >= 'a' && e[3] <= 'z') || e[3] == '_')))
                dump = 1;
        }
    }
    if (dump)
        sh_env_dump(cx, v, prog, " prints the environment (tokens and keys in it)");
}
