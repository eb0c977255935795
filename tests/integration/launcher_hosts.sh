# Host names are checked when -H or --hostfile is read (exit 2, one line naming the value and the fix, no agent
# started), a missing ~/.ssh is no error, and one machine under two names (localhost and 127.0.0.1) is refused
# with exit 2 naming both before any worker starts.
source "$(dirname "$0")/lib.bash"

mkdir -p "$TEST_TMP/home"  # a HOME without ~/.ssh
export HOME="$TEST_TMP/home"

check() {  # check "expected text" ARGS...
  expect_usage_error "$@"
  shift
  grep -q "SSH config" <<<"$ERR" && fail "hvdrun $*: blames the SSH config: $ERR"
  this_build_agents >/dev/null && fail "hvdrun $*: an agent was started"
  true
}

long=$(printf 'x%.0s' $(seq 300))
check "a host name has at most 253 characters, this one 300" -H "$long:1" "$WORKER" env
check "a label has at most 63" -H "$(printf 'y%.0s' $(seq 64)).example:1" "$WORKER" env
check "'h!1' has '!'" -H 'h!1:1' "$WORKER" env
check "label 'h1-'" -H h1-:1 "$WORKER" env
check "'300.1.1.1' is not an IPv4 address" -H 300.1.1.1:1 "$WORKER" env
check "not an IPv6 address" -H '[2001:db8::zz]:1' "$WORKER" env
check "before '@' is not a user name" -H '@h1:1' "$WORKER" env
printf 'h1 slots=1\nbad..name slots=2\n' >"$TEST_TMP/hosts"
check "$TEST_TMP/hosts:2" --hostfile "$TEST_TMP/hosts" "$WORKER" env
pass "bad host names, addresses and users -> exit 2 with one line naming the value and the fix"

# No ~/.ssh at all: a remote host that does not resolve fails for that reason, not for a missing SSH config.
run_hvdrun 60 --start-timeout 30 -H no-such-host.invalid:1 "$WORKER" env
expect_rc 3 "unresolvable host without ~/.ssh"
expect_err "no-such-host.invalid: name does not resolve" "unresolvable host without ~/.ssh"
grep -qE "(parse|read) the SSH config" <<<"$ERR" && fail "a missing ~/.ssh/config is reported as an error: $ERR"
pass "no ~/.ssh: no SSH config error; the host's own failure is reported"

run_hvdrun 30 -H localhost:1,127.0.0.1:1 -- sh -c 'echo started'
expect_rc 2 "-H localhost:1,127.0.0.1:1"
expect_err "'localhost' and '127.0.0.1' reach the same machine" "localhost twice"
expect_err "list it once with all its slots (localhost:2)" "localhost twice"
[ -z "$OUT" ] || fail "a worker ran before the refusal: $OUT"
this_build_agents >/dev/null && fail "an agent is left after the refusal"
run_hvdrun 30 -H localhost:2 "$WORKER" env
expect_rc 0 "-H localhost:2"
pass "localhost and 127.0.0.1 together: refused with exit 2 naming both; localhost:2 runs"
