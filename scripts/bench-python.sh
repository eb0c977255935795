#!/usr/bin/env bash
# hvd.torch (Python) against the C++ API, side by side in one run:
#  1. training samples/s of examples/python/pytorch_fashion_mnist.py against build/bin/train_fashion_mnist at np=1
#     and np=2 (same network, batch 64, one intra-op thread per rank, --benchmark: first 10 steps are warm-up),
#     interleaved, ROUNDS times; medians and the ratio Python / C++;
#  2. the time of one allreduce of 8 B and 4 MiB from Python (allreduce_ in place, and allreduce) against
#     hvd-bench's, at np=1 and np=2: what the Python call adds, in microseconds.
# Usage: scripts/bench-python.sh [STEPS] (default 200 training steps per run; 0 skips training); ROUNDS=3 by
# default. Needs a build with the Python package (build/python).
set -euo pipefail
cd "$(dirname "$0")/.."
steps="${1:-200}"
rounds="${ROUNDS:-3}"
bin="${HVD_BIN:-build/bin}"
py=/usr/bin/python3
export PYTHONPATH="$PWD/build/python${PYTHONPATH:+:$PYTHONPATH}" OMP_NUM_THREADS=1
for tool in hvdrun train_fashion_mnist hvd-bench; do
  [ -x "$bin/$tool" ] || { echo "bench-python: $bin/$tool missing; run scripts/build.sh" >&2; exit 1; }
done
ls build/python/hvd/torch/_C*.so >/dev/null 2>&1 || { echo "bench-python: build/python lacks hvd.torch" >&2; exit 1; }

field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$2"; }
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
train() {  # train cpp|py NP -> samples/s of rank 0's BENCH line
  local cmd=("$bin/train_fashion_mnist")
  [ "$1" = py ] && cmd=("$py" examples/python/pytorch_fashion_mnist.py)
  field samples_per_sec "$(timeout 600 "$bin/hvdrun" -np "$2" "${cmd[@]}" --benchmark --threads 1 --epochs 1000 \
    --max-steps "$steps" --log-interval 1000000 | grep -o 'BENCH .*')"
}

[ "$steps" -gt 0 ] && echo "## training samples/s (median of $rounds interleaved runs, $steps steps each)"
for np in 1 2; do
  [ "$steps" -gt 0 ] || break
  cpp=() python=()
  for ((r = 0; r < rounds; r++)); do
    cpp+=("$(train cpp "$np")")
    python+=("$(train py "$np")")
  done
  c="$(printf '%s\n' "${cpp[@]}" | median)"
  p="$(printf '%s\n' "${python[@]}" | median)"
  awk -v np="$np" -v c="$c" -v p="$p" -v cs="${cpp[*]}" -v ps="${python[*]}" 'BEGIN {
    printf "np=%d: C++ %.1f, Python %.1f samples/s; Python/C++ %.3f   (C++ runs: %s; Python runs: %s)\n", np, c, p, p / c, cs, ps }'
done

echo "## allreduce float32 Sum, median us per call (hvd-bench's method)"
for np in 1 2; do
  cpp="$(timeout 300 "$bin/hvdrun" -np "$np" "$bin/hvd-bench" allreduce --sizes 8,4M --time 0.5 | grep -v '^#' |
    sed 's/^\[0\]<stdout>://' | awk '{ print $1, $2 }')"
  python="$(timeout 300 "$bin/hvdrun" -np "$np" "$py" examples/python/allreduce_bench.py --sizes 8,4M --time 0.5 |
    sed 's/^\[0\]<stdout>://' | awk '/mode=/ { mode = $NF } !/^#/ { print mode, $1, $2 }')"
  for bytes in 8 4194304; do
    c="$(awk -v b="$bytes" '$1 == b { print $2 }' <<<"$cpp")"
    pi="$(awk -v b="$bytes" '$1 == "mode=in_place" && $2 == b { print $3 }' <<<"$python")"
    po="$(awk -v b="$bytes" '$1 == "mode=out_of_place" && $2 == b { print $3 }' <<<"$python")"
    awk -v np="$np" -v b="$bytes" -v c="$c" -v pi="$pi" -v po="$po" 'BEGIN {
      printf "np=%d %8d B: hvd-bench %.2f us; Python allreduce_ %.2f us (+%.2f); allreduce %.2f us (+%.2f)\n",
        np, b, c, pi, pi - c, po, po - c }'
  done
done
