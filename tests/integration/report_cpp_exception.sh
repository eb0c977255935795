# Root-cause report: rank 2 of 3 throws a std::runtime_error nobody catches while ranks 0 and 1 wait in an
# allreduce. libhvd's terminate handler records the exception before abort(); hvdrun names rank 2 with the
# exception's type and message, lists ranks 0 and 1 (failed or stopped because of it) as consequences, exits 134 (its own
# SIGABRT), and --report says the same field by field.
source "$(dirname "$0")/lib.bash"
source "$(dirname "$0")/report_lib.bash"

run_hvdrun 60 -np 3 --kill-grace 2 --report "$REPORT" "$REPORT_WORKER" throw 2
expect_rc 134 "rank 2's uncaught exception"
expect_root_cause "  rank 2 on localhost (pid "
expect_reason "std::runtime_error: boom on rank 2: the loader found no shard 7"
expect_err "Consequences:" "summary"
[ "$(grep -A2 "^Consequences:" <<<"$ERR" | grep -cE "^  rank [01] on localhost")" -eq 2 ] ||
  { echo "$ERR"; fail "ranks 0 and 1 are not listed as consequences"; }
expect_json 'j["outcome"]' failed
expect_json 'j["exit_code"]' 134
expect_json 'j["root_cause"]["kind"]' rank
expect_json 'j["root_cause"]["rank"]' 2
expect_json 'j["root_cause"]["host"]' localhost
expect_json 'j["root_cause"]["signal"]' SIGABRT
expect_json 'j["root_cause"]["source"]' c++
expect_json 'j["root_cause"]["reason"]' "std::runtime_error: boom on rank 2: the loader found no shard 7"
expect_json 'j["root_cause"]["pid"] > 0' True
expect_json '[r["role"] for r in j["ranks"]]' "['consequence', 'consequence', 'root cause']"
pass "an uncaught C++ exception on rank 2 is the root cause, with its type and message; exit 134"
