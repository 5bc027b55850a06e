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
    /* connect checks it first */
    wg_connect_request req = { .token = file, .principal = WG_PRINCIPAL_OPERATOR };
    cr_assert_eq(wg_registry_connect(f.reg, "obsidian", &req), WG_EINVAL);
    cr_assert(strstr(wg_error_last(), "not a directory"), "%s", wg_error_last());
    /* and a credential that changed behind the registry's back is probed */
    json_t *meta = json_pack("{s:s,s:s}", "credentialType", "api_key", "setBy", "operator");
    cr_assert_eq(f.vault->set(f.vault->ctx, "connector:obsidian", file, meta), 0);
    json_decref(meta);
    json_t *h = NULL;
    cr_assert_eq(wg_registry_health(&h, f.reg, "obsidian"), WG_EUPSTREAM);
    cr_assert_str_eq(json_string_value(json_object_get(h, "status")), "error");
    cr_assert(strstr(json_string_value(json_object_get(h, "error")), "not a directory"));
    json_decref(h);
    free(file);
}

/* ---- issue 11: who may choose the vault, and what in it is served --------- */

static void write_bytes(const char *rel, const char *bytes, size_t n)
{
    char *p = NULL;
    cr_assert(asprintf(&p, "%s/%s", tmp, rel) > 0);
    FILE *fp = fopen(p, "wb");
    cr_assert_not_null(fp, "%s", p);
    cr_assert_eq(fwrite(bytes, 1, n, fp), n);
    fclose(fp);
    free(p);
}

static char *path_of(const char *rel)
{
    char *p = NULL;
    cr_assert(asprintf(&p, "%s%s%s", tmp, *rel ? "/" : "", rel) > 0);
    return p;
}

Test(connect_obsidian, hidden_folders_and_dot_files_are_not_served)
{
    wgt_write_file(tmp, "vault/Daily/.draft.md", "hidden draft\n");
    static const char *const reads[] = {
        "{\"path\":\".obsidian/app.json\"}", "{\"path\":\"Daily/.draft.md\"}",
        "{\"path\":\".git/config\"}", "{\"path\":\"Daily/./2024-01-01.md\"}",
        "{\"path\":\"Daily/../Ideas.md\"}",
    };
    for (size_t i = 0; i < sizeof reads / sizeof *reads; i++) {
        wgt_connect_call(&f, "connector_obsidian_get_note", reads[i]);
        cr_assert(!wgt_connect_ok(&f), "%s was served", reads[i]);
    }
    wgt_connect_call(&f, "connector_obsidian_get_note", "{\"path\":\".obsidian/app.json\"}");
    cr_assert(strstr(wgt_connect_error(&f), "hidden files"), "%s", wgt_connect_error(&f));
    /* an Obsidian plugin is code the app runs: never writable */
    wgt_connect_call(&f, "connector_obsidian_create_note",
                     "{\"path\":\".obsidian/plugins/evil/main.js\",\"content\":\"require('child_process')\"}");
    cr_assert(!wgt_connect_ok(&f));
    cr_assert(!exists("vault/.obsidian/plugins"));
    wgt_connect_call(&f, "connector_obsidian_update_note",
                     "{\"path\":\".obsidian/app.json\",\"content\":\"{}\"}");
    cr_assert(!wgt_connect_ok(&f));
    wgt_connect_call(&f, "connector_obsidian_list_notes", "{\"folder\":\".obsidian\"}");
    cr_assert(!wgt_connect_ok(&f));
}

Test(connect_obsidian, a_symlink_inside_the_vault_to_a_hidden_folder_is_refused)
{
    char *a = path_of("vault/innocent.md"), *b = path_of("vault/plugins");
    cr_assert_eq(symlink(".obsidian/app.json", a), 0);
    cr_assert_eq(symlink(".obsidian", b), 0);
    wgt_connect_call(&f, "connector_obsidian_get_note", "{\"path\":\"innocent.md\"}");
    cr_assert(!wgt_connect_ok(&f));
    cr_assert(strstr(wgt_connect_error(&f), "hidden files"), "%s", wgt_connect_error(&f));
    wgt_connect_call(&f, "connector_obsidian_create_note",
                     "{\"path\":\"plugins/evil/main.js\",\"content\":\"x\"}");
    cr_assert(!wgt_connect_ok(&f));
    cr_assert(!exists("vault/.obsidian/evil"));
    free(a);
    free(b);
}

