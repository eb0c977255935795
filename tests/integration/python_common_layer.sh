# hvd.common, the layer under every framework module, works without any framework: scripts/framework-python.sh
# names each framework's interpreter (an unknown name exits 2), and in the mxnet environment (no torch there) a
# job at np=2 and np=3 runs init, objects across ranks, a dynamic process set and a refused call through
# hvd.common._core alone; an exception raised there is named by hvdrun's report through the shared error record.
source "$(dirname "$0")/lib.bash"
source "$(dirname "$0")/python_lib.bash"
source "$(dirname "$0")/report_lib.bash"
SCRIPTS="$HVD_SOURCE/scripts"

run_bounded 30 "framework-python.sh fortran" "$SCRIPTS/framework-python.sh" fortran
expect_rc 2 "an unknown framework"
expect_err "unknown framework 'fortran'; known: torch, torch2, tensorflow, mxnet" "an unknown framework"
run_bounded 30 "framework-python.sh torch" "$SCRIPTS/framework-python.sh" torch
expect_rc 0 "framework-python.sh torch"
[ "$OUT" = /usr/bin/python3 ] || fail "torch's interpreter is '$OUT', expected Debian's /usr/bin/python3"
pass "framework-python.sh: torch is /usr/bin/python3; an unknown name exits 2 naming the known ones"

run_bounded 30 "framework-python.sh mxnet" "$SCRIPTS/framework-python.sh" mxnet
expect_rc 0 "framework-python.sh mxnet (scripts/test.sh installs it)"
MX=$OUT
run_bounded 60 "mxnet's interpreter" "$MX" -c "import mxnet, numpy; print(mxnet.__version__, numpy.__version__)"
expect_rc 0 "import mxnet"
[ "$OUT" = "1.9.1 1.23.5" ] || fail "mxnet environment has '$OUT', expected mxnet 1.9.1 with numpy 1.23.5"
run_bounded 60 "import torch in mxnet's interpreter" "$MX" -c "import torch"
expect_rc 1 "the mxnet environment must not see torch"
pass "the mxnet environment: $MX, mxnet 1.9.1 on numpy 1.23.5, no torch"

for np in 2 3; do
  run_hvdrun 120 -np $np "$MX" "$TESTS_PY/common_layer.py" check
  expect_rc 0 "hvd.common at np=$np"
  for r in $(seq 0 $((np - 1))); do
    expect_lines "^\[$r\]<stdout>:shape rank=$r size=$np local=$r/$np homogeneous=True$" 1 "rank $r's shape at np=$np"
  done
  for check in broadcast_object allgather_object removed_set_refused bad_root_refused shut_down; do
    expect_lines "<stdout>:$check True$" $np "$check at np=$np"
  done
  expect_lines "<stdout>:set_allgather True set_rank=[01]$" $(( (np + 1) / 2 )) "the even ranks' set at np=$np"
  expect_lines "<stdout>:set_outside True$" $(( np / 2 )) "the odd ranks outside the set at np=$np"
  pass "hvd.common without torch at np=$np: shape, objects, a dynamic set, a refused root"
done

run_hvdrun 120 -np 3 --kill-grace 2 --report "$REPORT" "$MX" "$TESTS_PY/common_layer.py" raise 2
expect_rc 1 "rank 2 raises"
expect_root_cause "  rank 2 on localhost (pid "
expect_reason "ValueError: bad batch on rank 2"
expect_json 'j["root_cause"]["source"]' python
expect_json '[r["role"] for r in j["ranks"]]' "['consequence', 'consequence', 'root cause']"
pass "an exception in a torch-free rank is the root cause through hvd.common's error record"
