# Shared by launcher_output_flow.sh and multihost_output_flow.sh (sourced, not run): a job whose stdout is read
# late by a slow reader must end 0 with every byte delivered, and hvdrun's and the agents' peak resident memory
# must stay under the documented bound (docs/hvdrun.md, "Output and flow control").
RSS_BOUND_KB=$((32 * 1024))

# peak_rss_watch OUTFILE PID...: samples VmHWM (the peak) of each PID until it exits; the last value per PID
# ends up in OUTFILE as "PID KB" lines. Runs in the background; its pid is in WATCH_PID.
peak_rss_watch() {
  local out=$1; shift
  (
    declare -A peak
    while :; do
      local any=0
      for p in "$@"; do
        local v
        v=$(awk '/^VmHWM:/ {print $2}' "/proc/$p/status" 2>/dev/null) || continue
        [ -n "$v" ] || continue
        any=1
        peak[$p]=$v
      done
      : >"$out.tmp"
      for p in "${!peak[@]}"; do echo "$p ${peak[$p]}" >>"$out.tmp"; done
      mv "$out.tmp" "$out"
      [ $any -eq 1 ] || break
      sleep 0.2
    done
  ) &
  WATCH_PID=$!
}

# slow_reader NAME DELAY_S: a reader of the fifo $TEST_TMP/NAME.fifo that starts reading after DELAY_S, into
# $TEST_TMP/NAME.out; its pid in READER_PID. The job's stdout goes to the fifo.
slow_reader() {
  mkfifo "$TEST_TMP/$1.fifo"
  (sleep "$2"; cat) <"$TEST_TMP/$1.fifo" >"$TEST_TMP/$1.out" &
  READER_PID=$!
}

# flow_finish NAME JOB_PID READER_PID PID...: samples the peak memory of hvdrun (JOB_PID) and PID... until the job
# ends (120 s at most), then checks that hvdrun exited 0 and that every peak stayed under the bound.
flow_finish() {
  local name=$1 job=$2 reader=$3; shift 3
  peak_rss_watch "$TEST_TMP/$name.rss" "$job" "$@"
  wait_exit "$job" 120
  wait "$reader" "$WATCH_PID"
  [ "$RC" -eq 0 ] || fail "$name: hvdrun exited $RC: $(cat "$TEST_TMP/$name.err")"
  expect_rss_under "$TEST_TMP/$name.rss" "$name"
}

# expect_rss_under FILE WHAT: every peak in FILE is under RSS_BOUND_KB.
expect_rss_under() {
  [ -s "$1" ] || fail "$2: no peak memory was sampled"
  while read -r pid kb; do
    [ "$kb" -lt "$RSS_BOUND_KB" ] || fail "$2: pid $pid peaked at $kb kB resident, over the ${RSS_BOUND_KB} kB bound"
  done <"$1"
}

# expect_rank_output FILE RANK EXPECTED: rank RANK's stdout lines in FILE, prefixes stripped, equal EXPECTED.
expect_rank_output() {
  grep -a "^\[$2\]<stdout>:" "$1" | sed "s/^\[$2\]<stdout>://" >"$1.rank$2"
  cmp -s "$1.rank$2" "$3" ||
    fail "rank $2: output differs from what it wrote ($(wc -c <"$1.rank$2") bytes delivered, $(wc -c <"$3") written)"
}
