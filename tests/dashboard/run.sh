#!/usr/bin/env bash
# run.sh WAGGLE SHOTS_DIR - ctest's entry to the dashboard's browser tests
# (e2e.mjs): checks that what they need is installed, then runs them.
# scripts/deps.sh test installs chromium; scripts/test.sh runs npm ci here.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
chromium=${WAGGLE_CHROMIUM:-/usr/bin/chromium}
command -v node >/dev/null || { echo "e2e: node is missing (scripts/deps.sh test)"; exit 1; }
[ -x "$chromium" ] || { echo "e2e: $chromium is missing (scripts/deps.sh test)"; exit 1; }
[ -d "$here/node_modules/playwright-core" ] ||
  { echo "e2e: run 'npm ci' in $here first (scripts/test.sh does)"; exit 1; }
cd "$here"
exec node e2e.mjs "$1" "$2"
