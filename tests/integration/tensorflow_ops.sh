# hvd.tensorflow's ops (tests/python/tf_ops.py): every op, dtype and reduce op against references eagerly, inside
# tf.function (a graph of hvd's op types, no Python op) and in a tf.compat.v1 graph, every op's gradient, process
# sets and IndexedSlices, at np 2 and 3, through hvd.tensorflow and through horovod.tensorflow (--horovod-compat).
source "$(dirname "$0")/lib.bash"
source "$(dirname "$0")/python_lib.bash"
source "$(dirname "$0")/tensorflow_lib.bash"

checks="allreduce grouped_allreduce_allgather broadcast_alltoall_reducescatter tf_function v1_graph gradients
process_sets indexed_slices done"
for np in 2 3; do
  for module in hvd.tensorflow horovod.tensorflow; do
    compat=()
    [ "$module" = horovod.tensorflow ] && compat=(--horovod-compat)
    run_hvdrun 300 "${compat[@]}" -np $np "$TF_PY" "$TESTS_PY/tf_ops.py" "$module"
    expect_rc 0 "$module at np=$np"
    for check in $checks; do expect_lines "<stdout>:ok $check$" $np "$module np=$np: $check"; done
    pass "$module at np=$np: every op against its reference, tf.function, v1 graph, gradients, sets, IndexedSlices"
  done
done
