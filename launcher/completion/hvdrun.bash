# bash completion for hvdrun. The flags come from `hvdrun --help` of the hvdrun being completed, read once per
# shell, so they cannot drift from the program. After the program to run, its own arguments complete as files.
_hvdrun_read_flags() {
  local help
  help=$("$1" --help 2>/dev/null) || return 1
  # Help lines look like "  -n,--num-proc N   ..." or "  --verbose   ...": every flag, and those a value follows.
  _hvdrun_flags="$(sed -n 's/^  \(-[^ ]*\).*/\1/p' <<<"$help" | tr ',\n' '  ') -np"
  _hvdrun_valued_flags=" $(sed -n 's/^  \(-[^ ]*\) [A-Z].*/\1/p' <<<"$help" | tr ',\n' '  ') -np "
}

_hvdrun() {
  local cur=${COMP_WORDS[COMP_CWORD]} i
  [[ -n ${_hvdrun_flags-} ]] || _hvdrun_read_flags "${COMP_WORDS[0]}" || return
  # The first word that is neither a flag nor a flag's value is the program: from there on, complete files.
  for ((i = 1; i < COMP_CWORD; i++)); do
    case ${COMP_WORDS[i]} in
      -*) [[ $_hvdrun_valued_flags == *" ${COMP_WORDS[i]} "* ]] && ((i++)) ;;
      *) COMPREPLY=($(compgen -f -- "$cur")); return ;;
    esac
  done
  if [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "$_hvdrun_flags" -- "$cur"))
  else
    COMPREPLY=($(compgen -f -- "$cur"))
  fi
}
complete -o filenames -F _hvdrun hvdrun
