"""hvd.elastic.run and the job-level calls under it (libhvd's hvd::elastic::enabled/reset/hosts_updated).

The loop is Horovod's run_fn: sync, call the function; on a lost peer or a re-formed job (HorovodInternalError of
kind PeerLost or Membership) restore the last commit, reset, run the reset callbacks and go again; on
HostsUpdatedInterrupt (raised by commit() on every rank at once) the same without the restore. Any other error,
and a reset that fails (hvdrun has no place for this worker any more), propagates.
"""

import functools

from hvd.torch import _C
from hvd.torch import basics
from hvd.torch.basics import HorovodInternalError


class HostsUpdatedInterrupt(RuntimeError):
    """Raised by State.commit() on every rank when hvdrun announced added or removed hosts: nothing is lost, run()
    re-forms the job from this commit. skip_sync is False: hvd re-syncs after every reset."""

    def __init__(self, skip_sync=False):
        super().__init__("hvd.elastic: hosts were added or removed; the job is re-formed from the last commit")
        self.skip_sync = skip_sync


def enabled():
    """Whether hvdrun started this process as part of an elastic job (HOROVOD_ELASTIC=1). Callable before init()."""
    return _C.elastic_enabled()


def hosts_updated():
    """Collective in an elastic job: whether rank 0 heard of added or removed hosts since the last reset."""
    return enabled() and _C.elastic_hosts_updated()


def reset():
    """Re-forms the job in process: shutdown, then init with the place hvdrun assigns (rank and size may change).
    Raises HorovodInternalError (kind Membership) when hvdrun has no place for this worker any more. Process sets
    other than the global one are dropped (their ranks may be gone): their objects are invalidated; add them again
    (add_process_set) in the reset callback."""
    from hvd.torch.basics import _registry
    for ps in _registry.values():
        ps.invalidate()
    _registry.clear()
    _C.elastic_reset()


def generation():
    """hvdrun's count of the job's formations (grows at every reset); -1 outside an elastic job."""
    return _C.elastic_generation()


def _recoverable(error):
    # libhvd's errors carry their kind; one raised by Python code has none and, as in Horovod, also resets.
    kind = getattr(error, "kind", None)
    return enabled() and kind in (None, _C.ErrorKind.PeerLost, _C.ErrorKind.Membership)


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
                    basics._after_reset()
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
