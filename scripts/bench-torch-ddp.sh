#!/usr/bin/env bash
# hvd against what a PyTorch user would pick instead (DDP over Gloo), on the same training loop, side by side:
# examples/python/bench_torch_ddp.py on each workload and np, the two sides interleaved ROUNDS times, each at its
# defaults (hvd under hvdrun; DDP started as torchrun starts it: MASTER_ADDR, MASTER_PORT, RANK, WORLD_SIZE,
# LOCAL_RANK and OMP_NUM_THREADS=1, since Debian's torchrun 1.13 fails at start on Python 3.11).
# Prints a TSV: workload, np, threads, round, both sides' samples/s, the ratio hvd/DDP, and each side's per-rank
# threads, CPU affinity and peak memory; then the medians.
#   scripts/bench-torch-ddp.sh                     all workloads at np=2 and 4, one intra-op thread per rank
#   WORKLOADS="mnist:64" NPS=2 ROUNDS=5 THREADS=0 scripts/bench-torch-ddp.sh   (THREADS=0: torch's own default)
#   CEILING=1 ...: each round also runs the ranks alone, exchanging nothing (started as DDP's), and adds two
#   columns: their samples/s and local/DDP, the ratio that no exchange, however fast, can pass.
# Workloads: mnist:BATCH (Horovod's MNIST network), resnet18:BATCH (torchvision), mlp200:BATCH (~200 small
# gradients). Needs the Python package (scripts/build.sh), and python3-torchvision for resnet18 and OpenBLAS (the
# BLAS python3-torch recommends; without it torch's compute is 2-3x slower): scripts/install-deps.sh bench.
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

# Which BLAS torch's matrix products run on sets how much of a step is compute: say it, as the interpreter the
# workers run loads it, and warn on the reference one.
blas=$($py -c 'import torch; print(next((l.split()[-1] for l in open("/proc/self/maps") if "/libblas.so" in l), ""))' \
  2>/dev/null || true)
echo "bench-torch-ddp: torch's BLAS is ${blas:-unknown}" >&2
if [[ $blas == */blas/libblas.so.3* ]]; then
  echo "bench-torch-ddp: that is the reference BLAS (2-3x slower compute than what python3-torch recommends);" \
    "scripts/install-deps.sh bench installs libopenblas0" >&2
fi

run_timeout=${RUN_TIMEOUT:-600}  # seconds one side's run may take, start to exit; past it the run is reported failed

bench_line() { grep -o 'BENCH .*' | tail -1; }
field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$2"; }
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
log_dir=$(mktemp -d)
trap 'rm -rf "$log_dir"' EXIT

loop_args() {  # MODEL BATCH -> the worker's flags for that workload
  if [ "$1" = resnet18 ]; then echo "--model $1 --batch-size $2 --steps $resnet_steps --warmup 3 --threads $threads"
  else echo "--model $1 --batch-size $2 --steps $steps --warmup 10 --threads $threads"; fi
}

# A run that fails (an exit other than 0, the time limit, no BENCH line) prints 'FAILED <why>' on stdout and its
# log's tail on stderr, and the script goes on with the next run; it exits 1 at the end.
report_failure() {  # SIDE LOG WHY
  { echo "bench-torch-ddp: the $1 run failed: $3; the end of its output:"; tail -15 "$2"; } >&2
  echo "FAILED $3"
}

run_hvd() {  # NP MODEL BATCH -> BENCH line, or FAILED
  local log="$log_dir/hvd.log" rc=0
  # shellcheck disable=SC2046
  timeout -k 10 "$run_timeout" "$bin/hvdrun" -np "$1" $py "$worker" --side hvd $(loop_args "$2" "$3") >"$log" 2>&1 ||
    rc=$?
  if ((rc == 124 || rc == 137)); then report_failure hvd "$log" "no exit within ${run_timeout}s"
  elif ((rc != 0)); then report_failure hvd "$log" "hvdrun exited $rc"
  elif ! bench_line <"$log"; then report_failure hvd "$log" "no BENCH line"; fi
}

