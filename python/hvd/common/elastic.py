"""Elastic training's framework-free part, as horovod.common.elastic: the State protocol, ObjectState, and the run
loop with the job-level calls under it (libhvd's hvd::elastic::enabled/reset/hosts_updated). Each framework module
adds its own states (TorchState, TensorFlowKerasState, ...) on State and re-exports run.

The loop is Horovod's run_fn: sync, call the function; on a lost peer or a re-formed job (HorovodInternalError of
kind PeerLost or Membership) restore the last commit, reset, run the reset callbacks and go again; on
HostsUpdatedInterrupt (raised by commit() on every rank at once) the same without the restore. Any other error,
and a reset that fails (hvdrun has no place for this worker any more), propagates.
"""

import copy
import functools

from hvd.common import _core, basics, process_sets
from hvd.common.exceptions import ErrorKind, HorovodInternalError, HostsUpdatedInterrupt
from hvd.common.objects import broadcast_object


def enabled():
    """Whether hvdrun started this process as part of an elastic job (HOROVOD_ELASTIC=1). Callable before init()."""
    return _core.elastic_enabled()


def hosts_updated():
    """Collective in an elastic job: whether rank 0 heard of added or removed hosts since the last reset."""
    return enabled() and _core.elastic_hosts_updated()


def reset():
    """Re-forms the job in process: shutdown, then init with the place hvdrun assigns (rank and size may change).
    Raises HorovodInternalError (kind Membership) when hvdrun has no place for this worker any more. Process sets
    other than the global one are dropped (their ranks may be gone): their objects are invalidated; add them again
    (add_process_set) in the reset callback."""
    process_sets.forget_all()
    _core.elastic_reset()


def generation():
    """hvdrun's count of the job's formations (grows at every reset); -1 outside an elastic job."""
    return _core.elastic_generation()


def _recoverable(error):
    # libhvd's errors carry their kind; one raised by Python code has none and, as in Horovod, also resets.
    kind = getattr(error, "kind", None)
    return enabled() and kind in (None, ErrorKind.PeerLost, ErrorKind.Membership)


def run(func):
    """Decorates func(state, *args, **kwargs) so that it survives workers coming and going (see the module)."""

    @functools.wraps(func)
    def wrapper(state, *args, **kwargs):
        skip_sync, after_reset = False, False
        while True:
            try:
                if after_reset:
                    # Inside the try: a peer lost here is one more reset, not the end of the job.
                    after_reset = False
                    basics.after_reset()
                    state.on_reset()
                if not skip_sync:
                    state.sync()
                return func(state, *args, **kwargs)
            except HorovodInternalError as error:
                if not _recoverable(error):
                    raise
                state.restore()
                skip_sync = False
            except HostsUpdatedInterrupt as interrupt:
                skip_sync = interrupt.skip_sync
            reset()
            after_reset = True

    return wrapper


class State:
    """The base of every state: save/restore/sync are the subclass's; commit and the reset callbacks are here."""

    def __init__(self, bcast_object=None, get_rank=None):
        self._bcast_object = bcast_object or broadcast_object
        self._rank = get_rank or basics.rank
        self._reset_callbacks = []

    def register_reset_callbacks(self, callbacks):
        """Functions called after each reset, before sync() (e.g. to scale the learning rate by hvd.size())."""
        self._reset_callbacks.extend(callbacks)

    def on_reset(self):
        self.reset()
        for callback in self._reset_callbacks:
            callback()

    def commit(self):
        """Saves the state, then raises HostsUpdatedInterrupt on every rank if hosts were added or removed."""
        self.save()
        self.check_host_updates()

    def check_host_updates(self):
        if hosts_updated():
            raise HostsUpdatedInterrupt(False)

    def save(self):
        raise NotImplementedError(f"{type(self).__name__}.save")

    def restore(self):
        raise NotImplementedError(f"{type(self).__name__}.restore")

    def sync(self):
        raise NotImplementedError(f"{type(self).__name__}.sync")

    def reset(self):
        pass


class ObjectState(State):
    """Keeps its keyword arguments as attributes (state.epoch, ...): save() copies them, sync() gives every rank
    rank 0's (pickled)."""

    def __init__(self, bcast_object=None, get_rank=None, **kwargs):
        self._saved_state = kwargs
        self._set_attrs()
        super().__init__(bcast_object=bcast_object, get_rank=get_rank)

    def save(self):
        self._saved_state = {name: copy.deepcopy(getattr(self, name)) for name in self._saved_state}

    def restore(self):
        self._set_attrs()

    def sync(self):
        if self._saved_state:
            self._saved_state = self._bcast_object(self._saved_state)
            self._set_attrs()

    def _set_attrs(self):
        for name, value in self._saved_state.items():
            setattr(self, name, copy.deepcopy(value))
