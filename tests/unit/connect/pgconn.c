/* pgconn.c - the postgres connector's connection policy without a server
 * (src/connect/pgconn.h, docs/security.md 2.3): on a default registry the
 * app cannot aim the connector at the local server (loopback, a Unix
 * socket, no host at all, a hostaddr, one private host among public ones),
 * cannot make libpq read local files, cannot turn TLS off, and a malformed
 * connection string is refused without quoting its password. Nothing here
 * reaches a network: every case is refused before libpq connects. */
#include <criterion/criterion.h>
#include <string.h>

#include "waggle/connector.h"
#include "waggle/error.h"

Test(pgconn, the_default_policy_refuses_the_local_server)
{
    /* the registry of a default waggled: no private upstreams */
    wg_connect_vault *v;
    wg_registry *reg = NULL;
    cr_assert_eq(wg_connect_memvault_new(&v), 0);
    wg_registry_options o = { .version = WG_REGISTRY_OPTIONS_VERSION, .vault = v };
    cr_assert_eq(wg_registry_new(&reg, &o), 0);
    static const char *const cis[] = {
        "host=127.0.0.1 port=5432 dbname=x user=x", "postgresql://x@localhost/x",
        "host=/var/run/postgresql dbname=x", "dbname=x", "host=db.example.com hostaddr=10.0.0.1",
        "host=8.8.8.8,127.0.0.1 dbname=x", "postgresql://x@[::1]:5432/x",
    };
    for (size_t i = 0; i < sizeof cis / sizeof *cis; i++) {
        wg_connect_request req = { .token = cis[i] };
        cr_expect_eq(wg_registry_connect(reg, "postgres", &req), WG_EDENIED, "%s", cis[i]);
    }
    /* files and plain text are the operator's */
    static const char *const app_only[] = {
        "host=8.8.8.8 passfile=/etc/shadow", "host=8.8.8.8 sslkey=/root/.ssh/id_rsa",
        "host=8.8.8.8 service=prod", "host=8.8.8.8 sslmode=disable", "host=8.8.8.8 sslmode=prefer",
    };
    for (size_t i = 0; i < sizeof app_only / sizeof *app_only; i++) {
        wg_connect_request req = { .token = app_only[i] };
        cr_expect_eq(wg_registry_connect(reg, "postgres", &req), WG_EDENIED, "%s", app_only[i]);
    }
    wg_connect_request bad = { .token = "host=8.8.8.8 password=hunter2secret bogus_keyword=1" };
    cr_expect_eq(wg_registry_connect(reg, "postgres", &bad), WG_EINVAL);
    cr_expect_null(strstr(wg_error_last(), "hunter2secret"));
    wg_registry_free(reg);
    wg_connect_memvault_free(v);
}
