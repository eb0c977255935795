#!/usr/bin/env bash
# Configures and builds hvd into build/ (Release unless BUILD_TYPE says otherwise); executables in build/bin/.
# Arguments go to cmake's configure step. BUILD_TARGETS (space-separated) builds only those targets and what they
# need (scripts/demo.sh builds just what it runs); unset, everything is built.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-Release}" "$@"
read -r -a targets <<<"${BUILD_TARGETS:-}"
ninja -C build "${targets[@]}"
