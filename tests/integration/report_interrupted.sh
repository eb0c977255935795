# Root-cause report of a hung job stopped from outside (the stall shutdown is off by default): rank 2 of 3 never
# submits allreduce 'wait'. Ctrl-C (SIGINT) then SIGTERM stop hvdrun; the report names the op the others wait
# in, its tensor and the missing rank 2 with its host and pid; the JSON parses, also after a second Ctrl-C. A
# terminal's Ctrl-C (SIGINT to hvdrun's whole process group) is hvdrun's own stop too, reported the same: no rank
# "stopped from outside the job".
source "$(dirname "$0")/lib.bash"
source "$(dirname "$0")/report_lib.bash"

# hung_job SIGNAL...: starts the job, waits for it to hang, sends the signals back to back and waits for the end.
# The local agent keeps its workers' records under TMPDIR: the test's own directory, where it waits for rank 0's
# record of the op the others wait in (written once they have waited 1 s).
# With GROUP=1 hvdrun leads a process group of its own (setsid), and the signals go to the whole group, as a
# terminal sends them.
hung_job() {
  rm -rf "$TEST_TMP/records" && mkdir "$TEST_TMP/records"
  TMPDIR="$TEST_TMP/records" ${GROUP:+setsid} "$HVDRUN" -np 3 --kill-grace 2 --report "$REPORT" -x HOROVOD_STALL_CHECK_TIME_SECONDS=4 \
    "$REPORT_WORKER" stall 2 >"$TEST_TMP/out" 2>"$TEST_TMP/err" &
  local pid=$!
  background_job "$pid"
  wait_lines 3 'pid=' 30
  wait_pending_record "$TEST_TMP/records/hvd-records-*/0.json.pending" 2 30
  local target=$pid
  [ -z "${GROUP:-}" ] || target="-$(ps -o pgid= -p "$pid" | tr -d ' ')"
  [ "$target" != "-$$" ] || fail "hvdrun is in the test's own process group"
  for sig in "$@"; do kill "-$sig" -- "$target" 2>/dev/null || true; done
  wait_exit "$pid" 30
}

hung_job INT
expect_rc 130 "Ctrl-C"
expect_err "the job was stopped by SIGINT (exit 130)" "summary"
expect_err "Waiting when the job ended: allreduce 'wait' for " "summary"
expect_err "missing rank 2 on localhost (pid " "summary"
expect_json 'j["outcome"]' stopped
expect_json 'j["signal"]' SIGINT
expect_json 'j["exit_code"]' 130
expect_json 'j["waiting"]["op"]' allreduce
expect_json 'j["waiting"]["tensor"]' wait
expect_json '[(m["rank"], m["host"], m["pid"] > 0) for m in j["waiting"]["missing"]]' "[(2, 'localhost', True)]"
expect_json '[r["state"] for r in j["ranks"]]' "['stopped', 'stopped', 'stopped']"
pass "Ctrl-C on a hung job: the report names allreduce 'wait' and the missing rank 2; exit 130"
alone_err=$(grep -E '^  +rank [0-9] on ' <<<"$ERR" | sed -E 's/pid [0-9]+/pid N/; s/ at [0-9:.]+$//' | sort)

GROUP=1 hung_job INT
expect_rc 130 "a terminal's Ctrl-C (SIGINT to the process group)"
expect_err "the job was stopped by SIGINT (exit 130)" "summary"
expect_err "missing rank 2 on localhost (pid " "summary"
expect_json 'j["signal"]' SIGINT
expect_json '[r["state"] for r in j["ranks"]]' "['stopped', 'stopped', 'stopped']"
expect_json '[r.get("outside", False) for r in j["ranks"]]' "[False, False, False]"
! grep -qF "stopped from outside the job" <<<"$ERR" || { echo "$ERR"; fail "a terminal's Ctrl-C reported as a stop from outside"; }
group_err=$(grep -E '^  +rank [0-9] on ' <<<"$ERR" | sed -E 's/pid [0-9]+/pid N/; s/ at [0-9:.]+$//' | sort)
[ "$group_err" = "$alone_err" ] || fail "the ranks' lines differ from a SIGINT to hvdrun alone:
$group_err
--- alone:
$alone_err"
pass "a terminal's Ctrl-C (the process group): hvdrun's own stop, the report of a SIGINT to hvdrun alone; exit 130"

hung_job TERM
expect_rc 143 "SIGTERM"
expect_json 'j["signal"]' SIGTERM
expect_json '[m["rank"] for m in j["waiting"]["missing"]]' "[2]"
pass "SIGTERM on a hung job: the same report; exit 143"

hung_job INT INT
expect_rc 130 "Ctrl-C twice"
expect_json 'j["outcome"]' stopped
expect_json 'len(j["ranks"])' 3
pass "Ctrl-C twice: the report still parses"
