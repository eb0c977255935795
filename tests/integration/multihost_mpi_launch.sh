# hvdrun --mpi across hosts: Open MPI's mpirun, started inside h0, runs 2 ranks on each of h1 and h2 over the
# cluster's SSH config (mapped into -mca plm_rsh_args) and the cluster's interface (--network-interface eth0,
# mapped into btl_tcp_if_include and oob_tcp_if_include); a failing rank stops the job everywhere.
# libhvd's conformance program then runs on the MPI backend across h1 and h2, with MPI's local and cross
# communicators checked against the placement. To add a program: mpi_on_cluster LIMIT_S PROGRAM ARGS..., check OUT.
source "$(dirname "$0")/multihost_lib.bash"

command -v mpirun >/dev/null && mpirun --version 2>&1 | grep -q "(Open MPI)" ||
  skip "hvdrun --mpi needs Open MPI's mpirun on every host (apt-get install openmpi-bin)"

# mpi_on_cluster LIMIT_S ARGS...: hvdrun --mpi -np 4 -H h1:2,h2:2 inside h0, as a user of the cluster would run
# it; sets OUT, ERR, RC, ELAPSED (h0_hvdrun adds --ssh-config).
mpi_on_cluster() {
  local limit=$1; shift
  h0_hvdrun "$limit" --mpi --verbose -np 4 -H h1:2,h2:2 --network-interface eth0 "$@"
}

# mpi_job_pids HOST...: Open MPI's daemons and the failure test's sleepers left on those hosts.
mpi_job_pids() {
  local host pid
  for host in "$@"; do
    for pid in $(ip netns pids "$host" 2>/dev/null); do
      [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = orted ] && echo "$pid"
      tr '\0' ' ' 2>/dev/null <"/proc/$pid/cmdline" | grep -qx "sleep 61 " && echo "$pid"
    done
  done
  true
}

mpi_on_cluster 90 -- sh -c 'echo "rank=$OMPI_COMM_WORLD_RANK size=$OMPI_COMM_WORLD_SIZE host=$(hostname)"'
expect_rc 0 "--mpi on h1:2,h2:2"
expect_err "-mca plm_rsh_args '-F $USE_CONFIG'" "--mpi --verbose"
expect_err "-mca btl_tcp_if_include eth0 -mca oob_tcp_if_include eth0" "--mpi --verbose"
for r in 0 1 2 3; do
  host=h$((r / 2 + 1))
  grep -qE "^\[[0-9]+,$r\]<stdout>:rank=$r size=4 host=$host$" <<<"$OUT" || { echo "$OUT"; echo "$ERR"; fail "rank $r did not report from $host"; }
done
[ "$(grep -c "host=h1$" <<<"$OUT")" -eq 2 ] && [ "$(grep -c "host=h2$" <<<"$OUT")" -eq 2 ] ||
  { echo "$OUT"; fail "expected 2 ranks on each host"; }
pass "--mpi -np 4 -H h1:2,h2:2: ranks 0,1 on h1 and 2,3 on h2, output tagged by rank"

# -x and HOROVOD_* cross to the remote hosts with mpirun's own -x.
export HOROVOD_CYCLE_TIME=7 OMP_NUM_THREADS=3
mpi_on_cluster 90 -x FOO=bar -- sh -c 'echo "env $(hostname) $FOO $HOROVOD_CYCLE_TIME $OMP_NUM_THREADS"'
unset HOROVOD_CYCLE_TIME OMP_NUM_THREADS
expect_rc 0 "--mpi -x across hosts"
[ "$(grep -cE "<stdout>:env h[12] bar 7 3$" <<<"$OUT")" -eq 4 ] ||
  { echo "$OUT"; fail "remote ranks lack -x FOO, HOROVOD_* or OMP_*"; }
pass "-x FOO=bar, HOROVOD_CYCLE_TIME and OMP_NUM_THREADS reach the ranks on h1 and h2"

# A rank on h2 fails: mpirun stops the others and its daemons; hvdrun exits with the rank's code.
mpi_on_cluster 90 -- sh -c ': HVD_MH_TAG; [ "$OMPI_COMM_WORLD_RANK" = 3 ] && exit 3; sleep 61'
expect_rc 3 "rank 3 on h2 exiting 3"
[ "$ELAPSED" -lt 30 ] || fail "the job took ${ELAPSED}s to stop after rank 3 failed"
expect_no_job_on 10 h1 h2
deadline=$((SECONDS + 10))
while [ -n "$(mpi_job_pids h1 h2)" ]; do
  [ $SECONDS -lt $deadline ] || fail "Open MPI daemons or ranks' children remain on h1/h2: $(mpi_job_pids h1 h2)"
  sleep 0.2
done
pass "rank 3 on h2 exits 3 -> hvdrun exits 3 in ${ELAPSED}s, nothing left on h1 or h2"

# libhvd on the MPI backend across hosts: every op, Adasum included, and the topology MPI gives.
if "$HVD_BIN/hvd_conformance" --mpi-built; then
  mpi_on_cluster 600 "$HVD_BIN/hvd_conformance" --quick
  expect_rc 0 "MPI conformance on h1:2,h2:2"
  grep -q "all ops ok at np=4 on the mpi backend" <<<"$OUT" || { echo "$OUT" | tail; fail "no success line"; }
  for r in 0 1 2 3; do
    grep -qE "<stdout>:topology: rank $r of 4, local $((r % 2)) of 2, cross $((r / 2)) of 2$" <<<"$OUT" ||
      { echo "$OUT" | grep topology; fail "rank $r: wrong local/cross placement from MPI"; }
  done
  pass "MPI conformance across h1 and h2 (local and cross communicators as planned)"
fi
