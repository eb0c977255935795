# Python's uncaught exception takes libhvd's cause-or-consequence rule (hvd_record_uncaught), not a copy of it
# (tests/python/failure_record_rule.py, alone): a HorovodInternalError after the engine's stall consequence keeps
# the consequence, its stall and its stop; a peer's fault makes one; any other exception is a cause. hvd.torch's
# import installs the hook under HVD_ERROR_FILE.
source "$(dirname "$0")/lib.bash"
source "$(dirname "$0")/python_lib.bash"

run_bounded 60 "failure_record_rule.py" "$PY" "$TESTS_PY/failure_record_rule.py"
expect_rc 0 "failure_record_rule.py"
grep -qx "rule ok" <<<"$OUT" || fail "failure_record_rule.py did not finish: $OUT"
pass "Python's record goes through libhvd's rule: a stall's consequence keeps stall and stop; a peer's fault is a" \
  "consequence; another exception a cause"

run_bounded 60 "import hvd.torch" env HVD_ERROR_FILE="$TEST_TMP/0.json" "$PY" -c \
  'import sys, hvd.torch; print(getattr(sys.excepthook, "_hvd_record", False))'
expect_rc 0 "import hvd.torch"
[ "$OUT" = True ] || fail "hvd.torch's import did not install the failure record hook: '$OUT'"
pass "hvd.torch installs the hook under HVD_ERROR_FILE"
