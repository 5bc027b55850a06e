/* obsidian.c - the Obsidian connector on a real directory: notes are read
 * and written inside the vault only (reference 13 item 12: the sibling
 * prefix "../vault-secrets", symlinks out, absolute paths), and writes are
 * atomic. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "connect_fixture.h"
#include "wgtest.h"

static char *tmp, *vault;
static wgt_connect f;

static void setup(void)
{
    tmp = wgt_tmpdir();
    cr_assert(asprintf(&vault, "%s/vault", tmp) > 0);
    wgt_write_file(tmp, "vault/Ideas.md", "# Ideas\nA bee dance encodes direction.\n");
    wgt_write_file(tmp, "vault/Daily/2024-01-01.md", "Met the beekeeper about waggle runs.\n");
    wgt_write_file(tmp, "vault/.obsidian/app.json", "{}");
    wgt_write_file(tmp, "vault-secrets/s.md", "TOP SECRET\n");
    char *a = NULL, *b = NULL;
    cr_assert(asprintf(&a, "%s/vault/link.md", tmp) > 0);
    cr_assert(asprintf(&b, "%s/vault/out", tmp) > 0);
    cr_assert_eq(symlink("../vault-secrets/s.md", a), 0);
    cr_assert_eq(symlink("../vault-secrets", b), 0);
    free(a);
    free(b);
    wgt_connect_open(&f, "obsidian", vault, 0);
}

static void teardown(void)
{
    wgt_connect_close(&f);
    wgt_rmtree(tmp);
    free(tmp);
    free(vault);
}

static int exists(const char *rel)
{
    char *p = NULL;
    struct stat st;
    cr_assert(asprintf(&p, "%s/%s", tmp, rel) > 0);
    int r = lstat(p, &st) == 0;
    free(p);
    return r;
}

TestSuite(connect_obsidian, .init = setup, .fini = teardown);

Test(connect_obsidian, sibling_prefix_read_is_refused)
{
    wgt_connect_call(&f, "connector_obsidian_get_note", "{\"path\":\"../vault-secrets/s.md\"}");
    cr_assert(!wgt_connect_ok(&f));
    cr_assert(strstr(wgt_connect_error(&f), "path traversal not allowed"), "%s", wgt_connect_error(&f));
    char *dump = json_dumps(f.last, 0);
    cr_assert_null(strstr(dump, "TOP SECRET"));
    free(dump);
}

Test(connect_obsidian, sibling_prefix_write_is_refused)
{
    wgt_connect_call(&f, "connector_obsidian_create_note",
                     "{\"path\":\"../vault-secrets/new.md\",\"content\":\"x\"}");
    cr_assert(!wgt_connect_ok(&f));
    cr_assert(strstr(wgt_connect_error(&f), "path traversal not allowed"));
    cr_assert(!exists("vault-secrets/new.md"));
}

Test(connect_obsidian, symlink_out_of_the_vault_is_refused)
{
    wgt_connect_call(&f, "connector_obsidian_get_note", "{\"path\":\"link.md\"}");
    cr_assert(!wgt_connect_ok(&f));
    cr_assert(strstr(wgt_connect_error(&f), "path traversal not allowed"));
    wgt_connect_call(&f, "connector_obsidian_create_note", "{\"path\":\"out/new.md\",\"content\":\"x\"}");
    cr_assert(!wgt_connect_ok(&f));
    cr_assert(!exists("vault-secrets/new.md"));
    wgt_connect_call(&f, "connector_obsidian_update_note", "{\"path\":\"link.md\",\"content\":\"x\"}");
    cr_assert(!wgt_connect_ok(&f));
    char *path = NULL;
    cr_assert(asprintf(&path, "%s/vault-secrets/s.md", tmp) > 0);
    char *s = wgt_read_file(path);
    cr_assert_str_eq(s, "TOP SECRET\n");
    free(s);
    free(path);
}

Test(connect_obsidian, absolute_and_dotdot_paths_are_refused)
{
    static const char *const bad[] = {
        "{\"path\":\"/etc/passwd\"}", "{\"path\":\"../../etc/passwd\"}",
        "{\"path\":\"Daily/../../vault-secrets/s.md\"}", "{\"path\":\"\"}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        wgt_connect_call(&f, "connector_obsidian_get_note", bad[i]);
        cr_assert(!wgt_connect_ok(&f), "%s was allowed", bad[i]);
    }
    wgt_connect_call(&f, "connector_obsidian_create_note", "{\"path\":\"Daily/..\",\"content\":\"x\"}");
    cr_assert(!wgt_connect_ok(&f));
    wgt_connect_call(&f, "connector_obsidian_list_notes", "{\"folder\":\"../vault-secrets\"}");
    cr_assert(!wgt_connect_ok(&f));
}

Test(connect_obsidian, create_then_read_then_update)
{
    wgt_connect_call(&f, "connector_obsidian_create_note",
                     "{\"path\":\"Projects/hive/plan.md\",\"content\":\"v1\"}");
    cr_assert(wgt_connect_ok(&f), "%s", wgt_connect_error(&f));
    cr_assert(json_is_true(json_object_get(json_object_get(f.last, "data"), "created")));
    wgt_connect_call(&f, "connector_obsidian_create_note",
                     "{\"path\":\"Projects/hive/plan.md\",\"content\":\"v2\"}");
    cr_assert(strstr(wgt_connect_error(&f), "Note already exists: Projects/hive/plan.md"));
    wgt_connect_call(&f, "connector_obsidian_update_note",
                     "{\"path\":\"Projects/hive/plan.md\",\"content\":\"v3\"}");
    cr_assert(wgt_connect_ok(&f), "%s", wgt_connect_error(&f));
    wgt_connect_call(&f, "connector_obsidian_get_note", "{\"path\":\"Projects/hive/plan.md\"}");
    json_t *d = json_object_get(f.last, "data");
    cr_assert_str_eq(json_string_value(json_object_get(d, "content")), "v3");
    cr_assert_str_eq(json_string_value(json_object_get(d, "name")), "plan");
    /* no temp file is left behind */
    char *dir = NULL;
    cr_assert(asprintf(&dir, "%s/Projects/hive", vault) > 0);
    DIR *dh = opendir(dir);
    struct dirent *de;
    int files = 0;
    while ((de = readdir(dh)))
        files += de->d_name[0] != '.' || strstr(de->d_name, ".tmp") != NULL;
    closedir(dh);
    free(dir);
    cr_assert_eq(files, 1);
}

