/* paths.c - the confinement helpers (src/connect/paths.h): the separator
 * rule, the root "/" (inside() was wrong for it: nothing was under "/"),
 * and the roots that are never allowed. */
#include <criterion/criterion.h>

#include "connect/paths.h"

Test(paths, inside_needs_the_separator)
{
    cr_expect(wg_paths__inside("/home/u/vault", "/home/u/vault"));
    cr_expect(wg_paths__inside("/home/u/vault", "/home/u/vault/a.md"));
    cr_expect(!wg_paths__inside("/home/u/vault", "/home/u/vault-secrets/s.md"));
    cr_expect(!wg_paths__inside("/home/u/vault", "/home/u/vaul"));
    cr_expect(!wg_paths__inside("/home/u/vault", "/home/u"));
    cr_expect(!wg_paths__inside("", "/x"));
}

Test(paths, everything_absolute_is_inside_the_root_dir)
{
    cr_expect(wg_paths__inside("/", "/"));
    cr_expect(wg_paths__inside("/", "/etc/passwd"));
    cr_expect(wg_paths__inside("/", "/home/u/vault"));
}

Test(paths, roots_that_are_never_allowed)
{
    const char *d = "/var/lib/waggle";
    cr_expect_str_eq(wg_paths__forbidden_root("/", d), "the file system root");
    cr_expect_str_eq(wg_paths__forbidden_root("/", NULL), "the file system root");
    cr_expect_str_eq(wg_paths__forbidden_root("/var/lib/waggle", d), "the data dir");
    cr_expect_str_eq(wg_paths__forbidden_root("/var/lib/waggle/skills", d), "inside the data dir");
    cr_expect_str_eq(wg_paths__forbidden_root("/var/lib", d), "a parent of the data dir");
    cr_expect_str_eq(wg_paths__forbidden_root("/var", d), "a parent of the data dir");
    cr_expect_null(wg_paths__forbidden_root("/var/lib/waggle-notes", d));
    cr_expect_null(wg_paths__forbidden_root("/var/lib/wag", d));
    cr_expect_null(wg_paths__forbidden_root("/home/u/vault", d));
    cr_expect_null(wg_paths__forbidden_root("/home/u/vault", NULL));
}
