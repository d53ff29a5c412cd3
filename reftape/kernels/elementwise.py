"""Elementwise kernels as TF's CPU kernels compute them: arithmetic (division, floor and truncated
division and modulo, shifts, pow, casts, add_n, maximum and minimum with TF's NaN and tie rules); the
complex product, division, square root, reciprocal square root, log, log1p, expm1 and sign as Eigen's
packet code computes them in the vector loop and std::complex (C99 Annex G's recovery of infinities)
in the scalar loop; glibc's hypot for ComplexAbs; Eigen's float32 tanh (its rational approximation
without fused multiply-add), sigmoid and softplus; and the fused gradient kernels SqrtGrad, RsqrtGrad,
ReciprocalGrad and SigmoidGrad in both loops. Which loop an element goes through, and the flushing of
intermediates, come from `subnormal.py`; constants are held in the tensor's dtype as TF's kernels hold
them (`_typed`, `_rounded`).
"""

from __future__ import annotations

import functools

import numpy as np

from .. import dtypes as _dtypes
from ..errors import InternalError, UnimplementedError
from . import packet_math
from .packet_math import _complex, _horner
from .subnormal import _COMPLEX_PACKET, _PACKET, _by_loop, _ftz


@functools.lru_cache(maxsize=None)
def _typed(value, dtype: np.dtype) -> np.ndarray:
    """`value` as a 0-d array of `dtype`: to NumPy the same operand as the Python number in a kernel on
    arrays of `dtype`, without the dtype inference that NumPy repeats for a number on every call (and
    that costs as much as the arithmetic on a small tensor)."""
    array = np.array(value, dtype)
    array.flags.writeable = False
    return array


def _sigmoid(x, T):  # noqa: N803 - TF's attribute
    if x.dtype.kind == "c":
        return _complex_sigmoid(x)
    if T.name == "float32":
        return packet_math.as_tensorflow("sigmoid", x)
    if x.dtype == np.float64:  # Eigen's scalar_logistic_op: e / (1 + e), e = exp(x), 1 where e is inf
        e = packet_math.as_tensorflow("exp", x)
        return np.where(e == np.inf, 1.0, e / (1 + e))
    e, zero, one = np.exp(-np.abs(x)), _typed(0, x.dtype), _typed(1, x.dtype)
    return np.where(x >= zero, one, e) / (one + e)  # 1 / (1 + e) for x >= 0, e / (1 + e) below


def _complex_sigmoid(x):
    """Eigen's complex scalar_logistic_op (no packet version: every element in the scalar loop): e = cexp(x),
    1 where e's real part is infinite, else e / (e + 1) as std::complex divides (`_scalar_divide`).
    e + 1 adds +0 to the imaginary part, so sigmoid(-0j) is 0.5-0j."""
    with np.errstate(all="ignore"):
        e = np.exp(x)
        e = _complex(_ftz(e.real), _ftz(e.imag))  # cexp's results flushed before the sum (exp(-745) * cos(2.5) is -0)
        return np.where(np.isinf(e.real), np.ones_like(e), _scalar_divide(e, _complex(_ftz(e.real + 1), e.imag + 0)))


def _sigmoid_grad(y, dy):
    """SigmoidGrad: dy * (y * (1 - y)) in Eigen's packet loop; (dy * y) * (1 - y) in the scalar loop, as
    std::complex multiplies (C99's recovery of infinities). 1 - y subtracts from 1+0j (-0 - -0 is +0)."""
    if y.dtype in _COMPLEX_PACKET:
        def one_minus(y):
            return _complex(_ftz(1 - y.real), _ftz(0 - y.imag))
        return _by_loop(lambda y, dy: _packet_multiply(dy, _packet_multiply(y, one_minus(y))),
                        lambda y, dy: _scalar_multiply(_scalar_multiply(dy, y), one_minus(y)), y, dy)
    return dy * (y * (_typed(1, y.dtype) - y))


def _sign(x):
    if x.dtype in _COMPLEX_PACKET:
        return _by_loop(_packet_complex_sign, _scalar_complex_sign, x)
    return np.sign(x)


