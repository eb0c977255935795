# Root-cause report for a stall: rank 1 of 3 never submits allreduce 'wait' that ranks 0 and 2 wait in. With the
# stall shutdown on (HOROVOD_STALL_SHUTDOWN_TIME_SECONDS=3) ranks 0 and 2 fail and exit 1; the root cause is rank 1,
# the rank that did not submit (not rank 0, the rank that noticed), with the tensor; exit 1.
source "$(dirname "$0")/lib.bash"
source "$(dirname "$0")/report_lib.bash"

run_hvdrun 60 -np 3 --kill-grace 2 --report "$REPORT" -x HOROVOD_STALL_CHECK_TIME_SECONDS=2 \
  -x HOROVOD_STALL_SHUTDOWN_TIME_SECONDS=3 "$REPORT_WORKER" stall 1
expect_rc 1 "stall shutdown"
expect_root_cause "  rank 1 on localhost (pid "
expect_reason "did not submit 'wait'"
expect_reason "allreduce 'wait' waited"
expect_json 'j["root_cause"]["rank"]' 1
expect_json '"wait" in j["root_cause"]["reason"]' True
expect_json 'j["exit_code"]' 1
expect_json '[r["role"] for r in j["ranks"]]' "['consequence', 'root cause', 'consequence']"
expect_json '[r["blame"] for r in j["ranks"]]' "[[1], [], [1]]"
pass "stall shutdown: rank 1, which never submitted 'wait', is the root cause; exit 1"
