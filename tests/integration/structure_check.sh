#!/usr/bin/env bash
# scripts/check-structure.sh passes on this tree and catches an environment read outside common/env, an #include
# that points up the layers (common <- store <- comm <- engine <- api <- glue; programs: common, store), two launcher
# folders that include each other, a runtime library linking a layer above it (hvd_store <- hvd_comm <- hvd_engine <-
# hvd_api), a function over 60 lines in launcher/, agent/, common/, runtime/, bindings/ or store/, and a
# `throw Error(` that gives no ErrorKind.
source "$(dirname "$0")/lib.bash"
: "${HVD_SOURCE:?set HVD_SOURCE to the source tree}"
CHECK="$HVD_SOURCE/scripts/check-structure.sh"

bash "$CHECK" "$HVD_SOURCE" >"$TEST_TMP/out" 2>&1 || { cat "$TEST_TMP/out"; fail "the tree breaks a structure rule"; }
pass "the tree reads the environment only through common/env and includes down the layers"

# check_fails WHAT: the check must exit 1 on the planted tree, its report in $TEST_TMP/out.
check_fails() {
  local rc=0
  bash "$CHECK" "$TEST_TMP/tree" >"$TEST_TMP/out" 2>&1 || rc=$?
  [ "$rc" -eq 1 ] || { cat "$TEST_TMP/out"; fail "$1 (exit $rc)"; }
}

# A copy of the scanned folders with one getenv+atoi added must fail, naming the file and line.
mkdir -p "$TEST_TMP/tree"
for dir in common store runtime bindings launcher agent include; do cp -r "$HVD_SOURCE/$dir" "$TEST_TMP/tree/"; done
bash "$CHECK" "$TEST_TMP/tree" >/dev/null 2>&1 || fail "the unmodified copy fails the check"
cat >"$TEST_TMP/tree/agent/sneaky.cc" <<'CC'
#include <cstdlib>
// getenv in a comment is fine
int size() { return std::atoi(std::getenv("HOROVOD_SIZE")); }
CC
check_fails "an added getenv/atoi passed the check"
grep -q '^agent/sneaky.cc:3:' "$TEST_TMP/out" || { cat "$TEST_TMP/out"; fail "the report does not name agent/sneaky.cc:3"; }
! grep -q '^agent/sneaky.cc:2:' "$TEST_TMP/out" || fail "a comment naming getenv was reported"
pass "an added getenv/atoi is reported with its file and line"

# std::stoi over an environment value counts too; over other text it does not.
printf '%s\n' '#include "common/env.h"' 'int a() { return std::stoi(hvd::env_var::text("X").value()); }' \
  >"$TEST_TMP/tree/agent/sneaky.cc"
bash "$CHECK" "$TEST_TMP/tree" >/dev/null 2>&1 && fail "std::stoi over an env value passed the check"
printf '%s\n' '#include <string>' 'int port(const std::string& a) { return std::stoi(a); }' \
  >"$TEST_TMP/tree/agent/sneaky.cc"
bash "$CHECK" "$TEST_TMP/tree" >/dev/null 2>&1 || fail "std::stoi over an address was reported"
pass "std::stoi is reported only over environment values"

# Includes: down the layers passes; up the layers, or from a program into libhvd, fails naming file and line.
rm -f "$TEST_TMP/tree/agent/sneaky.cc"
printf '%s\n' '#pragma once' '#include "store/store.h"' '#include "runtime/reduce/reduce.h"' \
  >"$TEST_TMP/tree/runtime/comm/down.h"
bash "$CHECK" "$TEST_TMP/tree" >"$TEST_TMP/out" 2>&1 || { cat "$TEST_TMP/out"; fail "an include down the layers was reported"; }
printf '%s\n' '#pragma once' '// engine types' '#include "runtime/engine/message.h"' >"$TEST_TMP/tree/runtime/comm/up.h"
check_fails "comm including engine passed the check"
grep -q '^runtime/comm/up.h:3: includes runtime/engine/message.h (engine) from comm' "$TEST_TMP/out" ||
  { cat "$TEST_TMP/out"; fail "the report does not name runtime/comm/up.h:3 and the layers"; }
rm "$TEST_TMP/tree/runtime/comm/up.h"
printf '%s\n' '#include "runtime/comm/communicator.h"' >"$TEST_TMP/tree/store/up.cc"
check_fails "the store including the runtime passed the check"
grep -q '^store/up.cc:1: includes runtime/comm/communicator.h (comm) from store' "$TEST_TMP/out" ||
  { cat "$TEST_TMP/out"; fail "the report does not name store/up.cc:1"; }
rm "$TEST_TMP/tree/store/up.cc"
printf '%s\n' '#include "runtime/api/runtime.h"' >"$TEST_TMP/tree/agent/up.cc"
bash "$CHECK" "$TEST_TMP/tree" >"$TEST_TMP/out" 2>&1 && fail "the agent including the runtime passed the check"
grep -q '^agent/up.cc:1: includes runtime/api/runtime.h (api) from agent' "$TEST_TMP/out" ||
  { cat "$TEST_TMP/out"; fail "the report does not name agent/up.cc:1"; }
pass "an include up the layers, or from a program into libhvd, is reported with its file and line"

