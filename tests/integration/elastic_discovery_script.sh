# The discovery script's contract (docs/elastic.md): a failing run is reported once, its stderr relayed line by
# line, and the hosts stay as they were until a run succeeds again ("succeeds again"); a run is bounded by 10 s,
# after which hvdrun kills it and everything it started (its process group) and reports it, hosts kept; a script
# that never succeeds fails the job after --elastic-timeout with exit 7 naming its error. Single host, elastic_probe
# workers; the script's behaviour is switched by files the test creates.
source "$(dirname "$0")/lib.bash"
PROBE="$HVD_BIN/elastic_probe"
[ -x "$PROBE" ] || fail "build elastic_probe first"
cd "$TEST_TMP"
S="$TEST_TMP/discover.sh"
cat >"$S" <<SCRIPT
#!/bin/sh
echo run >>"$TEST_TMP/runs"
if [ -e "$TEST_TMP/fail" ]; then
  echo "inventory unreachable: connection refused" >&2
  echo "second line of its error" >&2
  exit 3
fi
if [ -e "$TEST_TMP/hang" ]; then
  date +%s.%N >"$TEST_TMP/hung_at"
  sleep 300 &
  echo \$! >"$TEST_TMP/sleeper"
  wait
fi
echo localhost:2
SCRIPT
chmod +x "$S"
# runs: how many times the script has run so far.
runs() { wc -l <"$TEST_TMP/runs"; }

: >"$TEST_TMP/out"
"$HVDRUN" --min-np 2 --host-discovery-script "$S" --discovery-interval 0.3 "$PROBE" 100000 100 \
  >"$TEST_TMP/out" 2>"$TEST_TMP/err" &
JOB=$!
background_job "$JOB"
wait_lines 2 "generation=0 rank=[01] size=2$" 30

# 1. Failing runs: reported once, stderr relayed, hosts kept.
touch "$TEST_TMP/fail"
first=$(runs)
wait_lines 1 "^hvdrun: the discovery script $S exited with code 3" 30 "$TEST_TMP/err"
until [ "$(runs)" -ge $((first + 4)) ]; do alive "$JOB" || fail "hvdrun ended"; sleep 0.1; done  # 3 more failing runs
rm "$TEST_TMP/fail"
wait_lines 1 "^hvdrun: the discovery script succeeds again$" 30 "$TEST_TMP/err"
ERR=$(cat "$TEST_TMP/err")
expect_err "hvdrun: the discovery script $S exited with code 3; it must exit 0 after printing host:slots lines (run it by hand to see its error); keeping the hosts as they were, trying again every 0.3 s" \
  "the failing run is reported"
[ "$(grep -c "exited with code 3" <<<"$ERR")" -eq 1 ] || { echo "$ERR"; fail "the same failure was reported more than once"; }
relayed=$(grep -cx "hvdrun: discovery script: inventory unreachable: connection refused" <<<"$ERR" || true)
[ "$relayed" -ge 4 ] || { echo "$ERR"; fail "the script's stderr was relayed $relayed times for 4 or more failing runs"; }
[ "$(grep -cx "hvdrun: discovery script: second line of its error" <<<"$ERR")" -eq "$relayed" ] ||
  fail "the second line of the script's stderr was not relayed with each first line"
grep -qE "gone from discovery|elastic generation 1" <<<"$ERR" && { echo "$ERR"; fail "a failing run changed the hosts"; }
pass "failing runs: reported once (exit code 3 and the fix), stderr relayed ($relayed runs), hosts kept, recovery announced"

# 2. A run that does not finish: killed after 10 s with what it started, reported, hosts kept.
: >"$TEST_TMP/hung_at"
touch "$TEST_TMP/hang"
wait_lines 1 . 30 "$TEST_TMP/hung_at"
hung_at=$(cat "$TEST_TMP/hung_at")
timeout_line="hvdrun: the discovery script $S did not finish within 10 s; it must print its host:slots lines and exit within that (a stuck command, or a child holding its stdout open?); keeping the hosts as they were, trying again every 0.3 s"
wait_lines 1 "did not finish within" 60 "$TEST_TMP/err"
after=$(awk -v a="$hung_at" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
rm "$TEST_TMP/hang"
ERR=$(cat "$TEST_TMP/err")
expect_err "$timeout_line" "the stuck run is reported"
# 10 s from hvdrun's start of the run (the script's first line comes a little later); generous above.
awk -v d="$after" 'BEGIN { exit !(d >= 9.5 && d <= 40) }' || fail "the stuck run was reported $after s after it began, not after 10 s"
sleeper=$(cat "$TEST_TMP/sleeper")
on_exit "kill -KILL $sleeper 2>/dev/null"  # should hvdrun have left it
wait_gone 10 "$sleeper"
alive "$JOB" || fail "hvdrun ended after the stuck run"
grep -qE "gone from discovery|elastic generation 1" <<<"$ERR" && { echo "$ERR"; fail "the stuck run changed the hosts"; }
pass "a stuck run: killed with its child after $after s (bound 10 s), reported, hosts kept"

kill -INT "$JOB"
wait_exit "$JOB" 30
expect_rc 130 "the job stopped by SIGINT"
[ "$(grep -c "generation=0 rank=" <<<"$OUT")" -eq 2 ] && ! grep -q "generation=1" <<<"$OUT" ||
  { echo "$OUT"; fail "the workers were re-formed while the script failed"; }

# 3. A script that never succeeds: the job fails after --elastic-timeout, naming the script's error.
printf '#!/bin/sh\necho "no inventory configured" >&2\nexit 1\n' >"$TEST_TMP/never.sh"
chmod +x "$TEST_TMP/never.sh"
run_hvdrun 60 --min-np 1 --host-discovery-script "$TEST_TMP/never.sh" --elastic-timeout 2 "$PROBE" 10 100
expect_rc 7 "a discovery script that never succeeds"
expect_err "hvdrun: discovery script: no inventory configured" "its stderr is relayed"
expect_err "hvdrun: 0 workers, fewer than --min-np 1, for --elastic-timeout 2 s; the discovery script never succeeded (the discovery script $TEST_TMP/never.sh exited with code 1; it must exit 0 after printing host:slots lines (run it by hand to see its error)); add hosts, lower --min-np or raise --elastic-timeout" \
  "the failure names the timeout and the script's error"
[ -z "$OUT" ] || { echo "$OUT"; fail "a worker ran without any host"; }
pass "a script that never succeeds: exit 7 after --elastic-timeout 2 s, naming its error"
