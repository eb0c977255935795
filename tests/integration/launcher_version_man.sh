# What a command-line user expects beside hvdrun: --version names the project's version and the backends this
# build has (the same as --check-build's), hvdrun(1) is generated from --help and documents every flag, and bash
# completion offers hvdrun's flags, skips a flag's value, and hands the program's own arguments to file completion.
source "$(dirname "$0")/lib.bash"

project_version=$(sed -n 's/^project(hvd VERSION \([0-9.]*\).*/\1/p' "$HVD_SOURCE/CMakeLists.txt")
[ -n "$project_version" ] || fail "no version in $HVD_SOURCE/CMakeLists.txt's project()"

run_hvdrun 10 --version
expect_rc 0 "--version"
[ "$(head -1 <<<"$OUT")" = "hvdrun $project_version" ] || fail "--version's first line is '$(head -1 <<<"$OUT")', expected 'hvdrun $project_version'"
check=$("$HVDRUN" --check-build)
mpi_in_check=$(sed -n 's/^    \[X\] MPI (\(.*\))$/\1/p' <<<"$check" | head -1)
grep -qxF "backends: built-in TCP and shared memory; MPI: ${mpi_in_check:-not built}; NCCL: $(
  sed -n 's/^    \[X\] NCCL (\([^,]*\), CUDA \(.*\))$/\1 (CUDA \2)/p' <<<"$check" | grep . || echo 'not built')" <<<"$OUT" ||
  { echo "$OUT"; echo "$check"; fail "--version's backends differ from --check-build's"; }
pass "--version: hvdrun $project_version, backends as --check-build reports them"

man_page="$HVD_BIN/../share/man/man1/hvdrun.1"
[ -f "$man_page" ] || fail "$man_page was not generated (help2man; target hvdrun_man)"
rendered=$(MANWIDTH=200 man -l "$man_page" 2>/dev/null) || fail "man -l $man_page failed"
grep -qE '^ +hvdrun - run a distributed training job' <<<"$rendered" || { echo "$rendered" | head; fail "hvdrun(1) has no NAME line"; }
flags=$("$HVDRUN" --help | sed -n 's/^  \(-[^ ]*\).*/\1/p' | tr ',' '\n')
[ "$(wc -l <<<"$flags")" -ge 30 ] || fail "only $(wc -l <<<"$flags") flags read from --help"
for flag in $flags; do
  grep -qE -- "(^|[ ,])$flag([ ,=]|$)" <<<"$rendered" || fail "hvdrun(1) does not document $flag"
done
pass "hvdrun(1): generated, and documents all $(wc -l <<<"$flags") flags of --help"

# complete WORD...: COMPREPLY of the completion for the command line "hvdrun WORD..." (the last word is completed).
complete_words() {
  bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _hvdrun; echo "${COMPREPLY[*]}"' _ \
    "$HVD_SOURCE/launcher/completion/hvdrun.bash" "$HVDRUN" "$@"
}
got=$(complete_words --min); [ "$got" = "--min-np" ] || fail "completing '--min': '$got', expected '--min-np'"
got=$(complete_words -H h1:2 --ssh-p); [ "$got" = "--ssh-port" ] || fail "completing a flag after '-H h1:2': '$got'"
got=$(complete_words -np 2 ./train --ver); [ -z "$got" ] || fail "'--ver' after the program was completed as hvdrun's flag: '$got'"
pass "bash completion: flags from --help, a flag's value skipped, the program's arguments left to files"
