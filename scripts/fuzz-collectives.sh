#!/usr/bin/env bash
# The collective case generator (docs/testing.md, "The collective case generator"): runs seeded cases of every
# collective under hvdrun, checks each against an independent reference, shrinks what disagrees and prints the
# command that reruns it alone. Needs a built tree (scripts/build.sh or scripts/test.sh).
#   scripts/fuzz-collectives.sh                      200 cases with a new seed (printed first)
#   scripts/fuzz-collectives.sh --minutes 60         rounds of new seeds for an hour
#   scripts/fuzz-collectives.sh --seed S [--cases N] one seed again
#   scripts/fuzz-collectives.sh --case 'LINE'        one case alone
# Exits non-zero on any disagreement.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${HVD_BIN:-build/bin}
[ -x "$bin/hvd_case_runner" ] || { echo "fuzz-collectives: $bin/hvd_case_runner is missing; build first (scripts/build.sh -DHVD_FOR_TESTS=ON)" >&2; exit 2; }
exec /usr/bin/python3 tests/cases/fuzz_collectives.py --bin "$bin" "$@"
