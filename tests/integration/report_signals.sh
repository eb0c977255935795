# Root-cause report for ranks killed by signals: rank 2 of 3 dies of SIGSEGV (exit 139, its stderr line as the
# reason), then rank 1 of 3 of SIGKILL (exit 137). The others, failed or stopped because of it, are consequences.
source "$(dirname "$0")/lib.bash"
source "$(dirname "$0")/report_lib.bash"

run_hvdrun 60 -np 3 --kill-grace 2 --report "$REPORT" "$REPORT_WORKER" segv 2
expect_rc 139 "SIGSEGV on rank 2"
expect_root_cause "  rank 2 on localhost (pid "
expect_reason "was killed by SIGSEGV"
expect_reason "rank 2: about to read through a null pointer"
expect_json 'j["root_cause"]["rank"]' 2
expect_json 'j["root_cause"]["signal"]' SIGSEGV
expect_json 'j["root_cause"]["exit_code"]' None
expect_json 'j["exit_code"]' 139
pass "SIGSEGV on rank 2: root cause rank 2, exit 139"

# Not run_hvdrun: its hang check counts 137 as timeout's SIGKILL.
set +e
timeout 60 "$HVDRUN" -np 3 --kill-grace 2 --report "$REPORT" "$REPORT_WORKER" sigkill 1 >"$TEST_TMP/out" 2>"$TEST_TMP/err"
RC=$?
set -e
OUT="$(cat "$TEST_TMP/out")" ERR="$(cat "$TEST_TMP/err")"
[ "$RC" -ne 124 ] || fail "hvdrun hung after rank 1's SIGKILL"
expect_rc 137 "SIGKILL on rank 1"
expect_root_cause "  rank 1 on localhost (pid "
expect_reason "was killed by SIGKILL"
expect_json 'j["root_cause"]["rank"]' 1
expect_json 'j["root_cause"]["signal"]' SIGKILL
expect_json 'j["exit_code"]' 137
expect_json '[r["role"] for r in j["ranks"]]' "['consequence', 'root cause', 'consequence']"
pass "SIGKILL on rank 1: root cause rank 1, exit 137"
