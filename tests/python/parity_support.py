"""What the scripts that hold hvd.torch to Horovod's behaviour (parity.py, process_sets.py) share: the module under
test, `hvd` (hvd.torch, or with PARITY_MODULE=horovod.torch under `hvdrun --horovod-compat` the horovod shim), and
expect_raises. The scripts import it from their own folder (Python puts a script's folder first on sys.path).
"""

import importlib
import os

hvd = importlib.import_module(os.environ.get("PARITY_MODULE", "hvd.torch"))


def expect_raises(exc_type, fn, *needles):
    """Calls fn, which must raise exc_type with every needle in its message; returns the exception."""
    try:
        fn()
    except exc_type as e:
        for needle in needles:
            assert needle in str(e), f"{exc_type.__name__} lacks {needle!r}: {e}"
        return e
    raise AssertionError(f"expected {exc_type.__name__} with {needles}; nothing was raised")
