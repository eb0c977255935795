# The training example on the MPI backend, launched by hvdrun --mpi -np 2 (mpirun underneath): one epoch of
# Fashion-MNIST reaches the same accuracy as on the built-in backend (>= 75% with --momentum 0.9), and the ranks
# say they run on MPI. Skips (77) without the example, Open MPI or an MPI build.
source "$(dirname "$0")/lib.bash"
EXAMPLE="$HVD_BIN/train_fashion_mnist"
[ -x "$EXAMPLE" ] || { echo "skip: $EXAMPLE not built (LibTorch missing?)"; exit 77; }
command -v mpirun >/dev/null || { echo "skip: mpirun is not installed"; exit 77; }
"$HVD_BIN/hvd_conformance" --mpi-built || { echo "skip: this build of hvd has no MPI backend"; exit 77; }

start=$SECONDS
HOROVOD_LOG_LEVEL=debug run_hvdrun 300 --mpi -np 2 "$EXAMPLE" --epochs 1 --momentum 0.9 --log-interval 100
expect_rc 0 "one epoch under hvdrun --mpi"
for r in 0 1; do
  grep -q "^\[1,$r\]<stderr>:.*hvd initialized: rank $r of 2 on .*, CPU backend mpi" <<<"$ERR" ||
    { echo "$ERR" | tail; fail "rank $r does not report the mpi backend"; }
done
acc=$(sed -n 's/^\[1,0\]<stdout>:Test set: Average loss: [0-9.]*, Accuracy: \([0-9.]*\)%$/\1/p' <<<"$OUT")
[ -n "$acc" ] || { echo "$OUT" | tail -20; fail "no 'Test set' line from rank 0"; }
awk -v a="$acc" 'BEGIN { exit !(a >= 75) }' || fail "accuracy $acc% < 75% after one epoch on MPI"
pass "one epoch on the MPI backend: accuracy $acc%, $((SECONDS - start)) s at np=2"
