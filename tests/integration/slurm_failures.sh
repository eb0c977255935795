# Failures of a job hvdrun runs inside a real Slurm allocation on the netns hosts: `scancel` mid-job ends every
# agent and worker on every node (Slurm tracks them: they run in its srun step), and a node failure (h2's
# slurmd, step daemon, agent and workers SIGKILLed) makes hvdrun exit naming h2 and stop h1's workers; hvdrun
# SIGKILLed leaves no agent or worker behind.
source "$(dirname "$0")/slurm_lib.bash"
ALLOC=(-N2 --ntasks-per-node=2)

# wait_job_gone LIMIT_S: the queue is empty.
wait_job_gone() {
  local deadline=$((SECONDS + $1))
  while [ -n "$("$SLURM" exec h0 squeue -h -o %i)" ]; do
    [ $SECONDS -lt $deadline ] || fail "Slurm job still queued after $1 s: $("$SLURM" exec h0 squeue -h)"
    sleep 0.2
  done
}

h0_salloc_bg "${ALLOC[@]}" -- --kill-grace 2 "$WORKER" hang
wait_lines 4 'pid=' 60
[ -n "$(job_pids h1)" ] && [ -n "$(job_pids h2)" ] || fail "no agent or worker found on h1 and h2"
job="$(slurm_job_id)"
"$SLURM" exec h0 scancel "$job"
wait_exit "$JOB_PID" 30
[ "$RC" -ne 0 ] || fail "salloc/hvdrun exited 0 after scancel"
echo "$ERR" | grep -v '^salloc:' | sed 's/^/  scancel: /' | head -5
expect_no_job_on 15 h1 h2
wait_job_gone 15
pass "scancel $job mid-job: salloc exited $RC in ${ELAPSED}s; no agent or worker left on h1 or h2"

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
[ "$RC" -ne 0 ] || fail "hvdrun exited 0 after h2 failed"
grep -q "lost the agent on h2" <<<"$ERR" || { echo "$ERR"; fail "the error does not name h2"; }
expect_no_job_on 15 h1 h2
pass "node h2 killed mid-job: exit $RC in ${ELAPSED}s, 'lost the agent on h2'; nothing left on h1"