def _packet_complex_sign(x):
    """Eigen's packet psign for complex: each part over l = max * sqrt(1 + (min / max)^2) (max where min is
    0), where max and min of |re|, |im| are taken per lane (x86's maxps: a lane's own value where either
    is NaN); 0 where that lane's max is 0."""
    re, im = _ftz(np.abs(x.real)), _ftz(np.abs(x.imag))

    def lane(part, own, other):
        length, zero = _packet_lane_length(own, other)
        return np.where(zero, part.dtype.type(0), _ftz(_ftz(part) / length))
    return _complex(lane(x.real, re, im), lane(x.imag, im, re))


def _packet_lane_length(own, other):
    """|z| as Eigen's complex packet code computes it in one lane: max * sqrt(1 + (min / max)^2) (max where
    min is 0), max and min of the lane's own part and the other's taken as x86's maxps does (the lane's
    own value where either is NaN); and where that max is 0."""
    nan = np.isnan(own) | np.isnan(other)
    high = np.where(nan, own, np.maximum(own, other))
    low = np.where(nan, own, np.minimum(own, other))
    r = _ftz(low / high)
    return np.where(low == 0, high, _ftz(high * _ftz(np.sqrt(_ftz(1 + _ftz(r * r)))))), high == 0


def _scalar_complex_sign(x):
    """Eigen's scalar sign for complex: aa = |x| (hypot), 0 where aa is 0, else each part times 1 / aa."""
    a, b = _ftz(x.real), _ftz(x.imag)
    aa = np.hypot(a, b)
    inverse = _ftz(1 / np.where(aa == 0, 1, aa))
    zero = aa == 0
    return _complex(np.where(zero, a.dtype.type(0), _ftz(a * inverse)), np.where(zero, a.dtype.type(0), _ftz(b * inverse)))


def _tanh(x):
    if x.dtype == np.float32:
        return _eigen_tanh_float32(x)
    if x.dtype == np.float64:
        return packet_math.as_tensorflow("tanh", x)
    return np.tanh(x)


# TF's float32 tanh (both loops, and the half types through float32) is Eigen's rational approximation
# for its build without FMA: x + x^3 p(x^2) over q(x^2), every step rounded to float32, the input
# clamped to +-7.90738964 where the quotient is exactly +-1. np.tanh differs from it by an ulp or two
# on about half of all inputs, which cancellation (1 + tanh(x) in gelu) turns into dozens.
_TANH_NUMERATOR = tuple(np.array(c, np.float32) for c in (1.394553628e-8, 2.102733560e-5, 3.520756727e-3,
                                                            1.340216100e-1))
_TANH_DENOMINATOR = tuple(np.array(c, np.float32) for c in (8.015776984e-7, 3.326951409e-4, 2.597254514e-2,
                                                              4.673548340e-1, 1.0))
_TANH_CLAMP = np.array(7.90738964080810547, np.float32)
_TANH_CLAMP_BELOW = -_TANH_CLAMP  # negated once: a 0-d array's negation costs as much as the kernel's steps


def _eigen_tanh_float32(a):
    x = np.minimum(np.maximum(a, _TANH_CLAMP_BELOW), _TANH_CLAMP)  # NaN stays NaN (NumPy's maximum keeps it)
    x2 = x * x
    return ((x2 * x) * _horner(x2, _TANH_NUMERATOR) + x) / _horner(x2, _TANH_DENOMINATOR)


def _sin(x):
    return packet_math.as_tensorflow("sin", x)


def _cos(x):
    return packet_math.as_tensorflow("cos", x)


def _softplus(x, T):  # noqa: N803 - TF's attribute
    """TF's Softplus: x above its cut-off, exp(x) below the other, log1p(exp(x)) between (packet_math.py's). For the
    half types, Eigen evaluates the expression in T: exp(x) is rounded to T before log1p reads it."""
    above, below = _softplus_thresholds(T.name)
    e = packet_math.as_tensorflow("exp", x)
    if T.name in ("float16", "bfloat16"):
        e = e.astype(T._numpy_dtype).astype(x.dtype)
    return np.where(x > above, x, np.where(x < below, e, packet_math.as_tensorflow("log1p", e)))


# Eigen's NumTraits<T>::epsilon(): for half it is 2^-13 (0x0800), not the IEEE 2^-10 (TF's float16 softplus switches
# to exp(x) below -7.0078, measured)
_EIGEN_EPSILON = {"float16": 2.0 ** -13, "bfloat16": 2.0 ** -7}


