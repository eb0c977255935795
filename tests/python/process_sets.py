"""Process sets through hvd.torch (or, with PARITY_MODULE=horovod.torch under --horovod-compat, the horovod shim),
under hvdrun at -np 2 or more with HOROVOD_DYNAMIC_PROCESS_SETS=1 (argv[1] == "dynamic") or without (static).

static:  init(process_sets=[ProcessSet([1, 0]), ProcessSet(even ranks)]): ids, ranks, rank(), size(), included();
         every op with process_set= (allreduce and its in-place/async/grouped forms, allgather, grouped_allgather,
         broadcast with a job-rank root, alltoall, reducescatter, grouped_reducescatter, barrier, the *_object
         helpers, broadcast_parameters, broadcast_optimizer_state, DistributedOptimizer(process_set=), gradients of
         allreduce/allgather/broadcast) checked against the set's ranks; a shape mismatch in a set names its ranks by
         their job ranks; a rank outside a set gets ValueError naming the set and its ranks, and its
         DistributedOptimizer(process_set=) steps locally; add_process_set without HOROVOD_DYNAMIC_PROCESS_SETS is
         refused saying so.
dynamic: add_process_set/remove_process_set with Horovod's return values; bad rank lists (duplicate, out of range,
         empty, a set registered twice) refused naming the value; a removed set's object is invalidated; the job goes
         on after each refusal.
Prints `process sets ok <mode> rank=R size=N`; any mismatch raises.
"""

import os
import sys

import torch

from parity_support import expect_raises, hvd


def ops_on(ps, rank):
    ranks, n = ps.ranks, ps.size()
    total = float(sum(r + 1 for r in ranks))
    x = torch.tensor([float(rank + 1)])
    assert hvd.allreduce(x, op=hvd.Sum, process_set=ps).item() == total
    assert hvd.allreduce(x, process_set=ps).item() == total / n
    y = x.clone()
    hvd.allreduce_(y, op=hvd.Sum, process_set=ps)
    assert y.item() == total
    assert hvd.synchronize(hvd.allreduce_async(x, op=hvd.Sum, process_set=ps)).item() == total
    g = hvd.grouped_allreduce([x, 2 * x], op=hvd.Sum, process_set=ps)
    assert [t.item() for t in g] == [total, 2 * total]
    ints = torch.tensor([rank + 1], dtype=torch.int32)
    assert hvd.allreduce(ints, op=hvd.Average, process_set=ps).item() == int(total) // n
    gathered = hvd.allgather(torch.tensor([[float(rank)]]), process_set=ps)
    assert gathered.flatten().tolist() == [float(r) for r in ranks], gathered
    ga = hvd.grouped_allgather([torch.tensor([rank]), torch.tensor([rank, rank])], process_set=ps)
    assert ga[0].tolist() == ranks and len(ga[1]) == 2 * n
    for root in ranks:
        assert hvd.broadcast(torch.tensor([rank * 10]), root, process_set=ps).item() == root * 10
        b = torch.tensor([rank * 10])
        hvd.broadcast_(b, root, process_set=ps)
        assert b.item() == root * 10
    a = torch.tensor([float(rank * 100 + i) for i in range(n)])
    got = hvd.alltoall(a, process_set=ps)
    assert got.tolist() == [float(r * 100 + ps.rank()) for r in ranks], got
    rs = hvd.reducescatter(torch.full((n, 2), float(rank + 1)), op=hvd.Sum, process_set=ps)
    assert rs.shape == (1, 2) and rs[0, 0].item() == total
    grs = hvd.grouped_reducescatter([torch.full((n,), float(rank + 1))], op=hvd.Sum, process_set=ps)
    assert grs[0].tolist() == [total]
    hvd.barrier(process_set=ps)
    # A mismatch names the ranks as hvd.rank() does, not by their places in the set (set [0, 2]: rank 2, not 1).
    last = ranks[-1]
    odd = torch.ones(2 if rank == last else 1)
    if n > 1:
        expect_raises(RuntimeError, lambda: hvd.allreduce(odd, name=f"ps{ps.process_set_id}.odd", process_set=ps),
                      f"rank {last} (", "sent shape [2]")
    assert hvd.broadcast_object({"from": rank}, root_rank=ranks[-1], process_set=ps) == {"from": ranks[-1]}
    assert hvd.allgather_object(rank, process_set=ps) == ranks

    # Gradients flow within the set.
    w = torch.tensor([1.0], requires_grad=True)
    hvd.allreduce(w * (rank + 1), op=hvd.Sum, process_set=ps).sum().backward()
    assert w.grad.item() == n * (rank + 1), w.grad  # Horovod's rule: the upstream gradient allreduced
    w = torch.tensor([float(rank)], requires_grad=True)
    hvd.allgather(w, process_set=ps).sum().backward()
    assert w.grad.item() == 1.0, w.grad

    # Training state among the set: its first rank's parameters and optimizer state; gradients averaged over it.
    torch.manual_seed(rank)
    model = torch.nn.Linear(3, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    hvd.broadcast_parameters(model.state_dict(), root_rank=ranks[0], process_set=ps)
    hvd.broadcast_optimizer_state(opt, root_rank=ranks[0], process_set=ps)
    opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters(), process_set=ps)
    model(torch.full((4, 3), float(rank))).sum().backward()
    opt.step()
    weights = hvd.allgather(model.weight.detach().reshape(1, -1), process_set=ps)
    assert all(torch.equal(weights[0], w) for w in weights), weights


