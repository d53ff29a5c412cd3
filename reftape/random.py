"""`tf.random`: NumPy-backed draws. The numbers differ from TF's generators; conformance tests
that need randomness fix the data on both sides instead of relying on equal streams."""

from __future__ import annotations

from typing import Any

import numpy as np

from . import dtypes as _dtypes
from .tensor import EagerTensor

_generator = np.random.default_rng()


def set_seed(seed: int) -> None:
    global _generator
    _generator = np.random.default_rng(seed)


def normal(shape: Any, mean: float = 0.0, stddev: float = 1.0, dtype: Any = _dtypes.float32, seed: Any = None,
           name: Any = None) -> EagerTensor:
    dtype = _dtypes.as_dtype(dtype)
    return EagerTensor(_generator.normal(mean, stddev, tuple(shape)).astype(dtype.as_numpy_dtype), dtype)


def uniform(shape: Any, minval: float = 0.0, maxval: float = 1.0, dtype: Any = _dtypes.float32, seed: Any = None,
            name: Any = None) -> EagerTensor:
    dtype = _dtypes.as_dtype(dtype)
    return EagerTensor(_generator.uniform(minval, maxval, tuple(shape)).astype(dtype.as_numpy_dtype), dtype)
