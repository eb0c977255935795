# Shared by the tensorflow_*.sh tests (sourced after lib.bash and python_lib.bash): the tensorflow environment's
# interpreter (scripts/framework-python.sh; scripts/test.sh installs it) and hvd.tensorflow's op library.
TF_PY=$("$HVD_SOURCE/scripts/framework-python.sh" tensorflow) || fail "no tensorflow environment (scripts/install-framework-env.sh tensorflow)"
ls "$PYDIR"/hvd/tensorflow/_hvd_ops.so >/dev/null 2>&1 || fail "$PYDIR/hvd/tensorflow/_hvd_ops.so not built"
# TensorFlow's start-up chatter (CPU features, no CUDA) is not the test's.
export TF_CPP_MIN_LOG_LEVEL=2
