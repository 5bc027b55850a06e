/* records.c - the engine's audit rows. Approval rows never carry a call's
 * arguments whole: they carry a digest (SHA-256 over the canonical JSON:
 * compact, keys sorted), the size, and a bounded preview made from the
 * MASKED arguments (secret-named keys and vault values replaced first,
 * then cut at ENGINE_PREVIEW_MAX bytes on a UTF-8 boundary), so a 200 KB
 * argument writes a 2 KB row and no secret reaches the log. */
#include "engine/engine_int.h"
#include "waggle/error.h"

#include <sodium.h>
#include <stdlib.h>
#include <string.h>

static const size_t DUMP_FLAGS = JSON_COMPACT | JSON_SORT_KEYS;

/* The longest prefix of s[0..n) that ends on a UTF-8 boundary. */
static size_t utf8_cut(const char *s, size_t n)
{
    while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
        n--;
    return n;
}

int wg_engine__args_summary(json_t **out, wg_engine *e, const json_t *args, size_t *bytes)
{
    json_t *empty = args ? NULL : json_object();
    const json_t *a = args ? args : empty;
    char *canon = json_dumps(a, DUMP_FLAGS);
    json_decref(empty);
    if (!canon)
        return wg_error_set(WG_ENOMEM, "out of memory");
    size_t n = strlen(canon);
    unsigned char h[crypto_hash_sha256_BYTES];
    crypto_hash_sha256(h, (const unsigned char *)canon, n);
    sodium_memzero(canon, n);
    free(canon);
    char hex[2 * crypto_hash_sha256_BYTES + 1], digest[sizeof hex + 8];
    sodium_bin2hex(hex, sizeof hex, h, sizeof h);
    memcpy(digest, "sha256:", 7);
    memcpy(digest + 7, hex, sizeof hex);

    wg_vault *vault = NULL;
    if (wg_engine_vault(&vault, e) < 0)
        return wg_error_last_code();
    json_t *masked = NULL;
    int rc = wg_audit_mask(&masked, args ? args : NULL, vault);
    if (rc < 0)
        return rc;
    char *text = masked ? json_dumps(masked, DUMP_FLAGS) : strdup("{}");
    json_t *o = text ? json_pack("{s:s,s:I}", "argsDigest", digest, "argsBytes", (json_int_t)n)
                     : NULL;
    if (o && strlen(text) <= ENGINE_PREVIEW_MAX) {
        json_object_set_new(o, "args", masked ? json_incref(masked) : json_object());
    } else if (o) {
        size_t cut = utf8_cut(text, ENGINE_PREVIEW_MAX);
        json_object_set_new(o, "argsPreview", json_stringn(text, cut));
        json_object_set_new(o, "argsTruncated", json_true());
    }
    json_decref(masked);
    free(text);
    if (!o)
        return wg_error_set(WG_ENOMEM, "out of memory");
    if (bytes)
        *bytes = n;
    *out = o;
    return 0;
}

static void set_str(json_t *o, const char *key, const char *v)
{
    if (v && *v)
        json_object_set_new(o, key, json_string(v));
}

int wg_engine__row(wg_engine *e, const engine_row *r)
{
    wg_audit *audit = NULL;
    int rc = wg_engine_audit(&audit, e);
    if (rc < 0)
        return rc;
    json_t *in = r->summary ? json_copy((json_t *)r->summary) : json_object();
    if (!in)
        return wg_error_set(WG_ENOMEM, "out of memory");
    set_str(in, "approvalId", r->approval_id);
    set_str(in, "_autonomy", r->level);
    set_str(in, "workspaceId", r->workspace_id);
    /* "session", not "sessionId": the audit log masks any key naming a
     * session id (a web session cookie is a secret); an agent's session
     * name is not, and the row must keep it. */
    set_str(in, "session", r->session_id);
    wg_audit_record rec = { .event = r->event, .actor = r->actor, .tool = r->tool, .input = in,
                            .decision = r->decision, .rule = r->rule,
                            .ts_ms = wg_engine_now(e) };
    rc = wg_audit_append(audit, &rec, NULL);
    json_decref(in);
    if (rc < 0)
        wg_engine__logf(e, "error audit event=%s not written: %s", r->event, wg_error_last());
    return rc;
}

int wg_engine__note(wg_engine *e, const char *event, const char *actor, const char *tool,
                    const json_t *input, const char *decision, const char *rule)
{
    wg_audit *audit = NULL;
    int rc = wg_engine_audit(&audit, e);
    if (rc < 0)
        return rc;
    wg_audit_record rec = { .event = event, .actor = actor ? actor : e->actor, .tool = tool,
                            .input = input, .decision = decision, .rule = rule,
                            .ts_ms = wg_engine_now(e) };
    rc = wg_audit_append(audit, &rec, NULL);
    if (rc < 0)
        wg_engine__logf(e, "error audit event=%s not written: %s", event, wg_error_last());
    return rc;
}