@functools.lru_cache(maxsize=None)
def _softplus_thresholds(dtype_name: str):
    """TF's cut-offs, t = log(eps) + 2 (negative) in the dtype (a half type's rounded at each step, as its
    arithmetic runs): softplus(x) is x above -t, exp(x) below t. As float32 for the half types."""
    dtype = _dtypes.as_dtype(dtype_name)
    wide = np.float32 if dtype_name in _EIGEN_EPSILON else dtype._numpy_dtype.type
    epsilon = _EIGEN_EPSILON.get(dtype_name) or _dtypes._limits(dtype).eps
    log_eps = np.log(wide(epsilon)).astype(dtype._numpy_dtype).astype(wide)
    threshold = (log_eps + wide(2)).astype(dtype._numpy_dtype).astype(wide)
    return _typed(-threshold, wide), _typed(threshold, wide)


def _rounded(value, dtype, like):
    """A constant as TF's kernel holds it: rounded to the tensor's dtype (half types arrive as float32)."""
    return np.asarray(value, dtype.as_numpy_dtype).astype(like.dtype)


def _floordiv(x, y):
    if x.dtype.kind in "iu":
        _check_integer_divisor(y)
        return np.floor_divide(x, y)
    return np.floor(x / y)


def _truncated(op: str, integers, floats):
    """TruncateDiv and TruncateMod: C's quotient and remainder (rounded toward zero). An integer zero
    divisor fails in TF's binary-op functor with an InternalError, not FloorDiv's InvalidArgumentError."""
    def forward(x, y):
        if x.dtype.kind in "iu":
            if not np.all(y):
                raise InternalError("Unexpected error in binary operator (only integer div and mod ops should have "
                                    f"these errors) [Op:{op}] name: ")
            return integers(x, y)
        return floats(x, y)
    return forward


def _truncated_quotient(x, y):
    q = np.floor_divide(x, y)
    return np.where((q * y != x) & ((x < 0) != (y < 0)), q + 1, q).astype(x.dtype)


def _cast(x, dtype, source):
    """Values for Cast (the conversion itself happens on output); strings cast only to strings."""
    if (x.dtype == object) != (dtype is _dtypes.string):
        raise UnimplementedError(f"Cast {_dtypes.as_dtype(x.dtype).kernel_name} to {dtype.kernel_name} is not "
                                 "supported [Op:Cast] name: ")
    return x.real if np.iscomplexobj(x) and not dtype.is_complex else x


def _check_integer_divisor(y):
    """TF's integer FloorDiv and FloorMod kernels refuse a zero divisor (InvalidArgumentError)."""
    if not np.all(y):
        raise ValueError("Integer division by zero")


def _floormod(x, y):
    """TF's kernel: the exact fmod, moved into y's sign (for floats) when the signs differ."""
    if x.dtype.kind in "iu":
        _check_integer_divisor(y)
        return np.mod(x, y)
    truncated = np.fmod(x, y)
    return np.where((truncated != 0) & ((y < 0) != (truncated < 0)), truncated + y, truncated)


def _pow(x, y):
    if x.dtype.kind in "iu" and np.any(y < 0):
        raise ValueError("Integers to negative integer powers are not allowed")
    if x.dtype.kind == "c":
        return _complex_pow(x, y)
    return np.power(x, y)


def _complex_pow(x, y):
    """TF's complex pow is glibc's cpow, exp(y * log(x)), at every element. NumPy calls cpow too but
    takes shortcuts for a zero base and for integral real exponents below 100 (zero included), where
    cpow's infinities and NaNs differ: 0j ** 0j is nan+nanj, 0j ** -2 is inf+nanj, inf ** 1 is inf+nanj,
    x ** 0 is 1-0j for some x. Those elements are computed as cpow computes them."""
    result = np.power(x, y)
    x, y = np.broadcast_arrays(x, y)
    shortcut = (x == 0) | ((y.imag == 0) & (np.abs(y.real) < 100) & (y.real == np.round(y.real)))
    if shortcut.any():
        result = np.where(shortcut, np.exp(y * np.log(x)), result)
    return result


def _pmax(x, y):
    """TF's vectorized max: NaN propagates (x's first), ties (including -0.0 vs 0.0) give the second
    operand. A NaN y loses every comparison, so only a NaN x needs its own test."""
    return np.where((x > y) | np.isnan(x), x, y)


def _pmin(x, y):
    return np.where((x < y) | np.isnan(x), x, y)


