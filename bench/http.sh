#!/usr/bin/env bash
# bench/http.sh - waggled vs an equivalent Fastify server, same run, same
# machine: requests/s and p50/p99 latency at 64 connections (wrk) for three
# routes, then idle RSS. One line per case with the ratio (STYLE.md 13).
#
# usage: bench/http.sh [BUILD_DIR]   (default build; needs wrk, node, and
#        `npm install` run once in bench/http)
# env:   RUNS (default 3, median reported), DURATION (default 4s), CONNS (64),
#        PIN=1: one core each - both servers on CPU 1 (waggled with one
#        worker thread, like Node's one event loop), wrk on CPU 0
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
build=${1:-$root/build}
waggle=$build/waggle
runs=${RUNS:-3}
dur=${DURATION:-4s}
conns=${CONNS:-64}
wport=${WPORT:-39011}
fport=${FPORT:-39012}

command -v wrk >/dev/null || { echo "bench/http.sh: wrk is not installed (apt-get install wrk)" >&2; exit 2; }
command -v node >/dev/null || { echo "bench/http.sh: node is not installed" >&2; exit 2; }
[ -x "$waggle" ] || { echo "bench/http.sh: $waggle not built" >&2; exit 2; }
[ -d "$here/http/node_modules/fastify" ] || (cd "$here/http" && npm install --no-audit --no-fund >/dev/null)

tmp=$(mktemp -d)
wpid=""; fpid=""
cleanup() {
  [ -n "$wpid" ] && kill "$wpid" 2>/dev/null || true
  [ -n "$fpid" ] && kill "$fpid" 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT

srv_pin=(); wrk_pin=(); wthreads=()
if [ "${PIN:-0}" = 1 ]; then
  srv_pin=(taskset -c 1); wrk_pin=(taskset -c 0); wthreads=(--threads 1)
fi
"${srv_pin[@]}" "$waggle" serve --data-dir "$tmp/data" --listen "127.0.0.1:$wport" "${wthreads[@]}" 2>/dev/null &
wpid=$!
for _ in $(seq 50); do [ -s "$tmp/data/api-token" ] && curl -sf "http://127.0.0.1:$wport/healthz" >/dev/null && break; sleep 0.1; done
token=$(cat "$tmp/data/api-token")
export WAGGLE_BENCH_TOKEN=$token
auth=(-H "Authorization: Bearer $token")
mkdir -p "$tmp/cap"
curl -sf "${auth[@]}" "http://127.0.0.1:$wport/api/capabilities/status" >"$tmp/cap/status.json"
curl -sf "${auth[@]}" -H 'Content-Type: application/json' \
  -d '{"tool":"bash","args":{"command":"git push origin main"},"autonomy":{"level":"normal"}}' \
  "http://127.0.0.1:$wport/api/gate/check" >"$tmp/cap/gate.json"
curl -sf "${auth[@]}" "http://127.0.0.1:$wport/api/catalog/search?q=postgres&limit=10" >"$tmp/cap/search.json"

"${srv_pin[@]}" node "$here/http/fastify.js" "$fport" "$token" "$tmp/cap" &
fpid=$!
for _ in $(seq 50); do curl -s "http://127.0.0.1:$fport/" >/dev/null 2>&1 && break; sleep 0.1; done

# wrk output -> "rps p50_ms p99_ms"
run_wrk() {
  local port=$1 path=$2 script=$3
  "${wrk_pin[@]}" wrk -t2 -c"$conns" -d"$dur" --latency -s "$here/http/$script" "http://127.0.0.1:$port$path" 2>/dev/null |
  awk '
    function ms(v) { if (v ~ /us$/) return v / 1000; if (v ~ /ms$/) return v + 0; if (v ~ /s$/) return v * 1000; return v }
    /Requests\/sec/ { rps = $2 }
    /^ +50%/ { p50 = ms($2) }
    /^ +99%/ { p99 = ms($2) }
    /Non-2xx/ { bad = $NF }
    END { printf "%s %s %s %s\n", rps, p50, p99, bad + 0 }'
}

median() { sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

bench_case() {
  local label=$1 path=$2 script=$3
  local wr=() wp50=() wp99=() fr=() fp50=() fp99=()
  run_wrk "$wport" "$path" "$script" >/dev/null   # warm-up
  run_wrk "$fport" "$path" "$script" >/dev/null
  for _ in $(seq "$runs"); do
    read -r r a b bad < <(run_wrk "$fport" "$path" "$script"); fr+=("$r"); fp50+=("$a"); fp99+=("$b")
    [ "$bad" = 0 ] || echo "warning: fastify answered $bad non-2xx on $path" >&2
    read -r r a b bad < <(run_wrk "$wport" "$path" "$script"); wr+=("$r"); wp50+=("$a"); wp99+=("$b")
    [ "$bad" = 0 ] || echo "warning: waggled answered $bad non-2xx on $path" >&2
  done
  local mfr mwr mfp50 mwp50 mfp99 mwp99
  mfr=$(printf '%s\n' "${fr[@]}" | median); mwr=$(printf '%s\n' "${wr[@]}" | median)
  mfp50=$(printf '%s\n' "${fp50[@]}" | median); mwp50=$(printf '%s\n' "${wp50[@]}" | median)
  mfp99=$(printf '%s\n' "${fp99[@]}" | median); mwp99=$(printf '%s\n' "${wp99[@]}" | median)
  awk -v l="$label" -v c="$conns" -v n="$runs" -v fr="$mfr" -v wr="$mwr" -v f50="$mfp50" -v w50="$mwp50" \
      -v f99="$mfp99" -v w99="$mwp99" 'BEGIN {
    printf "http %-32s conns=%s  fastify=%.0f rps p50=%.2fms p99=%.2fms  waggle=%.0f rps p50=%.2fms p99=%.2fms  rps_ratio=%.1fx p99_ratio=%.2f  (median of %s)\n",
      l, c, fr, f50, f99, wr, w50, w99, wr / fr, w99 / f99, n }'
}

# Idle RSS first: both servers started and answered one request each.
sleep 1
rss() { awk '/VmRSS/ { print $2 }' "/proc/$1/status"; }
wrss=$(rss "$wpid"); frss=$(rss "$fpid")

bench_case "GET /api/capabilities/status" "/api/capabilities/status" get.lua
bench_case "POST /api/gate/check" "/api/gate/check" post_gate.lua
bench_case "GET /api/catalog/search" "/api/catalog/search?q=postgres&limit=10" get.lua

awk -v w="$wrss" -v f="$frss" 'BEGIN { printf "idle_rss (after start)                fastify=%.1fMiB  waggle=%.1fMiB  ratio=%.1fx smaller\n", f / 1024, w / 1024, f / w }'
