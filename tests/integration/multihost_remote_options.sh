# What hvdrun's remote options do, seen on the hosts: a working directory that does not exist on the remote hosts
# fails the start naming each host and the fix (exit 3); -p reaches an sshd on another port than the SSH config's;
# --coordinator-addr is the address hvdrun's coordination server binds and the agents and workers connect to.
source "$(dirname "$0")/multihost_lib.bash"

# A working directory only h0 has: a tmpfs mounted in hvdrun's own mount namespace (the hosts share the rest).
mkdir "$TEST_TMP/private"
h0_only="$TEST_TMP/private/only-on-h0"
run_bounded 60 "hvdrun in $h0_only" "$NETNS" exec h0 unshare --mount --propagation private sh -c \
  'mount -t tmpfs tmpfs "$0" && mkdir "$0/only-on-h0" && cd "$0/only-on-h0" && exec "$@"' "$TEST_TMP/private" \
  "$HVDRUN" --ssh-config "$USE_CONFIG" -np 2 -H h1:1,h2:1 "$WORKER" env
expect_rc 3 "a working directory that does not exist on h1 and h2"
missing() { echo "$1: working directory $h0_only does not exist there: create it, or start hvdrun from a directory that exists on every host"; }
want="hvdrun: the job did not start: $(missing h1); $(missing h2)"
grep -qxF "$want" <<<"$ERR" || { echo "$ERR"; fail "missing working directory: no line '$want'"; }
[ -z "$OUT" ] || fail "a worker ran in a missing working directory: $OUT"
expect_no_job_on 10 h1 h2
pass "working directory missing on h1 and h2: exit 3 naming both hosts and the fix"

# -p: both hosts' sshd on port 2222 only; the SSH config still says Port 22.
"$NETNS" sshd h1 port 2222
"$NETNS" sshd h2 port 2222
h0_hvdrun 60 -np 2 -H h1:1,h2:1 "$WORKER" env
expect_rc 3 "sshd on port 2222, no -p"
for host in h1 h2; do
  expect_err "$host: connection refused by 198.51.100.1${host#h}:22: is sshd running there, and is the port right (-p/--ssh-port, Port in the SSH config)?" \
    "sshd on port 2222, no -p"
done
h0_hvdrun 60 -np 2 -H h1:1,h2:1 -p 2222 "$WORKER" env
expect_rc 0 "-p 2222"
for r in 0 1; do
  grep -qE "^\[$r\]<stdout>:rank=$r size=2 .* hostname=h$((r + 1)) " <<<"$OUT" || { echo "$OUT"; fail "-p 2222: rank $r did not run on h$((r + 1))"; }
done
pass "-p 2222 reaches sshd on port 2222 on h1 and h2 (without it: connection refused on the config's port 22)"
"$NETNS" sshd h1 port 22
"$NETNS" sshd h2 port 22

# --coordinator-addr: a second address of h0's, which the SSH links do not use (they go from 198.51.100.10).
coordinator=198.51.100.110
ip -n h0 addr add "$coordinator/24" dev eth0
done_file="$TEST_TMP/coordinator_seen"
h0_hvdrun_bg --verbose -np 2 -H h1:1,h2:1 --coordinator-addr "$coordinator" -- \
  sh -c 'echo "store=$HVD_STORE_ADDR"; while [ ! -e "$0" ]; do sleep 0.1; done' "$done_file"
wait_lines 2 'store=' 30
wait_lines 1 "coordination server listening on " 30 "$TEST_TMP/err"
port=$(grep -oE "coordination server listening on $coordinator:[0-9]+" "$TEST_TMP/err" | head -1 | cut -d: -f2) ||
  true
[ -n "$port" ] || { cat "$TEST_TMP/err"; fail "--coordinator-addr $coordinator: hvdrun does not listen on it"; }
# The socket as the kernel has it: bound to that address, not to every address.
listening=$("$NETNS" exec h0 ss -Htln "sport = :$port" | awk '{print $4}')
[ "$listening" = "$coordinator:$port" ] || fail "--coordinator-addr $coordinator: the coordination port is bound to '$listening'"
for host in h1 h2; do
  [ -n "$(pids_on -F -e "--coordinator $coordinator:$port" -- "$host")" ] ||
    fail "--coordinator-addr $coordinator: no agent on $host was told to connect to $coordinator:$port"
  [ -n "$("$NETNS" exec "$host" ss -Htn state established "dst $coordinator:$port")" ] ||
    fail "--coordinator-addr $coordinator: nothing on $host is connected to $coordinator:$port"
done
for r in 0 1; do
  grep -qx "\[$r\]<stdout>:store=$coordinator:$port" "$TEST_TMP/out" || { cat "$TEST_TMP/out"; fail "rank $r's HVD_STORE_ADDR is not $coordinator:$port"; }
done
touch "$done_file"
wait_exit "$JOB_PID" 30
expect_rc 0 "--coordinator-addr $coordinator"
pass "--coordinator-addr $coordinator: hvdrun bound $coordinator:$port only; the agents and workers on h1 and h2 connected there"
