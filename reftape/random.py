"""`tf.random`: NumPy-backed draws. The numbers differ from TF's generators; conformance tests
that need randomness fix the data on both sides instead of relying on equal streams."""

from typing import Any as _Any

import numpy as _np

from . import dtypes as _dtypes
from .tensor import EagerTensor as _EagerTensor
from .thread_state import this_thread as _this_thread

_generator = _np.random.default_rng()


def set_seed(seed: int) -> None:
    global _generator
    _generator = _np.random.default_rng(seed)


def normal(shape: _Any, mean: float = 0.0, stddev: float = 1.0, dtype: _Any = _dtypes.float32, seed: _Any = None,
           name: _Any = None) -> _EagerTensor:
    dtype = _dtypes.as_dtype(dtype)
    return _drawn(_EagerTensor(_generator.normal(mean, stddev, tuple(shape)).astype(dtype.as_numpy_dtype), dtype))


def uniform(shape: _Any, minval: float = 0.0, maxval: float = 1.0, dtype: _Any = _dtypes.float32, seed: _Any = None,
            name: _Any = None) -> _EagerTensor:
    dtype = _dtypes.as_dtype(dtype)
    return _drawn(_EagerTensor(_generator.uniform(minval, maxval, tuple(shape)).astype(dtype.as_numpy_dtype), dtype))


def _drawn(tensor: _EagerTensor) -> _EagerTensor:
    """A draw: a tf.function being traced cannot replay it (each call draws anew), so Python runs at each call."""
    if _this_thread.state.tracer is not None:
        _this_thread.state.tracer.replayable = False
    return tensor
