# A host gone from the discovery script's list (netns hosts h1:2, h2:2; docs/elastic.md): hvdrun says so,
# answers its worker "no place" at rendezvous (it exits; no failure, no blacklisting), and once the job re-formed
# without h2 stops h2's agent, also with a worker there that never came back to rendezvous (SIGSTOPped), while the
# job goes on; h1's workers finish: exit 0. Workers are elastic_probe. h1/1 is held (SIGSTOP) until h2/0 has had
# its answer, so that the answer comes before the new generation (which would stop h2's agent first).
here=$(cd "$(dirname "$0")" && pwd)  # multihost_lib.bash changes directory
source "$here/multihost_lib.bash"
PROBE="$HVD_BIN/elastic_probe"
[ -x "$PROBE" ] || fail "build elastic_probe first"

# worker_pid HOST SLOT: the pid of the probe of that slot.
worker_pid() {
  local p
  for p in $(exe_pids_on "$PROBE" "$1"); do
    tr '\0' '\n' <"/proc/$p/environ" | grep -qx "HVD_WORKER_ID=$1/$2" && { echo "$p"; return; }
  done
  fail "no process for worker $1/$2"
}

printf 'h1:2\nh2:2\n' >"$TEST_TMP/hosts"
printf '#!/bin/sh\ncat %s\n' "$TEST_TMP/hosts" >"$TEST_TMP/discover.sh"
chmod +x "$TEST_TMP/discover.sh"
h0_hvdrun_bg --min-np 2 --host-discovery-script "$TEST_TMP/discover.sh" --discovery-interval 0.5 "$PROBE" 150 100
wait_lines 4 "generation=0 rank=[0-3] size=4$" 60
for w in 0 1; do
  grep -q "probe h2/$w generation=0 rank=$((2 + w)) size=4$" "$TEST_TMP/out" || { cat "$TEST_TMP/out"; fail "no worker h2/$w"; }
done
[ -n "$(pids_on "$AGENT" -- h2)" ] || fail "no agent on h2"
held=$(worker_pid h1 1)
stuck=$(worker_pid h2 1)
on_exit "kill -CONT $held 2>/dev/null; kill -KILL $stuck 2>/dev/null"
kill -STOP "$held" "$stuck"

printf 'h1:2\n' >"$TEST_TMP/hosts"
wait_lines 1 "^hvdrun: host h2 is gone from discovery; removing it$" 30 "$TEST_TMP/err"
wait_lines 1 "probe h2/0 no place: " 30
kill -CONT "$held"
wait_lines 2 "generation=1 rank=[01] size=2$" 30
# h2's agent stops, and the stuck worker with it, while the job goes on (h1 has most of its 15 s of steps left).
expect_no_job_on 20 h2
[ -z "$(exe_pids_on "$PROBE" h2)" ] || fail "a worker still runs on h2"
alive "$JOB_PID" || fail "the job ended before h2's agent was seen stopped"
pass "h2 gone from discovery: announced, h2/0 answered no place, h2's agent stopped with the stuck h2/1 while h1 trained on"

wait_exit "$JOB_PID" 90
expect_rc 0 "the job after h2 left discovery"
grep -qx "\[[0-9]*\]<stdout>:probe h2/0 no place: host h2 has no place for worker h2/0 any more (removed or blacklisted)" <<<"$OUT" ||
  { echo "$OUT"; fail "h2's worker was not told why it has no place"; }
expect_err "hvdrun: elastic generation 1: 2 workers on h1:2" "the job re-formed on h1"
[ "$(grep -c "elastic generation" <<<"$ERR")" -eq 2 ] || { echo "$ERR"; fail "expected exactly 2 generations"; }
[ "$(grep -c "done generation=1$" <<<"$OUT")" -eq 2 ] || { echo "$OUT"; fail "the 2 workers on h1 did not finish generation 1"; }
grep -qE "blacklisting|taking slot|h2/[01] .*(exited with code|was killed)" <<<"$ERR" &&
  { echo "$ERR"; fail "h2's removal was treated as a failure"; }
pass "h1's 2 workers finished generation 1; h2's exits were no failure; exit 0"
