#!/bin/sh
# bench/hook.sh - how long one coding-agent hook call takes (issue #14 §3):
# the agent starts a process per tool call, so the figure is process start to
# answer, wall time. Target: < 5 ms per call. The baseline is `waggle
# --version` (the full CLI: ~40 shared libraries to relocate), measured in
# the same run.
#   start:  hyperfine -N: `waggle --version` vs `waggle-hook --version`
#   answer: bench/hook_spawn (fork, stdin from a file, exec, wait) for
#           waggle-hook and `waggle hook` on Claude Code PreToolUse inputs
# Usage: bench/hook.sh [BUILD_DIR]   (default: build; RUNS=N, default 500)
# hyperfine comes with `scripts/deps.sh bench`.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
build=$(cd "${1:-$root/build}" && pwd)
runs=${RUNS:-500}
cmake --build "$build" --target waggle waggle_hook hook_spawn -j2 >/dev/null
tmp=$(mktemp -d /tmp/hook_bench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
printf '%s' '{"session_id":"b","transcript_path":"/tmp/t.jsonl","cwd":"'"$root"'","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"git status && ls -la src | wc -l","description":"look"},"tool_use_id":"toolu_1"}' > "$tmp/bash.json"
printf '%s' '{"session_id":"b","transcript_path":"/tmp/t.jsonl","cwd":"'"$root"'","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"file_path":"'"$root"'/src/x.c","content":"int x;\n"},"tool_use_id":"toolu_2"}' > "$tmp/write.json"

if command -v hyperfine >/dev/null; then
    hyperfine -N --warmup 50 --runs "$runs" --export-csv "$tmp/start.csv" \
        "$build/waggle --version" "$build/waggle-hook --version" >/dev/null 2>&1
    # command,mean,stddev,median,user,system,min,max (seconds)
    awk -F, -v runs="$runs" 'NR == 2 { b = $4 * 1000; bm = $2 * 1000 } NR == 3 { w = $4 * 1000; wm = $2 * 1000 }
        END { printf "hook_start   baseline=waggle --version %.2fms (mean %.2f)  waggle-hook --version %.2fms (mean %.2f)  ratio=%.1fx  (hyperfine -N, median of %d)\n",
              b, bm, w, wm, b / w, runs }' "$tmp/start.csv"
else
    echo "hook_start   skipped: hyperfine is missing (scripts/deps.sh bench)"
fi

spawn() { "$build/bench/hook_spawn" "$runs" "$@"; }
field() { printf '%s\n' "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }
base=$(spawn "$tmp/bash.json" "$build/waggle" --version)
lean=$(spawn "$tmp/bash.json" "$build/waggle-hook" claude-code)
write=$(spawn "$tmp/write.json" "$build/waggle-hook" claude-code)
full=$(spawn "$tmp/bash.json" "$build/waggle" hook claude-code)
for row in "waggle-hook claude-code (Bash)|$lean" "waggle-hook claude-code (Write)|$write" \
           "waggle hook claude-code (Bash)|$full" "waggle --version (baseline)|$base"; do
    name=${row%%|*} r=${row#*|}
    printf 'hook_answer  %-34s median=%sms  p90=%sms  mean=%sms  min=%sms  ratio=%sx  (fork to exit, stdin JSON, %d runs; target < 5 ms)\n' \
        "$name" "$(field "$r" median)" "$(field "$r" p90)" "$(field "$r" mean)" "$(field "$r" min)" \
        "$(awk -v b="$(field "$base" median)" -v w="$(field "$r" median)" 'BEGIN { printf "%.1f", b / w }')" "$runs"
done
