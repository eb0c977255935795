# Bad input: exit code 2 and one line naming the value and the fix, before anything starts.
source "$(dirname "$0")/lib.bash"

check() {  # check "expected text" ARGS...
  expect_usage_error "$@"
  shift
  this_build_agents >/dev/null && fail "hvdrun $*: an agent was started"
  true
}

check "-np" -np 0 "$WORKER" env
check "-np 8 but the hosts offer 4 slots (h1:2, h2:2)" -np 8 -H h1:2,h2:2 "$WORKER" env
check "h1:x" -H h1:x "$WORKER" env
check ":4" -H :4 "$WORKER" env
check "h1:0" -H h1:0 "$WORKER" env
check "h1:-1" -H h1:-1 "$WORKER" env
check "empty" -H h1:2,,h2:2 "$WORKER" env
check "h1" -H h1:2,h1:2 "$WORKER" env
printf 'localhost slots=2\n' >"$TEST_TMP/hosts"
check "--hostfile" -H localhost:2 --hostfile "$TEST_TMP/hosts" "$WORKER" env
check "$TEST_TMP/missing" --hostfile "$TEST_TMP/missing" "$WORKER" env
printf '# comment\n\nlocalhost slots=two\n' >"$TEST_TMP/bad_hosts"
check "bad_hosts:3" --hostfile "$TEST_TMP/bad_hosts" "$WORKER" env
check "command" -np 2
check "no-such-program-here" -np 2 no-such-program-here
printf 'echo hi\n' >"$TEST_TMP/not_executable"
check "not_executable" -np 1 "$TEST_TMP/not_executable"
check "--no-such-flag" --no-such-flag -np 1 "$WORKER" env
pass "bad input -> exit 2 with one line naming the value"

# A good hostfile, and flags after the command belong to the command.
printf '# hosts\nlocalhost slots=2\n' >"$TEST_TMP/hosts"
run_hvdrun 30 --hostfile "$TEST_TMP/hosts" -- sh -c 'echo "$HOROVOD_SIZE $*"' sh -np 7 --verbose
expect_rc 0 "hostfile run"
grep -qxF "[1]<stdout>:2 -np 7 --verbose" <<<"$OUT" || fail "arguments after the command were not passed: $OUT"
run_hvdrun 10 --version
expect_rc 0 "--version"
grep -q "hvdrun" <<<"$OUT" || fail "--version"
pass "hostfile, command arguments, --version"
