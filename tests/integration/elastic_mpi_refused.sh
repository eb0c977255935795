# An elastic job is refused with --mpi (mpirun cannot add or replace ranks in a running job): each of the flags that
# make a job elastic (--min-np, --max-np, --host-discovery-script), given with --mpi, exits 2 with the one line
# naming the flags and the fix, before mpirun is run at all (HVD_MPIRUN points at a fake Open MPI mpirun that
# records every call). The same command without the elastic flag does reach mpirun (the check of the fake).
source "$(dirname "$0")/lib.bash"
cd "$TEST_TMP"
cat >"$TEST_TMP/mpirun" <<SCRIPT
#!/bin/sh
echo "\$*" >>"$TEST_TMP/mpirun.calls"
case "\$1" in --version) echo "mpirun (Open MPI) 4.1.4" ;; *) echo "fake mpirun ran" ;; esac
SCRIPT
chmod +x "$TEST_TMP/mpirun"
printf '#!/bin/sh\necho localhost:2\n' >"$TEST_TMP/discover.sh"
chmod +x "$TEST_TMP/discover.sh"
export HVD_MPIRUN="$TEST_TMP/mpirun"

want="hvdrun: elastic flags (--min-np, --max-np, --host-discovery-script) do not apply with --mpi: mpirun cannot add or replace ranks in a running job; drop --mpi"
for flags in "-H localhost:2 --min-np 1" "-H localhost:2 --max-np 2" "--host-discovery-script $TEST_TMP/discover.sh"; do
  # shellcheck disable=SC2086  # the flags are words
  expect_usage_error "$want" --mpi $flags "$WORKER"
  [ "$ERR" = "$want" ] || fail "--mpi $flags: stderr is '$ERR', expected exactly '$want'"
  [ -e "$TEST_TMP/mpirun.calls" ] && { cat "$TEST_TMP/mpirun.calls"; fail "--mpi $flags ran mpirun"; }
done
pass "--mpi with --min-np, --max-np or --host-discovery-script: exit 2, one line naming the flags; mpirun never ran"

run_hvdrun 20 --mpi -H localhost:2 "$WORKER"
grep -q "fake mpirun ran" <<<"$OUT" || { echo "$OUT"; echo "$ERR"; fail "without elastic flags --mpi did not reach the fake mpirun"; }
pass "the same --mpi command without elastic flags reaches mpirun (so the fake would have seen the others)"
