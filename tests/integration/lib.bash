# Shared helpers for the integration tests (sourced, not run). HVD_BIN points at build/bin.
set -euo pipefail
: "${HVD_BIN:?set HVD_BIN to the build/bin directory}"
HVDRUN="$HVD_BIN/hvdrun"
WORKER="$HVD_BIN/test_worker"
TEST_TMP="$(mktemp -d)"
# Background jobs a test started (hvdrun with its agents and workers, samplers): stopped at exit whatever the
# outcome, so a failed check leaves nothing running. SIGTERM first (hvdrun stops its workers), SIGKILL after 10 s.
BG_JOBS=()
background_job() { BG_JOBS+=("$@"); }
stop_background_jobs() {
  local pid live=()
  for pid in "${BG_JOBS[@]}"; do alive "$pid" && kill -TERM "$pid" 2>/dev/null && live+=("$pid"); done
  local deadline=$((SECONDS + 10))
  for pid in "${live[@]}"; do
    while alive "$pid" && [ $SECONDS -lt $deadline ]; do sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
  done
}
# on_exit COMMAND: also run COMMAND at exit (e.g. kill what a failed check left outside the job).
EXIT_HOOKS=()
on_exit() { EXIT_HOOKS+=("$1"); }
run_exit_hooks() { local hook; for hook in "${EXIT_HOOKS[@]}"; do eval "$hook" || true; done; }
trap 'run_exit_hooks; stop_background_jobs; rm -rf "$TEST_TMP"' EXIT
# Run inside a Slurm job, hvdrun would take its hosts from the allocation (and start agents with srun): the
# tests describe their own hosts. The Slurm tests make their own allocations on the netns hosts.
unset SLURM_JOB_ID SLURM_JOBID SLURM_JOB_NODELIST SLURM_NODELIST

fail() { echo "FAIL: $*" >&2; exit 1; }
pass() { echo "ok: $*"; }

# run_bounded LIMIT_S WHAT COMMAND...: runs COMMAND bounded in time, output in $TEST_TMP/out and err; sets OUT,
# ERR, RC, ELAPSED. A hang fails the test naming WHAT.
run_bounded() {
  local limit=$1 what=$2; shift 2
  local start=$SECONDS
  set +e
  timeout -k 5 "$limit" "$@" >"$TEST_TMP/out" 2>"$TEST_TMP/err"
  RC=$?
  set -e
  ELAPSED=$((SECONDS - start))
  OUT="$(cat "$TEST_TMP/out")"
  ERR="$(cat "$TEST_TMP/err")"
  [ "$RC" -ne 124 ] && [ "$RC" -ne 137 ] || { echo "$ERR" | tail -20; fail "$what hung past ${limit}s"; }
}

# run_hvdrun LIMIT_S ARGS...: runs hvdrun bounded in time; sets OUT, ERR, RC.
run_hvdrun() { local limit=$1; shift; run_bounded "$limit" "hvdrun $*" "$HVDRUN" "$@"; }

# expect_usage_error WANT ARGS...: hvdrun ARGS exits 2 with one line on stderr that contains WANT (bad input is
# refused before anything starts); sets OUT, ERR, RC.
expect_usage_error() {
  local want=$1; shift
  run_hvdrun 20 "$@"
  expect_rc 2 "hvdrun $*"
  expect_err "$want" "hvdrun $*"
  [ "$(wc -l <<<"$ERR")" -eq 1 ] || fail "hvdrun $*: expected one line, got: $ERR"
}

expect_rc() { [ "$RC" -eq "$1" ] || { echo "--- stdout"; echo "$OUT" | tail -20; echo "--- stderr"; echo "$ERR" | tail -20; fail "$2: exit code $RC, expected $1"; }; }
expect_err() { grep -qF -- "$1" <<<"$ERR" || { echo "--- stderr"; echo "$ERR"; fail "$2: stderr lacks '$1'"; }; }

