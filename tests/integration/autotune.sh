# Autotune (docs/cpp-api.md "Autotune"): `hvdrun --autotune --autotune-log-file F` makes rank 0 sample bytes/s over each
# candidate cycle time, then fusion threshold, write one CSV row per sample, choose the setting with the best median,
# and every rank adopts the same choice; the engines then run the chosen setting (their fusion changes with it);
# HOROVOD_AUTOTUNE=1 alone works too; a bad sample count stops init().
# ctest: run-serial - the tuner scores measured bytes/s: beside other tests (ctest -j) fusion off can score best, and
# then this run cannot show the engines applying the choice.
source "$(dirname "$0")/lib.bash"
TL="$HVD_BIN/hvd_timeline"
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
cd "$TEST_TMP"
fast=(-x HOROVOD_AUTOTUNE_STEPS_PER_SAMPLE=4 -x HOROVOD_AUTOTUNE_WARMUP_SAMPLES=2 -x HOROVOD_AUTOTUNE_MIN_SAMPLE_MS=0
      -x HOROVOD_LOG_LEVEL=info)

run_hvdrun 120 -np 2 --autotune --autotune-log-file at.csv "${fast[@]}" "$TL" 400
expect_rc 0 "autotune run"
chosen=$(grep -o 'autotune: fusion threshold [0-9]* bytes, cycle time [0-9.]* ms' <<<"$ERR" | sort | uniq -c)
[ "$(wc -l <<<"$chosen")" -eq 1 ] && grep -q '^ *2 ' <<<"$chosen" || fail "ranks did not report one common choice: $chosen"
"$PY" - at.csv "$chosen" <<'PYEOF' || fail "autotune log: see above"
import csv, re, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
phases = [r["phase"] for r in rows]
# 2 warm-up samples, then the 3 cycle times, then the thresholds (the point scored already skipped), 1 or 3 samples
# a point (1 when its first sample is under half the best so far), then the final row.
order = "".join({"warmup": "w", "cycle": "c", "fusion": "t", "final": "F"}[p] for p in phases)
assert re.fullmatch(r"wwc+t+F", order), phases
points = {}
for r in rows[2:-1]:
    key = (r["phase"], int(r["fusion_threshold"]), float(r["cycle_time_ms"]))  # a setting may be tried in both phases
    points.setdefault(key, []).append(float(r["bytes_per_s"]))
cycles = {float(r["cycle_time_ms"]) for r in rows if r["phase"] == "cycle"}
assert cycles == {0.0, 1.0, 5.0}, f"cycle times tried: {cycles}"
thresholds = {int(r["fusion_threshold"]) for r in rows if r["phase"] == "fusion"}
assert len(thresholds) == 4, f"thresholds tried (one was scored in the cycle phase): {thresholds}"
assert all(len(v) in (1, 3) for v in points.values()), f"samples per point: {points}"
assert all(float(r["bytes"]) > 0 and float(r["seconds"]) > 0 for r in rows[:-1]), "a sample without bytes or time"
# The rule, replayed in scoring order: a point replaces the best so far by a better median, and a longer cycle time
# than the best's only by more than 10%.
best, best_score = None, None
for key, samples in points.items():
    score = statistics.median(samples)
    margin = 1.1 if best is not None and key[2] > best[2] else 1.0
    if best is None or score > best_score * margin:
        best, best_score = key, score
best = best[1:]
final = (int(rows[-1]["fusion_threshold"]), float(rows[-1]["cycle_time_ms"]))
assert final == best, f"chose {final}, but the best median (a longer cycle by 10%) is {best}: {points}"
m = re.search(r"fusion threshold (\d+) bytes, cycle time ([0-9.]+) ms", sys.argv[2])
assert (int(m.group(1)), float(m.group(2))) == final, f"ranks use {m.groups()}, the log chose {final}"
print(f"chose fusion {final[0]} B, cycle {final[1]} ms among {len(points)} settings")
PYEOF
pass "autotune: $(wc -l <at.csv) CSV lines, both ranks adopt the best-median setting (longer cycles by 10%)"