def _rsqrt_grad(y, dy):
    """RsqrtGrad, real dtypes. Scalar loop: 0 where dy is 0, else (-0.5 * (dy * y)) * (y * y). Vector loop
    (Eigen's packet code with mul_no_nan): (-0.5 * (y * y)) times (y * dy, 0 where dy is 0), +0 where
    that second factor is zero: at y = 0 (x = inf) the gradient is +0 there, -0 in the scalar loop.
    Complex: the same with conj(y), products of -0.5+0j, Eigen's packet products in the vector loop and
    std::complex's (C99's recovery) in the scalar loop."""
    if y.dtype in _COMPLEX_PACKET:
        zero = y.dtype.type(0)

        def vector(y, dy):
            c = np.conj(y)
            b = np.where(dy == 0, zero, _packet_multiply(c, dy))
            product = _packet_multiply(_packet_multiply(np.full_like(y, -0.5), _packet_multiply(c, c)), b)
            return np.where(b == 0, zero, product)

        def scalar(y, dy):
            c = np.conj(y)
            product = _scalar_multiply(_scalar_multiply(np.full_like(y, -0.5), _scalar_multiply(dy, c)),
                                       _scalar_multiply(c, c))
            return np.where(dy == 0, zero, product)
        return _by_loop(vector, scalar, y, dy)
    if y.dtype not in _PACKET:
        return np.where(dy == 0, 0, -0.5 * (dy * y) * (y * y))  # TF's order
    half, zero = y.dtype.type(-0.5), y.dtype.type(0)

    def vector(y, dy):
        b = np.where(dy == 0, zero, _ftz(y * dy))
        return np.where(b == 0, zero, _ftz(half * _ftz(y * y)) * b)

    def scalar(y, dy):
        return np.where(dy == 0, zero, _ftz(half * _ftz(dy * y)) * _ftz(y * y))
    return _by_loop(vector, scalar, y, dy)


def _add_n(*xs):
    for x in xs:
        if x.shape != xs[0].shape:
            raise ValueError("Shapes of all inputs must match")
    return functools.reduce(np.add, xs[1:], xs[0]) if len(xs) > 1 else xs[0].copy()


# Complex division as TF 2.21's CPU kernels compute it (Eigen, AVX build, flush-to-zero and
# denormals-are-zero on). The vector loop, over the first size - size % P elements of the flattened
# (broadcast) result, P = 4 complex64 or 2 complex128 per packet, scales the divisor by its larger part:
# m = max(|c|, |d|), c' = c / m, d' = d / m, ((a c' + b d') / (c'^2 + d'^2)) / m for the real part,
# ((b c' - a d') / (c'^2 + d'^2)) / m for the imaginary one; 3.5 / 0j is nan+nanj there. The scalar loop
# (the last size % P elements) divides std::complex values: Smith's algorithm in the parts' own precision,
# then C99 Annex G's recovery of the infinities and zeros a NaN+NaNi result stands for (3.5 / 0j is
# inf+nanj there, 1 / (inf+0j) is 0j). Every intermediate is flushed to zero below the smallest normal.
def _complex_divide(x, y):
    """x / y for complex arrays (TF's RealDiv on complex64 and complex128), vector loop and scalar loop."""
    return _by_loop(_packet_divide, _scalar_divide, x, y)


def _packet_divide(x, y):
    """Eigen's pdiv_complex: the divisor scaled by max(|c|, |d|); a c' - b (-d') and a (-d') + b c' is
    its complex product with conj(y'), in that order."""
    a, b, c, d = _ftz(x.real), _ftz(x.imag), _ftz(y.real), _ftz(y.imag)
    m = np.maximum(np.abs(c), np.abs(d))
    cs, ds = _ftz(c / m), _ftz(d / m)
    den = _ftz(_ftz(cs * cs) + _ftz(ds * ds))
    re = _ftz(_ftz(a * cs) - _ftz(b * -ds))
    im = _ftz(_ftz(a * -ds) + _ftz(b * cs))
    return _complex(_ftz(_ftz(re / den) / m), _ftz(_ftz(im / den) / m))