# expect_params_identical STEPS WHAT: ranks 0 and 1 each printed "PARAM_CHECKSUM rank=R steps=STEPS SUM" (the
# training examples' --checksum) in $OUT, with the same SUM; sets CHECKSUM to it.
expect_params_identical() {
  local c0 c1
  c0="$(sed -n "s/^\[0\]<stdout>:PARAM_CHECKSUM rank=0 steps=$1 //p" <<<"$OUT")"
  c1="$(sed -n "s/^\[1\]<stdout>:PARAM_CHECKSUM rank=1 steps=$1 //p" <<<"$OUT")"
  [ -n "$c0" ] && [ -n "$c1" ] || { echo "$OUT" | tail; fail "$2: missing PARAM_CHECKSUM lines"; }
  [ "$c0" = "$c1" ] || fail "$2: ranks diverged after $1 steps: rank 0 $c0, rank 1 $c1"
  CHECKSUM=$c0
}

# wait_lines N PATTERN LIMIT_S [FILE]: waits until FILE ($TEST_TMP/out by default) has N lines matching the
# extended regex PATTERN; fails after LIMIT_S, showing the output.
wait_lines() {
  local file=${4:-$TEST_TMP/out}
  local deadline=$((SECONDS + $3))
  while [ "$(grep -cE -- "$2" "$file" || true)" -lt "$1" ]; do
    [ $SECONDS -lt $deadline ] || { cat "$file" "$TEST_TMP/err" 2>/dev/null; fail "no $1 lines like '$2' after $3 s"; }
    sleep 0.1
  done
}

# wait_exit PID LIMIT_S: waits for a background hvdrun (killing it and failing past LIMIT_S) and sets RC, ELAPSED
# (from the call), OUT and ERR (from $TEST_TMP/out and err).
wait_exit() {
  local start=$SECONDS
  timeout "$2" tail --pid="$1" -f /dev/null || true
  set +e
  if alive "$1"; then kill -KILL "$1"; wait "$1" 2>/dev/null; fail "hvdrun did not exit within $2 s"; fi
  wait "$1"
  RC=$?
  set -e
  ELAPSED=$((SECONDS - start))
  ERR="$(cat "$TEST_TMP/err" 2>/dev/null || true)"
  OUT="$(cat "$TEST_TMP/out" 2>/dev/null || true)"
}

# now_ms: milliseconds since the epoch, for bounds measured from an event.
now_ms() { date +%s%3N; }

# After a second Ctrl-C hvdrun waits up to 3 s for the agents' confirmations, then exits (docs/hvdrun.md, "Stopping").
# The tests allow 3 s more for a loaded 2-core machine: still below the --kill-grace 8 they run with and the 10 s
# heartbeat timeout, so a hvdrun that waited out the grace or an unreachable agent fails.
SECOND_SIGINT_BOUND_MS=6000

# wait_none LIMIT_S WHAT COMMAND...: waits until COMMAND prints nothing (pgrep finds no process, ...), polling;
# fails after LIMIT_S naming WHAT and what COMMAND still printed. Sets WAITED_MS.
wait_none() {
  local limit=$1 what=$2; shift 2
  local start deadline=$((SECONDS + limit)) left
  start=$(now_ms)
  while left=$("$@" 2>/dev/null || true) && [ -n "$left" ]; do
    [ $SECONDS -lt $deadline ] || fail "$what: still there after ${limit} s: $(echo $left)"
    sleep 0.1
  done
  WAITED_MS=$(($(now_ms) - start))
}

# alive PID: true while the process exists and is not a zombie.
# Agents of this build started by this test: exec'd hvd-agents, and local agents hvdrun forked without exec (named
# hvd-agent, with hvdrun's command line). Other jobs' agents on the machine do not count, nor those of tests
# running beside this one (ctest -j): each test's processes inherit its own HVD_TEST_SCOPE. Prints their pids;
# fails when none.
export HVD_TEST_SCOPE="$$-$RANDOM"
this_build_agents() {
  local pid found=1
  for pid in $(pgrep -x hvd-agent); do
    tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | grep -qxF "HVD_TEST_SCOPE=$HVD_TEST_SCOPE" || continue
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
