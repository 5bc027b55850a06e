/* abi_versions.c - every versioned options and back-end struct (STYLE 17,
 * docs/abi.md): its _INIT macro sets the version, and the library refuses
 * a struct of another version - 0 (a caller who forgot the macro) or one
 * from a newer header - with WG_EINVAL and a message naming the struct,
 * before it reads any other field or touches a file. */
#include <criterion/criterion.h>
#include <string.h>

#include "waggle/connector.h"
#include "waggle/error.h"
#include "waggle/gate.h"
#include "waggle/oauth.h"
#include "waggle/pool.h"
#include "waggle/server.h"
#include "waggle/sys/connector.h"
#include "waggle/sys/store.h"

static void refused(int rc, const char *name)
{
    cr_assert_eq(rc, WG_EINVAL, "%s: %d", name, rc);
    cr_assert(strstr(wg_error_last(), name), "the message names %s: %s", name, wg_error_last());
}

Test(abi_versions, init_macros_set_the_current_version)
{
    wg_server_options so = WG_SERVER_OPTIONS_INIT;
    wg_registry_options ro = WG_REGISTRY_OPTIONS_INIT;
    wg_pool_options po = WG_POOL_OPTIONS_INIT;
    wg_gate_hooks gh = WG_GATE_HOOKS_INIT;
    wg_connect_vault cv = WG_CONNECT_VAULT_INIT;
    wg_connect_audit ca = WG_CONNECT_AUDIT_INIT;
    wg_connector_spec cs = WG_CONNECTOR_SPEC_INIT;
    wg_store_backend sb = WG_STORE_BACKEND_INIT;
    cr_assert_eq(so.version, WG_SERVER_OPTIONS_VERSION);
    cr_assert_eq(ro.version, WG_REGISTRY_OPTIONS_VERSION);
    cr_assert_eq(po.version, WG_POOL_OPTIONS_VERSION);
    cr_assert_eq(gh.version, WG_GATE_HOOKS_VERSION);
    cr_assert_eq(cv.version, WG_CONNECT_VAULT_VERSION);
    cr_assert_eq(ca.version, WG_CONNECT_AUDIT_VERSION);
    cr_assert_eq(cs.version, WG_CONNECTOR_SPEC_VERSION);
    cr_assert_eq(sb.version, WG_STORE_BACKEND_VERSION);
    cr_assert_null(so.data_dir, "everything else is zero");
    cr_assert_null(cv.get);
}

Test(abi_versions, options_of_another_version_are_refused)
{
    unsigned bad[] = { 0, 2, 0xffffffffu };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        wg_server_options so = { .version = bad[i], .data_dir = "/nonexistent-abi-test" };
        wg_server *srv = NULL;
        refused(wg_server_start(&srv, &so), "wg_server_options");
        cr_assert_null(srv);

        wg_registry_options ro = { .version = bad[i] };
        wg_registry *reg = NULL;
        refused(wg_registry_new(&reg, &ro), "wg_registry_options");
        cr_assert_null(reg);

        wg_pool_options po = { .version = bad[i] };
        wg_pool *pool = NULL;
        refused(wg_pool_new(&pool, "openai", NULL, &po), "wg_pool_options");
        cr_assert_null(pool);

        wg_gate_hooks gh = { .version = bad[i] };
        wg_gate *gate = NULL;
        refused(wg_gate_new(&gate, &gh), "wg_gate_hooks");
        cr_assert_null(gate);
    }
}

Test(abi_versions, back_ends_of_another_version_are_refused)
{
    wg_connect_vault *mem = NULL;
    cr_assert_eq(wg_connect_memvault_new(&mem), 0);
    cr_assert_eq(mem->version, WG_CONNECT_VAULT_VERSION, "the library's own seams are current");

    wg_connect_vault old = *mem;
    old.version = 0;
    wg_registry_options ro = { .version = WG_REGISTRY_OPTIONS_VERSION, .vault = &old };
    wg_registry *reg = NULL;
    refused(wg_registry_new(&reg, &ro), "wg_connect_vault");
    wg_oauth *tm = NULL;
    refused(wg_oauth_new(&tm, &old, NULL), "wg_connect_vault");

    wg_connect_audit audit = { .version = 0 };
    ro.vault = mem;
    ro.audit = &audit;
    refused(wg_registry_new(&reg, &ro), "wg_connect_audit");

    ro.audit = NULL;
    ro.no_builtins = 1;
    cr_assert_eq(wg_registry_new(&reg, &ro), 0, "%s", wg_error_last());
    static const wg_connector_ops ops = { 0 };
    wg_connector_spec spec = { .version = 0, .id = "legacy", .name = "L", .ops = &ops };
    refused(wg_registry_register(reg, &spec), "spec version");
    spec.version = WG_CONNECTOR_SPEC_VERSION;
    cr_assert_eq(wg_registry_register(reg, &spec), 0, "%s", wg_error_last());
    wg_registry_free(reg);
    wg_connect_memvault_free(mem);

    wg_store_backend be = *wg_store_sqlite_backend();
    cr_assert_eq(be.version, WG_STORE_BACKEND_VERSION);
    be.version = 2;
    wg_store *st = NULL;
    refused(wg_store_open_backend(&st, &be, "/nonexistent-abi-test/x.db", NULL), "table version");
    cr_assert_null(st);
    be.version = WG_STORE_BACKEND_VERSION;
    be.exec = NULL;
    refused(wg_store_open_backend(&st, &be, "/nonexistent-abi-test/x.db", NULL), "missing");
}
