"""Subnormals and Eigen's two loops: which elements of a tensor TF's CPU kernels compute in Eigen's
packet (vector) loop and which in the scalar loop, and how each reads subnormal inputs. TF 2.21's AVX
build runs its kernels with denormals-are-zero and flush-to-zero: Eigen's packets (8 float32, 4 float64,
4 complex64, 2 complex128) read subnormal inputs as zero, while the last size % packet elements of a
tensor, and every element of a function without a packet version, go through a scalar loop that calls
glibc, which reads them from their bits. This module holds that split (`_PACKET`, `_COMPLEX_PACKET`,
`_scalar_loop`, `_vector_loop`, `_by_loop`), flush-to-zero of intermediates (`_ftz`), and every
`subnormal_rule` the op table attaches to a kernel that reads subnormals as they are: log, xlogy, pow
and lgamma as glibc reads them, atan2 in both loops, floormod's fmod, the packet sign, and the
functions that return a tiny argument unchanged (`_tiny_unchanged`).
"""

from __future__ import annotations

import math

import numpy as np

from ..primitives import REAL_FLUSHED, flush_subnormals

# Subnormal inputs where TF does not read them as zero. Eigen computes float32 in packets of 8 and
# float64 in packets of 4 (TF 2.21's AVX build), with denormals-are-zero; the last size % packet
# elements of a tensor go through a scalar loop that calls the C library (glibc), whose functions
# test the bits of tiny arguments: sin, tan, atan, log1p... return them unchanged. Some functions have
# no packet version for some dtypes (the scalar loop then computes every element).
_PACKET = {np.dtype(np.float32): 8, np.dtype(np.float64): 4}


def _subnormal(x: np.ndarray) -> np.ndarray:
    return (x != 0) & (np.abs(x) < np.finfo(x.dtype).tiny)


def _scalar_loop(*vectorized):
    """The elements TF's scalar loop computes (all of them for dtypes without a packet version)."""
    vectorized = frozenset(np.dtype(d) for d in vectorized)

    def positions(x: np.ndarray) -> np.ndarray:
        if x.dtype not in vectorized:
            return np.ones(x.shape, bool)
        flat = np.arange(x.size)
        return (flat >= x.size - x.size % _PACKET[x.dtype]).reshape(x.shape)
    return positions


_scalar_remainder = _scalar_loop(np.float32, np.float64)  # of the functions with packets for both dtypes


def _vector_loop(x: np.ndarray) -> np.ndarray:
    return ~_scalar_remainder(x)


def _everywhere(x: np.ndarray) -> np.ndarray:
    return np.ones(x.shape, bool)


def _tiny_unchanged(positions):
    """A subnormal rule: at `positions`, TF returns a subnormal input unchanged."""
    def rule(result, x):
        return np.where(_subnormal(x) & positions(x), x, result)
    return rule


# glibc normalises a subnormal argument by a product that denormals-are-zero flushes to zero, and reads
# the argument as 2^-150 (float32) or 2^-1075 (float64) in magnitude, keeping its sign bit
_GLIBC_SUBNORMAL_EXPONENT = {np.dtype(np.float32): -150, np.dtype(np.float64): -1075}
_LOGF_OF_SUBNORMAL = np.float32(-150 * math.log(2))  # -103.97208


def _glibc_logf(result, x):
    """float32 log in the scalar loop: log(2^-150) for a positive subnormal, NaN for a negative one.
    glibc's float64 log gives -inf there, as the vector loop does."""
    if x.dtype != np.float32:
        return result
    at = _subnormal(x) & _scalar_remainder(x)
    return np.where(at, np.where(x > 0, _LOGF_OF_SUBNORMAL, np.float32(np.nan)), result)


