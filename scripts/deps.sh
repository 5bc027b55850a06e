#!/usr/bin/env bash
# deps.sh - install the Debian 12 packages waggle needs, only when missing.
# Safe to run again; run as root or with sudo available.
set -euo pipefail

PACKAGES=(
  build-essential cmake pkg-config clang libclang-rt-14-dev
  libjansson-dev libpcre2-dev libsqlite3-dev libsodium-dev libcurl4-openssl-dev
  libmicrohttpd-dev libpq-dev postgresql libcriterion-dev
  curl wrk hyperfine valgrind
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "deps: installing ${missing[*]}" >&2
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-upgrade --no-install-recommends "${missing[@]}" >/dev/null
