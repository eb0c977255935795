#!/usr/bin/env bash
# hvdrun's elastic mode on one host, driven by elastic_probe (a worker speaking the store protocol directly):
# a job forms one generation and ends 0; a worker's SIGKILL takes only its slot out and the survivors go on to
# exit 0; below --min-np the job fails after --elastic-timeout naming the count, --min-np and the timeout; a host
# whose every slot failed is blacklisted; a failed slot comes back after --blacklist-cooldown-range; a discovery
# script's hosts are used; bad elastic flags exit 2.
source "$(dirname "$0")/lib.bash"
PROBE="$HVD_BIN/elastic_probe"
[ -x "$PROBE" ] || fail "build elastic_probe first"
cd "$TEST_TMP"

run_hvdrun 60 -H localhost:3 --min-np 2 "$PROBE" 5 50
expect_rc 0 "a 3-worker elastic job"
[ "$(grep -c 'done generation=0' <<<"$OUT")" -eq 3 ] || { echo "$OUT"; fail "not every worker finished generation 0"; }
expect_err "elastic generation 0: 3 workers on localhost:3" "the generation is announced"
grep -q "size=3" <<<"$OUT" || fail "no worker saw size=3"
pass "-H localhost:3 --min-np 2: one generation of 3, exit 0"

# start_job ARGS...: hvdrun in the background, its output in $TEST_TMP/out and err; JOB is its pid.
start_job() {
  : >"$TEST_TMP/out"
  "$HVDRUN" "$@" >"$TEST_TMP/out" 2>"$TEST_TMP/err" &
  JOB=$!
}
# kill_worker ARGS: SIGKILLs one running worker started as 'elastic_probe ARGS'; VICTIM is the name it reported.
kill_worker() {
  local pid
  pid=$(pgrep -f "^[^ ]*elastic_probe $1\$" | tail -1)
  [ -n "$pid" ] || fail "no worker 'elastic_probe $1' to kill"
  VICTIM=$(tr '\0' '\n' <"/proc/$pid/environ" | sed -n 's/^HVD_WORKER_ID=//p')
  kill -KILL "$pid"
}

# One worker of three SIGKILLed: its slot leaves, the two survivors form generation 1 and finish.
start_job -H localhost:3 --min-np 2 "$PROBE" 30 100
wait_lines 3 "generation=0" 10
kill_worker "30 100"
wait_exit "$JOB" 30
expect_rc 0 "a 3-worker job that lost one worker, --min-np 2"
expect_err "was killed by SIGKILL; taking slot $VICTIM out of the job for the rest of the job" "the slot is taken out"
grep -q "blacklisting" <<<"$ERR" && { echo "$ERR"; fail "the host was blacklisted for one worker's failure"; }
[ "$(grep -c 'generation=1 rank=[01] size=2' <<<"$OUT")" -eq 2 ] || { echo "$OUT"; fail "the survivors did not form generation 1 of 2"; }
[ "$(grep -c 'done generation=1' <<<"$OUT")" -eq 2 ] || { echo "$OUT"; fail "the survivors did not finish"; }
grep -q "probe $VICTIM generation=1" <<<"$OUT" && fail "the failed slot $VICTIM was used again"
pass "a worker's SIGKILL takes out its slot only: 2 survivors finish generation 1, exit 0"

# Below --min-np: a worker killed, its slot out, one left; --elastic-timeout 2 ends it.
start_job -H localhost:2 --min-np 2 --elastic-timeout 2 "$PROBE" 300 100
wait_lines 2 "generation=0" 10
kill_worker "300 100"
wait_exit "$JOB" 30
expect_rc 7 "below --min-np past --elastic-timeout"
expect_err "fewer than --min-np 2, for --elastic-timeout 2 s" "the failure names why"
expect_err "was killed by SIGKILL; taking slot $VICTIM out" "the failure is reported"
pgrep -f "elastic_probe 300 100" >/dev/null && fail "a worker outlived hvdrun"
pass "below --min-np: exit 7 after $ELAPSED s naming --min-np and --elastic-timeout, no orphans"

# Every slot of the host failed, one after the other: the host is blacklisted.
start_job -H localhost:2 --min-np 1 --elastic-timeout 2 "$PROBE" 301 100
wait_lines 2 "generation=0" 10
kill_worker "301 100"
wait_lines 1 "generation=1 rank=0 size=1" 10
kill_worker "301 100"
wait_exit "$JOB" 30
expect_rc 7 "no slot left"
expect_err "was killed by SIGKILL, the last of its 2 slots to fail; blacklisting localhost for the rest of the job" \
  "the host goes when its last slot fails"
pass "a host whose every slot failed is blacklisted"

# With a cool-down the failed slot comes back: a new worker there joins the survivor in generation 2.
start_job -H localhost:2 --min-np 1 --blacklist-cooldown-range 1 1 "$PROBE" 30 100
wait_lines 2 "generation=0" 10
kill_worker "30 100"
wait_exit "$JOB" 30
expect_rc 0 "a failed slot back after its cool-down"
expect_err "taking slot $VICTIM out of the job for 1 s" "the cool-down is announced"
expect_err "slot $VICTIM is back" "the slot's return is announced"
[ "$(grep -c 'done generation=2' <<<"$OUT")" -eq 2 ] || { echo "$OUT"; fail "the new worker on $VICTIM did not join generation 2"; }
pass "--blacklist-cooldown-range: the failed slot $VICTIM is used again after 1 s"

# A discovery script names the hosts (no -np: --min-np workers to start with, then every slot it lists).
printf '#!/bin/sh\necho localhost:2\n' >"$TEST_TMP/discover.sh"
chmod +x "$TEST_TMP/discover.sh"
run_hvdrun 60 --min-np 2 --host-discovery-script "$TEST_TMP/discover.sh" "$PROBE" 5 50
expect_rc 0 "a job on the discovery script's hosts"
expect_err "2 workers on localhost:2" "the script's slots are used"
pass "--host-discovery-script: its host:slots lines place the workers"

# Bad flags: exit 2 with one line naming the flag.
expect_usage_error "--min-np 3 is above --max-np 2" -H localhost:2 --min-np 3 --max-np 2 "$PROBE" 1 1
expect_usage_error "-np 5 is outside" -np 5 -H localhost:8 --min-np 2 --max-np 4 "$PROBE" 1 1
expect_usage_error "--host-discovery-script '/nonexistent'" --min-np 1 --host-discovery-script /nonexistent "$PROBE" 1 1
printf 'echo localhost:2\n' >"$TEST_TMP/noexec.sh"
expect_usage_error "not an executable file" --min-np 1 --host-discovery-script "$TEST_TMP/noexec.sh" "$PROBE" 1 1
expect_usage_error "do not apply with --mpi" -H localhost:2 --min-np 1 --mpi "$PROBE" 1 1
expect_usage_error "--elastic-timeout applies to elastic jobs only" -H localhost:2 --elastic-timeout 5 "$PROBE" 1 1
expect_usage_error "MIN is above MAX" -H localhost:2 --min-np 1 --blacklist-cooldown-range 10 5 "$PROBE" 1 1
printf '#!/bin/sh\necho "localhost:two"\n' >"$TEST_TMP/badout.sh"
chmod +x "$TEST_TMP/badout.sh"
expect_usage_error "output line 1" --min-np 1 --host-discovery-script "$TEST_TMP/badout.sh" "$PROBE" 1 1
pass "bad elastic flags and script output exit 2 with one line naming the flag"
