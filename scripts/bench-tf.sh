#!/usr/bin/env bash
# hvd against TensorFlow's own multi-worker strategy, on the same Keras training loop, side by side:
# examples/python/bench_tf_keras.py under hvdrun (hvd.tensorflow.keras.DistributedOptimizer) and as two workers of
# tf.distribute.MultiWorkerMirroredStrategy (TF_CONFIG on localhost, its RING collectives), np=2 on one host,
# interleaved ROUNDS times; each round also runs the two processes alone, exchanging nothing (the ceiling no exchange
# can pass). Both sides: the same per-worker batch (the strategy's global batch is it times 2), the same intra- and
# inter-op threads, printed. Prints a TSV (model, round, the three sides' samples/s, hvd/strategy, alone/strategy),
# then the medians, then a blocking 8-byte allreduce from eager TensorFlow under hvd (median of 2000 calls).
#   scripts/bench-tf.sh                             # mnist:64 and resnet50:8, 5 rounds, 1 thread each
#   MODELS="mnist:64" ROUNDS=3 THREADS=1 scripts/bench-tf.sh
# Both sides run Keras 2 (tf_keras, TF_USE_LEGACY_KERAS=1): Keras 3's model.fit under MultiWorkerMirroredStrategy
# fails here on TensorFlow 2.21 ("Attempt to convert a value (PerReplica...) to a Tensor"); KERAS=3 runs hvd's side
# and the ceiling on Keras 3 all the same.
# Needs the tensorflow environment (scripts/install-framework-env.sh tensorflow) and the build (scripts/build.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
models=${MODELS:-"mnist:64 resnet50:8"}
rounds=${ROUNDS:-5}
threads=${THREADS:-1}
steps=${STEPS:-30}
bin="${HVD_BIN:-build/bin}"
py=$(scripts/framework-python.sh tensorflow)
worker=examples/python/bench_tf_keras.py
legacy=1
[ "${KERAS:-2}" = 3 ] && legacy=0
export PYTHONPATH="$PWD/build/python${PYTHONPATH:+:$PYTHONPATH}" TF_CPP_MIN_LOG_LEVEL=2 OMP_NUM_THREADS=$threads \
  TF_USE_LEGACY_KERAS=$legacy
[ -x "$bin/hvdrun" ] && [ -f build/python/hvd/tensorflow/_hvd_ops.so ] ||
  { echo "bench-tf: build hvd first (scripts/build.sh, with the tensorflow environment installed)" >&2; exit 1; }
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT

rate() { grep -o 'samples_per_s=[0-9.]*' "$1" | tail -1 | cut -d= -f2; }
free_port() { "$py" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

run_hvd() {  # ARGS...
  timeout 900 "$bin/hvdrun" -np 2 -x OMP_NUM_THREADS="$threads" -x TF_USE_LEGACY_KERAS "$py" "$worker" --mode hvd "$@" >"$logs/hvd" 2>&1 || true
  rate "$logs/hvd"
}

run_mwms() {  # ARGS...
  local p0 p1 pids=() r
  p0=$(free_port); p1=$(free_port)
  for r in 0 1; do
    TF_CONFIG="{\"cluster\": {\"worker\": [\"localhost:$p0\", \"localhost:$p1\"]}, \"task\": {\"type\": \"worker\", \"index\": $r}}" \
      timeout 900 "$py" "$worker" --mode mwms "$@" >"$logs/mwms$r" 2>&1 &
    pids+=($!)
  done
  wait "${pids[@]}" || true
  rate "$logs/mwms0"
}

run_alone() {  # ARGS...
  local pids=() r
  for r in 0 1; do
    BENCH_RANK=$r BENCH_WORKERS=2 timeout 900 "$py" "$worker" --mode alone "$@" >"$logs/alone$r" 2>&1 &
    pids+=($!)
  done
  wait "${pids[@]}" || true
  rate "$logs/alone0"
}

echo "bench-tf: np=2 on one host, $threads intra- and inter-op thread(s) per process, OMP_NUM_THREADS=$threads," \
  "TF_USE_LEGACY_KERAS=$legacy, TensorFlow $("$py" -c 'import tensorflow as tf; print(tf.__version__)' 2>/dev/null)" >&2
printf 'model\tround\thvd\tstrategy\talone\thvd/strategy\talone/strategy\n'
summary=()
for spec in $models; do
  model=${spec%%:*} batch=${spec##*:}
  flags=(--model "$model" --batch-size "$batch" --steps "$steps" --threads "$threads")
  [ "$model" = resnet50 ] && flags+=(--steps 10 --warmup 3)
  : >"$logs/ratios"
  for round in $(seq 1 "$rounds"); do
    h=$(run_hvd "${flags[@]}"); s=$(run_mwms "${flags[@]}"); a=$(run_alone "${flags[@]}")
    [ -n "$h" ] && [ -n "$s" ] && [ -n "$a" ] ||
      { echo "bench-tf: a run failed (hvd '$h', strategy '$s', alone '$a'); see its output:" >&2; tail -5 "$logs"/* >&2; exit 1; }
    hs=$(awk -v a="$h" -v b="$s" 'BEGIN { printf "%.2f", a / b }')
    as=$(awk -v a="$a" -v b="$s" 'BEGIN { printf "%.2f", a / b }')
    printf '%s:%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$model" "$batch" "$round" "$h" "$s" "$a" "$hs" "$as"
    echo "$hs" >>"$logs/ratios"
  done
  summary+=("$model:$batch median hvd/strategy $(median <"$logs/ratios"), lowest $(sort -g "$logs/ratios" | head -1)")
done
for line in "${summary[@]}"; do echo "# $line"; done
timeout 300 "$bin/hvdrun" -np 2 "$py" "$worker" --mode latency >"$logs/latency" 2>&1 || true
echo "# 8-byte allreduce from eager TensorFlow: $(grep -o 'us_per_call=[0-9.]*' "$logs/latency" | cut -d= -f2) us per call (median)"
