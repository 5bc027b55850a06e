/* shared_files.c - installed skills, marketplace packs and plugin manifests
 * that replicas share (store/tree.h, docs/replicas.md), on both back ends:
 * every body runs once on SQLite (the data dir's files, as on one machine)
 * and once on a real PostgreSQL ($WAGGLE_TEST_PG, a schema of its own per
 * test), where they are documents of shared_docs. A second store handle,
 * or a second engine on another data dir, plays "another replica": what
 * one installs the other sees. Also: names confined to their subtree, the
 * list bound at N and N+1, hostile packs (huge, deeply nested) refused with
 * a clear reason, and the one-time import of an existing data dir that
 * never loses or rewrites a user's file. Skipped with a message when
 * WAGGLE_TEST_PG is unset (test.sh fails on skips). */
#include <criterion/criterion.h>
#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "store/tree.h"
#include "waggle/capdeps.h"
#include "waggle/catalog.h"
#include "waggle/personas.h"
#include "waggle/engine.h"
#include "waggle/error.h"
#include "waggle/marketplace.h"
#include "waggle/plugins.h"
#include "waggle/skills.h"
#include "waggle/store.h"
#include "waggle/sys/store.h"
#include "wgtest.h"

static char conninfo[1200], base[900], schema[64];
static char *dir, *dir2;
static int on_pg;

static const char KEY[] = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff\n";

static void quiet(void *arg, const char *msg)
{
    (void)arg;
    (void)msg;
}

static void sql(const char *q)
{
    PGconn *c = PQconnectdb(base);
    cr_assert_eq(PQstatus(c), CONNECTION_OK, "%s", PQerrorMessage(c));
    PQsetNoticeProcessor(c, quiet, NULL);
    PGresult *r = PQexec(c, q);
    cr_assert(PQresultStatus(r) == PGRES_COMMAND_OK || PQresultStatus(r) == PGRES_TUPLES_OK,
              "%s", PQerrorMessage(c));
    PQclear(r);
    PQfinish(c);
}

/* A new handle on this test's store (on SQLite: the first data dir's file). */
static wg_store *open_store(void)
{
    wg_store *st = NULL;
    int rc;
    if (on_pg) {
        rc = wg_store_open_backend(&st, wg_store_postgres_backend(), conninfo, dir);
    } else {
        char path[4200];
        snprintf(path, sizeof path, "%s/waggle.db", dir);
        rc = wg_store_open_backend(&st, wg_store_sqlite_backend(), path, dir);
    }
    cr_assert_eq(rc, 0, "%s", wg_error_last());
    return st;
}

/* An engine: on PostgreSQL each on a data dir of its own (a replica), on
 * SQLite both on the one data dir (processes of one machine). */
static wg_engine *open_engine(const char *data_dir)
{
    wg_engine_options o = WG_ENGINE_OPTIONS_INIT;
    o.data_dir = on_pg ? data_dir : dir;
    o.store_url = on_pg ? conninfo : NULL;
    wg_engine *e = NULL;
    cr_assert_eq(wg_engine_open(&e, &o), 0, "%s", wg_error_last());
    return e;
}

static void setup_common(void)
{
    const char *env = getenv("WAGGLE_TEST_PG");
    if (!env || !*env)
        cr_skip_test("WAGGLE_TEST_PG is not set (scripts/test.sh starts PostgreSQL and sets it)");
    snprintf(base, sizeof base, "%s", env);
    dir = wgt_tmpdir();
    dir2 = wgt_tmpdir();
    wgt_write_file(dir, "vault.key", KEY);   /* replicas share one vault key */
    wgt_write_file(dir2, "vault.key", KEY);
}

static void setup_sqlite(void)
{
    setup_common();
    on_pg = 0;
}

static void setup_pg(void)
{
    setup_common();
    on_pg = 1;
    snprintf(schema, sizeof schema, "wgfiles_%ld_%ld", (long)getpid(), (long)time(NULL));
    char q[256];
    snprintf(q, sizeof q, "DROP SCHEMA IF EXISTS %s CASCADE; CREATE SCHEMA %s", schema, schema);
    sql(q);
    snprintf(conninfo, sizeof conninfo, "%s options='-csearch_path=%s' application_name=%s", base,
             schema, schema);
}

