/* guarded.c - paths a tool must never write without a person, told from
 * the path's text alone (include/waggle/shell.h, wg_shell_guarded_path):
 * the MCP gateway's upstream tools give a path as an argument and waggle
 * cannot see the directory the upstream resolves it in. The tables are the
 * bash gate's own (autorun.c, vital.c, disks.c): the same file is guarded
 * whichever face writes it.
 *
 * Pure functions of the text; no state, thread-safe. */
#include "core/shell/internal.h"
#include "waggle/shell.h"

#include <jansson.h>
#include <string.h>

#define GUARDED_PATH_MAX 4096

/* 1 when relative path t[0,n) climbs above where it starts ("../x",
 * "a/../../x"): it may then reach any absolute path. */
static int climbs_out(const char *t, size_t n)
{
    long depth = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && t[j] != '/')
            j++;
        size_t len = j - i;
        if (len == 2 && t[i] == '.' && t[i + 1] == '.') {
            if (--depth < 0)
                return 1;
        } else if (len && !(len == 1 && t[i] == '.')) {
            depth++;
        }
        i = j + 1;
    }
    return 0;
}

const char *wg_shell_guarded_path(const char *path, size_t n, wg_guarded_kind *kind)
{
    wg_guarded_kind ignored;
    if (!kind)
        kind = &ignored;
    *kind = WG_GUARDED_NONE;
    if (!path || n == 0 || n > GUARDED_PATH_MAX || memchr(path, '\0', n))
        return NULL;
    /* "~/x" and relative paths are matched as "/~/x" and "/x": the rows that
     * need a directory ("/.ssh/", "/.git/hooks/") then see one */
    char text[GUARDED_PATH_MAX + 2], norm[GUARDED_PATH_MAX + 2];
    int absolute = path[0] == '/';
    size_t k = 0;
    if (!absolute)
        text[k++] = '/';
    memcpy(text + k, path, n);
    k += n;
    long m = sh_path_normalize(text, k, SH_CWD_PROJECT, norm, sizeof norm);
    if (m <= 0)
        return NULL;
    const char *what = sh_runs_code_path(norm, (size_t)m, 0);
    if (what) {
        *kind = WG_GUARDED_RUNS_CODE;
        return what;
    }
    /* the system's own files: an absolute path, or a relative one that
     * climbs out of wherever it starts (etc/passwd in a project is data) */
    if (!absolute && (path[0] == '~' || !climbs_out(path, n)))
        return NULL;
    what = sh_vital_path(norm, (size_t)m, SH_CWD_PROJECT, 0);
    if (!what && sh_is_raw_disk(norm, (size_t)m))
        what = "a raw disk (its file systems and partition table)";
    if (!what)
        what = sh_kernel_trigger_path(norm, (size_t)m, SH_CWD_PROJECT);
    if (what)
        *kind = WG_GUARDED_SYSTEM;
    return what;
}

int wg_shell_path_key(const char *key)
{
    /* the filesystem server's path/source/destination, editors' file_path,
     * and their kind */
    static const char *const keys[] = {
        "path", "file_path", "filePath", "filepath", "file", "filename", "fileName", "destination",
        "dest", "target", "to", "output", "outputPath", "output_path", "paths", "files",
    };
    for (size_t i = 0; key && i < sizeof keys / sizeof *keys; i++)
        if (strcmp(key, keys[i]) == 0)
            return 1;
    return 0;
}

int wg_shell_each_path_arg(const void *args, wg_shell_path_fn fn, void *ud)
{
    const char *key;
    json_t *v;
    if (!json_is_object((const json_t *)args) || !fn)
        return 0;
    json_object_foreach((json_t *)args, key, v) {
        if (!wg_shell_path_key(key))
            continue;
        size_t n = json_is_array(v) ? json_array_size(v) : 1;
        for (size_t i = 0; i < n && i < WG_SHELL_PATHS_PER_KEY; i++) {
            const json_t *e = json_is_array(v) ? json_array_get(v, i) : v;
            int rc = json_is_string(e) ? fn(ud, key, json_string_value(e), json_string_length(e)) : 0;
            if (rc)
                return rc;
        }
    }
    return 0;
}
