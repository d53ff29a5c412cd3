"""The op table: every primitive, its NumPy forward and its VJP, declared side by side.

A VJP has the signature `vjp(g, ans, *inputs, needs, **attrs)` and returns one gradient per input
(None where TF's gradient function returns None). Multi-output primitives receive lists `g` and
`ans`. VJPs are written with reftape's own differentiable functions (`F`), so that a backward pass
running under an outer tape is itself recorded: that is how higher-order gradients work, as in TF.
The formulas follow TF's registered gradient functions op by op, including their special cases
(eager `skip_input_indices` fast paths, masked pow, tie rules, fused *Grad kernels that return 0
for a zero upstream), because those decide NaNs, signed zeros and shapes at special points.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from . import dtypes as _dtypes
from . import functions as F
from .errors import InternalError, InvalidArgumentError, UnimplementedError, _dims_text as dims_text
from .half_sums import half_sum
from .ordering import top_k_columns
from .primitives import (COMPLEX, FLOAT, INEXACT, INTEGER, NUMERIC, REAL, REAL_FLUSHED, count_nonzero, defop,
                         flush_subnormals)
from .recording import active_recordings
from .tensor import EagerTensor

BOOL = frozenset({_dtypes.bool})
SIGNED = NUMERIC - {_dtypes.uint8}  # TF registers no negation or absolute value for unsigned types
ALL_NUMERIC_OR_BOOL = NUMERIC | BOOL
WIDE_NUMERIC = INEXACT | {_dtypes.int32, _dtypes.int64}  # no 8- or 16-bit integers

# ---------------------------------------------------------------------------------------------
# Helpers shared by VJPs


def _shape(t) -> tuple:
    return t._value.shape if t.__class__ is EagerTensor else tuple(t.shape)


def _scalar(t) -> bool:
    return _shape(t) == ()


def _same_shapes(x, y, g) -> bool:
    return _shape(x) == _shape(y) == _shape(g)


def _broadcast_axes(shape: tuple, other: tuple) -> tuple:
    """The axes TF's BroadcastGradientArgs sums an operand's gradient over: none for equal shapes, else
    every axis where the operand's size is 1 or missing, even where the other's is 1 too (which only
    matters for an upstream gradient of another shape than the output's)."""
    if shape == other:
        return ()
    pad = max(len(other) - len(shape), 0)
    return tuple(range(pad)) + tuple(i + pad for i, d in enumerate(shape) if d == 1)


def unbroadcast(grad, shape: tuple, other: tuple, shape_tensor=None):
    """The one place broadcasting is undone: sum `grad` over the broadcast axes, reshape to `shape` (reading
    `shape_tensor`, a Shape op's output, where TF's reshape does)."""
    if grad is None:
        return None
    return _reshaped(F.reduce_sum(grad, _broadcast_axes(tuple(shape), tuple(other)), keepdims=True), shape, shape_tensor)


def _reshaped(g, shape: tuple, shape_tensor=None):
    """`g` reshaped to `shape`; with `shape_tensor` (a Shape op's output), a Reshape that reads it, as TF's does."""
    if shape_tensor is None:
        return F.reshape(g, shape)
    return F.execute("Reshape", [F.convert_to_tensor(g)], shape=tuple(shape), shape_tensor=shape_tensor)


def _reduce_pair(x, y, gx, gy):
    """TF's _ReduceGradientArgs in eager mode: each gradient summed over its broadcast axes and reshaped to
    a Shape op's reading of its operand's shape. The Shape ops read x and y, so a tape recording this
    backward pass reaches them from the gradients; without one the shapes are read directly."""
    if gx is None and gy is None:
        return None, None
    if not active_recordings():
        return unbroadcast(gx, _shape(x), _shape(y)), unbroadcast(gy, _shape(y), _shape(x))
    x_shape, y_shape = F.shape(x), F.shape(y)
    return unbroadcast(gx, _shape(x), _shape(y), x_shape), unbroadcast(gy, _shape(y), _shape(x), y_shape)


def _reshaped_like(g, x):
    """TF's reshape(grad, shape(x)): under a recording tape the Shape op reads x and the Reshape reads it."""
    return _reshaped(g, _shape(x), F.shape(x) if active_recordings() else None)


def _condition_first(inputs: tuple, attrs: dict) -> tuple:
    return (attrs["condition"],) + inputs


def _shape_tensor_last(inputs: tuple, attrs: dict) -> tuple:
    shape_tensor = attrs.get("shape_tensor")
    return inputs if shape_tensor is None else inputs + (shape_tensor,)


_conj = F.conj_if_complex


def _inverse_root_of_one_minus_square(x):
    """1 / sqrt(1 - conj(x)^2): asin's and acos's derivative, op by op as TF's gradients compute it."""
    return F.reciprocal(F.sqrt(F.subtract(_constant_like(1, x), F.square(_conj(x)))))


def _kept_shape(x_shape: tuple, axis, keep_dims: bool, out_shape: tuple) -> tuple:
    axes = range(len(x_shape)) if axis is None else [a % max(len(x_shape), 1) for a in axis]
    return tuple(1 if i in axes else d for i, d in enumerate(x_shape))


def _constant_like(value, t):
    return _constant(value, t.dtype)


@functools.lru_cache(maxsize=None)
def _constant(value, dtype):
    """A constant of a VJP's formula. TF creates a new one on every call; nothing can watch or read
    these, so one tensor per value and dtype is indistinguishable from that."""
    return F.constant(value, dtype=dtype)


# ---------------------------------------------------------------------------------------------
# Forward helpers (NumPy)


@functools.lru_cache(maxsize=None)
def _typed(value, dtype: np.dtype) -> np.ndarray:
    """`value` as a 0-d array of `dtype`: to NumPy the same operand as the Python number in a kernel on
    arrays of `dtype`, without the dtype inference that NumPy repeats for a number on every call (and
    that costs as much as the arithmetic on a small tensor)."""
    array = np.array(value, dtype)
    array.flags.writeable = False
    return array


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


def _sigmoid(x):
    if x.dtype.kind == "c":
        return _complex_sigmoid(x)
    if x.dtype == np.float64:  # Eigen's scalar_logistic_op: e / (1 + e), e = exp(x), 1 where e is inf
        e = np.exp(x)
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


def _glibc_hypot(x, y):
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


def _complex_abs(x):
    """ComplexAbs: glibc's hypotf (the squares summed in double, rounded once) and hypot."""
    if x.dtype == np.complex64:
        wide = x.astype(np.complex128)
        h = np.sqrt(wide.real * wide.real + wide.imag * wide.imag)
        return np.where(np.isinf(x.real) | np.isinf(x.imag), np.inf, h).astype(np.float32)
    return _glibc_hypot(x.real, x.imag)


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


def _horner(x, coefficients):
    """The polynomial with `coefficients` (highest power first) at `x`, two roundings a step: no fused
    multiply-add in TF's build."""
    result = x * coefficients[0] + coefficients[1]
    for c in coefficients[2:]:
        result = result * x + c
    return result


def _softplus(x):
    above, below = _softplus_thresholds(x.dtype)
    e = np.exp(x)
    return np.where(x > above, x, np.where(x < below, e, np.log1p(e)))


@functools.lru_cache(maxsize=None)
def _softplus_thresholds(dtype: np.dtype):
    """TF's cut-offs, t = log(eps) + 2 (negative): softplus(x) is x above -t, exp(x) below t."""
    threshold = np.log(np.finfo(dtype).eps) + 2
    return _typed(-threshold, dtype), _typed(threshold, dtype)


def _rounded(value, dtype, like):
    """A constant as TF's kernel holds it: rounded to the tensor's dtype (half types arrive as float32)."""
    return np.asarray(value, dtype.as_numpy_dtype).astype(like.dtype)


def _exp_minus_one(x, dtype):
    """exp(x) - 1 as TF's Elu and Selu kernels compute it: exp rounded to the tensor's dtype, then
    minus one. Not expm1: tiny |x| keep only exp's rounding, and float16 subnormals give 0."""
    return _rounded(np.exp(x.astype(np.float64)), dtype, x) - 1  # exp correctly rounded


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


def _complex(re, im):
    """The parts set directly: `re + 1j * im` would turn a real part -0.0 into 0.0."""
    out = np.empty(np.broadcast_shapes(re.shape, im.shape), np.result_type(re.dtype, np.complex64))
    out.real, out.imag = re, im
    return out


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


def _arg_extreme(x: np.ndarray, axis: int, smallest: bool) -> np.ndarray:
    """TF's ArgMin/ArgMax, a strict comparison against a running best that starts at index 0 with the
    value +inf (-inf for ArgMax): NaN never wins, and where nothing beats the start (all NaN, or only
    NaN and +inf) the answer is 0. NumPy's argmin/argmax would return the first NaN instead."""
    if x.ndim == 0:
        raise ValueError(f"Expected dimension in the range [0, 0), but got {axis}")
    pick = np.argmin if smallest else np.argmax
    if x.dtype.kind not in "fV":  # integers hold no NaN; "V" is bfloat16
        return pick(x, axis=axis)
    values = x.astype(np.float64)
    start = np.inf if smallest else -np.inf
    beats_start = ~np.isnan(values) & (values != start)
    if beats_start.all():
        return pick(x, axis=axis)
    filled = np.where(beats_start, values, start)
    hit = (filled == (np.min if smallest else np.max)(filled, axis=axis, keepdims=True)) & beats_start
    return np.where(hit.any(axis=axis), hit.argmax(axis=axis), 0)


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


def _reduction_axes(x, axis):
    if axis is None:
        return None
    for a in axis:
        if not -max(x.ndim, 1) <= a < max(x.ndim, 1):
            raise ValueError(f"Invalid reduction dimension ({a} for input with {x.ndim} dimension(s)")
    axes = tuple(a % max(x.ndim, 1) for a in axis)
    if len(set(axes)) < len(axes):  # TF's kernels refuse an axis named twice (a copy included), after the ranges
        repeated = next(a for i, a in enumerate(axes) if a in axes[:i])
        raise ValueError(f"Invalid reduction arguments: Axes contains duplicate dimension: {repeated}")
    return axes


def _copied_reduction(x, axis_arg, keep_dims):
    """TF's reduction kernels copy the input when the axes they reduce hold one element in all (none
    at all included): signed zeros kept. The copy, shaped as the reduction's result; else None."""
    axes = tuple(range(x.ndim)) if axis_arg is None else axis_arg
    if math.prod(x.shape[a] for a in axes) != 1:
        return None
    shape = [1 if a in axes else d for a, d in enumerate(x.shape)] if keep_dims else \
        [d for a, d in enumerate(x.shape) if a not in axes]
    return x.reshape(shape).copy()


def _reduce(fn, identity=None):
    def forward(x, axis, keep_dims):
        axis_arg = _reduction_axes(x, axis)
        copied = _copied_reduction(x, axis_arg, keep_dims)
        if copied is not None:
            return copied
        if identity is not None and x.size == 0:
            return fn(x, axis=axis_arg, keepdims=keep_dims, initial=identity(x.dtype))
        return fn(x, axis=axis_arg, keepdims=keep_dims)
    return forward


def _sum(x, axis, keep_dims, T):
    """Sum: float16 added as TF's kernel adds it, where half_sums.py models that, else by NumPy."""
    axis_arg = _reduction_axes(x, axis)
    copied = _copied_reduction(x, axis_arg, keep_dims)
    if copied is not None:
        return copied
    if T is _dtypes.float16:
        total = half_sum(x.astype(np.float16), tuple(range(x.ndim)) if axis_arg is None else axis_arg, keep_dims)
        if total is not None:
            return total
    return np.sum(x, axis=axis_arg, keepdims=keep_dims)


def _l2_loss(x, T):
    """TF's L2Loss, (x * x * 0.5).sum() in the input's dtype: half types rounded after each operation
    and added in Eigen's order (half_sums.py; bfloat16 too, unlike the Sum op), so a square past the
    largest value is inf."""
    if T not in (_dtypes.float16, _dtypes.bfloat16):
        return np.sum(np.square(x)) / 2
    half = T.as_numpy_dtype
    with np.errstate(over="ignore"):
        halves = (np.square(x).astype(half).astype(np.float32) * np.float32(0.5)).astype(half)
    total = half_sum(halves, tuple(range(halves.ndim)), False)
    return np.sum(halves.astype(np.float32)) if total is None else total


def _reduces_nothing(attrs: dict) -> bool:
    """TF's reduction kernels copy their input when there is no axis to reduce: no arithmetic."""
    return attrs.get("axis") is not None and len(attrs["axis"]) == 0


def _mean(x, axis, keep_dims, T):
    axis_arg = _reduction_axes(x, axis)
    copied = _copied_reduction(x, axis_arg, keep_dims)
    if copied is not None:
        return copied
    total = _sum(x, axis, keep_dims, T)
    count = x.size // max(np.size(total), 1)
    if x.dtype.kind in "iu":
        return (np.trunc(total / max(count, 1))).astype(x.dtype)
    if count == 0 and x.dtype.kind == "c":
        return total  # TF's complex mean of nothing is 0 (a real one is 0 / 0, NaN)
    # TF sums in the tensor's dtype before dividing: a float16 sum past 65504 makes the mean inf
    return _rounded(total, T, x) / count


def _euclidean_norm(x, axis, keep_dims, T):
    """sqrt(sum(x * conj(x))), squares and sum rounded to the tensor's dtype as TF computes them:
    float16 squares past 65504 are inf."""
    def norm(x, axis, keepdims):
        squares = _rounded(x * np.conj(x), T, x)
        return np.sqrt(_rounded(np.sum(squares, axis=axis, keepdims=keepdims), T, x))
    return norm(x, _reduction_axes(x, axis), keep_dims)  # never a copy: |x| over no axes, as TF


def _lowest(dtype):
    return -np.inf if dtype.kind in "fc" else np.iinfo(dtype).min


def _highest(dtype):
    return np.inf if dtype.kind in "fc" else np.iinfo(dtype).max


def _scan(fn, identity):
    def forward(x, axis, exclusive, reverse):
        if x.ndim == 0:
            raise ValueError(f"ScanOp: Expected scan axis in the range [0, 0), but got {axis}")
        if reverse:
            x = np.flip(x, axis)
        out = fn(x, axis=axis)
        if exclusive and out.shape[axis]:  # an empty scan axis has nothing to shift
            out = np.concatenate([np.full_like(np.take(out, [0], axis=axis), identity), np.delete(out, -1, axis=axis)], axis=axis)
        return np.flip(out, axis) if reverse else out
    return forward


def _cumulative_logsumexp(x, axis, exclusive, reverse):
    """TF's CumulativeLogsumexp: a scan from -inf whose step is Eigen's LogSumExp of (accumulator,
    element): max + log1p(exp(min - max)), or max where max is -inf. min and max are std::min and
    std::max with the accumulator first, which keep the accumulator against a NaN element."""
    if x.ndim == 0:
        raise ValueError(f"ScanOp: Expected scan axis in the range [0, 0), but got {axis}")
    moved = np.moveaxis(np.flip(x, axis) if reverse else x, axis, 0)
    out = np.empty_like(moved)
    accumulator = np.full(moved.shape[1:], -np.inf, x.dtype)
    lowest = _typed(np.finfo(x.dtype).min, x.dtype)
    for i, element in enumerate(moved):
        if exclusive:
            out[i] = accumulator
        low = np.where(element < accumulator, element, accumulator)
        high = np.where(accumulator < element, element, accumulator)
        accumulator = np.where(high < lowest, high, np.log1p(np.exp(low - high)) + high)
        if not exclusive:
            out[i] = accumulator
    out = np.moveaxis(out, 0, axis)
    return np.flip(out, axis).copy() if reverse else out


def _cumulative_logsumexp_vjp(g, ans, x, axis, exclusive, reverse, **_):
    """TF's gradient: the positive and the negative parts of the upstream, each in log space, scanned
    back against the output and raised again; the lowest finite value stands for log(0)."""
    lowest = _constant_like(g.dtype.min, g)

    def part(select, magnitude):
        log_part = F.where(select(g, _constant_like(0, g)), F.log(magnitude), lowest)
        scanned = F.cumulative_logsumexp(F.subtract(log_part, ans), axis, exclusive=exclusive, reverse=not reverse)
        return F.exp(F.add(scanned, x))
    return F.subtract(part(F.greater, g), part(F.less, F.negative(g)))


def _squeeze(x, axis):
    if axis is None:
        return np.squeeze(x)
    for a in axis:
        if x.shape[a] != 1:
            raise ValueError(f"Can not squeeze dim[{a % x.ndim}], expected a dimension of 1, got {x.shape[a]}")
    return np.squeeze(x, axis=tuple({a % x.ndim: None for a in axis}))  # an axis named twice is squeezed once


def _gather(params, indices, axis, batch_dims):
    """TF's GatherV2 kernel: `axis` and `batch_dims` as given (negative ones counted from the end of
    params and of indices), checked in the kernel's order; each of the leading `batch_dims` dimensions
    of params pairs with the same dimension of indices."""
    rank = params.ndim
    if rank == 0:
        raise ValueError("params must be at least 1 dimensional")
    least = -axis if axis < 0 else axis + 1
    if rank < least:
        raise ValueError(f"Shape must be at least rank {least} but is rank {rank}")
    axis = axis + rank if axis < 0 else axis
    if batch_dims != 0:
        if not -indices.ndim <= batch_dims <= indices.ndim:
            raise ValueError(f"Expected batch_dims in the range [{-indices.ndim}, {indices.ndim}], but got {batch_dims}")
        batch_dims = batch_dims + indices.ndim if batch_dims < 0 else batch_dims
        if batch_dims >= rank:
            raise ValueError(f"batch_dims ({batch_dims}) must be less than rank(params) ({rank}).")
        if axis < batch_dims:
            raise ValueError(f"batch_dims ({batch_dims}) must be less than or equal to axis ({axis}).")
        for i in range(batch_dims):
            if params.shape[i] != indices.shape[i]:
                raise ValueError(f"params.shape[{i}]: {params.shape[i]} should be equal to indices.shape[{i}]: "
                                 f"{indices.shape[i]}")
    out_shape = params.shape[:axis] + indices.shape[batch_dims:] + params.shape[axis + 1:]
    if not np.prod(params.shape[axis + 1:]):  # slices of no elements: the kernel copies nothing and checks no index
        return np.zeros(out_shape, params.dtype)
    limit = params.shape[axis]
    bad = (indices < 0) | (indices >= limit)
    if np.any(bad):
        where = np.unravel_index(int(np.flatnonzero(bad)[0]), indices.shape)
        position = f"[{','.join(str(int(i)) for i in where)}]" if indices.ndim else ""
        raise ValueError(f"indices{position} = {indices[where]} is not in [0, {limit})")
    if batch_dims == 0:
        return np.take(params, indices, axis=axis)
    count = int(np.prod(params.shape[:batch_dims]))
    flat_params = params.reshape((count,) + params.shape[batch_dims:])
    flat_indices = indices.reshape((count,) + indices.shape[batch_dims:])
    out = np.empty((count,) + out_shape[batch_dims:], params.dtype)
    for k in range(count):
        out[k] = np.take(flat_params[k], flat_indices[k], axis=axis - batch_dims)
    return out.reshape(out_shape)


def _segment_sum(values, indices, num_segments):
    """TF's UnsortedSegmentSum: rows of a negative segment id are dropped."""
    out = np.zeros((num_segments,) + values.shape[indices.ndim:], values.dtype)
    kept = indices >= 0
    if not values.size:  # the kernel returns before reading an id: out-of-range ones pass
        return out
    if kept.all():
        np.add.at(out, indices, values)
    else:
        np.add.at(out, indices[kept], values[kept])
    return out


def _segment_sum_vjp(g, ans, values, indices, num_segments, **_):
    """The upstream rows each value was summed into; zeros for the dropped ones (negative ids)."""
    kept = indices >= 0
    if kept.all():
        return F.gather(g, indices)
    rows = F.gather(g, np.where(kept, indices, 0))
    mask = F.reshape(F.constant(kept), kept.shape + (1,) * (len(_shape(rows)) - kept.ndim))
    return F.where(F.broadcast_to(mask, _shape(rows)), rows, F.zeros_like(rows))


def _lgamma_scalar(v: float) -> float:
    """C's lgamma: log|Gamma(v)|, +inf at the poles (v a non-positive integer) and at +-inf."""
    if math.isnan(v):
        return v
    if math.isinf(v) or v <= 0 and v == math.floor(v):
        return math.inf
    return math.lgamma(v)


_lgamma = _elementwise(_lgamma_scalar)


def _lgamma_of_tiny(result, x):
    """glibc's lgamma reads a subnormal of either sign as 2^-150 (float32) or 2^-1075 (float64) in
    magnitude (see _glibc_logf): -log of that, in every element (Eigen has no packet lgamma)."""
    return np.where(_subnormal(x), x.dtype.type(-_GLIBC_SUBNORMAL_EXPONENT[x.dtype] * math.log(2)), result)


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


def _polygamma_vjp(g, ans, n, x, **_):
    """TF's Polygamma gradient: none for n; polygamma(n + 1, x) times the upstream, summed over x's broadcast
    axes."""
    partial = F.execute("Polygamma", [F.add(n, _constant_like(1, n)), x])
    return None, F.reshape(F.reduce_sum(F.multiply(partial, g), _broadcast_axes(_shape(x), _shape(n))), _shape(x))


def _zeta(x, q):
    """Zeta: the Hurwitz zeta function elementwise, in the input's dtype (see _zeta_scalar)."""
    x, q = np.broadcast_arrays(x, q)
    t = x.dtype.type
    return np.array([_zeta_scalar(a, b, t) for a, b in zip(x.reshape(-1), q.reshape(-1))], dtype=x.dtype).reshape(x.shape)


def _zeta_vjp(g, ans, x, q, **_):
    """TF's Zeta gradient: none for x; -x zeta(x + 1, q) times the upstream, summed over q's broadcast axes."""
    partial = F.multiply(F.negative(x), F.execute("Zeta", [F.add(x, _constant_like(1, x)), q]))
    return None, F.reshape(F.reduce_sum(F.multiply(partial, g), _broadcast_axes(_shape(q), _shape(x))), _shape(q))


def _nd_rows(indices, shape: tuple, what: str) -> tuple:
    """The rows of an N-d index (its last axis indexes the leading dimensions of `shape`) as a tuple of
    index arrays, checked as TF's GatherNd and scatter kernels check them."""
    depth = indices.shape[-1]
    if depth > len(shape):
        raise ValueError(f"index innermost dimension length must be <= {what} rank; saw: {depth} vs. {len(shape)}")
    rows = indices.reshape(math.prod(indices.shape[:-1]), depth)
    bad = np.flatnonzero(((rows < 0) | (rows >= np.array(shape[:depth], rows.dtype))).any(axis=1))
    if bad.size:
        index = ", ".join(str(int(i)) for i in rows[bad[0]])
        raise ValueError(f"indices[{int(bad[0])}] = [{index}] does not index into {what} shape {dims_text(shape)}")
    return tuple(rows.T)


def _gather_nd(params, indices):
    """GatherNd: the slices of params at each row of `indices`' last axis."""
    if params.ndim == 0:
        raise ValueError("params must be at least a vector")
    if indices.ndim == 0:
        raise ValueError("indices must be at least a vector")
    rows = _nd_rows(indices, params.shape, "param")
    depth, count = indices.shape[-1], math.prod(indices.shape[:-1])
    if count and params.size == 0 and math.prod(params.shape[depth:]):
        raise ValueError("Requested more than 0 entries, but params is empty.")
    out_shape = indices.shape[:-1] + params.shape[depth:]
    if depth == 0:
        return np.broadcast_to(params, (count,) + params.shape).reshape(out_shape).copy()
    return params[rows].reshape(out_shape)


def _scatter_add(a, b):
    """One accumulation of TF's scatter kernels, in the dtype: half types rounded at every add (float32
    arithmetic, bfloat16's subnormals flushed there), float32 and float64 read and written flushed."""
    if a.dtype == np.bool_:
        return a | b
    if a.dtype == _dtypes.bfloat16._numpy_dtype:
        return flush_subnormals(flush_subnormals(a.astype(np.float32)) + flush_subnormals(b.astype(np.float32))).astype(a.dtype)
    if a.dtype == np.float16:
        return (a.astype(np.float32) + b.astype(np.float32)).astype(a.dtype)
    if a.dtype.kind in "fc":
        return flush_subnormals(flush_subnormals(a) + flush_subnormals(b))
    return a + b


def _check_scatter(indices, updates, shape: tuple) -> None:
    if indices.ndim == 0 or indices.shape[-1] > len(shape):
        raise ValueError(f"Index innermost dimension length must be <= output rank; saw: {indices.shape} vs. {shape}")
    if updates.ndim == 0:
        raise ValueError("Updates shape must have rank at least one. Found:[]")
    if updates.shape != indices.shape[:-1] + tuple(shape[indices.shape[-1]:]):
        raise ValueError(f"Dimensions of updates {dims_text(updates.shape)} must match indices "
                         f"{dims_text(indices.shape)} and shape {dims_text(shape)}")
    # TF's kernels refuse any row for an empty output, and for an index depth of 0 (the whole output)
    if math.prod(indices.shape[:-1]) and (math.prod(shape) == 0 or indices.shape[-1] == 0):
        raise ValueError("Indices and updates specified for empty output shape")


def _scatter_into(out, indices, updates, accumulate: bool):
    """Writes (or adds, in order) each slice of `updates` at its row of `indices` in `out`."""
    _check_scatter(indices, updates, out.shape)
    rows = _nd_rows(indices, out.shape, "")
    slices = updates.reshape((math.prod(indices.shape[:-1]),) + out.shape[indices.shape[-1]:])
    if not accumulate:
        out[rows] = slices  # repeated rows: the last one stays, as on TF's CPU
        return out
    for i in range(len(slices)):
        row = tuple(r[i] for r in rows)
        out[row] = _scatter_add(np.asarray(out[row]), slices[i])
    return out


def _scatter_nd(updates, indices, shape):
    """ScatterNd: zeros (empty strings) of `shape` with the updates summed in at their indices."""
    zeros = np.full(shape, b"", object) if updates.dtype == object else np.zeros(shape, updates.dtype)
    return _scatter_into(zeros, indices, updates, accumulate=True)


def _gather_nd_vjp(g, ans, params, indices, **_):
    """TF's GatherNd gradient: IndexedSlices for indices of shape [n, 1] (whose values are the upstream as
    it comes, IndexedSlices too: TF nests them), else the upstream scattered (ScatterNd, which fails for a
    scalar upstream); the dense shape in the indices' dtype."""
    if indices.dtype not in (np.int32, np.int64):  # TF's `shape(params, out_type=indices.dtype)`
        raise InvalidArgumentError(f"Value for attr 'out_type' of {np.dtype(indices.dtype).name} is not in the list "
                                   f"of allowed values: int32, int64")
    shape = _shape(params)
    if indices.ndim == 2 and indices.shape[1] == 1:
        return F.IndexedSlices(g, F.constant(indices[:, 0]), F.constant(list(shape), indices.dtype))
    return F.execute("ScatterNd", [F.convert_to_tensor(g)], indices=indices, shape=shape)


def _gather_nd_of(g, indices):
    return F.execute("GatherNd", [g], indices=indices)


def _slice(x, begin, size):
    """Slice: `size[i]` elements from `begin[i]` along each axis (sizes already resolved from -1)."""
    return x[tuple(slice(b, b + n) for b, n in zip(begin, size))].copy()


def _slice_vjp(g, ans, x, begin, size, **_):
    """TF's Slice gradient: the upstream padded with zeros back to the input's place (Pad)."""
    after = np.array(_shape(x), begin.dtype) - size - begin
    return F.execute("Pad", [g], paddings=np.stack([begin, after], axis=1), constant=None)


def _top_k_order(x, k, sorted_):
    """The column indices TopKV2 picks per row of the last axis. Sorted, and without NaNs: descending, ties
    (and subnormals, which its comparisons read as zero, and signed zeros) in index order. Rows holding
    NaNs, and the heap's order of sorted=False, as TF's kernel leaves them (reftape/ordering.py)."""
    keys = x.astype(np.float32) if x.dtype in (np.float16, _dtypes.bfloat16._numpy_dtype) else x
    if keys.dtype.kind == "f":
        keys = flush_subnormals(keys)
    columns = keys.shape[-1]
    irregular = np.isnan(keys).any(axis=-1) if keys.dtype.kind == "f" else np.zeros(keys.shape[:-1], bool)
    if not sorted_ and 1 < k < columns:
        irregular = np.ones(keys.shape[:-1], bool)
    order = np.argsort(-keys if keys.dtype.kind == "f" else ~keys, axis=-1, kind="stable")[..., :k]  # ~: no overflow
    lanes = _PACKET.get(keys.dtype, 8)
    for row in np.ndindex(irregular.shape):
        if irregular[row]:
            order[row] = top_k_columns(keys[row].tolist(), k, sorted_, lanes)
    return order


def _top_k(x, k, sorted, index_type):
    if x.ndim == 0:
        raise ValueError("input must be >= 1-D, got shape []")
    if k < 0:
        raise ValueError(f"Need k >= 0, got {k}")
    if x.shape[-1] < k:
        raise ValueError(f"input must have at least k columns. Had {x.shape[-1]}, needed {k}")
    order = _top_k_order(x, k, sorted)
    return np.take_along_axis(x, order, axis=-1), order.astype(index_type)


def _top_k_vjp(g, ans, x, k, **_):
    """TF's TopKV2 gradient: the upstream of the values scattered (ScatterNd) to the flat positions of the
    picked elements, reshaped to the input's shape; nothing for the indices."""
    shape, picked = _shape(x), ans[1]._value
    columns = shape[-1] if shape else 1
    if not columns:  # TF's gradient steps a range by the last size
        raise InvalidArgumentError("Requires delta != 0: 0 [Op:Range] name: ")
    rows = picked.reshape(-1, k) + (np.arange(picked.size // k if k else 0) * columns)[:, None]
    flat = F.execute("ScatterNd", [F.reshape(g[0], (-1,))], indices=rows.reshape(-1, 1).astype(np.int32),
                     shape=(math.prod(shape),))
    return F.reshape(flat, shape)


def _check_paddings(x, paddings, most_dims):
    """Pad's and MirrorPad's checks of the paddings (a [rank, 2] integer matrix) and rank, in the kernel's order."""
    if paddings.ndim != 2 or paddings.shape[1] != 2:
        raise ValueError(f"paddings must be a matrix with 2 columns: {dims_text(paddings.shape)}")
    if paddings.shape[0] != x.ndim:
        raise ValueError(f"The first dimension of paddings must be the rank of inputs{dims_text(paddings.shape)} "
                         f"{dims_text(x.shape)}")
    for before, after in paddings:
        if before < 0 or after < 0:
            raise ValueError(f"Paddings must be non-negative: {before} {after}")
    if x.ndim > most_dims:
        raise UnimplementedError(f"inputs rank not in [0,{most_dims}]: {x.ndim}")


def _pad(x, paddings, constant):
    """Pad (`constant` None: zeros, empty strings for strings) and PadV2."""
    _check_paddings(x, paddings, most_dims=8)
    if x.ndim == 0:
        return x.copy()
    if constant is None:
        constant = b"" if x.dtype == object else 0
    return np.pad(x, paddings, constant_values=constant)


# MirrorPad's modes: how far the reflection starts from the edge (REFLECT leaves the edge out)
_MIRROR_OFFSET = {"REFLECT": 1, "SYMMETRIC": 0}


def _check_mirror_sizes(paddings, sizes, mode, grad: bool):
    """MirrorPad (and its gradient, measured against the size it restores) allows paddings below a
    dimension's size for REFLECT, up to its size for SYMMETRIC."""
    what = "the output dimension size" if grad else "the dimension size"
    for (before, after), size in zip(paddings, sizes):
        if _MIRROR_OFFSET[mode] and not (before < size and after < size):
            raise ValueError(f"paddings must be less than {what}: {before}, {after} not less than {size}")
        if not _MIRROR_OFFSET[mode] and not (before <= size and after <= size):
            raise ValueError(f"paddings must be no greater than {what}: {before}, {after} greater than {size}")


def _mirror_pad(x, paddings, mode):
    _check_paddings(x, paddings, most_dims=5)
    _check_mirror_sizes(paddings, x.shape, mode, grad=False)
    return np.pad(x, paddings, mode=mode.lower())


def _mirror_pad_grad(g, paddings, mode):
    """MirrorPadGrad: each padded border folded back (reversed) onto the elements it mirrors, axis by axis."""
    _check_paddings(g, paddings, most_dims=5)
    sizes = [d - before - after for d, (before, after) in zip(g.shape, paddings)]
    _check_mirror_sizes(paddings, sizes, mode, grad=True)
    offset = _MIRROR_OFFSET[mode]
    for axis, ((before, after), size) in enumerate(zip(paddings, sizes)):
        moved = np.moveaxis(g, axis, 0)
        core = moved[before:before + size].copy()
        core[offset:offset + before] += moved[:before][::-1]
        core[size - offset - after:size - offset] += moved[before + size:][::-1]
        g = np.moveaxis(core, 0, axis)
    return np.ascontiguousarray(g)


def _channel_axis(rank: int, data_format: str) -> int:
    return 1 if data_format == "NCHW" else rank - 1


def _bias_add(value, bias, data_format):
    if value.ndim < 2:
        raise ValueError(f"Input tensor must be at least 2D: {dims_text(value.shape)}")
    if bias.ndim != 1:
        raise ValueError(f"Biases must be 1D: {dims_text(bias.shape)}")
    axis = _channel_axis(value.ndim, data_format)
    if bias.shape[0] != value.shape[axis]:
        raise ValueError(f"Must provide as many biases as the last dimension of the input tensor: "
                         f"{dims_text(bias.shape)} vs. {dims_text(value.shape)}")
    return value + bias.reshape((-1,) + (1,) * (value.ndim - 1 - axis))


def _bias_add_grad(g, data_format):
    axis = _channel_axis(g.ndim, data_format)
    return np.sum(g, axis=tuple(a for a in range(g.ndim) if a != axis))


def _one_hot(on_value, off_value, indices, depth, axis):
    if depth < 0:
        raise ValueError(f"depth must be non-negative, got: {depth}")
    if not -1 <= axis <= indices.ndim:
        raise ValueError(f"Expected axis to be -1 or between [0, {indices.ndim + 1}).  But received: {axis}")
    for name, value in (("on_value", on_value), ("off_value", off_value)):
        if value.ndim:
            raise ValueError(f"{name} must be a scalar, but got: {dims_text(value.shape)}")
    hot = np.expand_dims(indices, -1) == np.arange(depth)  # ids outside [0, depth) are hot nowhere
    return np.moveaxis(np.where(hot, on_value, off_value), -1, axis)


def _sorted_segment_sum(data, segment_ids):
    """SegmentSum: ids sorted and non-negative, as many segments as the last id + 1."""
    if data.ndim == 0:
        raise ValueError("input must be at least rank 1")
    if segment_ids.ndim != 1:
        raise ValueError("segment_ids should be a vector.")
    if segment_ids.shape[0] != data.shape[0]:
        raise ValueError("segment_ids should be the same size as dimension 0 of input.")
    count = int(segment_ids[-1]) + 1 if segment_ids.size else 0
    if np.any(np.diff(segment_ids) < 0):
        raise ValueError("segment ids are not increasing")
    if segment_ids.size and segment_ids[0] < 0:
        raise ValueError(f"Segment id {segment_ids[0]} out of range [0, {count}), possibly because 'segment_ids' "
                         "input is not sorted.")
    return _segment_sum(data, segment_ids, count)


def _sparse_softmax_xent(logits, labels):
    if logits.shape[-1] == 0 and logits.shape[0]:
        raise ValueError(f"Must have at least one class, but got logits shape {dims_text(logits.shape)}")
    outside = (labels < 0) | (labels >= logits.shape[-1])
    if np.any(outside):
        raise ValueError(f"Received a label value of {labels[outside][0]} which is outside the valid range of "
                         f"[0, {logits.shape[-1]}).  Label values: {' '.join(str(int(i)) for i in labels)}")
    log_probs = _log_softmax(logits)
    hot = (np.arange(logits.shape[-1]) == labels[:, None]).astype(logits.dtype)
    # the label's term only: a class of zero probability elsewhere in the row (-inf) leaves the loss finite
    loss = -np.take_along_axis(log_probs, labels[:, None].astype(np.intp), axis=-1)[:, 0]
    return loss, np.exp(log_probs) - hot


def _reverse(x, axis):
    """ReverseV2 (of rank 1 or more: scalars never reach the kernel): each axis, negative ones counted from the
    end, at most once; tensors of rank 8 at most."""
    rank = x.ndim
    seen = set()
    for i, a in enumerate(axis):
        canonical = a + rank if a < 0 else a
        if not 0 <= canonical < rank:
            raise ValueError(f"'axis'[{i}] = {a} is out of valid range [0, {rank - 1}")
        if canonical in seen:
            raise ValueError(f"axis {canonical} specified more than once.")
        seen.add(canonical)
    if rank > 8:
        raise UnimplementedError("reverse is not implemented for tensors of rank > 8. [Op:ReverseV2]")
    return np.flip(x, tuple(seen)).copy()


def _strided_slice_grad(dy, shape, key):
    out = np.zeros(shape, dy.dtype)
    view = out[key]
    out[key] = dy.reshape(np.shape(view))
    return out


def _matmul2d(a, b, transpose_a, transpose_b):
    """np.dot: for matrices the product np.matmul computes (the same BLAS call), with half its overhead.
    Not over an inner dimension of 1: OpenBLAS skips the zero factors of that rank-1 update (NaN times 0
    came out 0), where TF's contraction adds each product to +0 (so -1 times 0 is +0)."""
    a, b = a.T if transpose_a else a, b.T if transpose_b else b
    if a.shape[1] == 1 and b.shape[0] == 1 and a.dtype.kind in "fc":  # (other shapes: np.dot's mismatch)
        product = _packet_multiply(*np.broadcast_arrays(a, b)) if a.dtype.kind == "c" else a * b
        return product + a.dtype.type(0)
    return np.dot(a, b)


def _adjoint(x):
    return np.conj(np.swapaxes(x, -1, -2))


def _batch_matmul(x, y, adj_x, adj_y):
    return np.matmul(_adjoint(x) if adj_x else x, _adjoint(y) if adj_y else y)


def _nothing_to_normalise(x):
    """TF's softmax kernels: a scalar is refused, an empty tensor returned as it is."""
    if x.ndim == 0:
        raise ValueError("logits must have >= 1 dimension, got []")
    return x.copy()


def _softmax(x):
    if x.ndim == 0 or x.size == 0:
        return _nothing_to_normalise(x)
    shifted = x - np.max(x, axis=-1, keepdims=True)
    e = np.exp(shifted)
    return e / np.sum(e, axis=-1, keepdims=True)


def _log_softmax(x):
    if x.ndim == 0 or x.size == 0:
        return _nothing_to_normalise(x)
    shifted = x - np.max(x, axis=-1, keepdims=True)
    return shifted - np.log(np.sum(np.exp(shifted), axis=-1, keepdims=True))


def _softmax_xent(logits, labels):
    """TF's kernel: loss = sum(labels * (log(sum(exp(shifted))) - shifted)), with no negation (a row of no
    classes loses +0), and backprop = exp(shifted) / sum(exp(shifted)) - labels."""
    shifted = logits - np.max(logits, axis=-1, keepdims=True, initial=-np.inf)
    exps = np.exp(shifted)
    sums = np.sum(exps, axis=-1, keepdims=True)
    return np.sum(labels * (np.log(sums) - shifted), axis=-1), exps / sums - labels


def _pmax(x, y):
    """TF's vectorized max: NaN propagates (x's first), ties (including -0.0 vs 0.0) give the second
    operand. A NaN y loses every comparison, so only a NaN x needs its own test."""
    return np.where((x > y) | np.isnan(x), x, y)


def _pmin(x, y):
    return np.where((x < y) | np.isnan(x), x, y)


def _relu(x, half=False):
    """max(x, 0): NaN kept, negatives give +0.0; -0.0 gives +0.0 in Eigen's vector loop (float32, float64)
    and stays -0.0 in its scalar loop (the last size % packet elements) and for half types (`half`, set by
    F.relu; measured on TF 2.21: std::max returns its first argument on a tie)."""
    zero = _typed(0, x.dtype)
    if half:
        return np.where(x < zero, zero, x)
    y = np.where(x <= zero, zero, x)
    packet = _PACKET.get(x.dtype)
    if packet is not None:
        size = x.size
        tail = size % packet
        if tail:  # at most packet - 1 elements, checked for zeros in one C call
            flat_x = x.reshape(-1)[size - tail:]
            if count_nonzero(flat_x) != tail:
                np.copyto(y.reshape(-1)[size - tail:], flat_x, where=flat_x == 0)  # the scalar loop keeps -0.0
    return y


def _relu6(x, half=False):
    """min(max(x, 0), 6), the zeros as `_relu`'s."""
    return _pmin(_relu(x, half), np.full_like(x, 6))


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
    """Log. Complex: (log |z|, atan2(y, x)); |z| in the scalar loop is glibc's (`_complex_abs`, so
    log(1-1e-30j) has a real part of 0), in the vector loop Eigen's phypot_complex, which squares the parts:
    NaN where x^2 + y^2 overflows or flushes to zero (log of 1e20+0j in complex64, of 1e-20j), inf where a
    part is infinite. Finite values of the vector loop may differ from TF's polynomials by an ulp or two."""
    if x.dtype not in _COMPLEX_PACKET:
        return np.log(x)

    def vector(z):
        a, b = _ftz(z.real), _ftz(z.imag)
        squares = _ftz(_ftz(a * a) + _ftz(b * b))
        lost = ((squares == np.inf) | (squares == 0)) & ((a != 0) | (b != 0))
        real = np.where(lost, np.nan, np.log(_complex_abs(z)))
        real = np.where(np.isinf(a) | np.isinf(b), np.inf, real)
        return _complex(real.astype(a.dtype), np.arctan2(b, a))
    return _by_loop(vector, _complex_log_scalar, x)


def _complex_log_scalar(z):
    """Eigen's complex_log: (log |z|, atan2(y, x)), |z| glibc's."""
    return _complex(np.log(_complex_abs(z)), np.arctan2(z.imag, z.real))


def _log1p(x):
    """Log1p. Complex (no packet version: every element): Eigen's std_fallback::log1p, u = 1 + x (the
    imaginary part untouched), x itself where u is 1 or log(u) equals u, else x * (log(u) / (u - 1)), as
    std::complex divides and multiplies."""
    if x.dtype not in _COMPLEX_PACKET:
        return np.log1p(x)
    with np.errstate(all="ignore"):
        a, b = _ftz(x.real), _ftz(x.imag)
        u = _complex(_ftz(1 + a), b)
        log_u = _complex_log_scalar(u)
        keep = ((u.real == 1) & (u.imag == 0)) | ((u.real == log_u.real) & (u.imag == log_u.imag))
        ratio = _scalar_divide(log_u, _complex(_ftz(u.real - 1), u.imag))
        return np.where(keep, x, _scalar_multiply(x, ratio))


def _expm1(x):
    """Expm1. Complex (no packet version): Eigen's expm1_impl, e = expm1(re); the real part
    e - 2 (e + 1) sin(im / 2)^2, the imaginary part (e + 1) sin(im)."""
    if x.dtype not in _COMPLEX_PACKET:
        return np.expm1(x)
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


# ---------------------------------------------------------------------------------------------
# VJP helpers for families of ops


def _add_vjp(g, ans, x, y, needs, **_):
    if not needs[1] and _scalar(y):
        return g, None  # IndexedSlices pass through here, as in TF
    g = F.convert_to_tensor(g)
    if _same_shapes(x, y, g):
        return g, g
    return _reduce_pair(x, y, g if needs[0] else None, g if needs[1] else None)


def _sub_vjp(g, ans, x, y, needs, **_):
    if not needs[1] and _scalar(y):
        return g, None
    g = F.convert_to_tensor(g)
    if _same_shapes(x, y, g):
        return g, F.negative(g)
    return _reduce_pair(x, y, g if needs[0] else None, F.negative(g) if needs[1] else None)


def _mul_vjp(g, ans, x, y, needs, **_):
    if not needs[1] and _scalar(y):
        return F.multiply(g, _conj(y)), None
    if _same_shapes(x, y, g) and g.dtype in (_dtypes.int32, _dtypes.float32):
        return F.multiply(g, y), F.multiply(g, x)
    gx = F.multiply(g, _conj(y)) if needs[0] else None
    gy = F.multiply(_conj(x), g) if needs[1] else None
    return _reduce_pair(x, y, gx, gy)


def _tanh_grad_vjp(g, ans, y, dy, **_):
    if g.__class__ is F.IndexedSlices:  # TF's gradient starts with `grad * -2.0`, which IndexedSlices do not support
        raise TypeError("unsupported operand type(s) for *: 'IndexedSlices' and 'float'")
    return F.multiply(F.multiply(F.multiply(g, -2.0), _conj(dy)), _conj(y)), F.execute("TanhGrad", [_conj(y), g])


def _realdiv_vjp(g, ans, x, y, **_):
    cx, cy = _conj(x), _conj(y)
    return _reduce_pair(x, y, F.divide(g, cy), F.multiply(g, F.divide(F.divide(F.negative(cx), cy), cy)))


def _pow_vjp(g, ans, x, y, needs, **_):
    cx, cy = _conj(x), _conj(y)
    base_grad = lambda: F.multiply(F.multiply(g, cy), F.pow(cx, F.subtract(cy, 1)))  # noqa: E731
    if not needs[1] and _scalar(y):
        return base_grad(), None
    gx = base_grad() if needs[0] else None
    gy = None
    if needs[1]:
        mask = F.not_equal(cx, 0) if x.dtype.is_complex else F.greater(cx, 0)
        safe_x = F.where(mask, cx, F.ones_like(x))
        log_x = F.where(mask, F.log(safe_x), F.zeros_like(x))
        gy = F.multiply(F.multiply(g, _conj(ans)), log_x)
    return _reduce_pair(x, y, gx, gy)


def _max_min_vjp(select):
    def vjp(g, ans, x, y, needs, **_):
        zeros = F.zeros_like(g)
        x_mask = select(x, y)
        if not needs[1] and _scalar(y):
            return _where_v2(x_mask, g, zeros), None
        gx = _where_v2(x_mask, g, zeros) if needs[0] else None
        gy = _where_v2(x_mask, zeros, g) if needs[1] else None
        if _shape(x) == _shape(y) and not active_recordings():
            # Nothing was broadcast: TF's eager gradient still sums over no axes and reshapes to the
            # same shape, two copies that only a tape recording this backward pass would see.
            return gx, gy
        return _reduce_pair(x, y, gx, gy)
    return vjp


def _where_v2(condition, x, y):
    """TF's where_v2 on tensors of one dtype (what gradients call): the SelectV2 op, without conversions."""
    return F.execute("SelectV2", [x, y], condition=condition)


def _squared_difference_vjp(g, ans, x, y, needs, **_):
    x_grad = F.multiply(F.multiply(_constant_like(2.0, g), g), F.subtract(x, y))
    if _same_shapes(x, y, g):
        return x_grad, F.negative(x_grad)
    return _reduce_pair(x, y, x_grad if needs[0] else None, F.negative(x_grad) if needs[1] else None)


def _div_no_nan_vjp(g, ans, x, y, **_):
    cx, cy = _conj(x), _conj(y)
    gy = F.multiply(g, F.divide_no_nan(F.divide_no_nan(F.negative(cx), cy), cy))
    return _reduce_pair(x, y, F.divide_no_nan(g, cy), gy)


def _mul_no_nan_vjp(g, ans, x, y, **_):
    """TF's MulNoNan gradient: mul_no_nan(g, y) and mul_no_nan(x, g), conjugating nothing."""
    gx, gy = F.multiply_no_nan(g, y), F.multiply_no_nan(x, g)
    if _same_shapes(x, y, g):
        return gx, gy
    return _reduce_pair(x, y, gx, gy)


def _xlogy_vjp(g, ans, x, y, **_):
    not_zero_x = F.cast(F.not_equal(x, F.cast(0.0, x.dtype)), x.dtype)
    return _reduce_pair(x, y, F.multiply(F.xlogy(not_zero_x, y), g), F.multiply(F.xdivy(x, y), g))


def _xlog1py_vjp(g, ans, x, y, **_):
    """TF's Xlog1py gradient: xlog1py(x != 0, y) and xdivy(x, y + 1), each times the upstream."""
    not_zero_x = F.cast(F.not_equal(x, F.cast(0.0, x.dtype)), x.dtype)
    return _reduce_pair(x, y, F.multiply(F.xlog1py(not_zero_x, y), g), F.multiply(F.xdivy(x, F.add(y, 1.0)), g))


def _xdivy_vjp(g, ans, x, y, **_):
    not_zero_x = F.cast(F.not_equal(x, F.cast(0.0, x.dtype)), x.dtype)
    partial_x = F.xdivy(not_zero_x, y)
    partial_y = F.multiply(F.xdivy(F.negative(x), F.square(y)), 1)
    return _reduce_pair(x, y, F.multiply(partial_x, g), F.multiply(partial_y, g))


def _atan2_vjp(g, ans, y, x, **_):
    grad_inv = F.divide(g, F.add(F.square(y), F.square(x)))
    return _reduce_pair(y, x, F.multiply(x, grad_inv), F.multiply(F.negative(y), grad_inv))


def _floormod_vjp(g, ans, x, y, **_):
    floor_xy = F.floordiv(_conj(x), _conj(y))
    return _reduce_pair(x, y, g, F.multiply(g, F.negative(floor_xy)))


def _complex_vjp(g, ans, re, im, **_):
    return _reduce_pair(re, im, F.real(g), F.imag(g))


def _sum_vjp(g, ans, x, axis, keep_dims, **_):
    return F.broadcast_to(F.reshape(g, _kept_shape(_shape(x), axis, keep_dims, _shape(ans))), _shape(x))


def _mean_vjp(g, ans, x, axis, keep_dims, **_):
    sum_grad = _sum_vjp(g, ans, x, axis, keep_dims)
    factor = int(np.prod(_shape(x))) // max(int(np.prod(_shape(ans))), 1)
    return F.divide(sum_grad, F.cast(F.constant(factor), sum_grad.dtype))


def _min_max_reduction_vjp(g, ans, x, axis, keep_dims, **_):
    kept = _kept_shape(_shape(x), axis, keep_dims, _shape(ans))
    y, g = F.reshape(ans, kept), F.reshape(g, kept)
    indicators = F.cast(F.equal(y, x), g.dtype)
    num_selected = F.reshape(F.reduce_sum(indicators, axis), kept)
    return F.multiply(F.divide(indicators, num_selected), g)


def _euclidean_norm_vjp(g, ans, x, axis, keep_dims, **_):
    kept = _kept_shape(_shape(x), axis, keep_dims, _shape(ans))
    return F.divide(x, F.divide(F.reshape(ans, kept), F.reshape(g, kept)))


def _prod_vjp(g, ans, x, axis, keep_dims, **_):
    shape = _shape(x)
    rank = len(shape)
    g = F.broadcast_to(F.reshape(g, _kept_shape(shape, axis, keep_dims, _shape(ans))), shape)
    reduced = sorted({a % rank for a in axis}) if axis is not None else list(range(rank))
    other = [d for d in range(rank) if d not in reduced]
    perm = reduced + other
    permuted = F.transpose(x, perm)
    reduced_num = int(np.prod([shape[d] for d in reduced]))
    other_num = int(np.prod([shape[d] for d in other]))
    reshaped = F.reshape(permuted, (reduced_num, other_num))
    left = F.cumprod(reshaped, axis=0, exclusive=True)
    right = F.cumprod(reshaped, axis=0, exclusive=True, reverse=True)
    y = F.reshape(F.multiply(_conj(left), _conj(right)), _shape(permuted))
    return F.reshape(F.multiply(g, F.transpose(y, list(np.argsort(perm)))), shape)


def _cumprod_vjp(g, ans, x, axis, exclusive, reverse, **_):
    prod = F.cumprod(x, axis, exclusive=exclusive, reverse=reverse)
    out = F.cumsum(F.multiply(prod, g), axis, exclusive=exclusive, reverse=not reverse)
    return F.divide_no_nan(out, x)


def _concat_vjp(g, ans, *inputs, axis, **_):
    axis = axis % ans.ndim
    if g.__class__ is F.IndexedSlices:
        return _concat_slices_vjp(g, inputs, axis)
    grads, offset = [], 0
    for x in inputs:
        size = x.shape[axis]
        key = (slice(None),) * axis + (slice(offset, offset + size),)
        grads.append(F.strided_slice(g, key))
        offset += size
    return grads


def _concat_slices_vjp(g, inputs, axis: int) -> list:
    """TF keeps an IndexedSlices upstream sparse through concat: along axis 0 each input takes the rows
    whose indices fall in its range (shifted to its own), along another axis its part of every row."""
    grads, offset = [], 0
    indices = g.indices._value
    for x in inputs:
        size = _shape(x)[axis]
        dense_shape = F.constant(list(_shape(x)), _dtypes.int32)
        if axis == 0:
            rows = np.flatnonzero((indices >= offset) & (indices < offset + size))
            values = F.gather(g.values, rows)
            own = F.constant(indices[rows] - np.asarray(offset, indices.dtype), g.indices.dtype)
        else:
            values, own = F.strided_slice(g.values, (slice(None),) * axis + (slice(offset, offset + size),)), g.indices
        grads.append(F.IndexedSlices(values, own, dense_shape))
        offset += size
    return grads


def _tile_vjp(g, ans, x, multiples, **_):
    split_shape = tuple(d for pair in zip(multiples, _shape(x)) for d in pair)
    return F.reduce_sum(F.reshape(g, split_shape), tuple(range(0, len(split_shape), 2)))


def _gather_vjp(g, ans, params, indices, axis, batch_dims, **_):
    """TF's GatherV2 gradient: IndexedSlices where the axis was given as 0 (a negative axis naming the
    first dimension is not 0); otherwise dense: the gathered axis moved behind the batch dimensions,
    the batch dimensions flattened into the segment ids (each batch's indices offset by its position
    times the axis' size), segment sums, and the layout restored."""
    shape = _shape(params)
    if axis == 0:
        flat_indices = F.constant(indices.reshape(-1))
        values = F.reshape(g, (flat_indices.shape[0],) + shape[1:])
        return F.IndexedSlices(values, flat_indices, F.constant(list(shape), _dtypes.int32))
    axis = axis + len(shape) if axis < 0 else axis
    batch_dims = batch_dims + indices.ndim if batch_dims < 0 else batch_dims
    values = F.reshape(g, shape[:axis] + (-1,) + shape[axis + 1:])
    perm = list(range(batch_dims)) + [axis] + list(range(batch_dims, axis)) + list(range(axis + 1, len(shape)))
    moved = F.transpose(values, perm)
    moved_shape = tuple(shape[p] for p in perm)
    batch_shape, size = moved_shape[:batch_dims], shape[axis]
    count = int(np.prod(batch_shape, dtype=np.int64))
    offsets = (np.arange(count, dtype=indices.dtype) * size).reshape(batch_shape + (1,) * (indices.ndim - batch_dims))
    segment_ids = (indices + offsets).reshape(-1)
    summed = F.execute("UnsortedSegmentSum", [F.reshape(moved, (-1,) + moved_shape[batch_dims + 1:])],
                       indices=segment_ids, num_segments=count * size)
    restored = F.transpose(F.reshape(summed, moved_shape), list(np.argsort(perm)))
    return F.reshape(restored, shape)


def _pad_vjp(g, ans, x, paddings, **_):
    """TF's Pad gradient: the upstream sliced back to the input's place (nothing for the paddings)."""
    return F.strided_slice(g, tuple(slice(int(before), int(before) + size)
                                    for (before, _after), size in zip(paddings, _shape(x))))


def _bias_add_vjp(g, ans, value, bias, data_format, **_):
    """TF's BiasAdd gradient passes the upstream on to the value as it is (IndexedSlices too); the bias
    gets BiasAddGrad of the dense upstream."""
    return g, F.execute("BiasAddGrad", [F.convert_to_tensor(g)], data_format=data_format)


def _bias_add_grad_vjp(g, ans, dy, data_format, **_):
    """TF's BiasAddGrad gradient: the bias gradient's upstream tiled back over the other axes."""
    shape = _shape(dy)
    axis = _channel_axis(len(shape), data_format)
    expanded = tuple(_shape(g)[0] if a == axis else 1 for a in range(len(shape)))
    return F.tile(F.reshape(g, expanded), tuple(1 if a == axis else d for a, d in enumerate(shape)))


def _select_v1_vjp(g, ans, x, y, condition, **_):
    """TF's Select gradient: zeros like x, and two selects (nothing to unbroadcast)."""
    zeros = F.zeros_like(x)
    return F.execute("Select", [g, zeros], condition=condition), F.execute("Select", [zeros, g], condition=condition)


def _select_vjp(g, ans, x, y, condition, **_):
    zeros = F.zeros_like(g)
    out_shape = _shape(ans)
    gx = unbroadcast(F.where(condition, g, zeros), _shape(x), out_shape)
    gy = unbroadcast(F.where(condition, zeros, g), _shape(y), out_shape)
    return gx, gy


def _broadcast_to_vjp(g, ans, x, shape, **_):
    return unbroadcast(g, _shape(x), tuple(shape))


def _matmul_vjp(g, ans, a, b, transpose_a, transpose_b, needs, **_):
    a, b = _conj(a), _conj(b)
    mm = F.matmul
    if not transpose_a and not transpose_b:
        ga, gb = lambda: mm(g, b, transpose_b=True), lambda: mm(a, g, transpose_a=True)
    elif not transpose_a:
        ga, gb = lambda: mm(g, b), lambda: mm(g, a, transpose_a=True)
    elif not transpose_b:
        ga, gb = lambda: mm(b, g, transpose_b=True), lambda: mm(a, g)
    else:
        ga, gb = lambda: mm(b, g, transpose_a=True, transpose_b=True), lambda: mm(g, a, transpose_a=True, transpose_b=True)
    return ga() if needs[0] else None, gb() if needs[1] else None


def _batch_matmul_vjp(g, ans, x, y, adj_x, adj_y, **_):
    mm = lambda p, q, ap=False, aq=False: F.matmul(p, q, adjoint_a=ap, adjoint_b=aq)  # noqa: E731
    if not adj_x and not adj_y:
        gx, gy = mm(g, y, aq=True), mm(x, g, ap=True)
    elif not adj_x:
        gx, gy = mm(g, y), mm(g, x, ap=True)
    elif not adj_y:
        gx, gy = mm(y, g, aq=True), mm(x, g)
    else:
        gx, gy = mm(y, g, True, True), mm(g, x, True, True)
    return (unbroadcast(gx, _shape(x), _shape(gx)[:-2] + _shape(x)[-2:]),
            unbroadcast(gy, _shape(y), _shape(gy)[:-2] + _shape(y)[-2:]))


def _einsum_parts(equation: str, n: int) -> tuple[list[str], str]:
    inputs, _, output = equation.partition("->")
    specs = inputs.split(",")
    if not _:
        letters = [c for c in inputs.replace("...", "") if c.isalpha()]
        output = ("..." if "..." in inputs else "") + "".join(sorted(c for c in set(letters) if letters.count(c) == 1))
    return specs, output


def _einsum_vjp(g, ans, *inputs, equation, **_):
    specs, output = _einsum_parts(equation, len(inputs))
    grads = []
    for i, x in enumerate(inputs):
        others = [s for j, s in enumerate(specs) if j != i]
        available = set(output + "".join(others))
        kept = "".join(c for c in specs[i] if c in available or c == ".")
        operands = [g] + [F.convert_to_tensor(t) for j, t in enumerate(inputs) if j != i]
        grad = F.execute("Einsum", operands, equation=",".join([output] + others) + "->" + kept)
        if kept != specs[i]:
            labels = specs[i].replace("...", "")
            expanded = [1 if c not in kept else None for c in labels]
            for axis, missing in enumerate(expanded):
                if missing:
                    grad = F.expand_dims(grad, axis + (x.ndim - len(labels)))
        if _shape(grad) != _shape(x):  # labels summed within x broadcast back; broadcast ellipsis dims reduce
            grad = F.broadcast_to(grad, np.broadcast_shapes(_shape(grad), _shape(x)))
            grad = unbroadcast(grad, _shape(x), _shape(grad))
        grads.append(grad)
    return grads


def _softmax_xent_vjp(g, ans, logits, labels, **_):
    g_loss = _loss_upstream(g, ans)
    return (_xent_logits_grad(g_loss, g[1], ans, logits),
            F.multiply(F.expand_dims(g_loss, -1), F.negative(F.execute("LogSoftmax", [logits]))))


def _sparse_softmax_xent_vjp(g, ans, logits, labels, **_):
    """TF's gradient for logits is the dense op's (the labels, an attribute here, get None)."""
    return _xent_logits_grad(_loss_upstream(g, ans), g[1], ans, logits)


def _loss_upstream(g, ans):
    """TF's tape lets only the backprop output's gradient be None; the loss's is zeros."""
    return F.zeros(_shape(ans[0]), ans[0].dtype) if g[0] is None else g[0]


def _xent_logits_grad(g_loss, g_backprop, ans, logits):
    """The cross entropies' gradient for logits: the loss's upstream times the backprop output, plus the
    softmax's VJP of the backprop output's upstream (which gives the second order)."""
    grad = F.multiply(F.expand_dims(g_loss, -1), ans[1])
    if g_backprop is not None:
        softmax = F.execute("Softmax", [logits])
        inner = F.squeeze(F.matmul(F.expand_dims(g_backprop, 1), F.expand_dims(softmax, 2)), axis=1)
        grad = F.add(grad, F.multiply(F.subtract(g_backprop, inner), softmax))
    return grad


def _none_gradient(g, ans, *inputs, **_):
    """A registered gradient that is None for every input: TF still records the op, so its output
    is on the tape (unlike StopGradient, which TF never records)."""
    return [None] * len(inputs)


def _unregistered(op_type: str):
    """The VJP of an op TF records but has no gradient for: differentiating through it fails."""
    def vjp(*args, **kwargs):
        raise LookupError(f"gradient registry has no entry for: {op_type}")
    vjp.unregistered = True
    return vjp


# ---------------------------------------------------------------------------------------------
# The table. Forward: NumPy on arrays (half types arrive as float32). VJP: reftape functions.

# Plumbing
defop("ReadVariableOp", lambda handle, value, dtype: value.copy(), lambda g, ans, h, **_: g, sparse_upstream=True,
      moves_data=True, out_dtype=lambda dt, a: a["dtype"])
defop("Identity", lambda x: x, lambda g, ans, x, **_: g, sparse_upstream=True, moves_data=True)
defop("StopGradient", lambda x: x, None, moves_data=True)
defop("ZerosLike", lambda x: np.full(x.shape, b"", object) if x.dtype == object else np.zeros(x.shape, x.dtype),
      _none_gradient, moves_data=True)  # strings: empty ones; np.zeros costs a fifth of np.zeros_like
defop("OnesLike", np.ones_like, _none_gradient, moves_data=True, dtypes=ALL_NUMERIC_OR_BOOL)
defop("Shape", lambda x, out_type: np.array(x.shape, out_type.as_numpy_dtype), _none_gradient, moves_data=True,
      out_dtype=lambda dt, a: a["out_type"])
_SINGLE_WIDTH = frozenset({_dtypes.bfloat16, _dtypes.float32, _dtypes.complex64})
_DOUBLE_WIDTH = frozenset({_dtypes.float64, _dtypes.complex128})


def _casts_bits(attrs: dict) -> bool:
    """Whether TF's Cast moves bits, subnormals kept: between float32, complex64 (its parts) and bfloat16
    (rounded to its width), between float64 and complex128, and bfloat16 to bool (nonzero bits are True).
    Its other float conversions run on its flushing arithmetic (float32 to float64 or bool included)."""
    source, target = attrs["source"], attrs["dtype"]
    return ({source, target} <= _SINGLE_WIDTH or {source, target} <= _DOUBLE_WIDTH
            or (source is _dtypes.bfloat16 and target is _dtypes.bool))


defop("Cast", _cast,
      lambda g, ans, x, dtype, **_: F.cast(g, x.dtype) if x.dtype in INEXACT and dtype in INEXACT else None,
      out_dtype=lambda dt, a: a["dtype"], sparse_upstream=True, moves_data=_casts_bits)
defop("CustomGradient", None, lambda g, ans, *inputs, grad_fn, **_: grad_fn(g, ans, *inputs),
      num_outputs=lambda attrs: None)

# Elementwise arithmetic
defop("AddV2", np.add, _add_vjp, dtypes=NUMERIC | frozenset({_dtypes.string}), sparse_upstream=True)  # strings concatenate
defop("Sub", np.subtract, _sub_vjp, dtypes=NUMERIC, sparse_upstream=True)
defop("Mul", _multiply, _mul_vjp, dtypes=NUMERIC)  # a bool `*` multiplies int32 casts (operators.py)
defop("RealDiv", _divide, _realdiv_vjp, dtypes=NUMERIC, kernels=INEXACT)  # integers: divide casts them first
defop("FloorDiv", _floordiv, _none_gradient, dtypes=NUMERIC, kernels=REAL)
defop("FloorMod", _floormod, _floormod_vjp, dtypes=REAL, subnormal_rule=_fmod_of_tiny)
defop("TruncateDiv", _truncated("TruncateDiv", _truncated_quotient, lambda x, y: np.trunc(x / y)), _none_gradient,
      dtypes=NUMERIC, kernels=REAL)
defop("TruncateMod", _truncated("TruncateMod", np.fmod, np.fmod), _unregistered("TruncateMod"),
      dtypes=frozenset({_dtypes.int32, _dtypes.int64}) | FLOAT, kernels=frozenset({_dtypes.int32, _dtypes.int64, _dtypes.float32, _dtypes.float64}))
defop("Pow", _pow, _pow_vjp, dtypes=NUMERIC - frozenset({_dtypes.uint8}), subnormal_rule=_glibc_pow)
defop("Maximum", _pmax, _max_min_vjp(F.greater_equal), dtypes=REAL, keeps_normal=True)
defop("Minimum", _pmin, _max_min_vjp(F.less_equal), dtypes=REAL, keeps_normal=True)
defop("SquaredDifference", _squared_difference, _squared_difference_vjp, dtypes=WIDE_NUMERIC)
defop("MulNoNan", lambda x, y: np.where(y == 0, 0, _multiply(x, y)), _mul_no_nan_vjp, dtypes=INEXACT)  # 0 where y is +-0
defop("DivNoNan", _div_no_nan, _div_no_nan_vjp, dtypes=INEXACT)
defop("Xlogy", lambda x, y: np.where(x == 0, 0, x * np.log(y)), _xlogy_vjp, dtypes=INEXACT, subnormal_rule=_glibc_xlogy)
defop("Xdivy", _xdivy, _xdivy_vjp, dtypes=INEXACT)
defop("Xlog1py", _xlog1py, _xlog1py_vjp, dtypes=INEXACT)
defop("Atan2", np.arctan2, _atan2_vjp, dtypes=FLOAT, subnormal_rule=_atan2_of_subnormals)
defop("AddN", _add_n,
      lambda g, ans, *xs, **_: [g] * len(xs), dtypes=NUMERIC, sparse_upstream=True)
defop("Complex", _complex, _complex_vjp, moves_data=True, dtypes=frozenset({_dtypes.float32, _dtypes.float64}),
      out_dtype=lambda dt, a: _dtypes.complex64 if dt == _dtypes.float32 else _dtypes.complex128)

# Elementwise unary math
defop("Neg", np.negative, lambda g, ans, x, **_: -g, dtypes=SIGNED, moves_data=True, sparse_upstream=True)
defop("Abs", np.abs, lambda g, ans, x, **_: F.multiply(g, F.sign(x)), dtypes=SIGNED - COMPLEX, moves_data=True)
defop("ComplexAbs", _complex_abs, lambda g, ans, x, **_: F.divide_no_nan(F.multiply(F.complex(g, F.zeros_like(g)), x),
                                                                  F.complex(ans, F.zeros_like(ans))),
      dtypes=COMPLEX, out_dtype=lambda dt, a: dt.real_dtype)
defop("Sign", _sign,
      lambda g, ans, x, **_: F.zeros_like(x), dtypes=SIGNED, subnormal_rule=_sign_in_vector_loop)
defop("Exp", np.exp, lambda g, ans, x, **_: F.multiply(g, _conj(ans)), dtypes=INEXACT)
defop("Log", _log, lambda g, ans, x, **_: F.multiply(g, F.reciprocal(_conj(x))), dtypes=INEXACT,
      subnormal_rule=_glibc_logf)
defop("Log1p", _log1p, lambda g, ans, x, **_: F.multiply(g, F.reciprocal(F.add(_constant_like(1, x), _conj(x)))), dtypes=INEXACT,
      subnormal_rule=_tiny_unchanged(_scalar_remainder))
# Eigen's packet expm1 returns x where exp(x) rounds to 1; glibc's, under denormals-are-zero, gives zero
defop("Expm1", _expm1, lambda g, ans, x, **_: F.multiply(g, F.exp(_conj(x))), dtypes=INEXACT,
      subnormal_rule=_tiny_unchanged(_vector_loop))
defop("Sqrt", _sqrt, lambda g, ans, x, **_: F.execute("SqrtGrad", [ans, g]), dtypes=INEXACT)
defop("Rsqrt", _rsqrt, lambda g, ans, x, **_: F.execute("RsqrtGrad", [ans, g]), dtypes=INEXACT)
defop("Square", _square, lambda g, ans, x, **_: F.multiply(g, F.multiply(_conj(x), _constant_like(2.0, x))),
      dtypes=NUMERIC)
defop("Reciprocal", _reciprocal,
      lambda g, ans, x, **_: F.execute("ReciprocalGrad", [ans, g]), dtypes=SIGNED, kernels=INEXACT)
defop("Sin", np.sin, lambda g, ans, x, **_: F.multiply(g, F.cos(_conj(x))), dtypes=INEXACT,
      subnormal_rule=_tiny_unchanged(_scalar_loop(np.float32)))
defop("Cos", np.cos, lambda g, ans, x, **_: F.multiply(F.negative(g), F.sin(_conj(x))), dtypes=INEXACT)
defop("Tan", np.tan, lambda g, ans, x, **_: F.multiply(F.square(F.reciprocal(F.cos(_conj(x)))), g), dtypes=INEXACT,
      subnormal_rule=_tiny_unchanged(_everywhere))
defop("Sinh", np.sinh, lambda g, ans, x, **_: F.multiply(g, F.cosh(_conj(x))), dtypes=INEXACT,
      subnormal_rule=_tiny_unchanged(_everywhere))
defop("Cosh", np.cosh, lambda g, ans, x, **_: F.multiply(g, F.sinh(_conj(x))), dtypes=INEXACT)
defop("Tanh", _tanh, lambda g, ans, x, **_: F.execute("TanhGrad", [_conj(ans), g]), dtypes=INEXACT)
defop("Asinh", np.arcsinh, lambda g, ans, x, **_: F.divide(g, F.cosh(_conj(ans))), dtypes=INEXACT,
      subnormal_rule=_tiny_unchanged(_everywhere))
defop("Asin", np.arcsin, lambda g, ans, x, **_: F.multiply(g, _inverse_root_of_one_minus_square(x)), dtypes=INEXACT,
      subnormal_rule=_tiny_unchanged(_scalar_loop(np.float32)))  # float64: glibc's asin everywhere
defop("Acos", np.arccos, lambda g, ans, x, **_: F.multiply(F.negative(g), _inverse_root_of_one_minus_square(x)),
      dtypes=INEXACT)
defop("Atanh", np.arctanh, lambda g, ans, x, **_: F.multiply(g, F.reciprocal(F.subtract(_constant_like(1, g),
                                                                                       F.square(_conj(x))))),
      dtypes=INEXACT, subnormal_rule=_tiny_unchanged(_scalar_remainder))
defop("Acosh", np.arccosh, lambda g, ans, x, **_: F.divide(g, F.sinh(_conj(ans))), dtypes=INEXACT)
defop("Atan", np.arctan, lambda g, ans, x, **_: F.multiply(g, F.reciprocal(F.add(_constant_like(1, g), F.square(_conj(x))))),
      dtypes=INEXACT, subnormal_rule=_tiny_unchanged(_scalar_remainder))
defop("Sigmoid", _sigmoid, lambda g, ans, x, **_: F.execute("SigmoidGrad", [_conj(ans), g]), dtypes=INEXACT)
defop("Erf", _erf, lambda g, ans, x, **_: F.multiply(F.multiply(g, _constant_like(2 / np.sqrt(np.pi), g)),
                                                     F.exp(F.negative(F.square(_conj(x))))), dtypes=FLOAT)
defop("Lgamma", _lgamma, lambda g, ans, x, **_: F.multiply(g, F.digamma(_conj(x))), dtypes=FLOAT, kernels=FLOAT - {_dtypes.bfloat16},
      subnormal_rule=_lgamma_of_tiny)
defop("Digamma", _digamma, lambda g, ans, x, **_: F.multiply(g, F.execute("Polygamma", [_constant_like(1, x), _conj(x)])),
      dtypes=FLOAT, kernels=FLOAT - {_dtypes.bfloat16}, gradient_ops=("Polygamma",))
defop("Polygamma", _polygamma, _polygamma_vjp, dtypes=frozenset({_dtypes.float32, _dtypes.float64}),
      traced_refusal="Value passed to parameter 'a' has DataType {dtype} not in list of allowed values: float32, float64")
defop("Zeta", _zeta, _zeta_vjp, dtypes=frozenset({_dtypes.float32, _dtypes.float64}))
defop("Erfc", _erfc, lambda g, ans, x, **_: F.multiply(F.multiply(g, _constant_like(-2 / np.sqrt(np.pi), g)),
                                                       F.exp(F.negative(F.square(_conj(x))))), dtypes=FLOAT)
defop("Floor", np.floor, _none_gradient, dtypes=FLOAT, keeps_normal=True)
defop("Ceil", np.ceil, _none_gradient, dtypes=FLOAT, keeps_normal=True)
defop("Round", np.round, _none_gradient, dtypes=NUMERIC, kernels=REAL, keeps_normal=True)  # half to even, like TF
defop("Rint", np.rint, _none_gradient, dtypes=FLOAT, keeps_normal=True, kernels=frozenset({_dtypes.float32, _dtypes.float64}))
defop("Conj", np.conj, lambda g, ans, x, **_: F.conj(g), dtypes=NUMERIC | frozenset({_dtypes.string}), moves_data=True)
defop("Real", np.real, lambda g, ans, x, **_: F.complex(g, F.zeros_like(g)), dtypes=COMPLEX,
      out_dtype=lambda dt, a: dt.real_dtype)
defop("Imag", np.imag, lambda g, ans, x, **_: F.complex(F.zeros_like(g), g), dtypes=COMPLEX,
      out_dtype=lambda dt, a: dt.real_dtype)
defop("IsFinite", np.isfinite, _unregistered("IsFinite"), dtypes=FLOAT, out_dtype=lambda dt, a: _dtypes.bool)
defop("IsNan", np.isnan, _unregistered("IsNan"), dtypes=FLOAT, out_dtype=lambda dt, a: _dtypes.bool)

# Fused gradient kernels (each differentiable again, for higher orders)
defop("SqrtGrad", _sqrt_grad,
      lambda g, ans, y, dy, **_: (F.multiply(F.negative(_conj(F.divide(g, y))), ans), F.multiply(0.5, F.divide(g, y))),
      dtypes=INEXACT)
defop("RsqrtGrad", _rsqrt_grad,
      lambda g, ans, y, dy, **_: (F.multiply(F.multiply(F.multiply(-1.5, _conj(g)), dy), F.square(_conj(y))),
                                  F.execute("RsqrtGrad", [_conj(y), g])), dtypes=INEXACT)
defop("ReciprocalGrad", _reciprocal_grad,
      lambda g, ans, y, dy, **_: (F.multiply(F.multiply(F.multiply(_conj(g), -2.0), dy), _conj(y)),
                                  F.execute("ReciprocalGrad", [_conj(y), g])), dtypes=INEXACT)
defop("TanhGrad", lambda y, dy: dy * (_typed(1, y.dtype) - y * y), _tanh_grad_vjp, dtypes=INEXACT, sparse_upstream=True)
defop("SigmoidGrad", _sigmoid_grad,
      lambda g, ans, y, dy, **_: (F.subtract(F.multiply(g, _conj(dy)), F.multiply(F.multiply(2.0, F.multiply(g, _conj(dy))), _conj(y))),
                                  F.execute("SigmoidGrad", [_conj(y), g])), dtypes=INEXACT)
defop("ReluGrad", lambda dy, y: dy * (y > _typed(0, y.dtype)),  # a product, as in TF's kernel: signed zeros follow dy
      lambda g, ans, dy, y, **_: (F.execute("ReluGrad", [g, y]), F.zeros_like(y)), dtypes=REAL, keeps_normal=True)
defop("Relu6Grad", lambda dy, y: dy * ((y > 0) & (y < 6)),
      lambda g, ans, dy, y, **_: (F.execute("Relu6Grad", [g, y]), F.zeros_like(y)), dtypes=REAL, keeps_normal=True)
defop("EluGrad", lambda dy, y: np.where(y < 0, dy * (y + 1), dy),
      lambda g, ans, dy, y, **_: (F.execute("EluGrad", [g, y]), F.where(F.less(y, 0), F.multiply(g, dy), F.zeros_like(y))),
      dtypes=FLOAT)
defop("SeluGrad", lambda dy, y, T: np.where(y < 0, dy * (y + _rounded(1.7580993408473768, T, y)),
                                            dy * _rounded(1.0507009873554805, T, y)),
      lambda g, ans, dy, y, T, **_: (F.execute("SeluGrad", [g, y], T=T),
                                     F.where(F.less(y, 0.0), F.multiply(g, dy), F.zeros_like(y))),
      dtypes=FLOAT)
# LeakyRelu and its gradient multiply by static_cast<T>(alpha): rounded to bfloat16 or float16 for those
defop("LeakyReluGrad", lambda dy, x, alpha, T: np.where(x > 0, dy, dy * _rounded(alpha, T, x)),
      lambda g, ans, dy, x, alpha, T, **_: (F.execute("LeakyReluGrad", [g, x], alpha=alpha, T=T), F.zeros_like(x)),
      dtypes=FLOAT)
defop("SoftsignGrad", lambda dy, x: dy / np.square(1 + np.abs(x)), _unregistered("SoftsignGrad"), dtypes=FLOAT)

# Activations
defop("Relu", _relu, lambda g, ans, x, **_: F.execute("ReluGrad", [g, ans]), dtypes=REAL, keeps_normal=True)
defop("Relu6", _relu6,
      lambda g, ans, x, **_: F.execute("Relu6Grad", [g, ans]), dtypes=REAL, keeps_normal=True)
# Elu selects x itself where x < 0 fails, which it does for every subnormal read as zero
defop("Elu", lambda x, T: np.where(x < 0, _exp_minus_one(x, T), x), lambda g, ans, x, **_: F.execute("EluGrad", [g, ans]),
      dtypes=FLOAT, subnormal_rule=_tiny_unchanged(_everywhere))
defop("Selu", lambda x, T: np.where(x < 0, _rounded(1.7580993408473768, T, x) * _exp_minus_one(x, T),
                                    _rounded(1.0507009873554805, T, x) * x),
      lambda g, ans, x, T, **_: F.execute("SeluGrad", [g, ans], T=T), dtypes=FLOAT)
defop("LeakyRelu", lambda x, alpha, T: np.where(x > 0, x, x * _rounded(alpha, T, x)),
      lambda g, ans, x, alpha, T, **_: F.execute("LeakyReluGrad", [g, x], alpha=alpha, T=T), dtypes=FLOAT)
defop("Softplus", _softplus, lambda g, ans, x, **_: F.multiply(g, F.sigmoid(x)), dtypes=FLOAT)
defop("Softsign", lambda x: x / (1 + np.abs(x)), lambda g, ans, x, **_: F.execute("SoftsignGrad", [g, x]), dtypes=FLOAT)
defop("Softmax", _softmax, lambda g, ans, x, **_: F.multiply(F.subtract(g, F.reduce_sum(F.multiply(g, ans), -1, keepdims=True)), ans),
      dtypes=FLOAT)
defop("LogSoftmax", _log_softmax,
      lambda g, ans, x, **_: F.subtract(g, F.multiply(F.reduce_sum(g, -1, keepdims=True), F.exp(ans))), dtypes=FLOAT)
defop("L2Loss", _l2_loss, lambda g, ans, x, **_: F.multiply(x, g), dtypes=FLOAT)
defop("SoftmaxCrossEntropyWithLogits", _softmax_xent, _softmax_xent_vjp, dtypes=FLOAT,
      num_outputs=lambda attrs: 2, fills_missing_upstream=False)
defop("SparseSoftmaxCrossEntropyWithLogits", _sparse_softmax_xent, _sparse_softmax_xent_vjp, dtypes=FLOAT,
      num_outputs=lambda attrs: 2, fills_missing_upstream=False)
defop("BiasAdd", _bias_add, _bias_add_vjp, dtypes=NUMERIC, sparse_upstream=True)
defop("BiasAddGrad", _bias_add_grad, _bias_add_grad_vjp, dtypes=NUMERIC)

# Comparisons and logic (not differentiable). TF records comparisons and arg-extremes on a tape that
# tracks an input, so their outputs are held, and ops reading them reach the backward pass.
for _name, _fn in [("Equal", np.equal), ("NotEqual", np.not_equal)]:
    defop(_name, _fn, _none_gradient, out_dtype=lambda dt, a: _dtypes.bool)
for _name, _fn in [("Less", np.less), ("LessEqual", np.less_equal), ("Greater", np.greater),
                   ("GreaterEqual", np.greater_equal)]:
    defop(_name, _fn, _none_gradient, dtypes=REAL, out_dtype=lambda dt, a: _dtypes.bool)
defop("LogicalAnd", np.logical_and, None, dtypes=BOOL)
defop("LogicalOr", np.logical_or, None, dtypes=BOOL)
defop("LogicalNot", np.logical_not, None, dtypes=BOOL)
defop("Invert", np.invert, None, dtypes=INTEGER)
defop("BitwiseAnd", np.bitwise_and, None, dtypes=INTEGER)
defop("BitwiseOr", np.bitwise_or, None, dtypes=INTEGER)
defop("BitwiseXor", np.bitwise_xor, None, dtypes=INTEGER)
defop("LeftShift", _shift(left=True), None, dtypes=INTEGER)
defop("RightShift", _shift(left=False), None, dtypes=INTEGER)
defop("ArgMax", lambda x, axis, output_type: _arg_extreme(x, axis, smallest=False), _none_gradient, dtypes=REAL | BOOL,
      out_dtype=lambda dt, a: a["output_type"])
defop("ArgMin", lambda x, axis, output_type: _arg_extreme(x, axis, smallest=True), _none_gradient, dtypes=REAL | BOOL,
      out_dtype=lambda dt, a: a["output_type"])

# Reductions and scans
defop("Sum", _sum, _sum_vjp, dtypes=NUMERIC, moves_data=_reduces_nothing)
defop("Mean", _mean, _mean_vjp, dtypes=NUMERIC, moves_data=_reduces_nothing)
defop("Max", _reduce(np.max, _lowest), _min_max_reduction_vjp, dtypes=REAL, moves_data=_reduces_nothing,
      keeps_normal=True)
defop("Min", _reduce(np.min, _highest), _min_max_reduction_vjp, dtypes=REAL, moves_data=_reduces_nothing,
      keeps_normal=True)
defop("Any", _reduce(np.any), None, dtypes=BOOL, moves_data=_reduces_nothing)
defop("All", _reduce(np.all), None, dtypes=BOOL, moves_data=_reduces_nothing)
defop("Prod", _reduce(np.prod), _prod_vjp, dtypes=NUMERIC, moves_data=_reduces_nothing)
defop("EuclideanNorm", _euclidean_norm, _euclidean_norm_vjp, dtypes=NUMERIC)
defop("Cumsum", _scan(np.cumsum, 0), lambda g, ans, x, axis, exclusive, reverse, **_: F.cumsum(g, axis, exclusive, not reverse),
      dtypes=NUMERIC)
defop("Cumprod", _scan(np.cumprod, 1), _cumprod_vjp, dtypes=NUMERIC)
defop("CumulativeLogsumexp", _cumulative_logsumexp, _cumulative_logsumexp_vjp, dtypes=FLOAT)

# Shapes and structure
def _reshape_target(shape: tuple, dims: tuple) -> tuple:
    """The output shape of TF's Reshape: at most one -1, inferred from the other sizes; with a zero
    among them (or no values), from the nonzero sizes of input and output."""
    unknown = [i for i, d in enumerate(dims) if d < 0]
    for i in unknown:
        if dims[i] < -1:
            raise ValueError(f"Size {i} must be non-negative, not {dims[i]}")
    if len(unknown) > 1:
        raise ValueError(f"Only one input size may be -1, not both {unknown[0]} and {unknown[1]}")
    size, known = math.prod(shape), math.prod(d for d in dims if d != -1)
    if not unknown:
        if size != known:
            raise ValueError(f"Input to reshape is a tensor with {size} values, but the requested shape has {known}")
        return dims
    if known == 0:
        if size:
            raise ValueError(f"Input to reshape is a tensor with {size} values, but the requested shape has 0")
        missing = math.prod(d for d in shape if d) // math.prod(d for d in dims if d > 0)
    elif size % known:
        raise ValueError(f"Input to reshape is a tensor with {size} values, but the requested shape requires a "
                         f"multiple of {known}")
    else:
        missing = size // known
    return dims[:unknown[0]] + (missing,) + dims[unknown[0] + 1:]


defop("Reshape", lambda x, shape, shape_tensor=None: np.reshape(x, _reshape_target(x.shape, shape)),
      lambda g, ans, x, **_: _reshaped_like(g, x), moves_data=True, tf_inputs=_shape_tensor_last)
defop("ExpandDims", lambda x, axis: np.expand_dims(x, axis), lambda g, ans, x, **_: _reshaped_like(g, x), moves_data=True)
defop("Squeeze", _squeeze, lambda g, ans, x, **_: _reshaped_like(g, x), moves_data=True)
defop("Transpose", lambda x, perm: np.transpose(x, perm),
      lambda g, ans, x, perm, **_: F.transpose(g, list(np.argsort(perm))), moves_data=True)
defop("ConcatV2", lambda *xs, axis: np.concatenate(xs, axis=axis), _concat_vjp, moves_data=True, sparse_upstream=True)
defop("Pack", lambda *xs, axis: np.stack(xs, axis=axis), lambda g, ans, *xs, axis, **_: F.unstack(g, len(xs), axis),
      moves_data=True)
def _unpack(x, num, axis):
    """Unpack: `num` slices along `axis`, which must be in range and of that size."""
    if not -x.ndim <= axis < x.ndim:
        raise ValueError(f"axis = {axis} not in [{-x.ndim}, {x.ndim})")
    if x.shape[axis] != num:
        raise ValueError(f"Input shape axis {axis % x.ndim} must equal {num}, got shape {dims_text(x.shape)}")
    return tuple(np.moveaxis(x, axis, 0))


defop("Unpack", _unpack, lambda g, ans, x, num, axis, **_: F.stack(g, axis),
      num_outputs=lambda attrs: attrs["num"], moves_data=True)
defop("SplitV", lambda x, size_splits, axis: tuple(np.split(x, np.cumsum(size_splits)[:-1], axis=axis)),
      lambda g, ans, x, size_splits, axis, **_: F.concat(g, axis), num_outputs=lambda attrs: len(attrs["size_splits"]),
      moves_data=True, sparse_upstream=True)  # one piece: concat is an identity, which keeps IndexedSlices
defop("Tile", lambda x, multiples: np.tile(x, multiples), _tile_vjp, moves_data=True)
defop("BroadcastTo", lambda x, shape: np.broadcast_to(x, shape).copy(), _broadcast_to_vjp, moves_data=True)
defop("GatherV2", _gather, _gather_vjp, moves_data=True)
defop("Slice", _slice, _slice_vjp, moves_data=True)
# The values and the indices (int32, or the index_type asked for): selections, subnormals kept
defop("TopKV2", _top_k, _top_k_vjp, dtypes=REAL, moves_data=True, num_outputs=lambda attrs: 2,
      out_dtype=lambda dt, a: (dt, _dtypes.as_dtype(a["index_type"])))
defop("GatherNd", _gather_nd, _gather_nd_vjp, moves_data=True, sparse_upstream=True)
# ScatterNd and TensorScatterAdd add in the dtype, read and written flushed (_scatter_add); their untouched
# elements are zeros or copies
defop("ScatterNd", _scatter_nd, lambda g, ans, updates, indices, shape, **_: _gather_nd_of(g, indices), moves_data=True)
defop("TensorScatterUpdate", lambda tensor, updates, indices: _scatter_into(tensor.copy(), indices, updates, False),
      lambda g, ans, tensor, updates, indices, **_: (
          F.execute("TensorScatterUpdate", [F.identity(g), F.zeros_like(updates)], indices=indices),
          _gather_nd_of(g, indices)), moves_data=True)
defop("TensorScatterAdd", lambda tensor, updates, indices: _scatter_into(tensor.copy(), indices, updates, True),
      lambda g, ans, tensor, updates, indices, **_: (F.identity(g), _gather_nd_of(F.convert_to_tensor(g), indices)),
      moves_data=True, kernels=NUMERIC, sparse_upstream=True)  # an identity: IndexedSlices pass to the tensor
defop("UnsortedSegmentSum", _segment_sum, _segment_sum_vjp, dtypes=NUMERIC)
defop("SegmentSum", _sorted_segment_sum, lambda g, ans, data, segment_ids, **_: F.gather(g, segment_ids), dtypes=NUMERIC)
defop("Pad", _pad, _pad_vjp, moves_data=True)
defop("MirrorPad", _mirror_pad, lambda g, ans, x, paddings, mode, **_: F.execute("MirrorPadGrad", [g], paddings=paddings,
                                                                               mode=mode), moves_data=True)
defop("MirrorPadGrad", _mirror_pad_grad,
      lambda g, ans, dy, paddings, mode, **_: F.execute("MirrorPad", [g], paddings=paddings, mode=mode), dtypes=NUMERIC)
defop("ReverseV2", _reverse, lambda g, ans, x, axis, **_: F.reverse(g, axis), moves_data=True)
defop("OneHot", _one_hot, _none_gradient, moves_data=True)
defop("SelectV2", lambda x, y, condition: np.where(condition._value, x, y), _select_vjp, moves_data=True,
      tf_inputs=_condition_first)
defop("Select", lambda x, y, condition: np.where(condition._value, x, y), _select_v1_vjp, moves_data=True,
      tf_inputs=_condition_first)
defop("StridedSlice", lambda x, key: np.array(x[key]),
      lambda g, ans, x, key, **_: F.execute("StridedSliceGrad", [g], shape=_shape(x), key=key), moves_data=True)
defop("StridedSliceGrad", _strided_slice_grad, lambda g, ans, dy, shape, key, **_: F.strided_slice(g, key), moves_data=True)

# Linear algebra
# TF declares no 8- or 16-bit integer products but uint8 (and int16 batched), and has no CPU kernel for uint8
defop("MatMul", _matmul2d, _matmul_vjp, dtypes=NUMERIC - {_dtypes.int8, _dtypes.int16},
      kernels=NUMERIC - {_dtypes.int8, _dtypes.int16, _dtypes.uint8})
defop("BatchMatMulV2", _batch_matmul, _batch_matmul_vjp, dtypes=NUMERIC - {_dtypes.int8},
      kernels=NUMERIC - {_dtypes.int8, _dtypes.uint8})
defop("Einsum", lambda *xs, equation: np.einsum(equation, *xs), _einsum_vjp, dtypes=None, kernels=WIDE_NUMERIC)


# ---------------------------------------------------------------------------------------------
# Matrices: TF's Eigen kernels, small matrices in their unblocked algorithms (no fused multiply-add)


def _check_matrices(x, square: bool = True):
    if x.ndim < 2:
        raise ValueError(f"Input tensor 0 must have rank >= 2, got {x.ndim}")
    if square and x.shape[-1] != x.shape[-2]:
        raise ValueError("Input matrix must be square.")


def _partial_pivot_lu(a):
    """Eigen's unblocked PartialPivLU of each matrix: per column the first row of largest magnitude is the
    pivot (none where the column is zero below the diagonal), the column below it divided by the pivot, the
    rest updated by the rank-1 product. The LU factors in one array, the row order, the permutation's sign."""
    lu = np.array(a, copy=True)
    n = lu.shape[-1]
    rows = np.broadcast_to(np.arange(n), lu.shape[:-1]).copy()
    sign = np.ones(lu.shape[:-2])
    batch = np.indices(lu.shape[:-2])
    for k in range(n):
        pivot = k + np.argmax(np.abs(lu[..., k:, k]), axis=-1)
        nonzero = np.abs(lu[(*batch, pivot, np.full_like(pivot, k))]) != 0
        swap = nonzero & (pivot != k)
        target = np.where(swap, pivot, k)
        lu_k, lu_p = lu[..., k, :].copy(), lu[(*batch, target)].copy()
        lu[..., k, :], lu[(*batch, target)] = lu_p, lu_k
        rows_k, rows_p = rows[..., k].copy(), rows[(*batch, target)].copy()
        rows[..., k], rows[(*batch, target)] = rows_p, rows_k
        sign = np.where(swap, -sign, sign)
        divisor = np.where(nonzero, lu[..., k, k], 1)[..., None]
        lu[..., k + 1:, k] = np.where(nonzero[..., None], lu[..., k + 1:, k] / divisor, lu[..., k + 1:, k])
        lu[..., k + 1:, k + 1:] -= lu[..., k + 1:, k, None] * lu[..., k, None, k + 1:]
    return lu, rows, sign



def _lu_solve(lu, rows, b):
    """Solves with LU factors: the right-hand sides permuted, then unit lower and upper substitution."""
    x = np.take_along_axis(b, np.broadcast_to(rows[..., None], rows.shape + b.shape[-1:]), axis=-2).copy()
    n = lu.shape[-1]
    for i in range(n):
        x[..., i, :] -= np.sum(lu[..., i, :i, None] * x[..., :i, :], axis=-2)
    for i in reversed(range(n)):
        x[..., i, :] = (x[..., i, :] - np.sum(lu[..., i, i + 1:, None] * x[..., i + 1:, :], axis=-2)) / lu[..., i, i, None]
    return x


def _invertible_lu(a, message: str):
    """The LU factors of each matrix, TF's InvalidArgumentError where a pivot is exactly zero (NaNs pass)."""
    lu, rows, _ = _partial_pivot_lu(a)
    if np.any(np.diagonal(lu, axis1=-2, axis2=-1) == 0):
        raise ValueError(message)
    return lu, rows


def _matrix_inverse(x, adjoint):
    _check_matrices(x)
    a = _adjoint(x) if adjoint else x
    lu, rows = _invertible_lu(a, "Input is not invertible.")
    return _lu_solve(lu, rows, np.broadcast_to(np.eye(x.shape[-1], dtype=x.dtype), x.shape))


def _matrix_solve(matrix, rhs, adjoint):
    if matrix.ndim != rhs.ndim or matrix.shape[:-2] != rhs.shape[:-2]:
        raise ValueError("All input tensors must have the same rank and the same outer dimensions.")
    _check_matrices(matrix)
    if matrix.shape[-2] != rhs.shape[-2]:
        raise ValueError("Input matrix and rhs are incompatible.")
    lu, rows = _invertible_lu(_adjoint(matrix) if adjoint else matrix, "Input matrix is not invertible.")
    return _lu_solve(lu, rows, rhs)


def _signed_log_determinant(x):
    """TF's SLogDet from the LU factors: the permutation's sign times each pivot's phase (0 for a zero
    pivot, so a singular matrix has a signed zero sign), and the sum of the pivots' log magnitudes."""
    _check_matrices(x)
    lu, _, permutation_sign = _partial_pivot_lu(x)
    pivots = np.diagonal(lu, axis1=-2, axis2=-1)
    magnitudes = np.abs(pivots)
    phases = np.where(magnitudes == 0, 0, pivots / np.where(magnitudes == 0, 1, magnitudes))
    sign = permutation_sign.astype(x.dtype) * np.prod(phases, axis=-1)
    log_magnitude = np.sum(np.log(magnitudes), axis=-1)
    return sign.astype(x.dtype), log_magnitude.astype(x.dtype)


def _determinant(x):
    sign, log_magnitude = _signed_log_determinant(x)
    return sign * np.exp(log_magnitude)


def _log_determinant_vjp(g, ans, x, **_):
    """TF's LogMatrixDeterminant gradient: the log magnitude's upstream times the inverse's adjoint (none
    from the sign)."""
    upstream = g[1]
    return F.multiply(F.reshape(upstream, _shape(ans[1]) + (1, 1)), F.execute("MatrixInverse", [x], adjoint=True))


def _determinant_vjp(g, ans, x, **_):
    return F.multiply(F.reshape(F.multiply(g, ans), _shape(ans) + (1, 1)), F.execute("MatrixInverse", [x], adjoint=True))


def _matrix_inverse_vjp(g, ans, x, adjoint, **_):
    inner = F.matmul(g, ans, adjoint_a=adjoint, adjoint_b=not adjoint)
    return F.negative(F.matmul(ans, inner, adjoint_a=not adjoint))


def _matrix_solve_vjp(g, ans, matrix, rhs, adjoint, **_):
    grad_rhs = F.execute("MatrixSolve", [matrix, g], adjoint=not adjoint)
    if adjoint:
        return F.negative(F.matmul(ans, grad_rhs, adjoint_b=True)), grad_rhs
    return F.negative(F.matmul(grad_rhs, ans, adjoint_b=True)), grad_rhs


def _cholesky(x):
    """Eigen's unblocked LLT on the lower triangle (the upper one is not read): a pivot at or below zero
    stops it (a NaN one does not: NaNs flow on), and TF then fills that matrix's lower triangle with NaN, with zeros for complex
    types (std::numeric_limits has no complex NaN)."""
    _check_matrices(x)
    n = x.shape[-1]
    lower = np.tril(x)
    failed = np.zeros(x.shape[:-2], bool)
    for k in range(n):
        row = lower[..., k, :k]
        pivot = np.real(lower[..., k, k]) - np.sum(np.real(row * np.conj(row)), axis=-1)
        failed |= pivot <= 0  # a failed matrix goes on with NaN: its values are replaced below
        root = np.sqrt(np.where(pivot <= 0, np.nan, pivot)).astype(x.dtype)
        lower[..., k, k] = root
        below = lower[..., k + 1:, k] - np.sum(lower[..., k + 1:, :k] * np.conj(row)[..., None, :], axis=-1)
        lower[..., k + 1:, k] = below / root[..., None]
    fill = 0 if x.dtype.kind == "c" else np.nan
    return np.where(failed[..., None, None], np.tril(np.full(x.shape, fill, x.dtype)), lower)


def _cholesky_vjp(g, ans, x, **_):
    """TF's Cholesky gradient: with L's inverse (a triangular solve against the identity), the lower
    triangle of L^H g with its diagonal halved, carried back through L^-1 on both sides and symmetrised."""
    rows = _shape(ans)[-1]
    identity = F.eye(rows, batch_shape=_shape(ans)[:-2], dtype=ans.dtype)
    inverse = F.execute("MatrixTriangularSolve", [ans, identity], lower=True, adjoint=False)
    middle = F.matmul(ans, g, adjoint_a=True)
    middle = F.execute("MatrixSetDiagV3", [middle, F.multiply(_constant_like(0.5, middle), F.diag_part(middle))], k=0)
    middle = F.execute("MatrixBandPart", [middle], num_lower=-1, num_upper=0)
    grad = F.matmul(F.matmul(inverse, middle, adjoint_a=True), inverse)
    grad = F.add(grad, F.adjoint(grad))
    return F.multiply(grad, _constant_like(0.5, grad))


def _triangular_solve(matrix, rhs, lower, adjoint):
    """Substitution with the lower (or upper) triangle of each matrix, its adjoint if asked (the other
    triangle is not read: NaNs there pass), batch dimensions broadcast; a zero diagonal divides by zero."""
    if matrix.ndim < 2 or rhs.ndim < 2:
        raise ValueError(f"In[0] and In[1] must have rank >= 2: {dims_text(matrix.shape)} {dims_text(rhs.shape)}")
    try:
        batch = np.broadcast_shapes(matrix.shape[:-2], rhs.shape[:-2])
    except ValueError:
        raise ValueError(f"Incompatible shapes: {dims_text(matrix.shape)} vs. {dims_text(rhs.shape)}") from None
    if matrix.shape[-1] != matrix.shape[-2] or matrix.shape[-1] != rhs.shape[-2]:
        raise ValueError(f"In[0] mismatch In[1] shape: {matrix.shape[-1]} vs. {rhs.shape[-2]}: "
                         f"{dims_text(matrix.shape)} {dims_text(rhs.shape)} 0 0")
    triangle = np.tril(matrix) if lower else np.triu(matrix)
    if adjoint:
        triangle, lower = _adjoint(triangle), not lower
    triangle = np.broadcast_to(triangle, batch + matrix.shape[-2:])
    x = np.broadcast_to(rhs, batch + rhs.shape[-2:]).copy()
    n = matrix.shape[-1]
    order = range(n) if lower else reversed(range(n))
    for i in order:
        known = slice(0, i) if lower else slice(i + 1, n)
        x[..., i, :] = (x[..., i, :] - np.sum(triangle[..., i, known, None] * x[..., known, :], axis=-2)) / triangle[..., i, i, None]
    return x


def _triangular_solve_vjp(g, ans, matrix, rhs, lower, adjoint, **_):
    grad_rhs = F.execute("MatrixTriangularSolve", [matrix, g], lower=lower, adjoint=not adjoint)
    grad_matrix = F.negative(F.matmul(ans, grad_rhs, adjoint_b=True) if adjoint else F.matmul(grad_rhs, ans, adjoint_b=True))
    grad_matrix = F.execute("MatrixBandPart", [grad_matrix], num_lower=-1 if lower else 0, num_upper=0 if lower else -1)
    matrix_batch, rhs_batch = _shape(matrix)[:-2], _shape(rhs)[:-2]
    if matrix_batch == rhs_batch:
        return grad_matrix, grad_rhs
    return (F.reshape(F.reduce_sum(grad_matrix, _broadcast_axes(matrix_batch, rhs_batch)), _shape(matrix)),
            F.reshape(F.reduce_sum(grad_rhs, _broadcast_axes(rhs_batch, matrix_batch)), _shape(rhs)))


def _check_diagonal_index(x, k: int) -> None:
    rows, columns = x.shape[-2:]
    if not (-rows < k < columns or (k == 0 and (rows == 0 or columns == 0))):
        raise ValueError(f"lower_diag_index is out of bound: {k}. It must be between {-rows} and {columns}")


def _diagonal(x, k):
    """MatrixDiagPartV3 of one diagonal (k above the main one; below for negative k)."""
    if x.ndim < 2:
        raise ValueError(f"input must be at least 2-dim, received shape: {dims_text(x.shape)}")
    _check_diagonal_index(x, k)
    return np.diagonal(x, offset=k, axis1=-2, axis2=-1).copy()


def _matrix_with_diagonal(diagonal, k, num_rows, num_cols, padding_value):
    """MatrixDiagV3 of one diagonal: padding_value elsewhere; unset sizes the smallest that hold it."""
    if diagonal.ndim < 1:
        raise ValueError(f"diagonal must be at least 1-dim, received shape: {dims_text(diagonal.shape)}")
    length = diagonal.shape[-1]
    least_rows, least_cols = length - min(k, 0), length + max(k, 0)
    if num_rows == -1 and num_cols == -1:
        num_rows = num_cols = max(least_rows, least_cols)
    elif num_rows == -1:
        num_rows = least_rows
    elif num_cols == -1:
        num_cols = least_cols
    if num_rows < least_rows:
        raise ValueError("The number of rows is too small.")
    if num_cols < least_cols:
        raise ValueError("The number of columns is too small.")
    if num_rows != least_rows and num_cols != least_cols:
        raise ValueError("The number of rows or columns is not consistent with the specified d_lower, d_upper, and diagonal.")
    out = np.full(diagonal.shape[:-1] + (num_rows, num_cols), padding_value, diagonal.dtype)
    index = np.arange(length)
    out[..., index - min(k, 0), index + max(k, 0)] = diagonal
    return out


def _set_diagonal(x, diagonal, k):
    """MatrixSetDiagV3 of one diagonal."""
    out = x.copy()
    index = np.arange(diagonal.shape[-1])
    out[..., index - min(k, 0), index + max(k, 0)] = diagonal
    return out


def _band_part(x, num_lower, num_upper):
    """MatrixBandPart: the elements at most num_lower below and num_upper above the diagonal (negative:
    all of them); zeros elsewhere."""
    if x.ndim < 2:
        raise ValueError(f"input must be at least 2-dim, received shape: {dims_text(x.shape)}")
    rows, columns = x.shape[-2:]
    if num_lower > rows:
        raise ValueError(f"num_lower must be negative or less or equal to number of rows ({rows}) got: {num_lower}")
    if num_upper > columns:
        raise ValueError(f"num_upper must be negative or less or equal to number of columns ({columns}) got: {num_upper}")
    offset = np.arange(columns)[None, :] - np.arange(rows)[:, None]
    keep = ((num_lower < 0) | (-offset <= num_lower)) & ((num_upper < 0) | (offset <= num_upper))
    return np.where(keep, x, np.zeros_like(x))


defop("MatrixDiagPartV3", _diagonal,
      lambda g, ans, x, k, **_: F.execute("MatrixDiagV3", [g], k=k, num_rows=_shape(x)[-2], num_cols=_shape(x)[-1],
                                          padding_value=0), moves_data=True)
defop("MatrixDiagV3", _matrix_with_diagonal,
      lambda g, ans, diagonal, k, **_: F.execute("MatrixDiagPartV3", [g], k=k), moves_data=True)
defop("MatrixSetDiagV3", _set_diagonal,
      lambda g, ans, x, diagonal, k, **_: (F.execute("MatrixSetDiagV3", [g, F.zeros_like(diagonal)], k=k),
                                           F.execute("MatrixDiagPartV3", [g], k=k)), moves_data=True)
defop("MatrixBandPart", _band_part,
      lambda g, ans, x, num_lower, num_upper, **_: F.execute("MatrixBandPart", [g], num_lower=num_lower,
                                                             num_upper=num_upper), moves_data=True)
_LINALG = INEXACT - {_dtypes.bfloat16}
defop("MatrixDeterminant", _determinant, _determinant_vjp, dtypes=_LINALG, kernels=_LINALG - {_dtypes.float16})
defop("LogMatrixDeterminant", _signed_log_determinant, _log_determinant_vjp, dtypes=_LINALG,
      kernels=_LINALG - {_dtypes.float16}, num_outputs=lambda attrs: 2)
defop("MatrixInverse", _matrix_inverse, _matrix_inverse_vjp, dtypes=_LINALG)
defop("MatrixSolve", _matrix_solve, _matrix_solve_vjp, dtypes=_LINALG, kernels=_LINALG - {_dtypes.float16})
defop("Cholesky", _cholesky, _cholesky_vjp, dtypes=_LINALG, kernels=_LINALG - {_dtypes.float16})
defop("MatrixTriangularSolve", _triangular_solve, _triangular_solve_vjp, dtypes=INEXACT,
      kernels=INEXACT - {_dtypes.float16, _dtypes.bfloat16})
