/* trust.c - assessTrust, classifyRisk, resolveTrustSource and
 * formatTrustSummary (spec 5; original-facts 4).
 *
 * Pure: the only state is the compiled pattern table on the handle.
 * The pattern sets are our own (original-facts 13 item 21): case-insensitive,
 * word-bounded, `.env` on its own detected, and "automation" or "deploy"
 * alone no longer count - they need a browser or a deployment target.
 */
#include "waggle/trust.h"
#include "waggle/error.h"
#include "core/trust_internal.h"

#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    wg_permission perm;
    const char *regex;
} pattern_row;

/* One row per phrase; the first matching row of a permission is its
 * evidence. All rows are compiled PCRE2_CASELESS. */
static const pattern_row PATTERNS[] = {
    /* FS_PATTERNS */
    { WG_PERM_FILE_SYSTEM, "\\b(?:read|write|edit|delete)_file\\b" },
    { WG_PERM_FILE_SYSTEM, "\\bsearch_files\\b" },
    { WG_PERM_FILE_SYSTEM, "\\bfile\\s*system\\b" },
    { WG_PERM_FILE_SYSTEM, "\\bfs\\.[a-z]+" },
    { WG_PERM_FILE_SYSTEM, "\\b(?:read|write)File(?:Sync)?\\b" },
    { WG_PERM_FILE_SYSTEM, "\\bopen\\(" },
    { WG_PERM_FILE_SYSTEM, "\\b(?:save|write)\\s+(?:it\\s+|them\\s+|the\\s+\\w+\\s+)?to\\s+(?:a\\s+)?(?:file|disk)\\b" },
    { WG_PERM_FILE_SYSTEM, "\\b(?:delete|remove|overwrite)\\s+(?:the\\s+)?files?\\b" },
    /* NET_PATTERNS */
    { WG_PERM_NETWORK, "\\bweb_(?:search|fetch)\\b" },
    { WG_PERM_NETWORK, "\\bfetch\\(" },
    { WG_PERM_NETWORK, "\\b(?:curl|wget)\\b" },
    { WG_PERM_NETWORK, "\\bhttps?://" },
    { WG_PERM_NETWORK, "\\bapi\\s+calls?\\b" },
    { WG_PERM_NETWORK, "\\brest\\s+api\\b" },
    { WG_PERM_NETWORK, "\\bwebhooks?\\b" },
    { WG_PERM_NETWORK, "\\brequest\\(" },
    { WG_PERM_NETWORK, "\\baxios\\b" },
    { WG_PERM_NETWORK, "\\bdownload(?:s|ed|ing)?\\s+(?:[\\w-]+\\s+){0,3}?from\\b" },
    /* EXEC_PATTERNS */
    { WG_PERM_CODE_EXECUTION, "\\bbash\\b" },
    { WG_PERM_CODE_EXECUTION, "\\b(?:exec|spawn|eval|system)\\(" },
    { WG_PERM_CODE_EXECUTION, "\\bchild_process\\b" },
    { WG_PERM_CODE_EXECUTION, "\\bsubprocess\\b" },
    { WG_PERM_CODE_EXECUTION, "\\b(?:run|execute|open|use|in)\\s+(?:a\\s+|the\\s+)?(?:shell|terminal)\\b" },
    { WG_PERM_CODE_EXECUTION, "\\b(?:shell|terminal)\\s+(?:commands?|scripts?|access|sessions?)\\b" },
    { WG_PERM_CODE_EXECUTION, "\\brun\\s+(?:a\\s+|the\\s+|shell\\s+)?commands?\\b" },
    { WG_PERM_CODE_EXECUTION, "\\bexecute\\s+(?:a\\s+|the\\s+)?(?:scripts?|code|commands?)\\b" },
    { WG_PERM_CODE_EXECUTION, "\\bspawn_agent\\b" },
    /* EXT_SERVICE_PATTERNS */
    { WG_PERM_EXTERNAL_SERVICES, "\\bsend\\s+(?:an?\\s+|the\\s+)?(?:e-?mails?|messages?|notifications?|sms)\\b" },
    { WG_PERM_EXTERNAL_SERVICES, "\\be-?mail\\s+(?:it|them|the\\s+[\\w-]+)\\s+to\\b" },
    { WG_PERM_EXTERNAL_SERVICES, "\\b(?:slack|github|gitlab|jira|smtp|gmail|outlook)\\b" },
    { WG_PERM_EXTERNAL_SERVICES, "\\bpost\\s+(?:it\\s+|them\\s+)?to\\b" },
    { WG_PERM_EXTERNAL_SERVICES, "\\bpush\\s+notifications?\\b" },
    { WG_PERM_EXTERNAL_SERVICES, "\\bdeploy(?:s|ed|ing|ment)?\\s+(?:[\\w-]+\\s+){0,3}?to\\s+\\w" },
    { WG_PERM_EXTERNAL_SERVICES, "\\bpublish(?:es|ed|ing)?\\s+(?:[\\w-]+\\s+){0,3}?to\\s+\\w" },
    { WG_PERM_EXTERNAL_SERVICES, "\\bupload(?:s|ed|ing)?\\b" },
    /* SECRET_PATTERNS */
    { WG_PERM_SECRETS, "\\bapi[ _-]?keys?\\b" },
    { WG_PERM_SECRETS, "\\bsecrets?\\b" },
    { WG_PERM_SECRETS, "\\bpasswords?\\b" },
    { WG_PERM_SECRETS, "\\bcredentials?\\b" },
    { WG_PERM_SECRETS, "\\btokens?\\b" },
    { WG_PERM_SECRETS, "\\boauth2?\\b" },
    { WG_PERM_SECRETS, "\\bauth\\b" },
    { WG_PERM_SECRETS, "\\.env\\b" },
    { WG_PERM_SECRETS, "\\benv\\b[^\\n]*\\bkeys?\\b" },
    { WG_PERM_SECRETS, "\\b(?:private|ssh)[_ -]keys?\\b" },
    { WG_PERM_SECRETS, "\\bid_(?:rsa|ed25519)\\b" },
    /* BROWSER_PATTERNS */
    { WG_PERM_BROWSER_AUTOMATION, "\\b(?:browser|web)\\s+automation\\b" },
    { WG_PERM_BROWSER_AUTOMATION, "\\bautomat(?:e|es|ed|ing)\\s+(?:the\\s+|a\\s+)?(?:web\\s+)?browsers?\\b" },
    { WG_PERM_BROWSER_AUTOMATION, "\\b(?:control|drive|launch)\\s+(?:a\\s+|the\\s+)?(?:web\\s+)?browsers?\\b" },
    { WG_PERM_BROWSER_AUTOMATION, "\\bbrowser_[a-z_]+\\b" },
    { WG_PERM_BROWSER_AUTOMATION, "\\b(?:playwright|puppeteer|selenium|headless)\\b" },
    { WG_PERM_BROWSER_AUTOMATION, "\\bchrom(?:e|ium)\\b" },
    { WG_PERM_BROWSER_AUTOMATION, "\\bscreenshots?\\b" },
};
enum { N_PATTERNS = sizeof PATTERNS / sizeof PATTERNS[0] };

