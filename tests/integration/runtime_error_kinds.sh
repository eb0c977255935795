#!/usr/bin/env bash
# The C API tells failures apart by kind, not text: a dtype mismatch is HVD_ERROR_MISMATCH on every rank (and a
# bad argument HVD_ERROR_USAGE), a rank that exits mid-job is HVD_ERROR_PEER_LOST on the others, and the stall
# inspector's shutdown is HVD_ERROR_STALL on every rank.
source "$(dirname "$0")/lib.bash"

run_hvdrun 60 -np 2 "$HVD_BIN/hvd_error_kinds" mismatch
expect_rc 0 "mismatch kinds"
n=$(grep -c "kind mismatch tensor 'kinds.mismatch'" <<<"$OUT" || true)
[ "$n" -eq 2 ] || { echo "$OUT"; fail "expected both ranks to report kind mismatch, got $n"; }
[ "$(grep -c "kind usage .*unknown dtype 99" <<<"$OUT" || true)" -eq 2 ] || { echo "$OUT"; fail "no usage kind"; }
pass "a dtype mismatch is kind mismatch on every rank, a bad dtype kind usage, and the job goes on"

# The exiting rank exits 0 so that hvdrun lets the survivors report.
run_hvdrun 60 -np 3 "$HVD_BIN/hvd_error_kinds" peer-lost
expect_rc 0 "peer-lost kinds"
n=$(grep -c "kind peer-lost" <<<"$OUT" || true)
[ "$n" -eq 2 ] || { echo "$OUT$ERR" | tail -20; fail "expected both survivors to report kind peer-lost, got $n"; }
pass "a rank exiting mid-job is kind peer-lost on the others, distinct from a mismatch"

HOROVOD_STALL_CHECK_TIME_SECONDS=1 HOROVOD_STALL_SHUTDOWN_TIME_SECONDS=2 \
  run_hvdrun 60 -np 2 -x HOROVOD_STALL_CHECK_TIME_SECONDS -x HOROVOD_STALL_SHUTDOWN_TIME_SECONDS \
  "$HVD_BIN/hvd_error_kinds" stall
expect_rc 0 "stall kinds"
n=$(grep -c "kind stall" <<<"$OUT" || true)
[ "$n" -eq 2 ] || { echo "$OUT$ERR" | tail -20; fail "expected both ranks to report kind stall, got $n"; }
pass "the stall shutdown is kind stall on every rank"
