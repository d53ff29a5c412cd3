"""Loads real TensorFlow as a comparison oracle: quiet logs, deterministic ops, fixed threads.

The import is lazy (TensorFlow takes seconds to load) and happens once per process.
"""

from __future__ import annotations

import functools
import logging
import os
from types import ModuleType


@functools.lru_cache(maxsize=None)
def load_tensorflow() -> ModuleType:
    """Imports TensorFlow configured for reproducible comparisons and returns the module."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import tensorflow as tf

    tf.get_logger().setLevel(logging.ERROR)
    tf.config.experimental.enable_op_determinism()
    try:
        tf.config.threading.set_inter_op_parallelism_threads(1)
        tf.config.threading.set_intra_op_parallelism_threads(1)
    except RuntimeError:  # already initialised in this process: settings are fixed for good
        pass
    return tf
