#!/usr/bin/env bash
# Launch cost against the number of hosts, for both ways hvdrun starts agents, on the netns cluster with a real
# Slurm (scripts/slurm-cluster.sh): for N in $SIZES (default 2 4 8 16), the median wall time (and for the
# first two the launcher's CPU time, hvdrun with srun included) of
#   ssh:   hvdrun -np N -H h1:1,...,hN:1 /bin/true          (from h0, one libssh connection per host)
#   slurm: hvdrun /bin/true inside `salloc -N N`            (one srun; Slurm's slurmd tree fans out)
#   salloc+slurm: salloc -N N hvdrun /bin/true, end to end  (the allocation included)
# and the rendezvous store's throughput with hvd-store-bench (--clients $STORE_CLIENTS). RUNS runs each (5).
# Needs root; takes the multi-host tests' lock; brings the cluster up with 16 hosts and down again at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-5}
SIZES=${SIZES:-"2 4 8 16"}
STORE_CLIENTS=${STORE_CLIENTS:-16,64,256,512}
BIN=$PWD/build/bin
NETNS=scripts/netns-cluster.sh
SLURM=scripts/slurm-cluster.sh
max=0; for n in $SIZES; do (( n > max )) && max=$n; done

exec 8>/run/lock/hvd-multihost-tests.lock
flock -w 600 8 || { echo "bench-scale: the multi-host lock is held" >&2; exit 1; }
trap '"$NETNS" down || true' EXIT
"$SLURM" up "$max" >/dev/null 2>&1
CONFIG=$("$NETNS" config)

median() { sort -n | awk '{a[NR]=$1} END {m = (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2; printf "%.0f", m}'; }
hosts_of() { local i list=""; for ((i = 1; i <= $1; i++)); do list+="${list:+,}h$i:1"; done; echo "$list"; }
# measure CMD...: "WALL_MS CPU_MS", CPU being user + system of CMD and every child it waited for (hvdrun's
# own threads, and srun when hvdrun starts one): the launcher's share of the work.
MEASURE='measure() {
  local t
  t=$( { TIMEFORMAT="%3R %3U %3S"; time "$@" >/dev/null 2>&1; } 2>&1 ) || { echo "bench-scale: $* failed" >&2; exit 1; }
  awk "{ printf \"%.0f %.0f\\n\", \$1 * 1000, (\$2 + \$3) * 1000 }" <<<"$t"
}'
eval "$MEASURE"

printf '%6s %8s %12s %10s %14s %16s\n' hosts ssh_ms ssh_cpu_ms slurm_ms slurm_cpu_ms salloc+slurm_ms
for n in $SIZES; do
  ssh=() ssh_cpu=() whole=()
  for ((r = 0; r < RUNS; r++)); do
    read -r wall cpu < <(measure "$NETNS" exec h0 "$BIN/hvdrun" --ssh-config "$CONFIG" -np "$n" -H "$(hosts_of "$n")" /bin/true)
    ssh+=("$wall") ssh_cpu+=("$cpu")
    read -r wall cpu < <(measure "$SLURM" exec h0 salloc -Q -N "$n" "$BIN/hvdrun" /bin/true)
    whole+=("$wall")
  done
  # Inside one allocation: hvdrun alone, measured there.
  slurm=() slurm_cpu=()
  while read -r wall cpu; do slurm+=("$wall") slurm_cpu+=("$cpu"); done < <("$SLURM" exec h0 salloc -Q -N "$n" \
    bash -c "$MEASURE"'; for ((r = 0; r < '"$RUNS"'; r++)); do measure "'"$BIN"'/hvdrun" /bin/true; done')
  printf '%6d %8s %12s %10s %14s %16s\n' "$n" "$(printf '%s\n' "${ssh[@]}" | median)" \
    "$(printf '%s\n' "${ssh_cpu[@]}" | median)" "$(printf '%s\n' "${slurm[@]}" | median)" \
    "$(printf '%s\n' "${slurm_cpu[@]}" | median)" "$(printf '%s\n' "${whole[@]}" | median)"
done
echo
"$BIN/hvd-store-bench" --clients "$STORE_CLIENTS"
