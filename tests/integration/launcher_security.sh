# The control plane admits only holders of the job secret: a wrong secret or garbage on the coordination port
# is dropped and logged while the job runs on and completes; the secret is on no process's command line.
source "$(dirname "$0")/lib.bash"

"$HVDRUN" -np 2 --verbose -- sh -c '"$0" secret; sleep 4; echo finished' "$WORKER" >"$TEST_TMP/out" 2>"$TEST_TMP/err" &
job=$!
deadline=$((SECONDS + 30))
until grep -qE 'coordination server listening on [0-9.]+:[0-9]+' "$TEST_TMP/err" && grep -q 'secret=' "$TEST_TMP/out"; do
  [ $SECONDS -lt $deadline ] || fail "job did not start: $(cat "$TEST_TMP/err")"
  sleep 0.1
done
address=$(grep -oE 'listening on [0-9.]+:[0-9]+' "$TEST_TMP/err" | head -1 | awk '{print $3}')
"$HVD_BIN/control_probe" "${address%:*}" "${address##*:}" wrong-secret || fail "wrong secret was accepted"
"$HVD_BIN/control_probe" "${address%:*}" "${address##*:}" garbage || fail "garbage was accepted"

secret=$(grep -oE 'secret=[0-9a-f]+' "$TEST_TMP/out" | head -1 | cut -d= -f2)
[ ${#secret} -eq 64 ] || fail "workers did not get a 32-byte hex secret: '$secret'"
for f in /proc/[0-9]*/cmdline; do
  if { tr '\0' ' ' <"$f"; } 2>/dev/null | grep -qF "$secret"; then fail "the job secret is on the command line of ${f%/cmdline}"; fi
done
pass "the secret is on no command line"

wait_exit "$job" 30
[ "$RC" -eq 0 ] || fail "the job was disturbed by the intruders: exit $RC: $ERR"
[ "$(grep -c 'finished' "$TEST_TMP/out")" -eq 2 ] || fail "a rank did not finish"
grep -q 'rejected a connection' "$TEST_TMP/err" || fail "rejections were not logged"
pass "wrong secret and garbage rejected and logged; the job completed"
