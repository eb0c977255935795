# Timeline (README "Timeline"): `hvdrun --timeline-filename F --timeline-mark-cycles` makes every rank write a
# Chrome trace (rank 0 F, rank 1 F's stem.1.json) with its own pid, negotiation and op spans and cycle marks;
# the files are strict JSON even after the job is SIGKILLed mid-run; hvd::start_timeline/stop_timeline work at
# run time; HOROVOD_TIMELINE_MAX_BYTES caps the file; an empty --timeline-filename is refused.
source "$(dirname "$0")/lib.bash"
TL="$HVD_BIN/hvd_timeline"
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
cd "$TEST_TMP"

# check FILE PID NAME... : FILE is strict JSON, every event has pid PID, and each NAME occurs.
check() {
  local file=$1 pid=$2; shift 2
  "$PY" - "$file" "$pid" "$@" <<'PYEOF' || fail "$1: $(cat "$TEST_TMP/check.err" 2>/dev/null)"
import json, sys
path, pid, names = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
events = json.load(open(path))
assert isinstance(events, list), "not a JSON array"
bad = [e for e in events if e.get("pid") != pid]
assert not bad, f"{len(bad)} events with another pid, e.g. {bad[0]}"
seen = {e["name"] for e in events}
missing = [n for n in names if n not in seen]
assert not missing, f"no {missing} among {sorted(seen)}"
PYEOF
}

# 1. Both ranks, every phase, cycle marks.
run_hvdrun 60 -np 2 --timeline-filename tl.json --timeline-mark-cycles "$TL" 30
expect_rc 0 "timeline run"
check tl.json 0 allreduce "negotiate allreduce" negotiate cycle process_name
check tl.1.json 1 allreduce "negotiate allreduce" negotiate cycle process_name
pass "every rank writes its own trace with negotiation, op and cycle events"

# 2. SIGKILL mid-run, three times: both files still load with a strict parser.
for round in 1 2 3; do
  rm -f kill.json kill.1.json
  timeout -k 5 60 "$HVDRUN" -np 2 --timeline-filename kill.json "$TL" 0 >"$TEST_TMP/kout" 2>&1 &
  pid=$!
  wait_lines 2 steady 30 "$TEST_TMP/kout"
  sleep "0.$((RANDOM % 5))"
  workers=$(pgrep -f "$TL 0" | grep -v "^$pid\$" || true)
  kill -KILL $workers "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  check kill.json 0 allreduce
  check kill.1.json 1 allreduce
done
pass "after SIGKILL mid-run both files are valid JSON (3 rounds; last sizes $(stat -c %s kill.json kill.1.json | tr '\n' ' '))"

# 3. start_timeline / stop_timeline at run time: steps 5-14 only (10 steps of 3 tensors), then the file stays put.
run_hvdrun 60 -np 2 "$TL" 40 --runtime rt.json
expect_rc 0 "runtime start/stop"
check rt.json 0 allreduce cycle
check rt.1.json 1 allreduce cycle
# Counted per tensor: whether grad/a and grad/b ran fused or apart changes the number of op events, not how many
# name each tensor. The window is 10 steps; the last step's events may land just after the stop.
counts=$("$PY" -c '
import json, sys, collections
c = collections.Counter(t for e in json.load(open(sys.argv[1])) if e["name"] == "allreduce" for t in e["args"]["tensors"])
print(" ".join(str(c[t]) for t in ("grad/a", "grad/b", "loss")))' rt.json)
for n in $counts; do
  [ "$n" -ge 8 ] && [ "$n" -le 10 ] || fail "runtime timeline names each tensor ($counts for grad/a grad/b loss); expected 10 each, those of steps 5-14 only"
done
pass "hvd::start_timeline/hvd_stop_timeline record only the steps between them (grad/a grad/b loss: $counts)"

# 4. The cap holds and the capped file is still valid.
run_hvdrun 60 -np 2 -x HOROVOD_TIMELINE_MAX_BYTES=3000 --timeline-filename cap.json "$TL" 40
expect_rc 0 "capped timeline"
for pair in cap.json:0 cap.1.json:1; do
  f=${pair%:*}
  size=$(stat -c %s "$f")
  [ "$size" -le 3000 ] || fail "$f is $size bytes, over the 3000-byte cap"
  check "$f" "${pair#*:}" allreduce
done
expect_err "reached its cap of 3000 bytes" "cap warning"
pass "HOROVOD_TIMELINE_MAX_BYTES=3000 caps each file ($(stat -c %s cap.json) bytes) and it stays valid"

# 5. Bad input.
run_hvdrun 10 -np 1 --timeline-filename "" "$TL" 1
expect_rc 2 "empty --timeline-filename"
expect_err "--timeline-filename is empty" "empty --timeline-filename"
pass "an empty --timeline-filename is refused with exit 2"
