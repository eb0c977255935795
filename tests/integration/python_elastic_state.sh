# hvd.elastic in a static hvdrun -np 2 job (tests/python/elastic_state.py): TorchState commit/restore/sync of a
# model, its optimizer, plain attributes and an ElasticSampler; run() syncs and calls once; errors carry their kind
# and propagate outside an elastic job. Then the same script as horovod.torch.elastic under --horovod-compat.
source "$(dirname "$0")/lib.bash"
source "$(dirname "$0")/python_lib.bash"

run_hvdrun 120 -np 2 "$PY" "$TESTS_PY/elastic_state.py"
expect_rc 0 "elastic_state.py"
expect_lines "elastic_state ok rank=[0-9] size=2" 2 "elastic_state.py"
pass "TorchState commit/restore/sync, run() and ElasticSampler in a static 2-rank job"

run_hvdrun 120 --horovod-compat -np 2 "$PY" "$TESTS_PY/elastic_state.py" --horovod
expect_rc 0 "elastic_state.py --horovod"
expect_lines "elastic_state ok rank=[0-9] size=2" 2 "elastic_state.py --horovod"
pass "the same through horovod.torch.elastic under --horovod-compat"
