/* shell_secrets.c - does a read-only command read a credential file?
 *
 * The original gate let `cat ~/.ssh/id_rsa` run silently (reference 12.1 #5,
 * 13 item 1): the command changes nothing, but it puts a private key into
 * the model's context, one step from exfiltration. A read-only program whose
 * argument or input names a well-known secret location is therefore "risky"
 * (asks at Normal, auto-passes at Trusted), rule bash.reads_secret. Listing
 * or measuring such a path (ls, stat, wc, test) reads no secret and stays
 * safe. Pure table lookups over the normalized word text, where ~ and $HOME
 * are a marker byte followed by 'H', so "~/.ssh/x" contains "/.ssh/". */
#include "core/shell_internal.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>

typedef enum { AT_ANYWHERE, BASENAME_IS, BASENAME_PREFIX, BASENAME_SUFFIX } where;

typedef struct {
    where at;
    const char *needle;
    const char *what;
} secret_row;

static const secret_row secret_rows[] = {
    { AT_ANYWHERE,     "/.ssh/",                "an SSH key or config" },
    { AT_ANYWHERE,     "/.gnupg/",              "a GnuPG key" },
    { AT_ANYWHERE,     "/.aws/credentials",     "AWS credentials" },
    { AT_ANYWHERE,     "/.kube/config",         "a Kubernetes credential" },
    { AT_ANYWHERE,     "/.docker/config.json",  "Docker registry credentials" },
    { AT_ANYWHERE,     "/.config/gh/hosts.yml", "a GitHub CLI token" },
    { AT_ANYWHERE,     "/.waggle/",             "waggle's own vault key or API tokens" },
    { AT_ANYWHERE,     "/etc/shadow",           "the system password hashes" },
    { AT_ANYWHERE,     "/etc/gshadow",          "the system password hashes" },
    { BASENAME_IS,     ".env",                  "an environment file with secrets" },
    { BASENAME_PREFIX, ".env.",                 "an environment file with secrets" },
    { BASENAME_IS,     ".netrc",                "stored login passwords" },
    { BASENAME_IS,     ".pgpass",               "stored PostgreSQL passwords" },
    { BASENAME_IS,     ".git-credentials",      "stored git credentials" },
    { BASENAME_IS,     ".npmrc",                "an npm token" },
    { BASENAME_IS,     ".pypirc",               "a PyPI token" },
    { BASENAME_PREFIX, "id_rsa",                "an SSH private key" },
    { BASENAME_PREFIX, "id_dsa",                "an SSH private key" },
    { BASENAME_PREFIX, "id_ecdsa",              "an SSH private key" },
    { BASENAME_PREFIX, "id_ed25519",            "an SSH private key" },
    { BASENAME_IS,     "vault.key",             "a vault key" },
    { BASENAME_IS,     "api-token",             "an API token" },
    { BASENAME_IS,     "admin-token",           "an admin token" },
    { BASENAME_SUFFIX, ".key",                  "a private key" },
};

/* The first bytes of every BASENAME_IS / BASENAME_PREFIX needle above; a
 * basename starting with anything else skips those rows (checked by the
 * assert in sh_secret_path whenever a row is tried). */
#define NAME_FIRST_BYTES ".iva"

/* Environment-file templates are meant to be read. */
static const char *const env_templates[] = {
    ".env.example", ".env.sample", ".env.template", ".env.dist", NULL,
};

/* Programs that look at a path without printing its contents. */
static const char *const metadata_only[] = {
    "ls", "dir", "stat", "test", "[", "du", "wc", "realpath", "readlink",
    "basename", "dirname", "file", NULL,
};

static int in_list(const char *s, const char *const *list)
{
    for (; *list; list++)
        if (strcmp(s, *list) == 0)
            return 1;
    return 0;
}

static int row_matches(const secret_row *r, const char *t, size_t n, const char *base)
{
    size_t bn = n - (size_t)(base - t), k = strlen(r->needle);
    switch (r->at) {
    case AT_ANYWHERE:
        /* "/.ssh/" also matches a relative ".ssh/..." at the start */
        return memmem(t, n, r->needle, k) != NULL ||
               (n >= k - 1 && memcmp(t, r->needle + 1, k - 1) == 0);
    case BASENAME_IS:
        return bn == k && memcmp(base, r->needle, k) == 0;
    case BASENAME_PREFIX:
        return bn >= k && memcmp(base, r->needle, k) == 0 && !in_list(base, env_templates);
    case BASENAME_SUFFIX:
        return bn > k && memcmp(base + bn - k, r->needle, k) == 0;
    }
    return 0;
}

/* Cheap rejects first (this runs on every argument of every read-only
 * command): path rows need a "/." or "/etc/" somewhere or a leading '.';
 * name rows need the basename's first byte in NAME_FIRST_BYTES; the one
 * suffix row needs the suffix. */
const char *sh_secret_path(const char *t, size_t n)
{
    if (n == 0)
        return NULL;
    const char *slash = memrchr(t, '/', n);
    const char *base = slash ? slash + 1 : t;
    size_t bn = n - (size_t)(base - t);
    int pathy = t[0] == '.' || (slash && (memmem(t, n, "/.", 2) || memmem(t, n, "/etc/", 5)));
    int named = bn > 0 && strchr(NAME_FIRST_BYTES, base[0]) != NULL;
    int keyish = bn > 4 && memcmp(base + bn - 4, ".key", 4) == 0;
    if (!pathy && !named && !keyish)
        return NULL;
    for (size_t i = 0; i < sizeof secret_rows / sizeof secret_rows[0]; i++) {
        const secret_row *r = &secret_rows[i];
        assert(r->at == AT_ANYWHERE || r->at == BASENAME_SUFFIX ||
               strchr(NAME_FIRST_BYTES, r->needle[0]) != NULL);
        if (r->at == AT_ANYWHERE ? !pathy
            : r->at == BASENAME_SUFFIX ? !keyish : !named || base[0] != r->needle[0])
            continue;
        if (row_matches(r, t, n, base))
            return r->what;
    }
    return NULL;
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
static const char *word_secret(const sh_cmd *c, const sh_word *w)
{
    return sh_secret_path(c->text + w->off, w->len);
}

static void report(sh_ctx *cx, const sh_view *v, const char *prog, const sh_word *w,
                   const char *what)
{
    char lead[64], shown[72];
    snprintf(lead, sizeof lead, "%s reads ", prog);
    shown_word(v->c, w, shown, sizeof shown);
    sh_verdict(cx, WG_SHELL_RISKY, "bash.reads_secret", lead, what, shown, v->via);
}

void sh_check_secret_reads(sh_ctx *cx, const sh_view *v, const char *prog)
{
    const sh_cmd *c = v->c;
    const sh_word *hit = NULL;
    const char *what = NULL;
    for (int j = v->i + 1; j < v->end && !what; j++)
        if ((what = word_secret(c, &c->w[j])))
            hit = &c->w[j];
    for (int r = 0; r < c->nr && !what; r++)
        if ((c->r[r].op == SH_R_IN || c->r[r].op == SH_R_RDWR) &&
            (what = word_secret(c, &c->r[r].target)))
            hit = &c->r[r].target;
    /* the program list is only consulted for the rare command that names a secret */
    if (what && !in_list(prog, metadata_only))
        report(cx, v, prog, hit, what);
}
