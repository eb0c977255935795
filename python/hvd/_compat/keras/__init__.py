"""`keras` under hvdrun --horovod-compat: Keras 2 (tf_keras) when TF_USE_LEGACY_KERAS asks for it, else the real
Keras 3. TensorFlow's variable redirects only tf.keras; Horovod scripts of the Keras 2 era `import keras` too, and
must get the same Keras as tf.keras, or their models and optimizers mix two Kerases. `keras.X` is then the very
module `tf_keras.X` (one class per name, so isinstance holds), through a finder that aliases each submodule.
"""

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys

_SHIM_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _legacy_requested():
    return os.environ.get("TF_USE_LEGACY_KERAS", "").strip().lower() in ("1", "true", "yes")


class _AliasLoader(importlib.abc.Loader):
    def __init__(self, target):
        self._target = target

    def create_module(self, spec):
        return importlib.import_module(self._target)

    def exec_module(self, module):
        pass


class _TfKerasAliases(importlib.abc.MetaPathFinder):
    """keras.X -> tf_keras.X, the same module object."""

    def find_spec(self, fullname, path=None, target=None):
        if not fullname.startswith("keras."):
            return None
        alias = "tf_keras." + fullname[len("keras."):]
        if importlib.util.find_spec(alias) is None:
            return None
        return importlib.machinery.ModuleSpec(fullname, _AliasLoader(alias))


if _legacy_requested():
    import tf_keras as _keras
    sys.meta_path.insert(0, _TfKerasAliases())
else:
    # The real keras, found on the path without this folder.
    _spec = importlib.machinery.PathFinder.find_spec(
        "keras", [p for p in sys.path if os.path.abspath(p or ".") != _SHIM_ROOT])
    if _spec is None:
        raise ImportError("No module named 'keras'")
    _keras = importlib.util.module_from_spec(_spec)
    sys.modules["keras"] = _keras
    _spec.loader.exec_module(_keras)
sys.modules["keras"] = _keras
