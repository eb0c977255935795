#!/usr/bin/env bash
# Launch cost against the number of hosts, for both ways hvdrun starts agents, on the netns cluster with a real
# Slurm (scripts/slurm-cluster.sh): for N in $SIZES (default 2 4 8 16), the median wall time of
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
now_ms() { echo $(($(date +%s%N) / 1000000)); }
hosts_of() { local i list=""; for ((i = 1; i <= $1; i++)); do list+="${list:+,}h$i:1"; done; echo "$list"; }

printf '%6s %10s %10s %16s\n' hosts ssh_ms slurm_ms salloc+slurm_ms
for n in $SIZES; do
  ssh=() slurm=() whole=()
  for ((r = 0; r < RUNS; r++)); do
    t=$(now_ms)
    "$NETNS" exec h0 "$BIN/hvdrun" --ssh-config "$CONFIG" -np "$n" -H "$(hosts_of "$n")" /bin/true >/dev/null
    ssh+=($(($(now_ms) - t)))
    t=$(now_ms)
    "$SLURM" exec h0 salloc -Q -N "$n" "$BIN/hvdrun" /bin/true >/dev/null
    whole+=($(($(now_ms) - t)))
  done
  # Inside one allocation: hvdrun alone, timed there.
  mapfile -t slurm < <("$SLURM" exec h0 salloc -Q -N "$n" bash -c '
    for ((r = 0; r < '"$RUNS"'; r++)); do
      t=$(date +%s%N); "'"$BIN"'/hvdrun" /bin/true >/dev/null || exit 1; echo $((($(date +%s%N) - t) / 1000000))
    done')
  printf '%6d %10s %10s %16s\n' "$n" "$(printf '%s\n' "${ssh[@]}" | median)" \
    "$(printf '%s\n' "${slurm[@]}" | median)" "$(printf '%s\n' "${whole[@]}" | median)"
done
echo
"$BIN/hvd-store-bench" --clients "$STORE_CLIENTS"
