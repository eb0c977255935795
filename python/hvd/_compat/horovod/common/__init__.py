"""horovod.common is hvd.common: the framework-free layer, its submodules under Horovod's names."""

import sys

import hvd.common as _hvd_common
from hvd.common import basics, elastic, exceptions, process_sets  # noqa: F401

for _name in ("basics", "elastic", "exceptions", "process_sets"):
    sys.modules[f"{__name__}.{_name}"] = getattr(_hvd_common, _name)
