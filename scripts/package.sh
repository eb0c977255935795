#!/usr/bin/env bash
# Builds hvd's Debian packages (cmake/Package.cmake: hvd, libhvd-torch, python3-hvd) from build/ into
# build/packages/ and lists them. Builds first (scripts/build.sh) unless NO_BUILD=1. Install with
#   apt-get install ./build/packages/*.deb
set -euo pipefail
cd "$(dirname "$0")/.."
[ "${NO_BUILD:-0}" = 1 ] || scripts/build.sh
rm -rf build/packages
(cd build && cpack -G DEB >cpack.log 2>&1) || { cat build/cpack.log >&2; echo "package: cpack failed" >&2; exit 1; }
ls build/packages/*.deb
