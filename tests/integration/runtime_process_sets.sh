# Process sets in the C++ runtime (tests/workers/hvd_process_sets.cc) at np 2 and 3: static sets and every op on
# them, a rank outside a set refused naming the set and its ranks, sets negotiating alone (rank 1 stopped with
# SIGSTOP while set 2's ranks run ops), dynamic add/remove with HOROVOD_DYNAMIC_PROCESS_SETS=1, bad rank lists and
# a remove with an op in flight refused naming the value, the job going on after each; then the static case on
# the MPI backend (split communicators) under hvdrun --mpi.
source "$(dirname "$0")/lib.bash"

for np in 2 3; do
  for mode in static dynamic off bad-init; do
    dir="$TEST_TMP/$mode.$np"
  mkdir -p "$dir"
    if [ "$mode" = dynamic ]; then export HOROVOD_DYNAMIC_PROCESS_SETS=1; else unset HOROVOD_DYNAMIC_PROCESS_SETS; fi
    run_hvdrun 120 -np "$np" "$HVD_BIN/hvd_process_sets" "$mode" "$dir"
    expect_rc 0 "$mode at np=$np"
    [ "$(grep -c "process sets ok $mode rank=[0-9] size=$np" <<<"$OUT")" -eq "$np" ] ||
    { echo "$OUT"; echo "$ERR"; fail "$mode at np=$np: not every rank reported"; }
    pass "$mode process sets at np=$np"
  done
done
unset HOROVOD_DYNAMIC_PROCESS_SETS

# The test configuration requires Open MPI (cmake/TestConfiguration.cmake).
for mode in static dynamic; do
  dir="$TEST_TMP/mpi.$mode"
  mkdir -p "$dir"
  if [ "$mode" = dynamic ]; then export HOROVOD_DYNAMIC_PROCESS_SETS=1; fi
  run_hvdrun 120 --mpi -np 3 "$HVD_BIN/hvd_process_sets" "$mode" "$dir"
  expect_rc 0 "$mode on MPI at np=3"
  [ "$(grep -oE "process sets ok $mode rank=[0-9] size=3" <<<"$OUT" | wc -l)" -eq 3 ] ||
    { echo "$OUT"; echo "$ERR"; fail "$mode on MPI at np=3: not every rank reported"; }
  pass "$mode process sets on the MPI backend at np=3"
done
