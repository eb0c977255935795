#!/usr/bin/env bash
# An elastic job across netns hosts with the runtime's test worker (hvd_elastic_worker), hosts from a discovery
# script (a file the test edits), one worker per host, --min-np 2:
#   1. h1, h2, h3 train; h3's cable is pulled: hvdrun loses its agent (no heartbeat), blacklists h3, and h1, h2
#      go on; then h3's agent is SIGKILLed (the host is dead for good).
#   2. h4 is added to the discovery file: hvdrun adds it at a later discovery run (the script runs every period,
#      never sooner) and it trains with h1, h2.
#   3. h2's agent is SIGKILLed: hvdrun blacklists h2 at once; h1 and h4 finish.
# The job exits 0 and commits every 5 steps: rank 0's committed step never goes backwards, every generation starts
# at rank 0's last commit, and the last ranks end with the parameters of an undisturbed run (which needs each
# reset to go back to the commit). Prints the benchmark figures: seconds from each host's death to training resumed
# on the others (rank 0's start line of the new generation), from h4's appearance in discovery to its start line.
MULTIHOST_HOSTS=4
here=$(cd "$(dirname "$0")" && pwd)  # multihost_lib.bash changes directory
source "$here/multihost_lib.bash"
source "$here/elastic_lib.bash"
STEPS=400
INTERVAL=1  # --discovery-interval: Horovod's default
reference_checksum "$STEPS"

printf 'h1:1\nh2:1\nh3:1\n' >"$TEST_TMP/hosts"
# Each run appends its start time (seconds since the epoch) to runs: the check of the discovery period.
printf '#!/bin/sh\ndate +%%s.%%N >>%s\ncat %s\n' "$TEST_TMP/runs" "$TEST_TMP/hosts" >"$TEST_TMP/discover.sh"
chmod +x "$TEST_TMP/discover.sh"
h0_hvdrun_bg --prefix-timestamp --min-np 2 --host-discovery-script "$TEST_TMP/discover.sh" \
  --discovery-interval "$INTERVAL" "$ELASTIC_WORKER" --steps "$STEPS" --commit-every 5 --step-ms 50
wait_lines 3 "elastic_worker start generation=0 rank=[0-2] size=3" 60
wait_lines 1 "elastic_worker commit step=10 size=3" 30

# 1. h3's cable pulled, then its agent SIGKILLed (before it would notice and stop its worker itself).
h3_dead=$(now)
"$NETNS" link h3 down
sleep 1
h3_agent=$(pids_on "$AGENT" -- h3)
[ -n "$h3_agent" ] || fail "no agent on h3 to kill"
kill -KILL $h3_agent
wait_lines 1 "elastic_worker commit step=[0-9]+ size=2" 40
grep -q "lost the agent on h3 .*; blacklisting h3" "$TEST_TMP/err" || { cat "$TEST_TMP/err"; fail "h3 was not blacklisted"; }
pass "h3's link pulled and its agent killed: hvdrun blacklisted h3, h1 and h2 train on"

# 2. h4 appears in discovery.
size3_commits=$(grep -c "elastic_worker commit step=[0-9]* size=3" "$TEST_TMP/out")  # generation 0's
echo "h4:1" >>"$TEST_TMP/hosts"
h4_listed=$(now)
# A bound for a loaded 2-core machine (the script runs every period, then hvdrun acts); the period itself is
# checked on the script's runs below.
wait_lines 1 "host h4 is available; adding it" 30 "$TEST_TMP/err"
added_after=$(awk -v a="$h4_listed" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }')
wait_lines $((size3_commits + 1)) "elastic_worker commit step=[0-9]+ size=3" 40
pass "h4, listed by the discovery script, was added $added_after s later and trains"

# 3. h2's agent SIGKILLed.
h2_dead=$(now)
h2_agent=$(pids_on "$AGENT" -- h2)
[ -n "$h2_agent" ] || fail "no agent on h2 to kill"
kill -KILL $h2_agent
wait_exit "$JOB_PID" 90
expect_rc 0 "the elastic job after losing h3 and h2 and gaining h4"
expect_err "lost the agent on h2" "h2's loss is reported"
expect_err "host h4 joined generation" "h4's join is reported"
expect_commits_forward "$STEPS"
expect_restarts_at_commits
[ "$RESTARTS" -ge 3 ] || fail "expected at least 3 restarts (h3 lost, h4 added, h2 lost), got $RESTARTS"
expect_final_checksums 2 "$STEPS" 2
grep -qE '^[^[]*\[3\]<stdout>:elastic_worker done' <<<"$OUT" || fail "h4's worker (id 3) was not among the last ranks"
pass "h1 and h4 finished at step $STEPS with the undisturbed run's checksum $REFERENCE; commits only went forward; $RESTARTS restarts, each at the last commit"
# The discovery period: the script ran every --discovery-interval, never sooner (hvdrun waits a period after each
# run ends), and more than once.
awk -v p="$INTERVAL" 'NR > 1 && $1 - prev < p && !bad { printf "runs %d and %d were %.3f s apart\n", NR - 1, NR, $1 - prev; bad = 1 }
                      { prev = $1 } END { if (NR < 3) { print NR " runs"; bad = 1 } exit bad }' "$TEST_TMP/runs" ||
  fail "the discovery script ran sooner than every --discovery-interval $INTERVAL s, or not more than twice"
pass "the discovery script ran $(grep -c . "$TEST_TMP/runs") times, at least $INTERVAL s apart"
expect_no_job_on 10 h1 h2 h4
pass "nothing of the job remains on h1, h2 or h4"

joined="elastic_worker start generation=[1-9][0-9]* rank=0 size=3 "
resumed2="elastic_worker start generation=[1-9][0-9]* rank=0 size=2 "
figure "host death (link pulled, agent killed) to training resumed on the others" "$h3_dead" "$(line_time "$resumed2")"
figure "host appearance in discovery to training with it" "$h4_listed" "$(line_time "$joined")"
figure "host death (agent SIGKILLed) to training resumed on the others" "$h2_dead" \
  "$(line_time "$joined" "$resumed2")"
