"""The op table: every primitive, its NumPy forward and its VJP, declared side by side.

A VJP has the signature `vjp(g, ans, *inputs, needs, **attrs)` and returns one gradient per input
(None where TF's gradient function returns None). Multi-output primitives receive lists `g` and
`ans`. VJPs are written with reftape's own differentiable functions (`F`), so that a backward pass
running under an outer tape is itself recorded: that is how higher-order gradients work, as in TF.
The formulas follow TF's registered gradient functions op by op, including their special cases
(eager `skip_input_indices` fast paths, masked pow, tie rules, fused *Grad kernels that return 0
for a zero upstream), because those decide NaNs, signed zeros and shapes at special points.

Forwards that are more than a NumPy call are kernels imported from `kernels/` (one module per family,
with the subnormal rules in `kernels/subnormal.py`); this module keeps the table, the VJPs and the
helpers VJPs share.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from . import dtypes as _dtypes
from . import functions as F
from .errors import InvalidArgumentError
from .kernels.activations import (_bias_add, _bias_add_grad, _channel_axis, _exp_minus_one, _log_softmax, _relu, _relu6,
                                  _softmax, _softmax_xent, _sparse_softmax_xent)
from .kernels.elementwise import (_add_n, _cast, _complex, _div_no_nan, _divide, _expm1, _floordiv,
                                  _floormod, _log, _log1p, _multiply, _pmax, _pmin, _pow, _reciprocal, _reciprocal_grad,
                                  _rounded, _rsqrt, _rsqrt_grad, _shift, _sigmoid, _sigmoid_grad, _sign, _softplus,
                                  _cos, _sin, _sqrt, _sqrt_grad, _square, _squared_difference, _tanh, _truncated,
                                  _truncated_quotient, _typed, _xdivy, _xlog1py)
from .kernels.indexing import (_gather, _gather_nd, _mirror_pad, _mirror_pad_grad, _one_hot, _pad, _reshape_target,
                               _reverse, _scatter_into, _scatter_nd, _segment_sum, _slice, _sorted_segment_sum,
                               _squeeze, _strided_slice_grad, _unpack)
from .kernels.matrices import (ELLIPSIS, _band_part, _batch_matmul, _cholesky, _determinant, _diagonal, _einsum, _matmul2d,
                               _matrix_inverse, _matrix_solve, _matrix_with_diagonal, _set_diagonal,
                               _signed_log_determinant, _triangular_solve)
from .kernels.decompositions import (_cross, _matrix_solve_ls, _matrix_square_root, _qr, _self_adjoint_eig, _svd,
                                     _tridiagonal_solve)
from .kernels.ordering import _arg_extreme, _top_k
from .kernels.reductions import (_cumulative_logsumexp, _euclidean_norm, _highest, _l2_loss, _lowest, _mean, _reduce,
                                 _reduction_axes, reduces_one_element,
                                 _scan, _sum)
from .kernels import packet_math as _packet_math
from .kernels.libm import complex_abs
from .kernels.special import _digamma, _erf, _erfc, _lgamma, _polygamma, _zeta
from .kernels.special import (_bessel_i0, _bessel_i0e, _bessel_i1, _bessel_i1e, _bessel_j0, _bessel_j1, _bessel_k0,
                              _bessel_k0e, _bessel_k1, _bessel_k1e, _bessel_y0, _bessel_y1, _betainc, _dawsn, _erfinv, _expint, _fresnel_cos, _fresnel_sin, _igamma,
                              _igamma_grad_a, _igammac, _ndtri, _spence)
from .kernels.special import _fft, _fft2d, _ifft, _ifft2d
from .kernels.subnormal import (_atan2_of_subnormals, _everywhere, _fmod_of_tiny, _glibc_logf, _glibc_pow, _glibc_xlogy,
                                _lgamma_of_tiny, _scalar_loop, _scalar_remainder, _sign_in_vector_loop, _tiny_unchanged,
                                _vector_loop)
from .kernels.subnormal import _bessel_y1_of_tiny, _expint_of_tiny, _next_after_of_tiny
from .primitives import COMPLEX, FLOAT, INEXACT, INTEGER, NUMERIC, REAL, defop
from .recording import active_recordings
from .thread_state import this_thread
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


def _sum_vjp(g, ans, x, axis, keep_dims, reads_shape=False, **_):
    """TF's Sum gradient: the upstream, with the reduced axes kept, broadcast to x's shape. Where the axes
    were not given as [0, ..., rank - 1] (`reads_shape`), TF's eager path reads that shape through a Shape
    op, which a tape recording this backward pass records, and from which it reaches x."""
    shape_tensor = F.shape(x) if reads_shape and active_recordings() else None
    kept = F.reshape(g, _kept_shape(_shape(x), axis, keep_dims, _shape(ans)))
    if shape_tensor is None:
        return F.broadcast_to(kept, _shape(x))
    return F.execute("BroadcastTo", [kept], shape=_shape(x), shape_tensor=shape_tensor)


def _mean_vjp(g, ans, x, axis, keep_dims, reads_shape=False, **_):
    sum_grad = _sum_vjp(g, ans, x, axis, keep_dims, reads_shape)
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
    reduced = [a % rank for a in axis] if axis is not None else list(range(rank))  # TF's order: the products' too
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
    """TF's BroadcastTo gradient reshapes to a Shape op's reading of x's shape (recorded where a tape records it)."""
    return unbroadcast(g, _shape(x), tuple(shape), F.shape(x) if active_recordings() else None)


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


def _einsum_vjp(g, ans, *inputs, equation, **_):
    """TF's Einsum gradient: the upstream einsummed back to each operand's subscripts, labels that only one
    operand holds (or the output lacks) broadcast back, and an ellipsis's broadcast dimensions summed."""
    input_subs, output_subs = equation.split("->")
    if len(inputs) == 1:
        return _einsum_unary_grad(g, inputs[0], input_subs, output_subs)
    return _einsum_binary_grads(g, *inputs, *input_subs.split(","), output_subs)


def _einsum_unary_grad(g, x, input_subs, output_subs):
    x_shape = _einsum_shape_of(x)
    reduced = set(input_subs) - set(output_subs + ELLIPSIS)
    if not reduced:
        return _einsum_in_backward([g], f"{output_subs}->{input_subs}")
    return _einsum_reduced_grad(g, output_subs, input_subs, x_shape, reduced)


def _einsum_binary_grads(g, x, y, x_subs, y_subs, output_subs):
    if ELLIPSIS in output_subs:  # the gradients' equations need an ellipsis on both operands
        x_subs += "" if ELLIPSIS in x_subs else ELLIPSIS
        y_subs += "" if ELLIPSIS in y_subs else ELLIPSIS
    x, y = _conj(x), _conj(y)
    x_shape, y_shape = _einsum_shape_of(x), _einsum_shape_of(y)
    grad_x = _einsum_grad_wrt(g, y, x_shape, x_subs, y_subs, output_subs)
    grad_y = _einsum_grad_wrt(g, x, y_shape, y_subs, x_subs, output_subs)
    if ELLIPSIS not in output_subs:
        return grad_x, grad_y
    x_span, y_span = _ellipsis_span(x_subs), _ellipsis_span(y_subs)
    x_batch, y_batch = _shape(x)[slice(*x_span)], _shape(y)[slice(*y_span)]
    if x_batch == y_batch:
        return grad_x, grad_y
    return (_einsum_unbroadcast(grad_x, x_shape, x_span[0], _broadcast_axes(x_batch, y_batch)),
            _einsum_unbroadcast(grad_y, y_shape, y_span[0], _broadcast_axes(y_batch, x_batch)))


def _einsum_shape_of(x):
    """x's shape, read by a recorded Shape op where a tape records the backward pass (as TF's gradient reads it)."""
    return (_shape(x), F.shape(x) if active_recordings() else None)


def _einsum_unbroadcast(grad, x_shape, start, axes):
    return _reshaped(F.reduce_sum(grad, tuple(start + a for a in axes)), *x_shape)


def _einsum_grad_wrt(g, other, x_shape, x_subs, other_subs, output_subs):
    """The gradient for one operand of two: the upstream and the other operand einsummed to the operand's labels
    that the output or the other operand hold, then broadcast over the rest."""
    reduced = set(x_subs) - set(output_subs + other_subs + ".")
    kept = "".join(s for s in x_subs if s not in reduced)
    grad = _einsum_in_backward([F.convert_to_tensor(g), other], f"{output_subs},{other_subs}->{kept}")
    return _einsum_reduced_grad(grad, kept, x_subs, x_shape, reduced) if reduced else grad


