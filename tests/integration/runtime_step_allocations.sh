# A repeated step of 100 tensors allocates nothing per tensor (tests/workers/hvd_step_allocations.cc counts the
# worker's and libhvd's operator new calls over 200 cached steps at np=2): the engine's hot path stays free of
# the per-tensor allocations that once cost a third of the 100 x 40 B step.
source "$(dirname "$0")/lib.bash"

run_hvdrun 60 -np 2 "$HVD_BIN/hvd_step_allocations"
expect_rc 0 "step allocations at np=2"
n=$(grep -c "step allocations ok" <<<"$OUT" || true)
[ "$n" -eq 2 ] || fail "step allocations at np=2: $n of 2 ranks reported ok"
pass "a repeated 100-tensor step: $(grep -m1 -o '[0-9.]* per step.*' <<<"$OUT")"