Test(connect_obsidian, files_named_like_credentials_are_not_served)
{
    wgt_write_file(tmp, "vault/keys/server.pem", "-----BEGIN PRIVATE KEY-----\n");
    wgt_write_file(tmp, "vault/id_ed25519", "-----BEGIN OPENSSH PRIVATE KEY-----\n");
    wgt_write_file(tmp, "vault/admin-token", "0123456789abcdef\n");
    wgt_write_file(tmp, "vault/Backup/vault.key", "k\n");
    static const char *const reads[] = {
        "{\"path\":\"keys/server.pem\"}", "{\"path\":\"id_ed25519\"}",
        "{\"path\":\"admin-token\"}", "{\"path\":\"Backup/VAULT.KEY\"}",
        "{\"path\":\"Backup/vault.key\"}",
    };
    for (size_t i = 0; i < sizeof reads / sizeof *reads; i++) {
        wgt_connect_call(&f, "connector_obsidian_get_note", reads[i]);
        cr_assert(!wgt_connect_ok(&f), "%s was served", reads[i]);
        cr_assert(strstr(wgt_connect_error(&f), "credentials") ||
                  strstr(wgt_connect_error(&f), "not found"), "%s", wgt_connect_error(&f));
        char *dump = json_dumps(f.last, 0);
        cr_assert_null(strstr(dump, "PRIVATE KEY"));
        cr_assert_null(strstr(dump, "0123456789abcdef"));
        free(dump);
    }
    wgt_connect_call(&f, "connector_obsidian_create_note",
                     "{\"path\":\"Notes/deploy.key\",\"content\":\"x\"}");
    cr_assert(!wgt_connect_ok(&f));
    cr_assert(!exists("vault/Notes"));
}

Test(connect_obsidian, a_binary_note_is_an_error_not_an_empty_success)
{
    static const char png[] = "\x89PNG\r\n\x1a\n\0\0\0\rIHDR";
    wgt_write_file(tmp, "vault/Attachments/pic.png", "");   /* makes the folder */
    write_bytes("vault/Attachments/pic.png", png, sizeof png - 1);
    write_bytes("vault/latin1.md", "caf\xe9 au lait\n", 14);
    static const char *const reads[] = { "{\"path\":\"Attachments/pic.png\"}",
                                         "{\"path\":\"latin1.md\"}" };
    for (size_t i = 0; i < 2; i++) {
        wgt_connect_call(&f, "connector_obsidian_get_note", reads[i]);
        cr_assert(!wgt_connect_ok(&f), "%s: success with data %s", reads[i],
                  json_dumps(json_object_get(f.last, "data"), JSON_ENCODE_ANY));
        cr_assert(strstr(wgt_connect_error(&f), "not text"), "%s", wgt_connect_error(&f));
    }
    /* UTF-8 text is fine */
    wgt_write_file(tmp, "vault/Größe.md", "Größe: 3 \xe2\x82\xac\n");
    wgt_connect_call(&f, "connector_obsidian_get_note", "{\"path\":\"Größe.md\"}");
    cr_assert(wgt_connect_ok(&f), "%s", wgt_connect_error(&f));
}

Test(connect_obsidian, a_search_snippet_never_splits_a_character)
{
    /* the snippet keeps 200 bytes: put a 2-byte character across bytes 199/200 */
    char text[256];
    memset(text, 'a', 199);
    memcpy(text + 199, "\xc3\xa9 end\n", 7);
    text[206] = 0;
    wgt_write_file(tmp, "vault/Accent.md", text);
    wgt_connect_call(&f, "connector_obsidian_search_notes", "{\"query\":\"accent\"}");
    cr_assert(wgt_connect_ok(&f), "%s", wgt_connect_error(&f));
    json_t *d = json_object_get(f.last, "data");
    cr_assert_eq(json_integer_value(json_object_get(d, "total")), 1, "the match was dropped");
    const char *snip = json_string_value(json_object_get(json_array_get(json_object_get(d, "results"), 0),
                                                         "snippet"));
    cr_assert_eq(strlen(snip), 199);
}

/* A registry as the server builds it: data dir known, roots from the
 * operator, connects from the app unless said otherwise. */
static wg_registry *server_registry(wg_connect_vault **v, const char *const *roots)
{
    wg_registry *reg = NULL;
    cr_assert_eq(wg_connect_memvault_new(v), 0);
    char *data = path_of("data");
    wg_registry_options o = { .version = WG_REGISTRY_OPTIONS_VERSION,
                              .vault = *v, .data_dir = data, .obsidian_roots = roots };
    int rc = wg_registry_new(&reg, &o);
    free(data);
    cr_assert_eq(rc, 0, "%s", wg_error_last());
    return reg;
}

static json_t *run(wg_registry *reg, const char *tool, const char *args)
{
    json_t *a = json_loads(args, 0, NULL), *res = NULL;
    wg_registry_execute(&res, reg, tool, a);
    json_decref(a);
    return res;
}