Test(connect_obsidian, update_of_a_missing_note_fails)
{
    wgt_connect_call(&f, "connector_obsidian_update_note", "{\"path\":\"Nope.md\",\"content\":\"x\"}");
    cr_assert(strstr(wgt_connect_error(&f), "Note not found: Nope.md"));
    cr_assert(!exists("vault/Nope.md"));
}

Test(connect_obsidian, search_list_and_folders_skip_dot_entries)
{
    wgt_connect_call(&f, "connector_obsidian_search_notes", "{\"query\":\"WAGGLE\"}");
    json_t *d = json_object_get(f.last, "data");
    cr_assert_eq(json_integer_value(json_object_get(d, "total")), 1);
    json_t *hit = json_array_get(json_object_get(d, "results"), 0);
    cr_assert_str_eq(json_string_value(json_object_get(hit, "path")), "Daily/2024-01-01.md");
    cr_assert(strstr(json_string_value(json_object_get(hit, "snippet")), "waggle runs"));

    wgt_connect_call(&f, "connector_obsidian_list_notes", "{}");
    cr_assert_eq(json_integer_value(json_object_get(json_object_get(f.last, "data"), "total")), 2,
                 "symlinks and dot folders are not listed");
    wgt_connect_call(&f, "connector_obsidian_list_folders", "{}");
    json_t *folders = json_object_get(json_object_get(f.last, "data"), "folders");
    cr_assert_eq(json_array_size(folders), 1);
    cr_assert_str_eq(json_string_value(json_object_get(json_array_get(folders, 0), "name")), "Daily");
}

Test(connect_obsidian, health_reports_a_file_as_not_a_directory)
{
    char *file = NULL;
    cr_assert(asprintf(&file, "%s/Ideas.md", vault) > 0);
    wg_connect_request req = { .token = file };
    cr_assert_eq(wg_registry_connect(f.reg, "obsidian", &req), 0);
    json_t *h = NULL;
    cr_assert_eq(wg_registry_health(&h, f.reg, "obsidian"), WG_EUPSTREAM);
    cr_assert_str_eq(json_string_value(json_object_get(h, "status")), "error");
    cr_assert(strstr(json_string_value(json_object_get(h, "error")), "not a directory"));
    json_decref(h);
    free(file);
}
