/* config.c - the config: the tier and the trial start, and the settings
 * the service keeps beside them (waggle/tier.h part 2; spec §10, reference
 * §8.3; store/config.h). On one machine it is DATA_DIR/config.json: writes
 * keep unknown keys, go through a private temp file renamed over the
 * target (mode 0600) and are serialised across processes with flock on
 * config.json.lock. On a shared store (replicas) it is the document
 * "config.json" in the store, edited inside a write transaction (the
 * store's write lock serialises replicas). Tier changes are audit-logged.
 * Reading a file never fails (anything wrong is FREE); a shared store that
 * is unreachable is an error (the service answers 503, never FREE). */
#include "store/config.h"
#include "store/files.h"
#include "waggle/tier.h"
#include "waggle/audit.h"
#include "waggle/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CONFIG (1 << 20)

static int path_of(char *buf, size_t n, const char *dir, const char *name)
{
    if (!dir || !*dir)
        return wg_error_set(WG_EINVAL, "no data dir");
    if ((size_t)snprintf(buf, n, "%s/%s", dir, name) >= n)
        return wg_error_set(WG_EINVAL, "data dir path too long");
    return 0;
}

/* The config object (new), {} when missing or broken -- or not a regular
 * file: a FIFO or a symlink planted as config.json is never read. */
static json_t *load(const char *dir)
{
    char p[4200];
    char *text = NULL;
    size_t len = 0;
    if (path_of(p, sizeof p, dir, "config.json") < 0 ||
        wg_files__read(&text, &len, p, MAX_CONFIG) < 0)
        return json_object();
    json_error_t err;
    json_t *c = json_loadb(text, len, JSON_REJECT_DUPLICATES, &err);
    free(text);
    if (!json_is_object(c)) {
        json_decref(c);
        return json_object();
    }
    return c;
}

static int shared(wg_store *st)
{
    return st && wg_store_is_shared(st);
}

static json_t *parse(const char *text, size_t len)
{
    json_t *c = json_loadb(text, len, JSON_REJECT_DUPLICATES, NULL);
    if (!json_is_object(c)) {
        json_decref(c);
        return json_object();
    }
    return c;
}

int wg_config__load(json_t **out, wg_store *st, const char *data_dir)
{
    if (!shared(st)) {
        json_t *c = load(data_dir);
        wg_error_clear();
        if (!c)
            return wg_error_set(WG_ENOMEM, "out of memory");
        *out = c;
        return 0;
    }
    char *text = NULL;
    size_t len = 0;
    int rc = wg_store_doc_get(&text, &len, st, WG_CONFIG_DOC);
    if (rc == WG_ENOTFOUND) {
        wg_error_clear();
        *out = json_object();
        return *out ? 0 : wg_error_set(WG_ENOMEM, "out of memory");
    }
    if (rc < 0)
        return rc;
    *out = parse(text, len);
    free(text);
    return *out ? 0 : wg_error_set(WG_ENOMEM, "out of memory");
}

void wg_tier_read(wg_tier_status *out, const char *data_dir, int64_t now_ms)
{
    json_t *c = load(data_dir);
    wg_tier_evaluate(out, json_string_value(json_object_get(c, "tier")),
                     json_string_value(json_object_get(c, "trialStartedAt")),
                     now_ms ? now_ms : wg_time_now_ms());
    json_decref(c);
    wg_error_clear();
}

int wg_tier__read_in(wg_tier_status *out, wg_store *st, const char *data_dir, int64_t now_ms)
{
    json_t *c = NULL;
    int rc = wg_config__load(&c, st, data_dir);
    if (rc < 0) {
        wg_tier_evaluate(out, NULL, NULL, now_ms ? now_ms : wg_time_now_ms());
        return rc;
    }
    wg_tier_evaluate(out, json_string_value(json_object_get(c, "tier")),
                     json_string_value(json_object_get(c, "trialStartedAt")),
                     now_ms ? now_ms : wg_time_now_ms());
    json_decref(c);
    wg_error_clear();
    return 0;
}

static int save(const char *dir, const json_t *c)
{
    char p[4200];
    int rc = path_of(p, sizeof p, dir, "config.json");
    if (rc < 0)
        return rc;
    char *text = json_dumps(c, JSON_INDENT(2) | JSON_SORT_KEYS);
    size_t len = text ? strlen(text) : 0;
    char *line = text ? realloc(text, len + 2) : NULL;
    if (!line) {
        free(text);
        return wg_error_set(WG_ENOMEM, "out of memory");
    }
    memcpy(line + len, "\n", 2);
    rc = wg_files__write_atomic(p, line, len + 1);
    free(line);
    return rc < 0 ? wg_error_set(rc, "cannot write %s", p) : 0;
}

static int lock_config(const char *dir)
{
    char p[4200];
    int rc = path_of(p, sizeof p, dir, "config.json.lock");
    if (rc < 0)
        return rc;
    return wg_files__lock(p);
}

static void unlock_config(int fd)
{
    wg_files__unlock(fd);
}

static char *dump(const json_t *c, size_t *len)
{
    char *text = json_dumps(c, JSON_INDENT(2) | JSON_SORT_KEYS);
    *len = text ? strlen(text) : 0;
    return text;
}

