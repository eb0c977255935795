# Root-cause report, two failures 1 s apart: rank 2 raises first but takes 4 s to exit (exit 7); rank 1 raises a
# second later and exits at once, so its exit (or rank 0's, failed because of it) reaches hvdrun first. The root cause is the earlier failure (rank 2,
# by the time in its record), not the earlier exit nor the lower rank; hvdrun exits 7, rank 2's own code.
source "$(dirname "$0")/lib.bash"
source "$(dirname "$0")/python_lib.bash"
source "$(dirname "$0")/report_lib.bash"

# A 1 s stall check makes idle ranks cycle every 250 ms, so rank 1's exit (its hvd shutdown) is prompt.
run_hvdrun 120 -np 3 --kill-grace 8 --report "$REPORT" -x HOROVOD_STALL_CHECK_TIME_SECONDS=1 \
  "$PY" "$TESTS_PY/report_failures.py" two
expect_rc 7 "rank 2 failed first"
expect_root_cause "  rank 2 on localhost (pid "
expect_reason "RuntimeError: boom on rank 2"
expect_json 'j["root_cause"]["rank"]' 2
expect_json 'j["root_cause"]["exit_code"]' 7
expect_json 'j["exit_code"]' 7
expect_json 'j["ranks"][1]["reason"]' "RuntimeError: boom on rank 1"
expect_json 'j["ranks"][1]["role"]' cause
expect_err "Later failures of their own:" "summary"
expect_json 'min(j["ranks"][0]["time"], j["ranks"][1]["time"]) < j["ranks"][2]["time"]' True
expect_json 'j["root_cause"]["time"] < j["ranks"][1]["time"]' True
pass "of two failures the earlier one (rank 2) is the root cause, though rank 1 exited first; exit 7"
