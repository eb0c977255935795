# Process sets from Python (tests/python/process_sets.py) at np 2 and 3, through hvd.torch and through the horovod
# shim (hvdrun --horovod-compat): static sets from init(process_sets=...) with every op taking process_set=,
# DistributedOptimizer and the broadcast helpers among a set, ranks outside a set refused naming it; dynamic sets
# (HOROVOD_DYNAMIC_PROCESS_SETS=1) added and removed with Horovod's return values, bad rank lists refused.
source "$(dirname "$0")/lib.bash"
source "$(dirname "$0")/python_lib.bash"

for np in 2 3; do
  for mode in static dynamic; do
    if [ "$mode" = dynamic ]; then export HOROVOD_DYNAMIC_PROCESS_SETS=1; else unset HOROVOD_DYNAMIC_PROCESS_SETS; fi
    run_hvdrun 180 -np "$np" "$PY" "$TESTS_PY/process_sets.py" "$mode"
    expect_rc 0 "$mode through hvd.torch at np=$np"
    expect_lines "process sets ok $mode rank=[0-9] size=$np" "$np" "$mode through hvd.torch at np=$np"
    pass "$mode process sets through hvd.torch at np=$np"

    PARITY_MODULE=horovod.torch run_hvdrun 180 --horovod-compat -np "$np" "$PY" "$TESTS_PY/process_sets.py" "$mode"
    expect_rc 0 "$mode through horovod.torch at np=$np"
    expect_lines "process sets ok $mode rank=[0-9] size=$np" "$np" "$mode through horovod.torch at np=$np"
    pass "$mode process sets through horovod.torch (--horovod-compat) at np=$np"
  done
done
