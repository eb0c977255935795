"""CUDA tensors through hvd.torch (NCCL), for a machine with a GPU and a CUDA-enabled torch of the release hvd was
built against: allreduce, allgather, broadcast and a DistributedOptimizer step on device local_rank, checked
against the same ops on the CPU. Exits 77 when torch sees no GPU. Prints `gpu ok` on success.
"""

import sys

import torch

import hvd.torch as hvd


def main():
    if not torch.cuda.is_available():
        print("skip: torch sees no CUDA device")
        sys.exit(77)
    hvd.init()
    rank, size = hvd.rank(), hvd.size()
    torch.cuda.set_device(hvd.local_rank())
    device = torch.device("cuda", hvd.local_rank())
    x = torch.arange(1000, dtype=torch.float32) + rank
    for op in (hvd.Sum, hvd.Average, hvd.Max):
        got = hvd.allreduce(x.to(device), op=op, name=f"gpu.ar.{op}")
        assert got.is_cuda and torch.allclose(got.cpu(), hvd.allreduce(x, op=op, name=f"cpu.ar.{op}")), f"{op}"
    got = hvd.allgather(x[:rank + 1].to(device))
    assert got.is_cuda and torch.equal(got.cpu(), hvd.allgather(x[:rank + 1])), "allgather"
    got = hvd.broadcast(x.to(device), root_rank=0)
    assert got.is_cuda and torch.equal(got.cpu(), hvd.broadcast(x, root_rank=0)), "broadcast"

    torch.manual_seed(1)
    model = torch.nn.Linear(8, 2).to(device)
    opt = hvd.DistributedOptimizer(torch.optim.SGD(model.parameters(), lr=0.1),
                                   named_parameters=model.named_parameters())
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    model(torch.ones(4, 8, device=device) * (rank + 1)).sum().backward()
    opt.step()
    flat = torch.cat([p.detach().flatten() for p in model.parameters()])
    everyone = hvd.allgather(flat.unsqueeze(0))
    assert bool((everyone == everyone[0]).all()), "parameters differ across ranks after a GPU step"
    hvd.shutdown()
    print(f"gpu ok rank={rank} size={size}")


if __name__ == "__main__":
    main()
