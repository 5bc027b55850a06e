/* skills_store.c - skills on disk: loading a directory of <name>.md files,
 * the starter pack (embedded, or $WAGGLE_STARTER_SKILLS_DIR), and the atomic
 * install of a starter skill into DATA_DIR/skills (waggle/skills.h). */
#include "waggle/skills.h"
#include "waggle/datadir.h"
#include "waggle/error.h"
#include "core/skills_internal.h"
#include "core/skills_embedded.h"
#include "store/files.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int wg_skillset_load_dir(wg_skillset **out, const char *dir)
{
    wg_skillset *s;
    int rc = wg_skillset__new(&s, dir);
    if (rc < 0)
        return rc;
    DIR *d = opendir(dir);
    if (!d) {
        if (errno == ENOENT) {
            *out = s;
            return 0;
        }
        rc = wg_error_set(WG_EIO, "cannot read %s: %s", dir, strerror(errno));
        wg_skillset_free(s);
        return rc;
    }
    struct dirent *e;
    while (rc == 0 && (e = readdir(d)) != NULL) {
        size_t n = strlen(e->d_name);
        if (n <= 3 || strcmp(e->d_name + n - 3, ".md") != 0)
            continue;
        char name[WG_SKILL_NAME_MAX + 1];
        if (n - 3 > WG_SKILL_NAME_MAX)
            continue;
        memcpy(name, e->d_name, n - 3);
        name[n - 3] = '\0';
        if (wg_skill_name_check(name) < 0) {
            wg_error_clear();
            continue;
        }
        char *path = NULL, *data = NULL;
        size_t len = 0;
        if ((rc = wg_datadir_path(&path, dir, e->d_name)) < 0)
            break;
        rc = wg_files__read(&data, &len, path, WG_SKILL_MAX_BYTES);
        free(path);
        if (rc == WG_EDENIED) {     /* a symlink, not a file, or too large: skip it */
            wg_error_clear();
            rc = 0;
            continue;
        }
        if (rc == 0)
            rc = wg_skillset__add(s, name, data, len);
        free(data);
    }
    closedir(d);
    if (rc < 0) {
        wg_skillset_free(s);
        return rc;
    }
    wg_skillset__sort(s);
    *out = s;
    return 0;
}

int wg_skillset_load_starter(wg_skillset **out)
{
    const char *dir = getenv(WG_SKILLS_STARTER_ENV);
    if (dir && *dir) {
        struct stat st;
        if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
            return wg_error_set(WG_ENOTFOUND, "%s=%s is not a directory",
                                WG_SKILLS_STARTER_ENV, dir);
        return wg_skillset_load_dir(out, dir);
    }
    wg_skillset *s;
    int rc = wg_skillset__new(&s, NULL);
    for (size_t i = 0; rc == 0 && i < wg_skills__starter_count; i++)
        rc = wg_skillset__add(s, wg_skills__starter[i].name,
                              (const char *)wg_skills__starter[i].data,
                              wg_skills__starter[i].length);
    if (rc < 0) {
        wg_skillset_free(s);
        return rc;
    }
    wg_skillset__sort(s);
    *out = s;
    return 0;
}

int wg_skillset_load_active(wg_skillset **out, const char *data_dir)
{
    char *dir = NULL;
    int rc = wg_datadir_path(&dir, data_dir, "skills");
    if (rc == 0)
        rc = wg_skillset_load_dir(out, dir);
    free(dir);
    return rc;
}

static int write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* Writes content to dir/name without ever replacing an existing file:
 * temporary file + fsync, then link() (fails with EEXIST when another
 * install won the race), then fsync of the directory. */
static int write_new_file(const char *dir, const char *file, const char *content, size_t len)
{
    char *final = NULL, *tmp = NULL;
    int rc = 0, fd = -1;
    if (wg_datadir_path(&final, dir, file) < 0 || asprintf(&tmp, "%s/.%s.XXXXXX", dir, file) < 0) {
        free(final);
        return wg_error_set(WG_ENOMEM, "out of memory");
    }
    if ((fd = mkstemp(tmp)) < 0) {
        rc = wg_error_set(WG_EIO, "cannot create a file in %s: %s", dir, strerror(errno));
        goto done;
    }
    if (fchmod(fd, 0600) != 0 || write_all(fd, content, len) != 0 || fsync(fd) != 0) {
        rc = wg_error_set(WG_EIO, "cannot write %s: %s", tmp, strerror(errno));
        goto done;
    }
    close(fd);
    fd = -1;
    if (link(tmp, final) != 0) {
        rc = errno == EEXIST
            ? wg_error_set(WG_EEXISTS, "Skill file %s already exists.", final)
            : wg_error_set(WG_EIO, "cannot install %s: %s", final, strerror(errno));
        goto done;
    }
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        (void)fsync(dfd);
        close(dfd);
    }
done:
    if (fd >= 0)
        close(fd);
    if (tmp)
        unlink(tmp);
    free(tmp);
    free(final);
    return rc;
}

int wg_skills_install(char **path_out, const char *data_dir, const wg_skillset *starter,
                      const char *name, const char *source)
{
    if (!data_dir || !starter)
        return wg_error_set(WG_EINVAL, "wg_skills_install: NULL argument");
    wg_skillset *active = NULL;
    int rc = wg_skillset_load_active(&active, data_dir);
    if (rc < 0)
        return rc;
    const wg_skill *sk = NULL;
    rc = wg_skills_validate_install(&sk, starter, active, name, source);
    wg_skillset_free(active);
    if (rc < 0)
        return rc;
    char *dir = NULL, *file = NULL, *path = NULL;
    if (wg_datadir_path(&dir, data_dir, "skills") < 0 || asprintf(&file, "%s.md", name) < 0) {
        free(dir);
        return wg_error_set(WG_ENOMEM, "out of memory");
    }
    if (mkdir(data_dir, 0700) != 0 && errno != EEXIST)
        rc = wg_error_set(WG_EIO, "cannot create %s: %s", data_dir, strerror(errno));
    else if (mkdir(dir, 0700) != 0 && errno != EEXIST)
        rc = wg_error_set(WG_EIO, "cannot create %s: %s", dir, strerror(errno));
    if (rc == 0)
        rc = write_new_file(dir, file, sk->content, sk->length);
    if (rc == WG_EEXISTS)
        rc = wg_error_set(WG_EEXISTS, "Skill \"%s\" is already installed and active.", name);
    if (rc == 0 && path_out) {
        if (wg_datadir_path(&path, dir, file) < 0)
            rc = WG_ENOMEM;
        else
            *path_out = path;
    }
    free(dir);
    free(file);
    return rc;
}