def _glibc_xlogy(result, x, y):
    """float32 xlogy in the scalar loop: x times log as `_glibc_logf` reads a subnormal y (an x read
    as zero gives zero)."""
    if y.dtype != np.float32:
        return result
    x, y = np.broadcast_arrays(x, y)
    at = _subnormal(y) & _scalar_remainder(y) & (np.abs(x) >= np.finfo(x.dtype).tiny)
    return np.where(at, x * np.where(y > 0, _LOGF_OF_SUBNORMAL, np.float32(np.nan)), result)


def _glibc_pow(result, x, y):
    """pow in the scalar loop: a subnormal base read as +-2^-150 (float32) or +-2^-1075 (float64), a
    subnormal exponent as it is (so a negative base to it is NaN, not 1); subnormal results flushed."""
    x, y = np.broadcast_arrays(x, y)
    at = (_subnormal(x) | _subnormal(y)) & _scalar_remainder(x)
    if not at.any():
        return result
    exponent = _GLIBC_SUBNORMAL_EXPONENT[x.dtype]
    wide_x, wide_y = x.astype(np.float64), y.astype(np.float64)
    with np.errstate(all="ignore"):  # overflow to inf and NaN for negative bases are the answers
        # glibc's pow is correctly rounded: (+-2^exponent)^y in x87 extended precision, where
        # exponent * y is exact (64 bits of mantissa), rounds as it does (float64's product is not exact)
        extended_y = wide_y.astype(np.longdouble)
        read_base = (np.power(np.copysign(np.longdouble(1), wide_x), extended_y)
                     * np.exp2(exponent * extended_y)).astype(np.float64)
        values = np.where(_subnormal(x), read_base, np.power(np.where(_subnormal(y), wide_x, 0), wide_y))
        return np.where(at, flush_subnormals(values.astype(result.dtype)), result)  # flush-to-zero still applies


# atan2 of arguments both read as zero, at least one of them subnormal, in Eigen's packet atan2: the
# angle of |y| = |x| (its pi/4 as the packet code rounds it), in the quadrant of the sign bits
_PACKET_QUARTER_PI = {np.dtype(np.float32): np.float32(0.7853981256484985), np.dtype(np.float64): 0.7853981633974484}


def _atan2_of_subnormals(result, y, x):
    """atan2 where an argument is subnormal. Vector loop: both arguments read as zero give +-pi/4 or
    +-3pi/4 (the quadrant of their sign bits). Scalar loop (glibc), for a subnormal y: over a zero x
    +-pi/2 (y's sign); over a subnormal x NaN in float32, +-pi/2 in float64; over a finite negative x
    -pi in float64 whatever y's sign; and a float32 y of normal magnitude over a negative subnormal x
    gives pi/2 one ulp below its rounding."""
    y, x = np.broadcast_arrays(y, x)
    dtype = result.dtype
    tiny = np.finfo(dtype).tiny
    loop = _scalar_remainder(y)
    read_as_zeros = (np.abs(y) < tiny) & (np.abs(x) < tiny) & (_subnormal(y) | _subnormal(x))
    quarter = _PACKET_QUARTER_PI[dtype]
    diagonal = np.copysign(np.where(np.signbit(x), dtype.type(3 * np.pi / 4), quarter), y).astype(dtype)
    result = np.where(read_as_zeros & ~loop, diagonal, result)
    tiny_y, tiny_x = _subnormal(y) & loop, _subnormal(x) & loop
    half_pi = np.copysign(dtype.type(np.pi / 2), y)
    if dtype == np.float32:
        over_tiny_x = np.copysign(np.nextafter(np.float32(np.pi / 2), np.float32(0)), y)
        result = np.where(tiny_x & np.isfinite(y) & (np.abs(y) >= tiny) & (x < 0), over_tiny_x, result)
        read = np.where(tiny_x, np.float32(np.nan), np.where(x == 0, half_pi, result))
    else:
        read = np.where(tiny_x | (x == 0), half_pi, np.where(np.isfinite(x) & (x < 0), -np.pi, result))
    return np.where(tiny_y, read, result)


def _sign_in_vector_loop(result, x):
    """Eigen's packet sign returns |x| for an input it reads as zero."""
    return np.where(_subnormal(x) & _vector_loop(x), np.abs(x), result)


