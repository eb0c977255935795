"""Process sets across an elastic reset (hvdrun -H localhost:3 --min-np 2, HOROVOD_DYNAMIC_PROCESS_SETS=1).
argv[1]: a directory shared by the workers. Generation 1: every worker adds the set [0, 1] and uses it; then rank 2
kills itself (SIGKILL). The survivors' next global op fails, hvd.elastic.run resets them: the set is dropped at the
reset (its object invalidated, an op on it refused naming it), and added again it works at the new size.
Prints `elastic process sets ok rank=R size=S` on each survivor.
"""

import os
import signal
import sys

import torch

import hvd.torch as hvd

marker = os.path.join(sys.argv[1], "rank2-killed")
hvd.init()
old = None


@hvd.elastic.run
def body(state):
    global old
    if old is not None:  # after the reset
        assert old.process_set_id is None, old
        try:
            hvd.allreduce(torch.ones(1), process_set=old)
            raise AssertionError("an op on a set dropped at the reset was not refused")
        except ValueError as e:
            assert "is not registered" in str(e), e
        again = hvd.add_process_set([0, 1])
        got = hvd.allreduce(torch.tensor([float(hvd.rank() + 1)]), op=hvd.Sum, process_set=again).item()
        assert got == 3.0, got
        print(f"elastic process sets ok rank={hvd.rank()} size={hvd.size()}", flush=True)
        return
    first = not os.path.exists(marker)
    hvd.barrier()  # every worker looked at the marker before rank 2 makes it
    old = hvd.add_process_set([0, 1])
    if old.included():
        got = hvd.allreduce(torch.tensor([float(hvd.rank() + 1)]), op=hvd.Sum, process_set=old).item()
        assert got == 3.0, got
    print(f"elastic set added rank={hvd.rank()} size={hvd.size()}", flush=True)
    if not first:
        return
    if hvd.rank() == 2:
        open(marker, "w").close()
        os.kill(os.getpid(), signal.SIGKILL)
    while True:  # until rank 2's death fails the op and run() resets
        hvd.allreduce(torch.ones(1), name="spin")


body(hvd.elastic.ObjectState())
hvd.shutdown()
