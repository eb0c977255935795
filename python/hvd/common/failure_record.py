"""Why this rank failed, for hvdrun's report: an uncaught exception's type, message and last traceback frames go
to the file HVD_ERROR_FILE names (the format is common/failure_record.h's), as torchrun's @record does with
TORCHELASTIC_ERROR_FILE. Importing a framework module (hvd.torch, ...) installs the hook when hvdrun's agent set
the variable.

A cause, unless the exception is an hvd error that another rank is at fault for: its `peer`, or the consequence
libhvd's engine recorded when another rank's shutdown, death or stall stopped it (kept, with this traceback).
"""

import json
import os
import sys
import time
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
    lines = str(value).splitlines() or [""]
    frames = traceback.format_list(traceback.extract_tb(tb)[-_FRAMES:])
    entry = {"role": "cause", "reason": f"{kind.__name__}: {lines[0]}" if lines[0] else kind.__name__,
             "details": [line for f in frames for line in f.rstrip("\n").split("\n")] + lines[1:12],
             "source": "python", "time_ms": int(time.time() * 1000)}
    from hvd.common import _core
    if isinstance(value, _core.HorovodInternalError):
        _as_consequence(path, entry, value, _rank(_core))
    _write(path, entry)


def _rank(c):
    try:
        return c.rank()
    except Exception:  # not initialized, or shut down already
        return int(os.environ.get("HOROVOD_RANK", "-1"))


def _as_consequence(path, entry, error, rank):
    try:
        with open(path) as f:
            old = json.load(f)
    except (OSError, ValueError):
        old = None
    peer = getattr(error, "peer", -1)
    if peer is not None and peer >= 0 and peer == rank:
        pass  # this rank is the one at fault (a mismatch's odd one out): a cause
    elif isinstance(old, dict) and old.get("role") == "consequence":
        entry.update(role="consequence", blame=old.get("blame", []), time_ms=old.get("time_ms", entry["time_ms"]))
        if old.get("tensor"):
            entry["tensor"] = old["tensor"]
        if old.get("stall"):
            entry["stall"] = True
    elif peer is not None and peer >= 0:
        entry.update(role="consequence", blame=[peer])
    if getattr(error, "tensor", "") and "tensor" not in entry:
        entry["tensor"] = error.tensor


def _write(path, entry):
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w") as f:
        json.dump(entry, f)
    os.replace(tmp, path)