def _scalar_divide(x, y):
    """Smith's algorithm (Eigen's complex_divide_stable: the ratio of the smaller part of the divisor to
    the larger, ties scaled by the real part), then C99's recovery where both parts came out NaN."""
    a, b, c, d = _ftz(x.real), _ftz(x.imag), _ftz(y.real), _ftz(y.imag)
    one = np.ones_like(c)
    by_real = np.abs(d) <= np.abs(c)
    r_scale = np.where(by_real, one, _ftz(c / d))
    i_scale = np.where(by_real, _ftz(d / c), one)
    den = _ftz(_ftz(c * r_scale) + _ftz(d * i_scale))
    re = _ftz(_ftz(_ftz(a * r_scale) + _ftz(b * i_scale)) / den)
    im = _ftz(_ftz(_ftz(b * r_scale) - _ftz(a * i_scale)) / den)
    lost = np.isnan(re) & np.isnan(im)
    if lost.any():  # C99 Annex G, G.5.1: nonzero / zero, infinite / finite, finite / infinite
        inf, zero = c.dtype.type(np.inf), c.dtype.type(0)
        by_zero = lost & (c == 0) & (d == 0) & ~(np.isnan(a) & np.isnan(b))
        signed_inf = np.copysign(inf, c)
        re, im = np.where(by_zero, signed_inf * a, re), np.where(by_zero, signed_inf * b, im)
        infinite = lost & ~by_zero & (np.isinf(a) | np.isinf(b)) & np.isfinite(c) & np.isfinite(d)
        a1, b1 = np.copysign(np.isinf(a).astype(c.dtype), a), np.copysign(np.isinf(b).astype(c.dtype), b)
        re = np.where(infinite, inf * _ftz(_ftz(a1 * c) + _ftz(b1 * d)), re)
        im = np.where(infinite, inf * _ftz(_ftz(b1 * c) - _ftz(a1 * d)), im)
        over_infinite = lost & ~by_zero & ~infinite & (np.isinf(c) | np.isinf(d)) & np.isfinite(a) & np.isfinite(b)
        c1, d1 = np.copysign(np.isinf(c).astype(c.dtype), c), np.copysign(np.isinf(d).astype(c.dtype), d)
        re = np.where(over_infinite, zero * _ftz(_ftz(a * c1) + _ftz(b * d1)), re)
        im = np.where(over_infinite, zero * _ftz(_ftz(b * c1) - _ftz(a * d1)), im)
    return _complex(re, im)


def _packet_multiply(x, y):
    """Eigen's complex packet product (AVX): a c - b d and a d + b c, no recovery of infinities."""
    a, b, c, d = _ftz(x.real), _ftz(x.imag), _ftz(y.real), _ftz(y.imag)
    return _complex(_ftz(_ftz(a * c) - _ftz(b * d)), _ftz(_ftz(a * d) + _ftz(b * c)))


def _scalar_multiply(x, y):
    """std::complex's product as clang compiles it: a c - b d and a d + b c, then, where both parts came
    out NaN, C99 Annex G's recovery (libgcc's __mulsc3/__muldc3): an infinite factor is boxed to +-1 and
    the other's NaNs set to zero, as are all NaNs after an overflowed partial product."""
    a, b, c, d = _ftz(x.real), _ftz(x.imag), _ftz(y.real), _ftz(y.imag)
    ac, bd, ad, bc = _ftz(a * c), _ftz(b * d), _ftz(a * d), _ftz(b * c)
    re, im = _ftz(ac - bd), _ftz(ad + bc)
    lost = np.isnan(re) & np.isnan(im)
    if lost.any():
        zero, one = c.dtype.type(0), c.dtype.type(1)
        box = lambda v: np.copysign(np.where(np.isinf(v), one, zero), v)  # noqa: E731
        unnan = lambda v, at: np.where(at & np.isnan(v), np.copysign(zero, v), v)  # noqa: E731
        x_inf, y_inf = lost & (np.isinf(a) | np.isinf(b)), lost & (np.isinf(c) | np.isinf(d))
        a, b = np.where(x_inf, box(a), a), np.where(x_inf, box(b), b)
        c, d = unnan(c, x_inf), unnan(d, x_inf)
        c, d = np.where(y_inf, box(c), c), np.where(y_inf, box(d), d)
        a, b = unnan(a, y_inf), unnan(b, y_inf)
        overflowed = lost & ~x_inf & ~y_inf & (np.isinf(ac) | np.isinf(bd) | np.isinf(ad) | np.isinf(bc))
        a, b, c, d = (unnan(v, overflowed) for v in (a, b, c, d))
        recalc = x_inf | y_inf | overflowed
        inf = c.dtype.type(np.inf)
        re = np.where(recalc, inf * _ftz(_ftz(a * c) - _ftz(b * d)), re)
        im = np.where(recalc, inf * _ftz(_ftz(a * d) + _ftz(b * c)), im)
    return _complex(re, im)