def _einsum_reduced_grad(g, output_subs, input_subs, x_shape, reduced):
    """The gradient of the unary einsum `input_subs->output_subs` that sums over the `reduced` labels: the upstream
    broadcast along them, then einsummed onto the input's diagonals where a label repeats (an ellipsis counts as
    one: TF compares the subscripts' characters)."""
    static, _ = x_shape
    reduced_subs = "".join(sorted(reduced))
    axes = [_label_axis(input_subs, label) for label in reduced_subs]
    repeated = len(set(input_subs)) + len(set(output_subs)) < len(input_subs) + len(output_subs)
    if not repeated and "".join(s for s in input_subs if s not in reduced) == output_subs:
        summed = {a % len(static) for a in axes}
        kept_shape = tuple(1 if axis in summed else d for axis, d in enumerate(static))
        return F.broadcast_to(F.reshape(g, kept_shape), static)
    dims = tuple(static[a] for a in axes)
    grown = F.broadcast_to(F.reshape(g, (1,) * len(dims) + _shape(g)), dims + _shape(g))
    return _einsum_in_backward([grown], f"{reduced_subs}{output_subs}->{input_subs}")


def _einsum_in_backward(operands: list, equation: str):
    """An Einsum of the VJP. TF's vectorized jacobian rebuilds it through tf.einsum, which refuses an output
    label repeated (a diagonal the gradient of a trace fills): ValueError, as TF's pfor raises."""
    output = equation.split("->")[1].replace(ELLIPSIS, ".")
    if this_thread.state.vectorizing and len(set(output)) < len(output):
        raise ValueError(f"Output subscripts contain a label appearing more than once: {equation}")
    return F.execute("Einsum", operands, equation=equation)


def _label_axis(subs: str, label: str) -> int:
    """A label's axis in an operand: counted from the start before an ellipsis, from the end after it."""
    before, ellipsis, after = subs.partition(ELLIPSIS)
    if label in before:
        return before.index(label)
    return after.index(label) - len(after)


def _ellipsis_span(subs: str) -> tuple:
    """The (start, end) slice of an operand's axes its ellipsis stands for; (0, 0) without one."""
    start = subs.find(ELLIPSIS)
    if start == -1:
        return 0, 0
    remaining = len(subs) - start - len(ELLIPSIS)
    return start, -remaining if remaining else None


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


def _cumulative_logsumexp_vjp(g, ans, x, axis, exclusive, reverse, **_):
    """TF's gradient: the positive and the negative parts of the upstream, each in log space, scanned
    back against the output and raised again; the lowest finite value stands for log(0)."""
    lowest = _constant_like(g.dtype.min, g)

    def part(select, magnitude):
        log_part = F.where(select(g, _constant_like(0, g)), F.log(magnitude), lowest)
        scanned = F.cumulative_logsumexp(F.subtract(log_part, ans), axis, exclusive=exclusive, reverse=not reverse)
        return F.exp(F.add(scanned, x))
    return F.subtract(part(F.greater, g), part(F.less, F.negative(g)))


def _segment_sum_vjp(g, ans, values, indices, num_segments, **_):
    """The upstream rows each value was summed into; zeros for the dropped ones (negative ids)."""
    kept = indices >= 0
    if kept.all():
        return F.gather(g, indices)
    rows = F.gather(g, np.where(kept, indices, 0))
    mask = F.reshape(F.constant(kept), kept.shape + (1,) * (len(_shape(rows)) - kept.ndim))
    return F.where(F.broadcast_to(mask, _shape(rows)), rows, F.zeros_like(rows))


def _polygamma_vjp(g, ans, n, x, **_):
    """TF's Polygamma gradient: none for n; polygamma(n + 1, x) times the upstream, summed over x's broadcast
    axes."""
    partial = F.execute("Polygamma", [F.add(n, _constant_like(1, n)), x])
    return None, F.reshape(F.reduce_sum(F.multiply(partial, g), _broadcast_axes(_shape(x), _shape(n))), _shape(x))


def _zeta_vjp(g, ans, x, q, **_):
    """TF's Zeta gradient: none for x; -x zeta(x + 1, q) times the upstream, summed over q's broadcast axes."""
    partial = F.multiply(F.negative(x), F.execute("Zeta", [F.add(x, _constant_like(1, x)), q]))
    return None, F.reshape(F.reduce_sum(F.multiply(partial, g), _broadcast_axes(_shape(q), _shape(x))), _shape(q))


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


def _slice_vjp(g, ans, x, begin, size, **_):
    """TF's Slice gradient: the upstream padded with zeros back to the input's place (Pad)."""
    after = np.array(_shape(x), begin.dtype) - size - begin
    return F.execute("Pad", [g], paddings=np.stack([begin, after], axis=1), constant=None)


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


def _casts_bits(attrs: dict, inputs: list) -> bool:
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
# Forward mode (forwardprop.py) computes tangents as TF does, in one traced call: what enters it passes through
# this copy, so that a gradient crossing the call's boundary is dense (TF's gradient of a call densifies slices).
defop("ForwardpropCall", lambda x: x, lambda g, ans, x, **_: g, moves_data=True)
defop("IdentityN", None, lambda g, ans, *inputs, **_: list(g), num_outputs=lambda attrs: None,
      sparse_upstream=True)  # recorded by `identity_n` (inputs of several dtypes): each gradient passes through

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
defop("ComplexAbs", complex_abs, lambda g, ans, x, **_: F.divide_no_nan(F.multiply(F.complex(g, F.zeros_like(g)), x),
                                                                  F.complex(ans, F.zeros_like(ans))),
      dtypes=COMPLEX, out_dtype=lambda dt, a: dt.real_dtype)
defop("Sign", _sign,
      lambda g, ans, x, **_: F.zeros_like(x), dtypes=SIGNED, subnormal_rule=_sign_in_vector_loop)
defop("Exp", lambda x: _packet_math.as_tensorflow("exp", x), lambda g, ans, x, **_: F.multiply(g, _conj(ans)), dtypes=INEXACT)
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
defop("Sin", _sin, lambda g, ans, x, **_: F.multiply(g, F.cos(_conj(x))), dtypes=INEXACT,
      subnormal_rule=_tiny_unchanged(_scalar_loop(np.float32)))
