# Timeline (docs/cpp-api.md "Timeline"): `hvdrun --timeline-filename F --timeline-mark-cycles` makes every rank write a
# Chrome trace (rank 0 F, rank 1 F's stem.1.json) with its own pid, negotiation and op spans and cycle marks;
# the files are strict JSON even after the job is SIGKILLed mid-run; hvd::start_timeline/stop_timeline work at
# run time; HOROVOD_TIMELINE_MAX_BYTES caps the file; an empty --timeline-filename is refused. Each rank's trace is
# its own process (pid = rank, named "rank r") with three tracks (tid 0 cycles, 1 negotiation, 2 ops), each event on
# its track; a failed op is category "error" with the message, on every rank.
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

# tracks FILE RANK: the per-rank tracks of docs/cpp-api.md, "Timeline". The process is named "rank RANK"; tid 0 is "cycles" (negotiate
# and cycle events), 1 "negotiation" (negotiate <op>), 2 "ops" (<op>, category op or error); none is empty.
tracks() {
  "$PY" - "$1" "$2" <<'PYEOF' || fail "$1: the per-rank tracks, see above"
import collections, json, sys
path, rank = sys.argv[1], int(sys.argv[2])
events = json.load(open(path))
meta = {(e["name"], e.get("tid")): e["args"] for e in events if e.get("ph") == "M"}
assert meta.get(("process_name", None)) == {"name": f"rank {rank}"}, f"process name: {meta}"
names = {tid: meta.get(("thread_name", tid), {}).get("name") for tid in (0, 1, 2)}
assert names == {0: "cycles", 1: "negotiation", 2: "ops"}, f"track names: {names}"
per_track = collections.Counter()
for e in events:
    if e.get("ph") == "M":
        continue
    name, tid, cat = e["name"], e.get("tid"), e.get("cat")
    if name in ("negotiate", "cycle"):
        want = (0, "cycle")
    elif name.startswith("negotiate "):
        want = (1, "negotiation")
    else:
        want = (2, "error" if cat == "error" else "op")
    assert (tid, cat) == want, f"{name!r} on track {tid} category {cat}, expected {want}: {e}"
    per_track[tid] += 1
assert all(per_track[t] > 0 for t in (0, 1, 2)), f"events per track: {dict(per_track)}"
PYEOF
}

# 1. Both ranks, every phase, cycle marks.
run_hvdrun 60 -np 2 --timeline-filename tl.json --timeline-mark-cycles "$TL" 30
expect_rc 0 "timeline run"
check tl.json 0 allreduce "negotiate allreduce" negotiate cycle process_name
check tl.1.json 1 allreduce "negotiate allreduce" negotiate cycle process_name
pass "every rank writes its own trace with negotiation, op and cycle events"
tracks tl.json 0
tracks tl.1.json 1
pass "each rank's trace is the process \"rank r\" with its cycles, negotiation and ops tracks, each event on its own"

# 1b. A failed op: both ranks allreduce "bad" with shapes of their own; on each rank the op is category error with
# the message the rank caught, and the job goes on.
run_hvdrun 60 -np 2 --timeline-filename err.json "$TL" 6 --mismatch
expect_rc 0 "timeline of a failed op"
[ "$(grep -c "rank [01]: caught .*bad" <<<"$OUT")" -eq 2 ] || fail "the mismatch was not caught on both ranks: $OUT"
for pair in err.json:0 err.1.json:1; do
  f=${pair%:*} r=${pair#*:}
  tracks "$f" "$r"
  "$PY" - "$f" "$(grep "rank $r: caught" <<<"$OUT")" <<'PYEOF' || fail "$f: the failed op's event, see above"
import json, sys
events = json.load(open(sys.argv[1]))
errors = [e for e in events if e.get("cat") == "error"]
assert len(errors) == 1, f"{len(errors)} error events: {errors}"
e = errors[0]
assert e["name"] == "allreduce" and e["args"]["tensors"] == ["bad"], e
message = e["args"]["error"]
assert "every rank must pass the same shape" in message, message
assert message in sys.argv[2], f"the event's message {message!r} is not what the rank caught: {sys.argv[2]!r}"
ran = [t for e in events if e.get("cat") == "op" for t in e["args"]["tensors"]]
counts = {t: ran.count(t) for t in ("grad/a", "grad/b", "loss")}
assert counts == {"grad/a": 6, "grad/b": 6, "loss": 6} and len(ran) == 18, f"ops after the failure: {counts}"
PYEOF
done
pass "a failed op is category error with its message on every rank's ops track"

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
# name each tensor. The window is 10 steps. An op's handle completes before its event is written: step 4's loss
# (done before start_timeline) must not land in the file, which records only what began after the start; step 14's
# loss, the last op before the stop, may miss it. Every other op's event is written in its cycle, before the next.
counts=$("$PY" -c '
import json, sys, collections
c = collections.Counter(t for e in json.load(open(sys.argv[1])) if e["name"] == "allreduce" for t in e["args"]["tensors"])
print(" ".join(str(c[t]) for t in ("grad/a", "grad/b", "loss")))' rt.json)
read -r n_a n_b n_loss <<<"$counts"
[ "$n_a" -eq 10 ] && [ "$n_b" -eq 10 ] && { [ "$n_loss" -eq 10 ] || [ "$n_loss" -eq 9 ]; } ||
  fail "runtime timeline names each tensor ($counts for grad/a grad/b loss); expected 10 each (loss 9 or 10), those of steps 5-14 only"
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
