#!/usr/bin/env bash
# Launch overhead: median wall time of `hvdrun -np 4 /bin/true`, interleaved with Open MPI's
# `mpirun -np 4 /bin/true` and the floor (four /bin/true started by sh), >= RUNS runs each; ratios printed.
# With a running netns cluster, also the 2-host launch against mpirun's, and 8 hosts against 2:
#   scripts/netns-cluster.sh up 8 && CLUSTER_SSH_CONFIG=$(scripts/netns-cluster.sh config) CLUSTER_HOSTS=8 \
#     scripts/bench-launch.sh
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-15}
HVDRUN=${HVDRUN:-build/bin/hvdrun}

# time_ms CMD...: wall time of one run in milliseconds.
time_ms() {
  local start end
  start=$(date +%s%N)
  "$@" >/dev/null 2>&1 || { echo "bench-launch: '$*' failed" >&2; exit 1; }
  end=$(date +%s%N)
  echo $(((end - start) / 1000))
}

median() { sort -n | awk '{a[NR]=$1} END {m = (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2; printf "%.1f", m / 1000}'; }

declare -A samples
names=(hvdrun mpirun floor)
run_one() {
  case $1 in
    hvdrun) time_ms "$HVDRUN" -np 4 /bin/true ;;
    mpirun) time_ms mpirun --allow-run-as-root --oversubscribe -np 4 /bin/true ;;
    floor) time_ms sh -c '/bin/true & /bin/true & /bin/true & /bin/true & wait' ;;
    hvdrun-2hosts) time_ms scripts/netns-cluster.sh exec h0 "$PWD/$HVDRUN" --ssh-config "$CLUSTER_SSH_CONFIG" -np 4 -H h1:2,h2:2 /bin/true ;;
    mpirun-2hosts) time_ms scripts/netns-cluster.sh exec h0 mpirun --allow-run-as-root --oversubscribe -np 4 -H h1:2,h2:2 \
                     --mca plm_rsh_agent "ssh -F $CLUSTER_SSH_CONFIG" /bin/true ;;
    hvdrun-8hosts) time_ms scripts/netns-cluster.sh exec h0 "$PWD/$HVDRUN" --ssh-config "$CLUSTER_SSH_CONFIG" -np 8 \
                     -H h1:1,h2:1,h3:1,h4:1,h5:1,h6:1,h7:1,h8:1 /bin/true ;;
  esac
}

if [ -n "${CLUSTER_SSH_CONFIG:-}" ]; then
  names+=(hvdrun-2hosts mpirun-2hosts)
  [ "${CLUSTER_HOSTS:-2}" -ge 8 ] && names+=(hvdrun-8hosts)
fi

for name in "${names[@]}"; do run_one "$name" >/dev/null; done  # warm the page cache
for ((i = 0; i < RUNS; i++)); do
  for name in "${names[@]}"; do samples[$name]+="$(run_one "$name") "; done
done

declare -A med
printf '%-16s %10s\n' "launch" "median_ms"
for name in "${names[@]}"; do
  med[$name]=$(tr ' ' '\n' <<<"${samples[$name]}" | grep -v '^$' | median)
  printf '%-16s %10s\n' "$name" "${med[$name]}"
done
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; }
echo "hvdrun / mpirun = $(ratio "${med[hvdrun]}" "${med[mpirun]}")   (target <= 0.25)"
echo "hvdrun / floor  = $(ratio "${med[hvdrun]}" "${med[floor]}")   (target <= 2)"
if [ -n "${med[hvdrun-2hosts]:-}" ]; then
  echo "2 hosts: hvdrun / mpirun = $(ratio "${med[hvdrun-2hosts]}" "${med[mpirun-2hosts]}")   (target <= 0.4)"
fi
if [ -n "${med[hvdrun-8hosts]:-}" ]; then
  echo "hvdrun 8 hosts / 2 hosts = $(ratio "${med[hvdrun-8hosts]}" "${med[hvdrun-2hosts]}")"
fi
