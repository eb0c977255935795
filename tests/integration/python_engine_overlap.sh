# HVD_ENGINE_OVERLAP (docs/performance.md "Engine overlap"), seen in what the engine does with a step's gradients
# (tests/python/engine_overlap.py: 6 gradients a step, 5 ms apart, HOROVOD_CYCLE_TIME=2000 ms). np=2 with one torch
# thread each on this machine's CPUs: no spare CPU, overlap off by default, so synchronize() takes each step's
# gradients in exactly one fused allreduce, at once (no step waits for the engine's 2 s pause). With
# HVD_ENGINE_OVERLAP=on the engine takes them as backward makes them: more allreduces than steps.
source "$(dirname "$0")/lib.bash"
source "$(dirname "$0")/python_lib.bash"
unset HVD_ENGINE_OVERLAP
cd "$TEST_TMP"

# overlap_run WHAT [hvdrun args...]: runs the probe at np=2; sets OPS, STEPS, SLOWEST_MS.
overlap_run() {
  local what=$1 line; shift
  run_hvdrun 120 -np 2 -x HOROVOD_CYCLE_TIME=2000 "$@" "$PY" "$TESTS_PY/engine_overlap.py" "$TEST_TMP/tl.json"
  expect_rc 0 "$what"
  expect_lines "overlap steps=[0-9]+ ops=[0-9]+ slowest_ms=[0-9]+" 1 "$what"
  line=$(grep -oE "overlap steps=[0-9]+ ops=[0-9]+ slowest_ms=[0-9]+" <<<"$OUT")
  STEPS=$(sed -E 's/.*steps=([0-9]+).*/\1/' <<<"$line")
  OPS=$(sed -E 's/.*ops=([0-9]+).*/\1/' <<<"$line")
  SLOWEST_MS=$(sed -E 's/.*slowest_ms=([0-9]+).*/\1/' <<<"$line")
}

overlap_run "default placement, np=2"
[ "$OPS" -eq "$STEPS" ] || fail "overlap off (the default here): $OPS allreduces for $STEPS steps, expected one a step"
[ "$SLOWEST_MS" -lt 1500 ] ||
  fail "overlap off: the slowest step took ${SLOWEST_MS} ms; synchronize() should take the burst without the 2 s pause"
pass "no spare CPU: synchronize() takes each step's gradients in one allreduce, at once (slowest step ${SLOWEST_MS} ms)"

overlap_run "HVD_ENGINE_OVERLAP=on, np=2" -x HVD_ENGINE_OVERLAP=on
[ "$OPS" -gt "$STEPS" ] || fail "HVD_ENGINE_OVERLAP=on: $OPS allreduces for $STEPS steps, expected the engine to take them as they come"
pass "HVD_ENGINE_OVERLAP=on: the engine reduces during backward ($OPS allreduces in $STEPS steps)"
