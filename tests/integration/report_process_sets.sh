# Root-cause report inside process set [0, 2] at np 3 (tests/python/report_failures.py set-*): the report and the
# errors name a set's ranks as hvd.rank() does (rank 2), never by their places in the set (1), which is another
# rank of the job. A mismatch in the set: rank 2 sent the odd shape, so it is the root cause and rank 0 blames it.
# A lost peer in the set: rank 2 exits 5; rank 0's allreduce on the set fails naming rank 2, which it blames.
source "$(dirname "$0")/lib.bash"
source "$(dirname "$0")/python_lib.bash"
source "$(dirname "$0")/report_lib.bash"

run_hvdrun 120 -np 3 --kill-grace 2 --report "$REPORT" "$PY" "$TESTS_PY/report_failures.py" set-mismatch
expect_rc 1 "a mismatch in set [0, 2]"
expect_root_cause "  rank 2 on localhost (pid "
expect_reason "allreduce 'wait': rank 2 (localhost) sent shape [8], rank 0 (localhost) sent shape [16]"
expect_json 'j["root_cause"]["rank"]' 2
expect_json '[(r["role"], r["blame"]) for r in j["ranks"][::2]]' "[('consequence', [2]), ('root cause', [])]"
pass "a mismatch in set [0, 2] names rank 2, the root cause, and rank 0 blames rank 2"

run_hvdrun 120 -np 3 --kill-grace 10 --report "$REPORT" "$PY" "$TESTS_PY/report_failures.py" set-lost
expect_rc 5 "rank 2 of set [0, 2] exits 5"
expect_root_cause "  rank 2 on localhost (pid "
expect_json 'j["root_cause"]["exit_code"]' 5
expect_json 'j["ranks"][0]["blame"]' "[2]"
expect_json '"failed: rank 2 (localhost) exited (pid " in j["ranks"][0]["reason"]' True
pass "a lost peer in set [0, 2] is named rank 2 in rank 0's error, and rank 0 blames rank 2"
