#!/usr/bin/env bash
# bench/replicas.sh - throughput through HAProxy with 1 and with 3 waggled
# replicas on one PostgreSQL, same run, same machine (issue 16): wrk -t2
# -c16 on POST /api/gate/check (no store write) and GET /api/tier (one read
# of the shared config per request). One line per route with the ratio
# (STYLE.md 13). The point of replicas is availability and shared state,
# not speed on one box: on 2 cores expect little or no gain.
#
# usage: bench/replicas.sh [BUILD_DIR]   (default build; needs wrk, haproxy,
#        PostgreSQL: it starts a throwaway one via scripts/services.sh)
# env:   SECONDS_PER_RUN (default 5)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
build=${1:-$root/build}
command -v wrk >/dev/null || { echo "bench/replicas.sh: wrk is not installed (scripts/deps.sh bench)" >&2; exit 2; }
command -v haproxy >/dev/null || { echo "bench/replicas.sh: haproxy is not installed (scripts/deps.sh test)" >&2; exit 2; }
[ -x "$build/waggle" ] || { echo "bench/replicas.sh: $build/waggle not built" >&2; exit 2; }
# shellcheck source=scripts/services.sh
source "$root/scripts/services.sh"
if [ -z "${WAGGLE_TEST_PG:-}" ]; then
  services_start
  trap services_stop EXIT
fi
python3 "$root/tests/replicas/harness.py" --waggled "$build/waggled" --waggle "$build/waggle" \
  --bench "${SECONDS_PER_RUN:-5}"
