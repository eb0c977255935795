# Process sets at an elastic reset (tests/python/elastic_process_sets.py): a set added in the first generation is
# dropped when rank 2 dies and the survivors reset (its object invalidated, an op on it refused naming it); added
# again it works among the new ranks, and the job ends 0.
source "$(dirname "$0")/lib.bash"
source "$(dirname "$0")/python_lib.bash"

export HOROVOD_DYNAMIC_PROCESS_SETS=1
run_hvdrun 180 -H localhost:3 --min-np 2 "$PY" "$TESTS_PY/elastic_process_sets.py" "$TEST_TMP"
expect_rc 0 "the elastic job that lost rank 2"
expect_lines "elastic set added rank=[0-2] size=3" 3 "the set added in the first generation"
expect_lines "elastic process sets ok rank=[01] size=2" 2 "the survivors after the reset"
pass "an elastic reset drops the added set; added again it works at size 2"
