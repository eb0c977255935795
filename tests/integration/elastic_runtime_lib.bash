# Helpers for the worker-side elastic tests (sourced): run hvd_elastic_worker under elastic_stub_driver (a stand-in
# for hvdrun's elastic mode on one host, tests/workers/elastic_stub_driver.cc) and read its lines. The checks on
# the worker's lines (expect_rollback, expect_restarts_at_commits, expect_final_checksums) are elastic_lib.bash's,
# run on $OUT, which finish_driver sets to the driver's output.
source "$(dirname "$0")/lib.bash"
source "$(dirname "$0")/elastic_lib.bash"
DRIVER="$HVD_BIN/elastic_stub_driver"
LOG="$TEST_TMP/driver.out"

# start_driver NP [--host-per-worker] WORKER_ARGS...: starts the stub driver in the background; DRIVER_PID is its pid (SIGUSR1 adds a
# worker), TIMEOUT_PID the pid of the `timeout` that bounds it.
start_driver() {
  local np=$1; shift
  local hosts=()
  if [ "${1:-}" = --host-per-worker ]; then hosts=(--host-per-worker); shift; fi
  timeout -k 5 90 "$DRIVER" --np "$np" "${hosts[@]}" -- "$ELASTIC_WORKER" "$@" >"$LOG" 2>"$TEST_TMP/driver.err" &
  TIMEOUT_PID=$!
  wait_line "driver pid [0-9]+$" 10
  DRIVER_PID=$(sed -nE 's/.*driver pid ([0-9]+)$/\1/p' "$LOG")
}

# wait_line PATTERN LIMIT_S: until the driver's output has a line matching the extended regex.
wait_line() {
  local deadline=$((SECONDS + $2))
  until grep -qE -- "$1" "$LOG"; do
    [ $SECONDS -lt $deadline ] || { tail -n 20 "$LOG" "$TEST_TMP/driver.err"; fail "no line matching '$1' within $2 s"; }
    sleep 0.05
  done
}

# wait_held SLOT RANK STEP: waits until the worker in slot localhost/SLOT prints that it holds as rank RANK before
# step STEP + 1 (hvd_elastic_worker --hold-rank/--hold-at-step); HELD_PID is its pid, checked against the one the
# driver started in that slot.
wait_held() {
  wait_line "localhost/$1: elastic_worker holding step=$3 rank=$2 pid=[0-9]+$" 30
  HELD_PID=$(sed -nE "s/.*localhost\/$1: elastic_worker holding step=$3 rank=$2 pid=([0-9]+)$/\1/p" "$LOG")
  grep -q "worker localhost/$1 pid $HELD_PID$" "$LOG" || fail "the holding worker's pid $HELD_PID is not slot localhost/$1's"
}

# finish_driver: waits for the driver (bounded by its own timeout) and fails unless it saw every worker exit; sets
# OUT to its output.
finish_driver() {
  set +e
  wait "$TIMEOUT_PID"
  local rc=$?
  set -e
  [ "$rc" -eq 0 ] && grep -q "all workers exited" "$LOG" || {
    tail -n 30 "$LOG" "$TEST_TMP/driver.err"
    fail "the stub driver ended with code $rc before every worker exited"
  }
  OUT=$(cat "$LOG")
}

# driver_time PATTERN: the driver's t= (ms) of the first line matching PATTERN.
driver_time() { grep -m1 -E -- "$1" "$LOG" | sed -E 's/^stub_driver: t=([0-9]+) .*/\1/'; }