Test(connect_obsidian, the_app_cannot_make_any_directory_a_vault)
{
    wgt_write_file(tmp, "data/admin-token", "ADMIN-TOKEN-VALUE-0123456789\n");
    wg_connect_vault *v;
    wg_registry *reg = server_registry(&v, NULL);
    char *data = path_of("data"), *parent = path_of(""), *etc = strdup("/etc");
    const char *const dirs[] = { data, parent, "/", etc, vault };
    for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++) {
        wg_connect_request app = { .token = dirs[i] };
        cr_expect_eq(wg_registry_connect(reg, "obsidian", &app), WG_EDENIED, "%s", dirs[i]);
    }
    cr_assert_str_eq(wg_registry_status(reg, "obsidian"), "disconnected");
    /* and the operator may not serve the data dir, its parents or / either */
    const char *const never[] = { data, parent, "/" };
    for (size_t i = 0; i < 3; i++) {
        wg_connect_request op = { .token = never[i], .principal = WG_PRINCIPAL_OPERATOR };
        cr_expect_eq(wg_registry_connect(reg, "obsidian", &op), WG_EDENIED, "%s", never[i]);
    }
    /* the operator may connect the vault itself */
    wg_connect_request op = { .token = vault, .principal = WG_PRINCIPAL_OPERATOR };
    cr_assert_eq(wg_registry_connect(reg, "obsidian", &op), 0, "%s", wg_error_last());
    json_t *r = run(reg, "connector_obsidian_get_note", "{\"path\":\"Ideas.md\"}");
    cr_assert(json_is_true(json_object_get(r, "success")));
    json_decref(r);
    wg_registry_free(reg);
    wg_connect_memvault_free(v);
    free(data);
    free(parent);
    free(etc);
}

Test(connect_obsidian, the_app_may_connect_a_vault_under_an_operator_root)
{
    char *root = path_of("vault/Daily");
    const char *const roots[] = { vault, NULL };
    wg_connect_vault *v;
    wg_registry *reg = server_registry(&v, roots);
    wg_connect_request app = { .token = root };
    cr_assert_eq(wg_registry_connect(reg, "obsidian", &app), 0, "%s", wg_error_last());
    json_t *r = run(reg, "connector_obsidian_get_note", "{\"path\":\"2024-01-01.md\"}");
    cr_assert(json_is_true(json_object_get(r, "success")));
    json_decref(r);
    /* a sibling with the root's name as a prefix is not under it */
    char *sib = path_of("vault-secrets");
    wg_connect_request bad = { .token = sib };
    cr_assert_eq(wg_registry_connect(reg, "obsidian", &bad), WG_EDENIED);
    /* nor is a symlink inside the root that points out of it */
    char *out = path_of("vault/out");
    wg_connect_request link = { .token = out };
    cr_assert_eq(wg_registry_connect(reg, "obsidian", &link), WG_EDENIED);
    wg_registry_free(reg);
    wg_connect_memvault_free(v);
    free(root);
    free(sib);
    free(out);
}

Test(connect_obsidian, every_call_checks_the_stored_vault_again)
{
    wgt_write_file(tmp, "data/admin-token", "ADMIN-TOKEN-VALUE-0123456789\n");
    wg_connect_vault *v;
    wg_registry *reg = server_registry(&v, NULL);
    char *data = path_of("data");
    /* written straight into the vault, as an older version's connect did */
    static const char *const bys[] = { NULL, "app", "operator" };
    for (size_t i = 0; i < 3; i++) {
        json_t *meta = bys[i] ? json_pack("{s:s}", "setBy", bys[i]) : NULL;
        cr_assert_eq(v->set(v->ctx, "connector:obsidian", data, meta), 0);
        json_decref(meta);
        json_t *r = run(reg, "connector_obsidian_get_note", "{\"path\":\"admin-token\"}");
        cr_assert(!json_is_true(json_object_get(r, "success")), "set by %s: served", bys[i]);
        char *dump = json_dumps(r, 0);
        cr_assert_null(strstr(dump, "ADMIN-TOKEN-VALUE"), "%s", dump);
        free(dump);
        json_decref(r);
    }
    /* an app-stored vault outside every root is refused at call time */
    json_t *meta = json_pack("{s:s}", "setBy", "app");
    cr_assert_eq(v->set(v->ctx, "connector:obsidian", vault, meta), 0);
    json_decref(meta);
    json_t *r = run(reg, "connector_obsidian_list_notes", "{}");
    cr_assert(!json_is_true(json_object_get(r, "success")));
    cr_assert(strstr(json_string_value(json_object_get(r, "error")), "--obsidian-root"));
    json_decref(r);
    wg_registry_free(reg);
    wg_connect_memvault_free(v);
    free(data);
}

Test(connect_obsidian, forbidden_roots_fail_the_registry)
{
    char *data = path_of("data"), *parent = path_of(""), *inner = path_of("data/sub"),
         *missing = path_of("nope");
    wgt_write_file(tmp, "data/sub/x", "x");
    const char *const bad[] = { "/", data, parent, inner, missing };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        const char *const roots[] = { vault, bad[i], NULL };
        wg_connect_vault *v;
        wg_registry *reg = NULL;
        cr_assert_eq(wg_connect_memvault_new(&v), 0);
        wg_registry_options o = { .version = WG_REGISTRY_OPTIONS_VERSION,
                                  .vault = v, .data_dir = data, .obsidian_roots = roots };
        cr_expect_eq(wg_registry_new(&reg, &o), WG_EINVAL, "root %s was accepted", bad[i]);
        cr_expect_null(reg);
        wg_connect_memvault_free(v);
    }
    free(data);
    free(parent);
    free(inner);
    free(missing);
}
