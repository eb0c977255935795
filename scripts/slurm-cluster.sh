#!/usr/bin/env bash
# A real Slurm cluster on the netns hosts of scripts/netns-cluster.sh: munged and slurmctld on h0, slurmd on
# h1..hN (each under its own UTS hostname hX, so slurmd knows its node name), for the Slurm launcher's tests.
#
#   slurm-cluster.sh up N        netns-cluster.sh up N, then the daemons; waits until every node is idle
#   slurm-cluster.sh down        stops the daemons by pid and removes their state (the netns cluster stays up)
#   slurm-cluster.sh conf        print the slurm.conf path: export SLURM_CONF=$(slurm-cluster.sh conf)
#   slurm-cluster.sh exec HOST CMD...   run CMD on HOST with SLURM_CONF set (e.g. exec h0 salloc -N2 hvdrun ...)
#   slurm-cluster.sh kill-node HOST     SIGKILL HOST's slurmd and every job process on it (a node failure)
#
# Nothing outside the cluster's state dir is touched: the config, munge key and socket, spool, pid and log
# files are under $HVD_NETNS_STATE/slurm (default /var/lib/hvd-netns/slurm), which netns-cluster.sh down also
# removes; /etc/slurm and the system's munged are not used. SlurmUser=root; no accounting database; processes
# are tracked with proctrack/linuxproc (by descent, so scancel reaches workers in their own process groups).
# Needs root and Debian's slurm-wlm and munge (scripts/install-deps.sh).
set -euo pipefail

NETNS="$(dirname "$0")/netns-cluster.sh"
STATE=${HVD_NETNS_STATE:-/var/lib/hvd-netns}
DIR="$STATE/slurm"
CONF="$DIR/slurm.conf"
NET=198.51.100

