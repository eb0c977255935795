#!/usr/bin/env bash
# Training throughput of train_fashion_mnist at np=1 and np=2, one intra-op thread per rank:
# samples/s (all ranks), scaling efficiency = thr(2) / (2 x thr(1)), and the share of each step that
# DistributedOptimizer::synchronize() spends waiting for gradient allreduces (rank 0).
# Usage: scripts/bench-train.sh [STEPS] (default 300 steps per run, the first 10 are warm-up). Needs a build.
set -euo pipefail
cd "$(dirname "$0")/.."
steps="${1:-300}"
bin="${HVD_BIN:-build/bin}"
for tool in hvdrun train_fashion_mnist; do
  [ -x "$bin/$tool" ] || { echo "bench-train: $bin/$tool missing; run scripts/build.sh" >&2; exit 1; }
done

run() {  # run NP -> prints rank 0's BENCH line
  timeout 600 "$bin/hvdrun" -np "$1" "$bin/train_fashion_mnist" --benchmark --threads 1 --epochs 1000 \
    --max-steps "$steps" --log-interval 1000000 | grep -o 'BENCH .*'
}
field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$2"; }

one="$(run 1)"
two="$(run 2)"
echo "np=1: $one"
echo "np=2: $two"
t1="$(field samples_per_sec "$one")"
t2="$(field samples_per_sec "$two")"
awk -v t1="$t1" -v t2="$t2" -v w1="$(field wait_share "$one")" -v w2="$(field wait_share "$two")" -v cores="$(nproc)" \
  -v s1="$(field step_ms "$one")" -v s2="$(field step_ms "$two")" -v m2="$(field wait_ms "$two")" 'BEGIN {
  printf "samples/s: np=1 %.1f, np=2 %.1f\n", t1, t2
  printf "scaling efficiency thr(2)/(2*thr(1)): %.3f\n", t2 / (2 * t1)
  printf "share of step waiting for allreduce: np=1 %.1f%%, np=2 %.1f%%\n", 100 * w1, 100 * w2
  # What is left: the np=2 step minus its allreduce wait is compute only; had it stayed at np=1 step time,
  # scaling would be s1 / (s2 - m2) without any communication at all.
  printf "np=2 step without the wait: %.2f ms against np=1 step %.2f ms: compute alone bounds scaling at %.3f\n", \
    s2 - m2, s1, s1 / (s2 - m2)
  if (cores < 2) printf "note: %d core(s): two ranks share them, so efficiency is bounded by the hardware\n", cores
}'
