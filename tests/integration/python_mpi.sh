# hvd.torch on the MPI backend: tests/python/conformance.py (every op and dtype) under hvdrun --mpi -np 2, the ranks
# saying they run on MPI; and --horovod-compat reaching mpirun's workers. Skips (77) without Open MPI or an MPI build.
source "$(dirname "$0")/lib.bash"
source "$(dirname "$0")/python_lib.bash"
command -v mpirun >/dev/null || { echo "skip: mpirun is not installed"; exit 77; }
"$HVD_BIN/hvd_conformance" --mpi-built || { echo "skip: this build of hvd has no MPI backend"; exit 77; }

run_hvdrun 180 --mpi -np 2 "$PY" "$TESTS_PY/conformance.py"
expect_rc 0 "conformance under hvdrun --mpi"
expect_lines "\[1,[01]\]<stdout>:rank [01]: CPU backend mpi" 2 "the ranks' backend"
expect_lines "conformance ok rank=[01] size=2" 2 "conformance under hvdrun --mpi"
pass "every op and dtype on the MPI backend at np=2"

run_hvdrun 60 --mpi --horovod-compat -np 2 "$PY" -c \
  "import sys, horovod.torch as hvd; hvd.init(); sys.stdout.write(f'compat {hvd.size()}\\n')"
expect_rc 0 "--horovod-compat under --mpi"
expect_lines "compat 2" 2 "--horovod-compat under --mpi"
pass "--horovod-compat reaches mpirun's workers"
