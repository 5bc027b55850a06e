/* settings.c - merging waggle's hook entry into Claude Code's settings.json
 * (settings.h). */
#include "hook/settings.h"
#include "waggle/error.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char *const ours[] = { "waggle-hook claude-code", "waggle hook claude-code" };

static int is_ours(const json_t *hook)
{
    const char *cmd = json_string_value(json_object_get(hook, "command"));
    for (size_t i = 0; cmd && i < sizeof ours / sizeof ours[0]; i++)
        if (strstr(cmd, ours[i]))
            return 1;
    return 0;
}

int wg_hook_settings_merge(json_t *settings, const char *command)
{
    if (!json_is_object(settings))
        return wg_error_set(WG_EINVAL, "the settings file is not a JSON object");
    json_t *hooks = json_object_get(settings, "hooks");
    if (hooks && !json_is_object(hooks))
        return wg_error_set(WG_EINVAL, "\"hooks\" in the settings file is not an object");
    json_t *pre = hooks ? json_object_get(hooks, "PreToolUse") : NULL;
    if (pre && !json_is_array(pre))
        return wg_error_set(WG_EINVAL, "\"hooks.PreToolUse\" in the settings file is not an array");
    size_t i, k;
    json_t *group, *hook;
    json_array_foreach(pre, i, group) {
        json_t *list = json_object_get(group, "hooks");
        if (!json_is_array(list))
            continue;
        json_array_foreach(list, k, hook) {
            if (!json_is_object(hook) || !is_ours(hook))
                continue;
            const char *now = json_string_value(json_object_get(hook, "command"));
            if (strcmp(now, command) == 0)
                return 0;
            if (json_object_set_new(hook, "command", json_string(command)) < 0)
                return wg_error_set(WG_ENOMEM, "out of memory");
            return 1;
        }
    }
    json_t *entry = json_pack("{s:s,s:[{s:s,s:s,s:i}]}", "matcher", "*", "hooks", "type",
                              "command", "command", command, "timeout", 10);
    if (!entry)
        return wg_error_set(WG_ENOMEM, "out of memory");
    if (!hooks) {
        hooks = json_object();
        if (!hooks || json_object_set_new(settings, "hooks", hooks) < 0) {
            json_decref(entry);
            return wg_error_set(WG_ENOMEM, "out of memory");
        }
    }
    if (!pre) {
        pre = json_array();
        if (!pre || json_object_set_new(hooks, "PreToolUse", pre) < 0) {
            json_decref(entry);
            return wg_error_set(WG_ENOMEM, "out of memory");
        }
    }
    if (json_array_append_new(pre, entry) < 0)
        return wg_error_set(WG_ENOMEM, "out of memory");
    return 1;
}

/* ---- the file ----------------------------------------------------------------------- */

static int read_file(char **out, size_t *len, const char *path)
{
    *out = NULL;
    *len = 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return errno == ENOENT ? 0 : wg_error_set(WG_EIO, "cannot read %s: %s", path, strerror(errno));
    char *buf = malloc(WG_HOOK_SETTINGS_MAX + 1);
    if (!buf) {
        fclose(f);
        return wg_error_set(WG_ENOMEM, "out of memory");
    }
    size_t n = fread(buf, 1, WG_HOOK_SETTINGS_MAX + 1, f);
    int err = ferror(f);
    fclose(f);
    if (err || n > WG_HOOK_SETTINGS_MAX) {
        free(buf);
        return err ? wg_error_set(WG_EIO, "cannot read %s", path)
                   : wg_error_set(WG_EINVAL, "%s is larger than %d bytes", path, WG_HOOK_SETTINGS_MAX);
    }
    *out = buf;
    *len = n;
    return 1;
}

