# Every rank of -np 1..8 on this host gets the right HOROVOD_* place, and its output comes back prefixed.
source "$(dirname "$0")/lib.bash"

for np in 1 2 3 4 5 6 7 8; do
  run_hvdrun 60 -np "$np" "$WORKER" env
  expect_rc 0 "-np $np"
  for ((r = 0; r < np; r++)); do
    want="[$r]<stdout>:rank=$r size=$np local_rank=$r local_size=$np cross_rank=0 cross_size=1 hostname=localhost unbuffered=1"
    grep -qxF -- "$want" <<<"$OUT" || { echo "$OUT"; fail "-np $np: missing line '$want'"; }
  done
  [ "$(wc -l <<<"$OUT")" -eq "$np" ] || fail "-np $np: expected $np lines"
done
pass "environment of every rank for -np 1..8"

# -H localhost:3 with -np 2 uses the first two slots; -x exports variables.
export HVD_TEST_EXPORTED=from-env
run_hvdrun 60 -H localhost:3 -np 2 -x HVD_TEST_EXPORTED -x HVD_TEST_SET=given -- sh -c 'echo "$HOROVOD_RANK/$HOROVOD_SIZE $HVD_TEST_EXPORTED $HVD_TEST_SET"'
expect_rc 0 "-H localhost:3 -np 2"
grep -qxF "[0]<stdout>:0/2 from-env given" <<<"$OUT" || { echo "$OUT"; fail "-x exports"; }
grep -qxF "[1]<stdout>:1/2 from-env given" <<<"$OUT" || { echo "$OUT"; fail "-x exports"; }
pass "-H with -np below the slots, -x"

# --output-filename copies each rank's streams into DIR/rank.<r>/.
run_hvdrun 60 -np 2 --output-filename "$TEST_TMP/logs" -- sh -c 'echo out$HOROVOD_RANK; echo err$HOROVOD_RANK >&2'
expect_rc 0 "--output-filename"
[ "$(cat "$TEST_TMP/logs/rank.1/stdout")" = "out1" ] || fail "--output-filename stdout"
[ "$(cat "$TEST_TMP/logs/rank.0/stderr")" = "err0" ] || fail "--output-filename stderr"
pass "--output-filename"
