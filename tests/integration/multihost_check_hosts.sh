# hvdrun --check-hosts: passes on a healthy cluster (SSH, agent, link back, data plane both ways) and names the
# broken host otherwise.
source "$(dirname "$0")/multihost_lib.bash"

h0_hvdrun 90 --check-hosts -H h1:2,h2:2
[ "$RC" -eq 0 ] || { echo "$OUT"; echo "$ERR"; fail "--check-hosts failed on a healthy cluster (exit $RC)"; }
grep -qE "^h1:1 +ok +h2 ok" <<<"$OUT" || { echo "$OUT"; fail "h1's row does not show h2 reachable"; }
grep -qE "^h2:1 +ok +h1 ok" <<<"$OUT" || { echo "$OUT"; fail "h2's row does not show h1 reachable"; }
grep -q "verdict: every check passed" <<<"$OUT" || fail "no passing verdict"
pass "--check-hosts passes on a healthy cluster"

"$NETNS" sshd h2 stop
h0_hvdrun 90 --check-hosts -H h1:2,h2:2 --start-timeout 10
"$NETNS" sshd h2 start
[ "$RC" -ne 0 ] || fail "--check-hosts passed with h2's sshd stopped"
grep -qE "^h2:1 +FAIL" <<<"$OUT" || { echo "$OUT"; fail "h2 not marked FAIL"; }
expect_err "h2: connection refused" "--check-hosts names why h2 failed"
grep -q "verdict: FAILED" <<<"$OUT" || fail "no failing verdict"
expect_no_job_on 10 h1 h2
pass "--check-hosts names the broken host"
