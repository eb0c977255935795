#!/usr/bin/env bash
# The GPU checks, for a machine with a GPU: the GPU conformance program at np=1 and hvd-bench --gpu allreduce at
# np=1 (NCCL at one rank still runs the whole path: setup, stream, fusion buffer, completion thread).
#   scripts/gpu-check.sh BIN_DIR [LIB_DIR]
# BIN_DIR: a build's bin/ (hvdrun, hvd-agent, hvd_gpu_conformance, hvd-bench); libhvd.so is looked for in
# BIN_DIR/../lib. LIB_DIR (default BIN_DIR/../carried-libs): shared libraries carried from the build machine,
# put first on LD_LIBRARY_PATH. From a Debian 12 build, `ldd build/bin/hvd-bench build/lib/libhvd.so
# build/bin/hvdrun` names what the GPU machine may lack: libspdlog.so.1.10, libfmt.so.9, libssh.so.4 (hvdrun, with
# libgssapi_krb5.so.2 libkrb5.so.3 libk5crypto.so.3 libkrb5support.so.0 libkeyutils.so.1 libcom_err.so.2), and
# libcrypto.so.3 and libstdc++.so.6 where the machine's are older. CUDA and NCCL come from the machine: its
# Python packages (nvidia-nccl-cu13, nvidia-cuda-runtime) hold libnccl.so.2 and libcudart.so.13; this script
# finds them under site-packages and puts their folders on LD_LIBRARY_PATH too.
# Exit: 0 all passed; 77 no GPU visible; otherwise the first failure's code.
set -uo pipefail

BIN=${1:?usage: scripts/gpu-check.sh BIN_DIR [LIB_DIR]}
BIN=$(cd "$BIN" && pwd)
LIBS=${2:-$BIN/../carried-libs}

find_lib_dirs() {  # prints the folders holding $1 in Python's site-packages and the usual library places
  local roots=()
  for r in $(python3 -c 'import site, sys; print(" ".join(site.getsitepackages() + [site.getusersitepackages()]))' 2>/dev/null) \
      /usr/local/lib/python3*/dist-packages /usr/local/lib/python3*/site-packages /usr/lib/python3/dist-packages \
      "$HOME"/.local/lib/python3*/site-packages; do
    [ -d "$r" ] && roots+=("$r")
  done
  [ ${#roots[@]} -gt 0 ] && find "${roots[@]}" -name "$1" -printf '%h\n' 2>/dev/null | sort -u
}

dirs=()
[ -d "$LIBS" ] && dirs+=("$(cd "$LIBS" && pwd)")
[ -d "$BIN/../lib" ] && dirs+=("$(cd "$BIN/../lib" && pwd)")
for lib in libnccl.so.2 libcudart.so.13; do
  while read -r d; do [ -n "$d" ] && dirs+=("$d"); done < <(find_lib_dirs "$lib")
done
LD_LIBRARY_PATH=$(IFS=:; echo "${dirs[*]}")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export LD_LIBRARY_PATH
echo "# LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
for exe in hvdrun hvd-agent hvd_gpu_conformance hvd-bench; do
  [ -x "$BIN/$exe" ] || { echo "gpu-check: $BIN/$exe is missing" >&2; exit 2; }
  # Captured first: with pipefail, `ldd | grep -q` can read as "nothing missing" when grep's early exit makes
  # ldd die of SIGPIPE.
  missing=$(ldd "$BIN/$exe" 2>&1 | grep "not found")
  if [ -n "$missing" ]; then
    echo "gpu-check: $exe lacks libraries (carry them in $LIBS):" >&2
    echo "$missing" >&2
    exit 2
  fi
done
command -v nvidia-smi >/dev/null && nvidia-smi -L

rc=0
echo "## GPU conformance, np=1"
timeout -k 5 300 "$BIN/hvdrun" -np 1 "$BIN/hvd_gpu_conformance"
rc=$?
[ $rc -eq 77 ] && { echo "gpu-check: no GPU visible (skip)"; exit 77; }
[ $rc -ne 0 ] && { echo "gpu-check: GPU conformance failed (exit $rc)" >&2; exit $rc; }

echo "## hvd-bench --gpu allreduce, np=1"
timeout -k 5 240 "$BIN/hvdrun" -np 1 "$BIN/hvd-bench" allreduce --gpu --min 8 --max 256M --factor 8 --time 0.2
rc=$?
[ $rc -ne 0 ] && { echo "gpu-check: hvd-bench --gpu failed (exit $rc)" >&2; exit $rc; }
echo "## hvd-bench --gpu allreduce, 64 tensors per step (fused), np=1"
timeout -k 5 120 "$BIN/hvdrun" -np 1 "$BIN/hvd-bench" allreduce --gpu --tensors 64 --sizes 1M,64M --time 0.2
rc=$?
[ $rc -ne 0 ] && { echo "gpu-check: hvd-bench --gpu --tensors failed (exit $rc)" >&2; exit $rc; }
# hvd.torch with CUDA tensors, where this machine's Python has a CUDA-enabled torch of the release hvd_torch was
# built against and the build's Python package came along (BIN_DIR/../python).
PYDIR="$BIN/../python"
if ls "$PYDIR"/hvd/torch/_C*.so >/dev/null 2>&1 &&
   PYTHONPATH="$PYDIR" python3 -c 'import torch, hvd.torch; assert torch.cuda.is_available()' 2>/dev/null; then
  echo "## hvd.torch: CUDA tensors and DistributedOptimizer, np=1"
  PYTHONPATH="$PYDIR" timeout -k 5 120 "$BIN/hvdrun" -np 1 python3 "$(dirname "$0")/../tests/python/gpu.py"
  rc=$?
  [ $rc -ne 0 ] && { echo "gpu-check: hvd.torch GPU check failed (exit $rc)" >&2; exit $rc; }
else
  echo "## hvd.torch: skipped (no build/python here, or this Python's torch cannot load it or has no CUDA)"
fi
echo "gpu-check: all passed"
