"""Python's uncaught exceptions go through libhvd's one cause-or-consequence rule (hvd_record_uncaught), not a copy:
run alone (no hvdrun, no init). Each case writes what the engine would have left in the error file, hands an
exception to hvd.common.failure_record.record, and checks what the rule made of it. Prints "rule ok" at the end.
"""

import json
import os
import sys
import tempfile

from hvd.common import _core, failure_record


def raised(error):
    try:
        raise error
    except BaseException as e:  # noqa: B036 - the test hands any exception over as the hook would
        return type(e), e, e.__traceback__


def hvd_error(message, peer=-1, tensor=""):
    e = _core.HorovodInternalError(message)
    e.peer, e.tensor = peer, tensor
    return e


def record(path, before, error):
    if before is None:
        if os.path.exists(path):
            os.unlink(path)
    else:
        with open(path, "w") as f:
            json.dump(before, f)
    failure_record.record(path, *raised(error))
    with open(path) as f:
        return json.load(f)


def check(what, got, expected):
    if got != expected:
        sys.exit(f"FAIL: {what}: {got!r}, expected {expected!r}")


def main():
    path = os.path.join(tempfile.mkdtemp(), "0.json")
    stall = {"code": "stall", "tensor": "wait", "seconds": 3, "waiting": ["allreduce 'wait' waited 3 s for rank 1"]}
    engine = {"role": "consequence", "reason": "hvd is shut down: stalled", "blame": [1], "tensor": "wait",
              "stall": True, "stop": stall, "source": "hvd", "time_ms": 77}
    r = record(path, engine, hvd_error("hvd is shut down: stalled for more than 3 s"))
    check("a stall's consequence: role", r["role"], "consequence")
    check("a stall's consequence: stall kept", r.get("stall"), True)
    check("a stall's consequence: stop kept", r.get("stop"), stall)
    check("a stall's consequence: blame, time, tensor", (r["blame"], r["time_ms"], r["tensor"]), ([1], 77, "wait"))
    check("a stall's consequence: reason", r["reason"],
          "HorovodInternalError: hvd is shut down: stalled for more than 3 s")
    check("a stall's consequence: source", r["source"], "python")
    check("a stall's consequence: frames", any("failure_record_rule.py" in d for d in r["details"]), True)

    r = record(path, None, hvd_error("allreduce 'x': rank 2 sent shape [8]", peer=2, tensor="x"))
    check("a peer's fault", (r["role"], r.get("blame"), r.get("tensor")), ("consequence", [2], "x"))

    r = record(path, engine, RuntimeError("boom\nsecond line"))
    check("any other exception", (r["role"], r["reason"], r["details"][-1]),
          ("cause", "RuntimeError: boom", "second line"))
    check("any other exception: no stall", "stall" in r, False)
    print("rule ok")


if __name__ == "__main__":
    main()