static void teardown(void)
{
    for (char **d = (char *[]){ dir, dir2 }, **end = d + 2; d < end; d++)
        if (*d) {
            wgt_rmtree(*d);
            free(*d);
        }
    dir = dir2 = NULL;
    if (on_pg && *schema) {
        char q[128];
        snprintf(q, sizeof q, "DROP SCHEMA IF EXISTS %s CASCADE", schema);
        sql(q);
        *schema = '\0';
    }
}

TestSuite(files_sqlite, .init = setup_sqlite, .fini = teardown);
TestSuite(files_pg, .init = setup_pg, .fini = teardown);

static int exists_in(const char *d, const char *rel)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", d, rel);
    return access(path, F_OK) == 0;
}

/* ---- the bodies -------------------------------------------------------------------- */

/* A starter skill installed through one handle is active on the other;
 * installing it again through the other is "already installed". */
static void skill_installed_on_one_is_active_on_another(void)
{
    wg_store *a = open_store(), *b = open_store();
    wg_skillset *starter = NULL, *active = NULL;
    cr_assert_eq(wg_skillset_load_starter(&starter), 0);
    const wg_skill *first = wg_skillset_get(starter, 0);
    cr_assert_not_null(first);
    char *where = NULL;
    cr_assert_eq(wg_skills_install_in(&where, a, dir, starter, first->name, "starter-pack"), 0,
                 "%s", wg_error_last());
    cr_assert(on_pg ? strstr(where, "the shared store (skills/") != NULL
                    : strstr(where, dir) == where, "%s", where);
    free(where);
    char rel[128];
    snprintf(rel, sizeof rel, "skills/%s.md", first->name);
    cr_assert_eq(exists_in(dir, rel), !on_pg, "a file only on one machine");
    cr_assert_eq(wg_skillset_load_active_in(&active, b, dir), 0, "%s", wg_error_last());
    cr_assert_eq(wg_skillset_count(active), 1);
    const wg_skill *got = wg_skillset_find(active, first->name);
    cr_assert_not_null(got);
    cr_assert_eq(got->length, first->length);
    cr_assert_eq(memcmp(got->content, first->content, first->length), 0);
    wg_skillset_free(active);
    cr_assert_eq(wg_skills_install_in(NULL, b, dir, starter, first->name, "starter-pack"),
                 WG_EEXISTS);
    cr_assert(strstr(wg_error_last(), "already installed"), "%s", wg_error_last());
    cr_assert_eq(wg_skills_install_in(NULL, b, dir, starter, "../x", "starter-pack"), WG_EINVAL);
    wg_skillset_free(starter);
    wg_store_free(a);
    wg_store_free(b);
}

/* Plugins written through one handle are loaded through the other; a
 * broken one is skipped and counted, never hiding the others. */
static void plugins_are_seen_by_another_handle(void)
{
    wg_store *a = open_store(), *b = open_store();
    static const char good[] = "{\"name\":\"tidy\",\"description\":\"d\",\"tools\":[\"t1\",\"t2\"]}";
    cr_assert_eq(wg_tree__create(a, dir, "plugins/tidy/plugin.json", good, strlen(good)), 0, "%s",
                 wg_error_last());
    cr_assert_eq(wg_tree__create(a, dir, "plugins/broken/plugin.json", "[1]", 3), 0);
    cr_assert_eq(wg_tree__create(a, dir, "plugins/tidy/plugin.json", "{}", 2), WG_EEXISTS,
                 "create never replaces");
    wg_plugin_list pl;
    cr_assert_eq(wg_plugins_load_in(&pl, b, dir), 0, "%s", wg_error_last());
    cr_assert_eq(pl.count, 1);
    cr_assert_str_eq(pl.items[0].name, "tidy");
    cr_assert_eq(pl.items[0].n_tools, 2);
    cr_assert_eq(pl.skipped, 1);
    wg_plugin_list_free(&pl);
    wg_store_free(a);
    wg_store_free(b);
}

