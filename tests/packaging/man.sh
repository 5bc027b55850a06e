#!/usr/bin/env bash
# man.sh GENDIR WAGGLED - the generated man pages exist and document every
# command; waggled answers --version. Exit 77 (skipped) when help2man was not
# found at configure time.
set -euo pipefail
gen=$1 waggled=$2
"$waggled" --version | grep -q '^waggled [0-9]' || { echo "waggled --version"; exit 1; }
[ -f "$gen/waggle.1" ] || { echo "no man pages (help2man missing)"; exit 77; }
for c in gate trust route catalog vault audit tier pool connectors serve; do
  grep -q "waggle $c" "$gen/waggle.1" || { echo "waggle.1 lacks the $c command"; exit 1; }
done
grep -q '^\.TH WAGGLED "8"' "$gen/waggled.8" || { echo "waggled.8 is not section 8"; exit 1; }
grep -q "^install claude" "$gen/waggle-hook.1" || { echo "waggle-hook.1 is missing or lacks install"; exit 1; }
if command -v man >/dev/null; then
  man -l "$gen/waggle.1" 2>&1 >/dev/null | grep -v '^$' && { echo "man warns"; exit 1; }
fi
echo "man: ok"