/* One compiled regex per row. Measured (bench/trust_bench.c): separate
 * rows keep PCRE2's start-of-match optimisations and beat one alternation
 * per permission, with or without the JIT. */
struct wg_trust {
    pcre2_code *code[N_PATTERNS];
};

size_t wg_trust__pattern_count(void)
{
    return N_PATTERNS;
}

const char *wg_trust__pattern(size_t i, int *perm)
{
    if (i >= N_PATTERNS)
        return NULL;
    if (perm)
        *perm = PATTERNS[i].perm;
    return PATTERNS[i].regex;
}

typedef struct {
    const char *key;      /* PermissionSummary key */
    const char *label;    /* display name */
    int points;           /* PERMISSION_RISK_POINTS */
    wg_risk_factor factor;
} permission_row;

static const permission_row PERMISSIONS[WG_PERM_COUNT] = {
    [WG_PERM_FILE_SYSTEM]        = { "fileSystem", "file system", 1, WG_FACTOR_FILESYSTEM_ACCESS },
    [WG_PERM_NETWORK]            = { "network", "network", 1, WG_FACTOR_NETWORK_ACCESS },
    [WG_PERM_CODE_EXECUTION]     = { "codeExecution", "code execution", 2, WG_FACTOR_LOCAL_CODE_EXECUTION },
    [WG_PERM_EXTERNAL_SERVICES]  = { "externalServices", "external services", 1, WG_FACTOR_EXTERNAL_SERVICE_ACCESS },
    [WG_PERM_SECRETS]            = { "secrets", "secrets/credentials", 2, WG_FACTOR_SECRET_ACCESS },
    [WG_PERM_BROWSER_AUTOMATION] = { "browserAutomation", "browser automation", 1, WG_FACTOR_BROWSER_AUTOMATION },
};

