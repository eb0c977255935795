"""DistributedOptimizer and state broadcasting (run under hvdrun at any -np).

- Average / Sum / gradient_predivide_factor / fp16 / backward_passes_per_step: after backward + synchronize, every
  rank's .grad is the reduction of all ranks' local gradients (each rank computes all of them on one model copy).
- skip_synchronize() after a manual synchronize() (gradient clipping) steps with the reduced gradients.
- Adasum: parameters stay identical on every rank and move.
- broadcast_parameters (state_dict, named_parameters) and broadcast_optimizer_state for SGD, Adam, AdamW, Adagrad
  and RMSprop: root's parameters, state tensors and hyper-parameters end up on every rank.
Prints `optimizer ok` on success.
"""

import copy

import torch

import hvd.torch as hvd


def make_model():
    torch.manual_seed(7)
    return torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.Tanh(), torch.nn.Linear(3, 2))


def batch(r, step=0):
    g = torch.Generator().manual_seed(100 * r + step)
    return torch.randn(5, 4, generator=g), torch.randn(5, 2, generator=g)


def local_grads(model, r, passes=1):
    m = copy.deepcopy(model)
    m.zero_grad()
    for p in range(passes):
        x, y = batch(r, p)
        torch.nn.functional.mse_loss(m(x), y).backward()
    return [p.grad.clone() for p in m.parameters()]


def same_everywhere(what, tensors):
    flat = torch.cat([t.detach().flatten().to(torch.float64) for t in tensors])
    everyone = hvd.allgather(flat.unsqueeze(0))
    if not bool((everyone == everyone[0]).all()):
        raise AssertionError(f"{what}: differs across ranks")


def check_reduction(rank, size, op, predivide=1.0, compression=hvd.Compression.none, passes=1, tol=1e-6):
    model = make_model()
    want = [torch.zeros_like(p) for p in model.parameters()]
    for r in range(size):
        for w, g in zip(want, local_grads(model, r, passes)):
            w += g
    if op == hvd.Average:
        want = [w / size for w in want]
    sgd = torch.optim.SGD(model.parameters(), lr=0.1)
    opt = hvd.DistributedOptimizer(sgd, named_parameters=model.named_parameters(), op=op, compression=compression,
                                   gradient_predivide_factor=predivide, backward_passes_per_step=passes)
    opt.zero_grad()
    for p in range(passes):
        x, y = batch(rank, p)
        torch.nn.functional.mse_loss(model(x), y).backward()
    opt.synchronize()
    what = f"DistributedOptimizer op={op} predivide={predivide} {compression.__name__} passes={passes}"
    for (name, p), w in zip(model.named_parameters(), want):
        if not torch.allclose(p.grad, w, atol=tol, rtol=tol):
            raise AssertionError(f"{what}: {name}.grad {p.grad.flatten()[:4].tolist()}, expected "
                                 f"{w.flatten()[:4].tolist()}")
    before = [p.detach().clone() for p in model.parameters()]
    with opt.skip_synchronize():
        opt.step()
    for p, b, w in zip(model.parameters(), before, want):
        assert torch.allclose(p.detach(), b - 0.1 * p.grad, atol=1e-6), what + ": step did not use the reduced grad"
    same_everywhere(what, list(model.parameters()))


def check_adasum(rank, size):
    model = make_model()
    opt = hvd.DistributedOptimizer(torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9),
                                   named_parameters=model.named_parameters(), op=hvd.Adasum)
    start = [p.detach().clone() for p in model.parameters()]
    for step in range(3):
        opt.zero_grad()
        x, y = batch(rank, step)
        torch.nn.functional.mse_loss(model(x), y).backward()
        opt.step()
    same_everywhere("Adasum parameters", list(model.parameters()))
    assert any(not torch.equal(p.detach(), s) for p, s in zip(model.parameters(), start)), "Adasum did not move"


def check_broadcast_parameters(rank):
    model = make_model()
    with torch.no_grad():
        for p in model.parameters():
            p.add_(rank)
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    reference = make_model()
    for p, q in zip(model.parameters(), reference.parameters()):
        assert torch.equal(p, q), "broadcast_parameters(state_dict): not root's values"
    with torch.no_grad():
        for p in model.parameters():
            p.add_(rank)
    hvd.broadcast_parameters(model.named_parameters(), root_rank=0)
    for p, q in zip(model.parameters(), reference.parameters()):
        assert torch.equal(p, q), "broadcast_parameters(named_parameters): not root's values"


def check_optimizer_state(rank, size, make):
    model = make_model()
    optimizer = make(model.parameters(), rank)
    if rank == 0:  # only the root has state; the others must get it, hyper-parameters included
        for step in range(2):
            optimizer.zero_grad()
            x, y = batch(0, step)
            torch.nn.functional.mse_loss(model(x), y).backward()
            optimizer.step()
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    state = optimizer.state_dict()
    everyone = hvd.allgather_object(state)
    name = type(optimizer).__name__
    for r, other in enumerate(everyone):
        if other["param_groups"] != everyone[0]["param_groups"]:
            raise AssertionError(f"{name}: rank {r} param_groups {other['param_groups']} != root's")
        if sorted(other["state"]) != sorted(everyone[0]["state"]) or not other["state"]:
            raise AssertionError(f"{name}: rank {r} state keys {sorted(other['state'])} != root's")
        for pid, entry in everyone[0]["state"].items():
            for key, value in entry.items():
                mine = other["state"][pid][key]
                equal = torch.equal(mine, value) if torch.is_tensor(value) else mine == value
                if not equal:
                    raise AssertionError(f"{name}: rank {r} state[{pid}][{key}] differs from root's")


OPTIMIZERS = [
    lambda params, r: torch.optim.SGD(params, lr=0.1 + r, momentum=0.9),
    lambda params, r: torch.optim.Adam(params, lr=0.01 + r, betas=(0.8, 0.99)),
    lambda params, r: torch.optim.AdamW(params, lr=0.01 + r, weight_decay=0.1),
    lambda params, r: torch.optim.Adagrad(params, lr=0.1 + r),
    lambda params, r: torch.optim.RMSprop(params, lr=0.01 + r, momentum=0.5),
]


def main():
    hvd.init()
    rank, size = hvd.rank(), hvd.size()
    check_reduction(rank, size, hvd.Average)
    check_reduction(rank, size, hvd.Sum)
    check_reduction(rank, size, hvd.Average, predivide=2.0)
    check_reduction(rank, size, hvd.Average, passes=2)
    check_reduction(rank, size, hvd.Average, compression=hvd.Compression.fp16, tol=2e-3)
    if size & (size - 1) == 0:
        check_adasum(rank, size)
    check_broadcast_parameters(rank)
    for make in OPTIMIZERS:
        check_optimizer_state(rank, size, make)
    hvd.shutdown()
    print(f"optimizer ok rank={rank} size={size}")


if __name__ == "__main__":
    main()
