"""hvd.elastic in a static job (run under hvdrun -np 2 or more; also importable as horovod.torch.elastic).

- TorchState(model, optimizer, epoch=, batch=, sampler=): restore() puts back the last commit (parameters,
  buffers, optimizer state tensors, step counts, learning rate, plain attributes, the sampler's progress) as often
  as needed; state made after the commit is dropped; commit() reuses its snapshot tensors.
- sync() gives every rank rank 0's model, optimizer state and attributes; training goes on in step after it.
- run(): syncs once and calls the function once; libhvd's errors carry their kind; outside an elastic job a
  HorovodInternalError (even a lost peer's) propagates, as any other error does.
- Reset callbacks run in order; ElasticSampler shards the rest of an epoch over the ranks there are.
Prints `elastic_state ok rank=R size=S` on success.
"""

import sys

import torch

if "--horovod" in sys.argv:
    import horovod.torch as hvd
    from horovod.torch.elastic.state import TorchState as CompatTorchState
    assert CompatTorchState is hvd.elastic.TorchState
else:
    import hvd.torch as hvd


def make_model(seed):
    torch.manual_seed(seed)
    return torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.BatchNorm1d(3), torch.nn.Linear(3, 2))


def train(model, optimizer, steps, seed):
    for step in range(steps):
        optimizer.zero_grad()
        data = torch.randn(8, 4, generator=torch.Generator().manual_seed(seed * 100 + step))
        model(data).pow(2).mean().backward()
        optimizer.step()


def snapshot(model, optimizer):
    tensors = [t.detach().clone() for t in model.state_dict().values()]
    for entry in optimizer.state_dict()["state"].values():
        tensors += [v.clone() if torch.is_tensor(v) else torch.tensor(float(v)) for v in entry.values()]
    return tensors


def same(a, b):
    return len(a) == len(b) and all(x.shape == y.shape and torch.equal(x, y) for x, y in zip(a, b))


def same_on_all_ranks(tensors, name):
    for i, t in enumerate(tensors):
        root = hvd.broadcast(t, root_rank=0, name=f"{name}.{i}")
        if not torch.equal(root, t):
            return False
    return True


def check_commit_restore():
    model = make_model(1)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    sampler = hvd.elastic.ElasticSampler(list(range(100)), shuffle=True, seed=3)
    state = hvd.elastic.TorchState(model, optimizer, sampler=sampler, epoch=0, batch=0, note="start")
    assert state.model is model and state.optimizer is optimizer and state.sampler is sampler
    train(model, optimizer, 2, seed=1)
    sampler.record_batch(0, 10)
    state.epoch, state.batch, state.note = 2, 5, {"a": [1, 2]}
    state.commit()
    saved = snapshot(model, optimizer)
    saved_tensor_ids = [id(t) for t in state._handlers["model"]._saved.values()]
    for attempt in range(2):
        train(model, optimizer, 3, seed=10 + attempt)
        optimizer.param_groups[0]["lr"] = 0.5
        sampler.record_batch(1, 10)
        state.epoch, state.batch = 7, 1
        state.note["a"].append(3)
        assert not same(snapshot(model, optimizer), saved), "training did not change the model"
        state.restore()
        assert same(snapshot(model, optimizer), saved), f"restore {attempt}: tensors differ from the commit"
        assert optimizer.param_groups[0]["lr"] == 0.01, optimizer.param_groups[0]["lr"]
        assert (state.epoch, state.batch, state.note) == (2, 5, {"a": [1, 2]}), (state.epoch, state.batch, state.note)
        assert sampler.processed_num == 10 * hvd.size(), sampler.processed_num
    state.commit()
    assert [id(t) for t in state._handlers["model"]._saved.values()] == saved_tensor_ids, "commit reallocated"

    # Optimizer state created after the commit is dropped on restore.
    fresh = make_model(2)
    sgd = torch.optim.SGD(fresh.parameters(), lr=0.1, momentum=0.9)
    fresh_state = hvd.elastic.TorchState(fresh, sgd)
    initial = snapshot(fresh, sgd)
    train(fresh, sgd, 2, seed=3)
    assert sgd.state_dict()["state"], "SGD with momentum has state after steps"
    fresh_state.restore()
    assert same(snapshot(fresh, sgd), initial) and not sgd.state_dict()["state"]


