# A slow or paused reader of hvdrun's stdout never ends the job and never loses output: heartbeats go on while
# the output waits, the workers block on their full pipes, and hvdrun and the agent hold a bounded amount of it.
source "$(dirname "$0")/lib.bash"
source "$(dirname "$0")/output_flow_lib.bash"

# flow_case NAME READER_DELAY_S ARGS...: hvdrun ARGS with its stdout read only after READER_DELAY_S; checks the exit
# code and samples peak memory. Output in $TEST_TMP/NAME.out.
flow_case() {
  local name=$1 delay=$2; shift 2
  slow_reader "$name" "$delay"
  "$HVDRUN" "$@" >"$TEST_TMP/$name.fifo" 2>"$TEST_TMP/$name.err" &
  local job=$!
  local agent="" deadline=$((SECONDS + 10))
  until agent=$(pgrep -P "$job" -x hvd-agent); do
    [ $SECONDS -lt $deadline ] || fail "$name: no agent started"
    sleep 0.05
  done
  flow_finish "$name" "$job" "$READER_PID" "$agent"
}

# The issue's first command: 200 kB, then a pause longer than the heartbeat timeout while nobody reads.
flow_case paused 12 -np 1 sh -c 'yes 0123456789 | head -c 200000; sleep 14; echo end'
{ yes 0123456789 | head -c 200000 || true; echo end; } >"$TEST_TMP/paused.expected"
expect_rank_output "$TEST_TMP/paused.out" 0 "$TEST_TMP/paused.expected"
pass "200 kB read 12 s late: exit 0, every byte delivered, peak resident kB (hvdrun, agent): $(awk '{printf "%s ", $2}' "$TEST_TMP/paused.rss")"

# The issue's second command: 2 x 50 MB against a reader that starts 5 s late.
flow_case flood 5 -np 2 sh -c 'yes 0123456789012345678901234567890123456789 | head -c 50000000'
{ yes 0123456789012345678901234567890123456789 | head -c 50000000 || true; echo; } >"$TEST_TMP/flood.expected"
expect_rank_output "$TEST_TMP/flood.out" 0 "$TEST_TMP/flood.expected"
expect_rank_output "$TEST_TMP/flood.out" 1 "$TEST_TMP/flood.expected"
pass "2 x 50 MB read 5 s late: exit 0, every byte delivered, peak resident kB (hvdrun, agent): $(awk '{printf "%s ", $2}' "$TEST_TMP/flood.rss")"

# The reader goes away: hvdrun says so once, discards the rest, and the job still ends as its workers do.
set +e
"$HVDRUN" -np 1 sh -c 'yes 0123456789 | head -c 3000000; echo done >&2' 2>"$TEST_TMP/gone.err" | head -c 100 >/dev/null
rc=${PIPESTATUS[0]}
set -e
[ "$rc" -eq 0 ] || fail "reader gone: hvdrun exited $rc: $(cat "$TEST_TMP/gone.err")"
grep -qF "hvdrun: cannot write to stdout (Broken pipe); discarding the workers' output from now on" "$TEST_TMP/gone.err" ||
  fail "reader gone: no message: $(cat "$TEST_TMP/gone.err")"
grep -qF "[0]<stderr>:done" "$TEST_TMP/gone.err" || fail "reader gone: the worker's stderr stopped coming too"
pass "reader of stdout gone: one message, stderr still delivered, exit 0"

# A rank fails while another is held back by a slow reader: the job stops (exit 3), and what the held-back rank
# had written before it was stopped still arrives whole, after the teardown would otherwise have given up. Rank 1
# fails once rank 0 has written its first 550,000 bytes (50,000 whole lines; it leaves a marker), so at least those
# must arrive.
mkfifo "$TEST_TMP/fail.fifo"
(sleep 10; cat) <"$TEST_TMP/fail.fifo" >"$TEST_TMP/fail.out" &
reader=$!
set +e
"$HVDRUN" -np 2 --kill-grace 1 sh -c 'm="$0/rank0_wrote"
  if [ "$HOROVOD_RANK" = 0 ]; then yes 0123456789 | head -c 550000; touch "$m"; yes 0123456789 | head -c 2450000
  else while [ ! -e "$m" ]; do sleep 0.05; done; exit 3; fi' "$TEST_TMP" \
  >"$TEST_TMP/fail.fifo" 2>"$TEST_TMP/fail.err"
rc=$?
set -e
wait "$reader"
[ "$rc" -eq 3 ] || fail "failure under a slow reader: hvdrun exited $rc, expected 3: $(cat "$TEST_TMP/fail.err")"
grep -a '^\[0\]<stdout>:' "$TEST_TMP/fail.out" | sed 's/^\[0\]<stdout>://' | head -n -1 >"$TEST_TMP/fail.rank0"
{ yes 0123456789 | head -c 3000000 || true; } >"$TEST_TMP/fail.expected"
got=$(wc -c <"$TEST_TMP/fail.rank0")
# The last line is left out above (it may be cut): of the first 50,000 lines, 49,999 at least.
[ "$got" -ge $((550000 - 11)) ] || fail "failure under a slow reader: only $got of the 550,000 bytes rank 0 wrote before rank 1 failed arrived"
cmp -s -n "$got" "$TEST_TMP/fail.rank0" "$TEST_TMP/fail.expected" || fail "failure under a slow reader: rank 0's output has a hole"
pass "rank 1 failed while rank 0 waited on a slow reader: exit 3, rank 0's $got bytes arrived whole"
