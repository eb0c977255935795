# 2 hosts x 2 slots over SSH: every rank gets the right HOROVOD_* place and runs on the right host (its own
# hostname), and the output of both hosts comes back prefixed by rank, stdout and stderr alike.
source "$(dirname "$0")/multihost_lib.bash"

h0_hvdrun 60 -np 4 -H h1:2,h2:2 "$WORKER" env
expect_rc 0 "-H h1:2,h2:2 env"
for r in 0 1 2 3; do
  host=h$((r / 2 + 1))
  want="[$r]<stdout>:rank=$r size=4 local_rank=$((r % 2)) local_size=2 cross_rank=$((r / 2)) cross_size=2 hostname=$host unbuffered=1"
  grep -qxF -- "$want" <<<"$OUT" || { echo "$OUT"; echo "$ERR"; fail "missing line '$want'"; }
done
[ "$(wc -l <<<"$OUT")" -eq 4 ] || { echo "$OUT"; fail "expected 4 lines of output"; }
pass "HOROVOD_* environment of every rank on h1 and h2"

h0_hvdrun 60 -np 4 -H h1:2,h2:2 -- sh -c 'echo "host=$(hostname) rank=$HOROVOD_RANK"; echo "err-$(hostname)-$HOROVOD_RANK" >&2'
expect_rc 0 "hostname of every rank"
for r in 0 1 2 3; do
  host=h$((r / 2 + 1))
  grep -qxF "[$r]<stdout>:host=$host rank=$r" <<<"$OUT" || { echo "$OUT"; fail "rank $r did not run on $host"; }
  grep -qxF "[$r]<stderr>:err-$host-$r" <<<"$ERR" || { echo "$ERR"; fail "rank $r's stderr from $host missing"; }
done
pass "ranks 0,1 ran on h1 and 2,3 on h2 (their own hostnames); stdout and stderr from both hosts"

# Many lines from both hosts at once: every line arrives whole.
h0_hvdrun 120 -np 4 -H h1:2,h2:2 "$WORKER" spam 2000 200
expect_rc 0 "spam from both hosts"
for r in 0 1 2 3; do
  n=$(grep -cE "^\[$r\]<stdout>:r$r i[0-9]+ x{200} END$" <<<"$OUT" || true)
  [ "$n" -eq 2000 ] || fail "rank $r: $n of 2000 whole stdout lines"
done
pass "8000 lines of 200 bytes from two hosts, every one whole"
expect_no_job_on 10 h1 h2
pass "nothing left on h1 or h2"

# Remote workers get hvdrun's PATH and the documented prefixes (NCCL_*, OMP_*, ...) but not other variables.
export NCCL_DEBUG=INFO OMP_NUM_THREADS=3 TEST_PRIVATE_VAR=no
h0_hvdrun 60 -np 2 -H h1:1,h2:1 -- sh -c 'echo "fwd $NCCL_DEBUG $OMP_NUM_THREADS ${TEST_PRIVATE_VAR:-unset} ${PATH%%:*}"'
expect_rc 0 "forwarded environment"
want="fwd INFO 3 unset ${PATH%%:*}"
[ "$(grep -cF -- "$want" <<<"$OUT")" -eq 2 ] || { echo "$OUT"; fail "remote workers lack the forwarded environment '$want'"; }
pass "remote workers get PATH and the forwarded prefixes, nothing else"