defop("Cos", _cos, lambda g, ans, x, **_: F.multiply(F.negative(g), F.sin(_conj(x))), dtypes=INEXACT)
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
defop("Atan", lambda x: _packet_math.as_tensorflow("atan", x),
      lambda g, ans, x, **_: F.multiply(g, F.reciprocal(F.add(_constant_like(1, g), F.square(_conj(x))))),
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


def _reduces_nothing(attrs: dict, inputs: list) -> bool:
    """The reduction copies its input (`reduces_one_element`): data movement, no arithmetic."""
    value = inputs[0]._value if inputs else None
    if value is None:
        return attrs.get("axis") is not None and len(attrs["axis"]) == 0
    try:
        return reduces_one_element(np.shape(value), _reduction_axes(np.asarray(value), attrs.get("axis")))
    except (ValueError, IndexError):
        return False   # the kernel refuses the axes (and says so)


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
defop("Reshape", lambda x, shape, shape_tensor=None: np.reshape(x, _reshape_target(x.shape, shape)),
      lambda g, ans, x, **_: _reshaped_like(g, x), moves_data=True, tf_inputs=_shape_tensor_last)
defop("ExpandDims", lambda x, axis: np.expand_dims(x, axis), lambda g, ans, x, **_: _reshaped_like(g, x), moves_data=True)
defop("Squeeze", _squeeze, lambda g, ans, x, **_: _reshaped_like(g, x), moves_data=True)
defop("Transpose", lambda x, perm: np.transpose(x, perm),
      lambda g, ans, x, perm, **_: F.transpose(g, list(np.argsort(perm))), moves_data=True)
defop("ConcatV2", lambda *xs, axis: np.concatenate(xs, axis=axis), _concat_vjp, moves_data=True, sparse_upstream=True)
defop("Pack", lambda *xs, axis: np.stack(xs, axis=axis), lambda g, ans, *xs, axis, **_: F.unstack(g, len(xs), axis),
      moves_data=True)
defop("Unpack", _unpack, lambda g, ans, x, num, axis, **_: F.stack(g, axis),
      num_outputs=lambda attrs: attrs["num"], moves_data=True)
defop("SplitV", lambda x, size_splits, axis: tuple(np.split(x, np.cumsum(size_splits)[:-1], axis=axis)),
      lambda g, ans, x, size_splits, axis, **_: F.concat(g, axis), num_outputs=lambda attrs: len(attrs["size_splits"]),
      moves_data=True, sparse_upstream=True)  # one piece: concat is an identity, which keeps IndexedSlices
defop("Tile", lambda x, multiples: np.tile(x, multiples), _tile_vjp, moves_data=True)
defop("BroadcastTo", lambda x, shape, shape_tensor=None: np.broadcast_to(x, shape).copy(), _broadcast_to_vjp,
      moves_data=True, tf_inputs=_shape_tensor_last)
defop("GatherV2", _gather, _gather_vjp, moves_data=True)
defop("Slice", _slice, _slice_vjp, moves_data=True)
# The values and the indices (int32, or the index_type asked for): selections, subnormals kept
defop("TopKV2", _top_k, _top_k_vjp, dtypes=REAL, moves_data=True, num_outputs=lambda attrs: 2,
      out_dtype=lambda dt, a: (dt, _dtypes.as_dtype(a["index_type"])))
defop("GatherNd", _gather_nd, _gather_nd_vjp, moves_data=True, sparse_upstream=True)
# ScatterNd and TensorScatterAdd add in the dtype, read and written flushed (kernels.indexing._scatter_add);
# their untouched elements are zeros or copies
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
defop("Einsum", _einsum, _einsum_vjp, dtypes=None, kernels=WIDE_NUMERIC)


# ---------------------------------------------------------------------------------------------
# Matrices: the VJPs of TF's Eigen kernels (kernels/matrices.py)


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


def _triangular_solve_vjp(g, ans, matrix, rhs, lower, adjoint, **_):
    grad_rhs = F.execute("MatrixTriangularSolve", [matrix, g], lower=lower, adjoint=not adjoint)
    grad_matrix = F.negative(F.matmul(ans, grad_rhs, adjoint_b=True) if adjoint else F.matmul(grad_rhs, ans, adjoint_b=True))
    grad_matrix = F.execute("MatrixBandPart", [grad_matrix], num_lower=-1 if lower else 0, num_upper=0 if lower else -1)
    matrix_batch, rhs_batch = _shape(matrix)[:-2], _shape(rhs)[:-2]
    if matrix_batch == rhs_batch:
        return grad_matrix, grad_rhs
    return (F.reshape(F.reduce_sum(grad_matrix, _broadcast_axes(matrix_batch, rhs_batch)), _shape(matrix)),
            F.reshape(F.reduce_sum(grad_rhs, _broadcast_axes(rhs_batch, matrix_batch)), _shape(rhs)))


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


# ---------------------------------------------------------------------------------------------
# Decompositions (issue 24's linear-algebra family): the VJPs of TF's registered gradients for Qr,
# SelfAdjointEigV2, Svd, MatrixSquareRoot, Cross and TridiagonalSolve (kernels/decompositions.py)


def _safe_reciprocal(x):
    """TF's _SafeReciprocal: x / (x^2 + 1e-20), finite at 0 (and there 0)."""
    return F.multiply(x, F.reciprocal(F.add(F.multiply(x, x), _constant_like(1e-20, x))))


def _band(x, lower, upper):
    return F.execute("MatrixBandPart", [x], num_lower=lower, num_upper=upper)


def _with_diagonal(x, diagonal):
    return F.execute("MatrixSetDiagV3", [x, diagonal], k=0)


def _diagonal_matrix(d):
    n = _shape(d)[-1]
    return F.execute("MatrixDiagV3", [d], k=0, num_rows=n, num_cols=n, padding_value=0)


def _upper_solve_right(x, r):
    """x times the inverse of r's adjoint (r upper triangular), as TF's QR gradient's _TriangularSolve."""
    return F.adjoint(F.execute("MatrixTriangularSolve", [r, F.adjoint(x)], lower=False, adjoint=False))


def _qr_square_or_deep_vjp(q, r, dq, dr):
    qdq = F.matmul(q, dq, adjoint_a=True)
    rdr = F.matmul(r, dr, adjoint_b=True)
    lower = _band(F.add(F.subtract(qdq, F.adjoint(qdq)), F.subtract(rdr, F.adjoint(rdr))), -1, 0)
    grad = F.add(F.matmul(q, F.add(dr, _upper_solve_right(lower, r))),
                 _upper_solve_right(F.subtract(dq, F.matmul(q, qdq)), r))
    if q.dtype.is_complex:  # the imaginary part of the diagonal of r dr^H - dq^H q, carried back
        m = F.subtract(rdr, F.adjoint(qdq))
        diagonal = _with_diagonal(F.zeros_like(m), F.diag_part(m))
        correction = F.subtract(diagonal, F.cast(F.real(diagonal), q.dtype))
        grad = F.add(grad, _upper_solve_right(F.matmul(q, F.adjoint(correction)), r))
    return grad


def _qr_vjp(g, ans, x, full_matrices, **_):
    """TF's Qr gradient: for as many rows as columns or more (not with full_matrices), the square case;
    for fewer rows, A = [X, Y] reduced to the square X (Y's share through Q)."""
    q, r = ans
    dq, dr = g
    rows, columns = _shape(r)[-2:]
    if rows > columns and _shape(q)[-2] == _shape(q)[-1]:
        raise NotImplementedError(f"QrGrad not implemented when nrows > ncols and full_matrices is true. Received "
                                  f"r.shape={_shape(r)} with nrows={rows}and ncols={columns}.")
    m = _shape(q)[-2]
    if m >= columns:
        return _qr_square_or_deep_vjp(q, r, dq, dr)
    y = x[..., :, m:]
    u = r[..., :, :m]
    dv, du = dr[..., :, m:], dr[..., :, :m]
    dx = _qr_square_or_deep_vjp(q, u, F.add(dq, F.matmul(y, dv, adjoint_b=True)), du)
    return F.concat([dx, F.matmul(q, dv)], axis=-1)


def _self_adjoint_eig_vjp(g, ans, x, compute_v, **_):
    """TF's SelfAdjointEigV2 gradient: V (diag(de) + F o V^H dV) V^H with F = 1 / (e_j - e_i) off the
    diagonal (inf or NaN at repeated eigenvalues, as in TF), then the lower triangle of its symmetrised
    form, the diagonal halved (the kernel reads the lower triangle only)."""
    e, grad_e = ans[0], g[0]
    if compute_v:
        v, grad_v = ans[1], g[1]
        differences = F.subtract(F.expand_dims(e, -2), F.expand_dims(e, -1))
        f = _with_diagonal(_safe_reciprocal(differences), F.zeros_like(e))
        inner = F.add(_diagonal_matrix(grad_e), F.multiply(f, F.matmul(v, grad_v, adjoint_a=True)))
        grad = F.matmul(v, F.matmul(inner, v, adjoint_b=True))
    else:
        v = F.execute("SelfAdjointEigV2", [x], compute_v=True)[1]
        grad = F.matmul(v, F.matmul(_diagonal_matrix(grad_e), v, adjoint_b=True))
    grad = _band(F.add(grad, F.adjoint(grad)), -1, 0)
    return _with_diagonal(grad, F.multiply(_constant_like(0.5, grad), F.diag_part(grad)))


def _svd_vjp(g, ans, x, compute_uv, full_matrices, **_):
    """TF's Svd gradient (Giles; Townsend for thin factors; the complex term): for more rows than columns,
    that of the adjoint. Not implemented (NotImplementedError, as TF) with full_matrices for sizes more than
    one apart; inf or NaN at repeated singular values, as TF's."""
    grad_s = g[0]
    if not compute_uv:
        _, u, v = F.execute("Svd", [x], compute_uv=True, full_matrices=False)
        return F.matmul(u, F.matmul(_diagonal_matrix(grad_s), v, adjoint_b=True))
    s, u, v = ans
    grad_u, grad_v = g[1], g[2]
    m, n = _shape(x)[-2:]
    adjoint = m > n
    if adjoint:
        m, n, u, v, grad_u, grad_v = n, m, v, u, grad_v, grad_u
    if full_matrices and abs(m - n) > 1:
        raise NotImplementedError(f"svd gradient is not implemented for abs(m - n) > 1 when full_matrices is True. "
                                  f"Received: m={m} and n={n} from op input={x} with shape={_shape(x)}.")
    s_matrix = _diagonal_matrix(s)
    s2 = F.multiply(s, s)
    f = _with_diagonal(_safe_reciprocal(F.subtract(F.expand_dims(s2, -2), F.expand_dims(s2, -1))), F.zeros_like(s))
    s_inverse = _diagonal_matrix(_safe_reciprocal(s))
    v1, grad_v1 = v[..., :, :m], grad_v[..., :, :m]
    f_u = F.multiply(f, F.matmul(u, grad_u, adjoint_a=True))
    v_gv = F.matmul(v1, grad_v1, adjoint_a=True)
    f_v = F.multiply(f, v_gv)
    middle = F.add(F.add(_diagonal_matrix(grad_s), F.matmul(F.add(f_u, F.adjoint(f_u)), s_matrix)),
                   F.matmul(s_matrix, F.add(f_v, F.adjoint(f_v))))
    grad = F.matmul(u, F.matmul(middle, v1, adjoint_b=True))
    if m != n:
        gv1t = F.adjoint(grad_v1)
        rest = F.subtract(gv1t, F.matmul(F.matmul(gv1t, v1), v1, adjoint_b=True))
        if full_matrices:
            v2, grad_v2 = v[..., :, m:n], grad_v[..., :, m:n]
            rest = F.subtract(rest, F.matmul(F.matmul(v1, grad_v2, adjoint_a=True), v2, adjoint_b=True))
        grad = F.add(grad, F.matmul(F.matmul(u, s_inverse), rest))
    if x.dtype.is_complex:
        l = F.multiply(F.eye(_shape(s)[-1], batch_shape=_shape(s)[:-1], dtype=x.dtype), v_gv)
        term = F.matmul(s_inverse, F.subtract(F.adjoint(l), l))
        grad = F.add(grad, F.multiply(_constant_like(0.5, grad), F.matmul(u, F.matmul(term, v1, adjoint_b=True))))
    return F.adjoint(grad) if adjoint else grad


def _cross_vjp(g, ans, a, b, **_):
    return F.execute("Cross", [b, g]), F.execute("Cross", [g, a])


_DECOMPOSITIONS = frozenset({_dtypes.float32, _dtypes.float64}) | COMPLEX
defop("Qr", _qr, _qr_vjp, dtypes=_LINALG, num_outputs=lambda attrs: 2)
defop("SelfAdjointEigV2", _self_adjoint_eig, _self_adjoint_eig_vjp, dtypes=_LINALG, kernels=_DECOMPOSITIONS,
      num_outputs=lambda attrs: 2)
defop("Svd", _svd, _svd_vjp, dtypes=_LINALG, kernels=_DECOMPOSITIONS, num_outputs=lambda attrs: 3)
defop("Cross", _cross, _cross_vjp, dtypes=REAL)


def _matrix_solve_ls_vjp(g, ans, matrix, rhs, l2_regularizer, fast, **_):
    """TF registers MatrixSolveLs's gradient for fast=True only (tf.linalg.lstsq composes that case from
    Cholesky factors, whose gradients reftape follows): fast=False is TF's ValueError."""
    raise ValueError("Gradient not defined for fast=False")


defop("MatrixSolveLs", _matrix_solve_ls, _matrix_solve_ls_vjp, dtypes=_LINALG, kernels=_DECOMPOSITIONS)


def _kronecker(b1, b2):
    """The Kronecker products of two batches of square matrices (TF's sqrtm gradient's helper)."""
    batch, m1, m2 = _shape(b1)[:-2], _shape(b1)[-1], _shape(b2)[-1]
    product = F.multiply(F.reshape(b1, batch + (m1, 1, m1, 1)), F.reshape(b2, batch + (1, m2, 1, m2)))
    return F.reshape(product, batch + (m1 * m2, m1 * m2))


def _matrix_square_root_vjp(g, ans, x, **_):
    """TF's MatrixSquareRoot gradient: the Sylvester equation R dR + dR R = dA solved as one linear system in
    vec(dR), with the Kronecker sum I (x) R^T + R (x) I (transposes, not adjoints, for complex types as TF)."""
    shape = _shape(ans)
    order = shape[-1]
    identity = F.eye(order, batch_shape=shape[:-2], dtype=ans.dtype)
    ksum = F.add(_kronecker(identity, F.matrix_transpose(ans)), _kronecker(ans, identity))
    vec_da = F.reshape(F.matrix_transpose(g), shape[:-2] + (order * order, 1))
    vec_dr = F.execute("MatrixSolve", [ksum, vec_da], adjoint=False)
    return F.matrix_transpose(F.reshape(vec_dr, shape))


defop("MatrixSquareRoot", _matrix_square_root, _matrix_square_root_vjp, dtypes=_LINALG, kernels=_DECOMPOSITIONS)


def _three_diagonals_of_product(x, y_tr):
    """TF's _MatmulExtractingThreeDiagonals: the superdiagonal, diagonal and subdiagonal of x y_tr^T, compact."""
    zeros = F.zeros(_shape(x)[:-2] + (1, _shape(x)[-1]), dtype=x.dtype)
    diagonal = F.reduce_sum(F.multiply(x, y_tr), axis=-1)
    above = F.reduce_sum(F.multiply(x, F.concat([y_tr[..., 1:, :], zeros], axis=-2)), axis=-1)
    below = F.reduce_sum(F.multiply(x, F.concat([zeros, y_tr[..., :-1, :]], axis=-2)), axis=-1)
    return F.stack([above, diagonal, below], axis=-2)


def _tridiagonal_solve_vjp(g, ans, diagonals, rhs, partial_pivoting, perturb_singular, **_):
    """TF's TridiagonalSolve gradient: the rhs's is a solve with the transposed (not conjugated) matrix, the
    diagonals' minus the three diagonals of that times the solution's transpose."""
    zeros = F.zeros(_shape(diagonals)[:-2] + (1,), dtype=diagonals.dtype)
    transposed = F.stack([F.concat([diagonals[..., 2, 1:], zeros], axis=-1), diagonals[..., 1, :],
                          F.concat([zeros, diagonals[..., 0, :-1]], axis=-1)], axis=-2)
    grad_rhs = F.execute("TridiagonalSolve", [transposed, g], partial_pivoting=partial_pivoting,
                         perturb_singular=perturb_singular)
    return F.negative(_three_diagonals_of_product(grad_rhs, ans)), grad_rhs


defop("TridiagonalSolve", _tridiagonal_solve, _tridiagonal_solve_vjp, dtypes=_DECOMPOSITIONS)


# ---------------------------------------------------------------------------------------------
# Segments (issue 24): the sorted, unsorted and sparse segment reductions (kernels/segments.py), with
# TF's registered gradients composed op for op: ties share a minimum's or maximum's gradient evenly, a
# product's gradient treats segments of one zero and of several zeros apart, rows of a negative id get 0.

from .kernels.segments import _sorted_segment, _sparse_segment, _sparse_segment_grad, _unsorted_segment  # noqa: E402


def _segment_mean_vjp(g, ans, data, segment_ids, **_):
    """TF's SegmentMean gradient: the upstream divided by each segment's row count (a segment sum of ones),
    gathered back to the rows."""
    ones = F.ones(segment_ids.shape + (1,) * (len(_shape(data)) - 1), g.dtype)
    counts = F.execute("SegmentSum", [ones], segment_ids=segment_ids)
    return F.gather(F.divide(g, counts), segment_ids)


def _segment_extreme_vjp(g, ans, data, segment_ids, **_):
    """TF's SegmentMin and SegmentMax gradient: the upstream split evenly among the rows equal to their
    segment's result."""
    selected = F.equal(data, F.gather(ans, segment_ids))
    count = F.execute("SegmentSum", [F.cast(selected, g.dtype)], segment_ids=segment_ids)
    shared = F.gather(F.divide(g, count), segment_ids)
    return F.where(selected, shared, F.zeros_like(data))


def _segment_prod_vjp(g, ans, data, segment_ids, **_):
    """TF's SegmentProd gradient: the product over the other rows (the product divided by the row, or the
    product of the nonzero rows at the one zero), nothing for segments with two zeros or more."""
    is_zero = F.equal(data, _constant_like(0, data))
    zeros = F.execute("SegmentSum", [F.cast(is_zero, _dtypes.int32)], segment_ids=segment_ids)
    g = F.where(F.greater(zeros, _constant_like(1, zeros)), F.zeros_like(g), g)
    nonzero = F.where(is_zero, F.ones_like(data), data)
    nonzero_prod = F.execute("SegmentProd", [nonzero], segment_ids=segment_ids)
    divided = F.divide(F.gather(ans, segment_ids), nonzero)
    partial = F.where(is_zero, F.gather(nonzero_prod, segment_ids), divided)
    return F.multiply(F.gather(g, segment_ids), partial)


def _kept_rows(indices: np.ndarray, shape: tuple) -> np.ndarray:
    """Which elements of a gather of `shape` by `indices` come from a non-negative id (TF's
    _GatherDropNegatives mask, broadcast to the gathered shape)."""
    kept = (indices >= 0).reshape(indices.shape + (1,) * (len(shape) - indices.ndim))
    return np.broadcast_to(kept, shape).copy()


def _gather_dropping_negatives(params, indices: np.ndarray):
    """The rows of `params` at the ids (the negative ones clipped to 0), zeros where an id is negative."""
    gathered = F.gather(params, np.maximum(indices, 0))
    return F.where(F.constant(_kept_rows(indices, _shape(gathered))), gathered, F.zeros_like(gathered))


def _unsorted_segment_extreme_vjp(g, ans, values, indices, num_segments, **_):
    """TF's UnsortedSegmentMin and UnsortedSegmentMax gradient: as the sorted one's, rows of a negative
    id neither selected nor counted."""
    gathered = _gather_dropping_negatives(ans, indices)
    selected = F.logical_and(F.equal(values, gathered), F.constant(_kept_rows(indices, _shape(gathered))))
    count = F.execute("UnsortedSegmentSum", [F.cast(selected, g.dtype)], indices=indices, num_segments=num_segments)
    shared = _gather_dropping_negatives(F.divide(g, count), indices)
    return F.where(selected, shared, F.zeros_like(shared))


def _unsorted_segment_prod_vjp(g, ans, values, indices, num_segments, **_):
    """TF's UnsortedSegmentProd gradient: as the sorted one's, dividing by the row itself (a NaN or an
    infinity at a zero row, which the select drops), zeros for rows of a negative id."""
    is_zero = F.equal(values, _constant_like(0, values))
    zeros = F.execute("UnsortedSegmentSum", [F.cast(is_zero, _dtypes.int32)], indices=indices,
                      num_segments=num_segments)
    g = F.where(F.greater(zeros, _constant_like(1, zeros)), F.zeros_like(g), g)
    nonzero = F.where(is_zero, F.ones_like(values), values)
    nonzero_prod = F.execute("UnsortedSegmentProd", [nonzero], indices=indices, num_segments=num_segments)
    clipped = np.maximum(indices, 0)
    divided = F.divide(F.gather(ans, clipped), values)
    partial = F.where(is_zero, F.gather(nonzero_prod, clipped), divided)
    return F.multiply(_gather_dropping_negatives(g, indices), partial)


def _sparse_segment_vjp(kind: str):
    """TF's SparseSegment{Sum,Mean,SqrtN}[WithNumSegments] gradient: the dense *Grad kernel (none for the
    indices, segment ids and number of segments)."""
    def vjp(g, ans, data, indices, segment_ids, num_segments=None, **_):
        return F.execute(f"SparseSegment{kind}Grad", [g], indices=indices, segment_ids=segment_ids,
                         output_dim0=_shape(data)[0])
    return vjp


defop("SegmentMean", _sorted_segment("mean"), _segment_mean_vjp, dtypes=NUMERIC)
defop("SegmentProd", _sorted_segment("prod"), _segment_prod_vjp, dtypes=NUMERIC)
defop("SegmentMin", _sorted_segment("min"), _segment_extreme_vjp, dtypes=REAL, moves_data=True)
defop("SegmentMax", _sorted_segment("max"), _segment_extreme_vjp, dtypes=REAL, moves_data=True)
defop("UnsortedSegmentProd", _unsorted_segment("prod"), _unsorted_segment_prod_vjp, dtypes=NUMERIC)
defop("UnsortedSegmentMin", _unsorted_segment("min"), _unsorted_segment_extreme_vjp, dtypes=REAL, moves_data=True)
defop("UnsortedSegmentMax", _unsorted_segment("max"), _unsorted_segment_extreme_vjp, dtypes=REAL, moves_data=True)
for _kind, _norm, _allowed in (("Sum", "sum", REAL), ("Mean", "mean", FLOAT), ("SqrtN", "sqrtn", FLOAT)):
    defop(f"SparseSegment{_kind}", _sparse_segment(_norm), _sparse_segment_vjp(_kind), dtypes=_allowed)
    defop(f"SparseSegment{_kind}WithNumSegments", _sparse_segment(_norm), _sparse_segment_vjp(_kind), dtypes=_allowed)
    defop(f"SparseSegment{_kind}Grad", _sparse_segment_grad(_norm), _unregistered(f"SparseSegment{_kind}Grad"),
          dtypes=FLOAT)


# ---------------------------------------------------------------------------------------------
# Array ops (issue 24): Roll, SpaceToDepth, DepthToSpace (kernels/arrays.py); repeat, tensordot, the
# image flips and strided_slice compose existing ops in functions.py as TF composes them.

from .kernels.arrays import _batch_to_space, _depth_to_space, _roll, _space_to_batch, _space_to_depth  # noqa: E402

defop("Roll", _roll, lambda g, ans, x, shift, axis, **_: F.execute("Roll", [g], shift=-shift, axis=axis), moves_data=True)
defop("SpaceToDepth", _space_to_depth,
      lambda g, ans, x, block_size, data_format, **_: F.execute("DepthToSpace", [g], block_size=block_size,
                                                                data_format=data_format), moves_data=True)
defop("DepthToSpace", _depth_to_space,
      lambda g, ans, x, block_size, data_format, **_: F.execute("SpaceToDepth", [g], block_size=block_size,
                                                                data_format=data_format), moves_data=True)


# ---------------------------------------------------------------------------------------------
# Special functions of issue 24: erfinv, ndtri, the modified Bessel functions of orders 0 and 1, the
# regularized incomplete gamma functions, nextafter and the complex argument, with TF's gradients


def _erfinv_vjp(g, ans, x, **_):
    """TF's Erfinv gradient: the upstream times sqrt(pi) / 2 times exp(erfinv(x)^2), from the output."""
    return F.multiply(F.multiply(g, _constant_like(np.sqrt(np.pi) / 2, g)), F.exp(F.square(ans)))


def _ndtri_vjp(g, ans, x, **_):
    """TF's Ndtri gradient: the upstream times sqrt(2 pi) times exp(ndtri(x)^2 / 2), from the output."""
    return F.multiply(F.multiply(g, _constant_like(np.sqrt(2 * np.pi), g)),
                      F.exp(F.divide(F.square(ans), _constant_like(2, ans))))


def _bessel_i0e_vjp(g, ans, x, **_):
    """TF's BesselI0e gradient: i1e(x) - sign(x) i0e(x)."""
    return F.multiply(g, F.subtract(F.execute("BesselI1e", [x]), F.multiply(F.sign(x), ans)))


def _bessel_i1e_vjp(g, ans, x, **_):
    """TF's BesselI1e gradient: i0e(x) - i1e(x) (sign(x) + 1 / x), 0.5 at x = 0 (a select: the other branch's
    NaN stays out of the first order)."""
    main = F.subtract(F.execute("BesselI0e", [x]), F.multiply(ans, F.add(F.sign(x), F.reciprocal(x))))
    return F.multiply(g, F.where(F.equal(x, _constant_like(0, x)), _constant_like(0.5, x), main))


def _bessel_i1_vjp(g, ans, x, **_):
    """TF's BesselI1 gradient: i0(x) - i1(x) / x, 1 at x = 0 (a select)."""
    main = F.subtract(F.execute("BesselI0", [x]), F.divide(ans, x))
    return F.multiply(g, F.where(F.equal(x, _constant_like(0, x)), _constant_like(1, x), main))


def _igamma_partials(g, a, x):
    """TF's Igamma gradient: IgammaGradA's derivative in a, and x^(a - 1) exp(-x) / Gamma(a) in log space for
    x, each times the upstream and summed over its operand's broadcast axes."""
    partial_a = F.execute("IgammaGradA", [a, x])
    partial_x = F.exp(F.subtract(F.add(F.negative(x), F.multiply(F.subtract(a, _constant_like(1, a)), F.log(x))),
                                 F.lgamma(a)))
    return (F.reshape(F.reduce_sum(F.multiply(partial_a, g), _broadcast_axes(_shape(a), _shape(x))), _shape(a)),
            F.reshape(F.reduce_sum(F.multiply(partial_x, g), _broadcast_axes(_shape(x), _shape(a))), _shape(x)))


def _igammac_vjp(g, ans, a, x, **_):
    """TF's Igammac gradient: Igamma's, negated."""
    grad_a, grad_x = _igamma_partials(g, a, x)
    return F.negative(grad_a), F.negative(grad_x)


def _next_after_vjp(g, ans, x1, x2, **_):
    """TF's NextAfter gradient: ones times the upstream for x1, zeros times it for x2 (NaN where it is NaN or
    infinite), each summed over its operand's broadcast axes."""
    grad_1 = F.multiply(F.ones(_shape(x1), x1.dtype), g)
    grad_2 = F.multiply(F.zeros(_shape(x2), x2.dtype), g)
    return (F.reshape(F.reduce_sum(grad_1, _broadcast_axes(_shape(x1), _shape(x2))), _shape(x1)),
            F.reshape(F.reduce_sum(grad_2, _broadcast_axes(_shape(x2), _shape(x1))), _shape(x2)))


def _angle_vjp(g, ans, x, **_):
    """TF's Angle gradient: -complex(g, 0) / complex(imag(x), real(x))."""
    z = F.reciprocal(F.complex(F.imag(x), F.real(x)))
    return F.multiply(F.negative(F.complex(g, F.zeros_like(g))), z)


def _betainc_vjp(g, ans, a, b, x, **_):
    """TF's Betainc gradient: none for a and b; for x, x^(a-1) (1-x)^(b-1) / B(a, b) in log space (xlogy and
    xlog1py, so a or b of 1 gives a finite end), times the upstream, summed over the axes x broadcasts along
    against a (TF reads a's shape only: a b larger than both fails in the reshape, as TF's)."""
    log_beta = F.subtract(F.add(F.lgamma(a), F.lgamma(b)), F.lgamma(F.add(a, b)))
    partial_x = F.exp(F.subtract(F.add(F.xlog1py(F.subtract(b, _constant_like(1, b)), F.negative(x)),
                                       F.xlogy(F.subtract(a, _constant_like(1, a)), x)), log_beta))
    return None, None, F.reshape(F.reduce_sum(F.multiply(partial_x, g), _broadcast_axes(_shape(x), _shape(a))), _shape(x))


def _spence_vjp(g, ans, x, **_):
    """TF's Spence gradient: log(x) / (1 - x), -1 at x = 1 (a Select over -ones_like(x))."""
    partial = F.divide(F.log(x), F.subtract(_constant_like(1, x), x))
    partial = F.execute("Select", [F.negative(F.ones_like(x)), partial], condition=F.equal(x, _constant_like(1, x)))
    return F.multiply(g, partial)


_F32_F64 = frozenset({_dtypes.float32, _dtypes.float64})
_BESSEL_KERNELS = FLOAT - {_dtypes.bfloat16}
defop("Erfinv", _erfinv, _erfinv_vjp, dtypes=FLOAT, kernels=_F32_F64)
defop("Ndtri", _ndtri, _ndtri_vjp, dtypes=FLOAT, kernels=_F32_F64)
defop("BesselI0e", _bessel_i0e, _bessel_i0e_vjp, dtypes=FLOAT, kernels=_BESSEL_KERNELS)
defop("BesselI1e", _bessel_i1e, _bessel_i1e_vjp, dtypes=FLOAT, kernels=_BESSEL_KERNELS)
defop("BesselI0", _bessel_i0, lambda g, ans, x, **_: F.multiply(g, F.execute("BesselI1", [x])), dtypes=FLOAT,
      kernels=_BESSEL_KERNELS)
defop("BesselI1", _bessel_i1, _bessel_i1_vjp, dtypes=FLOAT, kernels=_BESSEL_KERNELS)
defop("Igamma", _igamma, lambda g, ans, a, x, **_: _igamma_partials(g, a, x), dtypes=FLOAT, kernels=_F32_F64,
      gradient_ops=("IgammaGradA",))
defop("Igammac", _igammac, _igammac_vjp, dtypes=FLOAT, kernels=_F32_F64, gradient_ops=("IgammaGradA",))
defop("IgammaGradA", _igamma_grad_a, _unregistered("IgammaGradA"), dtypes=_F32_F64)
defop("Betainc", _betainc, _betainc_vjp, dtypes=_F32_F64)
defop("NextAfter", np.nextafter, _next_after_vjp, dtypes=_F32_F64, subnormal_rule=_next_after_of_tiny)
defop("Angle", np.angle, _angle_vjp, dtypes=COMPLEX, out_dtype=lambda dt, a: dt.real_dtype)
defop("BesselJ0", _bessel_j0, lambda g, ans, x, **_: F.multiply(g, F.negative(F.execute("BesselJ1", [x]))),
      dtypes=FLOAT, kernels=_BESSEL_KERNELS)
defop("BesselJ1", _bessel_j1, lambda g, ans, x, **_: F.multiply(g, F.where(
    F.equal(x, _constant_like(0, x)), _constant_like(0.5, x), F.subtract(F.execute("BesselJ0", [x]), F.divide(ans, x)))),
      dtypes=FLOAT, kernels=_BESSEL_KERNELS)  # 1/2 at 0 (a select, as TF's)
defop("BesselY0", _bessel_y0, lambda g, ans, x, **_: F.multiply(g, F.negative(F.execute("BesselY1", [x]))),
      dtypes=FLOAT, kernels=_BESSEL_KERNELS)
defop("BesselY1", _bessel_y1, lambda g, ans, x, **_: F.multiply(g, F.subtract(F.execute("BesselY0", [x]), F.divide(ans, x))),
      dtypes=FLOAT, kernels=_BESSEL_KERNELS, subnormal_rule=_bessel_y1_of_tiny)
defop("Dawsn", _dawsn, lambda g, ans, x, **_: F.multiply(g, F.subtract(_constant_like(1, x), F.multiply(
    F.multiply(_constant_like(2, x), x), ans))), dtypes=FLOAT, kernels=_F32_F64)
defop("Expint", _expint, lambda g, ans, x, **_: F.divide(F.multiply(g, F.exp(x)), x), dtypes=FLOAT, kernels=_F32_F64,
      subnormal_rule=_expint_of_tiny)
defop("FresnelCos", _fresnel_cos,
      lambda g, ans, x, **_: F.multiply(g, F.cos(F.multiply(_constant_like(np.pi / 2, x), F.square(x)))),
      dtypes=FLOAT, kernels=_F32_F64)
defop("FresnelSin", _fresnel_sin,
      lambda g, ans, x, **_: F.multiply(g, F.sin(F.multiply(_constant_like(np.pi / 2, x), F.square(x)))),
      dtypes=FLOAT, kernels=_F32_F64)
defop("Spence", _spence, _spence_vjp, dtypes=FLOAT, kernels=_F32_F64)
defop("BesselK0", _bessel_k0, lambda g, ans, x, **_: F.multiply(g, F.negative(F.execute("BesselK1", [x]))),
      dtypes=FLOAT, kernels=_BESSEL_KERNELS)
defop("BesselK0e", _bessel_k0e, lambda g, ans, x, **_: F.multiply(g, F.subtract(ans, F.execute("BesselK1e", [x]))),
      dtypes=FLOAT, kernels=_BESSEL_KERNELS)
defop("BesselK1", _bessel_k1, lambda g, ans, x, **_: F.multiply(g, F.subtract(F.negative(F.execute("BesselK0", [x])),
                                                                                F.divide(ans, x))),
      dtypes=FLOAT, kernels=_BESSEL_KERNELS)  # NaN at 0, as TF's (no select)
defop("BesselK1e", _bessel_k1e,
      lambda g, ans, x, **_: F.multiply(g, F.subtract(F.multiply(ans, F.subtract(_constant_like(1, x), F.reciprocal(x))),
                                                      F.execute("BesselK0e", [x]))),
      dtypes=FLOAT, kernels=_BESSEL_KERNELS)


def _fourier_vjp(inverse_op, rank, inverse):
    """TF's FFT gradients: the inverse transform of the upstream times the transform's size (FFT), or the
    forward transform times 1 / size cast to the complex dtype (IFFT); size over the innermost `rank` axes."""
    def vjp(g, ans, x, **_):
        size = int(np.prod(_shape(g)[len(_shape(g)) - rank:]))
        if inverse:
            scale = F.cast(F.constant(1.0 / np.asarray(size, g.dtype.real_dtype._numpy_dtype), g.dtype.real_dtype), g.dtype)
        else:
            scale = F.cast(F.constant(size, _dtypes.int32), g.dtype)
        return F.multiply(F.execute(inverse_op, [g]), scale)
    return vjp


defop("FFT", _fft, _fourier_vjp("IFFT", 1, False), dtypes=COMPLEX)
defop("IFFT", _ifft, _fourier_vjp("FFT", 1, True), dtypes=COMPLEX)
defop("FFT2D", _fft2d, _fourier_vjp("IFFT2D", 2, False), dtypes=COMPLEX)
defop("IFFT2D", _ifft2d, _fourier_vjp("FFT2D", 2, True), dtypes=COMPLEX)


# ---------------------------------------------------------------------------------------------
# Pooling and normalisation (kernels in kernels/pooling.py and kernels/normalization.py). Attributes as TF's
# ops hold them: ksize and strides per axis of the channels-last input. The max-pool gradients route each
# window's upstream to its first maximum (TF's argmax helper); TF's gradients of the gradient kernels are
# zeros for the pooled tensors and the other gradient kernel for the upstream.

from .kernels import normalization as _normalization  # noqa: E402 - the family's block
from .kernels import pooling as _pooling  # noqa: E402


def _pool_attrs(attrs: dict, *names: str) -> dict:
    """The window attributes a pool's gradient kernel takes (and `names`)."""
    return {k: v for k, v in attrs.items() if k in ("ksize", "strides", "padding", "data_format", "explicit_paddings") + names}


def _refuse_default_format(attrs: dict) -> None:
    """TF's MaxPool3D and AvgPool3D gradients decode the recorded data_format: one passed as None (max_pool and
    avg_pool of rank 5 without a data_format) fails there."""
    if "data_format" in attrs and attrs["data_format"] is None:
        raise AttributeError("'NoneType' object has no attribute 'decode'")


def _max_pool_vjp(grad_op):
    def vjp(g, ans, x, **attrs):
        _refuse_default_format(attrs)
        return F.execute(grad_op, [x, ans, F.convert_to_tensor(g)], T=x.dtype, **_pool_attrs(attrs))
    return vjp


def _max_pool_grad_vjp(grad_op, grad_grad_op):
    """MaxPoolGrad's and MaxPoolGradGrad's gradients: zeros for the pooled input and output, and for the upstream
    the other gradient kernel (`grad_op` MaxPoolGrad, `grad_grad_op` MaxPoolGradGrad, one of them this op's own)."""
    def vjp(g, ans, x, y, upstream, **attrs):
        g = F.convert_to_tensor(g)
        if attrs.get("T") is not None:  # this op is MaxPoolGrad: its upstream's gradient is MaxPoolGradGrad
            other = F.execute(grad_grad_op, [x, y, g], **_pool_attrs(attrs))
        else:
            other = F.execute(grad_op, [x, y, g], T=x.dtype, **_pool_attrs(attrs))
        return F.zeros_like(x), F.zeros_like(y), other
    return vjp


def _avg_pool_vjp(grad_op):
    def vjp(g, ans, x, **attrs):
        _refuse_default_format(attrs)
        return F.execute(grad_op, [F.convert_to_tensor(g)], input_shape=_shape(x), **_pool_attrs(attrs, "T"))
    return vjp


def _avg_pool_grad_vjp(pool_op):
    def vjp(g, ans, upstream, input_shape, **attrs):
        return F.execute(pool_op, [F.convert_to_tensor(g)], **_pool_attrs(attrs, "T"))
    return vjp


def _max_pool_with_argmax_vjp(g, ans, x, ksize, strides, padding, include_batch_in_index, **_):
    """TF's gradient: MaxPoolGradWithArgmax of the values' upstream at the argmax output; none for the argmax."""
    upstream = F.zeros(_shape(ans[0]), ans[0].dtype) if g[0] is None else F.convert_to_tensor(g[0])
    return F.execute("MaxPoolGradWithArgmax", [x, upstream], argmax=ans[1]._value, ksize=ksize, strides=strides,
                     padding=padding, include_batch_in_index=include_batch_in_index)


def _lrn_vjp(g, ans, x, depth_radius, bias, alpha, beta, **_):
    return F.execute("LRNGrad", [F.convert_to_tensor(g), x, ans], depth_radius=depth_radius, bias=bias, alpha=alpha,
                     beta=beta, T=x.dtype)


def _unvectorized(vjp):
    """An unregistered gradient of an op TF's pfor has no converter for (it loops over it): see tape.py."""
    vjp.unvectorized = True
    return vjp


_POOLED = FLOAT  # half, bfloat16, float, double (TF's MaxPool also takes integers, which no gradient reaches)
_POOLED_3D = frozenset({_dtypes.float16, _dtypes.bfloat16, _dtypes.float32})
_LRN = frozenset({_dtypes.float16, _dtypes.bfloat16, _dtypes.float32})
defop("MaxPool", _pooling.max_pool, _max_pool_vjp("MaxPoolGrad"), dtypes=REAL, moves_data=True)
defop("MaxPoolGrad", _pooling.max_pool_grad, _max_pool_grad_vjp("MaxPoolGrad", "MaxPoolGradGrad"), dtypes=REAL)
defop("MaxPoolGradGrad", _pooling.max_pool_grad_grad, _max_pool_grad_vjp("MaxPoolGrad", "MaxPoolGradGrad"), dtypes=REAL, moves_data=True)
defop("MaxPool3D", lambda x, **a: _pooling.max_pool(x, op="MaxPool3D", **a), _max_pool_vjp("MaxPool3DGrad"),
      dtypes=_POOLED_3D, kernels=_POOLED_3D - {_dtypes.float16}, moves_data=True)
defop("MaxPool3DGrad", _pooling.max_pool3d_grad,
      _max_pool_grad_vjp("MaxPool3DGrad", "MaxPool3DGradGrad"), dtypes=_POOLED_3D, kernels=_POOLED_3D - {_dtypes.float16})
defop("MaxPool3DGradGrad", lambda *xs, **a: _pooling.max_pool_grad_grad(*xs, op="MaxPool3DGradGrad", **a),
      _max_pool_grad_vjp("MaxPool3DGrad", "MaxPool3DGradGrad"), dtypes=_POOLED_3D, kernels=_POOLED_3D - {_dtypes.float16}, moves_data=True)
defop("AvgPool", _pooling.avg_pool, _avg_pool_vjp("AvgPoolGrad"), dtypes=_POOLED)
defop("AvgPoolGrad", _pooling.avg_pool_grad, _avg_pool_grad_vjp("AvgPool"), dtypes=_POOLED)
defop("AvgPool3D", lambda x, **a: _pooling.avg_pool(x, op="AvgPool3D", **a), _avg_pool_vjp("AvgPool3DGrad"),
      dtypes=_POOLED, kernels=frozenset({_dtypes.bfloat16, _dtypes.float32}))
defop("AvgPool3DGrad", lambda g, **a: _pooling.avg_pool_grad(g, op="AvgPool3DGrad", **a),
      _avg_pool_grad_vjp("AvgPool3D"), dtypes=_POOLED, kernels=frozenset({_dtypes.bfloat16, _dtypes.float32}))
defop("MaxPoolWithArgmax", _pooling.max_pool_with_argmax, _max_pool_with_argmax_vjp, dtypes=REAL, moves_data=True,
      num_outputs=lambda attrs: 2, out_dtype=lambda dt, a: (dt, _dtypes.as_dtype(a["Targmax"])))
defop("MaxPoolGradWithArgmax", _pooling.max_pool_grad_with_argmax, _unvectorized(_unregistered("MaxPoolGradWithArgmax")),
      dtypes=REAL)
defop("LRN", _normalization.lrn, _lrn_vjp, dtypes=_LRN, kernels=_LRN - {_dtypes.bfloat16})
defop("LRNGrad", _normalization.lrn_grad, _unvectorized(_unregistered("LRNGrad")), dtypes=_LRN, kernels=_LRN - {_dtypes.bfloat16})


# ---------------------------------------------------------------------------------------------
# Convolutions (kernels/convolution.py): each op's gradient is a pair of the others, as TF registers them;
# the input and filter sizes TF passes as shape tensors are attributes here (no gradient, as in TF)

from .kernels.convolution import (_conv2d, _conv2d_backprop_filter, _conv2d_backprop_input,  # noqa: E402
                                  _conv3d, _conv3d_backprop_filter, _conv3d_backprop_input, _depthwise,
                                  _depthwise_backprop_filter, _depthwise_backprop_input)

_CONV_ATTRS = ("strides", "padding", "explicit_paddings", "dilations", "data_format", "T")  # T: half types reach
_CONV3D_ATTRS = ("strides", "padding", "dilations", "data_format", "T")  # the kernels as float32


def _conv_ops(forward: str, backprop_input: str, backprop_filter: str, names: tuple, decodes: tuple) -> tuple:
    """The VJPs of a convolution and of its two backprops (TF's _Conv2DGrad, _Conv2DBackpropInputGrad and
    _Conv2DBackpropFilterGrad, and their Conv3D and depthwise twins). Those of `decodes` read the recorded data
    format as bytes: one recorded as None (tf.nn.convolution's default) is TF's AttributeError there."""

    def attrs_of(attrs: dict, decodes: bool) -> dict:
        from .forwardprop import _computing  # a tangent computation is TF's traced function: defaults filled in
        if decodes and attrs["data_format"] is None and not _computing.depth:
            raise AttributeError("'NoneType' object has no attribute 'decode'")
        return {name: attrs[name] for name in names}

    def forward_vjp(g, ans, x, w, **attrs):
        kept = attrs_of(attrs, decodes[0])
        return (F.execute(backprop_input, [w, g], input_sizes=_shape(x), **kept),
                F.execute(backprop_filter, [x, g], filter_sizes=_shape(w), **kept))

    def input_vjp(g, ans, w, dy, input_sizes, **attrs):
        kept = attrs_of(attrs, decodes[1])
        return (F.execute(backprop_filter, [g, dy], filter_sizes=_shape(w), **kept),
                F.execute(forward, [g, w], **kept))

    def filter_vjp(g, ans, x, dy, filter_sizes, **attrs):
        kept = attrs_of(attrs, decodes[2])
        return (F.execute(backprop_input, [g, dy], input_sizes=_shape(x), **kept),
                F.execute(forward, [x, g], **kept))

    return forward_vjp, input_vjp, filter_vjp


_vjps = _conv_ops("Conv2D", "Conv2DBackpropInput", "Conv2DBackpropFilter", _CONV_ATTRS, (False, True, True))
defop("Conv2D", _conv2d, _vjps[0], dtypes=FLOAT | {_dtypes.int32})
defop("Conv2DBackpropInput", _conv2d_backprop_input, _vjps[1], dtypes=FLOAT | {_dtypes.int32})
defop("Conv2DBackpropFilter", _conv2d_backprop_filter, _vjps[2], dtypes=FLOAT)
_vjps = _conv_ops("Conv3D", "Conv3DBackpropInputV2", "Conv3DBackpropFilterV2", _CONV3D_ATTRS, (True, True, True))
defop("Conv3D", _conv3d, _vjps[0], dtypes=FLOAT)
defop("Conv3DBackpropInputV2", _conv3d_backprop_input, _vjps[1], dtypes=FLOAT)
defop("Conv3DBackpropFilterV2", _conv3d_backprop_filter, _vjps[2], dtypes=FLOAT)
_vjps = _conv_ops("DepthwiseConv2dNative", "DepthwiseConv2dNativeBackpropInput", "DepthwiseConv2dNativeBackpropFilter",
                  _CONV_ATTRS, (False, False, False))
defop("DepthwiseConv2dNative", _depthwise, _vjps[0], dtypes=FLOAT)
defop("DepthwiseConv2dNativeBackpropInput", _depthwise_backprop_input, _vjps[1], dtypes=FLOAT)
defop("DepthwiseConv2dNativeBackpropFilter", _depthwise_backprop_filter, _vjps[2], dtypes=FLOAT)
del _vjps
# Dilated convolutions run undilated between these (TF's with_space_to_batch); each one's gradient is the other,
# which reads no Shape of its input (as reshapes' gradients do: a tape recording them reaches further)
defop("SpaceToBatchND", _space_to_batch, lambda g, ans, x, block_shape, paddings, **_: F.execute(
    "BatchToSpaceND", [g], block_shape=block_shape, crops=paddings), moves_data=True)
defop("BatchToSpaceND", _batch_to_space, lambda g, ans, x, block_shape, crops, **_: F.execute(
    "SpaceToBatchND", [g], block_shape=block_shape, paddings=crops), moves_data=True)


# ---------------------------------------------------------------------------------------------
# Image resizing (kernels/resize.py), half-pixel centres as TF 2's tf.image.resize. The sizes TF passes as shape
# tensors are attributes here. ResizeBilinear returns float32 whatever its input; its gradient kernel reads the
# original image (so a tape tracking that image records the kernel), returns the image's dtype T and is not
# differentiable (None); TF registers no gradient for ResizeNearestNeighborGrad (and pfor has no converter: its
# vectorized loop runs it unvectorized).

from .kernels import resize as _resize  # noqa: E402 - the family's block

_RESIZED = REAL  # TF's CPU kernels: the real number types


def _resize_bilinear_vjp(g, ans, x, size, **_):
    return F.execute("ResizeBilinearGrad", [F.convert_to_tensor(g)], original_image=x, T=x.dtype)


def _resize_nearest_vjp(g, ans, x, size, **_):
    g = F.convert_to_tensor(g)
    return F.execute("ResizeNearestNeighborGrad", [g], size=tuple(_shape(x)[1:3]), T=g.dtype)


defop("ResizeBilinear", _resize.resize_bilinear, _resize_bilinear_vjp, dtypes=_RESIZED,
      out_dtype=lambda dt, a: _dtypes.float32)
defop("ResizeBilinearGrad", _resize.resize_bilinear_grad, _none_gradient, dtypes=frozenset({_dtypes.float32}),
      out_dtype=lambda dt, a: a["T"], tf_inputs=lambda inputs, attrs: inputs + (attrs["original_image"],))
defop("ResizeNearestNeighbor", _resize.resize_nearest, _resize_nearest_vjp, dtypes=_RESIZED, moves_data=True)
defop("ResizeNearestNeighborGrad", _resize.resize_nearest_grad,
      _unvectorized(_unregistered("ResizeNearestNeighborGrad")), dtypes=FLOAT | INTEGER)


# ---------------------------------------------------------------------------------------------
# tf.signal's real FFTs (kernels in kernels/special.py), their gradients as TF's: RFFT's is half of the inverse
# transform of the upstream times the input's size plus the real part of the terms the halved spectrum drops
# (the DC bin's, and for an even length the Nyquist bin's alternating in sign; in 2-d both through the DFT matrix
# of the outer axis); IRFFT's the forward transform of the upstream over its size, the bins a real signal's
# spectrum holds twice doubled.

from .kernels.special import _irfft, _irfft2d, _rfft, _rfft2d  # noqa: E402 - the family's block


def _alternating(length: int, dtype) -> EagerTensor:
    """1, -1, 1, ... of `length` in `dtype`."""
    return F.cast(F.constant(1 - 2 * (np.arange(length, dtype=np.int32) % 2)), dtype)


def _outer_dft(length: int, dtype) -> EagerTensor:
    """The DFT matrix exp(-2 pi i a b / length) of the outer axis, in the complex `dtype`."""
    indices = np.arange(length, dtype=np.int32)
    products = F.cast(F.constant(np.multiply.outer(indices, indices)), dtype)
    angle = F.divide(F.multiply(F.constant(-2j * np.pi, dtype), products), F.cast(F.constant(length), dtype))
    return F.exp(angle)


def _rfft_extra_terms(g, x_shape: tuple, rank: int, is_even):
    """The dropped bins' terms of RFFT's gradient (complex, of the input's shape after broadcasting)."""
    first, last = g[..., 0:1], g[..., -1:]
    if rank == 1:
        return F.add(first, F.multiply(F.multiply(is_even, last), _alternating(x_shape[-1], g.dtype)))
    mask = _outer_dft(x_shape[-2], g.dtype)
    batch = tuple(_shape(first)[:-2])
    tiled = F.tile(F.reshape(mask, (1,) * len(batch) + _shape(mask)), batch + (1, 1))
    first_term = F.matmul(tiled, F.conj(first))
    last_term = F.matmul(tiled, F.conj(last))
    last_term = F.multiply(F.tile(last_term, (1,) * (len(_shape(g)) - 1) + (x_shape[-1],)),
                           _alternating(x_shape[-1], g.dtype))
    return F.add(first_term, F.multiply(is_even, last_term))


def _rfft_vjp(rank: int):
    inverse = F.irfft if rank == 1 else F.irfft2d

    def vjp(g, ans, x, fft_length, **_):
        g = F.convert_to_tensor(g)
        real = g.dtype.real_dtype
        is_even = F.cast(F.constant(1 - fft_length[-1] % 2), g.dtype)
        extra = _rfft_extra_terms(g, _shape(x), rank, is_even)
        size = F.cast(F.constant(int(np.prod(_shape(x)[-rank:]))), real)
        doubled = F.add(F.multiply(inverse(g, list(fft_length)), size), F.real(extra))
        return F.multiply(F.constant(0.5, real), doubled)
    return vjp


def _irfft_vjp(rank: int):
    forward = F.rfft if rank == 1 else F.rfft2d

    def vjp(g, ans, x, fft_length, **_):
        g = F.convert_to_tensor(g)
        is_odd = fft_length[-1] % 2
        bins = _shape(x)[-1]
        mask = F.concat([F.constant([1.0], g.dtype), F.multiply(F.constant(2.0, g.dtype), F.ones([bins - 2 + is_odd], g.dtype)),
                         F.ones([1 - is_odd], g.dtype)], 0)
        scale = F.reciprocal(F.cast(F.constant(int(np.prod(_shape(g)[-rank:]))), g.dtype))
        complex_dtype = _dtypes.complex64 if g.dtype == _dtypes.float32 else _dtypes.complex128
        return F.multiply(forward(g, list(fft_length)), F.cast(F.multiply(scale, mask), complex_dtype))
    return vjp


_REAL_FFT = frozenset({_dtypes.float32, _dtypes.float64})
defop("RFFT", _rfft, _rfft_vjp(1), dtypes=_REAL_FFT, out_dtype=lambda dt, a: a["Tcomplex"])
defop("RFFT2D", _rfft2d, _rfft_vjp(2), dtypes=_REAL_FFT, out_dtype=lambda dt, a: a["Tcomplex"])
defop("IRFFT", _irfft, _irfft_vjp(1), dtypes=COMPLEX, out_dtype=lambda dt, a: dt.real_dtype)
defop("IRFFT2D", _irfft2d, _irfft_vjp(2), dtypes=COMPLEX, out_dtype=lambda dt, a: dt.real_dtype)
