#!/usr/bin/env bash
# run.sh - build waggle and run the main job: the HTTP service on its embedded
# SQLite default (127.0.0.1:3333, data dir $WAGGLE_DATA_DIR or ~/.waggle).
# Installs what is missing first, and builds only the waggle binary (no tests,
# benchmarks or fuzz replays), so a second run with nothing to rebuild is quick.
#   scripts/run.sh            build, then `waggle serve` (Ctrl-C stops it cleanly)
#   scripts/run.sh ARGS...    build, then `waggle ARGS...`
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh build
[ -f build/CMakeCache.txt ] || cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build --target waggle -j "$(nproc 2>/dev/null || echo 2)" >/dev/null
if [ $# -gt 0 ]; then
  exec ./build/waggle "$@"
fi
dir=${WAGGLE_DATA_DIR:-$HOME/.waggle}
echo "waggle: the API token is in $dir/api-token; try:"
echo "  curl -H \"Authorization: Bearer \$(cat $dir/api-token)\" localhost:${WAGGLE_PORT:-3333}/api/capabilities/status"
echo "waggle: open the dashboard with the one-time link below (or run: waggle dashboard)"
exec ./build/waggle serve
