# SSH start failures are named per host, within the start timeout, and leave nothing running anywhere:
# a stopped sshd, a wrong identity file, an unknown host key (refused; accepted with --ssh-accept-new).
source "$(dirname "$0")/multihost_lib.bash"

# Bounds: a refused connection is known at once, so hvdrun must not wait out the start timeout for it; a host that
# does not answer costs the start timeout. START_SLACK_S is what a loaded 2-core machine may add to either.
START_SLACK_S=8

"$NETNS" sshd h2 stop
h0_hvdrun 60 -np 4 -H h1:2,h2:2 --start-timeout 30 "$WORKER" env
expect_rc 3 "sshd stopped on h2 (the job did not start)"
[ "$ELAPSED" -le "$START_SLACK_S" ] || fail "took ${ELAPSED}s to report a refused connection (bound ${START_SLACK_S} s: a refusal is known at once, unlike the 30 s start timeout)"
expect_err "h2: connection refused" "sshd stopped on h2"
expect_no_job_on 10 h1 h2
pass "stopped sshd on h2 -> exit $RC in ${ELAPSED}s: $(grep -m1 'h2: connection refused' <<<"$ERR")"
"$NETNS" sshd h2 start

"$NETNS" link h2 down
h0_hvdrun 60 -np 4 -H h1:2,h2:2 --start-timeout 5 "$WORKER" env
"$NETNS" link h2 up
expect_rc 3 "h2 unreachable (the job did not start)"
[ "$ELAPSED" -le $((5 + START_SLACK_S)) ] || fail "took ${ELAPSED}s, more than the 5 s start timeout + ${START_SLACK_S} s"
grep -qE "h2: (cannot reach|timed out)|within 5 s from h2" <<<"$ERR" || { echo "$ERR"; fail "unreachable h2 not named"; }
expect_no_job_on 10 h1 h2
pass "unreachable h2 -> exit $RC in ${ELAPSED}s: $(grep -m1 h2 <<<"$ERR")"

h0_hvdrun 60 -np 4 -H h1:2,h3:2 "$WORKER" env
expect_rc 3 "an unknown host (the job did not start)"
expect_err "h3: name does not resolve" "unknown host h3"
expect_no_job_on 10 h1
pass "unknown host name h3 named"

h0_hvdrun 60 -np 4 -H h1:2,h2:2 --agent-path /nonexistent/hvd-agent "$WORKER" env
expect_rc 3 "a missing remote agent (the job did not start)"
expect_err "hvd-agent not found or not executable on h" "missing agent"
expect_err "use --agent-path" "missing agent: the fix"
expect_no_job_on 10 h1 h2
pass "missing remote agent: $(grep -m1 -o 'hvd-agent not found.*' <<<"$ERR")"

# A config without the cluster's key, and a key the hosts do not know.
grep -v IdentityFile "$SSH_CONFIG" >"$TEST_TMP/ssh_config_nokey"
ssh-keygen -q -t ed25519 -N '' -C wrong -f "$TEST_TMP/wrong_key"
USE_CONFIG="$TEST_TMP/ssh_config_nokey"
h0_hvdrun 60 -np 4 -H h1:2,h2:2 -i "$TEST_TMP/wrong_key" "$WORKER" env
expect_rc 3 "a wrong identity file (the job did not start)"
expect_err "authentication failed" "wrong identity file"
expect_err "$TEST_TMP/wrong_key (rejected)" "wrong identity file named"
pass "wrong identity file -> exit $RC: $(grep -m1 'authentication failed' <<<"$ERR" | cut -c1-160)..."
h0_hvdrun 60 -np 4 -H h1:2,h2:2 -i "${SSH_CONFIG%/*}/id_ed25519" "$WORKER" env
expect_rc 0 "the right identity file with -i"
pass "the right key with -i -> exit 0"

# An empty known_hosts: refused and named, then accepted and recorded with --ssh-accept-new.
sed "s|UserKnownHostsFile .*|UserKnownHostsFile $TEST_TMP/known_hosts|" "$SSH_CONFIG" >"$TEST_TMP/ssh_config_newkh"
USE_CONFIG="$TEST_TMP/ssh_config_newkh"
h0_hvdrun 60 -np 4 -H h1:2,h2:2 "$WORKER" env
expect_rc 3 "unknown host keys (the job did not start)"
grep -qE "h[12]: host key unknown" <<<"$ERR" || { echo "$ERR"; fail "unknown host keys: no host named"; }
expect_err "--ssh-accept-new" "the fix for an unknown host key"
expect_no_job_on 10 h1 h2
pass "unknown host keys refused: $(grep -m1 -oE 'h[12]: host key unknown' <<<"$ERR")"
UNKNOWN_KEYS_ERR=$ERR
h0_hvdrun 60 -np 4 -H h1:2,h2:2 --ssh-accept-new "$WORKER" env
expect_rc 0 "--ssh-accept-new"
[ "$(wc -l <"$TEST_TMP/known_hosts")" -eq 2 ] || fail "--ssh-accept-new did not record both keys"
h0_hvdrun 60 -np 4 -H h1:2,h2:2 "$WORKER" env
expect_rc 0 "keys recorded by --ssh-accept-new"
pass "--ssh-accept-new records both keys; the next run needs no flag"

# A changed key is refused even with --ssh-accept-new.
sed -i "/^198.51.100.12 /s| ssh-ed25519 .*| $(cut -d' ' -f1,2 "$TEST_TMP/wrong_key.pub")|" "$TEST_TMP/known_hosts"
h0_hvdrun 60 -np 4 -H h1:2,h2:2 --ssh-accept-new "$WORKER" env
expect_rc 3 "a changed host key (the job did not start)"
expect_err "h2: HOST KEY CHANGED" "changed host key of h2"
expect_no_job_on 10 h1 h2
pass "changed host key of h2 refused even with --ssh-accept-new"

# The issue: "the error names each failed host and why" -- both hosts' keys were unknown.
for h in h1 h2; do
  grep -qF "$h: host key unknown" <<<"$UNKNOWN_KEYS_ERR" ||
    { echo "$UNKNOWN_KEYS_ERR"; fail "unknown host keys on h1 and h2: the error does not name $h"; }
done
pass "both hosts with unknown keys named in one error"
