# Helpers for the worker-side elastic tests (sourced): run hvd_elastic_worker under elastic_stub_driver (a stand-in
# for hvdrun's elastic mode on one host, tests/workers/elastic_stub_driver.cc) and read its lines.
source "$(dirname "$0")/lib.bash"
DRIVER="$HVD_BIN/elastic_stub_driver"
ELASTIC_WORKER="$HVD_BIN/hvd_elastic_worker"
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

# finish_driver: waits for the driver (bounded by its own timeout) and fails unless it saw every worker exit.
finish_driver() {
  set +e
  wait "$TIMEOUT_PID"
  local rc=$?
  set -e
  [ "$rc" -eq 0 ] && grep -q "all workers exited" "$LOG" || {
    tail -n 30 "$LOG" "$TEST_TMP/driver.err"
    fail "the stub driver ended with code $rc before every worker exited"
  }
}

# line_time PATTERN: the driver's t= (ms) of the first line matching PATTERN.
line_time() { grep -m1 -E -- "$1" "$LOG" | sed -E 's/^stub_driver: t=([0-9]+) .*/\1/'; }

# check_commits_monotonic: rank 0's committed steps never go backwards, and every restart starts at or after the
# last commit printed before it (the state went back to that commit, not further).
check_commits_monotonic() {
  awk '/elastic_worker commit step=/ { split($0, a, "step="); split(a[2], b, " "); s = b[1] + 0;
         if (s < last) { print "commit went back from " last " to " s; bad = 1 } last = s }
       /elastic_worker start generation=/ { split($0, a, "step="); s = a[2] + 0;
         if (s < last) { print "restart at step " s " below the last commit " last; bad = 1 } }
       END { exit bad }' "$LOG" || fail "the committed step went backwards"
}

# static_checksum STEPS: the checksum of a 1-rank run without failures (the gradient is exact at every size).
static_checksum() { "$ELASTIC_WORKER" --steps "$1" --commit-every 1000000 | sed -nE 's/.*checksum=([0-9a-f]+).*/\1/p'; }

# expect_done STEPS SIZE: exactly SIZE workers printed their done line at STEPS, all at size SIZE, each with the
# checksum of the uninterrupted run (static_checksum).
expect_done() {
  local steps=$1 size=$2 expected sums
  expected=$(static_checksum "$steps")
  sums=$(sed -nE "s/.*elastic_worker done step=$steps rank=[0-9]+ size=$size checksum=([0-9a-f]+)$/\1/p" "$LOG" | sort -u)
  [ "$(grep -c "elastic_worker done step=$steps " "$LOG")" -eq "$size" ] ||
    fail "expected $size done lines at step $steps"
  [ "$sums" = "$expected" ] || fail "final checksums '$sums' differ from the uninterrupted run's $expected"
}
