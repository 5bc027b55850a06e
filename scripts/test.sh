#!/usr/bin/env bash
# test.sh - every test: installs what is missing, builds a release tree and an
# ASan+UBSan tree, starts the services the integration tests need (a throwaway
# PostgreSQL on 127.0.0.1), runs ctest in both trees, and runs each fuzz target
# for a bounded time. Exit 0 only when all of it passed.
#
#   scripts/test.sh            everything
#   QUICK=1 scripts/test.sh    release tree only, no sanitizers, no fuzzing
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
jobs=$(nproc 2>/dev/null || echo 2)

bash scripts/deps.sh

# shellcheck source=scripts/services.sh
source scripts/services.sh
services_start
trap services_stop EXIT

build() {  # build DIR [cmake args...]
  local dir=$1; shift
  cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
  cmake --build "$dir" -j "$jobs"
}

echo "== release build and tests"
build build
ctest --test-dir build --output-on-failure -j "$jobs"

if [ "${QUICK:-0}" != 1 ]; then
  echo "== ASan+UBSan build and tests"
  build build-asan -DWAGGLE_SANITIZE=ON
  ctest --test-dir build-asan --output-on-failure -j "$jobs"

  if ls fuzz/*.c >/dev/null 2>&1; then
    echo "== fuzzing (bounded)"
    CC=clang build build-fuzz -DWAGGLE_FUZZ=ON -DWAGGLE_TESTS=OFF
    for f in build-fuzz/fuzz/fuzz_*; do
      [ -x "$f" ] || continue
      name=$(basename "$f")
      corpus="fuzz/corpus/${name#fuzz_}"
      mkdir -p "$corpus"
      work=$(mktemp -d)
      "$f" -max_total_time="${FUZZ_SECONDS:-20}" -print_final_stats=0 "$work" "$corpus" 2>"$work.log" \
        || { tail -50 "$work.log"; echo "fuzz target $name failed"; exit 1; }
      echo "$name: $(grep -o 'Done [0-9]* runs' "$work.log" || echo ok)"
      rm -rf "$work" "$work.log"
    done
  fi
fi
echo "== all tests passed"
