# Root-cause report: rank 1 of 3 calls exit(3) while the others wait in an allreduce; its exit shuts hvd down
# under them, and they exit 1 a second before rank 1's exit is over. No exception to record: the reason is rank
# 1's last stderr lines. hvdrun exits 3 (rank 1's code), naming rank 1, not rank 0 or 2, whose exits came first.
source "$(dirname "$0")/lib.bash"
source "$(dirname "$0")/report_lib.bash"

run_hvdrun 60 -np 3 --kill-grace 2 --report "$REPORT" "$REPORT_WORKER" exit 1 3
expect_rc 3 "rank 1 exits 3"
expect_root_cause "  rank 1 on localhost (pid "
expect_reason "exited with code 3"
expect_reason "its last lines on stderr:"
expect_reason "rank 1: giving up (bad shard 7)"
expect_json 'j["exit_code"]' 3
expect_json 'j["root_cause"]["rank"]' 1
expect_json 'j["root_cause"]["exit_code"]' 3
expect_json 'j["root_cause"]["source"]' stderr
expect_json '"rank 1: giving up (bad shard 7)" in j["root_cause"]["details"]' True
expect_json '[r["role"] for r in j["ranks"]]' "['consequence', 'root cause', 'consequence']"
expect_json 'j["ranks"][0]["time"] < j["ranks"][1]["time"]' True
pass "exit 3 on rank 1 is the root cause with its last stderr line; exit 3"

# Success: the report is written too.
run_hvdrun 60 -np 2 --report "$REPORT" "$WORKER" exit 9 0
expect_rc 0 "all exit 0"
expect_json 'j["outcome"]' succeeded
expect_json 'j["exit_code"]' 0
expect_json 'j["root_cause"]' None
expect_json '[(r["rank"], r["state"], r["exit_code"]) for r in j["ranks"]]' "[(0, 'ok', 0), (1, 'ok', 0)]"
grep -q "Root cause" <<<"$ERR" && fail "a job that succeeded printed a root cause"
pass "a job that succeeds writes a report too (outcome succeeded, exit 0)"
