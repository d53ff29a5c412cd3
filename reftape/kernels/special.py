"""Special functions as TF's kernels compute them: erf and erfc (the C library's, with Eigen's float64
erf, which is NaN where its exact square of x overflows), lgamma (C's, +inf at the poles), and digamma,
polygamma and the Hurwitz zeta function as Eigen computes them after Cephes, in the input's dtype
(float32 or float64 arithmetic, as TF's kernels for those dtypes). How glibc's lgamma reads a subnormal
is `subnormal.py`'s `_lgamma_of_tiny`.
"""

from __future__ import annotations

import math

import numpy as np


def _elementwise(fn):
    ufunc = np.frompyfunc(fn, 1, 1)
    return lambda x: np.asarray(ufunc(x), dtype=object).astype(x.dtype)


_erfc = _elementwise(math.erfc)
_math_erf = _elementwise(math.erf)

# Eigen's float64 erf (both loops) squares x exactly in two parts, which overflows from
# |x| = 0x1.ffffffcp+511 on: NaN there and at +-inf, not +-1 (measured on TF 2.21)
_ERF_FLOAT64_NAN_FROM = float.fromhex("0x1.ffffffcp+511")


def _erf(x):
    y = _math_erf(x)
    if x.dtype == np.float64:
        return np.where(np.abs(x) < _ERF_FLOAT64_NAN_FROM, y, np.nan)  # NaN inputs stay NaN
    return y


def _lgamma_scalar(v: float) -> float:
    """C's lgamma: log|Gamma(v)|, +inf at the poles (v a non-positive integer) and at +-inf."""
    if math.isnan(v):
        return v
    if math.isinf(v) or v <= 0 and v == math.floor(v):
        return math.inf
    return math.lgamma(v)


_lgamma = _elementwise(_lgamma_scalar)


# Cephes' asymptotic series of digamma as Eigen evaluates it, in the dtype: float32 and float64 coefficients
_DIGAMMA_SERIES = {np.dtype(np.float32): (1e8, (-4.16666666666666666667e-3, 3.96825396825396825397e-3,
                                                -8.33333333333333333333e-3, 8.33333333333333333333e-2)),
                   np.dtype(np.float64): (1e17, (8.33333333333333333333e-2, -2.10927960927960927961e-2,
                                                 7.57575757575757575758e-3, -4.16666666666666666667e-3,
                                                 3.96825396825396825397e-3, -8.33333333333333333333e-3,
                                                 8.33333333333333333333e-2))}


def _digamma(x):
    """Eigen's digamma in the dtype: NaN at non-positive integers, reflection below zero (pi / tan(pi r)
    of the distance r to the nearest integer, 0 at a half), the recurrence up to 10, then the series."""
    t = x.dtype.type
    limit, series = _DIGAMMA_SERIES[x.dtype]
    negative = x <= 0
    floor = np.floor(x)
    pole = negative & (floor == x)
    distance = np.where(x - floor > t(0.5), x - (floor + t(1)), x - floor)
    reflection = np.where(distance == t(0.5), t(0), t(np.pi) / np.tan(t(np.pi) * distance))
    s = np.where(negative, t(1) - x, x)
    w = np.zeros_like(s)
    below = s < t(10)
    while np.any(below):
        w = np.where(below, w + t(1) / s, w)
        s = np.where(below, s + t(1), s)
        below = s < t(10)
    z = t(1) / (s * s)
    poly = np.full_like(s, t(series[0]))
    for c in series[1:]:
        poly = poly * z + t(c)
    y = np.where(s < t(limit), z * poly, t(0))
    y = np.log(s) - t(0.5) / s - y - w
    return np.where(pole, t(np.nan), np.where(negative, y - reflection, y))


# Cephes' Euler-Maclaurin coefficients of the Hurwitz zeta function, as Eigen's zeta uses them
_ZETA_A = (12.0, -720.0, 30240.0, -1209600.0, 47900160.0, -1.8924375803183791606e9, 7.47242496e10,
           -2.950130727918164224e12, 1.1646782814350067249e14, -4.5979787224074726105e15,
           1.8152105401943546773e17, -7.1661652561756670113e18)


def _zeta_scalar(x, q, t):
    """The Hurwitz zeta function zeta(x, q) as Eigen (Cephes) computes it, in the NumPy scalar type `t`
    (float32 or float64, as TF's kernel computes; NumPy scalars overflow to an infinity as C does)."""
    x, q, zero, one = t(x), t(q), t(0), t(1)
    machep = t(np.finfo(t).eps / 2)
    if x == one:
        return t(np.inf)
    if x < one or np.isnan(x) or np.isnan(q):
        return t(np.nan)
    if q <= zero:
        if q == np.floor(q):
            return t(np.inf) if x == np.floor(x) and int(x) % 2 == 0 else t(np.nan)
        if x != np.floor(x):
            return t(np.nan)
    s, a, b, i = q ** -x, q, zero, 0
    while i < 9 or a <= t(9):
        i += 1
        a += one
        b = a ** -x
        s += b
        if s and abs(b / s) < machep:  # C's b / 0 is no stop either
            return s
    if b == zero:
        return s
    w = a
    s += b * w / (x - one) - t(0.5) * b
    a, k = one, zero
    for coefficient in _ZETA_A:
        a *= x + k
        b /= w
        term = a * b / t(coefficient)
        s += term
        if s and abs(term / s) < machep:
            return s
        k += one
        a *= x + k
        b /= w
        k += one
    return s


def _polygamma_scalar(n, x, t):
    if np.floor(n) != n or n < 0:
        return t(np.nan)
    sign = t(-1) if int(n + 1) % 2 else t(1)  # (-1)^(n + 1)
    return sign * np.exp(t(math.lgamma(n + 1))) * _zeta_scalar(n + 1, x, t)


def _polygamma(n, x):
    """Polygamma: digamma for n = 0, else (-1)^(n+1) n! zeta(n + 1, x), computed in the input's dtype as
    TF's float32 and float64 kernels compute it; NaN for an n that is not a non-negative integer."""
    n, x = np.broadcast_arrays(n, x)
    t = x.dtype.type
    out = np.array([_polygamma_scalar(a, b, t) for a, b in zip(n.reshape(-1), x.reshape(-1))], dtype=x.dtype)
    return np.where(n == 0, _digamma(x), out.reshape(x.shape))


def _zeta(x, q):
    """Zeta: the Hurwitz zeta function elementwise, in the input's dtype (see _zeta_scalar)."""
    x, q = np.broadcast_arrays(x, q)
    t = x.dtype.type
    return np.array([_zeta_scalar(a, b, t) for a, b in zip(x.reshape(-1), q.reshape(-1))], dtype=x.dtype).reshape(x.shape)
