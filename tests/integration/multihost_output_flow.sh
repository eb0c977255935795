# The output flow control across hosts: hvdrun on h0, workers on h1 (and h2), hvdrun's stdout read late. The job
# ends 0 with every byte delivered, and hvdrun's and the remote agents' peak memory stays under the bound.
source "$(dirname "$0")/output_flow_lib.bash"  # first: multihost_lib.bash changes the directory
source "$(dirname "$0")/multihost_lib.bash"

agent_pids_on() { pids_on -E "^$AGENT " -- "$@"; }

# flow_case NAME READER_DELAY_S HOSTS ARGS...: as in launcher_output_flow.sh, hvdrun in h0, agents on HOSTS.
flow_case() {
  local name=$1 delay=$2 hosts=$3; shift 3
  slow_reader "$name" "$delay"
  local reader=$READER_PID
  "$NETNS" exec h0 "$HVDRUN" --ssh-config "$USE_CONFIG" "$@" >"$TEST_TMP/$name.fifo" 2>"$TEST_TMP/$name.err" &
  local job=$!
  BG_PIDS+=("$job" "$reader")
  local agents="" deadline=$((SECONDS + 20))
  until agents=$(agent_pids_on $hosts) && [ "$(echo "$agents" | wc -w)" -eq "$(echo $hosts | wc -w)" ]; do
    [ $SECONDS -lt $deadline ] || fail "$name: the agents did not start on $hosts: $(cat "$TEST_TMP/$name.err")"
    sleep 0.05
  done
  flow_finish "$name" "$job" "$reader" $agents
}

flow_case paused 12 h1 -np 1 -H h1:1 sh -c 'yes 0123456789 | head -c 200000; sleep 14; echo end'
{ yes 0123456789 | head -c 200000 || true; echo end; } >"$TEST_TMP/paused.expected"
expect_rank_output "$TEST_TMP/paused.out" 0 "$TEST_TMP/paused.expected"
pass "h1: 200 kB read 12 s late: exit 0, every byte delivered, peak kB (hvdrun, agent): $(awk '{printf "%s ", $2}' "$TEST_TMP/paused.rss")"

flow_case flood 5 "h1 h2" -np 2 -H h1:1,h2:1 sh -c 'yes 0123456789012345678901234567890123456789 | head -c 50000000'
{ yes 0123456789012345678901234567890123456789 | head -c 50000000 || true; echo; } >"$TEST_TMP/flood.expected"
expect_rank_output "$TEST_TMP/flood.out" 0 "$TEST_TMP/flood.expected"
expect_rank_output "$TEST_TMP/flood.out" 1 "$TEST_TMP/flood.expected"
pass "h1, h2: 2 x 50 MB read 5 s late: exit 0, every byte delivered, peak kB (hvdrun, agents): $(awk '{printf "%s ", $2}' "$TEST_TMP/flood.rss")"
