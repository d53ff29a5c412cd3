"""Eigen's vectorized elementary functions as TF's kernels compute the packets of their vector loop, and the scalar
loop's (the last size % 8 float32, size % 4 float64 elements: glibc's, or Eigen's scalar version where it has one).
TF's wheel is built without fused multiply-add, so each multiply-add below rounds twice. NumPy's own functions are
other approximations, which differ from these by an ulp on up to half the elements, and by CPU.

- exp (pexp_float, pexp_double): clamp to 88.723 (709.784), m = floor(x log2(e) + 1/2), r = x - m ln 2 taken off in
  two parts, a polynomial (float32: degree 6; float64: Cephes' rational function) for exp(r), times 2^m; max with x
  keeps a NaN or +inf, and below -104 (-745.519) the result is 0.
- log (plog_float, plog_double): the significand in [sqrt(1/2), sqrt(2)) and the exponent, a rational function
  (float32: degree 3 over 3; float64: Cephes' 5 over 5) for log(1 + x), plus the exponent times ln 2; -inf at 0,
  NaN below 0 and at NaN, +inf at +inf.
- expm1 and log1p: Eigen's generic versions over that exp and log.
- float32 sigmoid: Eigen's logistic, exp(x / 2)^2 over 1 + itself.
- atan: a rational function on [0, 1], 1 / |x| beyond; float64 tanh: a rational function of degree 19 over 18.
- float32 sin and cos (psincos_float): the quadrant by the 2^23 trick, pi/2 taken off in four parts (Payne-Hanek's
  reduction for huge arguments), a polynomial chosen and signed by the quadrant.
- complex64 exp (pexp_complex): exp of the real part times cos and sin of the imaginary part, with its rules at
  infinities and a zero imaginary part; complex128's is not vectorized (glibc's cexp everywhere).
- complex log (plog_complex): log of |z| by Eigen's hypot (one correcting step), and atan2(y, x) as atan(y / x)
  shifted by pi; the scalar loop's is glibc's log of hypot and atan2.

Subnormal arguments are zeros to TF's arithmetic (flushed before this).
"""

from __future__ import annotations

import decimal
import functools

import numpy as np

from .libm import complex_abs, elementwise
from .subnormal import _by_loop, _ftz

_F = np.float32
_FLOAT32, _FLOAT64 = np.dtype(np.float32), np.dtype(np.float64)


def _madd(a, b, c, dtype=_F):
    """pmadd without fused multiply-add: the product rounded, then the sum."""
    return ((dtype(a) * dtype(b)).astype(dtype) + dtype(c)).astype(dtype)


def _horner(x, coefficients):
    """The polynomial with `coefficients` (highest power first, held in x's dtype) at `x`, Eigen's ppolevl: two
    roundings a step, no fused multiply-add in TF's build."""
    result = x * coefficients[0] + coefficients[1]
    for c in coefficients[2:]:
        result = result * x + c
    return result


def _typed(dtype: type, *coefficients: float) -> tuple:
    return tuple(np.array(c, dtype) for c in coefficients)


def _exp_reduction_float32(x: np.ndarray) -> tuple:
    """pexp_float's range reduction, exp(x) = 2^m exp(r): m = floor(x log2(e) + 1/2), r = x - m ln 2 taken off in
    two parts; (m, r, r^2)."""
    m = np.floor(_madd(x, 1.44269504088896341, 0.5))
    r = _madd(m, 2.12194440e-4, _madd(m, -0.693359375, x))
    return m, r, (r * r).astype(_F)


def _exp_float32(x: np.ndarray) -> np.ndarray:
    m, r, r2 = _exp_reduction_float32(np.minimum(x, _F(88.723)))
    even = _madd(r2, 1.37449637986719608306884765625e-3, 4.166965186595916748046875e-2)
    odd = _madd(r2, 8.36894474923610687255859375e-3, 0.16666518151760101318359375)
    even = _madd(r2, even, 0.49999988079071044921875)
    y = _madd(r2, _madd(r, odd, even), (r + _F(1)).astype(_F))
    return np.where(x < _F(-104.0), _F(0), np.maximum(np.ldexp(y, m.astype(np.int32)).astype(_F), x))


