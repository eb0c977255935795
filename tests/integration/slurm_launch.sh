# hvdrun inside a real Slurm allocation (salloc -N2 --ntasks-per-node=2 on the netns hosts, and an sbatch
# script): it takes the nodes and tasks from the allocation, starts its agents with srun (a Slurm step on h1
# and h2), runs the conformance worker and the training example across both nodes; -np/-H that do not fit
# the allocation are refused naming it; --max-restarts reruns a failed job with HOROVOD_RESTART_ATTEMPT
# counting up.
source "$(dirname "$0")/slurm_lib.bash"
ALLOC=(-N2 --ntasks-per-node=2)

# Placement: 4 ranks, 2 per node, each worker inside the srun step of the allocation on its own node.
h0_salloc 60 "${ALLOC[@]}" -- sh -c 'echo "at $(hostname) rank=$HOROVOD_RANK step=$SLURM_JOB_ID.$SLURM_STEP_ID"'
expect_rc 0 "salloc hvdrun sh"
for r in 0 1 2 3; do
  host=h$((r / 2 + 1))
  grep -qE "^\[$r\]<stdout>:at $host rank=$r step=[0-9]+\.[0-9]+$" <<<"$OUT" || { echo "$OUT"; fail "rank $r not on $host in a Slurm step"; }
done
pass "4 ranks from the allocation, 2 per node, each in a Slurm step on its node (${ELAPSED}s)"

# From a batch script: hvdrun runs on h1, the first node, and starts h1's agent through srun too.
set +e
timeout 60 "$SLURM" exec h0 sbatch -Q -N2 --ntasks-per-node=1 --wait -o "$TEST_TMP/batch.out" \
  --wrap "$HVDRUN sh -c 'echo at \$(hostname) rank=\$HOROVOD_RANK step=\$SLURM_STEP_ID'"
RC=$?
set -e
OUT="$(cat "$TEST_TMP/batch.out" 2>/dev/null || true)"
ERR="$OUT"
expect_rc 0 "sbatch --wrap hvdrun"
grep -qE '^\[0\]<stdout>:at h1 rank=0 step=[0-9]+$' <<<"$OUT" && grep -qE '^\[1\]<stdout>:at h2 rank=1 step=[0-9]+$' <<<"$OUT" ||
  { echo "$OUT"; fail "sbatch: ranks not on h1 and h2 in a Slurm step"; }
pass "sbatch -N2 --wrap hvdrun: the batch host h1 and h2 each ran a rank in hvdrun's srun step"

h0_salloc 120 "${ALLOC[@]}" -- "$HVD_BIN/hvd_conformance" --quick
expect_rc 0 "conformance under salloc"
grep -q "conformance: all ops ok at np=4" <<<"$OUT" || { echo "$OUT" | tail; fail "conformance did not report success"; }
pass "conformance at np=4 across h1 and h2 through srun (${ELAPSED}s)"

EXAMPLE="$HVD_BIN/train_fashion_mnist"
if [ -x "$EXAMPLE" ]; then
  h0_salloc 120 "${ALLOC[@]}" -- "$EXAMPLE" --epochs 1 --max-steps 20 --checksum --log-interval 10 --threads 1
  expect_rc 0 "training under salloc"
  sums="$(sed -n 's/^\[[0-9]\]<stdout>:PARAM_CHECKSUM rank=[0-9] steps=20 //p' <<<"$OUT" | sort -u)"
  [ "$(grep -c . <<<"$sums")" -eq 1 ] && [ "$(grep -c PARAM_CHECKSUM <<<"$OUT")" -eq 4 ] ||
    { echo "$OUT" | tail; fail "training: expected one checksum from 4 ranks, got: $sums"; }
  pass "train_fashion_mnist, 20 steps at np=4 through srun: every rank ends with parameters $sums (${ELAPSED}s)"
else
  echo "note: $EXAMPLE not built (LibTorch missing?); training not run"
fi

# -np and -H are checked against the allocation before anything starts.
h0_salloc 60 "${ALLOC[@]}" -- -np 5 "$WORKER" ok
expect_rc 2 "-np 5 in a 4-task allocation"
expect_err "-np 5 but Slurm job" "-np 5"
h0_salloc 60 "${ALLOC[@]}" -- -H h1:2,h3:1 "$WORKER" ok
expect_rc 2 "-H naming a node outside the allocation"
expect_err "h3 is not a node of Slurm job" "-H h3"
pass "-np 5 and -H h3 refused with exit 2, naming the allocation"

# --max-restarts: attempt 0 fails on one rank, attempt 1 succeeds.
h0_salloc 90 "${ALLOC[@]}" -- --max-restarts 2 sh -c \
  'echo "attempt=$HOROVOD_RESTART_ATTEMPT"; [ "$HOROVOD_RESTART_ATTEMPT" != 0 ] || [ "$HOROVOD_RANK" != 3 ] || exit 9'
expect_rc 0 "--max-restarts 2 with one failing attempt"
expect_err "the job failed (exit 9); restarting it from the start, attempt 2 of 3" "--max-restarts"
[ "$(grep -c '<stdout>:attempt=1$' <<<"$OUT")" -eq 4 ] || { echo "$OUT"; fail "attempt 1 did not run 4 ranks"; }
pass "--max-restarts: rank 3's exit 9 restarted the job; attempt 1 ran every rank and succeeded"
