#!/usr/bin/env bash
# test.sh - every test: installs what is missing, builds the trees below,
# starts the services the integration tests need (a throwaway PostgreSQL on
# 127.0.0.1), runs ctest, and runs each fuzz target for a bounded time.
# Exit 0 only when all of it passed and no test was skipped.
#
#   build-test   Release, gcc, -Werror      every test (ctest), install smoke test
#   build-clang  Release, clang, -Werror    builds everything, runs the unit suite
#   build-asan   ASan+UBSan, gcc, -Werror   every test
#   build-fuzz   clang + libFuzzer          each target for FUZZ_SECONDS (default 20)
#
#   scripts/test.sh               everything (what CI runs)
#   QUICK=1 scripts/test.sh       build-test only: no clang, sanitizers or fuzzing
#   ALLOW_SKIPS=1 scripts/test.sh do not fail when a test was skipped
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
jobs=$(nproc 2>/dev/null || echo 2)

bash scripts/deps.sh test
# the MCP SDK client tests' npm packages (tests/mcp/package-lock.json)
(cd tests/mcp && npm ci --no-audit --no-fund --loglevel=error)
(cd tests/conformance && npm ci --no-audit --no-fund --loglevel=error)

# shellcheck source=scripts/services.sh
source scripts/services.sh
services_start
trap services_stop EXIT

build() {  # build DIR [cmake args...]
  local dir=$1; shift
  cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release -DWAGGLE_WERROR=ON "$@" >/dev/null
  cmake --build "$dir" -j "$jobs"
}

# run_ctest DIR [ctest args...]: runs the suite, remembers how many passed for
# the closing line, and fails when a Criterion test was skipped (a skipped test
# is one CI did not run: PostgreSQL missing, say), unless ALLOW_SKIPS=1.
passed=0
run_ctest() {
  local dir=$1; shift
  local log junit
  log=$(mktemp)
  junit="$root/$dir/ctest-junit.xml"
  CRITERION_VERBOSITY_LEVEL=1 ctest --test-dir "$dir" --output-on-failure -j "$jobs" \
    --output-junit "$junit" "$@" 2>&1 | tee "$log"
  local rc=${PIPESTATUS[0]}
  local n
  n=$(sed -n 's/.*tests passed, 0 tests failed out of \([0-9]*\).*/\1/p' "$log" | tail -1)
  [ "$rc" -eq 0 ] || exit "$rc"
  local skipped
  skipped=$( (grep -o '\[SKIP\][^&<]*' "$junit"; grep '(Skipped)' "$log") | sort -u || true)
  if [ -n "$skipped" ]; then
    echo "== skipped tests in $dir:"
    echo "$skipped"
    [ "${ALLOW_SKIPS:-0}" = 1 ] || { echo "test.sh: a test CI must run was skipped (ALLOW_SKIPS=1 to allow)"; exit 1; }
  fi
  rm -f "$log"
  passed=$((passed + ${n:-0}))
}

echo "== release build (gcc) and tests"
# The dashboard's browser tests (label e2e, this tree only) drive Debian's
# chromium with playwright-core from tests/dashboard/package-lock.json.
(cd tests/dashboard && npm ci --no-audit --no-fund --loglevel=error)
build build-test
run_ctest build-test

echo "== install, then build a program against the installed library with pkg-config"
prefix=$(mktemp -d)
cmake --install build-test --prefix "$prefix" >/dev/null
[ -x "$prefix/bin/waggle" ] && [ -L "$prefix/bin/waggled" ] && [ -x "$prefix/bin/waggle-hook" ]
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
# shellcheck disable=SC2046
cc -std=c11 -Wall -Werror tests/install/consumer.c $(pkg-config --cflags --libs waggle) -o "$prefix/consumer"
LD_LIBRARY_PATH="$prefix/lib" "$prefix/consumer"
unset PKG_CONFIG_PATH
cmake -S tests/install/cmake -B "$prefix/cmake-consumer" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$prefix/cmake-consumer" >/dev/null
LD_LIBRARY_PATH="$prefix/lib" "$prefix/cmake-consumer/consumer"
for f in share/man/man1/waggle.1 share/man/man1/waggle-hook.1 share/man/man8/waggled.8 share/bash-completion/completions/waggle \
         share/zsh/site-functions/_waggle lib/systemd/system/waggled.service share/doc/waggle/LICENSE; do
  [ -e "$prefix/$f" ] || { echo "install: $f is missing"; exit 1; }
done
grep -qx "ExecStart=$prefix/bin/waggled \$WAGGLED_ARGS" "$prefix/lib/systemd/system/waggled.service"
rm -rf "$prefix"
passed=$((passed + 1))

if [ "${QUICK:-0}" != 1 ]; then
  echo "== release build (clang), unit tests"
  CC=clang build build-clang
  run_ctest build-clang -L unit

  echo "== ASan+UBSan build and tests"
  build build-asan -DWAGGLE_SANITIZE=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo
  run_ctest build-asan -LE e2e   # the e2e harnesses run in the Release tree only

  if ls fuzz/*.c >/dev/null 2>&1; then
    echo "== fuzzing (bounded)"
    CC=clang build build-fuzz -DWAGGLE_FUZZ=ON -DWAGGLE_TESTS=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo
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
