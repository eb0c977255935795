# Every descriptor hvdrun and the agent hold is close-on-exec, so nothing of theirs leaks into what they start:
# the agent holds its stdin/stdout/stderr, its one link and its own event loop, never hvdrun's listening socket;
# a worker holds only 0, 1 and 2.
source "$(dirname "$0")/lib.bash"

# cloexec_violations PID: the descriptors >= 3 of PID that are not close-on-exec (fdinfo flags bit 02000000),
# leaving out those PID inherited from this shell (the test's own caller may leave some open).
cloexec_violations() {
  local fd flags
  for fd in $(ls "/proc/$1/fd"); do
    [ "$fd" -ge 3 ] || continue
    [ "$(readlink "/proc/$1/fd/$fd")" != "$(readlink "/proc/$$/fd/$fd" 2>/dev/null)" ] || continue
    flags=$(awk '/^flags:/ {print $2}' "/proc/$1/fdinfo/$fd" 2>/dev/null) || continue
    [ -n "$flags" ] || continue
    (( (8#$flags & 8#2000000) != 0 )) || echo "$fd -> $(readlink "/proc/$1/fd/$fd")"
  done
}

# The workers stay until the checks are done (the file appears).
done_file="$TEST_TMP/checked"
"$HVDRUN" -np 2 -- sh -c 'ls /proc/$$/fd; echo listed; while [ ! -e "$0" ]; do sleep 0.1; done' "$done_file" \
  >"$TEST_TMP/out" 2>"$TEST_TMP/err" &
job=$!
background_job "$job"
wait_lines 2 'listed' 30
agent=$(pgrep -P "$job" -x hvd-agent)
[ -n "$agent" ] || fail "no hvd-agent child of hvdrun"

left=$(cloexec_violations "$job")
[ -z "$left" ] || fail "hvdrun holds descriptors that are not close-on-exec: $left"
left=$(cloexec_violations "$agent")
[ -z "$left" ] || fail "the agent holds descriptors that are not close-on-exec: $left"
pass "every descriptor >= 3 of hvdrun and of the agent is close-on-exec"

sockets=$(ls -l "/proc/$agent/fd" | grep -c 'socket:' || true)
[ "$sockets" -eq 1 ] || { ls -l "/proc/$agent/fd"; fail "the agent holds $sockets sockets, expected its one link"; }
listening=$(ss -ltnp)  # captured: `ss | grep -q` under pipefail fails when grep exits first (SIGPIPE)
if grep -q "pid=$agent," <<<"$listening"; then echo "$listening"; fail "the agent holds a listening socket (hvdrun's?)"; fi
grep -q "pid=$job," <<<"$listening" || fail "ss does not show hvdrun's own listening socket (the check above proves nothing)"
pass "the agent holds one socket, its link, and no listening socket"

for rank in 0 1; do
  fds=$(grep -E "^\[$rank\]<stdout>:[0-9]+$" "$TEST_TMP/out" | cut -d: -f2 | sort -n | tr '\n' ' ')
  [ "$fds" = "0 1 2 " ] || fail "rank $rank holds descriptors '$fds', expected '0 1 2 '"
done
pass "each worker holds only 0, 1 and 2"

touch "$done_file"
wait_exit "$job" 30
[ "$RC" -eq 0 ] || fail "the job failed: exit $RC: $ERR"
