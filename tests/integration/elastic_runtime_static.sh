# The elastic C++ API under a static hvdrun job (no --min-np): sync gives rank 0's values on every rank, restore
# returns to the commit, run() trains once; and an elastic environment that hvdrun did not complete is refused
# naming the missing variable, not hung on.
source "$(dirname "$0")/lib.bash"

for np in 2 3; do
  run_hvdrun 60 -np $np -H localhost:$np "$HVD_BIN/hvd_elastic_api"
  expect_rc 0 "elastic API, np $np"
  for check in "run calls=1" "sync value=100 items=1" "static job: not elastic"; do
    n=$(grep -c "ok $check" <<<"$OUT" || true)
    [ "$n" -eq $np ] || { echo "$OUT"; fail "np $np: '$check' on $n ranks, expected $np"; }
  done
  for ((r = 0; r < np; r++)); do
    grep -q "\[$r\]<stdout>:ok restore value=$((7 + r)) items=1" <<<"$OUT" || { echo "$OUT"; fail "np $np: rank $r did not restore its commit"; }
  done
done
pass "sync, restore and run under static jobs of 2 and 3 ranks"

# hvdrun refuses -x HOROVOD_ELASTIC (it owns that name), so the worker runs alone with a hand-made environment.
RC=0
OUT=$(HOROVOD_ELASTIC=1 timeout 60 "$HVD_BIN/hvd_elastic_worker" --steps 3 2>&1) || RC=$?
[ "$RC" -ne 0 ] || fail "an elastic worker without HVD_WORKER_ID ran"
grep -q "HVD_WORKER_ID is not set" <<<"$OUT" || { echo "$OUT" | tail; fail "the error does not name HVD_WORKER_ID"; }
pass "HOROVOD_ELASTIC=1 without the rest of the elastic environment is refused naming HVD_WORKER_ID"
