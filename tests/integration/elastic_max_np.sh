# --max-np N caps the workers an elastic job starts, also when discovery lists more slots: the discovery script
# lists localhost:2, then localhost:4; with --max-np 3 generation 0 has the 2 listed slots and generation 1 adds
# one worker (slot localhost/2) and no more: slot localhost/3 never gets a worker. Single host, elastic_probe workers.
source "$(dirname "$0")/lib.bash"
PROBE="$HVD_BIN/elastic_probe"
[ -x "$PROBE" ] || fail "build elastic_probe first"
cd "$TEST_TMP"
cat >"$TEST_TMP/discover.sh" <<SCRIPT
#!/bin/sh
if [ -e "$TEST_TMP/grow" ]; then echo localhost:4; else echo localhost:2; fi
SCRIPT
chmod +x "$TEST_TMP/discover.sh"

: >"$TEST_TMP/out"
"$HVDRUN" --min-np 1 --max-np 3 --host-discovery-script "$TEST_TMP/discover.sh" --discovery-interval 0.2 \
  "$PROBE" 80 100 >"$TEST_TMP/out" 2>"$TEST_TMP/err" &
JOB=$!
background_job "$JOB"
wait_lines 2 "generation=0 rank=[01] size=2$" 30
touch "$TEST_TMP/grow"
wait_exit "$JOB" 60
expect_rc 0 "a job grown to --max-np 3 of 4 listed slots"
expect_err "hvdrun: elastic generation 0: 2 workers on localhost:2" "generation 0 has the 2 listed slots"
expect_err "hvdrun: elastic generation 1: 3 workers on localhost:3" "generation 1 stops at --max-np 3"
[ "$(grep -c "elastic generation" <<<"$ERR")" -eq 2 ] || { echo "$ERR"; fail "expected exactly 2 generations"; }
[ "$(grep -c "done generation=1$" <<<"$OUT")" -eq 3 ] || { echo "$OUT"; fail "expected 3 workers to finish generation 1"; }
grep -q "probe localhost/2 generation=1 rank=2 size=3$" <<<"$OUT" || { echo "$OUT"; fail "slot localhost/2 did not join"; }
grep -q "probe localhost/3 " <<<"$OUT" && { echo "$OUT"; fail "slot localhost/3 got a worker past --max-np 3"; }
pass "--max-np 3: of 4 listed slots, 3 got workers (localhost/0..2), localhost/3 none"
