"""hvd.common on its own, in an interpreter without torch (the mxnet environment): init and the job's shape, objects
across ranks, a dynamic process set, a usage error, and the error record. Each check prints one line per rank that
tests/integration/python_common_layer.sh counts. Modes: `check` (every check), `raise R` (rank R raises ValueError
while the others wait in a barrier)."""

import sys

import hvd.common.basics as hvd
from hvd.common import failure_record
from hvd.common.exceptions import HorovodInternalError, HorovodUsageError
from hvd.common.objects import allgather_object, broadcast_object
from hvd.common.process_sets import add_process_set, global_process_set, remove_process_set

failure_record.install()
mode = sys.argv[1]
hvd.init(process_sets="dynamic")
rank, size = hvd.rank(), hvd.size()

if mode == "raise":
    if rank == int(sys.argv[2]):
        raise ValueError(f"bad batch on rank {rank}")
    from hvd.common import _core
    _core.barrier()
    sys.exit(0)

assert "torch" not in sys.modules, "hvd.common imported torch"
print(f"shape rank={rank} size={size} local={hvd.local_rank()}/{hvd.local_size()} homogeneous={hvd.is_homogeneous()}")
got = broadcast_object({"from": rank, "list": [rank] * 3}, root_rank=size - 1)
print(f"broadcast_object {got == {'from': size - 1, 'list': [size - 1] * 3}}")
gathered = allgather_object(("rank", rank, "x" * rank))
print(f"allgather_object {gathered == [('rank', r, 'x' * r) for r in range(size)]}")
evens = add_process_set([r for r in range(size) if r % 2 == 0])
if evens.included():
    members = allgather_object(rank, process_set=evens)
    print(f"set_allgather {members == list(range(0, size, 2))} set_rank={evens.rank()}")
else:
    print(f"set_outside {evens.rank() == -1}")
remove_process_set(evens)
try:
    broadcast_object(1, root_rank=0, process_set=evens)
    print("removed_set_refused False")
except ValueError as e:
    print(f"removed_set_refused {'not registered' in str(e)}")
try:
    broadcast_object(1, root_rank=size + 5)
    print("bad_root_refused False")
except HorovodUsageError:
    print("bad_root_refused True")
except HorovodInternalError as e:
    print(f"bad_root_refused wrong type {type(e).__name__}: {e}")
assert global_process_set.size() == size
hvd.shutdown()
print(f"shut_down {not hvd.is_initialized()}")
