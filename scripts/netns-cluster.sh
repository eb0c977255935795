#!/usr/bin/env bash
# A cluster of hosts on this machine for multi-host tests: h0 (the launcher) and h1..hN, each a network
# namespace with its own address in 198.51.100.0/24, hostname, /etc/hosts and sshd, joined by a bridge that
# lives in a namespace of its own. Hosts have no default route: no packet can leave the machine.
#
#   netns-cluster.sh up N                 create (or complete) h0..hN; idempotent
#   netns-cluster.sh down                 kill every process in the namespaces, delete them; leaves nothing
#   netns-cluster.sh status               what is up; exit 1 when the cluster is not up
#   netns-cluster.sh config               print the path of the launcher's ssh config file
#   netns-cluster.sh exec HOST CMD...     run CMD on HOST (its network, /etc/hosts and hostname); execs, so the
#                                         caller's pid is CMD's pid (signals reach it directly)
#   netns-cluster.sh link HOST up|down    plug or pull HOST's cable (the bridge side of its veth)
#   netns-cluster.sh sshd HOST start|stop start or stop HOST's sshd (running sessions survive a stop)
#   netns-cluster.sh sshd HOST port P     restart HOST's sshd listening on port P only (the ssh config keeps
#                                         Port 22, so only an explicit port reaches it: hvdrun -p P); known_hosts
#                                         gets HOST's key for [HOST]:P too
#
# cgroup v2: `ip netns exec` mounts a fresh /sys, which hides this machine's cgroup mounts. Every process run for
# a host mounts the cgroup2 hierarchy again on /sys/fs/cgroup in its private mount namespace (sshd too, so its
# sessions have it), so the agents there give their workers a cgroup and kill it at teardown, as on a real host.
# With HVD_NETNS_NO_CGROUP=1 in the environment of `exec` or `sshd HOST start` that host runs without it.
#
# Hostnames: every process run for hX starts in a fresh UTS namespace (`unshare --uts`) whose hostname is set
# to hX; sshd is started that way, so every session it forks inherits it. A UTS namespace dies with its last
# process, so there is nothing to clean up. `ip netns exec` also bind-mounts /etc/netns/hX/hosts on
# /etc/hosts in a private mount namespace, which dies the same way.
#
# State (keys, sshd configs, pid files, logs, ssh_config, known_hosts) is in $HVD_NETNS_STATE, default
# /var/lib/hvd-netns: not under /tmp, because sshd's StrictModes refuses key files there. `down` removes it.
# The launcher's ssh config names h0..hN with User root, the client key and a prepared known_hosts
# (StrictHostKeyChecking yes), e.g.  netns-cluster.sh exec h0 ssh -F "$(netns-cluster.sh config)" h1 hostname
# Needs root, iproute2, util-linux (unshare, flock) and openssh-server.
set -euo pipefail

STATE=${HVD_NETNS_STATE:-/var/lib/hvd-netns}
NET=198.51.100
BRIDGE_NS=hvd-br
SSHD=/usr/sbin/sshd
LOCK=/run/lock/hvd-netns-cluster.lock