/* Names never leave their subtree; the list bound at N and N+1. */
static void names_are_confined_and_lists_bounded(void)
{
    wg_store *st = open_store();
    static const char *const bad[] = { "../x", "skills/../../etc/passwd", "/etc/passwd",
                                       "skills//a.md", "skills/.hidden.md", "skills/a b.md",
                                       "skills/a\\b.md", "", "skills/", "skills/\xc3\xa9.md" };
    char *text = NULL;
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        cr_assert_eq(wg_tree__create(st, dir, bad[i], "x", 1), WG_EINVAL, "%s", bad[i]);
        cr_assert_eq(wg_tree__read(&text, NULL, st, dir, bad[i], 10), WG_EINVAL, "%s", bad[i]);
    }
    char **names = NULL;
    size_t n = 0;
    cr_assert_eq(wg_tree__list(&names, &n, st, dir, "..", ".md"), WG_EINVAL);
    /* a document over the store's bound is refused on both back ends */
    char *big = malloc(WG_STORE_DOC_MAX + 1);
    memset(big, 'x', WG_STORE_DOC_MAX + 1);
    cr_assert_eq(wg_tree__create(st, dir, "skills/big.md", big, WG_STORE_DOC_MAX + 1), WG_EINVAL);
    free(big);
    /* WG_TREE_LIST_MAX entries list; one more fails closed (files are
     * written plainly here: 4096 fsyncs would only measure the disk) */
    cr_assert_eq(wg_tree__begin(st), 0);
    for (int i = 0; i < WG_TREE_LIST_MAX; i++) {
        char rel[64];
        snprintf(rel, sizeof rel, "skills/s%05d.md", i);
        if (on_pg)
            cr_assert_eq(wg_tree__create(st, dir, rel, "x", 1), 0, "%s", wg_error_last());
        else
            cr_assert_eq(wgt_write_file(dir, rel, "x"), 0);
    }
    cr_assert_eq(wg_tree__end(st, 0), 0);
    cr_assert_eq(wg_tree__list(&names, &n, st, dir, "skills", ".md"), 0, "%s", wg_error_last());
    cr_assert_eq(n, WG_TREE_LIST_MAX);
    cr_assert_str_eq(names[0], "s00000");
    cr_assert_str_eq(names[WG_TREE_LIST_MAX - 1], "s04095");
    wg_store_doc_names_free(names);
    cr_assert_eq(wg_tree__create(st, dir, "skills/t.md", "x", 1), 0);
    cr_assert_eq(wg_tree__list(&names, &n, st, dir, "skills", ".md"), WG_EINVAL);
    cr_assert(strstr(wg_error_last(), "more than 4096"), "%s", wg_error_last());
    wg_store_free(st);
}

/* Hostile pack manifests are refused with a reason, never stored. */
static void hostile_packs_are_refused(void)
{
    json_t *p = NULL;
    size_t deep = 100000;
    char *nested = malloc(2 * deep + 64);
    int k = sprintf(nested, "{\"skills\":[\"a\"],\"x\":");
    memset(nested + k, '[', deep);
    memset(nested + k + deep, ']', deep);
    strcpy(nested + k + 2 * deep, "}");
    cr_assert_eq(wg_tree__pack_parse(&p, nested, strlen(nested), "deep"), WG_EINVAL);
    cr_assert(strstr(wg_error_last(), "pack deep"), "%s", wg_error_last());
    sprintf(nested, "{\"skills\":[\"a\"],\"x\":[[[[1]]]]}");
    cr_assert_eq(wg_tree__pack_parse(&p, nested, strlen(nested), "deep"), WG_EINVAL);
    cr_assert(strstr(wg_error_last(), "nested"), "%s", wg_error_last());
    free(nested);
    char *huge = malloc(WG_PACK_MANIFEST_MAX + 2);
    memset(huge, ' ', WG_PACK_MANIFEST_MAX + 1);
    memcpy(huge, "{\"skills\":[\"a\"]}", 16);
    cr_assert_eq(wg_tree__pack_parse(&p, huge, WG_PACK_MANIFEST_MAX, "big"), 0, "N is fine");
    json_decref(p);
    cr_assert_eq(wg_tree__pack_parse(&p, huge, WG_PACK_MANIFEST_MAX + 1, "big"), WG_EINVAL);
    cr_assert(strstr(wg_error_last(), "at most"), "%s", wg_error_last());
    free(huge);
    static const char *const bad[] = {
        "[]", "{\"skills\":[]}", "{\"skills\":[\"../x\"]}", "{\"skills\":[\"a\",\"a\"]}",
        "{\"skills\":[\"a\"],\"skills\":[\"b\"]}", "{\"skills\":[1]}", "{\"skills\":\"a\"}",
        "{\"skills\":[\"a\"],\"description\":7}", "{\"skills\":[\"a\"],\"author\":{\"n\":1}}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        cr_assert_eq(wg_tree__pack_parse(&p, bad[i], strlen(bad[i]), "p"), WG_EINVAL, "%s", bad[i]);
    const char *ok = "{\"name\":\"other\",\"skills\":[\"a\",\"b\"],\"version\":\"1\"}";
    cr_assert_eq(wg_tree__pack_parse(&p, ok, strlen(ok), "p"), 0, "%s", wg_error_last());
    cr_assert_str_eq(json_string_value(json_object_get(p, "name")), "p", "the name is the pack's");
    json_decref(p);
}

/* Two engines ("replicas"): a pack published on one is listed and
 * installed on the other, and its skills are then active on the first. */
static void marketplace_across_engines(void)
{
    wg_engine *one = open_engine(dir), *two = open_engine(dir2);
    wg_store *st = NULL;
    cr_assert_eq(wg_engine_store(&st, one), 0, "%s", wg_error_last());
    static const char skill[] = "# Minutes\nWrite the minutes of a meeting.\n";
    cr_assert_eq(wg_tree__create(on_pg ? st : NULL, dir, "skills/minutes.md", skill,
                                 strlen(skill)), 0, "%s", wg_error_last());
    json_t *pack = NULL, *list = NULL, *inst = NULL;
    cr_assert_eq(wg_marketplace_publish(&pack, one, "minutes", "meeting minutes", "test"), 0,
                 "%s", wg_error_last());
    json_decref(pack);
    cr_assert_eq(wg_marketplace_publish(&pack, two, "minutes", NULL, "test"), WG_EEXISTS);
    cr_assert_eq(wg_marketplace_list(&list, two), 0, "%s", wg_error_last());
    cr_assert_eq(json_integer_value(json_object_get(list, "total")), 1);
    json_t *p0 = json_array_get(json_object_get(list, "packs"), 0);
    cr_assert_str_eq(json_string_value(json_object_get(p0, "name")), "minutes");
    cr_assert_str_eq(json_string_value(json_object_get(p0, "description")), "meeting minutes");
    json_decref(list);
    /* installing needs the skill absent: take it away, then install on two */
    if (on_pg)
        cr_assert_eq(wg_store_doc_delete(st, "skills/minutes.md"), 0);
    else
        cr_assert_eq(unlink(strcat(strcpy((char[4200]){ 0 }, dir), "/skills/minutes.md")), 0);
    cr_assert_eq(wg_marketplace_install(&inst, two, "minutes", "test"), 0, "%s", wg_error_last());
    cr_assert_eq(json_array_size(inst), 1);
    json_decref(inst);
    cr_assert_eq(wg_marketplace_install(&inst, one, "minutes", "test"), WG_EEXISTS);
    wg_skillset *active = NULL;
    cr_assert_eq(wg_skillset_load_active_in(&active, on_pg ? st : NULL, dir), 0);
    cr_assert_not_null(wg_skillset_find(active, "minutes"), "installed on two, active on one");
    wg_skillset_free(active);
    cr_assert_eq(exists_in(dir2, "marketplace/minutes/pack.json"), 0, "nothing in two's data dir");
    wg_engine_free(one);
    wg_engine_free(two);
}

Test(files_sqlite, skill_installed_on_one_is_active_on_another)
{
    skill_installed_on_one_is_active_on_another();
}
Test(files_pg, skill_installed_on_one_is_active_on_another)
{
    skill_installed_on_one_is_active_on_another();
}
Test(files_sqlite, plugins_are_seen_by_another_handle) { plugins_are_seen_by_another_handle(); }
Test(files_pg, plugins_are_seen_by_another_handle) { plugins_are_seen_by_another_handle(); }
Test(files_sqlite, names_are_confined_and_lists_bounded) { names_are_confined_and_lists_bounded(); }
Test(files_pg, names_are_confined_and_lists_bounded) { names_are_confined_and_lists_bounded(); }
Test(files_sqlite, hostile_packs_are_refused) { hostile_packs_are_refused(); }
Test(files_pg, hostile_packs_are_refused) { hostile_packs_are_refused(); }
Test(files_sqlite, marketplace_across_engines) { marketplace_across_engines(); }
Test(files_pg, marketplace_across_engines) { marketplace_across_engines(); }

/* ---- the one-time import of an existing data dir ----------------------------------------- */

/* A data dir as a single machine left it, with one of everything and some
 * hostile files beside. */
static void fill_data_dir(const char *d)
{
    wgt_write_file(d, "skills/notes.md", "# Notes\nTake notes.\n");
    wgt_write_file(d, "skills/-dash.md", "x");   /* a file name, not a skill name */
    wgt_write_file(d, "plugins/tidy/plugin.json", "{\"name\":\"tidy\",\"tools\":[\"t\"]}");
    wgt_write_file(d, "plugins/broken/plugin.json", "not json");
    wgt_write_file(d, "personas/my-bot.json", "{\"id\":\"my-bot\",\"name\":\"My Bot\","
                   "\"tools\":[\"read_file\"],\"custom\":true}");
    wgt_write_file(d, "personas/junk.json", "[1,2]");
    wgt_write_file(d, "marketplace/writing/pack.json",
                   "{\"name\":\"writing\",\"description\":\"d\",\"skills\":[\"tone\"]}");
    wgt_write_file(d, "marketplace/writing/tone.md", "# Tone\nWrite plainly.\n");
    wgt_write_file(d, "marketplace/loose/a.md", "# A\n");   /* no pack.json: made from files */
    wgt_write_file(d, "marketplace/nested/pack.json", "{\"skills\":[\"a\"],\"x\":{\"y\":[1]}}");
    wgt_write_file(d, "marketplace/nested/a.md", "# A\n");
    wgt_write_file(d, "marketplace/missing/pack.json", "{\"skills\":[\"gone\"]}");
    char *huge = malloc(WG_MARKETPLACE_SKILL_BYTES + 2);
    memset(huge, 'h', WG_MARKETPLACE_SKILL_BYTES + 1);
    huge[WG_MARKETPLACE_SKILL_BYTES + 1] = '\0';
    wgt_write_file(d, "marketplace/huge/pack.json", "{\"skills\":[\"big\"]}");
    wgt_write_file(d, "marketplace/huge/big.md", huge);
    free(huge);
}

Test(files_pg, import_once_keeps_files_and_refuses_hostile_ones)
{
    fill_data_dir(dir);
    wg_store *st = open_store();
    wg_tree_import r;
    cr_assert_eq(wg_tree__import(&r, st, dir), 0, "%s", wg_error_last());
    /* notes.md, tidy, writing, loose, my-bot */
    cr_assert_eq(r.imported, 5, "%zu imported (%s)", r.imported, r.first_refusal);
    /* bad name, broken plugin, nested, missing, huge, junk persona */
    cr_assert_eq(r.refused, 6, "%zu refused", r.refused);
    cr_assert_neq(r.first_refusal[0], '\0');
    char *text = NULL;
    cr_assert_eq(wg_store_doc_get(&text, NULL, st, "marketplace/nested/pack.json"), WG_ENOTFOUND);
    cr_assert_eq(wg_store_doc_get(&text, NULL, st, "marketplace/huge/big.md"), WG_ENOTFOUND,
                 "a refused pack leaves nothing behind");
    cr_assert_eq(wg_store_doc_get(&text, NULL, st, "marketplace/loose/pack.json"), 0);
    cr_assert(strstr(text, "\"a\""), "%s", text);
    free(text);
    /* the files are where they were */
    cr_assert(exists_in(dir, "skills/notes.md") && exists_in(dir, "marketplace/writing/tone.md") &&
              exists_in(dir, "plugins/tidy/plugin.json"));
    /* again (another replica's open, or a restart): nothing changes */
    cr_assert_eq(wg_tree__import(&r, st, dir), 0);
    cr_assert_eq(r.imported, 0);
    cr_assert_eq(r.present, 5);
    /* a copy another replica changed is kept: the store's copy wins */
    cr_assert_eq(wg_store_doc_put(st, "skills/notes.md", "# Changed\n", 10), 0);
    cr_assert_eq(wg_tree__import(&r, st, dir), 0);
    cr_assert_eq(wg_store_doc_get(&text, NULL, st, "skills/notes.md"), 0);
    cr_assert_str_eq(text, "# Changed\n");
    free(text);
    /* and the loaders see the imported state */
    wg_skillset *active = NULL;
    cr_assert_eq(wg_skillset_load_active_in(&active, st, NULL), 0);
    cr_assert_not_null(wg_skillset_find(active, "notes"));
    wg_skillset_free(active);
    wg_plugin_list pl;
    cr_assert_eq(wg_plugins_load_in(&pl, st, NULL), 0);
    cr_assert_eq(pl.count, 1);
    wg_plugin_list_free(&pl);
    json_t *all = NULL;
    cr_assert_eq(wg_personas_list_in(&all, st, NULL), 0);
    size_t i, custom = 0;
    json_t *v;
    json_array_foreach(all, i, v)
        custom += !strcmp(json_string_value(json_object_get(v, "id")), "my-bot");
    cr_assert_eq(custom, 1, "the data dir's persona is a replica's persona");
    json_decref(all);
    wg_store_free(st);
    /* an engine on the data dir imports on open; a second one on an empty
     * data dir sees the packs */
    wg_engine *e = open_engine(dir2);
    json_t *list = NULL;
    cr_assert_eq(wg_marketplace_list(&list, e), 0, "%s", wg_error_last());
    cr_assert_eq(json_integer_value(json_object_get(list, "total")), 2, "writing and loose");
    json_decref(list);
    wg_engine_free(e);
}

Test(files_sqlite, import_is_a_no_op_on_one_machine)
{
    fill_data_dir(dir);
    wg_store *st = open_store();
    wg_tree_import r;
    cr_assert_eq(wg_tree__import(&r, st, dir), 0);
    cr_assert_eq(r.imported + r.present + r.refused, 0);
    wg_store_rows *rows = NULL;
    cr_assert_eq(wg_store_exec(st, "SELECT COUNT(*) FROM shared_docs", NULL, 0, &rows, NULL), 0);
    cr_assert_eq(wg_store_rows_int(rows, 0, 0), 0, "SQLite keeps the files");
    wg_store_rows_free(rows);
    wg_store_free(st);
    /* and the marketplace of one machine still reads the files, refusing
     * the hostile packs */
    wg_engine *e = open_engine(dir);
    json_t *list = NULL, *inst = NULL;
    cr_assert_eq(wg_marketplace_list(&list, e), 0, "%s", wg_error_last());
    cr_assert_eq(json_integer_value(json_object_get(list, "total")), 4,
                 "writing, loose, missing, huge (the nested one is refused)");
    json_decref(list);
    cr_assert_eq(wg_marketplace_install(&inst, e, "nested", "test"), WG_EINVAL);
    cr_assert(strstr(wg_error_last(), "nested"), "%s", wg_error_last());
    cr_assert_eq(wg_marketplace_install(&inst, e, "huge", "test"), WG_EINVAL);
    cr_assert_eq(wg_marketplace_install(&inst, e, "missing", "test"), WG_EINVAL);
    cr_assert_eq(wg_marketplace_install(&inst, e, "writing", "test"), 0, "%s", wg_error_last());
    json_decref(inst);
    cr_assert(exists_in(dir, "skills/tone.md"));
    wg_engine_free(e);
}

/* The other readers of installed skills and plugins: the router's inputs
 * and the skills a generated persona suggests. */
static void router_inputs_and_persona_suggestions_follow_the_store(void)
{
    wg_store *a = open_store(), *b = open_store();
    static const char skill[] = "# Budget review\nReview a budget.\n";
    static const char plugin[] = "{\"name\":\"ledger\",\"mcpServers\":[\"books\"]}";
    cr_assert_eq(wg_tree__create(a, dir, "skills/budget-review.md", skill, strlen(skill)), 0);
    cr_assert_eq(wg_tree__create(a, dir, "plugins/ledger/plugin.json", plugin, strlen(plugin)), 0);
    wg_capdeps *d = NULL;
    cr_assert_eq(wg_capdeps_load_local_in(&d, b, dir), 0, "%s", wg_error_last());
    const wg_router_deps *r = wg_capdeps_router(d);
    cr_assert_eq(r->n_skills, 1);
    cr_assert_str_eq(r->skills[0].name, "budget-review");
    cr_assert_eq(r->n_plugins, 1);
    cr_assert_eq(r->n_mcp_servers, 1);
    wg_capdeps_free(d);
    json_t *p = NULL;
    cr_assert_eq(wg_personas_generate_in(&p, b, dir, "help me review the budget", NULL), 0);
    json_t *sk = json_object_get(p, "skills");
    cr_assert_eq(json_array_size(sk), 1, "%s", json_dumps(p, 0));
    cr_assert_str_eq(json_string_value(json_array_get(sk, 0)), "budget-review");
    json_decref(p);
    wg_store_free(a);
    wg_store_free(b);
}

Test(files_sqlite, router_inputs_and_persona_suggestions_follow_the_store)
{
    router_inputs_and_persona_suggestions_follow_the_store();
}
Test(files_pg, router_inputs_and_persona_suggestions_follow_the_store)
{
    router_inputs_and_persona_suggestions_follow_the_store();
}

/* `waggle skills` on the replicas' database: installed from one data dir,
 * active when listed from another; a data dir's own skill file is
 * imported on first use and stays where it is. */
Test(files_pg, cli_skills_go_through_the_shared_store)
{
    char env[1400];
    snprintf(env, sizeof env, "WAGGLE_DATABASE_URL=%s", conninfo);
    const char *envp[] = { env, NULL };
    wg_skillset *starter = NULL;
    cr_assert_eq(wg_skillset_load_starter(&starter), 0);
    const char *name = wg_skillset_get(starter, 0)->name;
    wgt_write_file(dir, "skills/house-style.md", "# House style\nOur style.\n");
    const char *install[] = { "--data-dir", dir, "skills", "install", name, NULL };
    wgt_result r;
    cr_assert_eq(wgt_run_cli(&r, NULL, envp, install), 0);
    cr_assert_eq(r.status, 0, "%s", r.err);
    cr_assert(strstr(r.out, "the shared store (skills/"), "%s", r.out);
    wgt_result_free(&r);
    cr_assert(exists_in(dir, "skills/house-style.md"), "the user's file stays");
    char rel[128];
    snprintf(rel, sizeof rel, "skills/%s.md", name);
    cr_assert(!exists_in(dir, rel), "no file beside a shared store");
    const char *list[] = { "--data-dir", dir2, "skills", "list", "--json", NULL };
    cr_assert_eq(wgt_run_cli(&r, NULL, envp, list), 0);
    cr_assert_eq(r.status, 0, "%s", r.err);
    json_t *o = json_loads(r.out, 0, NULL);
    cr_assert_not_null(o, "%s", r.out);
    json_t *active = json_object_get(o, "active");
    cr_assert_eq(json_array_size(active), 2, "%s", r.out);
    int found = 0;
    for (size_t i = 0; i < 2; i++)
        found += !strcmp(json_string_value(json_object_get(json_array_get(active, i), "name")),
                         "house-style");
    cr_assert_eq(found, 1, "the imported file is active: %s", r.out);
    json_decref(o);
    wgt_result_free(&r);
    const char *again[] = { "--data-dir", dir2, "skills", "install", name, NULL };
    cr_assert_eq(wgt_run_cli(&r, NULL, envp, again), 0);
    cr_assert_eq(r.status, 1, "already installed, on any replica: %s", r.out);
    cr_assert(strstr(r.err, "already installed"), "%s", r.err);
    wgt_result_free(&r);
    wg_skillset_free(starter);
}

/* ---- the local catalog ------------------------------------------------------------------ */

static json_t *small_entries(void)
{
    json_t *e = json_load_file(WG_TEST_DATA_DIR "/catalog/good_small.json", 0, NULL);
    cr_assert(json_is_array(e));
    return e;
}

/* Entries imported through one handle are in the catalog another opens;
 * the same entries again collide and nothing is written. */
static void catalog_import_is_seen_by_another_handle(void)
{
    wg_store *a = open_store(), *b = open_store();
    wg_catalog *base = NULL, *cat = NULL;
    cr_assert_eq(wg_catalog_open_embedded(&base), 0);
    json_t *entries = small_entries();
    size_t added = 0;
    cr_assert_eq(wg_catalog_import_local_in(&added, a, dir, entries), 0, "%s", wg_error_last());
    cr_assert_eq(added, 2);
    cr_assert_eq(exists_in(dir, "catalog.json"), !on_pg, "a file only on one machine");
    cr_assert_eq(wg_catalog_open_in(&cat, b, dir), 0, "%s", wg_error_last());
    cr_assert_eq(wg_catalog_count(cat), wg_catalog_count(base) + 2);
    cr_assert_not_null(wg_catalog_lookup(cat, "alpha"));
    wg_catalog_free(cat);
    cr_assert_eq(wg_catalog_import_local_in(&added, b, dir, entries), WG_EINVAL);
    cr_assert(strstr(wg_error_last(), "alpha"), "the message names the entry: %s",
              wg_error_last());
    cr_assert_eq(wg_catalog_open_in(&cat, a, dir), 0);
    cr_assert_eq(wg_catalog_count(cat), wg_catalog_count(base) + 2, "nothing written");
    wg_catalog_free(cat);
    json_decref(entries);
    wg_catalog_free(base);
    wg_store_free(a);
    wg_store_free(b);
}

Test(files_sqlite, catalog_import_is_seen_by_another_handle)
{
    catalog_import_is_seen_by_another_handle();
}
Test(files_pg, catalog_import_is_seen_by_another_handle)
{
    catalog_import_is_seen_by_another_handle();
}

/* An import larger than one document is split into several; the catalog
 * is the same as one document would make. */
Test(files_pg, a_large_catalog_import_is_split_into_documents)
{
    wg_store *st = open_store();
    json_t *entries = json_array();
    char pad[301];
    memset(pad, 'p', 300);
    pad[300] = '\0';
    enum { N = 12000 };   /* ~5 MiB compact: two documents */
    for (int i = 0; i < N; i++) {
        char id[32], url[64], desc[400];
        snprintf(id, sizeof id, "gen-%05d", i);
        snprintf(url, sizeof url, "https://example.com/gen/%05d", i);
        snprintf(desc, sizeof desc, "Generated server %d %s", i, pad);
        json_array_append_new(entries, json_pack("{s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:[s],s:[s]}",
            "id", id, "name", id, "description", desc, "author", "Test", "category", "Code",
            "url", url, "installCmd", "npx -y gen", "capabilities", "test", "keywords", "test"));
    }
    size_t added = 0;
    cr_assert_eq(wg_catalog_import_local_in(&added, st, NULL, entries), 0, "%s", wg_error_last());
    cr_assert_eq(added, N);
    char **names = NULL;
    size_t n = 0;
    cr_assert_eq(wg_tree__list(&names, &n, st, NULL, "catalog", ".json"), 0);
    cr_assert_eq(n, 2, "%zu documents", n);
    cr_assert_str_eq(names[0], "000001");
    cr_assert_str_eq(names[1], "000002");
    wg_store_doc_names_free(names);
    wg_catalog *cat = NULL, *base = NULL;
    cr_assert_eq(wg_catalog_open_in(&cat, st, NULL), 0, "%s", wg_error_last());
    cr_assert_eq(wg_catalog_open_embedded(&base), 0);
    cr_assert_eq(wg_catalog_count(cat), wg_catalog_count(base) + N);
    cr_assert_not_null(wg_catalog_lookup(cat, "gen-11999"));
    wg_catalog_free(cat);
    wg_catalog_free(base);
    json_decref(entries);
    wg_store_free(st);
}

/* A data dir's catalog.json joins a store that has no catalog yet, once;
 * an engine on another data dir serves it. */
Test(files_pg, a_data_dirs_catalog_json_is_imported_once)
{
    char *text = wgt_read_file(WG_TEST_DATA_DIR "/catalog/good_small.json");
    cr_assert_eq(wgt_write_file(dir, "catalog.json", text), 0);
    free(text);
    wg_store *st = open_store();
    wg_tree_import r;
    cr_assert_eq(wg_tree__import(&r, st, dir), 0, "%s", wg_error_last());
    cr_assert_eq(r.imported, 1, "%s", r.first_refusal);
    cr_assert_eq(wg_tree__import(&r, st, dir), 0);
    cr_assert_eq(r.imported, 0);
    cr_assert_eq(r.present, 1);
    cr_assert(exists_in(dir, "catalog.json"), "the file stays");
    /* a broken catalog.json of another data dir is refused, not stored */
    cr_assert_eq(wg_store_exec(st, "DELETE FROM shared_docs", NULL, 0, NULL, NULL), 0);
    cr_assert_eq(wgt_write_file(dir2, "catalog.json", "[{\"id\":\"x\"}]"), 0);
    cr_assert_eq(wg_tree__import(&r, st, dir2), 0);
    cr_assert_eq(r.refused, 1);
    cr_assert(strstr(r.first_refusal, "catalog.json"), "%s", r.first_refusal);
    wg_store_free(st);
    unlink(strcat(strcpy((char[4200]){ 0 }, dir2), "/catalog.json"));
    wg_engine *one = open_engine(dir);   /* imports dir's catalog.json on open */
    wg_store *s1 = NULL;
    cr_assert_eq(wg_engine_store(&s1, one), 0);
    wg_engine *two = open_engine(dir2);
    const wg_catalog *cat = NULL;
    cr_assert_eq(wg_engine_catalog(&cat, two), 0, "%s", wg_error_last());
    cr_assert_not_null(wg_catalog_lookup(cat, "beta"), "served by a replica without the file");
    wg_engine_free(two);
    wg_engine_free(one);
}