typedef struct {
    const char *name;
    const char *label;
    int points;   /* SOURCE_RISK_POINTS */
} source_row;

static const source_row SOURCES[WG_TRUST_SOURCE_COUNT] = {
    [WG_TRUST_SOURCE_BUILTIN]                = { "builtin", "Built-in Waggle capability", 0 },
    [WG_TRUST_SOURCE_STARTER_PACK]           = { "starter_pack", "Waggle curated starter pack", 0 },
    [WG_TRUST_SOURCE_LOCAL_USER]             = { "local_user", "Locally created or installed", 1 },
    [WG_TRUST_SOURCE_THIRD_PARTY_VERIFIED]   = { "third_party_verified", "Verified third-party source", 2 },
    [WG_TRUST_SOURCE_THIRD_PARTY_UNVERIFIED] = { "third_party_unverified", "Unverified third-party source", 4 },
    [WG_TRUST_SOURCE_UNKNOWN]                = { "unknown", "Unknown source", 5 },
};

/* resolveTrustSource by source string (exact, case-sensitive: an odd
 * spelling is unknown, the most cautious answer). */
static const struct { const char *source; wg_trust_source trust; } SOURCE_MAP[] = {
    { "native-tools",         WG_TRUST_SOURCE_BUILTIN },
    { "starter-pack",         WG_TRUST_SOURCE_STARTER_PACK },
    { "installed",            WG_TRUST_SOURCE_LOCAL_USER },
    { "user-created",         WG_TRUST_SOURCE_LOCAL_USER },
    { "third-party-verified", WG_TRUST_SOURCE_THIRD_PARTY_VERIFIED },
    { "third-party",          WG_TRUST_SOURCE_THIRD_PARTY_UNVERIFIED },
    /* A marketplace pack or MCP server is third-party content whose
     * publisher we have not verified; the original fell through to
     * unknown and scored every one of them high/critical. */
    { "marketplace",          WG_TRUST_SOURCE_THIRD_PARTY_UNVERIFIED },
    { "mcp",                  WG_TRUST_SOURCE_THIRD_PARTY_UNVERIFIED },
};

static const char *const FACTOR_NAMES[WG_FACTOR_COUNT] = {
    [WG_FACTOR_LOCAL_CODE_EXECUTION]    = "local_code_execution",
    [WG_FACTOR_FILESYSTEM_ACCESS]       = "filesystem_access",
    [WG_FACTOR_NETWORK_ACCESS]          = "network_access",
    [WG_FACTOR_EXTERNAL_SERVICE_ACCESS] = "external_service_access",
    [WG_FACTOR_SECRET_ACCESS]           = "secret_access",
    [WG_FACTOR_BROWSER_AUTOMATION]      = "browser_automation",
    [WG_FACTOR_UNKNOWN_SOURCE]          = "unknown_source",
    [WG_FACTOR_MISSING_METADATA]        = "missing_metadata",
    [WG_FACTOR_UNVERIFIED_PUBLISHER]    = "unverified_publisher",
};

static const char *const MODE_NAMES[] = { "declared", "heuristic", "mixed" };

/* ---- names and tables ---------------------------------------------------- */

const char *wg_trust_source_name(wg_trust_source s)
{
    return (unsigned)s < WG_TRUST_SOURCE_COUNT ? SOURCES[s].name : "unknown";
}

const char *wg_trust_source_label(wg_trust_source s)
{
    return (unsigned)s < WG_TRUST_SOURCE_COUNT ? SOURCES[s].label : "unknown";
}

const char *wg_permission_key(wg_permission p)
{
    return (unsigned)p < WG_PERM_COUNT ? PERMISSIONS[p].key : "unknown";
}

const char *wg_permission_label(wg_permission p)
{
    return (unsigned)p < WG_PERM_COUNT ? PERMISSIONS[p].label : "unknown";
}

const char *wg_risk_factor_name(wg_risk_factor f)
{
    return (unsigned)f < WG_FACTOR_COUNT ? FACTOR_NAMES[f] : "unknown";
}

const char *wg_assessment_mode_name(wg_assessment_mode m)
{
    return (unsigned)m <= WG_ASSESS_MIXED ? MODE_NAMES[m] : "unknown";
}