static int write_all(int fd, const char *s, size_t n)
{
    while (n) {
        ssize_t w = write(fd, s, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        s += w;
        n -= (size_t)w;
    }
    return 0;
}

/* Writes text to path through path.tmp-PID, fsync, rename. */
static int replace_file(const char *path, const char *text, mode_t mode)
{
    char tmp[4200];
    if (snprintf(tmp, sizeof tmp, "%s.tmp-%ld", path, (long)getpid()) >= (int)sizeof tmp)
        return wg_error_set(WG_EINVAL, "the settings path is too long");
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
    if (fd < 0)
        return wg_error_set(WG_EIO, "cannot create %s: %s", tmp, strerror(errno));
    int ok = write_all(fd, text, strlen(text)) == 0 && fsync(fd) == 0;
    ok = close(fd) == 0 && ok;
    if (!ok || rename(tmp, path) != 0) {
        int e = errno;
        unlink(tmp);
        return wg_error_set(WG_EIO, "cannot write %s: %s", path, strerror(e));
    }
    return 0;
}

static int make_parent(const char *path)
{
    char dir[4200];
    size_t n = strlen(path);
    if (n >= sizeof dir)
        return wg_error_set(WG_EINVAL, "the settings path is too long");
    memcpy(dir, path, n + 1);
    char *slash = strrchr(dir, '/');
    if (!slash || slash == dir)
        return 0;
    *slash = '\0';
    if (mkdir(dir, 0755) == 0 || errno == EEXIST)
        return 0;
    return wg_error_set(WG_EIO, "cannot create %s: %s", dir, strerror(errno));
}

int wg_hook_settings_install(const char *path, const char *command, int *changed,
                             char *backup_out, size_t backup_cap)
{
    if (changed)
        *changed = 0;
    if (backup_out && backup_cap)
        backup_out[0] = '\0';
    if (!path || !command || !*command)
        return wg_error_set(WG_EINVAL, "wg_hook_settings_install: NULL argument");
    char *old = NULL;
    size_t len = 0;
    int rc = read_file(&old, &len, path);
    if (rc < 0)
        return rc;
    json_t *settings;
    if (rc == 0 || len == 0) {
        settings = json_object();
    } else {
        json_error_t jerr;
        settings = json_loadb(old, len, JSON_REJECT_DUPLICATES, &jerr);
        if (!settings) {
            free(old);
            return wg_error_set(WG_EINVAL, "%s is not valid JSON (line %d: %s); it is left as it "
                                "is", path, jerr.line, jerr.text);
        }
    }
    struct stat st;
    mode_t mode = rc > 0 && stat(path, &st) == 0 ? (st.st_mode & 0777) : 0644;
    int merged = settings ? wg_hook_settings_merge(settings, command)
                          : wg_error_set(WG_ENOMEM, "out of memory");
    if (merged < 0 && merged != WG_ENOMEM) {
        char why[256];
        snprintf(why, sizeof why, "%s", wg_error_last());
        wg_error_set(merged, "%s: %s; it is left as it is", path, why);
    }
    char *text = merged > 0 ? json_dumps(settings, JSON_INDENT(2)) : NULL;
    json_decref(settings);
    rc = merged;
    if (merged > 0 && !text)
        rc = wg_error_set(WG_ENOMEM, "out of memory");
    if (rc > 0 && old) {
        char backup[4300];
        time_t now = time(NULL);
        struct tm tm;
        gmtime_r(&now, &tm);
        snprintf(backup, sizeof backup, "%s.waggle-backup-%04d%02d%02dT%02d%02d%02dZ", path,
                 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
        rc = replace_file(backup, old, mode) < 0 ? WG_EIO : 1;
        if (rc > 0 && backup_out && backup_cap)
            snprintf(backup_out, backup_cap, "%s", backup);
    }
    if (rc > 0 && !old)
        rc = make_parent(path) < 0 ? WG_EIO : 1;
    if (rc > 0) {
        size_t tl = strlen(text);
        char *withnl = realloc(text, tl + 2);
        if (withnl) {
            text = withnl;
            text[tl] = '\n';
            text[tl + 1] = '\0';
        }
        rc = replace_file(path, text, mode) < 0 ? WG_EIO : 1;
    }
    free(text);
    free(old);
    if (rc > 0 && changed)
        *changed = 1;
    return rc < 0 ? rc : 0;
}
