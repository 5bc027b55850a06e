#!/usr/bin/env bash
# completions.sh DIR WAGGLE - the bash completion offers commands, verbs and
# flags taken from the binary itself; the zsh one parses (when zsh is there).
set -euo pipefail
dir=$1 waggle=$2
# shellcheck source=/dev/null
source "$dir/waggle.bash"
complete_words() {  # complete_words WORD... : COMPREPLY for the last word
  COMP_WORDS=("$waggle" "$@")
  COMP_CWORD=$#
  COMPREPLY=()
  _waggle
  printf '%s\n' "${COMPREPLY[@]}"
}
fail() { echo "completions: $*" >&2; exit 1; }
# offers WANT WORD...: the completion of WORD... includes WANT. The words are
# captured first: grep -q on a pipe may close it early, and under pipefail
# the writer's SIGPIPE would fail the check at random.
offers() {
  local want=$1 out; shift
  out=$(complete_words "$@")
  grep -qx -- "$want" <<<"$out"
}
offers gate ga || fail "'waggle ga' does not offer gate"
offers verify audit v || fail "'waggle audit v' does not offer verify"
offers get vault "" || fail "'waggle vault' does not offer get"
offers connect connectors c || fail "'waggle connectors c' does not offer connect"
offers --json gate --j || fail "'waggle gate --j' does not offer --json"
offers /tmp --data-dir /tm || fail "--data-dir does not complete directories"
n=$("$waggle" --list-commands | awk -F'\t' 'NF == 2 && $1 ~ /^[a-z]+$/' | wc -l)
[ "$n" -ge 10 ] || fail "--list-commands lists $n commands"
if command -v zsh >/dev/null; then
  zsh -n "$dir/_waggle" || fail "_waggle does not parse in zsh"
fi
echo "completions: ok"
