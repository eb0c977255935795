# Failures of a job hvdrun runs inside a real Slurm allocation on the netns hosts (docs/slurm.md):
# `scancel` on a hung job (rank 3 on h2 never submits allreduce 'wait', which the others wait in) ends every agent
# and worker on every node (Slurm tracks them: they run in its srun step); no rank failed on its own, so hvdrun's
# report names no root cause: the job was stopped from outside, and the op the others waited in, its tensor and the
# missing rank 3 with its host and pid; exit 143 (the first stop's SIGTERM). A node failure (h2's slurmd, step
# daemon, agent and workers SIGKILLed) makes hvdrun exit 4 naming h2 and stop h1's workers; hvdrun SIGKILLed leaves
# no agent or worker behind.
# Both hold on a loaded machine (16 runs of 16 beside three busy loops): the scancel verdict follows the blame from
# rank 1 through rank 0 to the rank scancel stopped, whichever hvdrun heard of first; kill-node kills h2's processes
# deepest first, so that no parent's death wakes the stopped agent to report its killed workers.
source "$(dirname "$0")/slurm_lib.bash"
source "$(dirname "$0")/report_lib.bash"
ALLOC=(-N2 --ntasks-per-node=2)

# wait_job_gone LIMIT_S: the queue is empty.
wait_job_gone() {
  local deadline=$((SECONDS + $1))
  while [ -n "$("$SLURM" exec h0 squeue -h -o %i)" ]; do
    [ $SECONDS -lt $deadline ] || fail "Slurm job still queued after $1 s: $("$SLURM" exec h0 squeue -h)"
    sleep 0.2
  done
}

h0_salloc_bg "${ALLOC[@]}" -- --kill-grace 2 --report "$REPORT" "$REPORT_WORKER" stall 3
wait_lines 4 'pid=' 60
[ -n "$(job_pids h1)" ] && [ -n "$(job_pids h2)" ] || fail "no agent or worker found on h1 and h2"
# Ranks 0, 1 run on h1 and 2, 3 on h2 (--ntasks-per-node=2): rank 0's record of the op is in h1's agent's directory.
h1_agent=$(exe_pids_on "$AGENT" h1 | tail -n1)
[ -n "$h1_agent" ] || fail "no hvd-agent found on h1"
wait_pending_record "/tmp/hvd-records-$h1_agent-*/0.json.pending" 3 30
job="$(slurm_job_id)"
"$SLURM" exec h0 scancel "$job"
wait_exit "$JOB_PID" 30
expect_rc 143 "scancel $job mid-job (salloc exits with hvdrun's code)"
sed -n "/^hvdrun: the job/,\$p" <<<"$ERR"  # the report, for the log
stopped=$(grep -E '^hvdrun: rank ([01] on h1|[23] on h2) \(pid [0-9]+\) was stopped from outside the job \(SIGTERM\)$' <<<"$ERR") ||
  { echo "$ERR"; fail "scancel: no line 'hvdrun: rank R on hN (pid P) was stopped from outside the job (SIGTERM)'"; }
[ "$(grep -c '^hvdrun: rank ' <<<"$ERR")" -eq 1 ] || { echo "$ERR"; fail "scancel: expected one first-failure line"; }
grep -qx 'hvdrun: the job was stopped from outside (exit 143)' <<<"$ERR" || { echo "$ERR"; fail "scancel: no report headline"; }
grep -q "Root cause (first observed failure)" <<<"$ERR" && { echo "$ERR"; fail "scancel: the report names a root cause"; }
expect_err "Root cause: none; no rank failed on its own, they were stopped from outside the job (scancel, kill)" "scancel"
grep -qE "^Waiting when the job ended: allreduce 'wait' for [0-9]+ s, missing rank 3 on h2 \(pid [0-9]+\)$" <<<"$ERR" ||
  { echo "$ERR"; fail "scancel: no line naming allreduce 'wait' and the missing rank 3 on h2"; }
expect_json '(j["outcome"], j["signal"], j["exit_code"], j["root_cause"])' "('stopped', None, 143, None)"
expect_json '(j["waiting"]["op"], j["waiting"]["tensor"])' "('allreduce', 'wait')"
expect_json '[(m["rank"], m["host"], m["pid"] > 0) for m in j["waiting"]["missing"]]' "[(3, 'h2', True)]"
expect_json 'any(r["outside"] for r in j["ranks"])' True
expect_json '[r["role"] for r in j["ranks"] if r["role"] in ("root cause", "cause")]' "[]"
expect_no_job_on 15 h1 h2
wait_job_gone 15
pass "scancel $job on a hung job: exit 143 in ${ELAPSED}s, '$stopped'; the report names no root cause but allreduce 'wait' missing rank 3 on h2; no agent or worker left on h1 or h2"

# hvdrun SIGKILLed: srun's stdin closes, so does every agent's, and nothing of the job survives anywhere.
h0_salloc_bg "${ALLOC[@]}" -- --kill-grace 2 "$WORKER" hang
wait_lines 4 'pid=' 60
hvdrun_pid=$(exe_pids_on "$HVDRUN" h0 | tail -n1)
[ -n "$hvdrun_pid" ] || fail "no hvdrun found on h0"
kill -KILL "$hvdrun_pid"
wait_exit "$JOB_PID" 30
expect_no_job_on 15 h1 h2
wait_job_gone 15
pass "hvdrun SIGKILLed mid-job: no agent or worker left on h1 or h2 (${ELAPSED}s)"

h0_salloc_bg "${ALLOC[@]}" -- --kill-grace 2 "$WORKER" hang
wait_lines 4 'pid=' 60
"$SLURM" kill-node h2
wait_exit "$JOB_PID" 60
expect_rc 4 "node h2 killed mid-job (an agent lost while the job ran)"
# The agent's link closes with its killed process: FIN, or RST when it held unread heartbeats.
lost=$(grep -E '^hvdrun: lost the agent on h2 \((connection closed by peer|Connection reset by peer)\); stopping the job on every host$' <<<"$ERR") ||
  { echo "$ERR"; fail "no line 'hvdrun: lost the agent on h2 (connection closed by peer); stopping the job on every host'"; }
[ "$(grep -c '^hvdrun: lost the agent' <<<"$ERR")" -eq 1 ] || { echo "$ERR"; fail "node h2 killed: expected one lost-agent line"; }
grep -qx 'hvdrun: the job failed (exit 4)' <<<"$ERR" || { echo "$ERR"; fail "node h2 killed: no report headline"; }
expect_no_job_on 15 h1 h2
pass "node h2 killed mid-job: exit 4 in ${ELAPSED}s, '$lost'; nothing left on h1"
