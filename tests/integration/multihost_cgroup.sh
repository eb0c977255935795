# On remote hosts, each agent runs its workers in a cgroup of the job's own where cgroup v2 is writable there, and a
# grandchild that escaped with setsid dies at teardown with the group, which is removed; where it is not, the
# agent's warning reaches hvdrun's stderr naming its host and the job runs. The netns hosts have cgroup v2
# (scripts/netns-cluster.sh mounts it); h2's sshd is restarted without it (HVD_NETNS_NO_CGROUP) for the warning.
source "$(dirname "$0")/multihost_lib.bash"

tag="97.$$"
cgroup2_on() { "$NETNS" exec "$1" awk '{ for (i = 1; i <= NF; i++) if ($i == "-" && $(i+1) == "cgroup2") { print $5; exit } }' /proc/self/mountinfo; }
cgroup2_on_h1=$(cgroup2_on h1)
[ -n "$cgroup2_on_h1" ] || fail "h1 has no cgroup v2 mount: scripts/netns-cluster.sh mounts one on /sys/fs/cgroup"
"$NETNS" sshd h2 stop
HVD_NETNS_NO_CGROUP=1 "$NETNS" sshd h2 start
! grep -q ' - cgroup2 ' "/proc/$(cat "${SSH_CONFIG%/*}/h2/sshd.pid")/mountinfo" ||
  fail "h2's sshd still sees a cgroup v2 mount after its restart with HVD_NETNS_NO_CGROUP"

h0_hvdrun 60 -np 2 -H h1:1,h2:1 sh -c "setsid sleep $tag </dev/null >/dev/null 2>&1 & grep '^0::' /proc/\$\$/cgroup"
expect_rc 0 "workers that leave setsid'd children on h1 and h2"

# h1: the job's own cgroup, no warning, the grandchild killed with it and the group removed.
cgroup=$(grep -oE '^\[0\]<stdout>:0::.*' <<<"$OUT" | cut -d: -f4- || true)
[[ "$cgroup" == */hvd-h1-* ]] || { echo "$ERR"; fail "rank 0 ran on h1 in cgroup '$cgroup', not its job's own"; }
! grep -q "^h1: .*cgroup" <<<"$ERR" || { echo "$ERR"; fail "h1 warned about its cgroup"; }
wait_none 10 "h1's setsid'd grandchild (sleep $tag), which its job's cgroup should have taken down" pids_on -F "sleep $tag" -- h1
! "$NETNS" exec h1 test -e "$cgroup2_on_h1$cgroup" || fail "the job's cgroup $cgroup2_on_h1$cgroup on h1 was not removed"
pass "h1 ran its worker in the job's own cgroup $cgroup; the setsid'd grandchild died with the job, the group is gone"

# h2: the warning, relayed naming h2; its grandchild is beyond the agent's reach, as the warning says.
grep -qE "^h2: .*hvd-agent on h2: the workers get no cgroup of their own \(no cgroup v2 file system is mounted\); a process that leaves its worker's process group \(setsid\) may outlive the job$" <<<"$ERR" ||
  { echo "$ERR"; fail "no cgroup warning from the agent on h2"; }
left=$(pids_on -F "sleep $tag" -- h2)
[ -n "$left" ] || fail "h2 has no cgroup, yet its setsid'd grandchild is gone: was h2 really without cgroup v2?"
kill -KILL $left
pass "h2 without cgroup v2: its agent's warning reached hvdrun's stderr naming h2, and the job ran"
