#!/usr/bin/env bash
# Process sets' cost, on this machine (not a test: figures to read, with the load printed beside them).
#  1. np=4, sets {0,1} and {2,3} allreducing at once, vs two np=2 jobs side by side (same size): each set should
#     reach >= 0.9x the throughput of one np=2 job beside another;
#  2. an 8 B allreduce on the global set at np=2, with and without two extra sets registered: <= 10% apart.
# BUILD (default build), BYTES (default 1M), TIME_S (seconds per measurement, default 3), ROUNDS (default 3).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
BYTES=${BYTES:-1M}
SECONDS_PER=${TIME_S:-3}
ROUNDS=${ROUNDS:-3}
export PYTHONPATH="$PWD/$BUILD/python${PYTHONPATH:+:$PYTHONPATH}" OMP_NUM_THREADS=1
HVDRUN="$BUILD/bin/hvdrun"
BENCH=examples/python/process_set_bench.py
PY=/usr/bin/python3
uptime
for round in $(seq "$ROUNDS"); do
  echo "# round $round: np=4 sets {0,1},{2,3} at once, $BYTES"
  "$HVDRUN" -np 4 "$PY" "$BENCH" --pairs --bytes "$BYTES" --time "$SECONDS_PER" | sed 's/^/  sets: /'
  echo "# round $round: two np=2 jobs side by side, $BYTES"
  "$HVDRUN" -np 2 "$PY" "$BENCH" --bytes "$BYTES" --time "$SECONDS_PER" | sed 's/^/  job A: /' &
  "$HVDRUN" -np 2 "$PY" "$BENCH" --bytes "$BYTES" --time "$SECONDS_PER" | sed 's/^/  job B: /' &
  wait
  echo "# round $round: 8 B global allreduce at np=2, without and with two extra sets"
  "$HVDRUN" -np 2 "$PY" "$BENCH" --bytes 8 --time "$SECONDS_PER" | sed 's/^/  no extra sets: /'
  "$HVDRUN" -np 2 "$PY" "$BENCH" --bytes 8 --time "$SECONDS_PER" --extra 2 | sed 's/^/  two extra sets: /'
done
uptime
