/* config.c - DATA_DIR/config.json: the tier and the trial start
 * (waggle/tier.h part 2; spec §10, reference §8.3). Reading never fails
 * (anything wrong is FREE). Writes keep unknown keys, go through a private
 * temp file renamed over the target (mode 0600), are serialised across
 * processes with flock on config.json.lock, and are audit-logged. */
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

void wg_tier_read(wg_tier_status *out, const char *data_dir, int64_t now_ms)
{
    json_t *c = load(data_dir);
    wg_tier_evaluate(out, json_string_value(json_object_get(c, "tier")),
                     json_string_value(json_object_get(c, "trialStartedAt")),
                     now_ms ? now_ms : wg_time_now_ms());
    json_decref(c);
    wg_error_clear();
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

int wg_tier_set(const char *data_dir, wg_tier tier, struct wg_audit *audit, const char *actor)
{
    if ((unsigned)tier >= WG_TIER_COUNT)
        return wg_error_set(WG_EINVAL, "Invalid tier. Must be one of: TRIAL, FREE, PRO, TEAMS, ENTERPRISE");
    int fd = lock_config(data_dir);
    if (fd < 0)
        return fd;
    json_t *c = load(data_dir);
    wg_tier before = WG_TIER_FREE;
    const char *raw = json_string_value(json_object_get(c, "tier"));
    if (raw && wg_tier_parse(&before, raw) < 0)
        before = WG_TIER_FREE;
    wg_error_clear();
    json_object_set_new(c, "tier", json_string(wg_tier_name(tier)));
    int rc = save(data_dir, c);
    json_decref(c);
    unlock_config(fd);
    if (rc < 0)
        return rc;
    return log_change(audit, actor, wg_tier_name(before), wg_tier_name(tier), "tier_set");
}

int wg_tier_start_trial(const char *data_dir, int64_t now_ms, struct wg_audit *audit,
                        const char *actor)
{
    int fd = lock_config(data_dir);
    if (fd < 0)
        return fd;
    json_t *c = load(data_dir);
    const char *started = json_string_value(json_object_get(c, "trialStartedAt"));
    if (started && *started) {
        int rc = wg_error_set(WG_EEXISTS, "TRIAL_ALREADY_STARTED: a trial was already started at %.40s",
                              started);
        json_decref(c);
        unlock_config(fd);
        return rc;
    }
    wg_tier before = WG_TIER_FREE;
    const char *raw = json_string_value(json_object_get(c, "tier"));
    if (raw && wg_tier_parse(&before, raw) < 0)
        before = WG_TIER_FREE;
    wg_error_clear();
    char ts[32];
    wg_time_format_iso(ts, now_ms ? now_ms : wg_time_now_ms());
    json_object_set_new(c, "tier", json_string("TRIAL"));
    json_object_set_new(c, "trialStartedAt", json_string(ts));
    int rc = save(data_dir, c);
    json_decref(c);
    unlock_config(fd);
    if (rc < 0)
        return rc;
    return log_change(audit, actor, wg_tier_name(before), "TRIAL", "trial_started");
}
