"""Primitive ops: the registry, and `execute`, which runs one op and records it on the tape.

A primitive is declared once (see `ops_table.py`) with its NumPy forward function (most in `kernels/`)
and its VJP side by side. `execute` checks input dtypes as TF's kernels do (mixed dtypes fail, no promotion),
computes half-precision types in float32 and rounds the result back, wraps outputs as tensors and
records the op on every tape that tracks one of its inputs.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from operator import attrgetter, is_not
from typing import Any, Callable

import numpy as np

from . import dtypes as _dtypes
from . import recording as _recording
from .dtypes import DType
from .errors import InvalidArgumentError, NotFoundError
from .fp_errors import quiet_astype, quietly
from .tensor import EagerTensor
from .thread_state import this_thread

FLOAT = frozenset({_dtypes.float16, _dtypes.bfloat16, _dtypes.float32, _dtypes.float64})
COMPLEX = frozenset({_dtypes.complex64, _dtypes.complex128})
INTEGER = frozenset({_dtypes.int8, _dtypes.int16, _dtypes.int32, _dtypes.int64, _dtypes.uint8})
INEXACT = FLOAT | COMPLEX
REAL = FLOAT | INTEGER
NUMERIC = REAL | COMPLEX
ANY = None

_HALF = frozenset({_dtypes.float16._numpy_dtype, _dtypes.bfloat16._numpy_dtype})  # computed in float32
_BFLOAT16 = _dtypes.bfloat16._numpy_dtype  # float32's exponent range: TF's float32 arithmetic flushes its subnormals


@dataclass(frozen=True)
class Primitive:
    """One op type: forward on arrays, VJP on tensors (None: not differentiable, never recorded)."""

    name: str
    forward: Callable[..., Any]
    vjp: Callable[..., Any] | None
    dtypes: frozenset | None = ANY
    out_dtype: Callable[[DType, dict], DType] | None = None
    num_outputs: Callable[[dict], int] | None = None
    sparse_upstream: bool = False  # the VJP passes IndexedSlices through instead of densifying
    # TF's inputs of the op, where reftape passes some as attributes (a select's bool condition, a
    # reshape's shape tensor): `tf_inputs(inputs, attrs)`. Not differentiated, but read, so the backward
    # pass walks through them to the ops that made them.
    tf_inputs: Callable[[tuple, dict], tuple] | None = None
    fills_missing_upstream: bool = True  # multi-output: absent output gradients become zeros
    # Copies or selects values without arithmetic: no float32 detour for half types, and subnormals
    # kept (arithmetic kernels flush them, see execute). A predicate of the attributes when that
    # depends on them (a reduction over no axes is a copy).
    moves_data: bool | Callable[[dict, list], bool] = False   # a callable: of the attributes and input tensors
    kernels: frozenset | None = None  # dtypes with a CPU kernel, when fewer than the op allows
    # TF's graph-mode refusal of a dtype (a TypeError, inside traced code such as the vectorized jacobian's
    # loop), where reftape follows it: a template of {dtype}
    traced_refusal: str | None = None
    gradient_ops: tuple = ()  # primitives the VJP builds that may refuse a dtype this op takes (see traced_refusal)
    # Outputs are input values, zeros or whole numbers: from flushed inputs, no subnormal can come out,
    # so the outputs need no check.
    keeps_normal: bool = False
    # Where TF's kernel reads subnormal inputs as they are instead of as zero (C library calls in its
    # scalar loop, selects that return an input): `rule(result, *raw_inputs)` corrects the result
    # computed from flushed inputs. Called only for float32 and float64 inputs that hold subnormals.
    subnormal_rule: Callable[..., np.ndarray] | None = None
    # The NumPy dtypes of the dtypes that are allowed and have a kernel (None: any): NumPy dtypes hash
    # in C, reftape's DTypes in Python, and `execute` asks once per op.
    accepted: frozenset | None = field(init=False, repr=False, compare=False)
    # Computes one output of its inputs' dtype (no data movement, no dtype rule): most kernels are
    # such, and `execute` runs them on a shorter path.
    computes_one: bool = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        allowed = self.kernels if self.dtypes is None else self.dtypes if self.kernels is None else self.dtypes & self.kernels
        object.__setattr__(self, "accepted", None if allowed is None else frozenset(d._numpy_dtype for d in allowed))
        object.__setattr__(self, "computes_one",
                           self.moves_data is False and self.out_dtype is None and self.num_outputs is None)


REGISTRY: dict[str, Primitive] = {}


def defop(name: str, forward: Callable[..., Any], vjp: Callable[..., Any] | None, **options: Any) -> Primitive:
    """Declares primitive `name` (TF's op type) with its forward function and VJP."""
    primitive = Primitive(name, forward, vjp, **options)
    REGISTRY[name] = primitive
    return primitive


def _reject(primitive: Primitive, dtype: DType) -> None:
    """Raises TF's error for a dtype the op does not allow, or allows without a CPU kernel."""
    if primitive.dtypes is not None and dtype not in primitive.dtypes:
        allowed = ", ".join(sorted(d.kernel_name for d in primitive.dtypes))
        error = InvalidArgumentError(f"Value for attr 'T' of {dtype.name} is not in the list of allowed "
                                     f"values: {allowed}\n\t; NodeDef: {{{{node {primitive.name}}}}} [Op:{primitive.name}]")
        if primitive.traced_refusal is not None:
            error.traced_refusal = primitive.traced_refusal.format(dtype=dtype.name)
        raise error
    if primitive.kernels is not None and dtype not in primitive.kernels:
        raise NotFoundError(f"Could not find device for node: {{{{node {primitive.name}}}}} = "
                            f"{primitive.name}[T=DT_{dtype.kernel_name.upper()}] [Op:{primitive.name}]")


def _check_same_dtypes(primitive: Primitive, inputs: list) -> None:
    """TF's check of inputs of mixed dtypes, which comes after the op's dtype (the first input's) is
    found allowed and with a kernel."""
    first = inputs[0].dtype
    if primitive.accepted is not None and first._numpy_dtype not in primitive.accepted:
        _reject(primitive, first)
    for i, tensor in enumerate(inputs[1:], start=1):
        if tensor.dtype != first:
            raise InvalidArgumentError(
                f"cannot compute {primitive.name} as input #{i}(zero-based) was expected to be a "
                f"{first.kernel_name} tensor but is a {tensor.dtype.kernel_name} tensor [Op:{primitive.name}] name: ")


_value_of = attrgetter("_value")
_absolute, _less = np.absolute, np.less
REAL_FLUSHED = frozenset({_dtypes.float32._numpy_dtype, _dtypes.float64._numpy_dtype})  # real dtypes whose kernels flush
_NOT_FLOAT = INTEGER | {_dtypes.bool}


def flush_subnormals(array: np.ndarray) -> np.ndarray:
    """Subnormals to signed zero, as TF's CPU kernels compute with denormals-are-zero and
    flush-to-zero set (half types convert in software and keep theirs)."""
    if array.nbytes <= _SMALL_BYTES and not _small_holds_subnormals(array):  # the common case, cheaply
        return array
    tiny = _SMALLEST_NORMAL[array.dtype]
    if tiny is None:  # complex
        flushed = np.empty_like(array)  # set the parts directly: `re + 1j * im` would lose -0.0 in im
        flushed.real, flushed.imag = flush_subnormals(array.real), flush_subnormals(array.imag)
        return flushed
    below_normal = _less(_absolute(array), tiny)  # the ufuncs called directly: `<` dispatches first
    below = count_nonzero(below_normal)
    if not below or below == array.size - count_nonzero(array):  # the common cases: nothing below normal but zeros
        return array
    subnormal = below_normal & (array != 0)
    return np.where(subnormal, np.copysign(np.zeros_like(array), array), array)


# Keyed by the NumPy dtypes whose kernels flush (NumPy dtypes hash in C, reftape's DTypes in Python);
# for real dtypes, 0-d arrays of the dtype: the cheapest right-hand side for NumPy's comparison.
_SMALLEST_NORMAL = {np.dtype(t): np.array(np.finfo(t).tiny) for t in (np.float32, np.float64)} | {
    np.dtype(np.complex64): None, np.dtype(np.complex128): None}

KERNELS_FLUSH = frozenset(_SMALLEST_NORMAL)  # NumPy dtypes whose tensors `execute` keeps free of subnormals


# A small array is checked for subnormals on its bytes, read as one Python integer of 32- or 64-bit
# lanes (a float each, or a part of a complex number): on a few dozen elements, big-integer arithmetic
# costs half of NumPy's three calls. With m a lane's magnitude bits (its sign cleared), a lane is
# subnormal when 0 < m < 2^p (p: the mantissa's bits, exponent bits all zero). Adding the all-ones
# magnitude mask carries into the lane's cleared sign bit when m > 0; adding 2^(b-1) - 2^p (b: the
# lane's bits) carries into it when m >= 2^p. The two sums' sign bits differ exactly in subnormal lanes,
# and no carry crosses a lane.
_SMALL_BYTES = 128
_from_bytes, _BYTE_ORDER = int.from_bytes, sys.byteorder


def _lane_masks(dtype: Any) -> dict[int, tuple[int, int, int]]:
    """For each byte size up to _SMALL_BYTES: the magnitude, normal-threshold and sign masks of every lane."""
    lane = np.dtype(f"u{np.finfo(dtype).bits // 8}")
    sign = 1 << (8 * lane.itemsize - 1)
    below_normal = sign - (1 << np.finfo(dtype).nmant)

    def every_lane(mask: int, lanes: int) -> int:
        return _from_bytes(np.full(lanes, mask, lane).tobytes(), _BYTE_ORDER)

    return {lanes * lane.itemsize: (every_lane(sign - 1, lanes), every_lane(below_normal, lanes), every_lane(sign, lanes))
            for lanes in range(_SMALL_BYTES // lane.itemsize + 1)}


_LANE_MASKS = {dtype: _lane_masks(dtype) for dtype in KERNELS_FLUSH}


def _small_holds_subnormals(array: np.ndarray) -> bool:
    """Whether an array of at most _SMALL_BYTES bytes holds subnormals (see above)."""
    magnitude_mask, below_normal, sign = _LANE_MASKS[array.dtype][array.nbytes]
    magnitudes = _from_bytes(array.tobytes(), _BYTE_ORDER) & magnitude_mask
    return (magnitudes + below_normal ^ magnitudes + magnitude_mask) & sign != 0

try:  # NumPy's C function without its Python wrapper, which costs three times the count on small arrays
    from numpy._core.multiarray import count_nonzero
except ImportError:
    count_nonzero = np.count_nonzero


# -- Deferred subnormal checks -------------------------------------------------------------------
#
# Checking a small output for subnormals costs more than computing it (three NumPy calls). In a block
# of reftape's own kernels that can be run again (a backward pass), outputs are instead taken to hold
# none and checked in batches: every _BATCH outputs, the bytes of the outputs whose parts have one
# dtype (float32: float32 and complex64) are joined and checked at once. If every output held none,
# flushing would have changed nothing and the block's results are exact. The first batch that holds
# one stops the block (DeferralAbandoned), which must then be run again without deferral.

_BATCH = 256
_DEFERRED_MAX_SIZE = 1024  # larger outputs are checked at once: the check's cost is in their elements
_PARTS = {np.dtype(t): np.dtype(p) for t, p in ((np.float32, np.float32), (np.float64, np.float64),
                                                   (np.complex64, np.float32), (np.complex128, np.float64))}


class DeferralAbandoned(Exception):
    """A block with deferred checks met a subnormal, or reached something that must not run twice
    (user code): its results do not stand, and it must be run again without deferral."""


class DeferredFlushes:
    """Defers the subnormal checks of kernel outputs in a block that can be run again; the block
    raises DeferralAbandoned when its results, or the error it raised, do not stand."""

    __slots__ = ("_saved",)

    def __enter__(self) -> None:
        state = this_thread.state
        self._saved, state.deferred = state.deferred, []

    def __exit__(self, failure: Any, *exc: Any) -> None:
        state = this_thread.state
        try:
            if failure is None or not issubclass(failure, DeferralAbandoned):
                _check_deferred(state.deferred)  # an error stands only if no output before it held a subnormal
        finally:
            state.deferred = self._saved


def abandon_deferral() -> None:
    """Stops a block with deferred checks before something that must run once."""
    if this_thread.state.deferred is not None:
        raise DeferralAbandoned


def _flushed_or_deferred(array: np.ndarray, deferred: list | None) -> np.ndarray:
    """A kernel's output, flushed, or left to the block's deferred checks (`deferred`: this thread's
    outputs awaiting their check, None outside such a block). `execute` runs this inline."""
    if deferred is None or array.size > _DEFERRED_MAX_SIZE:
        return flush_subnormals(array)
    deferred.append(array)
    if len(deferred) == _BATCH:
        _check_deferred(deferred)
    return array


def _check_deferred(deferred: list) -> None:
    """Checks the outputs awaiting their check, one batch per dtype of their parts."""
    if not deferred:
        return
    dtype = deferred[0].dtype
    for array in deferred:
        if array.dtype is not dtype:  # several dtypes (NumPy's native dtypes are singletons)
            by_part: dict = {}
            for array in deferred:
                by_part.setdefault(_PARTS[array.dtype], []).append(array)
            break
    else:  # one dtype, the common case: no grouping
        by_part = {_PARTS[dtype]: deferred}
    for part, arrays in by_part.items():
        try:
            parts = np.frombuffer(b"".join(arrays), part)  # one check for the whole batch
        except TypeError:  # an output that is not C-contiguous offers no buffer of plain bytes
            parts = np.concatenate([np.ascontiguousarray(a).view(part) for a in arrays], axis=None)
        if flush_subnormals(parts) is not parts:
            raise DeferralAbandoned
    deferred.clear()


def _compute_value(tensor: Any, moves_data: bool) -> Any:
    """The array a kernel computes with; `execute` reads tensors known to hold no subnormals directly."""
    value = getattr(tensor, "_value", None)
    if value is None or moves_data:
        return value
    if value.dtype not in _SMALLEST_NORMAL:
        if value.dtype is _BFLOAT16:  # computed in float32 as TF does, which reads its subnormals as zero
            return flush_subnormals(value.astype(np.float32))
        return value.astype(np.float32) if value.dtype in _HALF else value
    flushed = flush_subnormals(value)
    if flushed is value and isinstance(tensor, EagerTensor):
        tensor._flushed = True  # found to hold no subnormals: later kernels reading it skip the check
    return flushed


def _all_subnormal_free(inputs: list) -> bool:
    """Whether the inputs are known to hold no subnormals (bool and integers hold none)."""
    for t in inputs:
        if t.__class__ is EagerTensor and t._value.dtype in _SMALLEST_NORMAL:
            if not t._flushed:
                return False
        elif t.dtype not in _NOT_FLOAT:
            return False
    return True


def execute(name: str, inputs: list, **attrs: Any) -> Any:
    """Runs primitive `name` on input tensors with attributes; records it; returns its output(s)."""
    primitive = REGISTRY[name]
    if not primitive.computes_one or not inputs:
        return _execute_any(primitive, inputs, attrs)
    dtype = inputs[0]._dtype
    arrays = []
    for t in inputs:  # `_execute_any`'s loop, for an op that moves no data
        if t._dtype is not dtype:
            _check_same_dtypes(primitive, inputs)
        arrays.append(t._value if t._flushed else _compute_value(t, False))
    np_dtype = dtype._numpy_dtype
    if primitive.accepted is not None and np_dtype not in primitive.accepted:
        _reject(primitive, dtype)
    state = this_thread.state
    try:
        if state.quiet:  # NumPy's warnings are off for the whole block (a backward pass)
            result = primitive.forward(*arrays, **attrs) if attrs else primitive.forward(*arrays)
        else:
            result = quietly(primitive.forward, arrays, attrs)
    except (ValueError, IndexError) as err:
        raise InvalidArgumentError(f"{err} [Op:{name}] name: ") from None
    if primitive.subnormal_rule is not None and np_dtype in REAL_FLUSHED and any(
            map(is_not, arrays, map(_value_of, inputs))):
        array = _as_dtype(primitive.subnormal_rule(flush_subnormals(_as_dtype(result, dtype)),
                                                   *(t._value for t in inputs)), dtype)
        subnormal_free = False
    else:
        if np_dtype is _BFLOAT16 and not primitive.keeps_normal:
            result = _flushed_in_float32(result)
        array = result if result.__class__ is np.ndarray and result.dtype is np_dtype else _as_dtype(result, dtype)
        subnormal_free = np_dtype in _SMALLEST_NORMAL
        if subnormal_free and not primitive.keeps_normal:  # `_flushed_or_deferred`, inline
            deferred = state.deferred
            if deferred is None or array.size > _DEFERRED_MAX_SIZE:
                array = flush_subnormals(array)
            else:
                deferred.append(array)
                if len(deferred) == _BATCH:
                    _check_deferred(deferred)
    output = EagerTensor(array, dtype, subnormal_free)
    if state.tracer is not None:
        state.tracer.op(primitive, inputs, attrs, (output,))
    if primitive.vjp is not None and state.active:
        _recording.record_operation(primitive, inputs, (output,), attrs, state.active)
    return output


def _execute_any(primitive: Primitive, inputs: list, attrs: dict) -> Any:
    """`execute` for any primitive: data movement, dtype rules, several outputs."""
    name = primitive.name
    moves_data = primitive.moves_data
    if moves_data.__class__ is not bool:
        moves_data = moves_data(attrs, inputs)
    dtype = inputs[0]._dtype if inputs else None
    arrays = []
    for t in inputs:  # a loop: a comprehension is a function call of its own in Python 3.11
        if t._dtype is not dtype:  # DTypes are singletons: this only finds a mismatch
            _check_same_dtypes(primitive, inputs)
        arrays.append(t._value if t._flushed else _compute_value(t, moves_data))
    if primitive.accepted is not None and inputs and dtype._numpy_dtype not in primitive.accepted:
        _reject(primitive, dtype)
    state = this_thread.state
    try:
        # data movement computes nothing that could raise a floating-point warning
        if moves_data or state.quiet:
            result = primitive.forward(*arrays, **attrs)
        else:
            result = quietly(primitive.forward, arrays, attrs)
    except (ValueError, IndexError) as err:
        raise InvalidArgumentError(f"{err} [Op:{name}] name: ") from None
    out_dtype = dtype if primitive.out_dtype is None else primitive.out_dtype(dtype, attrs)
    if out_dtype.__class__ is tuple:  # outputs of their own dtypes (TopKV2's values and indices): data movement
        free = _all_subnormal_free(inputs)
        outputs = tuple([_output(r, d, False, free and d._numpy_dtype in _SMALLEST_NORMAL)
                         for r, d in zip(result, out_dtype)])
        if state.tracer is not None:
            state.tracer.op(primitive, inputs, attrs, outputs)
        if primitive.vjp is not None and inputs and state.active:
            _recording.record_operation(primitive, inputs, outputs, attrs, state.active)
        return outputs
    subnormal_free = out_dtype._numpy_dtype in _SMALLEST_NORMAL  # the dtypes whose kernels flush
    flushes = subnormal_free and not (moves_data or primitive.keeps_normal)
    if primitive.subnormal_rule is not None and dtype._numpy_dtype in REAL_FLUSHED and any(
            map(is_not, arrays, map(_value_of, inputs))):  # an input held subnormals (it was flushed)
        result = primitive.subnormal_rule(flush_subnormals(_as_dtype(result, out_dtype)), *(t._value for t in inputs))
        flushes = subnormal_free = False
    elif moves_data and subnormal_free:  # moving values known to hold no subnormals yields none
        subnormal_free = _all_subnormal_free(inputs)
    if out_dtype._numpy_dtype is _BFLOAT16 and not (moves_data or primitive.keeps_normal):
        result = _flushed_in_float32(result) if primitive.num_outputs is None else [_flushed_in_float32(r) for r in result]
    if primitive.num_outputs is None:
        np_dtype = out_dtype._numpy_dtype  # NumPy's native dtypes are singletons: identity settles most
        array = result if result.__class__ is np.ndarray and result.dtype is np_dtype else _as_dtype(result, out_dtype)
        if flushes:
            array = _flushed_or_deferred(array, state.deferred)
        outputs = (EagerTensor(array, out_dtype, subnormal_free),)
    else:
        outputs = tuple([_output(r, out_dtype, flushes, subnormal_free) for r in result])
    if state.tracer is not None:
        state.tracer.op(primitive, inputs, attrs, outputs)
    if primitive.vjp is not None and inputs and state.active:
        _recording.record_operation(primitive, inputs, outputs, attrs, state.active)
    return outputs if primitive.num_outputs is not None else outputs[0]


def _flushed_in_float32(result: Any) -> np.ndarray:
    """A bfloat16 kernel's result as TF computes it, in float32 with subnormals flushed, before it is
    rounded to bfloat16 (whose exponent range is float32's)."""
    return flush_subnormals(np.asarray(result, np.float32))


def _output(result: Any, dtype: DType, flushes: bool, subnormal_free: bool) -> EagerTensor:
    """An output tensor: the result rounded to its dtype, flushed where the kernel flushes."""
    # NumPy's dtypes of native byte order are singletons: identity settles the common case cheaply
    array = result if result.__class__ is np.ndarray and result.dtype is dtype._numpy_dtype else _as_dtype(result, dtype)
    return EagerTensor(flush_subnormals(array) if flushes else array, dtype, subnormal_free)


def _as_dtype(value: Any, dtype: DType) -> np.ndarray:
    """Rounds a result to the output dtype (overflow to inf is IEEE's answer, not an error)."""
    array = np.asarray(value)
    if array.dtype == dtype.as_numpy_dtype or dtype == _dtypes.string:
        return array
    if array.dtype.kind == "c" and not dtype.is_complex:
        array = array.real
    return quiet_astype(array, dtype.as_numpy_dtype)
