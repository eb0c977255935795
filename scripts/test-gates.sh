#!/usr/bin/env bash
# The checks that keep the suite from shrinking in silence; scripts/test.sh runs them around ctest.
#
#   test-gates.sh list BUILD_DIR         the tests ctest knows equal tests/ctest-list.txt (exit 1, naming each
#                                        test missing or new, when they differ)
#   test-gates.sh update-list BUILD_DIR  rewrite tests/ctest-list.txt from BUILD_DIR (commit it with the change
#                                        that adds or removes a test)
#   test-gates.sh skips BUILD_DIR        every test the last ctest run skipped is allowed to skip on this machine
#                                        by tests/skips-allowed.txt (exit 1, naming each other one and its reason)
set -euo pipefail
src="$(cd "$(dirname "$0")/.." && pwd)"
LIST="$src/tests/ctest-list.txt"
ALLOWED="$src/tests/skips-allowed.txt"

die() { echo "test-gates: $*" >&2; exit 2; }

# The names ctest knows in BUILD_DIR, sorted, one a line.
ctest_names() {
  (cd "$1" && ctest -N) | sed -n 's/^ *Test *#[0-9]*: //p' | sort
}

check_list() {
  local names missing new
  names=$(ctest_names "$1")
  [ -n "$names" ] || die "ctest lists no test in $1: is it a configured build directory?"
  missing=$(comm -13 <(echo "$names") <(grep -v '^#' "$LIST" | sort))
  new=$(comm -23 <(echo "$names") <(grep -v '^#' "$LIST" | sort))
  [ -z "$missing$new" ] && { echo "test-gates: $(echo "$names" | wc -l) tests, as tests/ctest-list.txt lists"; return 0; }
  for t in $missing; do echo "test-gates: '$t' is in tests/ctest-list.txt but ctest does not know it: the suite lost a test (restore it, or remove its line in the commit that says why)" >&2; done
  for t in $new; do echo "test-gates: '$t' is a test not in tests/ctest-list.txt: add it (scripts/test-gates.sh update-list build)" >&2; done
  return 1
}

update_list() {
  { echo "# Every test ctest must know: scripts/test.sh fails when the suite differs (scripts/test-gates.sh)."
    ctest_names "$1"; } >"$LIST"
  echo "test-gates: wrote $(grep -vc '^#' "$LIST") names to $LIST"
}

gpu_visible() { command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q '^GPU'; }

# The reason a skipped test gave: its lines that mention a skip, from ctest's log of the last run.
skip_reason() {
  awk -v t="$2" '$0 ~ ("^[0-9]+/[0-9]+ Testing: " t "$") {on=1; next} on && /^[0-9]+\/[0-9]+ Testing: / {on=0}
                 on && tolower($0) ~ /skip/ {print "    " $0}' "$1/Testing/Temporary/LastTest.log" 2>/dev/null | head -3
}

check_skips() {
  local skipped here t bad=0
  skipped=$(sed -n '/^The following tests did not run:/,/^$/s/^[[:space:]]*[0-9]* - \(.*\) (Skipped)$/\1/p' \
    "$1/Testing/Temporary/LastTest.log" "$1/ctest.out" 2>/dev/null | sort -u)
  here=no-gpu; gpu_visible && here=gpu
  for t in $skipped; do
    if grep -Eq "^$t[[:space:]]+$here([[:space:]]|$)" "$ALLOWED"; then
      echo "test-gates: $t skipped, as tests/skips-allowed.txt allows on a machine with $here"
    else
      echo "test-gates: $t was skipped, and tests/skips-allowed.txt does not allow that on a machine with $here:" >&2
      skip_reason "$1" "$t" >&2
      bad=1
    fi
  done
  [ "$bad" -eq 0 ] || { echo "test-gates: a skipped test counts as a failure (the suite would shrink in silence); give it what it needs (root, network namespaces, the packages scripts/install-deps.sh installs)" >&2; return 1; }
}

case "${1:-}" in
  list) check_list "${2:?build directory}" ;;
  update-list) update_list "${2:?build directory}" ;;
  skips) check_skips "${2:?build directory}" ;;
  *) die "usage: test-gates.sh list|update-list|skips BUILD_DIR" ;;
esac
