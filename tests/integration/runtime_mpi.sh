# libhvd on the Open MPI backend, started straight by mpirun (no hvdrun): the conformance program at np = 2, 3 and
# 4 (Adasum included) must report the mpi backend, and through hvdrun --mpi at np 2; asking for MPI where it cannot work fails with a clear line.
source "$(dirname "$0")/lib.bash"
skip() { echo "skip: $*"; exit 77; }

command -v mpirun >/dev/null || skip "mpirun is not installed"
"$HVD_BIN/hvd_conformance" --mpi-built || skip "this build of hvd has no MPI backend"

mpi_flags=(--oversubscribe -bind-to none -map-by slot)
[ "$(id -u)" -eq 0 ] && mpi_flags+=(--allow-run-as-root)

for np in 2 3 4; do
  OUT=$(timeout 600 mpirun "${mpi_flags[@]}" -np "$np" "$HVD_BIN/hvd_conformance" --quick 2>&1) && RC=0 || RC=$?
  ERR=$OUT
  expect_rc 0 "MPI conformance at np=$np"
  grep -q "all ops ok at np=$np on the mpi backend" <<<"$OUT" || fail "np=$np: no success line on the mpi backend: $(tail -5 <<<"$OUT")"
  grep -q "adasum: ok" <<<"$OUT" || fail "np=$np: Adasum was not checked"
  pass "MPI conformance at np=$np"
done

# MPI starts once per process: a second hvd::init() after hvd::shutdown() is refused with the reason, no crash.
OUT=$(timeout 120 mpirun "${mpi_flags[@]}" -np 2 "$HVD_BIN/hvd_reinit" 2>&1) && RC=0 || RC=$?
ERR=$OUT
expect_rc 0 "init, shutdown, init under mpirun"
[ "$(grep -c "first init: rank [01] of 2 on mpi" <<<"$OUT")" -eq 2 ] || fail "first init: $OUT"
[ "$(grep -c "second init refused: .*MPI was already finalized.*call hvd::init() once per process" <<<"$OUT")" -eq 2 ] ||
  fail "second init: $OUT"
pass "a second hvd::init() on MPI is refused with the reason"

# The same program through hvdrun --mpi (which builds the mpirun command) lands on the same backend.
run_hvdrun 600 --mpi -np 2 "$HVD_BIN/hvd_conformance" --quick
expect_rc 0 "hvdrun --mpi conformance at np=2"
grep -q "all ops ok at np=2 on the mpi backend" <<<"$OUT" || fail "hvdrun --mpi: no success line on the mpi backend"
pass "hvdrun --mpi -np 2: conformance on the mpi backend"

# Ranks started by hvdrun (not mpirun) cannot use MPI: a clear error on every rank, not a job of size-1 worlds.
HOROVOD_CPU_OPERATIONS=mpi run_hvdrun 60 -np 2 "$HVD_BIN/hvd_conformance" --quick
[ "$RC" -ne 0 ] || fail "HOROVOD_CPU_OPERATIONS=mpi under plain hvdrun succeeded"
expect_err "needs ranks started by mpirun" "MPI asked for under plain hvdrun"
expect_err "hvdrun --mpi" "MPI asked for under plain hvdrun"
pass "HOROVOD_CPU_OPERATIONS=mpi without mpirun is refused"

# The reverse: ranks mpirun started asking for the built-in backend would each be a job of one; refused.
OUT=$(HOROVOD_CONTROLLER=gloo timeout 120 mpirun "${mpi_flags[@]}" -np 2 "$HVD_BIN/hvd_conformance" --quick 2>&1) &&
  RC=0 || RC=$?
[ "$RC" -ne 0 ] || fail "HOROVOD_CONTROLLER=gloo under mpirun succeeded: $(grep 'all ops ok' <<<"$OUT")"
grep -q "started by mpirun (OMPI_COMM_WORLD_SIZE=2) but the builtin backend was asked for" <<<"$OUT" ||
  fail "HOROVOD_CONTROLLER=gloo under mpirun: no clear error: $(tail -5 <<<"$OUT")"
pass "HOROVOD_CONTROLLER=gloo under mpirun is refused, not run as jobs of one"

HOROVOD_CONTROLLER=mpi HOROVOD_CPU_OPERATIONS=builtin run_hvdrun 60 -np 1 "$HVD_BIN/hvd_conformance" --quick
[ "$RC" -ne 0 ] || fail "contradicting HOROVOD_CONTROLLER/HOROVOD_CPU_OPERATIONS succeeded"
expect_err "disagree" "contradicting backend variables"
pass "contradicting backend variables are refused"
