# Root-cause report for a mismatch: rank 2 of 3 allreduces 'wait' with shape [8] where ranks 0 and 1 send [16].
# Uncaught, every rank raises it; the rank that disagreed (rank 2) is the root cause and the others are its
# consequences; exit 134 (its SIGABRT). Caught by every rank, the job goes on: then rank 1's later exit 3 is the
# only cause, and the mismatch is no part of the report.
source "$(dirname "$0")/lib.bash"
source "$(dirname "$0")/report_lib.bash"

run_hvdrun 60 -np 3 --kill-grace 2 --report "$REPORT" "$REPORT_WORKER" mismatch 2
expect_rc 134 "uncaught mismatch"
expect_root_cause "  rank 2 on localhost (pid "
expect_reason "hvd::Error: allreduce 'wait': rank 2 (localhost) sent shape [8], ranks 0, 1 (localhost) sent shape [16]"
expect_json 'j["root_cause"]["rank"]' 2
expect_json 'j["exit_code"]' 134
expect_json 'all(r["role"] == "consequence" for r in j["ranks"][:2])' True
pass "an uncaught mismatch names rank 2, which sent the odd shape; exit 134"

run_hvdrun 60 -np 3 --kill-grace 2 --report "$REPORT" "$REPORT_WORKER" mismatch-caught 2 1
expect_rc 3 "caught mismatch, then exit 3"
expect_root_cause "  rank 1 on localhost (pid "
expect_reason "rank 1: the evaluation set is missing"
grep -q "sent shape" <<<"$ERR" && { echo "$ERR"; fail "the caught mismatch is in the report"; }
expect_json 'j["root_cause"]["rank"]' 1
expect_json 'j["root_cause"]["exit_code"]' 3
expect_json '[r["reason"] for r in j["ranks"]]' "[None, None, None]"
pass "a caught mismatch leaves no trace; rank 1's later exit 3 is the root cause"