def _multiply(x, y):
    """Mul: NumPy's product for real dtypes; complex, Eigen's packet product in the vector loop and
    std::complex's (C99's recovery of infinities) in the scalar loop: (inf+1j) * (1+0j) is inf+nanj in the
    first, inf+infj... as libgcc's __mulsc3 recovers it in the second."""
    if x.dtype in _COMPLEX_PACKET:
        return _by_loop(_packet_multiply, _scalar_multiply, x, y)
    return np.multiply(x, y)


def _square(x):
    """Square: x * x, as `_multiply` computes it (for complex, a*a - b*b overflows to NaN, as in TF)."""
    return _multiply(x, x)


def _squared_difference(x, y, half=None):
    """(x - y) times conj(x - y) as Mul multiplies complex values: the imaginary part a (-b) + b a is exactly
    zero for finite parts (NumPy's product leaves an ulp of a b there). For the half types (`half`, their
    NumPy dtype, set by functions.squared_difference) Eigen rounds x - y to the type before squaring."""
    if x.dtype in _COMPLEX_PACKET:
        v = x - y
        return _multiply(v, np.conj(v))
    v = x - y
    return np.square(v if half is None else v.astype(half).astype(x.dtype))


def _reciprocal_grad(y, dy):
    """ReciprocalGrad, TF's order: ((-conj(y)) * conj(y)) * dy, 0 where dy is 0. Complex: the vector loop
    multiplies -(c * c) by dy as packets (mul_no_nan: +0 where dy is 0); the scalar loop as std::complex
    does (C99's recovery), so 1 / 0j's gradient is -inf+infj there, not NaN."""
    if y.dtype in _COMPLEX_PACKET:
        zero = y.dtype.type(0)

        def vector(y, dy):
            c = np.conj(y)
            return np.where(dy == 0, zero, _packet_multiply(-_packet_multiply(c, c), dy))

        def scalar(y, dy):
            c = np.conj(y)
            return np.where(dy == 0, zero, _scalar_multiply(_scalar_multiply(-c, c), dy))
        return _by_loop(vector, scalar, y, dy)
    return np.where(dy == 0, 0, _ftz(-y * y) * dy)  # y * y flushed: a tiny y times an infinite dy is NaN


def _eigen_hypot(x, y):
    """Eigen's positive_real_hypot: inf if a part is infinite, NaN if one is NaN, 0 if both are 0, else
    p sqrt(1 + (q / p)^2) with p, q the larger and smaller magnitude (intermediates flushed)."""
    x, y = np.abs(x), np.abs(y)
    p, q = np.maximum(x, y), np.minimum(x, y)
    r = _ftz(q / np.where(p == 0, 1, p))
    h = np.where(p == 0, p.dtype.type(0), _ftz(p * np.sqrt(_ftz(1 + _ftz(r * r)))))
    return np.where(np.isinf(x) | np.isinf(y), np.inf, np.where(np.isnan(x) | np.isnan(y), np.nan, h)).astype(p.dtype)


def _scalar_complex_sqrt(z):
    """Eigen's complex_sqrt (its scalar loop): w = sqrt((|x| + hypot(x, y)) / 2); (inf, y) for an infinite
    y, (w, +-w) at x = 0, (w, y / 2w) for x > 0, (|y| / 2w, +-w) otherwise, the sign of y < 0 (so a -0
    imaginary part gives +w: sqrt(-4-0j) is 2j, not -2j as in C99)."""
    x, y = _ftz(z.real), _ftz(z.imag)
    w = _ftz(np.sqrt(_ftz(0.5 * _ftz(np.abs(x) + _eigen_hypot(x, y)))))
    signed_w = np.where(y < 0, -w, w)
    re = np.where(np.isinf(y), np.inf, np.where(x > 0, w, np.where(x == 0, w, _ftz(np.abs(y) / _ftz(2 * w)))))
    im = np.where(np.isinf(y), y, np.where(x > 0, _ftz(y / _ftz(2 * w)), signed_w))
    return _complex(re.astype(x.dtype), im.astype(x.dtype))


