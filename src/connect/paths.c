/* paths.c - see paths.h. */
#include "connect/paths.h"

#include <string.h>

int wg_paths__inside(const char *root, const char *p)
{
    size_t n = strlen(root);
    if (n == 0 || strncmp(p, root, n) != 0)
        return 0;
    /* "/" already ends with the separator: everything absolute is under it */
    return root[n - 1] == '/' || p[n] == 0 || p[n] == '/';
}

const char *wg_paths__forbidden_root(const char *dir, const char *data_dir)
{
    if (strcmp(dir, "/") == 0)
        return "the file system root";
    if (!data_dir || !*data_dir)
        return NULL;
    if (strcmp(dir, data_dir) == 0)
        return "the data dir";
    if (wg_paths__inside(data_dir, dir))
        return "inside the data dir";
    if (wg_paths__inside(dir, data_dir))
        return "a parent of the data dir";
    return NULL;
}
