"""hvd's exceptions, as horovod.common.exceptions names them, and the refinement of libhvd's errors that every
framework module applies: a usage error (kind Usage) becomes HorovodUsageError."""

from hvd.common import _core

HorovodInternalError = _core.HorovodInternalError
ErrorKind = _core.ErrorKind


class HorovodUsageError(ValueError, HorovodInternalError):
    """A call libhvd refused as bad usage (an argument checked on the calling rank, a second op under a name still
    in flight, an op that cannot run after join). Horovod raises ValueError for the first two and RuntimeError for
    others; this is both (and a HorovodInternalError), so code written for either catches it."""


class HostsUpdatedInterrupt(RuntimeError):
    """Raised by State.commit() on every rank when hvdrun announced added or removed hosts: nothing is lost, run()
    re-forms the job from this commit. skip_sync is False: hvd re-syncs after every reset."""

    def __init__(self, skip_sync=False):
        super().__init__("hvd.elastic: hosts were added or removed; the job is re-formed from the last commit")
        self.skip_sync = skip_sync


def refine(error):
    """libhvd's error as Python should see it: a usage error becomes HorovodUsageError, others are unchanged."""
    if getattr(error, "kind", None) == ErrorKind.Usage and not isinstance(error, HorovodUsageError):
        refined = HorovodUsageError(str(error))
        for field in ("kind", "rank", "host", "peer", "tensor"):
            setattr(refined, field, getattr(error, field))
        return refined
    return error


def refused_at_once(handle):
    """Returns `handle`, raising HorovodUsageError now when libhvd refused the op on enqueue (its handle is then
    already done with that error), as Horovod raises from the *_async call itself."""
    if handle.poll():
        try:
            handle.wait()  # done: returns at once; a result is kept for synchronize()
        except HorovodInternalError as e:
            refined = refine(e)
            if refined is not e:
                raise refined from None
    return handle


def blocking(call, *args):
    """Runs a blocking binding call; what libhvd refuses as bad usage raises HorovodUsageError (a ValueError), as
    Horovod's blocking calls raise."""
    try:
        return call(*args)
    except HorovodInternalError as e:
        raise refine(e) from None


def started(call, *args):
    """Starts an op with `call(*args)` (a binding's *_async function) and returns its handle; whatever libhvd refuses
    at once (an argument checked on this rank, a name in flight) raises HorovodUsageError here."""
    try:
        handle = call(*args)
    except HorovodInternalError as e:
        raise refine(e) from None
    return refused_at_once(handle)
