# Root-cause report across hosts (netns cluster: hvdrun on h0, ranks 0-1 on h1, 2-3 on h2):
#  - rank 2 on h2 raises a Python exception while the others wait (when hvd.torch is built): the root cause is
#    rank 2 on h2 with the exception and its frames; exit 1;
#  - rank 3 on h2 throws an uncaught C++ exception: the root cause is rank 3 on h2, with its message, read by h2's
#    agent from its error file; the ranks on h1 are consequences; exit 134;
#  - h2's agent is SIGKILLed while rank 3 hangs and the others wait (rank 0's record on h1 names allreduce 'wait'
#    missing rank 3): the root cause is the lost host h2, its ranks were lost with it, and hvdrun keeps exit 4;
#  - h2's cable pulled in the same hang: the same, found by the heartbeat.
source "$(dirname "$0")/multihost_lib.bash"
source "$(dirname "$0")/report_lib.bash"
PY=/usr/bin/python3
PYDIR="$HVD_BIN/../python"
TESTS_PY="$HVD_SOURCE/tests/python"

h0_hvdrun 90 -np 4 -H h1:2,h2:2 --kill-grace 2 --report "$REPORT" "$REPORT_WORKER" throw 3
expect_rc 134 "rank 3 on h2 throws"
expect_root_cause "  rank 3 on h2 (pid "
expect_reason "std::runtime_error: boom on rank 3: the loader found no shard 7"
expect_json 'j["root_cause"]["host"]' h2
expect_json 'j["root_cause"]["rank"]' 3
expect_json '[(r["host"], r["role"]) for r in j["ranks"][:2]]' "[('h1', 'consequence'), ('h1', 'consequence')]"
pass "an exception on rank 3 on h2 is the root cause, read from h2's error file; exit 134"

if ls "$PYDIR"/hvd/torch/_C*.so >/dev/null 2>&1; then
  h0_hvdrun 120 -np 4 -H h1:2,h2:2 --kill-grace 2 --report "$REPORT" -x PYTHONPATH="$PYDIR" -x OMP_NUM_THREADS=1 \
    "$PY" "$TESTS_PY/report_failures.py" raise 2
  expect_rc 1 "rank 2 on h2 raises"
  expect_root_cause "  rank 2 on h2 (pid "
  expect_reason "RuntimeError: boom on rank 2"
  expect_reason "in load_batch"
  expect_json 'j["root_cause"]["host"]' h2
  expect_json 'j["root_cause"]["source"]' python
  expect_json '[r["role"] for r in j["ranks"]]' "['consequence', 'consequence', 'root cause', 'consequence']"
  pass "a Python exception on rank 2 on h2 is the root cause; exit 1"
fi

# wait_hang: the ranks wait in allreduce 'wait' for rank 3 (rank 0's record, in h1's agent's record directory).
wait_hang() {
  wait_lines 4 'pid=' 60
  local h1_agent
  h1_agent=$(exe_pids_on "$AGENT" h1 | tail -n1)
  [ -n "$h1_agent" ] || fail "no hvd-agent found on h1"
  wait_pending_record "/tmp/hvd-records-$h1_agent-*/0.json.pending" 3 30
}

h0_hvdrun_bg -np 4 -H h1:2,h2:2 --kill-grace 2 --report "$REPORT" "$REPORT_WORKER" stall 3
wait_hang
agent=$(exe_pids_on "$AGENT" h2 | tail -n1)
[ -n "$agent" ] || fail "no hvd-agent found on h2"
kill -KILL "$agent"
wait_exit "$JOB_PID" 40
expect_rc 4 "h2's agent lost"
sed -n '/^hvdrun: the job/,$p' <<<"$ERR"  # the summary, for the log
expect_err "Root cause (first observed failure):" "summary"
expect_reason "lost the agent on h2"
expect_reason "rank 3 on h2"
expect_json 'j["exit_code"]' 4
expect_json 'j["root_cause"]["kind"]' host
expect_json 'j["root_cause"]["host"]' h2
expect_json '[r["state"] for r in j["ranks"]][2:]' "['lost', 'lost']"
expect_json '[h["host"] for h in j["lost_hosts"]]' "['h2']"
# h2's workers die with their agent (PR_SET_PDEATHSIG); h1's are stopped: nothing of the job may stay.
deadline=$((SECONDS + 30))
while [ -n "$(pids_on -F "$REPORT_WORKER" -- h1 h2)" ]; do
  [ $SECONDS -lt $deadline ] || fail "report workers remain on h1 or h2"
  sleep 0.2
done
pass "h2's agent SIGKILLed: the root cause is the lost host h2; exit 4"

# h2's cable pulled while the ranks wait: no connection closes, the agent heartbeat finds it (10 s); the root cause
# is the lost host h2 all the same, exit 4.
h0_hvdrun_bg -np 4 -H h1:2,h2:2 --kill-grace 2 --report "$REPORT" "$REPORT_WORKER" stall 3
wait_hang
"$NETNS" link h2 down
wait_exit "$JOB_PID" 40
"$NETNS" link h2 up
expect_rc 4 "h2's link down"
expect_reason "lost the agent on h2 (no heartbeat for 10 s)"
expect_json 'j["root_cause"]["kind"]' host
expect_json 'j["root_cause"]["host"]' h2
expect_json '[r["state"] for r in j["ranks"]][2:]' "['lost', 'lost']"
pass "h2's cable pulled: the root cause is the lost host h2 (no heartbeat); exit 4"