def _exp_float64(x: np.ndarray) -> np.ndarray:
    clamped = np.minimum(x, 709.784)
    n = np.floor(1.4426950408889634073599 * clamped + 0.5)
    g = clamped - n * 0.693145751953125 - n * 1.42860682030941723212e-6
    g2 = g * g
    p = ((1.26177193074810590878e-4 * g2 + 3.02994407707441961300e-2) * g2 + 9.99999999999999999910e-1) * g
    q = ((3.00198505138664455042e-6 * g2 + 2.52448340349684104192e-3) * g2 + 2.27265548208155028766e-1) * g2 + 2.0
    y = 2.0 * (p / (q - p)) + 1.0
    return np.where(x < -745.519, 0.0, np.maximum(np.ldexp(y, n.astype(np.int64)), x))


def _reduced(x: np.ndarray):
    """(significand - 1 in [sqrt(1/2) - 1, sqrt(2) - 1), exponent), as Eigen's plog splits its argument."""
    significand, exponent = np.frexp(x)
    below = significand < x.dtype.type(0.707106781186547524)
    exponent = (exponent - below).astype(x.dtype)
    return ((significand - x.dtype.type(1)) + np.where(below, significand, 0)).astype(x.dtype), exponent


def _log_float32(x: np.ndarray) -> np.ndarray:
    t, exponent = _reduced(x)
    p = (t * _madd(t, _madd(t, 0.18256296349849254, 1.0000000190281063), 1.0000000190281136)).astype(_F)
    q = _madd(t, _madd(t, _madd(t, 0.049616247954120038, 0.59923249590823520), 1.4999999999999927), 1.0)
    return _log_specials(x, _madd(exponent, np.log(2.0), (p / q).astype(_F)))


def _log_float64(x: np.ndarray) -> np.ndarray:
    t, exponent = _reduced(x)
    t2 = t * t
    t3 = t2 * t
    numerator = (((1.01875663804580931796e-4 * t + 4.97494994976747001425e-1) * t + 4.70579119878881725854e0) * t3
                 + ((1.44989225341610930846e1 * t + 1.79368678507819816313e1) * t + 7.70838733755885391666e0))
    denominator = (((t + 1.12873587189167450590e1) * t + 4.52279145837532221105e1) * t3
                   + ((8.29875266912776603211e1 * t + 7.11544750618563894466e1) * t + 2.31251620126765340583e1))
    y = (numerator * t3) / denominator
    return _log_specials(x, exponent * np.log(2.0) + (t + (y - 0.5 * t2)))


def _log_specials(x: np.ndarray, result: np.ndarray) -> np.ndarray:
    result = np.where(x == 0, -np.inf, np.where(x == np.inf, np.inf, result))
    return np.where((x < 0) | np.isnan(x), np.nan, result).astype(x.dtype)


_EXP = {np.dtype(np.float32): _exp_float32, np.dtype(np.float64): _exp_float64}
_LOG = {np.dtype(np.float32): _log_float32, np.dtype(np.float64): _log_float64}


def _expm1(x: np.ndarray) -> np.ndarray:
    """Eigen's generic_expm1: u = exp(x); x where u is 1, -1 where u - 1 is, u where log(u) is u (an infinity),
    else (u - 1) (x / log(u))."""
    one = x.dtype.type(1)
    u = _VECTOR["exp"][x.dtype](x)
    log_u = _VECTOR["log"][x.dtype](u)
    result = np.where(log_u == u, u, ((u - one) * (x / log_u)).astype(x.dtype))
    return np.where(u == one, x, np.where(u - one == -one, -one, result)).astype(x.dtype)


