# The engine's per-step paths under real processes (tests/workers/hvd_engine_paths.cc): cached steps run by the
# submitting or waiting thread, interleaved with uncached ops, a rank that falls 120 ops behind, and joins; once
# with the default response cache and once with a cache smaller than a step (eviction and renegotiation: this
# run caught cached responses read after a negotiated put had reused their slots).
source "$(dirname "$0")/lib.bash"

run_hvdrun 120 -np 3 "$HVD_BIN/hvd_engine_paths"
expect_rc 0 "engine paths at np=3"
n=$(grep -c "engine paths ok" <<<"$OUT" || true)
[ "$n" -eq 3 ] || fail "engine paths at np=3: $n of 3 ranks reported ok"
pass "engine paths at np=3"

HOROVOD_CACHE_CAPACITY=4 run_hvdrun 120 -np 3 -x HOROVOD_CACHE_CAPACITY "$HVD_BIN/hvd_engine_paths"
expect_rc 0 "engine paths with a 4-entry cache"
pass "engine paths at np=3 with HOROVOD_CACHE_CAPACITY=4"