int wg_config__edit(wg_store *st, const char *data_dir, wg_config_edit_fn edit, void *arg)
{
    if (!edit)
        return wg_error_set(WG_EINVAL, "wg_config__edit: no edit");
    json_t *c = NULL;
    int rc;
    if (!shared(st)) {
        int fd = lock_config(data_dir);
        if (fd < 0)
            return fd;
        c = load(data_dir);
        wg_error_clear();
        rc = c ? edit(c, arg) : wg_error_set(WG_ENOMEM, "out of memory");
        if (rc == 0)
            rc = save(data_dir, c);
        json_decref(c);
        unlock_config(fd);
        return rc;
    }
    /* The write lock (PostgreSQL's advisory lock) makes read-edit-write one
     * step across replicas: no edit is lost between two of them. */
    if ((rc = wg_store_begin(st, WG_STORE_TX_WRITE)) < 0)
        return rc;
    if ((rc = wg_config__load(&c, st, data_dir)) == 0 && (rc = edit(c, arg)) == 0) {
        size_t len = 0;
        char *text = dump(c, &len);
        rc = text ? wg_store_doc_put(st, WG_CONFIG_DOC, text, len)
                  : wg_error_set(WG_ENOMEM, "out of memory");
        free(text);
    }
    json_decref(c);
    if (rc < 0) {
        wg_store_rollback(st);
        return rc;
    }
    return wg_store_commit(st);
}

static int log_change(struct wg_audit *audit, const char *actor, const char *from,
                      const char *to, const char *why)
{
    if (!audit)
        return 0;
    json_t *in = json_pack("{s:s,s:s,s:s}", "from", from, "to", to, "change", why);
    wg_audit_record r = { .event = "tier_changed", .actor = actor ? actor : "cli",
                          .input = in, .decision = "changed", .rule = why };
    int rc = in ? wg_audit_append(audit, &r, NULL) : wg_error_set(WG_ENOMEM, "out of memory");
    json_decref(in);
    return rc;
}

typedef struct tier_edit {
    wg_tier tier;            /* set: the new tier */
    int trial;               /* start a trial instead */
    int64_t now_ms;
    wg_tier before;          /* out */
} tier_edit;

static int edit_tier(json_t *c, void *arg)
{
    tier_edit *t = arg;
    t->before = WG_TIER_FREE;
    const char *raw = json_string_value(json_object_get(c, "tier"));
    if (raw && wg_tier_parse(&t->before, raw) < 0)
        t->before = WG_TIER_FREE;
    wg_error_clear();
    if (t->trial) {
        const char *started = json_string_value(json_object_get(c, "trialStartedAt"));
        if (started && *started)
            return wg_error_set(WG_EEXISTS, "TRIAL_ALREADY_STARTED: a trial was already started "
                                "at %.40s", started);
        char ts[32];
        wg_time_format_iso(ts, t->now_ms ? t->now_ms : wg_time_now_ms());
        json_object_set_new(c, "trialStartedAt", json_string(ts));
        json_object_set_new(c, "tier", json_string("TRIAL"));
        return 0;
    }
    json_object_set_new(c, "tier", json_string(wg_tier_name(t->tier)));
    return 0;
}

int wg_tier__set_in(wg_store *st, const char *data_dir, wg_tier tier, struct wg_audit *audit,
                    const char *actor)
{
    if ((unsigned)tier >= WG_TIER_COUNT)
        return wg_error_set(WG_EINVAL, "Invalid tier. Must be one of: TRIAL, FREE, PRO, TEAMS, ENTERPRISE");
    tier_edit t = { tier, 0, 0, WG_TIER_FREE };
    int rc = wg_config__edit(st, data_dir, edit_tier, &t);
    if (rc < 0)
        return rc;
    rc = log_change(audit, actor, wg_tier_name(t.before), wg_tier_name(tier), "tier_set");
    if (rc < 0) {
        /* fail closed: a tier change the audit log cannot record is undone */
        int saved = wg_error_last_code();
        char msg[256];
        snprintf(msg, sizeof msg, "%s", wg_error_last());
        tier_edit undo = { t.before, 0, 0, WG_TIER_FREE };
        wg_config__edit(st, data_dir, edit_tier, &undo);
        wg_error_set(saved, "the tier was not changed: its audit row cannot be written (%s)", msg);
    }
    return rc;
}

int wg_tier__start_trial_in(wg_store *st, const char *data_dir, int64_t now_ms,
                            struct wg_audit *audit, const char *actor)
{
    tier_edit t = { WG_TIER_TRIAL, 1, now_ms, WG_TIER_FREE };
    int rc = wg_config__edit(st, data_dir, edit_tier, &t);
    if (rc < 0)
        return rc;
    return log_change(audit, actor, wg_tier_name(t.before), "TRIAL", "trial_started");
}

int wg_tier_set(const char *data_dir, wg_tier tier, struct wg_audit *audit, const char *actor)
{
    return wg_tier__set_in(NULL, data_dir, tier, audit, actor);
}

int wg_tier_start_trial(const char *data_dir, int64_t now_ms, struct wg_audit *audit,
                        const char *actor)
{
    return wg_tier__start_trial_in(NULL, data_dir, now_ms, audit, actor);
}
