#!/usr/bin/env bash
# hvd against what a PyTorch user would pick instead (DDP over Gloo), on the same training loop, side by side:
# examples/python/bench_torch_ddp.py on each workload and np, the two sides interleaved ROUNDS times, each at its
# defaults (hvd under hvdrun; DDP started as torchrun starts it: MASTER_ADDR, MASTER_PORT, RANK, WORLD_SIZE,
# LOCAL_RANK and OMP_NUM_THREADS=1, since Debian's torchrun 1.13 fails at start on Python 3.11).
# Prints a TSV: workload, np, threads, round, both sides' samples/s, the ratio hvd/DDP, and each side's per-rank
# threads, CPU affinity and peak memory; then the medians.
#   scripts/bench-torch-ddp.sh                     all workloads at np=2 and 4, one intra-op thread per rank
#   WORKLOADS="mnist:64" NPS=2 ROUNDS=5 THREADS=0 scripts/bench-torch-ddp.sh   (THREADS=0: torch's own default)
# Workloads: mnist:BATCH (Horovod's MNIST network), resnet18:BATCH (torchvision), mlp200:BATCH (~200 small
# gradients). Needs the Python package (scripts/build.sh) and python3-torchvision for resnet18
# (scripts/install-deps.sh bench).
set -euo pipefail
cd "$(dirname "$0")/.."
workloads=${WORKLOADS:-"mnist:64 resnet18:16 resnet18:32 mlp200:64"}
nps=${NPS:-"2 4"}
rounds=${ROUNDS:-3}
steps=${STEPS:-100}         # timed steps per run (10 warm-up steps first) ...
resnet_steps=${RESNET_STEPS:-20}  # ... but resnet18's, ~1 s each at one thread (3 warm-up steps)
threads=${THREADS:-1}
bin="${HVD_BIN:-build/bin}"
py=/usr/bin/python3
worker=examples/python/bench_torch_ddp.py
export PYTHONPATH="$PWD/build/python${PYTHONPATH:+:$PYTHONPATH}"
[ -x "$bin/hvdrun" ] && ls build/python/hvd/torch/_C*.so >/dev/null 2>&1 ||
  { echo "bench-torch-ddp: build hvd with its Python package first (scripts/build.sh)" >&2; exit 1; }
if [[ $workloads == *resnet18* ]] && ! $py -c 'import torchvision' 2>/dev/null; then
  echo "bench-torch-ddp: resnet18 needs python3-torchvision: scripts/install-deps.sh bench" >&2; exit 1
fi

bench_line() { grep -o 'BENCH .*' | tail -1; }
field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$2"; }
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

loop_args() {  # MODEL BATCH -> the worker's flags for that workload
  if [ "$1" = resnet18 ]; then echo "--model $1 --batch-size $2 --steps $resnet_steps --warmup 3 --threads $threads"
  else echo "--model $1 --batch-size $2 --steps $steps --warmup 10 --threads $threads"; fi
}

run_hvd() {  # NP MODEL BATCH -> BENCH line
  # shellcheck disable=SC2046
  timeout 900 "$bin/hvdrun" -np "$1" $py "$worker" --side hvd $(loop_args "$2" "$3") 2>&1 | bench_line
}

run_ddp() {  # NP MODEL BATCH -> BENCH line; the ranks started as torchrun starts them
  local port=$((29500 + RANDOM % 2000)) r pids=() out
  out=$(mktemp)
  for ((r = 0; r < $1; r++)); do
    MASTER_ADDR=127.0.0.1 MASTER_PORT=$port RANK=$r WORLD_SIZE=$1 LOCAL_RANK=$r LOCAL_WORLD_SIZE=$1 OMP_NUM_THREADS=1 \
      timeout 900 $py "$worker" --side ddp $(loop_args "$2" "$3") >>"$out" 2>&1 &
    pids+=($!)
  done
  wait "${pids[@]}" || { cat "$out" >&2; rm -f "$out"; return 1; }
  bench_line <"$out"
  rm -f "$out"
}

printf 'workload\tnp\tthreads\tround\thvd_samples_s\tddp_samples_s\thvd/ddp\thvd_ranks\tddp_ranks\n'
summary=()
for workload in $workloads; do
  model=${workload%%:*} batch=${workload#*:}
  for np in $nps; do
    ratios=() hvds=() ddps=()
    for ((round = 1; round <= rounds; round++)); do
      # Alternate which side goes first, so a drift of the machine weighs on both alike.
      if ((round % 2)); then h=$(run_hvd "$np" "$model" "$batch"); d=$(run_ddp "$np" "$model" "$batch")
      else d=$(run_ddp "$np" "$model" "$batch"); h=$(run_hvd "$np" "$model" "$batch"); fi
      hs=$(field samples_per_sec "$h") ds=$(field samples_per_sec "$d")
      [ -n "$hs" ] && [ -n "$ds" ] || { echo "bench-torch-ddp: a run printed no BENCH line ($workload np=$np)" >&2; exit 1; }
      ratio=$(awk -v a="$hs" -v b="$ds" 'BEGIN { printf "%.3f", a / b }')
      printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$workload" "$np" "$threads" "$round" "$hs" "$ds" "$ratio" \
        "$(field ranks "$h")" "$(field ranks "$d")"
      ratios+=("$ratio") hvds+=("$hs") ddps+=("$ds")
    done
    summary+=("$(printf '%s\t%s\t%s\tmedian\t%s\t%s\t%s\tmin %s' "$workload" "$np" "$threads" \
      "$(printf '%s\n' "${hvds[@]}" | median)" "$(printf '%s\n' "${ddps[@]}" | median)" \
      "$(printf '%s\n' "${ratios[@]}" | median)" "$(printf '%s\n' "${ratios[@]}" | sort -g | head -1)")")
  done
done
printf '%s\n' "${summary[@]}"