# Launcher folders: one way passes; both ways fails, naming both folders and an include each way.
rm -f "$TEST_TMP/tree/agent/up.cc"
printf '%s\n' '#pragma once' '#include "launcher/session/session.h"' >"$TEST_TMP/tree/launcher/ssh/back.h"
check_fails "launcher/ssh and launcher/session including each other passed"
grep -q '^launcher/session and launcher/ssh include each other: launcher/session/[a-z_]*\.\(cc\|h\):[0-9]* includes launcher/ssh/, launcher/ssh/back.h:2 includes launcher/session/$' "$TEST_TMP/out" ||
  { cat "$TEST_TMP/out"; fail "the report does not name the pair and an include each way"; }
rm "$TEST_TMP/tree/launcher/ssh/back.h"
pass "two launcher folders including each other are reported with an include each way"

# Runtime libraries: linking down passes; a layer linking one above it (here over two lines) fails, naming the file,
# the line the call starts on, and both libraries.
runtime_cmake="$TEST_TMP/tree/runtime/CMakeLists.txt"
cp "$runtime_cmake" "$TEST_TMP/cmake.orig"
printf '%s\n' 'target_link_libraries(hvd_engine PRIVATE hvd_comm hvd_store)  # not hvd_api' >>"$runtime_cmake"
bash "$CHECK" "$TEST_TMP/tree" >"$TEST_TMP/out" 2>&1 || { cat "$TEST_TMP/out"; fail "a layer linking down was reported"; }
printf '%s\n' 'target_link_libraries(hvd_comm PRIVATE hvd_store' '  hvd_engine)' >>"$runtime_cmake"
check_fails "hvd_comm linking hvd_engine passed the check"
line=$(grep -n '^target_link_libraries(hvd_comm PRIVATE hvd_store$' "$runtime_cmake" | cut -d: -f1)
grep -q "^runtime/CMakeLists.txt:$line: hvd_comm links hvd_engine, a layer not below it\$" "$TEST_TMP/out" ||
  { cat "$TEST_TMP/out"; fail "the report does not name runtime/CMakeLists.txt:$line and the two libraries"; }
cp "$TEST_TMP/cmake.orig" "$runtime_cmake"
pass "a runtime library linking a layer above it is reported with its file, line and both libraries"

# Function length: 60 lines pass, 61 fail, naming file, line and function; braces in strings and comments do not
# count, and one in runtime/ fails too.
long_function() {  # long_function NAME BODY_LINES
  echo "int $1(int x) {"
  for ((i = 0; i < $2; i++)); do echo '  x += 1;  // } not the end'; done
  echo '  const char* brace = "}";'
  echo '  return x + (brace != nullptr);'
  echo '}'
}
long_function fits 56 >"$TEST_TMP/tree/agent/long.cc"
bash "$CHECK" "$TEST_TMP/tree" >"$TEST_TMP/out" 2>&1 || { cat "$TEST_TMP/out"; fail "a 60-line function was reported"; }
{ echo '// a comment line'; long_function too_long 57; } >"$TEST_TMP/tree/agent/long.cc"
check_fails "a 61-line function passed the check"
grep -q '^agent/long.cc:2: function too_long is 61 lines (at most 60)$' "$TEST_TMP/out" ||
  { cat "$TEST_TMP/out"; fail "the report does not name agent/long.cc:2 and its length"; }
mv "$TEST_TMP/tree/agent/long.cc" "$TEST_TMP/tree/runtime/long.cc"
check_fails "a 61-line function in runtime/ passed the check"
grep -q '^runtime/long.cc:2: function too_long is 61 lines (at most 60)$' "$TEST_TMP/out" ||
  { cat "$TEST_TMP/out"; fail "the report does not name runtime/long.cc:2 and its length"; }
pass "a function over 60 lines in launcher/, agent/, common/ or runtime/ is reported with its file, line and length"

# Throw sites: with a kind (or the kind of the error wrapped) passes; without one fails naming file and line, the
# message on the same line or on the next.
rm -f "$TEST_TMP/tree/runtime/long.cc"
printf '%s\n' '#include "hvd/error.h"' 'void a() { throw hvd::Error(hvd::ErrorKind::kUsage, "bad"); }' \
  'void b(const hvd::Error& e) { throw hvd::Error(e.kind(), "again"); }' '// throw Error("in a comment")' \
  >"$TEST_TMP/tree/runtime/kinds.cc"
bash "$CHECK" "$TEST_TMP/tree" >"$TEST_TMP/out" 2>&1 || { cat "$TEST_TMP/out"; fail "throw sites with a kind were reported"; }
printf '%s\n' '#include "hvd/error.h"' 'void a() { throw Error("no kind, " + what); }' >"$TEST_TMP/tree/runtime/kinds.cc"
check_fails "a throw without a kind passed the check"
grep -q '^runtime/kinds.cc:2: throw Error(...) without its ErrorKind$' "$TEST_TMP/out" ||
  { cat "$TEST_TMP/out"; fail "the report does not name runtime/kinds.cc:2"; }
printf '%s\n' '#include "hvd/error.h"' 'void a() {' '  throw Error(' '      "no kind");' '}' >"$TEST_TMP/tree/runtime/kinds.cc"
check_fails "a throw without a kind, its message on the next line, passed the check"
grep -q '^runtime/kinds.cc:3: throw Error(...) without its ErrorKind$' "$TEST_TMP/out" ||
  { cat "$TEST_TMP/out"; fail "the report does not name runtime/kinds.cc:3"; }
pass "a throw site without its ErrorKind is reported with its file and line"