def _packet_complex_sqrt(z):
    """Eigen's psqrt_complex (its vector loop), lane by lane: l = |z| as `_packet_lane_length` computes it,
    rho = sqrt((|part| + l) / 2), eta = (part / the other lane's rho) / 2 (0 where the lane's max is 0);
    (rho_re, eta_im) for x >= 0, (|eta_im|, rho_re with y's sign bit) for x < 0; (inf, y) where y is
    infinite, (inf, 0 |y|) or (0 |y|, inf) where x is; NaN+NaNj where either part came out NaN."""
    x, y = _ftz(z.real), _ftz(z.imag)
    ax, ay = np.abs(x), np.abs(y)
    dtype = x.dtype.type
    l_re, _ = _packet_lane_length(ax, ay)
    _, zero_im = _packet_lane_length(ay, ax)
    rho_re = _ftz(np.sqrt(_ftz(dtype(0.5) * _ftz(ax + l_re))))
    eta_im = np.where(zero_im, dtype(0), _ftz(dtype(0.5) * _ftz(y / rho_re)))
    negative = x < 0
    re = np.where(negative, np.abs(eta_im), rho_re)
    im = np.where(negative, np.copysign(np.abs(rho_re), y), eta_im)
    lost = np.isnan(re) | np.isnan(im)  # a NaN in either part makes both NaN (pisnan on the complex packet)
    re, im = np.where(lost, dtype(np.nan), re), np.where(lost, dtype(np.nan), im)
    with np.errstate(invalid="ignore"):
        zero_y = ay * dtype(0)
    re = np.where(np.isinf(x), np.where(negative, zero_y, ax), re)
    im = np.where(np.isinf(x), np.where(negative, ax, zero_y), im)
    re, im = np.where(np.isinf(y), dtype(np.inf), re), np.where(np.isinf(y), y, im)
    return _complex(re, im)


def _sqrt(x):
    if x.dtype in _COMPLEX_PACKET:
        return _by_loop(_packet_complex_sqrt, _scalar_complex_sqrt, x)
    return np.sqrt(x)


def _complex_rsqrt(z):
    """Eigen's complex_rsqrt (no packet version: every element): |z| by `_eigen_hypot`, w = sqrt((|x| +
    |z|) / 2), w / |z|; (inf, NaN) at 0, 0 where a part is infinite, the sign of y < 0 as in its sqrt."""
    x, y = _ftz(z.real), _ftz(z.imag)
    abs_z = _eigen_hypot(x, y)
    w = _ftz(np.sqrt(_ftz(0.5 * _ftz(np.abs(x) + abs_z))))
    woz = _ftz(w / abs_z)
    denominator = _ftz(_ftz(2 * w) * abs_z)
    re = np.where(x > 0, woz, np.where(x == 0, woz, _ftz(np.abs(y) / denominator)))
    im = np.where(x > 0, _ftz(-y / denominator), np.where(y < 0, woz, -woz))
    infinite = np.isinf(x) | np.isinf(y)
    re, im = np.where(infinite, 0, re), np.where(infinite, 0, im)
    at_zero = abs_z == 0
    return _complex(np.where(at_zero, np.inf, re).astype(x.dtype), np.where(at_zero, np.nan, im).astype(x.dtype))


def _rsqrt(x):
    if x.dtype in _COMPLEX_PACKET:
        with np.errstate(all="ignore"):
            return _complex_rsqrt(x)
    return 1 / np.sqrt(x)


def _log(x):
    """Log: Eigen's plog (plog_complex) in the vector loop, glibc's in the scalar loop (packet_math.py). Complex
    |z| squares the parts in the vector loop: NaN where x^2 + y^2 overflows or flushes to zero (log of 1e20+0j in
    complex64, of 1e-20j), inf where a part is infinite."""
    return packet_math.as_tensorflow("log", x)


def _log1p(x):
    """Log1p. Complex (no packet version: every element): Eigen's std_fallback::log1p, u = 1 + x (the
    imaginary part untouched), x itself where u is 1 or log(u) equals u, else x * (log(u) / (u - 1)), as
    std::complex divides and multiplies."""
    if x.dtype not in _COMPLEX_PACKET:
        return packet_math.as_tensorflow("log1p", x)
    with np.errstate(all="ignore"):
        a, b = _ftz(x.real), _ftz(x.imag)
        u = _complex(_ftz(1 + a), b)
        log_u = packet_math.scalar_loop("complex_log", u)
        keep = ((u.real == 1) & (u.imag == 0)) | ((u.real == log_u.real) & (u.imag == log_u.imag))
        ratio = _scalar_divide(log_u, _complex(_ftz(u.real - 1), u.imag))
        return np.where(keep, x, _scalar_multiply(x, ratio))


