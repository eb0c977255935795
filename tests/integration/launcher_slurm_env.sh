# The Slurm launcher without a Slurm cluster: a fake allocation in the environment and a fake srun (HVD_SRUN)
# that records its arguments and runs the agent here. hvdrun takes hosts and slots from SLURM_JOB_NODELIST and
# SLURM_TASKS_PER_NODE, starts every agent through one srun whose command line holds no secret (the secret
# arrives on its stdin), and the job runs; an srun that cannot run fails the start naming srun (exit 3).
# (tests/integration/slurm_*.sh run the real thing on the netns hosts.)
source "$(dirname "$0")/lib.bash"

cat >"$TEST_TMP/srun" <<'FAKE'
#!/bin/sh
# Records the arguments, one per line, then runs the step's command (the last three: /bin/sh -c CMD) as the
# one task on node "localhost"; stdin (the secret) goes to it untouched.
printf '%s\n' "$@" >"$FAKE_SRUN_ARGS"
shift $(($# - 3))
SLURMD_NODENAME=localhost exec "$@"
FAKE
chmod +x "$TEST_TMP/srun"
export FAKE_SRUN_ARGS="$TEST_TMP/srun.args"
ALLOCATION=(env SLURM_JOB_ID=77 SLURM_JOB_NODELIST=localhost SLURM_TASKS_PER_NODE=3 HVD_SRUN="$TEST_TMP/srun")

set +e
timeout -k 5 30 "${ALLOCATION[@]}" "$HVDRUN" sh -c 'echo "HOROVOD_SIZE=$HOROVOD_SIZE HVD_SECRET=$HVD_SECRET"' >"$TEST_TMP/out" 2>"$TEST_TMP/err"
RC=$?
set -e
OUT="$(cat "$TEST_TMP/out")"
ERR="$(cat "$TEST_TMP/err")"
expect_rc 0 "a job through the fake srun"
[ "$(grep -c 'HOROVOD_SIZE=3' <<<"$OUT")" -eq 3 ] || { echo "$OUT"; fail "expected 3 ranks from SLURM_TASKS_PER_NODE=3"; }
for arg in --jobid=77 --nodes=1 --ntasks=1 --ntasks-per-node=1 --nodelist=localhost --overlap --input=all; do
  grep -qxF -- "$arg" "$FAKE_SRUN_ARGS" || { cat "$FAKE_SRUN_ARGS"; fail "srun was not given $arg"; }
done
secret="$(grep -oE 'HVD_SECRET=[0-9a-f]+' <<<"$OUT" | head -1 | cut -d= -f2)"
[ ${#secret} -ge 32 ] || { echo "$OUT"; fail "no job secret in the workers' environment"; }
! grep -qF "$secret" "$FAKE_SRUN_ARGS" || fail "the job secret is on srun's command line"
pass "3 ranks from the allocation through one srun --jobid=77 --input=all; the secret is not on its command line"

set +e
timeout -k 5 30 "${ALLOCATION[@]}" HVD_SRUN="$TEST_TMP/no-such-srun" "$HVDRUN" "$WORKER" ok >"$TEST_TMP/out" 2>"$TEST_TMP/err"
RC=$?
set -e
ERR="$(cat "$TEST_TMP/err")"
expect_rc 3 "srun missing"
expect_err "cannot execute $TEST_TMP/no-such-srun" "srun missing"
expect_err "the job did not start: localhost: srun exited with code 127" "srun missing"
pass "an srun that cannot run: exit 3 naming it"