die() { echo "slurm-cluster: $*" >&2; exit 1; }
count() { cat "$DIR/count" 2>/dev/null || echo 0; }
pid_alive() { [ -s "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }
in_host() { local host=$1; shift; SLURM_CONF="$CONF" "$NETNS" exec "$host" "$@"; }

write_conf() {
  local n=$1 i
  cat >"$CONF" <<CONF
# Written by scripts/slurm-cluster.sh for the netns test cluster.
ClusterName=hvdtest
SlurmctldHost=h0($NET.10)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$DIR/munge/munge.socket
StateSaveLocation=$DIR/ctld
SlurmctldPidFile=$DIR/slurmctld.pid
SlurmctldLogFile=$DIR/slurmctld.log
SlurmdSpoolDir=$DIR/%n/spool
SlurmdPidFile=$DIR/%n/slurmd.pid
SlurmdLogFile=$DIR/%n/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/affinity
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SlurmdParameters=config_overrides
ReturnToService=2
SlurmdTimeout=20
MessageTimeout=10
KillWait=3
MinJobAge=2
InactiveLimit=0
CONF
  for ((i = 1; i <= n; i++)); do
    echo "NodeName=h$i NodeAddr=$NET.$((10 + i)) CPUs=4 State=UNKNOWN" >>"$CONF"
  done
  echo "PartitionName=main Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES" >>"$CONF"
}

# `ip netns exec` remounts /sys for the namespace without the cgroup tree, whose plugin slurmd loads at start;
# this shell command mounts it again, as this machine has it (v2, or one v1 hierarchy per controller and v2 at
# unified/ when it has that too, for the agents' workers), in that private mount namespace. slurmd is started with
# HVD_NETNS_NO_CGROUP, so netns-cluster.sh's own cgroup2 mount does not lie hidden under these.
mount_cgroups() {
  if [ "$(stat -fc %T /sys/fs/cgroup)" = cgroup2fs ]; then
    echo "mount -t cgroup2 cgroup2 /sys/fs/cgroup"
    return
  fi
  local c line="mount -t tmpfs -o mode=755 tmpfs /sys/fs/cgroup"
  for c in $(awk 'NR > 1 && $4 == 1 { print $1 }' /proc/cgroups); do
    [ -d "/sys/fs/cgroup/$c" ] && line+=" && mkdir /sys/fs/cgroup/$c && mount -t cgroup -o $c cgroup /sys/fs/cgroup/$c"
  done
  [ -d /sys/fs/cgroup/systemd ] &&
    line+=" && mkdir /sys/fs/cgroup/systemd && mount -t cgroup -o none,name=systemd cgroup /sys/fs/cgroup/systemd"
  [ "$(stat -fc %T /sys/fs/cgroup/unified 2>/dev/null)" = cgroup2fs ] &&
    line+=" && mkdir /sys/fs/cgroup/unified && mount -t cgroup2 cgroup2 /sys/fs/cgroup/unified"
  echo "$line"
}

cluster_up() {
  local n=$1 i
  [[ $n =~ ^[0-9]+$ ]] && (( n >= 1 )) || die "usage: up N with N >= 1"
  command -v slurmctld >/dev/null && command -v slurmd >/dev/null && command -v munged >/dev/null ||
    die "needs slurm-wlm and munge (scripts/install-deps.sh)"
  [ "$(count)" -eq "$n" ] || cluster_down
  "$NETNS" up "$n"
  mkdir -p "$DIR/munge" "$DIR/ctld" && chmod 0700 "$DIR" "$DIR/munge"
  [ -s "$DIR/munge/munge.key" ] || { dd if=/dev/urandom bs=128 count=1 status=none >"$DIR/munge/munge.key";
                                      chmod 0400 "$DIR/munge/munge.key"; }
  echo "$n" >"$DIR/count"
  write_conf "$n"
  # One munged serves every host: its socket is a path on the file system they share.
  pid_alive "$DIR/munge/munged.pid" ||
    in_host h0 munged --force --socket="$DIR/munge/munge.socket" --key-file="$DIR/munge/munge.key" \
      --pid-file="$DIR/munge/munged.pid" --log-file="$DIR/munge/munged.log" --seed-file="$DIR/munge/munged.seed"
  pid_alive "$DIR/slurmctld.pid" || in_host h0 slurmctld -c
  for ((i = 1; i <= n; i++)); do
    mkdir -p "$DIR/h$i/spool"
    pid_alive "$DIR/h$i/slurmd.pid" || HVD_NETNS_NO_CGROUP=1 in_host "h$i" sh -c "$(mount_cgroups) && exec slurmd -N h$i"
  done
  local deadline=$((SECONDS + 60)) idle
  while :; do
    idle=$(in_host h0 sinfo -h -N -o '%N %T' 2>/dev/null | grep -c ' idle$' || true)
    [ "$idle" -eq "$n" ] && break
    [ $SECONDS -lt $deadline ] || { tail -5 "$DIR/slurmctld.log" >&2; die "only $idle of $n nodes idle after 60 s"; }
    sleep 0.5
  done
  echo "slurm-cluster: up: slurmctld on h0, slurmd on h1..h$n; SLURM_CONF=$CONF" >&2
}

stop_pidfile() {  # TERM, then KILL, the daemon of a pid file
  local f=$1 pid i
  [ -s "$f" ] || return 0
  pid=$(cat "$f")
  for sig in TERM KILL; do
    kill -s $sig "$pid" 2>/dev/null || break
    for ((i = 0; i < 50; i++)); do kill -0 "$pid" 2>/dev/null || break 2; sleep 0.1; done
  done
  rm -f "$f"
}

cluster_down() {
  [ -d "$DIR" ] || return 0
  local i
  # Jobs first: slurmd's step daemons and what they run go with it when killed by pid.
  for ((i = 1; i <= $(count); i++)); do
    for pid in $(pgrep -f "^slurmstepd: \[" 2>/dev/null || true); do
      [ "$(ip netns identify "$pid" 2>/dev/null)" = "h$i" ] && kill -KILL "$pid" 2>/dev/null || true
    done
    stop_pidfile "$DIR/h$i/slurmd.pid"
  done
  stop_pidfile "$DIR/slurmctld.pid"
  stop_pidfile "$DIR/munge/munged.pid"
  rm -rf "$DIR"
}

kill_node() {
  local host=$1 pid
  [ -s "$DIR/$host/slurmd.pid" ] || die "no slurmd on $host"
  local pids
  # A node fails all at once: every process is stopped before any is killed, so none sees another die first (an
  # agent whose slurmstepd died would stop its workers and report them before its own end).
  pids="$(cat "$DIR/$host/slurmd.pid") $(ip netns pids "$host")"
  for pid in $pids; do kill -STOP "$pid" 2>/dev/null || true; done
  for pid in $(ip netns pids "$host"); do kill -STOP "$pid" 2>/dev/null || true; done  # forked meanwhile
  # Deepest first: a stopped process whose parent dies before it is in an orphaned process group, which the kernel
  # sends SIGHUP and SIGCONT, and the agent so woken would report its workers killed before its own end.
  for pid in $(deepest_first $pids $(ip netns pids "$host")); do kill -KILL "$pid" 2>/dev/null || true; done
}

# deepest_first PID...: the PIDs, each once, those with more ancestors first.
deepest_first() {
  local pid up depth
  for pid in "$@"; do
    depth=0 up=$pid
    # /proc/P/stat: "P (comm) S PPID ..."; comm may hold spaces and parentheses, so read from its last ')'.
    while [ "$up" -gt 1 ] && up=$(sed 's/.*) [^ ]* \([0-9]*\).*/\1/' "/proc/$up/stat" 2>/dev/null) && [ -n "$up" ]; do
      depth=$((depth + 1))
    done
    echo "$depth $pid"
  done | sort -k1,1nr | awk '!seen[$2]++ {print $2}'
}

cmd=${1:-}
[ $# -gt 0 ] && shift
case $cmd in
  up)        [ $# -eq 1 ] || die "usage: up N"; cluster_up "$1" ;;
  down)      cluster_down ;;
  conf)      [ -f "$CONF" ] || die "the Slurm cluster is down"; echo "$CONF" ;;
  exec)      [ $# -ge 2 ] || die "usage: exec HOST CMD..."; in_host "$@" ;;
  kill-node) [ $# -eq 1 ] || die "usage: kill-node HOST"; kill_node "$1" ;;
  *)         sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac
