#!/usr/bin/env bash
# The README's test command: installs what is missing, builds the test configuration (every optional part
# required), runs every test through ctest. Exits non-zero on any failure, when the tests ctest knows differ from
# tests/ctest-list.txt, and when a test skipped that tests/skips-allowed.txt does not allow to skip here.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
# The framework environments the tests use (scripts/framework-python.sh): cached outside the work tree, keyed by pins.
scripts/install-framework-env.sh mxnet tensorflow
# -DHVD_SKIP= : a reused build/ keeps cache variables, and a folder left out would drop its tests.
scripts/build.sh -DHVD_FOR_TESTS=ON -DHVD_SKIP=
scripts/test-gates.sh list build
set +e
# Tests mostly wait (handshakes, timeouts, sleeping ranks): one more than the cores at a time, at most 8; what they
# share is locked (docs/testing.md). HVD_TEST_JOBS=1 runs them one after another.
jobs=${HVD_TEST_JOBS:-$(( $(nproc) + 1 > 8 ? 8 : $(nproc) + 1 ))}
(cd build && ctest -j "$jobs" --no-tests=error --output-on-failure --timeout 900 "$@") 2>&1 | tee build/ctest.out
rc=${PIPESTATUS[0]}
set -e
scripts/test-gates.sh skips build || rc=1
exit "$rc"