int wg_permission_parse(wg_permission *out, const char *key)
{
    for (int i = 0; key && i < WG_PERM_COUNT; i++) {
        if (strcmp(PERMISSIONS[i].key, key) == 0) {
            *out = (wg_permission)i;
            return 0;
        }
    }
    return wg_error_set(WG_EINVAL, "unknown permission \"%s\" (expected fileSystem, "
                        "network, codeExecution, externalServices, secrets or "
                        "browserAutomation)", key ? key : "(null)");
}

int wg_trust_source_points(wg_trust_source s)
{
    return (unsigned)s < WG_TRUST_SOURCE_COUNT ? SOURCES[s].points
                                               : SOURCES[WG_TRUST_SOURCE_UNKNOWN].points;
}

int wg_trust_permission_points(wg_permission p)
{
    return (unsigned)p < WG_PERM_COUNT ? PERMISSIONS[p].points : 0;
}

wg_trust_source wg_trust_resolve_source(const char *type, const char *source)
{
    if (type && strcmp(type, "native") == 0)
        return WG_TRUST_SOURCE_BUILTIN;
    for (size_t i = 0; source && i < sizeof SOURCE_MAP / sizeof SOURCE_MAP[0]; i++)
        if (strcmp(SOURCE_MAP[i].source, source) == 0)
            return SOURCE_MAP[i].trust;
    return WG_TRUST_SOURCE_UNKNOWN;
}

wg_risk_level wg_trust_classify(int points)
{
    if (points <= WG_TRUST_LOW_MAX_POINTS)
        return WG_RISK_LOW;
    if (points <= WG_TRUST_MEDIUM_MAX_POINTS)
        return WG_RISK_MEDIUM;
    return WG_RISK_HIGH;
}

/* ---- the handle ---------------------------------------------------------- */

void wg_trust_free(wg_trust *t)
{
    if (!t)
        return;
    for (int i = 0; i < N_PATTERNS; i++)
        pcre2_code_free(t->code[i]);
    free(t);
}

int wg_trust_new(wg_trust **out)
{
    return wg_trust__new(out, 1);
}

int wg_trust__new(wg_trust **out, int use_jit)
{
    wg_trust *t = calloc(1, sizeof *t);
    if (!t)
        return wg_error_set(WG_ENOMEM, "out of memory");
    for (int i = 0; i < N_PATTERNS; i++) {
        int err;
        PCRE2_SIZE off;
        t->code[i] = pcre2_compile((PCRE2_SPTR)PATTERNS[i].regex, PCRE2_ZERO_TERMINATED,
                                   PCRE2_CASELESS, &err, &off, NULL);
        if (!t->code[i]) {
            wg_trust_free(t);
            return wg_error_set(WG_EINTERNAL, "trust pattern %d does not compile at %zu",
                                i, (size_t)off);
        }
        /* No JIT on this CPU is fine: pcre2_match falls back to the
         * interpreter with the same results. */
        if (use_jit)
            (void)pcre2_jit_compile(t->code[i], PCRE2_JIT_COMPLETE);
    }
    *out = t;
    return 0;
}

/* Copies a matched phrase for display: control bytes become spaces and
 * non-ASCII bytes '?', so evidence is always printable, valid UTF-8 and
 * safe to put in JSON or a terminal. */
static void copy_evidence(char dst[WG_TRUST_EVIDENCE_MAX], const char *src, size_t n)
{
    if (n > WG_TRUST_EVIDENCE_MAX - 1)
        n = WG_TRUST_EVIDENCE_MAX - 1;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)src[i];
        dst[i] = (c < 0x20 || c == 0x7f) ? ' ' : c >= 0x80 ? '?' : (char)c;
    }
    dst[n] = '\0';
}

int wg_trust_detect(int perms[WG_PERM_COUNT],
                    char evidence[WG_PERM_COUNT][WG_TRUST_EVIDENCE_MAX],
                    const wg_trust *t, const char *content, size_t len)
{
    if (!t || !perms)
        return wg_error_set(WG_EINVAL, "wg_trust_detect: NULL argument");
    for (int p = 0; p < WG_PERM_COUNT; p++) {
        perms[p] = 0;
        if (evidence)
            evidence[p][0] = '\0';
    }
    if (!content || len == 0)
        return 0;
    pcre2_match_data *md = pcre2_match_data_create(1, NULL);
    if (!md)
        return wg_error_set(WG_ENOMEM, "out of memory");
    int rc = 0;
    for (int i = 0; i < N_PATTERNS; i++) {
        wg_permission p = PATTERNS[i].perm;
        if (perms[p])
            continue;
        int m = pcre2_match(t->code[i], (PCRE2_SPTR)content, len, 0, 0, md, NULL);
        if (m == PCRE2_ERROR_NOMATCH)
            continue;
        if (m < 0) {
            /* A matcher failure (limits) must not read as "no permission":
             * report it so the caller fails closed. */
            rc = wg_error_set(WG_EINTERNAL, "permission matcher failed (%d)", m);
            break;
        }
        PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
        perms[p] = 1;
        if (evidence)
            copy_evidence(evidence[p], content + ov[0], ov[1] - ov[0]);
    }
    pcre2_match_data_free(md);
    return rc;
}

