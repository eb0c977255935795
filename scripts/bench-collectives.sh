#!/usr/bin/env bash
# hvd's allreduce against Open MPI's on this machine, in one run: hvd-bench through the engine, hvd-bench --raw
# (the communicator alone), hvd-bench under mpirun (the engine on the MPI backend) and our MPI_Allreduce program,
# same sizes, same method (median of timed iterations, slowest rank), then a table of busbw and the ratios.
#   scripts/bench-collectives.sh [NP]   env: SIZES=8,64K,... BIN=build/bin TIME=0.3 (seconds per size) ROUNDS=1
# Every column is the median over ROUNDS rounds; hvdmpi_x is the median of each round's hvd-on-MPI / MPI time.
# Then a training step through the engine, 100 tensors submitted as one batch (hvd-bench --tensors 100), beside one
# raw allreduce of the step's whole size in the same round: step_x is the median of the rounds' step / raw ratios
# (issue targets: 100 x 40 KiB <= 1.3x the raw 4 MiB allreduce; 100 x 40 B <= 60 us).
# Last, the data plane against memory: hvd-bench memcpy (every rank copies its buffer at once, same sizes and
# method) in the same rounds; mem_x is the median of the rounds' raw busbw / memcpy GB/s (target >= 0.5 from 1 MiB).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
BIN=${BIN:-$here/build/bin}
NP=${1:-${NP:-2}}
SIZES=${SIZES:-8,1K,64K,256K,1M,4M,16M,32M,64M,128M,256M}
TIME=${TIME:-0.3}
ROUNDS=${ROUNDS:-1}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for tool in hvdrun hvd-bench; do
  [[ -x $BIN/$tool ]] || { echo "bench-collectives: $BIN/$tool is missing; build it (ninja -C build $tool)" >&2; exit 2; }
done

strip() { sed -E 's/^\[[0-9]+\]<stdout>://' | grep -E '^[0-9]' || true; }

echo "# np=$NP sizes=$SIZES rounds=$ROUNDS" >&2
mpi_flags=(--oversubscribe -bind-to none -map-by slot)
[[ $(id -u) -eq 0 ]] && mpi_flags+=(--allow-run-as-root)
have_mpi=false
if [[ -x $BIN/mpi-allreduce-bench ]] && command -v mpirun >/dev/null; then
  have_mpi=true
else
  echo "bench-collectives: no MPI (mpirun or mpi-allreduce-bench missing): MPI columns left out" >&2
fi
: >"$tmp/raw"; : >"$tmp/engine"; : >"$tmp/hvdmpi"; : >"$tmp/mpi"; : >"$tmp/step"; : >"$tmp/stepraw"; : >"$tmp/memcpy"
# Each round runs all four side by side, so a drift of the machine (this VM's MPI times swing 2x between runs)
# hits them alike; lines are "round bytes median_us algbw busbw".
tag() { grep -E '^[0-9]' | awk -v r="$1" '{ print r, $0 }' || true; }
for ((round = 1; round <= ROUNDS; round++)); do
  "$BIN/hvdrun" -np "$NP" "$BIN/hvd-bench" allreduce --sizes "$SIZES" --time "$TIME" --raw | strip | tag $round >>"$tmp/raw"
  "$BIN/hvdrun" -np "$NP" "$BIN/hvd-bench" allreduce --sizes "$SIZES" --time "$TIME" | strip | tag $round >>"$tmp/engine"
  if $have_mpi; then
    # hvd-bench under mpirun runs libhvd on its MPI backend: the engine's cost over MPI_Allreduce itself.
    mpirun "${mpi_flags[@]}" -np "$NP" "$BIN/hvd-bench" allreduce --sizes "$SIZES" --time "$TIME" | tag $round >>"$tmp/hvdmpi"
    mpirun "${mpi_flags[@]}" -np "$NP" "$BIN/mpi-allreduce-bench" --sizes "$SIZES" --time "$TIME" | tag $round >>"$tmp/mpi"
  fi
  "$BIN/hvdrun" -np "$NP" "$BIN/hvd-bench" allreduce --sizes 4000,4M --tensors 100 --time "$TIME" | strip | tag $round >>"$tmp/step"
  "$BIN/hvdrun" -np "$NP" "$BIN/hvd-bench" allreduce --sizes 4000,4M --time "$TIME" --raw | strip | tag $round >>"$tmp/stepraw"
  "$BIN/hvdrun" -np "$NP" "$BIN/hvd-bench" memcpy --sizes "$SIZES" --time "$TIME" | strip | tag $round >>"$tmp/memcpy"
