#!/usr/bin/env bash
# scripts/check-structure.sh passes on this tree and catches an environment read outside common/env, and an
# #include that points up the layers (common <- store <- comm <- engine <- api <- glue; programs: common, store).
source "$(dirname "$0")/lib.bash"
: "${HVD_SOURCE:?set HVD_SOURCE to the source tree}"
CHECK="$HVD_SOURCE/scripts/check-structure.sh"

bash "$CHECK" "$HVD_SOURCE" >"$TEST_TMP/out" 2>&1 || { cat "$TEST_TMP/out"; fail "the tree breaks a structure rule"; }
pass "the tree reads the environment only through common/env and includes down the layers"

# A copy of the scanned folders with one getenv+atoi added must fail, naming the file and line.
mkdir -p "$TEST_TMP/tree"
for dir in common runtime launcher agent include; do cp -r "$HVD_SOURCE/$dir" "$TEST_TMP/tree/"; done
bash "$CHECK" "$TEST_TMP/tree" >/dev/null 2>&1 || fail "the unmodified copy fails the check"
cat >"$TEST_TMP/tree/agent/sneaky.cc" <<'CC'
#include <cstdlib>
// getenv in a comment is fine
int size() { return std::atoi(std::getenv("HOROVOD_SIZE")); }
CC
set +e
bash "$CHECK" "$TEST_TMP/tree" >"$TEST_TMP/out" 2>&1
rc=$?
set -e
[ "$rc" -eq 1 ] || { cat "$TEST_TMP/out"; fail "an added getenv/atoi passed the check (exit $rc)"; }
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
printf '%s\n' '#pragma once' '#include "runtime/store/store.h"' '#include "runtime/reduce/reduce.h"' \
  >"$TEST_TMP/tree/runtime/comm/down.h"
bash "$CHECK" "$TEST_TMP/tree" >"$TEST_TMP/out" 2>&1 || { cat "$TEST_TMP/out"; fail "an include down the layers was reported"; }
printf '%s\n' '#pragma once' '// engine types' '#include "runtime/engine/message.h"' >"$TEST_TMP/tree/runtime/comm/up.h"
set +e
bash "$CHECK" "$TEST_TMP/tree" >"$TEST_TMP/out" 2>&1
rc=$?
set -e
[ "$rc" -eq 1 ] || { cat "$TEST_TMP/out"; fail "comm including engine passed the check (exit $rc)"; }
grep -q '^runtime/comm/up.h:3: includes runtime/engine/message.h (engine) from comm' "$TEST_TMP/out" ||
  { cat "$TEST_TMP/out"; fail "the report does not name runtime/comm/up.h:3 and the layers"; }
rm "$TEST_TMP/tree/runtime/comm/up.h"
printf '%s\n' '#include "runtime/runtime.h"' >"$TEST_TMP/tree/agent/up.cc"
bash "$CHECK" "$TEST_TMP/tree" >"$TEST_TMP/out" 2>&1 && fail "the agent including the runtime passed the check"
grep -q '^agent/up.cc:1: includes runtime/runtime.h (api) from agent' "$TEST_TMP/out" ||
  { cat "$TEST_TMP/out"; fail "the report does not name agent/up.cc:1"; }
pass "an include up the layers, or from a program into libhvd, is reported with its file and line"