def _log1p(x: np.ndarray) -> np.ndarray:
    """Eigen's generic_plog1p: v = 1 + x; x where v is 1 or log(v) is v (an infinity), else x (log(v) / (v - 1))."""
    one = x.dtype.type(1)
    v = (x + one).astype(x.dtype)
    log_v = _VECTOR["log"][x.dtype](v)
    return np.where((v == one) | (log_v == v), x, (x * (log_v / (v - one))).astype(x.dtype))


def _logistic_float32(x: np.ndarray) -> np.ndarray:
    """Eigen's float32 logistic, e / (1 + e): e = exp(x) computed as exp(x / 2)^2 (so 2^m is never subnormal), x
    first clamped to 16.6355324, exp(x / 2) by the reduction of pexp with a polynomial of degree 5; 0 below -104."""
    m, r, r2 = _exp_reduction_float32((np.minimum(x, _F(16.6355324)) * _F(0.5)).astype(_F))
    even = _madd(r2, 4.1898667812347412109375e-2, 0.49999141693115234375)
    odd = _madd(r2, 8.33471305668354034423828125e-3, 0.16666877269744873046875)
    e = np.ldexp(_madd(r2, _madd(r, odd, even), (r + _F(1)).astype(_F)), m.astype(np.int32)).astype(_F)
    e = (e * e).astype(_F)
    return np.where(x < _F(-104), _F(0), (e / (_F(1) + e)).astype(_F))


def _logistic_float32_scalar(x: np.ndarray) -> np.ndarray:
    """The scalar loop's: glibc's exp of x clamped to 16.6355324, then e / (1 + e)."""
    e = _C_EXP(np.minimum(x, _F(16.6355324)))
    return (e / (_F(1) + e)).astype(_F)


_ATAN_REDUCED = {  # atan(x) / x on [0, 1] as p(x^2) / q(x^2)
    _FLOAT32: (_typed(_F, 1.12026982009410858154296875e-01, 7.296695709228515625e-01, 8.109951019287109375e-01),
               _typed(_F, 1.00917108356952667236328125e-02, 2.8318560123443603515625e-01, 1.0, 8.109951019287109375e-01)),
    _FLOAT64: (_typed(np.float64, 2.6667153866462208e-05, 3.0917513112462781e-03, 5.2574296781008604e-02,
                      3.0409318473444424e-01, 7.5365702534987022e-01, 8.2704055405494614e-01, 3.3004361289279920e-01),
               _typed(np.float64, 2.7311202462436667e-04, 1.0899150928962708e-02, 1.1548932646420353e-01,
                      4.9716458728465573e-01, 1.0, 9.3705509168587852e-01, 3.3004361289279920e-01)),
}


def _atan_vector(x: np.ndarray) -> np.ndarray:
    """Eigen's generic_atan: |x| > 1 through atan(1/|x|) = pi/2 - atan(|x|), a rational function on [0, 1], the
    sign put back. (TF's float32 reciprocal there is the CPU's approximation, KNOWN_DIVERGENCES 6: this one is
    correctly rounded.)"""
    dtype = x.dtype.type
    magnitude = np.abs(x)
    large = magnitude > 1
    reduced = np.where(large, (dtype(1) / magnitude).astype(dtype), magnitude)
    squared = (reduced * reduced).astype(dtype)
    numerator, denominator = _ATAN_REDUCED[x.dtype]
    result = (reduced * (_horner(squared, numerator) / _horner(squared, denominator)).astype(dtype)).astype(dtype)
    result = np.where(large, (dtype(np.pi / 2) - result).astype(dtype), result)
    return np.copysign(result, x).astype(dtype)