/* ---- assessTrust --------------------------------------------------------- */

/* "file system, network" for the active permissions, in key order. */
static size_t permission_list(char *buf, size_t cap, const int perms[WG_PERM_COUNT])
{
    size_t n = 0;
    buf[0] = '\0';
    for (int p = 0; p < WG_PERM_COUNT; p++) {
        if (!perms[p])
            continue;
        int w = snprintf(buf + n, cap - n, "%s%s", n ? ", " : "", PERMISSIONS[p].label);
        if (w < 0 || (size_t)w >= cap - n)
            break;
        n += (size_t)w;
    }
    return n;
}

static const char *mode_note(wg_assessment_mode m)
{
    static const char *const notes[] = {
        [WG_ASSESS_DECLARED] = "",
        [WG_ASSESS_HEURISTIC] = " (detected heuristically from content)",
        [WG_ASSESS_MIXED] = " (partially declared, partially heuristic)",
    };
    return notes[m];
}

static void explain(wg_trust_assessment *a)
{
    char list[160];
    size_t n = permission_list(list, sizeof list, a->permissions);
    const char *label = SOURCES[a->source].label;
    const char *note = mode_note(a->mode);
    char *e = a->explanation;
    size_t cap = sizeof a->explanation;
    if (a->risk == WG_RISK_LOW && n == 0)
        snprintf(e, cap, "%s. No elevated permissions detected%s. Instruction-only capability.",
                 label, note);
    else if (a->risk == WG_RISK_LOW)
        snprintf(e, cap, "%s. Minor permissions: %s%s.", label, list, note);
    else if (n == 0)
        /* The original printed "may use:  (" with an empty list here; the
         * risk comes from provenance alone, so say that. */
        snprintf(e, cap, "%s. %s risk from the source alone — no elevated permissions "
                 "detected%s. %s", label,
                 a->risk == WG_RISK_MEDIUM ? "Moderate" : "Elevated", note,
                 a->risk == WG_RISK_MEDIUM ? "Review before approving."
                                           : "Carefully review before approving.");
    else if (a->risk == WG_RISK_MEDIUM)
        snprintf(e, cap, "%s. Moderate risk — may use: %s%s. Review before approving.",
                 label, list, note);
    else
        snprintf(e, cap, "%s. Elevated risk — may use: %s%s. Carefully review "
                 "permissions before approving.", label, list, note);
}

int wg_trust_assess(wg_trust_assessment *out, const wg_trust *t, const wg_trust_input *in)
{
    if (!out || !t || !in)
        return wg_error_set(WG_EINVAL, "wg_trust_assess: NULL argument");
    wg_trust_assessment a;
    memset(&a, 0, sizeof a);
    const char *content = in->content ? in->content : "";
    size_t len = strlen(content);
    int rc = wg_trust_detect(a.permissions, a.evidence, t, content, len);
    if (rc < 0)
        return rc;
    a.source = wg_trust_resolve_source(in->capability_type, in->source);
    a.points = SOURCES[a.source].points;
    int declared = in->declared && in->declared->present;
    for (int p = 0; p < WG_PERM_COUNT; p++) {
        a.declared[p] = declared && in->declared->perms[p];
        a.permissions[p] = a.permissions[p] || a.declared[p];
        if (a.permissions[p])
            a.points += PERMISSIONS[p].points;
    }
    if (a.source == WG_TRUST_SOURCE_UNKNOWN)
        a.factors[a.n_factors++] = WG_FACTOR_UNKNOWN_SOURCE;
    if (a.source == WG_TRUST_SOURCE_THIRD_PARTY_UNVERIFIED)
        a.factors[a.n_factors++] = WG_FACTOR_UNVERIFIED_PUBLISHER;
    for (int p = 0; p < WG_PERM_COUNT; p++)
        if (a.permissions[p])
            a.factors[a.n_factors++] = PERMISSIONS[p].factor;
    if (len == 0 && a.source != WG_TRUST_SOURCE_BUILTIN) {
        a.points += WG_TRUST_MISSING_METADATA_POINTS;
        a.factors[a.n_factors++] = WG_FACTOR_MISSING_METADATA;
    }
    a.mode = !declared ? WG_ASSESS_HEURISTIC : len > 0 ? WG_ASSESS_MIXED : WG_ASSESS_DECLARED;
    a.risk = wg_trust_classify(a.points);
    a.approval = wg_approval_for_risk(a.risk);
    explain(&a);
    *out = a;
    return 0;
}

