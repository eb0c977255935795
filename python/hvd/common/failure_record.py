"""Why this rank failed, for hvdrun's report: an uncaught exception's type, message and last traceback frames go
to the file HVD_ERROR_FILE names (the format is common/failure_record.h's), as torchrun's @record does with
TORCHELASTIC_ERROR_FILE. Importing a framework module (hvd.torch, ...) installs the hook when hvdrun's agent set
the variable.

Whether the exception is a cause or a consequence of another rank's failure is libhvd's rule, not this module's:
it hands what Python knows to _core.record_uncaught (hvd_record_uncaught, runtime/engine/failure/record_rule.h).
"""

import os
import sys
import traceback

_FRAMES = 4  # the last frames of the traceback, as the report shows them


def install():
    path = os.environ.get("HVD_ERROR_FILE")
    if not path or getattr(sys.excepthook, "_hvd_record", False):
        return
    previous = sys.excepthook

    def hook(kind, value, tb):
        try:
            record(path, kind, value, tb)
        except Exception:  # the report is advice: never hide the exception itself
            pass
        previous(kind, value, tb)

    hook._hvd_record = True
    sys.excepthook = hook


def record(path, kind, value, tb):
    from hvd.common import _core
    frames = traceback.format_list(traceback.extract_tb(tb)[-_FRAMES:])
    hvd_error = isinstance(value, _core.HorovodInternalError)
    peer = getattr(value, "peer", -1) if hvd_error else -1
    tensor = getattr(value, "tensor", "") if hvd_error else ""
    _core.record_uncaught(path, kind.__name__, str(value), frames, hvd_error,
                          peer if isinstance(peer, int) else -1, tensor or "")
