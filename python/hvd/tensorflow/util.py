"""horovod.tensorflow.util's helpers, which Horovod's own tests and some scripts import."""

import functools

import tensorflow as tf


def _executing_eagerly():
    """Whether TensorFlow runs eagerly here (not inside a graph or tf.function)."""
    return tf.executing_eagerly()


def _make_subgraph(f):
    """`f` as a tf.function, so the ops it makes run together as one graph."""
    return tf.function(f)


def _cache(f):
    """Memoizes `f` on its (hashable) arguments, as Horovod caches one reduction function per configuration."""
    return functools.lru_cache(maxsize=None)(f)


def vars_to_refs(vars):
    """Variables (nested lists) to their hashable references."""
    if isinstance(vars, list):
        return tuple(vars_to_refs(v) for v in vars)
    return vars.ref()


def refs_to_vars(refs):
    """The inverse of vars_to_refs."""
    if isinstance(refs, tuple):
        return [refs_to_vars(r) for r in refs]
    return refs.deref()
