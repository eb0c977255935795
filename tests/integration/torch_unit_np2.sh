# The hvd_torch unit tests hold for any number of ranks; run them as a real 2-rank job so that ranks start
# different (optimizer state on root only, other hyper-parameters, rank-dependent gradients) and must agree.
source "$(dirname "$0")/lib.bash"
UNIT="$HVD_BIN/unit_torch"
[ -x "$UNIT" ] || { echo "skip: $UNIT not built (LibTorch missing?)"; exit 77; }

run_hvdrun 300 -np 2 "$UNIT"
expect_rc 0 "unit_torch under -np 2"
for r in 0 1; do
  grep -q "^\[$r\]<stdout>:\[doctest\] Status: SUCCESS" <<<"$OUT" || { echo "$OUT" | tail -30; fail "rank $r did not pass"; }
done
pass "unit_torch passes on both ranks of a 2-rank job"
