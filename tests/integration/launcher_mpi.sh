# hvdrun --mpi runs the job with Open MPI's mpirun; hvdrun --check-build says what this build has.
# Errors first (they need no MPI), then real jobs, which skip (exit 77) where Open MPI's mpirun is not installed.
source "$(dirname "$0")/lib.bash"

# hvdrun_with_path PATH ARGS...: hvdrun that sees only that PATH (the test's own tools keep theirs).
cat >"$TEST_TMP/hvdrun_with_path" <<SH
#!/bin/sh
PATH="\$1"; shift; exec "$HVDRUN" "\$@"
SH
chmod +x "$TEST_TMP/hvdrun_with_path"
run_with_path() {  # run_with_path LIMIT_S PATH ARGS...
  local limit=$1; shift
  HVDRUN="$TEST_TMP/hvdrun_with_path" run_hvdrun "$limit" "$@"
}
expect_one_line() { [ "$(wc -l <<<"$ERR")" -eq 1 ] || fail "$1: expected one line on stderr, got: $ERR"; }

# No mpirun in PATH: one line naming PATH and the fixes; nothing runs.
mkdir -p "$TEST_TMP/no-mpi"
run_with_path 20 "$TEST_TMP/no-mpi" --mpi -np 2 sh -c 'echo ran'
expect_rc 6 "--mpi without mpirun"
expect_err "no mpirun in PATH ($TEST_TMP/no-mpi)" "--mpi without mpirun"
expect_err "apt-get install openmpi-bin" "--mpi without mpirun"
expect_err "drop --mpi" "--mpi without mpirun"
expect_one_line "--mpi without mpirun"
pass "no mpirun in PATH -> exit 6, one line naming PATH and the fix"

# An MPICH (HYDRA) mpirun first in PATH: refused, naming what it is; it is never run with the job.
mkdir -p "$TEST_TMP/hydra"
cat >"$TEST_TMP/hydra/mpirun" <<'SH'
#!/bin/sh
[ "$1" = --version ] || { echo "fake MPICH mpirun was run with the job: $*"; exit 99; }
printf 'HYDRA build details:\n    Version:                                 4.0.2\n'
SH
chmod +x "$TEST_TMP/hydra/mpirun"
run_with_path 20 "$TEST_TMP/hydra:$PATH" --mpi -np 2 sh -c 'echo ran'
expect_rc 6 "--mpi with MPICH's mpirun"
expect_err "$TEST_TMP/hydra/mpirun is not Open MPI" "--mpi with MPICH's mpirun"
expect_err "HYDRA build details:" "--mpi with MPICH's mpirun"
expect_one_line "--mpi with MPICH's mpirun"
[ -z "$OUT" ] || fail "the MPICH mpirun ran the job: $OUT"
HVD_MPIRUN="$TEST_TMP/hydra/mpirun" run_hvdrun 20 --mpi -np 2 sh -c 'echo ran'
expect_rc 6 "HVD_MPIRUN=MPICH's mpirun"
expect_err "is not Open MPI" "HVD_MPIRUN=MPICH's mpirun"
pass "an MPICH (HYDRA) mpirun, in PATH or HVD_MPIRUN -> exit 6 naming what it found"

# Flags for hvdrun's own agents, and a bad --mpi-args quote, are bad input.
run_hvdrun 20 --mpi --kill-grace 3 -np 2 sh -c 'echo ran'
expect_rc 2 "--mpi --kill-grace"
expect_err "--kill-grace does not apply with --mpi" "--mpi --kill-grace"
run_hvdrun 20 --mpi --mpi-args "-x 'A=b" -np 2 sh -c 'echo ran'
expect_rc 2 "--mpi-args with an open quote"
expect_err "--mpi-args '-x 'A=b': a ' is not closed" "--mpi-args with an open quote"
expect_one_line "--mpi-args with an open quote"
pass "agent-only flags and an unclosed --mpi-args quote -> exit 2"

