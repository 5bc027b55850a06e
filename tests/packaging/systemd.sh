#!/usr/bin/env bash
# systemd.sh UNIT WAGGLED - the unit passes `systemd-analyze verify`, and its
# hardening keeps the exposure score low. Exit 77 (skipped) without systemd.
set -euo pipefail
unit=$1
command -v systemd-analyze >/dev/null || { echo "systemd-analyze not installed"; exit 77; }
out=$(systemd-analyze verify --man=no "$unit" 2>&1) || { echo "$out"; exit 1; }
[ -z "$out" ] || { echo "systemd-analyze verify complained:"; echo "$out"; exit 1; }
for key in DynamicUser=yes ProtectSystem=strict StateDirectory=waggle NoNewPrivileges=yes \
           PrivateTmp=yes ProtectHome=yes CapabilityBoundingSet= UMask=0077; do
  grep -qx "$key" "$unit" || { echo "unit lacks $key"; exit 1; }
done
score=$(systemd-analyze security --offline=yes "$unit" 2>/dev/null |
        sed -n 's/.*Overall exposure level for .*: \([0-9.]*\).*/\1/p')
echo "systemd: verify ok, exposure $score"
awk -v s="$score" 'BEGIN { exit !(s != "" && s + 0 <= 2.0) }' || { echo "exposure $score > 2.0"; exit 1; }
