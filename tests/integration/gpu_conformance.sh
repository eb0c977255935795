# libhvd on GPU tensors (the NCCL backend) under hvdrun: the conformance program at np=1, and at np=2 when this
# machine has two GPUs (NCCL needs one device per rank). Skips (77) without a GPU or without an NCCL build.
source "$(dirname "$0")/lib.bash"

WORKER_GPU="$HVD_BIN/hvd_gpu_conformance"
if [ ! -x "$WORKER_GPU" ]; then
  echo "skip: $WORKER_GPU is not built (this build has no NCCL: -DHVD_WITH_NCCL=ON)"
  exit 77
fi
gpus=0
if command -v nvidia-smi >/dev/null 2>&1; then gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true); fi
if [ "$gpus" -eq 0 ]; then
  # nvidia-smi may be missing where the driver is not: the program's own probe decides.
  run_hvdrun 120 -np 1 "$WORKER_GPU"
  if [ "$RC" -eq 77 ]; then echo "skip: no CUDA device visible (${OUT})"; exit 77; fi
  expect_rc 0 "GPU conformance at np=1"
  pass "GPU conformance at np=1"
  exit 0
fi
for np in 1 2; do
  if [ "$np" -gt "$gpus" ]; then echo "note: np=$np skipped: $gpus GPU(s)"; continue; fi
  run_hvdrun 300 -np "$np" "$WORKER_GPU"
  expect_rc 0 "GPU conformance at np=$np"
  echo "$OUT" | tail -12
  pass "GPU conformance at np=$np"
done
