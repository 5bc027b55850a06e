#!/usr/bin/env bash
# deps.sh - install the Debian 12 packages one job needs, only when missing.
# Safe to run again; run as root or with sudo available.
#
#   scripts/deps.sh runtime   the shared libraries an installed waggle links to
#   scripts/deps.sh build     runtime + compiler, cmake and headers (default; run.sh)
#   scripts/deps.sh test      build + test runner, PostgreSQL, clang/libFuzzer, chromium
#                             and node for the dashboard's browser tests (test.sh)
#   scripts/deps.sh bench     build + wrk, hyperfine, valgrind (bench/)
# Several groups may be named at once.
set -euo pipefail

RUNTIME=(libjansson4 libpcre2-8-0 libsqlite3-0 libsodium23 libcurl4 libmicrohttpd12 libpq5)
BUILD=(build-essential cmake pkg-config
       libjansson-dev libpcre2-dev libsqlite3-dev libsodium-dev libcurl4-openssl-dev
       libmicrohttpd-dev libpq-dev help2man)
TEST=(libcriterion-dev postgresql clang libclang-rt-14-dev curl python3 zsh systemd man-db nodejs haproxy chromium)
BENCH=(wrk hyperfine valgrind)

want=()
[ $# -gt 0 ] || set -- build
for group in "$@"; do
  case $group in
    runtime) want+=("${RUNTIME[@]}") ;;
    build)   want+=("${RUNTIME[@]}" "${BUILD[@]}") ;;
    test)    want+=("${RUNTIME[@]}" "${BUILD[@]}" "${TEST[@]}") ;;
    bench)   want+=("${RUNTIME[@]}" "${BUILD[@]}" "${BENCH[@]}") ;;
    -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
    *) echo "deps: unknown group '$group' (runtime, build, test, bench)" >&2; exit 2 ;;
  esac
done

missing=()
# npm: Debian's own package, unless the installed nodejs (NodeSource) brings it
case " ${want[*]} " in *" nodejs "*) command -v npm >/dev/null || want+=(npm) ;; esac
for p in "${want[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "deps: installing ${missing[*]}" >&2
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-upgrade --no-install-recommends "${missing[@]}" >/dev/null
