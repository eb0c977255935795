#!/usr/bin/env bash
# The README's first command: installs what is missing, builds what the demo runs, trains Horovod's MNIST network on
# Fashion-MNIST with two ranks for one epoch on this machine, and prints the final test accuracy.
# Extra arguments go to train_fashion_mnist (e.g. `scripts/demo.sh --epochs 3`).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
# Only what the demo runs: the launcher, the agent it starts, and the example (which pulls in libhvd and hvd_torch).
# The tests, benchmarks and the Python package are built by scripts/test.sh or scripts/build.sh.
BUILD_TARGETS="hvdrun hvd-agent train_fashion_mnist" scripts/build.sh
if [ ! -x build/bin/train_fashion_mnist ]; then
  echo "demo: build/bin/train_fashion_mnist was not built (is libtorch-dev installed? see cmake's output)" >&2
  exit 1
fi
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
build/bin/hvdrun -np 2 build/bin/train_fashion_mnist --epochs 1 "$@" | tee "$log"
accuracy="$(grep -o 'Test set: Average loss: [0-9.]*, Accuracy: [0-9.]*%' "$log" | tail -1 | sed 's/.*Accuracy: //')"
if [ -z "$accuracy" ]; then
  echo "demo: no 'Test set' line in the output" >&2
  exit 1
fi
echo "demo: final test accuracy with 2 ranks: $accuracy"
