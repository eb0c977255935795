"""When the engine reduces a step's gradients (HVD_ENGINE_OVERLAP, docs/performance.md "Engine overlap"), counted
in the timeline rank 0 writes to TIMELINE (an argument): how many allreduce operations each step's gradients took.

The model's backward makes its 6 gradients at least 5 ms apart (a layer that sleeps in backward), far more than
the 30 us pause that ends a burst with overlap on, far less than HOROVOD_CYCLE_TIME (set to 2 s by the caller),
the pause that ends it with overlap off. So with overlap off the waiter (synchronize()) takes each step's burst in
one fused allreduce, and with it on the engine takes them as they come. Prints
'overlap steps=S ops=N slowest_ms=T' on rank 0: the ops of the steps' gradients, and the slowest step (well under
the cycle time when the waiter, not the engine's timer, took the burst); the caller compares them.
"""

import json
import sys
import time

import torch

import hvd.torch as hvd

STEPS = 4
LAYERS = 3  # a weight and a bias each: 6 gradients a step


class SlowBackward(torch.autograd.Function):
    """Identity forward; backward sleeps, so the gradients before and after it come apart."""

    @staticmethod
    def forward(ctx, x):
        return x

    @staticmethod
    def backward(ctx, grad):
        time.sleep(0.005)
        return grad


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = torch.nn.ModuleList(torch.nn.Linear(8, 8) for _ in range(LAYERS))

    def forward(self, x):
        for layer in self.layers:
            x = SlowBackward.apply(layer(x))
        return x


def main():
    timeline = sys.argv[1]
    hvd.init()
    torch.manual_seed(3)
    model = Model()
    opt = hvd.DistributedOptimizer(torch.optim.SGD(model.parameters(), lr=0.01),
                                   named_parameters=[(f"step/{n}", p) for n, p in model.named_parameters()])
    x = torch.randn(4, 8)
    model(x).sum().backward()  # the first step negotiates; the response cache holds the ones after
    opt.step()
    hvd.start_timeline(timeline)
    slowest = 0.0
    for _ in range(STEPS):
        start = time.monotonic()
        opt.zero_grad()
        model(x).sum().backward()
        opt.step()
        slowest = max(slowest, time.monotonic() - start)
    hvd.stop_timeline()
    if hvd.rank() == 0:
        with open(timeline) as f:
            events = json.load(f)
        ops = [e for e in events if e.get("cat") == "op" and e.get("name") == "allreduce" and
               any(t.startswith("grad/step/") for t in e.get("args", {}).get("tensors", []))]
        tensors = sum(len(e["args"]["tensors"]) for e in ops)
        if tensors != STEPS * 2 * LAYERS:
            raise SystemExit(f"the timeline holds {tensors} gradient allreduces, expected {STEPS * 2 * LAYERS}")
        print(f"overlap steps={STEPS} ops={len(ops)} slowest_ms={1000 * slowest:.0f}", flush=True)
    hvd.shutdown()


if __name__ == "__main__":
    main()
