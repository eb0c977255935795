# Root-cause report, Python: rank 1 of 3 raises RuntimeError while ranks 0 and 2 wait in an allreduce; its exit
# shuts hvd down under them, so they raise too. hvd.torch's excepthook records each exception; hvdrun names rank 1
# with the exception's type, message and last frames, lists ranks 0 and 2 as consequences, and exits 1.
source "$(dirname "$0")/lib.bash"
source "$(dirname "$0")/python_lib.bash"
source "$(dirname "$0")/report_lib.bash"

run_hvdrun 120 -np 3 --kill-grace 2 --report "$REPORT" "$PY" "$TESTS_PY/report_failures.py" raise 1
expect_rc 1 "rank 1 raises"
expect_root_cause "  rank 1 on localhost (pid "
expect_reason "RuntimeError: boom on rank 1"
expect_reason "report_failures.py\", line"
expect_reason "raise RuntimeError(f\"boom on rank {rank}\")"
grep -A3 "^Consequences:" <<<"$ERR" | grep -q "rank [02] on localhost" || { echo "$ERR"; fail "no consequences listed"; }
expect_json 'j["exit_code"]' 1
expect_json 'j["root_cause"]["rank"]' 1
expect_json 'j["root_cause"]["source"]' python
expect_json 'j["root_cause"]["reason"]' "RuntimeError: boom on rank 1"
expect_json 'any("in load_batch" in d for d in j["root_cause"]["details"])' True
expect_json '[r["role"] for r in j["ranks"]]' "['consequence', 'root cause', 'consequence']"
expect_json 'all(r["blame"] == [1] for r in j["ranks"] if r["role"] == "consequence" and r["reason"])' True
pass "a Python exception on rank 1 is the root cause, with type, message and frames; exit 1"
