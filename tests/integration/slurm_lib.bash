# Shared helpers for the Slurm launcher tests (sourced, not run): the netns hosts of multihost_lib.bash (its lock,
# h0 + h1, h2, torn down on exit) plus a real Slurm on them (scripts/slurm-cluster.sh: munged and slurmctld on
# h0, slurmd on h1 and h2). Skips (exit 77) without root, namespaces or Debian's slurm-wlm and munge.
for tool in slurmctld slurmd srun salloc scancel munged; do
  command -v "$tool" >/dev/null || { echo "SKIP: Slurm tests need slurm-wlm and munge ($tool not found)" >&2; exit 77; }
done
source "$(dirname "${BASH_SOURCE[0]}")/multihost_lib.bash"  # netns-cluster.sh down at exit also ends Slurm's daemons

SLURM="$HVD_SOURCE/scripts/slurm-cluster.sh"
timeout 120 "$SLURM" up 2 >"$TEST_TMP/slurm-up.log" 2>&1 || { cat "$TEST_TMP/slurm-up.log"; fail "slurm-cluster.sh up 2 failed"; }

# h0_salloc LIMIT_S SALLOC_ARGS... -- HVDRUN_ARGS...: `salloc ... hvdrun ...` on h0; sets OUT, ERR, RC, ELAPSED.
h0_salloc() {
  local limit=$1; shift
  local salloc_args=()
  while [ "$1" != "--" ]; do salloc_args+=("$1"); shift; done
  shift
  run_bounded "$limit" "salloc ... hvdrun $*" "$SLURM" exec h0 salloc "${salloc_args[@]}" "$HVDRUN" "$@"
}

# h0_salloc_bg SALLOC_ARGS... -- HVDRUN_ARGS...: the same in the background (salloc's pid in JOB_PID).
h0_salloc_bg() {
  local salloc_args=()
  while [ "$1" != "--" ]; do salloc_args+=("$1"); shift; done
  shift
  run_background "$SLURM" exec h0 salloc "${salloc_args[@]}" "$HVDRUN" "$@"
}

# slurm_job_id: the id of the one job in the queue.
slurm_job_id() { "$SLURM" exec h0 squeue -h -o %i | head -1; }