# --check-build: exactly what CMake found for this build (its generated build_info.h), and exit 0.
BUILD_INFO="$HVD_BIN/../launcher/generated/launcher/checks/build_info.h"
[ -f "$BUILD_INFO" ] || fail "no $BUILD_INFO: is HVD_BIN a build tree's bin/?"
info() { sed -n "s/.*$1 = \"\{0,1\}\([^\";]*\)\"\{0,1\};.*/\1/p" "$BUILD_INFO"; }
run_hvdrun 20 --check-build
expect_rc 0 "--check-build"
want_line() { grep -qxF -- "$1" <<<"$OUT" || { echo "$OUT"; fail "--check-build lacks the line '$1'"; }; }
want_line "    [X] TCP/shared memory"
if [ "$(info kMpi)" = 1 ]; then
  want_line "    [X] MPI ($(info kMpiVersion))"
  [ "$(grep -cxF "    [X] MPI ($(info kMpiVersion))" <<<"$OUT")" -eq 2 ] || fail "MPI is not both controller and operations"
else
  want_line "    [ ] MPI"
fi
if [ "$(info kNccl)" = 1 ]; then
  want_line "    [X] NCCL ($(info kNcclVersion), CUDA $(info kCudaVersion))"
else
  want_line "    [ ] NCCL"
fi
if [ "$(info kTorch)" = 1 ]; then want_line "    [X] LibTorch ($(info kTorchVersion))"; else want_line "    [ ] LibTorch"; fi
grep -q "^hvd v" <<<"$OUT" || fail "--check-build does not print the version: $OUT"
pass "--check-build lists what CMake found (MPI $(info kMpi) $(info kMpiVersion), NCCL $(info kNccl)) and exits 0"

MPIRUN="$(command -v mpirun || true)"
if [ -z "$MPIRUN" ] || ! "$MPIRUN" --version 2>&1 | grep -q "(Open MPI)"; then
  echo "SKIP: the jobs under --mpi need Open MPI's mpirun (apt-get install openmpi-bin)" >&2
  exit 77
fi
want_line "mpirun for --mpi:             $MPIRUN (Open MPI $("$MPIRUN" --version | sed -n 's/.*(Open MPI) //p'))"
pass "--check-build names the mpirun in PATH and its version"

# Every rank runs under mpirun and its output comes back tagged with its rank.
run_hvdrun 60 --mpi -np 2 sh -c 'echo rank=$OMPI_COMM_WORLD_RANK size=$OMPI_COMM_WORLD_SIZE'
expect_rc 0 "--mpi -np 2"
for r in 0 1; do
  grep -qE "^\[[0-9]+,$r\]<stdout>:rank=$r size=2$" <<<"$OUT" || { echo "$OUT"; fail "rank $r did not report"; }
done
pass "--mpi -np 2: both ranks ran under mpirun, output tagged by rank"

# --verbose shows the command; HOROVOD_* goes by name, -x and --mpi-args reach the workers; the secret does not.
# hvdrun's own job variables (here as if inherited from an outer hvdrun job) reach no rank, local ones included.
export HOROVOD_FUSION_THRESHOLD=1048576
HVD_SECRET=s3cret HVD_STORE_ADDR=127.0.0.1:1 HOROVOD_RANK=0 HOROVOD_SIZE=1 \
  run_hvdrun 60 --mpi --verbose -np 2 -x FOO=bar --mpi-args "-x BAZ=qux" \
  sh -c 'echo "env $HOROVOD_FUSION_THRESHOLD $FOO $BAZ ${HVD_SECRET:-no-secret} ${HVD_STORE_ADDR:-no-store} ${HOROVOD_RANK:-no-rank}"'
unset HOROVOD_FUSION_THRESHOLD
expect_rc 0 "--mpi --verbose -x --mpi-args"
expect_err "-bind-to none -map-by slot" "--verbose"
expect_err "-x HOROVOD_FUSION_THRESHOLD " "--verbose"
expect_err "-x FOO=bar -x BAZ=qux sh -c " "--verbose"
[ "$(grep -cE "^\[[0-9]+,[01]\]<stdout>:env 1048576 bar qux no-secret no-store no-rank$" <<<"$OUT")" -eq 2 ] ||
  { echo "$OUT"; fail "workers lack HOROVOD_FUSION_THRESHOLD, -x FOO=bar or --mpi-args -x BAZ=qux, or see HVD_*/HOROVOD_RANK"; }
pass "--verbose prints the mpirun command; HOROVOD_*, -x and --mpi-args reach the workers"

# A rank that fails: mpirun stops the job and its exit code (the rank's, 3) is hvdrun's.
run_hvdrun 60 --mpi -np 2 sh -c '[ "$OMPI_COMM_WORLD_RANK" = 1 ] && exit 3; sleep 30'
expect_rc 3 "--mpi with rank 1 exiting 3"
pass "a rank exiting 3 -> mpirun stops the job, hvdrun exits 3"
