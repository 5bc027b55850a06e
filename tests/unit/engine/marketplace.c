/* marketplace.c - the local marketplace below the server
 * (waggle/marketplace.h): install is all or nothing and audited, publish
 * packages an installed skill once, names never become paths, the
 * enterprise packs wait for a KVARK connection. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "waggle/engine.h"
#include "waggle/error.h"
#include "waggle/marketplace.h"
#include "wgtest.h"

static char *dir;
static wg_engine *e;

static void setup(void)
{
    dir = wgt_tmpdir();
    wgt_write_file(dir, "vault.key",
                   "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff\n");
    wgt_write_file(dir, "marketplace/writing/pack.json",
                   "{\"name\":\"writing\",\"description\":\"d\",\"skills\":[\"tone\",\"outline\"]}");
    wgt_write_file(dir, "marketplace/writing/tone.md", "# Tone\nWrite plainly.\n");
    wgt_write_file(dir, "marketplace/writing/outline.md", "# Outline\nList the parts.\n");
    wg_engine_options o = WG_ENGINE_OPTIONS_INIT;
    o.data_dir = dir;
    cr_assert_eq(wg_engine_open(&e, &o), 0);
}

static void teardown(void)
{
    wg_engine_free(e);
    wgt_rmtree(dir);
    free(dir);
}

TestSuite(marketplace, .init = setup, .fini = teardown);

static size_t rows(const char *event)
{
    wg_audit *a = NULL;
    cr_assert_eq(wg_engine_audit(&a, e), 0);
    wg_audit_event *ev = NULL;
    size_t n = 0;
    wg_audit_query q = { .limit = 10, .event = event };
    cr_assert_eq(wg_audit_list(&ev, &n, a, &q), 0);
    wg_audit_events_free(ev, n);
    return n;
}

Test(marketplace, install_is_all_or_nothing_and_audited)
{
    json_t *list = NULL;
    cr_assert_eq(wg_marketplace_list(&list, e), 0);
    cr_assert_eq(json_integer_value(json_object_get(list, "total")), 1);
    json_decref(list);
    /* one skill already there: nothing is copied */
    wgt_write_file(dir, "skills/outline.md", "# mine\n");
    json_t *inst = NULL;
    cr_assert_eq(wg_marketplace_install(&inst, e, "writing", "test"), WG_EEXISTS);
    char path[4096];
    snprintf(path, sizeof path, "%s/skills/tone.md", dir);
    cr_assert_neq(access(path, F_OK), 0, "a refused install left a file behind");
    snprintf(path, sizeof path, "%s/skills/outline.md", dir);
    unlink(path);
    cr_assert_eq(wg_marketplace_install(&inst, e, "writing", "test"), 0, "%s", wg_error_last());
    cr_assert_eq(json_array_size(inst), 2);
    cr_assert_not_null(json_object_get(json_array_get(inst, 0), "trust"));
    json_decref(inst);
    cr_assert_eq(rows("marketplace_installed"), 1);
    cr_assert_eq(wg_marketplace_install(&inst, e, "nope", "test"), WG_ENOTFOUND);
    cr_assert_eq(wg_marketplace_install(&inst, e, "../etc", "test"), WG_EINVAL);
}

Test(marketplace, publish_once_and_enterprise_needs_kvark)
{
    wgt_write_file(dir, "skills/mine.md", "# Mine\nMy skill.\n");
    json_t *pack = NULL;
    cr_assert_eq(wg_marketplace_publish(&pack, e, "mine", "my pack", "test"), 0, "%s", wg_error_last());
    cr_assert_str_eq(json_string_value(json_object_get(pack, "name")), "mine");
    json_decref(pack);
    cr_assert_eq(wg_marketplace_publish(&pack, e, "mine", NULL, "test"), WG_EEXISTS);
    cr_assert_eq(wg_marketplace_publish(&pack, e, "absent", NULL, "test"), WG_ENOTFOUND);
    cr_assert_eq(rows("marketplace_published"), 1);
    json_t *ent = NULL;
    cr_assert_eq(wg_marketplace_enterprise_packs(&ent, e), 0);
    cr_assert(json_is_true(json_object_get(ent, "kvarkRequired")));
    json_decref(ent);
    /* the original unlocked on any non-empty value; a URL alone is not a
     * KVARK configuration (reference 2.1) */
    cr_assert_eq(wg_engine_vault_set(e, "kvark:connection", "https://kvark.example", 21, NULL,
                                     "test"), 0);
    cr_assert_eq(wg_marketplace_enterprise_packs(&ent, e), 0);
    cr_assert(json_is_true(json_object_get(ent, "kvarkRequired")));
    cr_assert_eq(json_integer_value(json_object_get(ent, "total")), 0);
    cr_assert(strstr(json_string_value(json_object_get(ent, "hint")), "not a JSON object"));
    cr_assert_null(strstr(json_string_value(json_object_get(ent, "hint")), "kvark.example"));
    json_decref(ent);
    static const char *const invalid[] = {
        "{\"baseUrl\":\"https://k\",\"identifier\":\"\",\"password\":\"p\"}",
        "{\"baseUrl\":\"https://k\",\"identifier\":\"i\"}",
        "{\"baseUrl\":7,\"identifier\":\"i\",\"password\":\"p\"}",
        "{\"baseUrl\":\"ftp://k\",\"identifier\":\"i\",\"password\":\"p\"}",
    };
    for (size_t i = 0; i < sizeof invalid / sizeof *invalid; i++) {
        cr_assert_eq(wg_engine_vault_set(e, "kvark:connection", invalid[i], strlen(invalid[i]),
                                         NULL, "test"), 0);
        cr_assert_eq(wg_marketplace_enterprise_packs(&ent, e), 0);
        cr_assert(json_is_true(json_object_get(ent, "kvarkRequired")), "%s", invalid[i]);
        json_decref(ent);
    }
    const char *valid = "{\"baseUrl\":\"https://kvark.example/\",\"identifier\":\"me\","
                        "\"password\":\"pw\",\"timeoutMs\":\"5\"}";
    cr_assert_eq(wg_engine_vault_set(e, "kvark:connection", valid, strlen(valid), NULL, "test"), 0);
    cr_assert_eq(wg_marketplace_enterprise_packs(&ent, e), 0);
    cr_assert(json_is_false(json_object_get(ent, "kvarkRequired")));
    /* the rows are data/enterprise-packs.json's */
    json_t *file = json_load_file(WG_SOURCE_DIR "/data/enterprise-packs.json", 0, NULL);
    cr_assert_not_null(file);
    json_t *rows = json_object_get(file, "packs");
    cr_assert_eq(json_integer_value(json_object_get(ent, "total")), (json_int_t)json_array_size(rows));
    cr_assert(json_equal(json_object_get(ent, "packs"), rows));
    json_decref(file);
    json_decref(ent);
}
