#!/usr/bin/env bash
# Error kinds over TCP between hosts: a rank on h2 that exits mid-job is HVD_ERROR_PEER_LOST on both ranks of h1
# (the shared-memory path is in runtime_error_kinds).
source "$(dirname "$0")/multihost_lib.bash"

# The last rank (on h2) exits 0, so hvdrun lets the survivors report.
h0_hvdrun 120 -np 3 -H h1:2,h2:1 "$HVD_BIN/hvd_error_kinds" peer-lost
[ "$RC" -eq 0 ] || { echo "$OUT$ERR" | tail -20; fail "peer-lost kinds across hosts: exit $RC"; }
n=$(grep -c "kind peer-lost" <<<"$OUT" || true)
[ "$n" -eq 2 ] || { echo "$OUT$ERR" | tail -20; fail "expected both ranks on h1 to report kind peer-lost, got $n"; }
expect_no_job_on 10 h1 h2
pass "a rank on h2 exiting mid-job is kind peer-lost on h1's ranks"