# TF's float32 sin and cos in the vector loop (the half types through float32) are Eigen's psincos_float for
# its build without FMA: x scaled by 2/pi and rounded to the nearest quadrant with the 2^23 trick, reduced by
# pi/2 in four parts, then the sine or cosine polynomial of the reduced argument, chosen and signed by the
# quadrant's bits; past |x| = 25966 (sin) or 18838 (cos) the reduction is Payne-Hanek's on 2/pi to 62 fraction
# bits (here: exact in decimal, then rounded as Eigen rounds it). The scalar loop calls glibc's sinf/cosf
# (NumPy's own float32 sin and cos differ from both by an ulp on some 7% of inputs).
_TWO_OVER_PI = np.array(0.636619746685028076171875, np.float32)
_ROUNDING_MAGIC = np.array(12582912.0, np.float32)   # 2^23 + 2^22
_HALF_PI_PARTS = tuple(np.array(c, np.float32) for c in (-1.5703125, -0.000483989715576171875,
                                                         1.62865035235881805419921875e-07,
                                                         5.5644315544167710640977020375430583953857421875e-11))
_COS_POLYNOMIAL = tuple(np.array(c, np.float32) for c in (2.4372266125283204019069671630859375e-05,
                                                          -0.00138865201734006404876708984375,
                                                          0.041666619479656219482421875, -0.5, 1.0))
_SIN_POLYNOMIAL = tuple(np.array(c, np.float32) for c in (-0.0001959234114083702898469196984621021329076029360294342041015625,
                                                          0.0083326873655616851693794799871284340042620897293090820312500000,
                                                          -0.1666666203982298255503735617821803316473960876464843750000000000))
_HUGE_SIN, _HUGE_COS = np.float32(25966.0), np.float32(18838.0)
_SIGN_BIT = np.int32(-2**31)


def _eigen_sincos_float32(a, sine: bool):
    x = np.abs(a)
    y_round = x * _TWO_OVER_PI + _ROUNDING_MAGIC
    quadrant = y_round.view(np.int32).copy()
    y = y_round - _ROUNDING_MAGIC
    for part in _HALF_PI_PARTS:
        x = y * part + x
    huge = (np.abs(a) >= (_HUGE_SIN if sine else _HUGE_COS)) & np.isfinite(a)
    for i in np.flatnonzero(huge):
        x[i], quadrant[i] = _reduced_huge(float(abs(a[i])))
    sign = (a.view(np.int32) ^ (quadrant << 30)) if sine else ((quadrant + 1) << 30)
    x2 = x * x
    cosine = _horner(x2, _COS_POLYNOMIAL)
    sine_part = _horner(x2, _SIN_POLYNOMIAL) * x2 * x + x
    chosen = np.where((quadrant & 1) == 0, sine_part, cosine) if sine else \
        np.where((quadrant & 1) == 0, cosine, sine_part)
    return (chosen.view(np.int32) ^ (sign & _SIGN_BIT)).view(np.float32)


@functools.lru_cache(maxsize=1)
def _half_pi() -> decimal.Decimal:
    """pi/2 to 90 digits (Decimal's documented series), enough to reduce any float32."""
    with decimal.localcontext() as context:
        context.prec = 95
        three = decimal.Decimal(3)
        last, term, total, n, na, d, da = 0, three, three, 1, 0, 0, 24
        while total != last:
            last = total
            n, na = n + na, na + 8
            d, da = d + da, da + 32
            term = (term * n) / d
            total += term
        return +total / 2


def _reduced_huge(value: float) -> tuple[np.float32, np.int32]:
    """Eigen's trig_reduce_huge: the quadrant q nearest |x| / (pi/2) and the rest (x / (pi/2) - q) to 62 fraction
    bits (truncated), scaled back by pi/2 in float64 and rounded to float32; q's low 32 bits."""
    with decimal.localcontext() as context:
        context.prec = 90
        scaled = decimal.Decimal(value) / _half_pi()
        quadrant = int((scaled + decimal.Decimal("0.5")).to_integral_value(rounding=decimal.ROUND_FLOOR))
        rest = int(((scaled - quadrant) * 2 ** 62).to_integral_value(rounding=decimal.ROUND_FLOOR))
    low = quadrant & 0xFFFFFFFF
    return np.float32(float(rest) * 3.4061215800865545e-19), np.int32(low - 2**32 if low >= 2**31 else low)


