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

# run_ctest DIR: runs the suite, remembers how many passed for the closing line.
passed=0
run_ctest() {
  local log
  log=$(mktemp)
  ctest --test-dir "$1" --output-on-failure -j "$jobs" 2>&1 | tee "$log"
  local rc=${PIPESTATUS[0]}
  local n
  n=$(sed -n 's/.*tests passed, 0 tests failed out of \([0-9]*\).*/\1/p' "$log" | tail -1)
  rm -f "$log"
  [ "$rc" -eq 0 ] || exit "$rc"
  passed=$((passed + ${n:-0}))
}

echo "== release build and tests"
build build
run_ctest build

echo "== install, then build a program against the installed library with pkg-config"
prefix=$(mktemp -d)
cmake --install build --prefix "$prefix" >/dev/null
[ -x "$prefix/bin/waggle" ] && [ -L "$prefix/bin/waggled" ]
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
# shellcheck disable=SC2046
cc -std=c11 -Wall -Werror tests/install/consumer.c $(pkg-config --cflags --libs waggle) -o "$prefix/consumer"
LD_LIBRARY_PATH="$prefix/lib" "$prefix/consumer"
unset PKG_CONFIG_PATH
rm -rf "$prefix"
passed=$((passed + 1))

if [ "${QUICK:-0}" != 1 ]; then
  echo "== ASan+UBSan build and tests"
  build build-asan -DWAGGLE_SANITIZE=ON
  run_ctest build-asan

  if ls fuzz/*.c >/dev/null 2>&1; then
    echo "== fuzzing (bounded)"
    CC=clang build build-fuzz -DWAGGLE_FUZZ=ON -DWAGGLE_TESTS=OFF
    for f in build-fuzz/fuzz/fuzz_*; do
      [ -x "$f" ] || continue
      name=$(basename "$f")
      corpus="fuzz/corpus/${name#fuzz_}"
      mkdir -p "$corpus"
      work=$(mktemp -d)
      opts=""   # the shell model gets long inputs and a time budget per input (issue #10)
      [ "$name" = fuzz_shell ] && opts="-max_len=65536 -timeout=10"
      "$f" $opts -max_total_time="${FUZZ_SECONDS:-20}" -print_final_stats=0 "$work" "$corpus" 2>"$work.log" \
        || { tail -50 "$work.log"; echo "fuzz target $name failed"; exit 1; }
      echo "$name: $(grep -o 'Done [0-9]* runs' "$work.log" || echo ok)"
      passed=$((passed + 1))
      rm -rf "$work" "$work.log"
    done
  fi
fi
echo "== all tests passed"
echo "tests: $passed passed, 0 failed"
