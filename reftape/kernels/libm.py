"""The C math library's functions, which TF's kernels call in their scalar loops (glibc's, where NumPy computes
the same functions otherwise: its own float32 sin and cos differ from sinf and cosf by an ulp now and then)."""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
from typing import Callable

import numpy as np


@functools.lru_cache(maxsize=None)
def c_function(name: str, dtype: type, arity: int = 1) -> Callable[..., float] | None:
    """C's `name` of `arity` float32 (`name` + "f") or float64 arguments; None where ctypes finds no C math
    library."""
    c_type = ctypes.c_float if dtype is np.float32 else ctypes.c_double
    try:
        function = getattr(ctypes.CDLL(ctypes.util.find_library("m") or "libm.so.6"),
                           name + "f" if dtype is np.float32 else name)
    except (OSError, AttributeError):
        return None
    function.restype, function.argtypes = c_type, [c_type] * arity
    return function


def elementwise(name: str, fallback: Callable[..., np.ndarray]) -> Callable[..., np.ndarray]:
    """C's `name` element by element on float32 or float64 arrays of one shape (`fallback` where there is no C
    library)."""
    def apply(*arrays: np.ndarray) -> np.ndarray:
        function = c_function(name, arrays[0].dtype.type, len(arrays))
        if function is None:
            return fallback(*arrays)
        flat = zip(*(a.reshape(-1).tolist() for a in arrays))
        return np.array([function(*v) for v in flat], arrays[0].dtype).reshape(arrays[0].shape)
    return apply