# tanh(x) = x (1 + x^2 p(x^2)) / q(x^2) for float64, the input clamped to +-17.714196154005176 (Eigen's build
# without fused multiply-add), where the quotient is exactly +-1
_TANH_FLOAT64 = ((2.6158007860482230e-23, 7.6534862268749319e-19, 3.1309488231386680e-15, 4.2303918148209176e-12,
                  2.4618379131293676e-09, 6.8644367682497074e-07, 9.3839087674268880e-05, 5.9809711724441161e-03,
                  1.5184719640284322e-01),
                 (6.463747022670968018e-21, 5.782506856739003571e-17, 1.293019623712687916e-13, 1.123643448069621992e-10,
                  4.492975677839633985e-08, 8.785185266237658698e-06, 8.295161192716231542e-04, 3.437448108450402717e-02,
                  4.851805297361760360e-01, 1.0))


def _tanh_float64(x: np.ndarray) -> np.ndarray:
    clamped = np.clip(x, -17.714196154005176, 17.714196154005176)
    squared = clamped * clamped
    numerator, denominator = _TANH_FLOAT64
    return (squared * clamped * _horner(squared, numerator) + clamped) / _horner(squared, denominator)


def _hypot_complex(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Eigen's phypot_complex: h = sqrt(a^2 + b^2) corrected by one step, h - x / 2h with x = -(b^2 + (a^2 - h^2))
    (its multiply-adds round twice, so the terms that would hold the products' rounding are 0); 0 at 0."""
    a2, b2 = _ftz(a * a), _ftz(b * b)
    h = np.sqrt(_ftz(a2 + b2))
    h_sq = _ftz(h * h)
    x = _ftz(_ftz(_ftz(h_sq - h_sq) - _ftz(b2 + _ftz(a2 - h_sq))) - _ftz(a2 - a2))
    return np.where((a == 0) & (b == 0), a.dtype.type(0), _ftz(h - _ftz(x / _ftz(2 * h))))


def _atan2(y: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Eigen's patan2: atan(y / x), +-1 where |x| = |y| and +-0 where both are 0 (the sign of the quotient), plus
    pi where x's sign bit is set, the sum's sign bit y's."""
    dtype = x.dtype.type
    negative = np.signbit(y) ^ np.signbit(x)
    quotient = np.where(np.abs(x) == np.abs(y), np.where(negative, dtype(-1), dtype(1)), _ftz(y / x))
    quotient = np.where((x == 0) & (y == 0), np.where(negative, dtype(-0.0), dtype(0)), quotient).astype(x.dtype)
    shift = np.copysign(np.where(np.signbit(x), dtype(np.pi), dtype(0)), y)
    return _ftz(_atan_vector(quotient) + shift)


def _complex_log_vector(z: np.ndarray) -> np.ndarray:
    a, b = _ftz(z.real), _ftz(z.imag)
    real = np.where(np.isinf(a) | np.isinf(b), np.inf, _VECTOR["log"][a.dtype](_hypot_complex(a, b)))
    return _complex(real, _atan2(b, a))


def _complex_log_scalar(z: np.ndarray) -> np.ndarray:
    return _complex(scalar_loop("log", complex_abs(z)), _C_ATAN2(z.imag, z.real))


def _complex_exp_vector(z: np.ndarray) -> np.ndarray:
    x, y = _ftz(z.real), _ftz(z.imag)
    exp_x = _exp_float32(x)
    cos_y, sin_y = _eigen_sincos_float32(y, sine=False), _eigen_sincos_float32(y, sine=True)
    one = _F(1)
    # at x = -inf the product is a zero signed as cos and sin; at x = +inf with y not finite it is
    # (+-inf, NaN), signed as y; where exp(x) overflows at a finite y, +-inf signed as cos and sin
    unit_cos, unit_sin = np.copysign(one, cos_y), np.copysign(one, sin_y)
    cos_y, sin_y = np.where(x == -np.inf, unit_cos, cos_y), np.where(x == -np.inf, unit_sin, sin_y)
    undefined = (x == np.inf) & (np.isnan(cos_y) | np.isnan(sin_y))
    cos_y, sin_y = np.where(undefined, np.copysign(one, y), cos_y), np.where(undefined, _F(0), sin_y)
    overflow = (exp_x == np.inf) & (np.abs(y) < np.inf)
    cos_y = np.where(overflow, np.copysign(one, cos_y), cos_y)
    sin_y = np.where(overflow, np.copysign(one, sin_y), sin_y)
    real, imag = _ftz(exp_x * cos_y), _ftz(exp_x * sin_y)
    real_input = y == 0  # a real argument's exp: exp(x) and y itself
    return _complex(np.where(real_input, exp_x, real), np.where(real_input, y, imag))


def _complex(re: np.ndarray, im: np.ndarray) -> np.ndarray:
    """The parts set directly: `re + 1j * im` would turn a real part -0.0 into 0.0."""
    out = np.empty(np.broadcast_shapes(re.shape, im.shape), np.result_type(re.dtype, np.complex64))
    out.real, out.imag = re, im
    return out


_C_EXP, _C_ATAN2 = elementwise("exp", np.exp), elementwise("atan2", np.arctan2)
# name: (the vector loop's function by dtype, the scalar loop's, NumPy's for other dtypes)
_KERNELS = {
    "exp": ({_FLOAT32: _exp_float32, _FLOAT64: _exp_float64}, _C_EXP, np.exp),
    "log": ({_FLOAT32: _log_float32, _FLOAT64: _log_float64}, elementwise("log", np.log), np.log),
    "expm1": (dict.fromkeys((_FLOAT32, _FLOAT64), _expm1), elementwise("expm1", np.expm1), np.expm1),
    "log1p": (dict.fromkeys((_FLOAT32, _FLOAT64), _log1p), elementwise("log1p", np.log1p), np.log1p),
    "sigmoid": ({_FLOAT32: _logistic_float32}, _logistic_float32_scalar, None),
    "atan": (dict.fromkeys((_FLOAT32, _FLOAT64), _atan_vector), elementwise("atan", np.arctan), np.arctan),
    "sin": ({_FLOAT32: lambda x: _eigen_sincos_float32(x, sine=True)}, elementwise("sin", np.sin), np.sin),
    "cos": ({_FLOAT32: lambda x: _eigen_sincos_float32(x, sine=False)}, elementwise("cos", np.cos), np.cos),
    "tanh": ({_FLOAT64: _tanh_float64}, elementwise("tanh", np.tanh), np.tanh),
    "complex_exp": ({np.dtype(np.complex64): _complex_exp_vector}, np.exp, np.exp),
    "complex_log": ({np.dtype(np.complex64): _complex_log_vector, np.dtype(np.complex128): _complex_log_vector},
                    _complex_log_scalar, np.log),
}
_VECTOR = {name: kernels[0] for name, kernels in _KERNELS.items()}


def scalar_loop(name: str, x: np.ndarray) -> np.ndarray:
    """`name` of an array as TF's scalar loop computes it (the C library's for float32 and float64), where a kernel
    runs it on too few elements for a packet (a determinant's pivots); NumPy's for other dtypes."""
    vectors, scalar, numpy_function = _KERNELS[name]
    return scalar(x) if x.dtype in vectors or x.dtype in (_FLOAT32, _FLOAT64) else numpy_function(x)


def as_tensorflow(name: str, x: np.ndarray) -> np.ndarray:
    """`name` (a key of _KERNELS) of an array as TF's kernel computes it: float32 and float64 (float32 only for
    sigmoid, sin and cos, float64 only for tanh) by the two loops, complex ones by the "complex_" entry, other
    dtypes by NumPy."""
    if x.dtype.kind == "c" and "complex_" + name in _KERNELS:
        name = "complex_" + name
    vectors, scalar, numpy_function = _KERNELS[name]
    vector = vectors.get(x.dtype)
    if vector is None:
        return numpy_function(x)
    with np.errstate(all="ignore"):
        return _by_loop(vector, scalar, x)