/* ---- formatTrustSummary ---------------------------------------------------- */

static const char *const RISK_CAP[] = { "Low", "Medium", "High" };
static const char *const APPROVAL_CAP[] = { "Standard", "Elevated", "Critical" };
static const char *const MODE_TAG[] = { "", " (heuristic)", " (mixed)" };

int wg_trust_format_summary(char **out, const wg_trust_assessment *a)
{
    char list[160];
    size_t n = permission_list(list, sizeof list, a->permissions);
    char why[WG_PERM_COUNT * (WG_TRUST_EVIDENCE_MAX + 48)];
    size_t w = 0;
    why[0] = '\0';
    for (int p = 0; p < WG_PERM_COUNT; p++) {
        if (!a->permissions[p])
            continue;
        int k = a->evidence[p][0]
            ? snprintf(why + w, sizeof why - w, "%s%s: \"%s\"", w ? "; " : "",
                       PERMISSIONS[p].label, a->evidence[p])
            : snprintf(why + w, sizeof why - w, "%s%s: declared", w ? "; " : "",
                       PERMISSIONS[p].label);
        if (k > 0 && (size_t)k < sizeof why - w)
            w += (size_t)k;
    }
    int risk = a->risk >= WG_RISK_LOW && a->risk <= WG_RISK_HIGH ? a->risk : WG_RISK_HIGH;
    int appr = a->approval <= WG_APPROVAL_CRITICAL ? (int)a->approval : WG_APPROVAL_CRITICAL;
    char *s = NULL;
    int r = asprintf(&s, "Risk: **%s**%s | Source: %s | Approval: %s\nPermissions: %s%s%s",
                     RISK_CAP[risk], MODE_TAG[a->mode <= WG_ASSESS_MIXED ? a->mode : 1],
                     wg_trust_source_label(a->source), APPROVAL_CAP[appr],
                     n ? list : "No elevated permissions detected",
                     w ? "\nEvidence: " : "", why);
    if (r < 0)
        return wg_error_set(WG_ENOMEM, "out of memory");
    *out = s;
    return 0;
}

/* ---- JSON -------------------------------------------------------------- */

json_t *wg_trust_assessment_json(const wg_trust_assessment *a)
{
    json_t *perms = json_object(), *factors = json_array(), *ev = json_object();
    json_t *o = json_object();
    if (!perms || !factors || !ev || !o)
        goto fail;
    for (int p = 0; p < WG_PERM_COUNT; p++) {
        json_object_set_new(perms, PERMISSIONS[p].key, json_boolean(a->permissions[p]));
        if (a->permissions[p])
            json_object_set_new(ev, PERMISSIONS[p].key,
                                json_string(a->evidence[p][0] ? a->evidence[p] : "declared"));
    }
    for (size_t i = 0; i < a->n_factors; i++)
        json_array_append_new(factors, json_string(wg_risk_factor_name(a->factors[i])));
    json_object_set_new(o, "riskLevel", json_string(wg_risk_name(a->risk)));
    json_object_set_new(o, "trustSource", json_string(wg_trust_source_name(a->source)));
    json_object_set_new(o, "permissions", perms);
    json_object_set_new(o, "approvalClass", json_string(wg_approval_name(a->approval)));
    json_object_set_new(o, "assessmentMode", json_string(wg_assessment_mode_name(a->mode)));
    json_object_set_new(o, "explanation", json_string(a->explanation));
    json_object_set_new(o, "factors", factors);
    json_object_set_new(o, "evidence", ev);
    return o;
fail:
    json_decref(perms);
    json_decref(factors);
    json_decref(ev);
    json_decref(o);
    return NULL;
}