# The engines apply the choice, not only report it: fusion is configured off and the cycle time to 2.5 ms (no
# candidate); each step is a batch of 64 allreduces of 64 bytes, which fusion makes one op (a fusion candidate wins
# by far). After the log's final row (the worker waits for it, then runs 30 steps named tuned/*), every rank's
# timeline must show each step fused into one op, as the chosen threshold plans it, and each rank's info line (the
# engine's own values, read back) must be the log's final choice; earlier steps ran unfused, as configured.
run_hvdrun 180 -np 2 --autotune --autotune-log-file "$TEST_TMP/applied.csv" --timeline-filename applied.json \
  "${fast[@]}" -x HOROVOD_FUSION_THRESHOLD=0 -x HOROVOD_CYCLE_TIME=2.5 "$TL" 30 --after-autotune "$TEST_TMP/applied.csv"
expect_rc 0 "autotune applied"
[ "$(grep -cE 'rank [01]: tuned after [0-9]+ steps' <<<"$OUT")" -eq 2 ] ||
  fail "the ranks did not both see the final choice: $OUT"
"$PY" - "$TEST_TMP/applied.csv" applied.json applied.1.json "$ERR" <<'PYEOF' || fail "autotune applied: see above"
import csv, json, re, sys
final = list(csv.DictReader(open(sys.argv[1])))[-1]
assert final["phase"] == "final", f"the log's last row is {final}"
threshold, cycle_ms = int(final["fusion_threshold"]), float(final["cycle_time_ms"])
assert threshold >= 64 * 64, (f"autotune chose fusion threshold {threshold} over 64 x 64-byte tensors: with fusion "
                              "off as configured, this run cannot tell whether the engine applies the choice")
lines = re.findall(r"autotune: fusion threshold (\d+) bytes, cycle time ([0-9.]+) ms", sys.argv[4])
assert len(lines) == 2, f"expected the choice from both ranks' engines, got {lines}"
for got in lines:
    assert (int(got[0]), float(got[1])) == (threshold, cycle_ms), \
        f"an engine runs fusion threshold {got[0]} bytes, cycle time {got[1]} ms; autotune chose {threshold}, " \
        f"{cycle_ms}"
tuned = [f"tuned/{i}" for i in range(64)]
for path in sys.argv[2:4]:
    ops = [e for e in json.load(open(path)) if e.get("name") == "allreduce" and e.get("cat") == "op"]
    after = [e["args"]["tensors"] for e in ops if e["args"]["tensors"][0].startswith("tuned/")]
    before = [e["args"]["tensors"] for e in ops if e["args"]["tensors"][0].startswith("grad/")]
    assert len(after) == 30 and all(sorted(t) == sorted(tuned) for t in after), \
        f"{path}: after tuning, {len(after)} tuned/* ops of {sorted({len(t) for t in after})} tensors; expected 30 " \
        f"steps of one op with all 64 (fusion threshold {threshold})"
    assert any(len(t) == 1 for t in before), f"{path}: no unfused grad/* op before the choice (fusion was off)"
print(f"chose fusion {threshold} B, cycle {cycle_ms} ms; both engines run it: 30 fused steps on each rank")
PYEOF
pass "the engines apply autotune's choice: fused steps after it, and the info line reads their own settings"

run_hvdrun 120 -np 2 -x HOROVOD_AUTOTUNE=1 "${fast[@]}" "$TL" 300
expect_rc 0 "HOROVOD_AUTOTUNE=1"
[ "$(grep -c 'autotune: fusion threshold' <<<"$ERR")" -eq 2 ] || fail "HOROVOD_AUTOTUNE=1 did not tune: $ERR"
pass "HOROVOD_AUTOTUNE=1 without the flag tunes too"

run_hvdrun 30 -np 1 --autotune -x HOROVOD_AUTOTUNE_STEPS_PER_SAMPLE=0 "$TL" 3
[ "$RC" -ne 0 ] || fail "HOROVOD_AUTOTUNE_STEPS_PER_SAMPLE=0 was accepted"
expect_err "HOROVOD_AUTOTUNE_STEPS_PER_SAMPLE" "bad sample count"
pass "HOROVOD_AUTOTUNE_STEPS_PER_SAMPLE=0 stops init() naming the variable"