def _expm1(x):
    """Expm1. Complex (no packet version): Eigen's expm1_impl, e = expm1(re); the real part
    e - 2 (e + 1) sin(im / 2)^2, the imaginary part (e + 1) sin(im)."""
    if x.dtype not in _COMPLEX_PACKET:
        return packet_math.as_tensorflow("expm1", x)
    with np.errstate(all="ignore"):
        a, b = _ftz(x.real), _ftz(x.imag)
        erm1 = _ftz(np.expm1(a))
        er = _ftz(erm1 + 1)
        sin2 = _ftz(np.sin(_ftz(b / 2)))
        sin2 = _ftz(sin2 * sin2)
        return _complex(_ftz(erm1 - _ftz(_ftz(2 * er) * sin2)), _ftz(er * _ftz(np.sin(b))))


def _div_no_nan(x, y):
    """DivNoNan: 0 where y is +-0. Complex: also +0 where x * conj(y) is zero (flushed), even where
    |y|^2 underflows; the division as RealDiv's."""
    if x.dtype in _COMPLEX_PACKET:
        x, y = np.broadcast_arrays(x, y)
        zero = (y == 0) | (_packet_multiply(x, np.conj(y)) == 0)
        return np.where(zero, x.dtype.type(0), _complex_divide(x, y))
    return np.where(y == 0, 0, x / np.where(y == 0, 1, y))


def _xlog1py(x, y):
    """Xlog1py: 0 where x is 0, else x * log1p(y); complex (no packet version) as Eigen's log1p and
    std::complex's product compute it."""
    if x.dtype.kind != "c":
        return np.where(x == 0, 0, x * np.log1p(y))
    return np.where(x == 0, 0, _scalar_multiply(x, _log1p(y)))


def _xdivy(x, y):
    """Xdivy: x / y, 0 where x is 0. Complex: the vector loop selects x itself (its signed zeros), the
    scalar loop +0."""
    if x.dtype in _COMPLEX_PACKET:
        zero = x.dtype.type(0)
        return _by_loop(lambda x, y: np.where(x == 0, x, _packet_divide(x, y)),
                        lambda x, y: np.where(x == 0, zero, _scalar_divide(x, y)), x, y)
    return np.where(x == 0, 0, x / y)


def _sqrt_grad(y, dy):
    """SqrtGrad: 0.5 dy / conj(y), 0 where dy is 0. Complex vector loop: dy times (0.5+0j) / conj(y);
    scalar loop: (0.5+0j) * dy, divided by conj(y)."""
    if y.dtype in _COMPLEX_PACKET:
        zero = y.dtype.type(0)

        def vector(y, dy):
            return np.where(dy == 0, zero, _packet_multiply(dy, _packet_divide(np.full_like(y, 0.5), np.conj(y))))

        def scalar(y, dy):
            return np.where(dy == 0, zero, _scalar_divide(_scalar_multiply(np.full_like(dy, 0.5), dy), np.conj(y)))
        return _by_loop(vector, scalar, y, dy)
    return np.where(dy == 0, 0, 0.5 * dy / np.conj(y))


def _divide(x, y):
    """RealDiv: NumPy's division for real dtypes, TF's complex division for complex ones."""
    if x.dtype in _COMPLEX_PACKET:
        return _complex_divide(x, y)
    return np.divide(x, y)


def _shift(left: bool):
    """LeftShift and RightShift: the shift clamped to [0, bits - 1] (TF avoids C's undefined shifts);
    left shifts as unsigned ones (bits shifted out are lost, the sign bit included), right shifts
    arithmetic for signed types."""
    def forward(x, y):
        amount = np.clip(y, 0, x.dtype.itemsize * 8 - 1)
        if not left:
            return np.right_shift(x, amount.astype(x.dtype))
        unsigned = np.dtype(f"u{x.dtype.itemsize}")
        return np.left_shift(x.astype(unsigned), amount.astype(unsigned)).astype(x.dtype)
    return forward


def _reciprocal(x):
    if x.dtype.kind == "c":  # TF's kernel: 1 / x, the complex division (1 / 0j: nan+nanj, inf+nanj at the end)
        return _complex_divide(np.ones_like(x), x)
    return 1 / x if x.dtype.kind == "f" else np.floor_divide(1, x)