def check_sync_and_run(rank, size):
    model = make_model(100 + rank)  # a different model on every rank
    sgd = torch.optim.SGD(model.parameters(), lr=0.1 * (rank + 1), momentum=0.9)
    train(model, sgd, 1 + rank, seed=rank)
    optimizer = hvd.DistributedOptimizer(sgd, named_parameters=model.named_parameters())
    state = hvd.elastic.TorchState(model, optimizer, epoch=10 + rank, batch=0)
    calls = []

    @hvd.elastic.run
    def body(state, scale):
        calls.append(scale)
        assert same_on_all_ranks(snapshot(state.model, state.optimizer), "synced"), "sync left ranks different"
        assert state.epoch == 10 and state.optimizer.param_groups[0]["lr"] == 0.1
        train(state.model, state.optimizer, 2, seed=50 + rank)  # rank-dependent data, averaged gradients
        state.commit()
        return scale * 2

    assert body(state, 21) == 42 and calls == [21], calls
    # Parameters stay in step (BatchNorm's running statistics are local, as in any Horovod job).
    params = [p.detach().clone() for p in model.parameters()]
    assert same_on_all_ranks(params, "trained"), "ranks diverged after synced training"

    # Errors carry their kind; outside an elastic job none of them resets.
    assert not hvd.elastic.enabled()
    shape = (3,) if rank == size - 1 else (2,)

    @hvd.elastic.run
    def mismatch(state):
        calls.append("mismatch")
        hvd.allreduce(torch.ones(shape), name="elastic.mismatch")

    try:
        mismatch(state)
        raise AssertionError("a mismatched allreduce did not raise")
    except hvd.HorovodInternalError as e:
        from hvd.common.exceptions import ErrorKind
        assert e.kind == ErrorKind.Mismatch, e.kind
        assert e.tensor == "elastic.mismatch" and isinstance(e.rank, int), (e.tensor, e.rank)
    assert calls.count("mismatch") == 1

    @hvd.elastic.run
    def lost_peer(state):
        calls.append("lost")
        raise hvd.HorovodInternalError("a peer went away")  # resets in an elastic job only

    try:
        lost_peer(state)
        raise AssertionError("HorovodInternalError did not propagate in a static job")
    except hvd.HorovodInternalError:
        pass
    assert calls.count("lost") == 1


def check_reset_callbacks_and_sampler(rank, size):
    dataset = list(range(103))
    sampler = hvd.elastic.ElasticSampler(dataset, shuffle=True, seed=5)
    state = hvd.elastic.TorchState(sampler=sampler, epoch=0)
    order = []
    state.register_reset_callbacks([lambda: order.append("first"), lambda: order.append("second")])
    sampler.set_epoch(1)
    first = list(sampler)
    assert len(first) == (103 + size - 1) // size
    sampler.record_batch(0, 4)  # every rank took 4 samples
    state.commit()
    state.on_reset()
    assert order == ["first", "second"], order
    rest = list(sampler)
    everyone = hvd.allgather_object(rest, name="elastic.sampler.rest")
    seen = hvd.allgather_object(first[:4], name="elastic.sampler.seen")
    covered = set(i for part in everyone for i in part) | set(i for part in seen for i in part)
    assert covered == set(dataset), f"samples missing after the reset: {sorted(set(dataset) - covered)}"
    assert not set(i for part in seen for i in part) & set(i for part in everyone for i in part), \
        "a processed sample came back after the reset"


def main():
    hvd.init()
    rank, size = hvd.rank(), hvd.size()
    assert size >= 2, "run with -np 2 or more"
    check_commit_restore()
    check_sync_and_run(rank, size)
    check_reset_callbacks_and_sampler(rank, size)
    print(f"elastic_state ok rank={rank} size={size}", flush=True)


if __name__ == "__main__":
    main()
