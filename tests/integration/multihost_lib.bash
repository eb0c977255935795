# Shared helpers for the multi-host integration tests (sourced, not run; not a test itself: the suite runs
# *.sh only). Brings up h0 (launcher) + h1, h2 (up to h$MULTIHOST_HOSTS when set) with scripts/netns-cluster.sh,
# runs hvdrun inside h0 over SSH, and always takes the cluster down again. Skips (exit 77) where network
# namespaces cannot be created. One multi-host test at a time per machine: the cluster's names and addresses are fixed.
source "$(dirname "${BASH_SOURCE[0]}")/lib.bash"
: "${HVD_SOURCE:?set HVD_SOURCE to the repository root}"

NETNS="$HVD_SOURCE/scripts/netns-cluster.sh"
AGENT="$HVD_BIN/hvd-agent"

skip() { echo "SKIP: $*" >&2; exit 77; }

[ "$(id -u)" -eq 0 ] || skip "multi-host tests need root (network namespaces, sshd)"
[ -x /usr/sbin/sshd ] || skip "multi-host tests need openssh-server (/usr/sbin/sshd)"
unshare --net true 2>/dev/null || skip "cannot create network namespaces here (unshare --net failed)"
[ -x "$HVDRUN" ] && [ -x "$AGENT" ] && [ -x "$WORKER" ] || fail "build hvdrun, hvd-agent and test_worker first"

exec 8>/run/lock/hvd-multihost-tests.lock
flock -w 300 8 || fail "another multi-host test held the cluster lock for 300 s"
# remove_stale_cgroups: the empty cgroups of netns hosts' agents that are gone (hvd-hN-<agent pid> in this machine's
# cgroup2 tree, which the hosts share). An agent removes its own at exit; one SIGKILLed (multihost_failure,
# slurm_failures) cannot, and nothing else would.
remove_stale_cgroups() {
  local mount dir
  mount=$(awk '{ for (i = 1; i <= NF; i++) if ($i == "-" && $(i+1) == "cgroup2") { print $5; exit } }' /proc/self/mountinfo)
  [ -n "$mount" ] || return 0
  for dir in $(find "$mount" -maxdepth 8 -type d -regex '.*/hvd-h[0-9]+-[0-9]+' 2>/dev/null); do
    [ -d "/proc/${dir##*-}" ] || rmdir "$dir" 2>/dev/null || true
  done
}
trap 'run_exit_hooks; kill_background; stop_background_jobs; "$NETNS" down || true; remove_stale_cgroups; rm -rf "$TEST_TMP"' EXIT
# MULTIHOST_HOSTS (set before sourcing): how many hosts besides h0; 2 unless a test needs more.
"$NETNS" up "${MULTIHOST_HOSTS:-2}" >"$TEST_TMP/up.log" 2>&1 ||
  { cat "$TEST_TMP/up.log"; fail "netns-cluster.sh up ${MULTIHOST_HOSTS:-2} failed"; }
SSH_CONFIG="$("$NETNS" config)"
USE_CONFIG="$SSH_CONFIG"  # the --ssh-config hvdrun gets; tests point it at variants
cd "$TEST_TMP"  # hvdrun's working directory; the hosts share this file system, so it exists there too

BG_PIDS=()
kill_background() { for p in "${BG_PIDS[@]}"; do kill -KILL "$p" 2>/dev/null || true; done; }

# h0_hvdrun LIMIT_S ARGS...: hvdrun inside h0 with --ssh-config $USE_CONFIG; sets OUT, ERR, RC, ELAPSED.
h0_hvdrun() {
  local limit=$1; shift
  run_bounded "$limit" "hvdrun $*" "$NETNS" exec h0 "$HVDRUN" --ssh-config "$USE_CONFIG" "$@"
}

# run_background COMMAND...: COMMAND in the background (its pid in JOB_PID, killed at exit), output in
# $TEST_TMP/out and err.
run_background() {
  : >"$TEST_TMP/out"  # wait_lines may read it before the job's redirection creates it
  "$@" >"$TEST_TMP/out" 2>"$TEST_TMP/err" &
  JOB_PID=$!
  BG_PIDS+=("$JOB_PID")
}

# h0_hvdrun_bg ARGS...: hvdrun inside h0 in the background (its pid in JOB_PID), output in $TEST_TMP/out, err.
h0_hvdrun_bg() { run_background "$NETNS" exec h0 "$HVDRUN" --ssh-config "$USE_CONFIG" "$@"; }

# pids_on GREP_ARGS... -- HOST...: pids on those hosts whose command line (arguments joined by spaces) matches
# `grep -q GREP_ARGS...`.
pids_on() {
  local grep_args=()
  while [ "$1" != "--" ]; do grep_args+=("$1"); shift; done
  shift
  local host pid
  for host in "$@"; do
    for pid in $(ip netns pids "$host" 2>/dev/null); do
      tr '\0' ' ' 2>/dev/null <"/proc/$pid/cmdline" | grep -q "${grep_args[@]}" && echo "$pid"
    done
  done
  return 0
}

# exe_pids_on EXE HOST...: pids on those hosts whose executable is EXE (one a line).
exe_pids_on() {
  local exe=$1 host pid
  shift
  for host in "$@"; do
    for pid in $(ip netns pids "$host" 2>/dev/null); do
      [ "$(readlink "/proc/$pid/exe" 2>/dev/null)" = "$exe" ] && echo "$pid"
    done
  done
  return 0
}

# job_pids HOST...: pids of this build's agents and workers (and the shells that wrap them) on those hosts.
job_pids() { pids_on -E "$HVD_BIN/(hvd-agent|test_worker|hvd_elastic_worker|hvd_report_worker)|HVD_MH_TAG" -- "$@"; }

# expect_no_job_on LIMIT_S HOST...: no process of the job remains on those hosts (waiting up to LIMIT_S).
expect_no_job_on() {
  local limit=$1; shift
  local deadline=$((SECONDS + limit)) left
  while left=$(job_pids "$@") && [ -n "$left" ]; do
    if [ $SECONDS -ge $deadline ]; then
      for p in $left; do echo "left on $*: $p $(tr '\0' ' ' 2>/dev/null <"/proc/$p/cmdline")" >&2; done
      fail "processes of the job remain on $* after ${limit}s"
    fi
    sleep 0.2
  done
}
