#!/usr/bin/env bash
# Autotune against hand-picked settings, interleaved, at np=2, on two workloads:
#  train: train_fashion_mnist --benchmark (one intra-op thread per rank): samples/s over the steps after the
#         first WARMUP (250, which covers autotune's search of 27 samples x 20 cycles);
#  small: a loop of three small allreduces per step (build/bin/hvd_timeline STEPS2): steps/s from wall time.
# Settings: Horovod's defaults (fusion 128 MiB, cycle 1 ms), a grid of fusion {0, 128 MiB} x cycle {0, 1, 5} ms,
# and --autotune. Medians over ROUNDS rounds (default 3); the autotune log's last row is its choice.
# Usage: scripts/bench-autotune.sh [STEPS [STEPS2]] (defaults 500 and 20000). Needs a build.
# WORKLOADS="train small" (the default) or one of them. Every autotune run's choice is listed (does it converge
# to the same setting run after run?).
set -euo pipefail
cd "$(dirname "$0")/.."
steps="${1:-500}"
steps2="${2:-20000}"
warmup="${WARMUP:-250}"
rounds="${ROUNDS:-3}"
workloads="${WORKLOADS:-train small}"
bin="${HVD_BIN:-build/bin}"
tools=(hvdrun hvd_timeline)
[[ " $workloads " == *" train "* ]] && tools+=(train_fashion_mnist)
for tool in "${tools[@]}"; do
  [ -x "$bin/$tool" ] || { echo "bench-autotune: $bin/$tool missing; run scripts/build.sh" >&2; exit 1; }
done
log="$(mktemp -d)"
trap 'rm -rf "$log"' EXIT

declare -A setting=([default]="" [autotune]="--autotune --autotune-log-file $log/autotune.csv")
names=(default autotune)
for f in 0 134217728; do
  for c in 0 1 5; do
    [ "$f/$c" = 134217728/1 ] && continue  # the default
    setting[f${f}_c$c]="-x HOROVOD_FUSION_THRESHOLD=$f -x HOROVOD_CYCLE_TIME=$c"
    names+=("f${f}_c$c")
  done
done

run_train() {  # NAME -> samples/s
  # shellcheck disable=SC2086
  timeout 600 "$bin/hvdrun" -np 2 ${setting[$1]} "$bin/train_fashion_mnist" --benchmark --threads 1 --epochs 1000 \
    --max-steps "$steps" --bench-warmup "$warmup" --log-interval 1000000 | sed -n 's/.*samples_per_sec=\([0-9.]*\).*/\1/p'
}
run_small() {  # NAME -> steps/s
  local start end
  start=$(date +%s%N)
  # shellcheck disable=SC2086
  timeout 600 "$bin/hvdrun" -np 2 ${setting[$1]} "$bin/hvd_timeline" "$steps2" >/dev/null
  end=$(date +%s%N)
  if [ "$1" = autotune ]; then choice; fi
  awk -v n="$steps2" -v ns=$((end - start)) 'BEGIN {printf "%.1f", n / (ns / 1e9)}'
}
choice() {  # appends the last autotune run's choice to $log/choices
  echo "fusion $(tail -1 "$log/autotune.csv" | cut -d, -f3) B, cycle $(tail -1 "$log/autotune.csv" | cut -d, -f4) ms," \
    "$(($(wc -l <"$log/autotune.csv") - 2)) samples" >>"$log/choices"
}
median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }

report() {  # WORKLOAD UNIT: prints the table and the ratios from samples_<workload>
  local -n s=$1
  local best="" name
  declare -A med
  printf '\n%-20s %12s   %s\n' "$1" "$2" "runs"
  for name in "${names[@]}"; do
    med[$name]=$(median <<<"${s[$name]}")
    printf '%-20s %12.1f   %s\n' "$name" "${med[$name]}" "${s[$name]}"
    if [ "$name" != autotune ] && { [ -z "$best" ] || awk -v a="${med[$name]}" -v b="${med[$best]}" 'BEGIN{exit !(a > b)}'; }; then
      best=$name
    fi
  done
  awk -v a="${med[autotune]}" -v b="${med[$best]}" -v d="${med[default]}" -v n="$best" 'BEGIN {
    printf "autotune / best hand-picked (%s) = %.3f   (target >= 0.95)\n", n, a / b
    printf "autotune / default = %.3f\n", a / d }'
  echo "autotune's choice, run by run:"
  sort "$log/choices" | uniq -c
  : >"$log/choices"
}

declare -A train small
: >"$log/choices"
if [[ " $workloads " == *" train "* ]]; then
  for ((r = 0; r < rounds; r++)); do
    for name in "${names[@]}"; do
      train[$name]+="$(run_train "$name") "
      if [ "$name" = autotune ]; then choice; fi
    done
  done
  report train samples/s
fi
if [[ " $workloads " == *" small "* ]]; then
  for ((r = 0; r < rounds; r++)); do
    for name in "${names[@]}"; do small[$name]+="$(run_small "$name") "; done
  done
  report small steps/s
fi
