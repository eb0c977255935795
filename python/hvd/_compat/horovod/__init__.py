"""`horovod` for unmodified Horovod scripts, re-exporting hvd's packages
(`horovod.torch`, `horovod.tensorflow`, `horovod.keras`, `horovod.mxnet`, `horovod.common`).

It is importable only where `hvdrun --horovod-compat` puts this folder's parent on the workers' PYTHONPATH; it
finds hvd itself from where it lies (<site>/hvd/_compat/horovod) when hvd is not on the path already.
"""

import os
import sys

try:
    import hvd
except ImportError:
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))))
    import hvd

__version__ = hvd.__version__
