/* pgconn.h - opening a PostgreSQL connection for the postgres connector
 * under the operator's policy (internal to src/connect; docs/security.md
 * 2.3, 3.3).
 *
 * The conninfo (or postgresql:// URI) is the app's credential, so it is not
 * handed to libpq as it is:
 *   - it is parsed with PQconninfoParse and passed keyword by keyword
 *     (expand_dbname 0: a dbname that looks like a conninfo stays a name);
 *   - every host goes through the upstream policy (upstream.h): resolved
 *     once, every address checked, and the connection pinned with
 *     hostaddr; a Unix socket (an absolute path, "@abstract", or no host at
 *     all) is the local server and counts as private; a hostaddr given in
 *     the conninfo is checked the same way;
 *   - keywords that make libpq read local files (passfile, service,
 *     servicefile, sslcert, sslkey, sslrootcert, sslcrl, sslcrldir) are the
 *     operator's only, and a credential the app stored never falls back to
 *     the service user's ~/.pgpass;
 *   - without plain upstreams allowed, sslmode is at least "require"
 *     (disable / allow / prefer are refused: they may send the password in
 *     clear text);
 *   - after connecting, the role is inspected: superuser, CREATEROLE,
 *     REPLICATION, BYPASSRLS, membership of pg_read_server_files,
 *     pg_write_server_files, pg_execute_server_program or pg_signal_backend
 *     (directly or through any role it belongs to, for the session and the
 *     current user), or owning dblink, postgres_fdw, file_fdw, adminpack,
 *     pg_cron or an untrusted language, refuse the connection unless the
 *     operator allows privileged roles (grants->allow_privileged_db_roles).
 * Thread-safe: state only in the arguments.
 */
#ifndef WG_CONNECT_PGCONN_H
#define WG_CONNECT_PGCONN_H

#include <jansson.h>
#include <libpq-fe.h>
#include "waggle/connector.h"

enum { WG_PG_MAX_KEYWORDS = 64 };          /* conninfo keywords kept */
#define WG_PG_CONNECT_TIMEOUT "5"          /* seconds, as libpq takes it */

/* The connection, ready for statements; NULL when refused or failed: *fail
 * is a new ConnectorResult failure (scrubbed of the credential) and *code
 * WG_EINVAL (unreadable conninfo), WG_EDENIED (the policy or the role
 * check refused it), WG_EUPSTREAM (the server could not be reached or
 * refused the login) or WG_ENOMEM. */
PGconn *wg_pgconn__open(const wg_connector_call *call, json_t **fail, int *code);

#endif
