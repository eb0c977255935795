# On remote hosts, each agent runs its workers in a cgroup of the job's own where cgroup v2 is writable there, and a
# grandchild that escaped with setsid dies at teardown; where it is not (the netns hosts see no cgroup2 mount,
# since `ip netns exec` mounts a fresh /sys), each agent's warning reaches hvdrun's stderr naming its host.
source "$(dirname "$0")/multihost_lib.bash"

tag="97.$$"
cgroup2_on_h1=$("$NETNS" exec h1 awk '{ for (i = 1; i <= NF; i++) if ($i == "-" && $(i+1) == "cgroup2") { print $5; exit } }' /proc/self/mountinfo)
h0_hvdrun 60 -np 2 -H h1:1,h2:1 sh -c "setsid sleep $tag </dev/null >/dev/null 2>&1 & grep '^0::' /proc/\$\$/cgroup"
expect_rc 0 "workers that leave setsid'd children on h1 and h2"
if [ -z "$cgroup2_on_h1" ]; then
  for host in h1 h2; do
    expect_err "$host: " "agent warning relayed"
    grep -qE "^$host: .*hvd-agent on $host: the workers get no cgroup of their own \(no cgroup v2 file system is mounted\)" <<<"$ERR" ||
      { echo "$ERR"; fail "no cgroup warning from the agent on $host"; }
  done
  pkill -KILL -f "sleep $tag" || true
  pass "no cgroup v2 on the hosts: each agent warned at start, named by host, and the job ran"
  exit 0
fi
for rank_host in 0:h1 1:h2; do
  cgroup=$(grep -oE "^\[${rank_host%:*}\]<stdout>:0::.*" <<<"$OUT" | cut -d: -f4-)
  [[ "$cgroup" == */hvd-${rank_host#*:}-* ]] || fail "rank ${rank_host%:*} ran in cgroup '$cgroup', not its job's own"
done
sleep 2
left=$(pgrep -f "sleep $tag" || true)
[ -z "$left" ] || { kill -KILL $left; fail "setsid'd grandchildren outlived the job: $left"; }
pass "h1 and h2 ran their workers in the job's own cgroups; the setsid'd grandchildren died with the job"
