"""Elastic training, as horovod.torch.elastic: the job keeps going when hvdrun (--min-np/--max-np) loses, adds or
removes hosts. Surviving workers are not restarted: hvd.elastic.run catches the runtime's reset signal, restores the
last commit, re-forms the job in process (ranks and size may change) and calls the training function again.

    @hvd.elastic.run
    def train(state):
        for state.epoch in range(state.epoch, epochs):
            ...
            state.commit()

    state = hvd.elastic.TorchState(model, optimizer, epoch=0, batch=0)
    train(state)

Outside an elastic job the same script runs unchanged: run() syncs once and calls the function once.
"""

from hvd.common.elastic import enabled, generation, reset, run
from hvd.common.exceptions import HostsUpdatedInterrupt
from hvd.torch.elastic.sampler import ElasticSampler
from hvd.torch.elastic.state import ObjectState, State, TorchState

__all__ = ["run", "reset", "enabled", "generation", "State", "ObjectState", "TorchState", "ElasticSampler",
           "HostsUpdatedInterrupt"]
