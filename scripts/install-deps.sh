#!/usr/bin/env bash
# Installs every Debian package hvd needs to build, test and run its main job.
# Idempotent: does nothing when all are present; runs `apt-get update` only when something is missing.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config help2man
  libssh-dev libcli11-dev libspdlog-dev nlohmann-json3-dev libasio-dev nettle-dev libssl-dev doctest-dev zlib1g-dev
  openmpi-bin libopenmpi-dev
  openssh-client openssh-server iproute2 procps
  slurm-wlm munge
  libtorch-dev dataset-fashion-mnist
  python3-torch python3-dev pybind11-dev
)

# `install-deps.sh bench` adds what the benchmarks alone need: torchvision's resnet18 (bench-torch-ddp.sh), and the
# BLAS a PyTorch user has: apt installs libopenblas0 with python3-torch (a Recommends), while the --no-install-recommends
# below leaves torch on the reference BLAS, whose 2-3x slower matrix products would hide what the exchange costs.
if [ "${1:-}" = bench ]; then packages+=(python3-torchvision libopenblas0); fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$'; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "install-deps: installing ${missing[*]}" >&2
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
