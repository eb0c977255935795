# The job's fate: all exit 0 -> 0; the first failure's code (128+N for a signal) with a message naming the
# rank, host and pid; the other ranks are stopped; a command that cannot be executed -> 127/126.
source "$(dirname "$0")/lib.bash"

run_hvdrun 60 -np 4 "$WORKER" exit 9 0
expect_rc 0 "all ranks exit 0"
pass "all exit 0 -> 0"

run_hvdrun 60 -np 4 "$WORKER" exit 2 7
expect_rc 7 "rank 2 exits 7"
expect_err "rank 2 on localhost (pid " "exit message"
expect_err "exited with code 7" "exit message"
pass "rank 2's code 7 is hvdrun's code"

# Rank 1 crashes once ranks 0 and 2 hang (each printed its pid): the job ends promptly with 128+SIGSEGV and
# nothing left running.
start=$SECONDS
run_hvdrun 60 -np 3 --kill-grace 2 "$WORKER" crash 1 "$TEST_TMP"
expect_rc 139 "crash"
expect_err "hvdrun: rank 1 on localhost (pid " "crash message"
expect_err ") was killed by SIGSEGV" "crash message"
[ $((SECONDS - start)) -lt 30 ] || fail "crash took $((SECONDS - start))s to end the job"
hanging=$(grep -oE '^\[[02]\]<stdout>:pid=[0-9]+$' <<<"$OUT" | cut -d= -f2 || true)
[ "$(wc -w <<<"$hanging")" -eq 2 ] || { echo "$OUT"; fail "expected the pids of ranks 0 and 2, got: $hanging"; }
for pid in $hanging; do
  alive "$pid" && fail "worker pid $pid survived the crash teardown"
done
pass "SIGSEGV of one rank while ranks 0 and 2 hang -> 139, both stopped"

# A worker that ignores SIGTERM is SIGKILLed after the grace period.
start=$SECONDS
run_hvdrun 60 -np 2 --kill-grace 1 -- sh -c 'if [ "$HOROVOD_RANK" = 1 ]; then exit 5; fi; trap "" TERM; while :; do sleep 0.2; done'
expect_rc 5 "SIGTERM-ignoring worker"
[ $((SECONDS - start)) -lt 20 ] || fail "kill grace not honoured"
pass "a worker ignoring SIGTERM is killed after --kill-grace"

# An executable whose interpreter does not exist fails at exec on the agent's side: 127, naming rank and host.
printf '#!/nonexistent/interpreter\n' >"$TEST_TMP/bad_interp"
chmod +x "$TEST_TMP/bad_interp"
run_hvdrun 60 -np 2 "$TEST_TMP/bad_interp"
expect_rc 127 "bad interpreter"
expect_err "on localhost" "exec failure message"
expect_err "bad_interp" "exec failure message names the command"
pass "exec failure -> 127 naming rank, host and command"
