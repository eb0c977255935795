#!/usr/bin/env bash
# hvdrun's elastic mode on one host, driven by elastic_probe (a worker speaking the store protocol directly):
# a job forms one generation and ends 0; a worker's SIGKILL below --min-np fails the job after --elastic-timeout
# naming the count, --min-np and the timeout; a discovery script's hosts are used; bad elastic flags exit 2.
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

# Below --min-np: a worker killed, the host blacklisted, nothing left; --elastic-timeout 2 ends it.
"$HVDRUN" -H localhost:2 --min-np 2 --elastic-timeout 2 "$PROBE" 300 100 >"$TEST_TMP/out" 2>"$TEST_TMP/err" &
job=$!
for _ in $(seq 100); do [ "$(grep -c generation=0 "$TEST_TMP/out" 2>/dev/null)" -ge 2 ] && break; sleep 0.1; done
victim=$(pgrep -f "elastic_probe 300 100" | tail -1)
[ -n "$victim" ] || fail "no worker to kill"
kill -KILL "$victim"
start=$SECONDS
set +e; timeout 30 tail --pid=$job -f /dev/null; wait $job; RC=$?; set -e
ERR="$(cat "$TEST_TMP/err")"
expect_rc 7 "below --min-np past --elastic-timeout"
expect_err "fewer than --min-np 2, for --elastic-timeout 2 s" "the failure names why"
expect_err "was killed by SIGKILL; blacklisting localhost" "the failure is reported"
pgrep -f "elastic_probe 300 100" >/dev/null && fail "a worker outlived hvdrun"
pass "below --min-np: exit 7 after $((SECONDS - start)) s naming --min-np and --elastic-timeout, no orphans"

# A discovery script names the hosts.
printf '#!/bin/sh\necho localhost:2\n' >"$TEST_TMP/discover.sh"
chmod +x "$TEST_TMP/discover.sh"
run_hvdrun 60 -np 2 --min-np 2 --host-discovery-script "$TEST_TMP/discover.sh" "$PROBE" 5 50
expect_rc 0 "a job on the discovery script's hosts"
expect_err "2 workers on localhost:2" "the script's slots are used"
pass "--host-discovery-script: its host:slots lines place the workers"

# Bad flags: exit 2 naming the flag.
bad() {
  run_hvdrun 10 "$@"
  expect_rc 2 "$*"
}
bad -H localhost:2 --min-np 3 --max-np 2 "$PROBE" 1 1; expect_err "--min-np 3 is above --max-np 2" "min > max"
bad -np 5 -H localhost:8 --min-np 2 --max-np 4 "$PROBE" 1 1; expect_err "-np 5 is outside" "np outside range"
bad --min-np 1 --host-discovery-script /nonexistent "$PROBE" 1 1; expect_err "--host-discovery-script '/nonexistent'" "no script"
printf 'echo localhost:2\n' >"$TEST_TMP/noexec.sh"
bad --min-np 1 --host-discovery-script "$TEST_TMP/noexec.sh" "$PROBE" 1 1; expect_err "not an executable file" "script not executable"
bad -H localhost:2 --min-np 1 --mpi "$PROBE" 1 1; expect_err "do not apply with --mpi" "with --mpi"
bad -H localhost:2 --elastic-timeout 5 "$PROBE" 1 1; expect_err "--elastic-timeout applies to elastic jobs only" "not elastic"
bad -H localhost:2 --min-np 1 --blacklist-cooldown-range 10 5 "$PROBE" 1 1; expect_err "MIN is above MAX" "cooldown range"
printf '#!/bin/sh\necho "localhost:two"\n' >"$TEST_TMP/badout.sh"
chmod +x "$TEST_TMP/badout.sh"
bad --min-np 1 --host-discovery-script "$TEST_TMP/badout.sh" "$PROBE" 1 1; expect_err "output line 1" "bad script output"
pass "bad elastic flags and script output exit 2 naming the flag"
