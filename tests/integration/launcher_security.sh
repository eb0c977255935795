# The control plane admits only holders of the job secret: a wrong secret or garbage on the coordination port
# is dropped for what it sent, at once (control_probe fails unless hvdrun closes it within half its 10 s handshake
# deadline, which closes even silent connections) and logged with the reason while the job runs on and completes;
# the secret is on no process's command line.
source "$(dirname "$0")/lib.bash"

# The workers run until the probes are done (the file appears), so the port is open all the while.
done_file="$TEST_TMP/probes_done"
"$HVDRUN" -np 2 --verbose -- sh -c '"$0" secret; while [ ! -e "$1" ]; do sleep 0.1; done; echo finished' \
  "$WORKER" "$done_file" >"$TEST_TMP/out" 2>"$TEST_TMP/err" &
job=$!
background_job "$job"
deadline=$((SECONDS + 30))
until grep -qE 'coordination server listening on [0-9.]+:[0-9]+' "$TEST_TMP/err" && [ "$(grep -c 'secret=' "$TEST_TMP/out")" -eq 2 ]; do
  [ $SECONDS -lt $deadline ] || fail "job did not start: $(cat "$TEST_TMP/err")"
  sleep 0.1
done
address=$(grep -oE 'listening on [0-9.]+:[0-9]+' "$TEST_TMP/err" | head -1 | awk '{print $3}')

# probe MODE: control_probe must exit 0 ("rejected: MODE: closed ... within half the 10 s handshake deadline");
# adds a line to PROBE_FAILURES otherwise.
PROBE_FAILURES=""
probe() {
  local out rc
  set +e
  out=$(timeout -k 5 30 "$HVD_BIN/control_probe" "${address%:*}" "${address##*:}" "$1")
  rc=$?
  set -e
  if [ "$rc" -ne 0 ]; then
    PROBE_FAILURES+="$1: control_probe exited $rc (1: let in, 2: port unreachable, 3: not closed at once, 124: hung): $out"$'\n'
  elif ! grep -qE "^rejected: $1: closed \((EOF|connection reset)\) after [0-9]+ ms, within half the 10 s handshake deadline$" <<<"$out"; then
    PROBE_FAILURES+="$1: unexpected probe report: $out"$'\n'
  else
    pass "$out"
  fi
}
probe wrong-secret
probe garbage
[ -z "$PROBE_FAILURES" ] || fail "$PROBE_FAILURES"

secret=$(grep -oE 'secret=[0-9a-f]+' "$TEST_TMP/out" | head -1 | cut -d= -f2)
[ ${#secret} -eq 64 ] || fail "workers did not get a 32-byte hex secret: '$secret'"
for f in /proc/[0-9]*/cmdline; do
  if { tr '\0' ' ' <"$f"; } 2>/dev/null | grep -qF "$secret"; then fail "the job secret is on the command line of ${f%/cmdline}"; fi
done
pass "the secret is on no command line"

touch "$done_file"
wait_exit "$job" 30
[ "$RC" -eq 0 ] || fail "the job was disturbed by the intruders: exit $RC: $ERR"
[ "$(grep -c '^\[[01]\]<stdout>:finished$' "$TEST_TMP/out")" -eq 2 ] || fail "a rank did not finish: $OUT"
# Both were turned away for what they sent, not by the handshake deadline: the first logged as it happened, the
# second (same address, same 10 s window) summed up when hvdrun shut the port.
reason='handshake: the peer does not know the job secret'
grep -qE "rejected a connection from 127\.0\.0\.1:[0-9]+: $reason\$" <<<"$ERR" ||
  { echo "$ERR"; fail "the first rejection was not logged with its reason '$reason'"; }
grep -qF "rejected 1 more connection from 127.0.0.1 in the last 10 s (the last: $reason)" <<<"$ERR" ||
  { echo "$ERR"; fail "the second rejection was not summed up with its reason '$reason'"; }
pass "wrong secret and garbage rejected at once and logged with the reason; the job completed"
