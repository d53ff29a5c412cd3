"""Loads real TensorFlow as a comparison oracle: quiet logs, deterministic ops, fixed threads.

The import is lazy (TensorFlow takes seconds to load) and happens once per process. TensorFlow's
native libraries log start-up lines (oneDNN, CUDA probing) before its log level applies, so the
import and the runtime's first initialisation run with the process's stderr captured; the captured
text is shown only when the import fails. Its Python side logs through the `tensorflow` logger and
absl: ERROR records there (tf_should_use's "Object was never used ... TensorArray" blocks, about 190
lines a minute in a campaign) are kept off the terminal too, as the native ones are (level 3); only
FATAL/CRITICAL gets through.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import sys
import tempfile
from types import ModuleType
from typing import Iterator


@contextlib.contextmanager
def _captured_stderr() -> Iterator[tempfile.SpooledTemporaryFile]:
    """Redirects file descriptor 2 (where native code logs) to a temporary file for the block."""
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile(mode="w+b") as log:
        os.dup2(log.fileno(), 2)
        try:
            yield log
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)


def _silence_python_logs() -> None:
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    try:
        from absl import logging as absl_logging
    except ImportError:
        return
    absl_logging.set_verbosity(absl_logging.FATAL)
    absl_logging.set_stderrthreshold("fatal")


@functools.lru_cache(maxsize=None)
def load_tensorflow() -> ModuleType:
    """Imports TensorFlow configured for reproducible comparisons and returns the module."""
    _silence_python_logs()
    with _captured_stderr() as log:
        try:
            import tensorflow as tf
        except Exception as error:  # a broken installation: show what TensorFlow logged
            log.seek(0)
            logged = log.read().decode(errors="replace").strip()
            if not logged:
                raise
            raise ImportError(f"TensorFlow failed to import: {error}\n{logged}") from error
        tf.get_logger().setLevel(logging.CRITICAL)   # after the import: its first use sets INFO
        tf.config.experimental.enable_op_determinism()
        try:
            tf.config.threading.set_inter_op_parallelism_threads(1)
            tf.config.threading.set_intra_op_parallelism_threads(1)
        except RuntimeError:  # already initialised in this process: settings are fixed for good
            pass
        tf.constant(0.0) + 0.0  # the runtime's first op initialises devices, which logs too
    return tf


def onednn_enabled() -> bool:
    """TF's own answer (IsMklEnabled) to whether its oneDNN kernels are on in this process."""
    from tensorflow.python.util import _pywrap_util_port

    return bool(_pywrap_util_port.IsMklEnabled())
