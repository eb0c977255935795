# A GPU tensor where no GPU is visible: both ranks of an np=2 job get a clear hvd::Error on the handle (naming
# the tensor, the device and that no CUDA device / no NCCL is available), CPU ops around it work, the job exits
# cleanly and promptly. Skips (77) where a GPU is visible: gpu_conformance.sh covers that machine.
# HVD_GPU_ABSENT_WORKER picks the worker of another build (e.g. build-nonccl/bin/hvd_gpu_absent, whose message
# is "no NCCL" instead of "no CUDA device").
source "$(dirname "$0")/lib.bash"

if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
  echo "skip: a GPU is visible here; gpu_absent is for machines without one"
  exit 77
fi
WORKER_ABSENT=${HVD_GPU_ABSENT_WORKER:-$HVD_BIN/hvd_gpu_absent}
[ -x "$WORKER_ABSENT" ] || fail "$WORKER_ABSENT is not built (ninja hvd_gpu_absent)"

run_hvdrun 60 -np 2 "$WORKER_ABSENT"
expect_rc 0 "GPU tensor without a GPU at np=2"
for r in 0 1; do
  grep -q "^\[$r\]<stdout>:rank $r: gpu_absent ok" <<<"$OUT" || { echo "$OUT"; echo "$ERR"; fail "rank $r did not finish"; }
  grep -q "^\[$r\]<stdout>:rank $r: allreduce 'gpu.x': GPU tensor on device 0 but" <<<"$OUT" ||
    { echo "$OUT"; fail "rank $r: no clear error for allreduce 'gpu.x'"; }
done
pass "GPU tensor without a GPU at np=2: clear errors, CPU ops around them work"
