# hvdrun --horovod-compat: an unmodified Horovod-style script (import horovod.torch as hvd; tests/python/
# horovod_seed_mnist.py) trains at np=2, rank 0 alone prints the test line and writes checkpoints. Without the flag
# `horovod` is not importable. The installed tree (cmake --install) works the same way with no PYTHONPATH at all,
# and an hvdrun without the package beside it refuses the flag (exit 2) naming where it looked.
source "$(dirname "$0")/lib.bash"
source "$(dirname "$0")/python_lib.bash"
[ -d /usr/share/datasets/fashion-mnist ] || { echo "skip: dataset-fashion-mnist not installed"; exit 77; }

run_hvdrun 60 -np 1 "$PY" -c "import horovod"
expect_rc 1 "import horovod without --horovod-compat"
expect_err "No module named 'horovod'" "import horovod without --horovod-compat"
pass "without --horovod-compat nothing named horovod is importable"

cd "$TEST_TMP"
run_hvdrun 120 --horovod-compat -np 2 "$PY" "$TESTS_PY/horovod_seed_mnist.py" --epochs 2 --batches-per-epoch 40 \
  --log-interval 20 --checkpoint-format "$TEST_TMP/checkpoint-{epoch}.pth.tar"
expect_rc 0 "the Horovod-style script under --horovod-compat"
expect_lines "^\[0\]<stdout>:Test set: Average loss" 2 "rank 0's test lines"
expect_lines "^\[1\]<stdout>:Test set" 0 "rank 1 prints no test line"
[ -s checkpoint-1.pth.tar ] && [ -s checkpoint-2.pth.tar ] || fail "rank 0's checkpoints missing: $(ls)"
pass "unmodified Horovod-style script trained 2 epochs at np=2: $(grep -m1 'Test set' <<<"$OUT" | sed 's/.*stdout>://')"

prefix="$TEST_TMP/prefix"
cmake --install "$HVD_BIN/.." --prefix "$prefix" >"$TEST_TMP/install.log" 2>&1 ||
  { cat "$TEST_TMP/install.log"; fail "cmake --install"; }
HVDRUN="$prefix/bin/hvdrun"
unset PYTHONPATH
script='import horovod.torch as hvd, hvd as h, torch
hvd.init()
print("installed", hvd.allreduce(torch.ones(1), op=hvd.Sum).item(), h.__file__)'
run_hvdrun 60 --horovod-compat -np 2 "$PY" -c "$script"
expect_rc 0 "the installed package under --horovod-compat"
expect_lines "installed 2.0 $prefix/lib/python3/dist-packages/hvd/__init__.py" 2 "the installed package"
pass "installed: hvd under $prefix, horovod.torch through the installed hvdrun's shim"

mkdir -p "$TEST_TMP/lonely/bin" && cp "$HVD_BIN/hvdrun" "$TEST_TMP/lonely/bin/"
HVDRUN="$TEST_TMP/lonely/bin/hvdrun"
run_hvdrun 30 --horovod-compat -np 1 "$PY" -c "pass"
expect_rc 2 "--horovod-compat without the package"
expect_err "$TEST_TMP/lonely/python/hvd/_compat" "--horovod-compat without the package"
pass "an hvdrun without the package refuses --horovod-compat, naming where it looked"
