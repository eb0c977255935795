#!/usr/bin/env bash
# hvd's allreduce against Open MPI's on this machine, in one run: hvd-bench through the engine, hvd-bench --raw
# (the communicator alone) and our MPI_Allreduce program, same sizes, same method (median of timed iterations,
# slowest rank), then a table of busbw and the ratios hvd/MPI.
#   scripts/bench-collectives.sh [NP]          env: SIZES=8,64K,... BIN=build/bin TIME=0.3 (seconds per size)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
BIN=${BIN:-$here/build/bin}
NP=${1:-${NP:-2}}
SIZES=${SIZES:-8,1K,64K,256K,1M,4M,16M,32M,64M,128M,256M}
TIME=${TIME:-0.3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for tool in hvdrun hvd-bench; do
  [[ -x $BIN/$tool ]] || { echo "bench-collectives: $BIN/$tool is missing; build it (ninja -C build $tool)" >&2; exit 2; }
done

strip() { sed -E 's/^\[[0-9]+\]<stdout>://' | grep -E '^[0-9]' || true; }

echo "# np=$NP sizes=$SIZES" >&2
"$BIN/hvdrun" -np "$NP" "$BIN/hvd-bench" allreduce --sizes "$SIZES" --time "$TIME" --raw | strip >"$tmp/raw"
"$BIN/hvdrun" -np "$NP" "$BIN/hvd-bench" allreduce --sizes "$SIZES" --time "$TIME" | strip >"$tmp/engine"
if [[ -x $BIN/mpi-allreduce-bench ]] && command -v mpirun >/dev/null; then
  mpirun --allow-run-as-root --oversubscribe -np "$NP" "$BIN/mpi-allreduce-bench" --sizes "$SIZES" --time "$TIME" \
    | grep -E '^[0-9]' >"$tmp/mpi" || true
else
  echo "bench-collectives: no MPI (mpirun or mpi-allreduce-bench missing): ratios left out" >&2
  : >"$tmp/mpi"
fi

# Columns: bytes, then median_us and busbw for raw, engine, MPI; ratios of busbw.
awk '
  FNR == 1 { file++ }
  { us[file, $1] = $2; bw[file, $1] = $4; if (file == 1) order[++n] = $1 }
  END {
    printf "%12s %11s %11s %11s %10s %10s %10s %9s %9s\n", "bytes", "raw_us", "engine_us", "mpi_us",
           "raw_GBps", "eng_GBps", "mpi_GBps", "raw/mpi", "eng/mpi"
    for (i = 1; i <= n; i++) {
      b = order[i]
      m = ((3, b) in bw) ? bw[3, b] : 0
      printf "%12s %11s %11s %11s %10s %10s %10s %9s %9s\n", b, us[1, b], us[2, b], ((3, b) in us) ? us[3, b] : "-",
             bw[1, b], bw[2, b], m ? m : "-", m ? sprintf("%.2f", bw[1, b] / m) : "-",
             m ? sprintf("%.2f", bw[2, b] / m) : "-"
    }
  }' "$tmp/raw" "$tmp/engine" "$tmp/mpi"