def outsider(ps, rank):
    listed = ", ".join(str(r) for r in ps.ranks)
    needle = f"rank {rank} is not in process set {ps.process_set_id} (ranks [{listed}])"
    x = torch.tensor([1.0])
    for call in (lambda: hvd.allreduce(x, process_set=ps), lambda: hvd.allgather(x, process_set=ps),
                 lambda: hvd.broadcast(x, ps.ranks[0], process_set=ps), lambda: hvd.alltoall(x, process_set=ps),
                 lambda: hvd.reducescatter(x, process_set=ps), lambda: hvd.barrier(process_set=ps)):
        expect_raises(ValueError, call, needle)
    assert not ps.included() and ps.rank() == -1

    # Horovod's rule: a DistributedOptimizer of a set this rank is not in reduces nothing; step() is the local one.
    torch.manual_seed(rank)
    model, twin = torch.nn.Linear(3, 1), torch.nn.Linear(3, 1)
    twin.load_state_dict(model.state_dict())
    opt = hvd.DistributedOptimizer(torch.optim.SGD(model.parameters(), lr=0.1),
                                   named_parameters=model.named_parameters(), process_set=ps)
    local = torch.optim.SGD(twin.parameters(), lr=0.1)
    for m, o in ((model, opt), (twin, local)):
        o.zero_grad()
        m(torch.full((4, 3), float(rank + 1))).sum().backward()
        o.step()
    assert torch.equal(model.weight, twin.weight) and torch.equal(model.bias, twin.bias), (model.weight, twin.weight)


def static_mode():
    a = hvd.ProcessSet([1, 0])
    evens = None
    size_hint = int(os.environ.get("HOROVOD_SIZE", os.environ.get("OMPI_COMM_WORLD_SIZE", "2")))
    evens = hvd.ProcessSet(list(range(0, size_hint, 2)))
    hvd.init(process_sets=[a, evens])
    rank, size = hvd.rank(), hvd.size()
    assert (a.process_set_id, evens.process_set_id) == (1, 2), (a, evens)
    assert a.ranks == [0, 1] and a.size() == 2 and a.included() == (rank < 2)
    assert a.rank() == (rank if rank < 2 else -1)
    assert hvd.global_process_set.process_set_id == 0 and hvd.global_process_set.size() == size
    for ps in (hvd.global_process_set, a, evens):
        if ps.included():
            ops_on(ps, rank)
        else:
            outsider(ps, rank)
    if size > 2 and a.included():
        expect_raises(ValueError, lambda: hvd.broadcast(torch.tensor([1.0]), 2, process_set=a),
                      "root 2 is not in process set 1 (ranks [0, 1])")
    expect_raises(ValueError, lambda: hvd.add_process_set([0]), "HOROVOD_DYNAMIC_PROCESS_SETS=1")
    expect_raises(ValueError, lambda: hvd.allreduce(torch.tensor([1.0]), process_set=hvd.ProcessSet([0])),
                  "is not registered")
    return rank, size


def dynamic_mode():
    hvd.init()
    rank, size = hvd.rank(), hvd.size()
    expect_raises(ValueError, lambda: hvd.add_process_set([0, 1, 1]), "rank 1 is listed twice")
    expect_raises(ValueError, lambda: hvd.add_process_set([0, size]), f"rank {size} is out of range")
    expect_raises(ValueError, lambda: hvd.add_process_set([]), "the rank list is empty")
    ps = hvd.add_process_set([1, 0])
    assert ps.process_set_id == 1 and ps.ranks == [0, 1]
    expect_raises(ValueError, lambda: hvd.add_process_set(hvd.ProcessSet([0, 1])),
                  "the same ranks are process set 1 (ranks [0, 1]) already")
    if ps.included():
        ops_on(ps, rank)
    else:
        outsider(ps, rank)
    assert hvd.remove_process_set(hvd.global_process_set) is False
    assert hvd.remove_process_set(ps) is True
    assert ps.process_set_id is None
    expect_raises(ValueError, lambda: hvd.allreduce(torch.tensor([1.0]), process_set=ps), "is not registered")
    last = hvd.add_process_set([size - 1, 0])
    assert last.process_set_id == 2, last
    if last.included():
        ops_on(last, rank)
    ops_on(hvd.global_process_set, rank)
    return rank, size


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else "static"
    rank, size = static_mode() if mode == "static" else dynamic_mode()
    hvd.shutdown()
    print(f"process sets ok {mode} rank={rank} size={size}", flush=True)


if __name__ == "__main__":
    main()
