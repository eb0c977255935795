# Root-cause report in an elastic job: a worker that fails on its own is reported with its reason (its last stderr
# line) as a log line at the reset, and the job goes on: the survivors finish and hvdrun exits 0, writing a report
# whose outcome is "succeeded". When that failure leaves fewer than --min-np workers past --elastic-timeout, the job
# finally fails: exit 7 (hvdrun's own code), with the report naming worker 1 and its line as the root cause.
source "$(dirname "$0")/lib.bash"
source "$(dirname "$0")/report_lib.bash"
PROBE="$HVD_BIN/elastic_probe"
cd "$TEST_TMP"

run_hvdrun 60 -H localhost:3 --min-np 2 --report "$REPORT" -- sh -c \
  'if [ "$HVD_WORKER_ID" = localhost/1 ]; then sleep 1; echo "loader: shard 7 is corrupt" >&2; exit 5; fi
   exec "$0" 10 50' "$PROBE"
expect_rc 0 "the survivors finish"
expect_err "exited with code 5; taking slot localhost/1 out" "the elastic job's line"
expect_err "hvdrun: the reset's root cause: worker 1 on localhost: loader: shard 7 is corrupt" "the reason"
grep -q "Root cause (first observed failure)" <<<"$ERR" && { echo "$ERR"; fail "a job that succeeded printed a summary"; }
expect_json 'j["outcome"]' succeeded
expect_json 'j["exit_code"]' 0
expect_json '[(r["rank"], r["exit_code"]) for r in j["ranks"] if r["state"] == "failed"]' "[(1, 5)]"
pass "elastic: the failed worker's reason is logged at the reset, the job goes on to exit 0"

run_hvdrun 60 -H localhost:2 --min-np 2 --elastic-timeout 2 --report "$REPORT" -- sh -c \
  'if [ "$HVD_WORKER_ID" = localhost/1 ]; then sleep 1; echo "loader: shard 7 is corrupt" >&2; exit 5; fi
   exec "$0" 10 50' "$PROBE"
expect_rc 7 "fewer than --min-np 2 past --elastic-timeout"
expect_err "hvdrun: the reset's root cause: worker 1 on localhost: loader: shard 7 is corrupt" "the reset's line"
expect_err "hvdrun: the job failed (exit 7)" "summary"
expect_root_cause "  worker 1 on localhost (pid "
expect_reason "exited with code 5"
expect_reason "loader: shard 7 is corrupt"
expect_json '(j["outcome"], j["exit_code"])' "('failed', 7)"
expect_json '(j["root_cause"]["rank"], j["root_cause"]["exit_code"], j["root_cause"]["details"])' \
  "(1, 5, ['loader: shard 7 is corrupt'])"
expect_json '[(r["rank"], r["role"]) for r in j["ranks"]]' "[(0, 'consequence'), (1, 'root cause')]"
pass "elastic, final failure: exit 7, the report names worker 1 and its line"
