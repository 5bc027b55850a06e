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
complete_words ga | grep -qx gate || fail "'waggle ga' does not offer gate"
complete_words audit v | grep -qx verify || fail "'waggle audit v' does not offer verify"
complete_words vault "" | grep -qx get || fail "'waggle vault' does not offer get"
complete_words connectors c | grep -qx connect || fail "'waggle connectors c' does not offer connect"
complete_words gate --j | grep -qx -- --json || fail "'waggle gate --j' does not offer --json"
complete_words --data-dir /tm | grep -qx /tmp || fail "--data-dir does not complete directories"
n=$("$waggle" --list-commands | awk -F'\t' 'NF == 2 && $1 ~ /^[a-z]+$/' | wc -l)
[ "$n" -ge 10 ] || fail "--list-commands lists $n commands"
if command -v zsh >/dev/null; then
  zsh -n "$dir/_waggle" || fail "_waggle does not parse in zsh"
fi
echo "completions: ok"
