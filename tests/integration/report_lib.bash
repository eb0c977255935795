# Shared by the report_*.sh tests (sourced after lib.bash): checks on hvdrun's root-cause summary (stderr) and on
# the JSON of --report, read with Debian's python (json module), field by field.
REPORT="$TEST_TMP/report.json"
REPORT_WORKER="$HVD_BIN/hvd_report_worker"

# expect_root_cause LINE: the line after "Root cause (first observed failure):" starts with LINE
# ("  rank 1 on localhost (pid "), and the summary is the last thing hvdrun wrote before any consequence list.
expect_root_cause() {
  local got
  got=$(grep -A1 -F "Root cause (first observed failure):" <<<"$ERR" | sed -n 2p)
  [[ "$got" == "$1"* ]] || { echo "--- stderr"; echo "$ERR" | tail -30; fail "root cause line is '$got', expected '$1...'"; }
}

# expect_reason TEXT: the root cause's section (up to "Consequences:") contains TEXT.
expect_reason() {
  local section
  section=$(sed -n '/^Root cause (first observed failure):/,/^Consequences:/p' <<<"$ERR")
  grep -qF -- "$1" <<<"$section" || { echo "--- stderr"; echo "$ERR" | tail -30; fail "root cause lacks '$1'"; }
}

# expect_json PYEXPR WANT: the Python expression over the report `j` prints WANT.
expect_json() {
  local got
  got=$(/usr/bin/python3 -c 'import json, sys
j = json.load(open(sys.argv[1]))
print(eval(sys.argv[2]))' "$REPORT" "$1" 2>&1) || { cat "$REPORT" 2>/dev/null; fail "report: cannot evaluate $1: $got"; }
  [ "$got" = "$2" ] || { cat "$REPORT"; echo; fail "report: $1 is '$got', expected '$2'"; }
}

# wait_pending_record GLOB MISSING LIMIT_S: waits until the record of the op ranks wait in (rank 0's
# <HVD_ERROR_FILE>.pending, in its agent's hvd-records-* directory: GLOB) names allreduce 'wait' and the ranks
# MISSING ("2", "3" or "1,2") as missing, the moment a hung job's report can name them; fails after LIMIT_S.
wait_pending_record() {
  local deadline=$((SECONDS + $3)) f
  while :; do
    for f in $1; do
      grep -q "\"missing\":\[$2\].*\"tensor\":\"wait\"\|\"tensor\":\"wait\".*\"missing\":\[$2\]" "$f" 2>/dev/null && return 0
    done
    [ $SECONDS -lt $deadline ] || { cat $1 2>/dev/null; fail "no record like $1 of allreduce 'wait' missing ranks $2 after $3 s"; }
    sleep 0.1
  done
}