die() { echo "netns-cluster: $*" >&2; exit 1; }
addr_of() { echo "$NET.$((10 + ${1#h}))"; }  # h0 -> .10, h1 -> .11, ...
count() { cat "$STATE/count" 2>/dev/null || echo -1; }
ns_exists() { [ -e "/run/netns/$1" ]; }
hosts_upto() { local i; for ((i = 0; i <= $1; i++)); do echo "h$i"; done; }
valid_host() {
  [ "$(count)" -ge 0 ] || die "the cluster is down: run '$0 up N' first"
  [[ $1 =~ ^h[0-9]+$ ]] && (( ${1#h} <= $(count) )) || die "unknown host '$1' (the cluster has h0..h$(count))"
}

# Runs a command in HOST's network namespace and /etc/hosts, with hostname HOST and cgroup v2 at /sys/fs/cgroup
# (unless HVD_NETNS_NO_CGROUP is set).
in_host() {
  local host=$1; shift
  exec ip netns exec "$host" unshare --uts sh -c '
    hostname "$0" || exit 1
    if [ -z "${HVD_NETNS_NO_CGROUP:-}" ] && [ "$(stat -f -c %T /sys/fs/cgroup)" != cgroup2fs ]; then
      mount -t cgroup2 cgroup2 /sys/fs/cgroup ||
        { echo "netns-cluster: cannot mount cgroup2 on /sys/fs/cgroup for $0" >&2; exit 1; }
    fi
    exec "$@"' "$host" "$@"
}

sshd_pid() {  # prints the pid of HOST's sshd listener when it runs
  local f="$STATE/$1/sshd.pid" pid
  [ -s "$f" ] || return 1
  pid=$(cat "$f")
  [ -d "/proc/$pid" ] && grep -q sshd "/proc/$pid/comm" 2>/dev/null && echo "$pid"
}

sshd_start() {
  local host=$1 dir="$STATE/$1"
  sshd_pid "$host" >/dev/null && return 0
  mkdir -p /run/sshd && chmod 0755 /run/sshd
  # A clean environment: nothing of the caller's reaches the sessions. sshd daemonizes and writes its pid file.
  ( in_host "$host" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin "$SSHD" -f "$dir/sshd_config" -E "$dir/sshd.log" ) 9>&-
  local i
  for ((i = 0; i < 50; i++)); do sshd_pid "$host" >/dev/null && return 0; sleep 0.1; done
  die "sshd on $host did not start; see $dir/sshd.log"
}

sshd_stop() {
  local pid
  pid=$(sshd_pid "$1") || return 0
  kill "$pid"
  while [ -d "/proc/$pid" ]; do sleep 0.05; done
  rm -f "$STATE/$1/sshd.pid"
}

write_sshd_config() {
  local host=$1 dir="$STATE/$1"
  cat >"$dir/sshd_config" <<EOF
ListenAddress $(addr_of "$host")
Port $(cat "$dir/port" 2>/dev/null || echo 22)
HostKey $dir/ssh_host_ed25519_key
PidFile $dir/sshd.pid
AuthorizedKeysFile $STATE/authorized_keys
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
UsePAM no
StrictModes yes
UseDNS no
PrintMotd no
PrintLastLog no
MaxStartups 200:30:400
MaxSessions 200
ClientAliveInterval 5
ClientAliveCountMax 3
# bash sources ~/.bashrc for commands run by sshd only when SHLVL < 2; root's is slow here.
SetEnv SHLVL=1
EOF
}

cluster_up() {
  local n=$1 host
  [[ $n =~ ^[0-9]+$ ]] && (( n >= 1 && n <= 200 )) || die "usage: up N with 1 <= N <= 200"
  [ "$(id -u)" -eq 0 ] || die "must run as root (network namespaces, sshd)"
  command -v unshare >/dev/null && [ -x "$SSHD" ] || die "needs util-linux unshare and openssh-server ($SSHD)"
  if [ "$(count)" -ge 0 ] && [ "$(count)" -ne "$n" ]; then cluster_down; fi
  if [ "$(count)" -lt 0 ]; then
    if ip -4 addr show | grep -q " $NET\." || ip -4 route show | grep -q "$NET\."; then
      die "$NET.0/24 is already in use on this machine (ip addr / ip route); refusing to use it"
    fi
    for host in $BRIDGE_NS $(hosts_upto "$n"); do
      ! ns_exists "$host" || die "network namespace '$host' exists but is not this script's; remove it first"
    done
  fi
  if grep -q '^root:!' /etc/shadow; then usermod -p '*' root; fi  # with UsePAM no, sshd refuses a locked root

  mkdir -p "$STATE" && chmod 0700 "$STATE"
  # `ip netns add` bind-mounts /run/netns on itself the first time; `down` undoes that only if it was ours.
  [ -e "$STATE/count" ] || mountpoint -q /run/netns || touch "$STATE/unmount-run-netns"
  echo "$n" >"$STATE/count"
  [ -f "$STATE/id_ed25519" ] || ssh-keygen -q -t ed25519 -N '' -C hvd-netns-client -f "$STATE/id_ed25519"
  install -m 0600 "$STATE/id_ed25519.pub" "$STATE/authorized_keys"

  ns_exists $BRIDGE_NS || ip netns add $BRIDGE_NS
  ip -n $BRIDGE_NS link set lo up
  ip -n $BRIDGE_NS link show br0 >/dev/null 2>&1 || ip -n $BRIDGE_NS link add br0 type bridge
  ip -n $BRIDGE_NS link set br0 up

  local hosts_file="$STATE/hosts" ssh_config="$STATE/ssh_config" known="$STATE/known_hosts"
  printf '127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n' >"$hosts_file"
  : >"$ssh_config.new"; : >"$known.new"
  for host in $(hosts_upto "$n"); do printf '%s\t%s\n' "$(addr_of "$host")" "$host" >>"$hosts_file"; done

  for host in $(hosts_upto "$n"); do
    local dir="$STATE/$host" addr
    addr=$(addr_of "$host")
    mkdir -p "$dir" "/etc/netns/$host"
    cp "$hosts_file" "/etc/netns/$host/hosts"
    ns_exists "$host" || ip netns add "$host"
    ip -n "$host" link set lo up
    if ! ip -n "$host" link show eth0 >/dev/null 2>&1; then
      ip -n $BRIDGE_NS link add "v$host" type veth peer name eth0 netns "$host"
    fi
    ip -n $BRIDGE_NS link set "v$host" master br0 up
    ip -n "$host" addr replace "$addr/24" dev eth0
    ip -n "$host" link set eth0 up
    [ -f "$dir/ssh_host_ed25519_key" ] ||
      ssh-keygen -q -t ed25519 -N '' -C "$host" -f "$dir/ssh_host_ed25519_key"
    write_sshd_config "$host"
    sshd_start "$host"
    printf '%s,%s %s\n' "$host" "$addr" "$(cut -d' ' -f1,2 "$dir/ssh_host_ed25519_key.pub")" >>"$known.new"
    cat >>"$ssh_config.new" <<EOF
Host $host
  HostName $addr
  Port 22
  User root
  IdentityFile $STATE/id_ed25519
  IdentitiesOnly yes
  UserKnownHostsFile $known
  StrictHostKeyChecking yes
  BatchMode yes
  ConnectTimeout 5

EOF
  done
  mv "$known.new" "$known"
  mv "$ssh_config.new" "$ssh_config"
  echo "netns-cluster: up: h0..h$n on $NET.0/24; ssh config: $ssh_config" >&2
}

cluster_down() {
  local host pid
  local names=()
  for host in $BRIDGE_NS $(hosts_upto "$(count)"); do ns_exists "$host" && names+=("$host"); done
  # Processes outlive `ip netns del`: stop every one of them by pid first (TERM, then KILL).
  for sig in TERM KILL; do
    for host in "${names[@]}"; do
      for pid in $(ip netns pids "$host" 2>/dev/null); do kill -s "$sig" "$pid" 2>/dev/null || true; done
    done
    for ((i = 0; i < 30; i++)); do
      local left=0
      for host in "${names[@]}"; do [ -n "$(ip netns pids "$host" 2>/dev/null)" ] && left=1; done
      [ $left -eq 0 ] && break
      sleep 0.1
    done
  done
  for host in "${names[@]}"; do
    [ -z "$(ip netns pids "$host" 2>/dev/null)" ] || die "processes remain in namespace $host: $(ip netns pids "$host")"
  done
  # Deleting a namespace destroys its veth ends, and the peers with them.
  for host in "${names[@]}"; do ip netns del "$host"; done
  for host in $(hosts_upto "$(count)"); do rm -rf "/etc/netns/$host"; done
  rmdir /etc/netns 2>/dev/null || true
  if [ -e "$STATE/unmount-run-netns" ] && [ -z "$(ls -A /run/netns 2>/dev/null)" ]; then
    umount /run/netns 2>/dev/null || true
  fi
  rm -rf "$STATE"
}

cluster_status() {
  local n host
  n=$(count)
  if [ "$n" -lt 0 ]; then echo "netns-cluster: down"; return 1; fi
  echo "netns-cluster: h0..h$n; ssh config $STATE/ssh_config"
  for host in $(hosts_upto "$n"); do
    local link sshd
    link=$(ip -n $BRIDGE_NS -br link show "v$host" 2>/dev/null | awk '{print $2}') || link=missing
    sshd=$(sshd_pid "$host" && echo) || sshd=stopped
    printf '%-4s %-15s link %-8s sshd %s\n' "$host" "$(addr_of "$host")" "${link:-missing}" "$sshd"
  done
}

cmd=${1:-}
[ $# -gt 0 ] && shift
case $cmd in
  up)     [ $# -eq 1 ] || die "usage: up N"; exec 9>"$LOCK"; flock 9; cluster_up "$1" ;;
  down)   exec 9>"$LOCK"; flock 9; cluster_down ;;
  status) cluster_status ;;
  config) [ "$(count)" -ge 0 ] || die "cluster is down"; echo "$STATE/ssh_config" ;;
  exec)   [ $# -ge 2 ] || die "usage: exec HOST CMD..."; valid_host "$1"; ns_exists "$1" || die "$1 is down"
          in_host "$@" ;;
  link)   [ $# -eq 2 ] && [[ $2 == up || $2 == down ]] || die "usage: link HOST up|down"; valid_host "$1"
          ip -n $BRIDGE_NS link set "v$1" "$2" ;;
  sshd)   [ $# -eq 2 ] || [ $# -eq 3 ] || die "usage: sshd HOST start|stop|port P"; valid_host "$1"
          if [ "$2" = port ]; then
            [[ ${3:-} =~ ^[0-9]+$ ]] && (( $3 >= 1 && $3 <= 65535 )) || die "usage: sshd HOST port P (1..65535)"
            sshd_stop "$1"; echo "$3" >"$STATE/$1/port"; write_sshd_config "$1"; sshd_start "$1"
            entry="[$1]:$3,[$(addr_of "$1")]:$3 $(cut -d' ' -f1,2 "$STATE/$1/ssh_host_ed25519_key.pub")"
            [ "$3" -eq 22 ] || grep -qxF "$entry" "$STATE/known_hosts" || echo "$entry" >>"$STATE/known_hosts"
            exit 0
          fi
          [ $# -eq 2 ] || die "usage: sshd HOST start|stop|port P"
          case $2 in start) sshd_start "$1" ;; stop) sshd_stop "$1" ;; *) die "usage: sshd HOST start|stop|port P" ;; esac ;;
  *)      sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac
