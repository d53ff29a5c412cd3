"""The C math library's functions, which TF's kernels call in their scalar loops (glibc's, where NumPy computes
the same functions otherwise: its own float32 sin and cos differ from sinf and cosf by an ulp now and then); glibc's
hypot and hypotf as whole-array computations (ComplexAbs calls them on every element)."""

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


def hypot(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """glibc 2.36's hypot (what TF's ComplexAbs calls for complex128; NumPy's differs by an ulp): the larger
    and smaller magnitude, scaled by 2^-600 above 2^511 or 2^600 below 2^-511, a square root corrected
    by one Newton step (its kernel without FMA), ax + ay where one is below the other's 2^-54."""
    x, y = np.abs(x), np.abs(y)
    ax, ay = np.fmax(x, y), np.fmin(x, y)
    big = ax > 2.0 ** 511
    tiny = ~big & (ay < 2.0 ** -511)
    scale = np.where(big, 2.0 ** -600, np.where(tiny, 2.0 ** 600, 1.0))
    sx, sy = ax * scale, ay * scale
    h = np.sqrt(sx * sx + sy * sy)
    near = h <= 2.0 * sy
    d1, d2 = h - sy, h - sx
    t1 = np.where(near, sx * (2.0 * d1 - sx), 2.0 * d2 * (sx - 2.0 * sy))
    t2 = np.where(near, (d1 - 2.0 * (sx - sy)) * d1, (4.0 * d2 - sy) * sy + d2 * d2)
    h = (h - (t1 + t2) / (2.0 * h)) / scale
    h = np.where(np.where(tiny, ax >= ay * 2.0 ** 54, ay <= ax * 2.0 ** -54), ax + ay, h)
    return np.where(np.isinf(x) | np.isinf(y), np.inf, np.where(np.isnan(x) | np.isnan(y), np.nan, h))


def complex_abs(x: np.ndarray) -> np.ndarray:
    """ComplexAbs: glibc's hypotf (the squares summed in double, rounded once) and hypot."""
    if x.dtype == np.complex64:
        wide = x.astype(np.complex128)
        h = np.sqrt(wide.real * wide.real + wide.imag * wide.imag)
        return np.where(np.isinf(x.real) | np.isinf(x.imag), np.inf, h).astype(np.float32)
    return hypot(x.real, x.imag)
