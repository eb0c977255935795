#!/usr/bin/env bash
# Configures and builds hvd into build/ (Release unless BUILD_TYPE says otherwise); executables in build/bin/.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-Release}" "$@"
ninja -C build