def _fmod_of_tiny(result, x, y):
    """fmod returns a subnormal x unchanged (glibc computes it from the bits) and floormod's sign fix-up
    reads it as zero: x itself, for a divisor of normal magnitude."""
    return np.where(_subnormal(x) & (np.abs(y) >= np.finfo(y.dtype).tiny), x, result)


def _lgamma_of_tiny(result, x):
    """glibc's lgamma reads a subnormal of either sign as 2^-150 (float32) or 2^-1075 (float64) in
    magnitude (see _glibc_logf): -log of that, in every element (Eigen has no packet lgamma)."""
    return np.where(_subnormal(x), x.dtype.type(-_GLIBC_SUBNORMAL_EXPONENT[x.dtype] * math.log(2)), result)


# Complex packets: 4 complex64 or 2 complex128 (the complex division in elementwise.py)
_COMPLEX_PACKET = {np.dtype(np.complex64): 4, np.dtype(np.complex128): 2}


def _ftz(v: np.ndarray) -> np.ndarray:
    if v.__class__ is np.ndarray and v.dtype in REAL_FLUSHED:  # the array itself when nothing is below normal
        return flush_subnormals(v)
    return np.where(np.abs(v) < np.finfo(v.dtype).tiny, np.copysign(v.dtype.type(0), v), v)


def _by_loop(vector, scalar, *arrays):
    """An elementwise kernel as TF's CPU executor runs it: `vector` (Eigen's packet code) on the first
    size - size % P elements of the flattened broadcast result (P from `_PACKET` or `_COMPLEX_PACKET`),
    `scalar` on the rest. Both take and return flat arrays."""
    arrays = np.broadcast_arrays(*arrays)
    out = np.empty(arrays[0].shape, np.result_type(*arrays))
    flat, arrays = out.reshape(-1), [a.reshape(-1) for a in arrays]
    size = flat.size
    split = size - size % (_COMPLEX_PACKET.get(out.dtype) or _PACKET[out.dtype])
    with np.errstate(all="ignore"):
        if split:
            flat[:split] = vector(*[a[:split] for a in arrays])
        if split < size:
            flat[split:] = scalar(*[a[split:] for a in arrays])
    return out


# Special functions of issue 24: glibc's logf reading a float32 subnormal argument inside tf.math.special's kernels
_EULER_FLOAT32 = np.float32(0.5772156649015329)


def _expint_of_tiny(result, x):
    """Expint (TF's scalar kernel, logf in every element): a float32 subnormal is zero to the arithmetic and
    +-2^-150 to logf, so Ei is Euler's constant plus log(2^-150), NaN for a negative one (-0 < 0 is false)."""
    if x.dtype != np.float32:
        return result
    tiny = _subnormal(x)
    return np.where(tiny & (x > 0), _EULER_FLOAT32 + _LOGF_OF_SUBNORMAL, np.where(tiny & (x < 0), np.float32(np.nan), result))


def _bessel_y1_of_tiny(result, x):
    """BesselY1 in float32's scalar loop (logf there, Eigen's plog in packets): a positive subnormal gives
    J1 log x = 0 and -1/x = -inf, so -inf where the flushed zero gives 0 * log 0 = NaN."""
    if x.dtype != np.float32:
        return result
    return np.where(_subnormal(x) & (x > 0) & _scalar_remainder(x), np.float32(-np.inf), result)


def _next_after_of_tiny(result, x1, x2):
    """NextAfter where an input holds subnormals: C's nextafter compares x1 and x2 as floats (denormals-are-zero
    reads a subnormal as zero there: equal ones return x2's bits as they are), else steps x1's raw bits toward
    x2; its result is bits, never flushed (a subnormal stays)."""
    x1, x2 = np.broadcast_arrays(x1, x2)
    return np.where(flush_subnormals(x1) == flush_subnormals(x2), x2, np.nextafter(x1, x2))
