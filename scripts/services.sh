#!/usr/bin/env bash
# services.sh - start and stop what the integration tests need, on loopback only.
# Sourced by test.sh. Exports WAGGLE_TEST_PG (a libpq conninfo) once PostgreSQL
# is up. PostgreSQL refuses to run as root, so it runs as the postgres user.

# services_free_port FIRST: prints the first TCP port from FIRST (at most 100
# tried) that nothing on 127.0.0.1 accepts connections on, so a server left
# over from an earlier run cannot stop this one. Fails when none is free.
services_free_port() {
  local p=$1 last=$(( $1 + 99 ))
  while [ "$p" -le "$last" ]; do
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
      echo "$p"
      return 0
    fi
    p=$(( p + 1 ))
  done
  echo "services: no free port in $1..$last on 127.0.0.1" >&2
  return 1
}

services_start() {
  PGBIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
  if [ -z "$PGBIN" ] || ! id postgres >/dev/null 2>&1; then
    echo "services: PostgreSQL not installed; integration tests that need it will fail" >&2
    return 0
  fi
  WG_PGDATA=$(mktemp -d /tmp/waggle-pg.XXXXXX)
  chown postgres:postgres "$WG_PGDATA"
  local port
  port=$(services_free_port "${WAGGLE_TEST_PG_PORT:-55432}") || return 1
  local as_pg="su postgres -s /bin/sh -c"
  [ "$(id -un)" = postgres ] && as_pg="sh -c"
  $as_pg "$PGBIN/initdb -D $WG_PGDATA -U postgres --auth=trust -E UTF8 --no-sync" >/dev/null
  if ! $as_pg "$PGBIN/pg_ctl -D $WG_PGDATA -l $WG_PGDATA/server.log -w -o '-p $port -k $WG_PGDATA -c listen_addresses=127.0.0.1 -c fsync=off' start" >/dev/null; then
    echo "services: PostgreSQL did not start on 127.0.0.1:$port; its log:" >&2
    tail -20 "$WG_PGDATA/server.log" >&2 || true
    return 1
  fi
  "$PGBIN/createdb" -h 127.0.0.1 -p "$port" -U postgres waggle_test
  export WAGGLE_TEST_PG="host=127.0.0.1 port=$port dbname=waggle_test user=postgres"
  export WG_PGDATA PGBIN
  echo "services: PostgreSQL on 127.0.0.1:$port"
}

services_stop() {
  if [ -n "${WG_PGDATA:-}" ] && [ -d "$WG_PGDATA" ]; then
    local as_pg="su postgres -s /bin/sh -c"
    [ "$(id -un)" = postgres ] && as_pg="sh -c"
    $as_pg "$PGBIN/pg_ctl -D $WG_PGDATA -m fast -w stop" >/dev/null 2>&1 || true
    rm -rf "$WG_PGDATA"
  fi
}
