# Root-cause report from torch's own error file: a script decorated with torch.distributed.elastic's @record (no
# hvd import) raises ValueError on rank 1; hvdrun sets TORCHELASTIC_ERROR_FILE per rank, reads the file @record
# wrote, and names rank 1 with the exception and its traceback; exit 1.
source "$(dirname "$0")/lib.bash"
source "$(dirname "$0")/python_lib.bash"
source "$(dirname "$0")/report_lib.bash"

run_hvdrun 120 -np 2 --kill-grace 2 --report "$REPORT" "$PY" "$TESTS_PY/report_torch_record.py"
expect_rc 1 "rank 1 raises under @record"
expect_root_cause "  rank 1 on localhost (pid "
expect_reason "ValueError: shard 7 of the training set is corrupt"
expect_json 'j["root_cause"]["source"]' torch
expect_json 'j["root_cause"]["reason"]' "ValueError: shard 7 of the training set is corrupt"
expect_json 'any("report_torch_record.py" in d for d in j["root_cause"]["details"])' True
expect_json 'j["ranks"][0]["state"]' stopped
pass "torch's @record error file names rank 1's ValueError; exit 1"