free_port() { $py -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

run_ddp() {  # NP MODEL BATCH [SIDE] -> BENCH line, or FAILED; the ranks started as torchrun starts them
  # Each run gets a port the kernel just handed out (a fixed or random one may still be held by an earlier run's
  # store), every rank is bounded, and the first rank to fail takes the others down at once: a rank whose peer died
  # would otherwise wait in Gloo's rendezvous until its timeout.
  local side=${4:-ddp} port r pids=() log="$log_dir/${4:-ddp}.log" rc=0 why=""
  port=$(free_port)
  : >"$log"
  for ((r = 0; r < $1; r++)); do
    # shellcheck disable=SC2046
    MASTER_ADDR=127.0.0.1 MASTER_PORT=$port RANK=$r WORLD_SIZE=$1 LOCAL_RANK=$r LOCAL_WORLD_SIZE=$1 OMP_NUM_THREADS=1 \
      timeout -k 10 "$run_timeout" $py "$worker" --side "$side" $(loop_args "$2" "$3") >>"$log" 2>&1 &
    pids+=($!)
  done
  # Polled, not `wait -n`: bash may have reaped a rank that ended meanwhile, and `wait -n PID` then fails ("no such
  # job"), while `wait PID` still returns that rank's status.
  local left=("${pids[@]}") still p
  while ((${#left[@]} > 0)) && [ -z "$why" ]; do
    still=()
    for p in "${left[@]}"; do
      if kill -0 "$p" 2>/dev/null; then still+=("$p"); continue; fi
      wait "$p" && rc=0 || rc=$?
      ((rc == 0)) && continue
      why=$( ((rc == 124)) && echo "a rank did not exit within ${run_timeout}s" || echo "a rank exited $rc")
    done
    left=("${still[@]}")
    [ -n "$why" ] || sleep 0.2
  done
  if [ -n "$why" ]; then
    kill -TERM "${pids[@]}" 2>/dev/null || true
    wait "${pids[@]}" 2>/dev/null || true
  fi
  if [ -n "$why" ]; then report_failure "$side" "$log" "$why (port $port)"
  elif ! bench_line <"$log"; then report_failure "$side" "$log" "no BENCH line"; fi
}

failed_runs=0
ceiling=${CEILING:-0}
printf 'workload\tnp\tthreads\tround\thvd_samples_s\tddp_samples_s\thvd/ddp\thvd_overlap\thvd_ranks\tddp_ranks%s\n' \
  "$( ((ceiling)) && printf '\tlocal_samples_s\tlocal/ddp')"
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
      if [ -z "$hs" ] || [ -z "$ds" ]; then
        printf '%s\t%s\t%s\t%s\t%s\t%s\tFAILED\t\t\t\n' "$workload" "$np" "$threads" "$round" "${hs:-$h}" "${ds:-$d}"
        failed_runs=$((failed_runs + 1))
        continue
      fi
      ratio=$(awk -v a="$hs" -v b="$ds" 'BEGIN { printf "%.3f", a / b }')
      overlap="backward $(field backward_ms "$h") ms (DDP $(field backward_ms "$d")), wait $(field wait_ms "$h") ms,"
      overlap+=" allreduce alone $(field comm_ms "$h") ms, hidden $(field hidden "$h")"
      local_cols=""
      if ((ceiling)); then
        local_sps=$(field samples_per_sec "$(run_ddp "$np" "$model" "$batch" local)")
        local_cols=$(printf '\t%s\t%s' "${local_sps:-FAILED}" "$(awk -v a="${local_sps:-0}" -v b="$ds" 'BEGIN { printf "%.3f", a / b }')")
      fi
      printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s%s\n' "$workload" "$np" "$threads" "$round" "$hs" "$ds" "$ratio" \
        "$overlap" "$(field ranks "$h")" "$(field ranks "$d")" "$local_cols"
      ratios+=("$ratio") hvds+=("$hs") ddps+=("$ds")
    done
    if ((${#ratios[@]} == 0)); then summary+=("$(printf '%s\t%s\t%s\tmedian\tnone: every round failed' \
      "$workload" "$np" "$threads")"); continue; fi
    summary+=("$(printf '%s\t%s\t%s\tmedian\t%s\t%s\t%s\tmin %s, of %s rounds' "$workload" "$np" "$threads" \
      "$(printf '%s\n' "${hvds[@]}" | median)" "$(printf '%s\n' "${ddps[@]}" | median)" \
      "$(printf '%s\n' "${ratios[@]}" | median)" "$(printf '%s\n' "${ratios[@]}" | sort -g | head -1)" "${#ratios[@]}")")
  done
done
printf '%s\n' "${summary[@]}"
if ((failed_runs > 0)); then echo "bench-torch-ddp: $failed_runs round(s) failed (FAILED lines above)" >&2; exit 1; fi
