# bash completion for waggle (and waggled). Installed as
# share/bash-completion/completions/waggle. Asks the installed waggle for its
# commands (`waggle --list-commands`) and for each command's verbs and flags
# (its --help text), so it never falls out of step with the binary.

_waggle_verbs() {  # _waggle_verbs CMD: the verbs listed in `waggle CMD --help`
  "$1" "$2" --help 2>/dev/null | awk -v cmd="$2" '
    { for (i = 1; i < NF; i++) if ($i == "waggle" && $(i + 1) == cmd && $(i + 2) ~ /^[a-z][a-z-]*$/) print $(i + 2) }
    /^[Cc]ommands:$/ { incmds = 1; next }
    /^[^ ]/ { incmds = 0 }
    incmds && /^  [a-z][a-z-]*( |$)/ { print $1 }' | sort -u
}

_waggle() {
  local cur prev prog cmd= i
  cur=${COMP_WORDS[COMP_CWORD]}
  prev=${COMP_WORDS[COMP_CWORD-1]}
  prog=${COMP_WORDS[0]}
  if [[ $prev == --data-dir || $prev == --config ]]; then
    COMPREPLY=($(compgen -d -- "$cur"))
    return
  fi
  if [[ ${prog##*/} == waggled ]]; then
    cmd=serve
  else
    for ((i = 1; i < COMP_CWORD; i++)); do
      case ${COMP_WORDS[i]} in
        --data-dir) ((i++)) ;;
        -*) ;;
        *) cmd=${COMP_WORDS[i]}; break ;;
      esac
    done
  fi
  if [[ -z $cmd ]]; then
    if [[ $cur == -* ]]; then
      COMPREPLY=($(compgen -W "--data-dir --version --help" -- "$cur"))
    else
      COMPREPLY=($(compgen -W "$("$prog" --list-commands 2>/dev/null | cut -f1) help" -- "$cur"))
    fi
    return
  fi
  [[ ${prog##*/} == waggled ]] && prog=${prog%waggled}waggle
  if [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "$("$prog" "$cmd" --help 2>/dev/null | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u)" -- "$cur"))
    return
  fi
  if [[ $prev == "$cmd" ]]; then
    local verbs
    verbs=$(_waggle_verbs "$prog" "$cmd")
    if [[ -n $verbs ]]; then
      COMPREPLY=($(compgen -W "$verbs" -- "$cur"))
      return
    fi
  fi
  COMPREPLY=($(compgen -f -- "$cur"))
}
complete -F _waggle waggle waggled