done

# The awk function the three tables below share: the median of a space-separated list of numbers ("" if empty).
MEDIAN_AWK='
  function median(list,    a, k, i, j, t) {
    k = split(list, a, " ")
    for (i = 2; i <= k; i++) for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
    return k == 0 ? "" : (k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2)
  }
'

# Columns: bytes; median us of the built-in communicator alone (raw), the engine on it, the engine on the MPI
# backend (hvd/mpi) and MPI_Allreduce (mpi); busbw ratios against MPI; and mpi_us over hvd/mpi's, the MPI
# backend's overhead (issue target: <= 1.10 from 1 MiB up).
awk "$MEDIAN_AWK"'
  FNR == 1 { file++ }
  {
    us[file, $2] = us[file, $2] " " $3; bw[file, $2] = bw[file, $2] " " $5; t[file, $1, $2] = $3
    if (file == 1 && !seen[$2]++) order[++n] = $2
  }
  function val(f, b) { return ((f, b) in us) ? median(us[f, b]) : "-" }
  END {
    printf "%12s %10s %10s %10s %10s %9s %9s %9s %9s %9s\n", "bytes", "raw_us", "engine_us", "hvdmpi_us",
           "mpi_us", "raw_GBps", "mpi_GBps", "raw/mpi", "eng/mpi", "hvdmpi_x"
    for (i = 1; i <= n; i++) {
      b = order[i]
      m = ((4, b) in bw) ? median(bw[4, b]) : 0
      ratios = ""
      for (r = 1; (3, r, b) in t && (4, r, b) in t; r++) if (t[4, r, b] > 0) ratios = ratios " " t[3, r, b] / t[4, r, b]
      x = ratios == "" ? "-" : sprintf("%.3f", median(ratios))
      printf "%12s %10s %10s %10s %10s %9s %9s %9s %9s %9s\n", b, val(1, b), val(2, b), val(3, b), val(4, b),
             median(bw[1, b]), m ? m : "-", m ? sprintf("%.2f", median(bw[1, b]) / m) : "-",
             m ? sprintf("%.2f", median(bw[2, b]) / m) : "-", x
    }
  }' "$tmp/raw" "$tmp/engine" "$tmp/hvdmpi" "$tmp/mpi"

echo
awk "$MEDIAN_AWK"'
  function range(list,    a, k, i, lo, hi) {
    k = split(list, a, " "); lo = hi = a[1]
    for (i = 2; i <= k; i++) { if (a[i] + 0 < lo + 0) lo = a[i]; if (a[i] + 0 > hi + 0) hi = a[i] }
    return lo "-" hi
  }
  FNR == 1 { file++ }
  { us[file, $2] = us[file, $2] " " $3; t[file, $1, $2] = $3 }
  END {
    printf "%-22s %10s %14s %10s %16s %8s\n", "step (one batch)", "step_us", "step_range", "raw_us", "(raw: one op of)", "step_x"
    split("4000 4194304", b, " "); split("100x40B 100x40KiB", label, " ")
    for (i = 1; i <= 2; i++) {
      ratios = ""
      for (r = 1; (1, r, b[i]) in t && (2, r, b[i]) in t; r++) if (t[2, r, b[i]] > 0) ratios = ratios " " t[1, r, b[i]] / t[2, r, b[i]]
      printf "%-22s %10s %14s %10s %16s %8s\n", label[i], median(us[1, b[i]]), range(us[1, b[i]]), median(us[2, b[i]]),
             b[i] " B", ratios == "" ? "-" : sprintf("%.2f", median(ratios))
    }
  }' "$tmp/step" "$tmp/stepraw"

echo
awk "$MEDIAN_AWK"'
  FNR == 1 { file++ }
  { bw[file, $2] = bw[file, $2] " " $5; g[file, $1, $2] = $5; if (file == 1 && !seen[$2]++) order[++n] = $2 }
  END {
    printf "%12s %10s %12s %8s\n", "bytes", "raw_GBps", "memcpy_GBps", "mem_x"
    for (i = 1; i <= n; i++) {
      b = order[i]; ratios = ""
      for (r = 1; (1, r, b) in g && (2, r, b) in g; r++) if (g[2, r, b] > 0) ratios = ratios " " g[1, r, b] / g[2, r, b]
      printf "%12s %10s %12s %8s\n", b, median(bw[1, b]), median(bw[2, b]), ratios == "" ? "-" : sprintf("%.2f", median(ratios))
    }
  }' "$tmp/raw" "$tmp/memcpy"
