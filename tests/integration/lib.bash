# Shared helpers for the integration tests (sourced, not run). HVD_BIN points at build/bin.
set -euo pipefail
: "${HVD_BIN:?set HVD_BIN to the build/bin directory}"
HVDRUN="$HVD_BIN/hvdrun"
WORKER="$HVD_BIN/test_worker"
TEST_TMP="$(mktemp -d)"
trap 'rm -rf "$TEST_TMP"' EXIT
# Run inside a Slurm job, hvdrun would take its hosts from the allocation (and start agents with srun): the
# tests describe their own hosts. The Slurm tests make their own allocations on the netns hosts.
unset SLURM_JOB_ID SLURM_JOBID SLURM_JOB_NODELIST SLURM_NODELIST

fail() { echo "FAIL: $*" >&2; exit 1; }
pass() { echo "ok: $*"; }

# run_hvdrun LIMIT_S ARGS...: runs hvdrun bounded in time; sets OUT, ERR, RC.
run_hvdrun() {
  local limit=$1; shift
  set +e
  timeout -k 5 "$limit" "$HVDRUN" "$@" >"$TEST_TMP/out" 2>"$TEST_TMP/err"
  RC=$?
  set -e
  OUT="$(cat "$TEST_TMP/out")"
  ERR="$(cat "$TEST_TMP/err")"
  [ "$RC" -ne 124 ] && [ "$RC" -ne 137 ] || fail "hvdrun $* hung past ${limit}s"
}

expect_rc() { [ "$RC" -eq "$1" ] || { echo "--- stdout"; echo "$OUT" | tail -20; echo "--- stderr"; echo "$ERR" | tail -20; fail "$2: exit code $RC, expected $1"; }; }
expect_err() { grep -qF -- "$1" <<<"$ERR" || { echo "--- stderr"; echo "$ERR"; fail "$2: stderr lacks '$1'"; }; }

# alive PID: true while the process exists and is not a zombie.
# Agents of this build: exec'd hvd-agents, and local agents hvdrun forked without exec (named hvd-agent, with
# hvdrun's command line); other jobs' agents on the machine do not count. Prints their pids; fails when none.
this_build_agents() {
  local pid found=1
  for pid in $(pgrep -x hvd-agent); do
    if tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qE "^$HVD_BIN/hvd(-agent|run) "; then
      echo "$pid"
      found=0
    fi
  done
  return $found
}
alive() { [ -e "/proc/$1" ] && ! grep -q '^State:.*Z' "/proc/$1/status" 2>/dev/null; }

# wait_gone PID... within LIMIT_S seconds, else fail.
wait_gone() {
  local limit=$1; shift
  local deadline=$((SECONDS + limit))
  for pid in "$@"; do
    while alive "$pid"; do
      [ $SECONDS -lt $deadline ] || fail "process $pid still alive after ${limit}s"
      sleep 0.1
    done
  done
}
