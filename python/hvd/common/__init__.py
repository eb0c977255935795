"""hvd.common: what every framework module shares, written once (as Horovod's horovod.common): init and the job's
shape, errors, process sets, pickled objects, elastic state and its run loop, and the error record hvdrun's report
reads. Its extension, hvd.common._core, binds libhvd without any framework, so it loads in every framework's
environment (scripts/framework-python.sh); a framework module adds only its tensors, ops and optimizer.
"""

try:
    from hvd.common import _core  # noqa: F401
except ImportError as e:
    raise ImportError(f"hvd.common: cannot load its extension hvd.common._core ({e}); it is built for /usr/bin/python3 "
                      "(or a venv of it: scripts/framework-python.sh) and needs build/lib or the installed "
                      "libhvd") from e
