# libhvd across hosts: the conformance program on 2 hosts x 2 ranks (shared memory inside each host, TCP between
# them, hierarchical allreduce), and a rank on h2 dying mid-allreduce fails the ops on h1 naming it.
source "$(dirname "$0")/multihost_lib.bash"

h0_hvdrun 600 -np 4 -H h1:2,h2:2 "$HVD_BIN/hvd_conformance" --quick
[ "$RC" -eq 0 ] || { echo "$OUT" | tail -20; echo "$ERR" | tail -20; fail "conformance across 2 hosts: exit $RC"; }
pass "conformance across h1:2,h2:2 (${ELAPSED}s)"

h0_hvdrun 300 -np 3 -H h1:2,h2:1 "$HVD_BIN/hvd_conformance" --quick
[ "$RC" -eq 0 ] || { echo "$OUT" | tail -20; echo "$ERR" | tail -20; fail "conformance on h1:2,h2:1: exit $RC"; }
pass "conformance across h1:2,h2:1, uneven hosts (${ELAPSED}s)"

# The last rank (on h2) exits 0 mid-allreduce, so hvdrun lets the survivors report.
h0_hvdrun 120 -np 3 -H h1:2,h2:1 "$HVD_BIN/hvd_peer_exit"
[ "$RC" -eq 0 ] || { echo "$OUT$ERR" | tail -20; fail "peer exit across hosts: exit $RC"; }
n=$(grep -cE "failed after [0-9.]+ s:.*rank 2" <<<"$OUT$ERR" || true)
[ "$n" -eq 2 ] || { echo "$OUT$ERR" | tail -20; fail "expected both survivors on h1 to name rank 2, got $n"; }
expect_no_job_on 10 h1 h2
pass "a rank on h2 exiting mid-allreduce fails h1's ops naming it"
