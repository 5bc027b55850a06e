#!/bin/sh
# bench/gate.sh - the gate benchmark (issue #2 §5): ours against the
# original's regex gate (bench/gate_baseline.js, run with node), on the same
# corpus, in the same run. Prints one line per case with the ratio.
#   in-process: ns per decision (median of 7 runs), bash only and all tools
#   --batch:    decisions/s through `waggle gate --batch` vs the JS baseline
#               reading the same JSON lines (median of 5 runs); then the
#               same lines through a pipe (answers flushed per read)
#   bash1:      the same against the original's needsConfirmationWithAutonomy
#               alone (one answer; ours still gives all four)
#   big:        one decision on a 64 KiB, 256 KiB and 1 MiB command
# Times are CPU time (thread CPU clock in-process, user+sys for --batch), so
# other load on a shared machine does not inflate them.
# Usage: bench/gate.sh [BUILD_DIR]   (default: build)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
build=${1:-$root/build}
corpus=$here/gate_corpus.jsonl
command -v node >/dev/null || { echo "gate.sh: node is needed for the baseline" >&2; exit 2; }
[ -f "$corpus" ] || node "$here/gate_corpus.js" "$corpus"
cmake --build "$build" --target gate_bench waggle -j2 >/dev/null

ours=$("$build/bench/gate_bench" "$corpus" "$root/tests/data/gate/readonly.txt")
base=$(node "$here/gate_baseline.js" --inproc "$corpus")
get() { printf '%s\n' "$1" | awk -v k="$2" '$1 == k { print $2 }'; }

ratio() { awk -v b="$1" -v w="$2" 'BEGIN { printf "%.1fx", b / w }'; }
nb=$(get "$ours" bash_calls); na=$(get "$ours" all_calls)
b1=$(get "$base" bash_ns); w1=$(get "$ours" bash_ns)
b2=$(get "$base" all_ns); w2=$(get "$ours" all_ns)
printf 'gate_inproc_bash   calls=%s  baseline=%sns  waggle=%sns  ratio=%s  (mean ns/decision, median of 7)\n' \
    "$nb" "$b1" "$w1" "$(ratio "$b1" "$w1")"
b0=$(get "$base" bash1_ns); b0b=$(get "$base" bash1_best); w1b=$(get "$ours" bash_best)
printf 'gate_inproc_bash1  calls=%s  baseline=%sns  waggle=%sns  ratio=%s  best-of-7 %sns/%sns ratio=%s  (baseline: needsConfirmationWithAutonomy alone; waggle: all four answers)\n' \
    "$nb" "$b0" "$w1" "$(ratio "$b0" "$w1")" "$b0b" "$w1b" "$(ratio "$b0b" "$w1b")"
printf 'gate_inproc_bash   per-command median=%sns  p90=%sns  read-only median=%sns (%s commands)  (waggle only)\n' \
    "$(get "$ours" bash_p50)" "$(get "$ours" bash_p90)" "$(get "$ours" readonly_p50)" "$(get "$ours" readonly_calls)"
printf 'gate_inproc_all    calls=%s  baseline=%sns  waggle=%sns  ratio=%s  (JSON args text -> decision)\n' \
    "$na" "$b2" "$w2" "$(ratio "$b2" "$w2")"

printf 'gate_big_command   64KiB=%sms  256KiB=%sms  1MiB=%sms  (one bash decision each, median of 7; target < 50 ms)\n' \
    "$(get "$ours" big_64k_ms)" "$(get "$ours" big_256k_ms)" "$(get "$ours" big_1m_ms)"

big=$(mktemp /tmp/gate_batch.XXXXXX)
trap 'rm -f "$big" "$big.t"' EXIT
i=0
while [ $i -lt 180 ]; do cat "$corpus"; i=$((i + 1)); done > "$big"
lines=$(wc -l < "$big")
median_s() {    # median CPU time (user+sys, s) of 5 runs of "$@" < big > /dev/null
    for r in 1 2 3 4 5; do
        if [ -x /usr/bin/time ]; then
            /usr/bin/time -f '%U %S' -o "$big.t" "$@" < "$big" > /dev/null
            awk '{ printf "%.3f\n", $1 + $2 }' "$big.t"
        else            # no GNU time (Debian package "time"): wall time
            t0=$(date +%s%N); "$@" < "$big" > /dev/null; t1=$(date +%s%N)
            awk -v d=$(( t1 - t0 )) 'BEGIN { printf "%.3f\n", d / 1e9 }'
        fi
    done | sort -n | sed -n 3p
}
median_pipe_s() {   # the same with the lines arriving through a pipe (answers flushed per read)
    for r in 1 2 3 4 5; do
        if [ -x /usr/bin/time ]; then
            cat "$big" | /usr/bin/time -f '%U %S' -o "$big.t" "$@" > /dev/null
            awk '{ printf "%.3f\n", $1 + $2 }' "$big.t"
        else
            t0=$(date +%s%N); cat "$big" | "$@" > /dev/null; t1=$(date +%s%N)
            awk -v d=$(( t1 - t0 )) 'BEGIN { printf "%.3f\n", d / 1e9 }'
        fi
    done | sort -n | sed -n 3p
}
tw=$(median_s "$build/waggle" gate --batch)
tp=$(median_pipe_s "$build/waggle" gate --batch)
tb=$(median_s node "$here/gate_baseline.js" --batch)
awk -v n="$lines" -v tw="$tw" -v tb="$tb" 'BEGIN {
    printf "gate_batch         lines=%d  baseline=%.0f/s (%.3fs)  waggle=%.0f/s (%.3fs)  ratio=%.1fx  (CPU time, median of 5)\n",
        n, n / tb, tb, n / tw, tw, tb / tw }'
awk -v n="$lines" -v tp="$tp" 'BEGIN {
    printf "gate_batch_pipe    lines=%d  waggle=%.0f/s (%.3fs)  (stdin a pipe: every answer flushed before the next read; CPU time, median of 5)\n",
        n, n / tp, tp }'
