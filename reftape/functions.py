"""Public ops with TensorFlow's signatures, built on primitives (`execute`) exactly where TF uses a
kernel, and composed from them where TF composes (clip_by_value, gelu, reduce_logsumexp, ...; silu in `nn.py`),
so that gradients, special points included, follow the same path as in TF."""

from __future__ import annotations

import builtins
import collections
import math
import numbers
import re
from typing import Any, Sequence

import numpy as np

from . import dtypes as _dtypes
from .dispatch import runs_onednn
from .errors import InvalidArgumentError, NotFoundError, _dims_text as dims_text
from .fp_errors import quiet_astype
from .primitives import REGISTRY, _reject as refuse_dtype, execute
from .recording import record_operation, suspended
from .tensor import (CONVERSION_HOOKS, SEQUENCE_PACKING, EagerTensor, IndexedSlices, Tensor, TensorShape, constant,
                     convert_to_tensor as _convert)
from .variables import Variable

newaxis = None


# ---------------------------------------------------------------------------------------------
# Conversion of op arguments


def convert_to_tensor(value: Any, dtype: Any = None, dtype_hint: Any = None, name: str | None = None) -> EagerTensor:
    """`tf.convert_to_tensor`; IndexedSlices are densified (a recorded, differentiable op)."""
    if dtype is None and value.__class__ is EagerTensor:  # what conversion would conclude, cheaply
        return value
    return _convert(value, dtype, dtype_hint)  # IndexedSlices: dtype checked, then densified by the hook below


def _densified(value: IndexedSlices, dtype: Any = None) -> EagerTensor:
    """IndexedSlices as the dense tensor TF converts them to (wherever a tensor is expected: op
    arguments, Variable assignments), summing repeated indices; without a dense_shape, TF's ValueError."""
    if value.dense_shape is None:
        raise ValueError(f"Tensor conversion requested for IndexedSlices for argument `value` without dense_shape: "
                         f"{value!r}")
    return execute("UnsortedSegmentSum", [convert_to_tensor(value.values)], indices=value.indices._value,
                   num_segments=int(value.dense_shape._value[0]))


CONVERSION_HOOKS[IndexedSlices] = _densified


def _is_tensor_like(value: Any) -> bool:
    return isinstance(value, (Tensor, Variable))


def _packed_dtype(values: list | tuple) -> _dtypes.DType | None:
    """The dtype of the first tensor or Variable in nested lists and tuples, depth first."""
    for item in values:
        if _is_tensor_like(item):
            return item.dtype
        if isinstance(item, (list, tuple)):
            found = _packed_dtype(item)
            if found is not None:
                return found
    return None


def _autopacked(value: list | tuple, dtype: _dtypes.DType | None) -> EagerTensor | None:
    """TF's conversion of a list or tuple that holds tensors: packed by recorded Pack ops, so gradients
    flow to the tensors (`tf.reduce_sum([x, y])`); the first tensor's dtype unless one is asked for,
    to which the tensors are then cast. None for one that holds none."""
    inferred = _packed_dtype(value)
    if inferred is None:
        return None
    if dtype is not None and dtype != inferred:
        value = _tensors_cast(value, dtype)
    return _pack(value, dtype or inferred)


def _tensors_cast(value: Any, dtype: _dtypes.DType) -> Any:
    if _is_tensor_like(value):
        return value if value.dtype == dtype else cast(value, dtype)
    if isinstance(value, (list, tuple)):
        return [_tensors_cast(item, dtype) for item in value]
    return value


def _pack(values: list | tuple, dtype: _dtypes.DType) -> Any:
    """One level of packing: tensors alone are packed unchecked (Pack rejects mixed dtypes); beside
    other values, a tensor of another dtype is TF's TypeError and the values become constants."""
    if all(_is_tensor_like(item) for item in values):
        return execute("Pack", [convert_to_tensor(item) for item in values], axis=0)
    parts, must_pack = [], False
    for item in values:
        if _is_tensor_like(item):
            if item.dtype != dtype:
                raise TypeError(f"Cannot convert a list containing a tensor of dtype {item.dtype} to {dtype} "
                                f"(Tensor is: {item!r})")
            must_pack = True
        elif isinstance(item, (list, tuple)):
            item = _pack(item, dtype)
            must_pack = must_pack or isinstance(item, EagerTensor)
        parts.append(item)
    if not must_pack:
        return parts
    return execute("Pack", [convert_to_tensor(part) if _is_tensor_like(part) else constant(part, dtype=dtype)
                            for part in parts], axis=0)


SEQUENCE_PACKING.append(_autopacked)


def _matching(values: Sequence[Any], strict: bool = False, beside: Sequence[Any] = ()) -> list[EagerTensor]:
    """Converts op arguments the way TF's eager op wrappers do: Python and NumPy values take the
    dtype of the first tensor argument (no promotion between tensors: mismatches fail in the op).
    A Python value that does not fit that dtype is a TypeError where TF converts strictly (`strict`:
    its generated op wrappers), and keeps its own dtype where TF only hints the dtype. Where a value
    (or one of the op's other inputs, `beside`) leaves TF's fast path, its fallback converts in order."""
    for value in values:
        if value.__class__ is not EagerTensor:
            break
    else:  # tensors only: what conversion would conclude, cheaply
        return list(values)
    if strict and any(_leaves_fast_path(v) for v in (*values, *beside)):
        return _matching_in_order(values)
    anchor = next((v for v in values if _is_tensor_like(v)), None)
    dtype = None if anchor is None else anchor.dtype
    converted = []
    for value in values:
        if _is_tensor_like(value):
            converted.append(convert_to_tensor(value))
        elif isinstance(value, (np.ndarray, np.generic)) and dtype is not None and (strict or dtype != _dtypes.string):
            # NumPy values are cast; numbers to strings only where TF insists (and then fails)
            converted.append(_convert(quiet_astype(np.asarray(value), dtype.as_numpy_dtype)))
        elif strict:
            converted.append(convert_to_tensor(value, dtype=dtype))
        else:
            converted.append(convert_to_tensor(value, dtype_hint=dtype))
        if dtype is None:
            dtype = converted[-1].dtype
    return converted


_PYTHON_NUMBERS = (builtins.int, builtins.float, builtins.complex)  # np.float64 and np.complex128 are among them


def _leaves_fast_path(value: Any) -> bool:
    """TF's eager fast path converts tensors, Variables, Python numbers and NumPy arrays itself; a list,
    a tuple or a NumPy scalar of no Python number type sends the op to its Python fallback."""
    return isinstance(value, (list, tuple)) or isinstance(value, np.generic) and not isinstance(value, _PYTHON_NUMBERS)


def _matching_in_order(values: Sequence[Any]) -> list[EagerTensor]:
    """The fallback's conversion: to the first tensor's dtype (not a Variable's), or else in order, each
    value to the dtype of the first one converted (a Variable of another dtype is TF's ValueError)."""
    dtype = next((v.dtype for v in values if isinstance(v, EagerTensor)), None)
    converted = []
    for value in values:
        converted.append(convert_to_tensor(value, dtype=dtype))
        dtype = dtype or converted[-1].dtype
    return converted


def _refuse_dtype_without_kernel(op: str, dtype: _dtypes.DType) -> None:
    """TF's error for an op's dtype that is not allowed or has no kernel, where reftape checks
    something before the op runs that TF's kernel checks later."""
    accepted = REGISTRY[op].accepted
    if accepted is not None and dtype._numpy_dtype not in accepted:
        refuse_dtype(REGISTRY[op], dtype)


def _unary(op: str, x: Any, **attrs: Any) -> EagerTensor:
    return execute(op, [x if x.__class__ is EagerTensor else convert_to_tensor(x)], **attrs)


def _binary(op: str, x: Any, y: Any, **attrs: Any) -> EagerTensor:
    if x.__class__ is EagerTensor and y.__class__ is EagerTensor:  # nothing to convert
        return execute(op, [x, y], **attrs)
    return execute(op, _matching([x, y], strict=True), **attrs)


def _axis_argument(axis: Any, attr: str, beside: Sequence[Any] = ()) -> Any:
    """An axis argument as TF converts it for an op whose attribute `attr` types it: a tensor must hold
    int32 or int64 (the op refuses another dtype), a Python float is no int32 (but where one of the op's
    inputs, `beside`, sends it to TF's Python fallback, a float tensor the op refuses), a list of floats is
    a float tensor; NumPy numbers convert."""
    if _is_tensor_like(axis):
        if axis.dtype.kernel_name not in _INT32_OR_64:
            raise InvalidArgumentError(f"Value for attr '{attr}' of {axis.dtype.kernel_name} is not in the list of "
                                       f"allowed values: int32, int64")
        return np.asarray(axis)
    if axis.__class__ is float:  # np.float64 too is a float, and converts
        if any(_leaves_fast_path(value) for value in beside):
            raise InvalidArgumentError(f"Value for attr '{attr}' of float is not in the list of allowed values: "
                                       "int32, int64")
        raise TypeError(f"Cannot convert {axis!r} to EagerTensor of dtype int32")
    if isinstance(axis, (list, tuple)) and np.size(axis) and np.asarray(axis).dtype.kind == "f":
        raise InvalidArgumentError(f"Value for attr '{attr}' of float is not in the list of allowed values: int32, int64")
    return axis


def _axes(axis: Any, beside: Sequence[Any] = ()) -> tuple | None:
    if axis is None:
        return None
    if axis.__class__ is tuple and all(a.__class__ is int for a in axis):  # what conversion would give, cheaply
        return axis
    return tuple(int(a) for a in np.ravel(_axis_argument(axis, "Tidx", beside)))  # any rank, as TF's reduction indices


# ---------------------------------------------------------------------------------------------
# Elementwise arithmetic


def add(x: Any, y: Any, name: str | None = None) -> EagerTensor:
    """TF's add (and `+`) converts x alone and hints its dtype to y: `tf.add(2, float32)` and
    `int32 + 2.5` fail in the op."""
    if x.__class__ is EagerTensor and y.__class__ is EagerTensor:  # nothing to convert
        return execute("AddV2", [x, y])
    x = convert_to_tensor(x)
    return execute("AddV2", [x, convert_to_tensor(y, dtype_hint=x.dtype)])


# The float type integers are divided in (None: divided as they are); other dtypes cannot be
_TRUE_DIVISION_TYPE = {_dtypes.int8: _dtypes.float32, _dtypes.uint8: _dtypes.float32, _dtypes.int16: _dtypes.float32,
                       _dtypes.int32: _dtypes.float64, _dtypes.int64: _dtypes.float64,
                       **{dtype: None for dtype in (_dtypes.float16, _dtypes.bfloat16, _dtypes.float32, _dtypes.float64,
                                                    _dtypes.complex64, _dtypes.complex128)}}
# TF's list, in its order (it names unsigned types reftape does not have)
_TRUE_DIVISION_NAMES = ("{tf.uint8, tf.int8, tf.uint16, tf.int16, tf.uint32, tf.int32, tf.uint64, tf.int64, tf.bfloat16, "
                        "tf.float16, tf.float32, tf.float64, tf.complex64, tf.complex128}")


def _true_division(op: str, x: EagerTensor, y: EagerTensor, caller: str) -> EagerTensor:
    if x.dtype != y.dtype:
        raise TypeError(f"`x` and `y` must have the same dtype, got {x.dtype!r} != {y.dtype!r}.")
    if x.dtype not in _TRUE_DIVISION_TYPE:
        raise TypeError(f"Invalid dtype {x.dtype!r} in {caller}. Expected one of {_TRUE_DIVISION_NAMES}.")
    target = _TRUE_DIVISION_TYPE[x.dtype]
    if target is not None:
        x, y = cast(x, target), cast(y, target)
    return execute(op, [x, y])


def divide(x: Any, y: Any, name: str | None = None) -> EagerTensor:
    """`x / y`, integers divided as floats: x converted to y's dtype unless a tensor or Variable, then
    `truediv` (y's dtype hinted by x's). With a name, TF's delegate calls truediv straight away."""
    if name is None and not _is_tensor_like(x):
        x = convert_to_tensor(x, dtype=y.dtype if _is_tensor_like(y) else None)
    return truediv(x, y)


def truediv(x: Any, y: Any, name: str | None = None) -> EagerTensor:
    """`tf.truediv` converts x alone and hints its dtype to y: operands of two dtypes are its TypeError."""
    x = convert_to_tensor(x)
    return _true_division("RealDiv", x, convert_to_tensor(y, dtype_hint=x.dtype), "__truediv__")


def floordiv(x: Any, y: Any, name: str | None = None) -> EagerTensor:
    return _binary("FloorDiv", x, y)


def floormod(x: Any, y: Any, name: str | None = None) -> EagerTensor:
    return _binary("FloorMod", x, y)


def truncatediv(x: Any, y: Any, name: str | None = None) -> EagerTensor:
    """x / y rounded toward zero (TF exports it at the top level only); no gradient (None)."""
    return _binary("TruncateDiv", x, y)


def truncatemod(x: Any, y: Any, name: str | None = None) -> EagerTensor:
    """C's remainder, with the sign of x (top level only); TF registers no gradient for it."""
    return _binary("TruncateMod", x, y)


def pow(x: Any, y: Any, name: str | None = None) -> EagerTensor:  # noqa: A001 - TF's name
    return _binary("Pow", x, y)


def negative(x: Any, name: str | None = None) -> EagerTensor:
    return _unary("Neg", x)


def abs(x: Any, name: str | None = None) -> EagerTensor:  # noqa: A001 - TF's name
    x = convert_to_tensor(x)
    return execute("ComplexAbs" if x.dtype.is_complex else "Abs", [x])


def _unary_function(op: str, doc: str) -> Any:
    def function(x: Any, name: str | None = None) -> EagerTensor:
        return execute(op, [x if x.__class__ is EagerTensor else convert_to_tensor(x)])

    function.__doc__ = doc
    return function


def sign(x: Any, name: str | None = None) -> EagerTensor:
    """Elementwise sign; its gradient is zeros (not None). Complex, as TF's Python function computes it:
    divide_no_nan(x, cast(|x|)) (not the Sign kernel), differentiated through those ops."""
    x = x if x.__class__ is EagerTensor else convert_to_tensor(x)
    if x.dtype.is_complex:
        return divide_no_nan(x, cast(execute("ComplexAbs", [x]), x.dtype))
    return execute("Sign", [x])


exp = _unary_function("Exp", "Elementwise e**x.")
log = _unary_function("Log", "Natural logarithm.")
log1p = _unary_function("Log1p", "log(1 + x), accurate near 0.")
expm1 = _unary_function("Expm1", "exp(x) - 1, accurate near 0.")
sqrt = _unary_function("Sqrt", "Square root.")
rsqrt = _unary_function("Rsqrt", "1 / sqrt(x).")
square = _unary_function("Square", "x * x.")
reciprocal = _unary_function("Reciprocal", "1 / x (TF's Reciprocal kernel).")
sin = _unary_function("Sin", "Sine.")
cos = _unary_function("Cos", "Cosine.")
tan = _unary_function("Tan", "Tangent.")
sinh = _unary_function("Sinh", "Hyperbolic sine.")
cosh = _unary_function("Cosh", "Hyperbolic cosine.")
tanh = _unary_function("Tanh", "Hyperbolic tangent.")
asinh = _unary_function("Asinh", "Inverse hyperbolic sine.")
atan = _unary_function("Atan", "Inverse tangent.")
asin = _unary_function("Asin", "Inverse sine.")
acos = _unary_function("Acos", "Inverse cosine.")
atanh = _unary_function("Atanh", "Inverse hyperbolic tangent.")
acosh = _unary_function("Acosh", "Inverse hyperbolic cosine.")
lgamma = _unary_function("Lgamma", "log|Gamma(x)|; its gradient is digamma.")
digamma = _unary_function("Digamma", "The derivative of lgamma; its gradient is polygamma(1, x).")
erf = _unary_function("Erf", "Error function.")
erfc = _unary_function("Erfc", "Complementary error function.")
floor = _unary_function("Floor", "Floor; not differentiable (gradient None).")
ceil = _unary_function("Ceil", "Ceiling; not differentiable (gradient None).")
rint = _unary_function("Rint", "Round half to even; not differentiable.")
is_finite = _unary_function("IsFinite", "Elementwise finiteness test (bool).")
is_nan = _unary_function("IsNan", "Elementwise NaN test (bool).")


def polygamma(a: Any, x: Any, name: str | None = None) -> EagerTensor:
    """The a-th derivative of digamma (a a non-negative integer, else NaN); no gradient for a."""
    return _binary("Polygamma", a, x)


def zeta(x: Any, q: Any, name: str | None = None) -> EagerTensor:
    """The Hurwitz zeta function; no gradient for x."""
    return _binary("Zeta", x, q)


def _each_part(function: Any, slices: IndexedSlices) -> IndexedSlices:
    """IndexedSlices with `function` applied to each part, as TF maps ops over composite tensors."""
    return IndexedSlices(*(None if part is None else function(part)
                           for part in (slices.values, slices.indices, slices.dense_shape)))


def identity(input: Any, name: str | None = None) -> Any:  # noqa: A002 - TF's name
    """Returns the input as a new tensor; the gradient passes through. IndexedSlices keep their form."""
    if isinstance(input, IndexedSlices):
        return _each_part(identity, input)
    return execute("Identity", [input if input.__class__ is EagerTensor else convert_to_tensor(input)])


def identity_n(input: Any, name: str | None = None) -> list[EagerTensor]:  # noqa: A002 - TF's name
    """A new tensor for each of `input`'s items (converted one by one), recorded as one op whose
    gradient passes each upstream gradient through."""
    tensors = [convert_to_tensor(item) for item in input]
    if not tensors:
        raise InvalidArgumentError("Length for attr 'T' of 0 must be at least minimum 1\n\t; NodeDef: {{node IdentityN}}; "
                                   "Op<name=IdentityN; signature=input: -> output:; attr=T:list(type),min=1> "
                                   "[Op:IdentityN] name: ")
    outputs = tuple(EagerTensor(t._value, t.dtype, t._flushed) for t in tensors)
    record_operation(REGISTRY["IdentityN"], tensors, outputs, {})
    return list(outputs)


def get_static_value(tensor: Any, partial: bool = False) -> Any:
    """An eager tensor's value as NumPy (a copy); None for a Variable or IndexedSlices, whose values TF
    does not fold; anything else as it is."""
    if isinstance(tensor, EagerTensor):
        return tensor.numpy()
    if isinstance(tensor, (Variable, IndexedSlices)):
        return None
    return tensor


def stop_gradient(input: Any, name: str | None = None) -> Any:  # noqa: A002 - TF's name
    """Returns the input; blocks gradients (None). TF runs the op with every tape paused, so a variable
    read for it is not watched; IndexedSlices keep their form, each part stopped."""
    if isinstance(input, IndexedSlices):
        return _each_part(stop_gradient, input)
    with suspended():
        return execute("StopGradient", [input if input.__class__ is EagerTensor else convert_to_tensor(input)])


def _bool_operand(x: Any, beside: Sequence[Any] = ()) -> EagerTensor:
    """The logical ops convert Python values as bools (TypeError for 1 or 0.5) and NumPy values by their
    truth (nonzero, NaN included; non-empty strings); tensors and Variables of another dtype reach the
    kernel, which refuses them, unless another argument (`beside`) sends the op to TF's Python fallback,
    whose conversion to bool refuses them first (ValueError)."""
    if isinstance(x, (EagerTensor, Variable)):
        if x.dtype != _dtypes.bool and any(_leaves_fast_path(v) for v in beside):
            return convert_to_tensor(x, dtype=_dtypes.bool)
        return convert_to_tensor(x)  # a Variable is read
    if isinstance(x, (np.ndarray, np.generic)):
        array = np.asarray(x)
        truth = np.vectorize(bool, otypes=[bool])(array) if array.dtype.kind in "OSU" else array.astype(bool)
        return convert_to_tensor(truth)
    return convert_to_tensor(x, dtype=_dtypes.bool)


def logical_not(x: Any, name: str | None = None) -> EagerTensor:
    """Elementwise not."""
    return _unary("LogicalNot", _bool_operand(x))


def logical_and(x: Any, y: Any, name: str | None = None) -> EagerTensor:
    return _binary("LogicalAnd", _bool_operand(x, [y]), _bool_operand(y, [x]))


def logical_or(x: Any, y: Any, name: str | None = None) -> EagerTensor:
    return _binary("LogicalOr", _bool_operand(x, [y]), _bool_operand(y, [x]))


def _complex_only(op: str, x: Any, refusal: str) -> EagerTensor:
    """`op` on a complex tensor; real and integer tensors are returned as they are, others refused
    with TF's TypeError (`refusal`, formatted with the dtype)."""
    x = convert_to_tensor(x)
    if x.dtype.is_complex:
        return execute(op, [x])
    if x.dtype.is_floating or x.dtype.is_integer:
        return x
    raise TypeError(refusal.format(dtype=x.dtype))


def conj(x: Any, name: str | None = None) -> EagerTensor:
    """Complex conjugate."""
    return _complex_only("Conj", x, "Expected numeric or variant tensor, got dtype {dtype!r}")


invert = _unary_function("Invert", "Elementwise bitwise not.")


def round(x: Any, name: str | None = None) -> EagerTensor:  # noqa: A001 - TF's name
    """Rounds half to even; integer tensors are returned unchanged."""
    x = convert_to_tensor(x)
    return x if x.dtype.is_integer else execute("Round", [x])


def conj_if_complex(x: EagerTensor) -> EagerTensor:
    return conj(x) if x.dtype.is_complex else x


def real(x: Any, name: str | None = None) -> EagerTensor:
    return _complex_only("Real", x, "input must be a numeric tensor, but got tensor with dtype {dtype}")


def imag(x: Any, name: str | None = None) -> EagerTensor:
    x = convert_to_tensor(x)
    return execute("Imag", [x]) if x.dtype.is_complex else zeros_like(x)


def complex(real: Any, imag: Any, name: str | None = None) -> EagerTensor:  # noqa: A001 - TF's name
    real, imag = convert_to_tensor(real), convert_to_tensor(imag)
    if real.dtype != imag.dtype or real.dtype not in (_dtypes.float32, _dtypes.float64):
        raise TypeError(f"The `real` and `imag` components have incorrect types: {real.dtype.name} "
                        f"{imag.dtype.name}. They must be consistent, and one of [tf.float32, tf.float64]")
    return execute("Complex", [real, imag])


def _is_half(dtype: Any) -> bool:
    """float16 or bfloat16: kernels compute them in float32, and the few whose rounding then differs
    from TF's take an attribute saying so."""
    return dtype is _dtypes.float16 or dtype is _dtypes.bfloat16


def squared_difference(x: Any, y: Any, name: str | None = None) -> EagerTensor:
    x, y = (x, y) if x.__class__ is EagerTensor and y.__class__ is EagerTensor else _matching([x, y], strict=True)
    if _is_half(x.dtype):  # x - y is rounded to it (kernels.elementwise._squared_difference)
        return execute("SquaredDifference", [x, y], half=x.dtype._numpy_dtype)
    return execute("SquaredDifference", [x, y])


def divide_no_nan(x: Any, y: Any, name: str | None = None) -> EagerTensor:
    return _true_division("DivNoNan", *_matching([x, y]), "tf.math.divide_no_nan")


def multiply_no_nan(x: Any, y: Any, name: str | None = None) -> EagerTensor:
    """x * y, and 0 where y is zero (whatever x is). TF converts y to x's dtype."""
    x = convert_to_tensor(x)
    try:
        y = convert_to_tensor(y, dtype=x.dtype)
    except ValueError as err:  # TF names the argument it was converting
        raise ValueError(f"y: {err}") from None
    return execute("MulNoNan", [x, y])


def xlogy(x: Any, y: Any, name: str | None = None) -> EagerTensor:
    return _binary("Xlogy", x, y)


def xdivy(x: Any, y: Any, name: str | None = None) -> EagerTensor:
    return _binary("Xdivy", x, y)


def xlog1py(x: Any, y: Any, name: str | None = None) -> EagerTensor:
    """x * log1p(y), and 0 where x is 0."""
    return _binary("Xlog1py", x, y)


def realdiv(x: Any, y: Any, name: str | None = None) -> EagerTensor:
    """`tf.realdiv`, the RealDiv op itself: operands converted strictly, integers not cast (no kernel)."""
    return _binary("RealDiv", x, y)


def atan2(y: Any, x: Any, name: str | None = None) -> EagerTensor:
    return _binary("Atan2", y, x)


def add_n(inputs: Sequence[Any], name: str | None = None) -> EagerTensor:
    if isinstance(inputs, (np.ndarray, Tensor, Variable)):  # TF sums the rows of one tensor or array
        inputs = list(inputs)
    if not inputs:
        raise ValueError("Inputs must be an iterable of at least one Tensor/IndexedSlices with the same dtype and shape.")
    tensors = [convert_to_tensor(t) for t in inputs]  # each alone: mixed dtypes fail in the op
    return tensors[0] if len(tensors) == 1 else execute("AddN", tensors)


def _binary_function(op: str, public_name: str) -> Any:
    """TF's two-operand function `public_name`, which runs kernel `op`: `_binary` without a call of its
    own (VJPs call these most)."""
    def function(x: Any, y: Any, name: str | None = None) -> EagerTensor:
        if x.__class__ is EagerTensor and y.__class__ is EagerTensor:  # nothing to convert
            return execute(op, [x, y])
        return execute(op, _matching([x, y], strict=True))

    function.__name__ = function.__qualname__ = public_name
    return function


subtract = _binary_function("Sub", "subtract")
multiply = _binary_function("Mul", "multiply")
maximum = _binary_function("Maximum", "maximum")
minimum = _binary_function("Minimum", "minimum")
equal = _binary_function("Equal", "equal")
not_equal = _binary_function("NotEqual", "not_equal")
less = _binary_function("Less", "less")
less_equal = _binary_function("LessEqual", "less_equal")
greater = _binary_function("Greater", "greater")
greater_equal = _binary_function("GreaterEqual", "greater_equal")
bitwise_and = _binary_function("BitwiseAnd", "bitwise_and")
bitwise_or = _binary_function("BitwiseOr", "bitwise_or")
bitwise_xor = _binary_function("BitwiseXor", "bitwise_xor")
left_shift = _binary_function("LeftShift", "left_shift")
right_shift = _binary_function("RightShift", "right_shift")


def logical_xor(x: Any, y: Any, name: str | None = None) -> EagerTensor:
    return logical_and(logical_or(x, y), logical_not(logical_and(x, y)))


def operator_equality(op: str, x: Any, y: Any) -> EagerTensor:
    """`Equal` or `NotEqual` as the `==` and `!=` operators run it (TF's incompatible_shape_error=False):
    operands whose shapes do not broadcast are simply unequal, one bool."""
    x, y = _matching([x, y], strict=True)
    if x.dtype != y.dtype:  # the kernel's dtype check comes before the shapes are compared
        return execute(op, [x, y])
    try:
        np.broadcast_shapes(x._value.shape, y._value.shape)
    except ValueError:
        return constant(op == "NotEqual")
    return execute(op, [x, y])


def cast(x: Any, dtype: Any, name: str | None = None) -> Any:
    """Casts to `dtype`; differentiable between floating/complex dtypes only."""
    dtype = _dtypes.as_dtype(dtype)
    if isinstance(x, IndexedSlices):
        return IndexedSlices(cast(x.values, dtype), x.indices, x.dense_shape)
    x = convert_to_tensor(x)
    return x if x.dtype == dtype else execute("Cast", [x], dtype=dtype, source=x.dtype)


def clip_by_value(t: Any, clip_value_min: Any, clip_value_max: Any, name: str | None = None) -> Any:
    """TF's composition: maximum(minimum(t, max), min); ties send the gradient to `t`. The bounds may
    not broadcast `t` to a larger shape; IndexedSlices have their values clipped."""
    values = convert_to_tensor(t.values if isinstance(t, IndexedSlices) else t)
    below_max = minimum(values, clip_value_max)
    values.shape.assert_is_compatible_with(below_max.shape)
    clipped = maximum(below_max, clip_value_min)
    values.shape.assert_is_compatible_with(clipped.shape)
    return IndexedSlices(clipped, t.indices, t.dense_shape) if isinstance(t, IndexedSlices) else clipped


def clip_by_norm(t: Any, clip_norm: Any, axes: Any = None, name: str | None = None) -> Any:
    """`t` scaled so that its L2 norm over `axes` is at most `clip_norm` (a negative bound counts as 0),
    composed as TF composes it; IndexedSlices have their values clipped."""
    values = convert_to_tensor(t.values if isinstance(t, IndexedSlices) else t)
    clipped = _clip_by_norm(values, clip_norm, axes)
    return IndexedSlices(clipped, t.indices, t.dense_shape) if isinstance(t, IndexedSlices) else clipped


def _tensor_list(t_list: Any) -> list:
    """TF's check of a list argument: any sequence but a string."""
    if not isinstance(t_list, collections.abc.Sequence) or isinstance(t_list, str):
        raise TypeError(f"`t_list` should be a sequence of tensors. Received {type(t_list)}.")
    return list(t_list)


def _values_of(t_list: list) -> list:
    """The tensors of a list (an IndexedSlices' values), Nones kept."""
    return [None if t is None else convert_to_tensor(t.values if isinstance(t, IndexedSlices) else t) for t in t_list]


def global_norm(t_list: Sequence[Any], name: str | None = None) -> EagerTensor:
    """sqrt(sum of the squared L2 norms) of the tensors in `t_list`, Nones ignored: as TF sums it,
    half squares (L2Loss) stacked, summed and doubled."""
    half_squared_norms = [l2_loss(v) for v in _values_of(_tensor_list(t_list)) if v is not None]
    half_squared_norm = reduce_sum(stack(half_squared_norms))
    return sqrt(half_squared_norm * constant(2.0, dtype=half_squared_norm.dtype))


def clip_by_global_norm(t_list: Sequence[Any], clip_norm: Any, use_norm: Any = None,
                        name: str | None = None) -> tuple[list, Any]:
    """(the tensors scaled by clip_norm / max(global_norm, clip_norm), the global norm); Nones stay None,
    IndexedSlices keep their indices. A non-finite norm makes every value NaN (TF adds norm - norm)."""
    t_list = _tensor_list(t_list)
    if use_norm is None:
        use_norm = global_norm(t_list)
    scale_for_finite = clip_norm * minimum(1.0 / use_norm, constant(1.0, dtype=use_norm.dtype) / clip_norm)
    scale = scale_for_finite + (use_norm - use_norm)
    clipped = [None if v is None else identity(v * cast(scale, v.dtype)) for v in _values_of(t_list)]
    return [IndexedSlices(c, t.indices, t.dense_shape) if isinstance(t, IndexedSlices) else c
            for c, t in zip(clipped, t_list)], use_norm


# ---------------------------------------------------------------------------------------------
# Reductions and scans


def _reduction(op: str, input_tensor: Any, axis: Any, keepdims: bool) -> EagerTensor:
    return execute(op, [convert_to_tensor(input_tensor)], axis=_axes(axis, [input_tensor]), keep_dims=bool(keepdims))


def _gradient_reads_shape(axis: Any, rank: int) -> bool:
    """Whether TF's Sum and Mean gradients read the input's shape through a Shape op, as they do in eager
    mode unless the reduction indices, as given (shape included), are [0, 1, ..., rank - 1], which
    axis=None stands for. Called once the axis has passed `_axes`."""
    if axis is None:
        return False
    if axis.__class__ is tuple and all(a.__class__ is int for a in axis):
        return axis != tuple(range(rank))
    return not np.array_equal(np.asarray(axis), np.arange(rank))


def reduce_sum(input_tensor: Any, axis: Any = None, keepdims: bool = False, name: str | None = None) -> EagerTensor:
    x = convert_to_tensor(input_tensor)  # T: half types reach the kernel as float32, and it adds in theirs
    axes = _axes(axis, [input_tensor])
    return execute("Sum", [x], axis=axes, keep_dims=bool(keepdims), T=x.dtype,
                   reads_shape=_gradient_reads_shape(axis, x._value.ndim))


def reduce_any(input_tensor: Any, axis: Any = None, keepdims: bool = False, name: str | None = None) -> EagerTensor:
    """Logical or over axes; the input converts as a bool, like the logical ops' operands."""
    return execute("Any", [_bool_operand(input_tensor, [axis])], axis=_axes(axis, [input_tensor]),
                   keep_dims=bool(keepdims))


def reduce_all(input_tensor: Any, axis: Any = None, keepdims: bool = False, name: str | None = None) -> EagerTensor:
    """Logical and over axes; the input converts as a bool, like the logical ops' operands."""
    return execute("All", [_bool_operand(input_tensor, [axis])], axis=_axes(axis, [input_tensor]),
                   keep_dims=bool(keepdims))


def reduce_mean(input_tensor: Any, axis: Any = None, keepdims: bool = False, name: str | None = None) -> EagerTensor:
    x = convert_to_tensor(input_tensor)
    axes = _axes(axis, [input_tensor])
    return execute("Mean", [x], axis=axes, keep_dims=bool(keepdims), T=x.dtype,
                   reads_shape=_gradient_reads_shape(axis, x._value.ndim))


def reduce_max(input_tensor: Any, axis: Any = None, keepdims: bool = False, name: str | None = None) -> EagerTensor:
    return _reduction("Max", input_tensor, axis, keepdims)


def reduce_min(input_tensor: Any, axis: Any = None, keepdims: bool = False, name: str | None = None) -> EagerTensor:
    return _reduction("Min", input_tensor, axis, keepdims)


def reduce_prod(input_tensor: Any, axis: Any = None, keepdims: bool = False, name: str | None = None) -> EagerTensor:
    return _reduction("Prod", input_tensor, axis, keepdims)


def reduce_logsumexp(input_tensor: Any, axis: Any = None, keepdims: bool = False, name: str | None = None) -> EagerTensor:
    """log(sum(exp(x))) shifted by a gradient-stopped finite maximum, as TF computes it."""
    x = convert_to_tensor(input_tensor)
    raw_max = reduce_max(x, axis=axis, keepdims=True)
    shift = stop_gradient(where(is_finite(raw_max), raw_max, zeros_like(raw_max)))
    result = log(reduce_sum(exp(subtract(x, shift)), axis=axis, keepdims=keepdims))
    if not keepdims:
        shift = reshape(shift, tuple(result.shape))
    return add(result, shift)


def reduce_variance(input_tensor: Any, axis: Any = None, keepdims: bool = False, name: str | None = None) -> EagerTensor:
    x = convert_to_tensor(input_tensor)
    if x.dtype.is_integer:
        raise TypeError(f"Input must be either real or complex. Received integer type {x.dtype}.")
    diff = x - reduce_mean(x, axis=axis, keepdims=True)
    if diff.dtype.is_complex:
        squared = execute("Real", [multiply(conj(diff), diff)])
    else:
        squared = square(diff)
    return reduce_mean(squared, axis=axis, keepdims=keepdims)


def reduce_std(input_tensor: Any, axis: Any = None, keepdims: bool = False, name: str | None = None) -> EagerTensor:
    return sqrt(reduce_variance(input_tensor, axis=axis, keepdims=keepdims))


def reduce_euclidean_norm(input_tensor: Any, axis: Any = None, keepdims: bool = False,
                          name: str | None = None) -> EagerTensor:
    x = convert_to_tensor(input_tensor)
    return execute("EuclideanNorm", [x], axis=_axes(axis, [input_tensor]), keep_dims=bool(keepdims), T=x.dtype)


def norm(tensor: Any, ord: Any = "euclidean", axis: Any = None, keepdims: Any = None,  # noqa: A002
         name: str | None = None) -> EagerTensor:
    """Vector norms (and the Frobenius norm over two axes), composed as TF composes them."""
    axes = _norm_axes(axis, ord)
    tensor = convert_to_tensor(tensor)
    if ord in ("fro", "euclidean", 2, 2.0) and not (axes is not None and len(axes) == 2 and ord in (2, 2.0)):
        result = sqrt(reduce_sum(multiply(tensor, conj(tensor)), axes, keepdims=True))
    elif axes is not None and len(axes) == 2 and ord in (1, np.inf):  # columns' (1) or rows' (inf) largest sum
        summed, largest = axes if ord == 1 else axes[::-1]
        result = reduce_max(reduce_sum(abs(tensor), summed, keepdims=True), largest, keepdims=True)
    elif axes is not None and len(axes) == 2:
        raise NotImplementedError(f"reftape has no matrix norm ord={ord!r} (TF's ord=2 takes an SVD)")
    elif ord == 1:
        result = reduce_sum(abs(tensor), axes, keepdims=True)
    elif ord == np.inf:
        result = reduce_max(abs(tensor), axes, keepdims=True)
    elif np.isreal(ord) and ord > 0:
        magnitude = abs(tensor)
        result = pow(reduce_sum(pow(magnitude, ord), axes, keepdims=True), 1.0 / ord)
    else:
        raise ValueError(f"'ord' must be a supported vector norm, got {ord}")
    return result if keepdims else squeeze(result, axes)


_MATRIX_NORMS = ["euclidean", "fro", 1, 2, np.inf]
_VECTOR_NORMS = ["euclidean", 1, 2, np.inf]


def _norm_axes(axis: Any, ord: Any) -> tuple | None:  # noqa: A002
    """norm's axis and ord, checked in Python before anything converts, as TF checks them: two
    distinct Python ints (a list or tuple) for a matrix norm, one int or None for a vector norm."""
    def wrong_axis(shown: Any) -> ValueError:  # TF shows a list as the tuple it made of it
        return ValueError(f"'axis' must be None, an integer, or a tuple of 2 unique integers, got {shown}")

    if isinstance(axis, (tuple, list)) and len(axis) == 2:
        axis = tuple(axis)
        if not isinstance(axis[0], int) or not isinstance(axis[1], int) or axis[0] == axis[1]:
            raise wrong_axis(axis)
        if ord not in _MATRIX_NORMS:
            raise ValueError(f"'ord' must be a supported matrix norm in {_MATRIX_NORMS}, got {ord}")
        return axis
    if not (isinstance(axis, int) or axis is None):
        raise wrong_axis(axis)
    if (not np.isreal(ord) or ord <= 0) and ord not in _VECTOR_NORMS:
        raise ValueError(f"'ord' must be a supported vector norm, got {ord}")
    return None if axis is None else (axis,)


def l2_normalize(x: Any, axis: Any = None, epsilon: float = 1e-12, name: str | None = None,
                 dim: Any = None) -> EagerTensor:
    """x / sqrt(max(sum(x**2), epsilon)) along `axis`."""
    if axis is not None and dim is not None:  # TF's deprecated_argument_lookup
        raise ValueError("Cannot specify both 'dim' and 'axis'.")
    x = convert_to_tensor(x)
    axis = dim if axis is None else axis
    if x.dtype.is_complex:
        square_sum = real(reduce_sum(add(square(real(x)), square(imag(x))), axis, keepdims=True))
        x_inv_norm = rsqrt(maximum(square_sum, epsilon))
        return complex(multiply(real(x), x_inv_norm), multiply(imag(x), x_inv_norm))
    square_sum = reduce_sum(square(x), axis, keepdims=True)
    return multiply(x, rsqrt(maximum(square_sum, epsilon)))


def _scan(op: str, x: Any, axis: Any, exclusive: bool, reverse: bool) -> EagerTensor:
    if axis is None:
        convert_to_tensor(axis)  # TF converts the axis: ValueError
    axis = _axis_argument(axis, "Tidx")
    if np.ndim(axis):
        raise InvalidArgumentError(f"ScanOp: axis must be a scalar, not {dims_text(np.shape(axis))} [Op:{op}]")
    return _unary(op, x, axis=int(axis), exclusive=bool(exclusive), reverse=bool(reverse))


def cumsum(x: Any, axis: int = 0, exclusive: bool = False, reverse: bool = False, name: str | None = None) -> EagerTensor:
    return _scan("Cumsum", x, axis, exclusive, reverse)


def cumprod(x: Any, axis: int = 0, exclusive: bool = False, reverse: bool = False, name: str | None = None) -> EagerTensor:
    return _scan("Cumprod", x, axis, exclusive, reverse)


def cumulative_logsumexp(x: Any, axis: int = 0, exclusive: bool = False, reverse: bool = False,
                         name: str | None = None) -> EagerTensor:
    return _scan("CumulativeLogsumexp", x, axis, exclusive, reverse)


_ARG_AXIS_DTYPES = frozenset({"int8", "uint8", "int16", "uint16", "int32", "int64"})


def _arg_axis(axis: Any) -> int:
    """argmax's and argmin's axis, checked in Python as TF checks it: a Python int, or a tensor of a
    small integer dtype (NumPy values, whose dtypes are no TF DTypes, are refused)."""
    if axis is None:
        return 0
    dtype = getattr(axis, "dtype", None)
    if dtype is not None and not (isinstance(dtype, _dtypes.DType) and dtype.name in _ARG_AXIS_DTYPES):
        raise TypeError(f"axis tensor dtypes {dtype} is not supported")
    if dtype is None and not isinstance(axis, int):
        raise TypeError("axis must be int or Tensor with integer datatype")
    if np.ndim(axis):
        raise InvalidArgumentError(f"dim must be a scalar, but received tensor of shape: {dims_text(np.shape(axis))}")
    return int(axis)


def argmax(input: Any, axis: Any = None, output_type: Any = _dtypes.int64, name: str | None = None) -> EagerTensor:  # noqa: A002
    return _unary("ArgMax", input, axis=_arg_axis(axis), output_type=_arg_output_type("ArgMax", output_type))


def argmin(input: Any, axis: Any = None, output_type: Any = _dtypes.int64, name: str | None = None) -> EagerTensor:  # noqa: A002
    """TF's argmin makes no Python check of its axis (argmax's): the op converts it as its Tidx."""
    axis = np.asarray(_axis_argument(0 if axis is None else axis, "Tidx", [input]))
    if axis.ndim:
        raise InvalidArgumentError(f"dim must be a scalar, but received tensor of shape: {dims_text(axis.shape)}")
    return _unary("ArgMin", input, axis=int(axis), output_type=_arg_output_type("ArgMin", output_type))


# The index dtypes TF's ArgMax and ArgMin allow (ArgMax has kernels for 16-bit indices too)
_ARG_OUTPUT_TYPES = {"ArgMax": ("int16", "uint16", "int32", "int64"), "ArgMin": ("int32", "int64")}


def _arg_output_type(op: str, output_type: Any) -> _dtypes.DType:
    output_type = _dtypes.as_dtype(output_type)
    allowed = _ARG_OUTPUT_TYPES[op]
    if output_type.name not in allowed:
        raise InvalidArgumentError(f"Value for attr 'output_type' of {output_type.kernel_name} is not in the list of "
                                   f"allowed values: {', '.join(allowed)} [Op:{op}] name: ")
    return output_type


# ---------------------------------------------------------------------------------------------
# Shapes and structure


def reshape(tensor: Any, shape: Any, name: str | None = None) -> EagerTensor:
    if isinstance(tensor, IndexedSlices):
        tensor = convert_to_tensor(tensor)
    return _unary("Reshape", tensor, shape=_dims(shape, "Reshape"))


def transpose(a: Any, perm: Any = None, conjugate: bool = False, name: str | None = None) -> EagerTensor:
    a = convert_to_tensor(a)
    perm = tuple(reversed(range(a.ndim))) if perm is None else \
        tuple(int(p) for p in _index_values(perm, "Tperm", _INT32_OR_64, default=_dtypes.int32).reshape(-1))
    result = execute("Transpose", [a], perm=perm)
    return conj(result) if conjugate and a.dtype.is_complex else result


def expand_dims(input: Any, axis: int, name: str | None = None) -> EagerTensor:  # noqa: A002
    axis = np.asarray(_axis_argument(axis, "Tdim", [input]))
    if axis.size != 1:
        raise InvalidArgumentError("'dim' must be a tensor with a single value [Op:ExpandDims]")
    return _unary("ExpandDims", input, axis=int(axis.reshape(-1)[0]))


def squeeze(input: Any, axis: Any = None, name: str | None = None) -> EagerTensor:  # noqa: A002
    return _unary("Squeeze", input, axis=_squeeze_axes(axis))


def _squeeze_axes(axis: Any) -> tuple | None:
    """squeeze's axis as TF passes it to the op: a scalar made a list, a list's items read as int attributes;
    a tensor or array is no list (TF's fast path fails allocating for a 0-d one: std::bad_alloc)."""
    if axis is None or isinstance(axis, (list, tuple)) and not axis:  # no axes: every axis of size 1
        return None
    if np.isscalar(axis):
        axis = [axis]
    if not isinstance(axis, (list, tuple)):
        if (_is_tensor_like(axis) or isinstance(axis, np.ndarray)) and np.ndim(axis) == 0:
            raise MemoryError("std::bad_alloc")
        raise TypeError(f"Expected list for 'axis' argument to 'squeeze' Op, not {axis!r}.")
    return tuple(_int_attribute(a, "axis") for a in axis)


def _int_attribute(value: Any, argument: str) -> int:
    """An int attribute as TF's eager fast path reads it: numbers truncated toward zero (bools as 0 and 1),
    0-d tensors and arrays by their value, anything else TF's TypeError."""
    if (_is_tensor_like(value) or isinstance(value, np.ndarray)) and np.ndim(value) == 0:
        value = np.asarray(convert_to_tensor(value)._value).item()
    if isinstance(value, (int, float, np.integer, np.floating)):
        return int(value)
    raise TypeError(f"Expected int for argument '{argument}' not {value!r}.")


def concat(values: Sequence[Any], axis: int, name: str | None = None) -> Any:
    """Joins tensors along `axis`; one value (IndexedSlices too) comes back as its identity, as in TF."""
    if not isinstance(values, (list, tuple)):
        values = [values]
    if len(values) == 1:  # TF checks the axis it then ignores: an int32 scalar
        axis_shape = _named_conversion(axis, _dtypes.int32, "concat_dim").shape
        if axis_shape.ndims != 0:
            raise ValueError(f"Shape {axis_shape} must have rank 0")
        return identity(values[0])
    tensors = _matching(list(values), strict=True)
    axis = np.asarray(_axis_argument(axis, "Tidx", values))
    if axis.size != 1 or axis.ndim > 1:
        raise InvalidArgumentError(f"axis tensor should be a scalar integer, but got shape {dims_text(axis.shape)} "
                                   f"[Op:ConcatV2] name: concat")
    return execute("ConcatV2", tensors, axis=int(axis.reshape(-1)[0]))


def stack(values: Sequence[Any], axis: int = 0, name: str | None = None) -> EagerTensor:
    """Along axis 0, TF converts the values as one tensor first (a list holding tensors is packed, a
    tensor is itself); otherwise, or where that conversion fails, it packs them as Pack's arguments."""
    if axis == 0:
        try:
            return convert_to_tensor(values)
        except (TypeError, ValueError):
            pass
    _check_axis_argument(int(axis), convert_to_tensor(values[0])._value.ndim + 1)
    if _is_tensor_like(axis) and not isinstance(values, (list, tuple)):  # TF's slow path, for a tensor axis
        raise TypeError(f"Expected list for 'values' argument to 'pack' Op, not {values!r}.")
    if isinstance(values, np.ndarray) and values.ndim >= 2:  # TF's fast path takes tensors, not such arrays
        raise ValueError(f"expected a sequence for attr N, got an ndarray with rank {values.ndim} instead")
    return execute("Pack", _matching(list(values), strict=True), axis=int(axis))  # a tensor: its rows


def _check_axis_argument(axis: int, rank: int) -> None:
    """TF's Python check of stack's and unstack's axis (stack's rank counts the new dimension)."""
    if not -rank <= axis < rank:
        raise ValueError(f"Argument `axis` = {axis} not in range [{-rank}, {rank})")


def unstack(value: Any, num: int | None = None, axis: int = 0, name: str | None = None) -> list[EagerTensor]:
    """The slices along `axis`; a given `num` is checked by the op (against the axis' size), None read from
    the shape after TF's Python check of the axis."""
    value = convert_to_tensor(value)
    if num is None:
        _check_axis_argument(int(axis), value._value.ndim)
        num = list(value._value.shape)[axis]  # TF indexes a list of dimensions: a float axis is a TypeError
    count = _int_attribute(num, "num")
    if count < 0:
        raise InvalidArgumentError(f"Value for attr 'num' of {count} must be at least minimum 0\n\t; NodeDef: "
                                   f"{{{{node Unpack}}}} [Op:Unpack]")
    if count == 0:  # an op without outputs: TF runs no kernel, so nothing is checked
        return []
    return list(execute("Unpack", [value], num=count, axis=_int_attribute(axis, "axis")))


def split(value: Any, num_or_size_splits: Any, axis: int = 0, num: int | None = None,
          name: str | None = None) -> list[EagerTensor]:
    """Split for a Python or NumPy integer, else SplitV of the sizes as one tensor (not of rank 0: TF's
    ValueError), whose dtype must be int8, int32 or int64; the axis is an int32 input of either op."""
    by_count = isinstance(num_or_size_splits, (numbers.Integral, np.integer))
    if not by_count:
        sizes_tensor = convert_to_tensor(num_or_size_splits)
        if sizes_tensor.ndim == 0:
            raise ValueError(f"Rank-0 tensors are not supported as the num_or_size_splits argument to split. "
                             "Argument provided: %s" % (num_or_size_splits,))
        if sizes_tensor.dtype not in (_dtypes.int8, _dtypes.int32, _dtypes.int64):
            raise InvalidArgumentError(f"Value for attr 'Tlen' of {sizes_tensor.dtype.kernel_name} is not in the list of "
                                       "allowed values: int8, int32, int64\n\t; NodeDef: {{node SplitV}} [Op:SplitV]")
        count = sizes_tensor.shape[0] if num is None else _int_attribute(num, "num")
        if sizes_tensor.ndim != 1 or sizes_tensor._value.size != count:
            raise InvalidArgumentError(f"size of the split_tensor must be 1-D and have the same elements as outputs got "
                                       f"{sizes_tensor.ndim} -D and {sizes_tensor._value.size} elements [Op:SplitV]")
    value = convert_to_tensor(value)
    axis = _int32_input(axis, "Split" if by_count else "SplitV", 0 if by_count else 2)
    rank = value._value.ndim
    if not -rank <= axis < rank:
        raise InvalidArgumentError(f"-input rank(-{rank}) <= split_dim < input rank ({rank}), but got {axis} "
                                   f"[Op:{'Split' if by_count else 'SplitV'}] name: split")
    if by_count:
        parts = int(num_or_size_splits)
        if value.shape[axis] % parts:
            raise InvalidArgumentError(f"Number of ways to split should evenly divide the split dimension, but got "
                                       f"split_dim {axis} (size = {value.shape[axis]}) and num_split {parts} [Op:Split]")
        sizes = (value.shape[axis] // parts,) * parts
    else:
        sizes = _split_sizes(tuple(int(s) for s in sizes_tensor._value.reshape(-1)), value.shape[axis])
    return list(execute("SplitV", [value], size_splits=sizes, axis=axis))


def _int32_input(value: Any, op: str, index: int) -> int:
    """An op's int32 input (no type attribute): a Python value converts to int32 (a float is TF's
    TypeError), a tensor or Variable of another dtype is refused by the op."""
    if _is_tensor_like(value):
        if value.dtype != _dtypes.int32:
            raise InvalidArgumentError(f"cannot compute {op} as input #{index}(zero-based) was expected to be a int32 "
                                       f"tensor but is a {value.dtype.kernel_name} tensor [Op:{op}] name: split")
        return int(convert_to_tensor(value)._value)
    return int(convert_to_tensor(value, dtype=_dtypes.int32)._value)


def _split_sizes(sizes: tuple, dimension: int) -> tuple:
    """SplitV's sizes with its one -1 resolved, checked as TF's kernel checks them."""
    from .errors import InvalidArgumentError

    if sizes.count(-1) > 1:
        raise InvalidArgumentError("There can only be one -1 in the input. [Op:SplitV] name: split")
    known = builtins.sum(s for s in sizes if s != -1)
    if known > dimension if -1 in sizes else known != dimension:
        raise InvalidArgumentError(
            "Determined shape must either match input shape along split_dim exactly if fully specified, or be less "
            f"than the size of the input along split_dim if not fully specified.  Got: {known} [Op:SplitV] name: split")
    return tuple(dimension - known if s == -1 else s for s in sizes)


def tile(input: Any, multiples: Any, name: str | None = None) -> EagerTensor:  # noqa: A002
    tensor, multiples = convert_to_tensor(input), _dims(multiples, "Tile")
    if len(multiples) != tensor._value.ndim:
        raise InvalidArgumentError(f"Expected multiples argument to be a vector of length {tensor._value.ndim} "
                                   f"but got length {len(multiples)} [Op:Tile]")
    return execute("Tile", [tensor], multiples=multiples)


def broadcast_to(input: Any, shape: Any, name: str | None = None) -> EagerTensor:  # noqa: A002
    return _unary("BroadcastTo", input, shape=_dims(shape, "BroadcastTo"))


def gather(params: Any, indices: Any, validate_indices: Any = None, axis: Any = None, batch_dims: int = 0,
           name: str | None = None) -> EagerTensor:
    """Gathers slices along `axis` (by default `batch_dims`), per batch of the leading `batch_dims`
    dimensions. As in TF, an axis of 0 drops batch_dims, and then the gradient is IndexedSlices
    (catalog entry 35); the axis and batch_dims reach the kernel as given, negative ones included."""
    params = convert_to_tensor(params)
    index_array = _index_values(indices, "Tindices", ("int16",) + _INT32_OR_64)
    axis = _gather_axis(batch_dims if axis is None else axis)
    return execute("GatherV2", [params], indices=index_array, axis=axis,
                   batch_dims=0 if axis == 0 else int(batch_dims))


def _gather_axis(axis: Any) -> int:
    """GatherV2's axis input: a scalar int32 or int64 tensor (TF converts a bool or float and then refuses it)."""
    value = np.asarray(axis._value if isinstance(axis, EagerTensor) else axis)
    if value.dtype.kind not in "iu":
        name = {"b": "bool", "f": "float"}.get(value.dtype.kind, value.dtype.name)
        raise InvalidArgumentError(f"Value for attr 'Taxis' of {name} is not in the list of allowed values: "
                                   "int32, int64")
    if value.ndim:
        raise InvalidArgumentError("axis must be scalar [Op:GatherV2] name: ")
    return int(value)


def slice(input_: Any, begin: Any, size: Any, name: str | None = None) -> EagerTensor:  # noqa: A001 - TF's name
    """`size[i]` elements from `begin[i]` along each axis (-1: to the end); the gradient pads the upstream
    back with zeros."""
    tensor = convert_to_tensor(input_)
    begin, size = _index_pair(begin, size, "Slice")
    dims = tensor.shape.as_list()
    if begin.ndim != 1 or size.ndim != 1 or begin.size != len(dims) or size.size != len(dims):
        raise InvalidArgumentError(f"Expected begin and size arguments to be 1-D tensors of size {len(dims)}, but got "
                                   f"shapes {dims_text(begin.shape)} and {dims_text(size.shape)} instead. [Op:Slice]")
    resolved = np.where(size == -1, np.array(dims, begin.dtype) - begin, size).astype(begin.dtype)
    for i, (b, n, d) in enumerate(zip(begin, resolved, dims)):
        if not 0 <= b <= d:
            raise InvalidArgumentError(f"Expected begin[{i}] in [0, {d}], but got {b} [Op:Slice]")
        if not 0 <= n <= d - b:
            raise InvalidArgumentError(f"Expected size[{i}] in [0, {d - b}], but got {size[i]} [Op:Slice]")
    return execute("Slice", [tensor], begin=begin, size=resolved)


def _index_pair(first: Any, second: Any, op: str) -> tuple[np.ndarray, np.ndarray]:
    """Two index arguments of one type attribute, converted as TF's op wrappers convert them: a Python
    value takes the dtype of a tensor beside it; two tensors must agree."""
    if _is_tensor_like(first) and not _is_tensor_like(second):
        second = convert_to_tensor(second, dtype=first.dtype)
    elif _is_tensor_like(second) and not _is_tensor_like(first):
        first = convert_to_tensor(first, dtype=second.dtype)
    elif not _is_tensor_like(first) and (_leaves_fast_path(first) or _leaves_fast_path(second)):  # TF's fallback: in order
        first = convert_to_tensor(first)
        second = convert_to_tensor(second, dtype=first.dtype)
    first, second = (_index_values(v, "Index", _INT32_OR_64) for v in (first, second))  # []: float32, refused
    if first.dtype != second.dtype:
        raise InvalidArgumentError(f"cannot compute {op} as input #2(zero-based) was expected to be a "
                                   f"{first.dtype.name} tensor but is a {second.dtype.name} tensor [Op:{op}]")
    return first, second


TopKV2 = collections.namedtuple("TopKV2", ["values", "indices"])


def top_k(input: Any, k: Any = 1, sorted: bool = True, index_type: Any = _dtypes.int32,  # noqa: A002 - TF's names
          name: str | None = None) -> TopKV2:
    """The k largest entries of the last axis, descending, ties in index order, with their indices (with
    sorted=False, or NaNs in a row, in the order TF's kernel leaves them); the gradient scatters the
    values' upstream back."""
    x = convert_to_tensor(input)
    count = _index_values(k, "Tk", ("int16",) + _INT32_OR_64)
    index_type = _dtypes.as_dtype(index_type)
    if index_type.name not in ("int16", "int32", "int64"):
        raise InvalidArgumentError(f"Value for attr 'index_type' of {index_type.name} is not in the list of allowed "
                                   "values: int16, int32, int64")
    if count.ndim:
        raise InvalidArgumentError(f"k must be scalar, got shape {dims_text(count.shape)} [Op:TopKV2]")
    values, indices = execute("TopKV2", [x], k=int(count), sorted=bool(sorted), index_type=index_type.as_numpy_dtype)
    return TopKV2(values, indices)


_SORT_DIRECTIONS = ("ASCENDING", "DESCENDING")


def sort(values: Any, axis: Any = -1, direction: str = "ASCENDING", name: str | None = None) -> EagerTensor:
    """Sorted along `axis`, as TF composes it: top_k of the values (negated for ASCENDING), transposed so
    that `axis` is last; the gradient goes back through those ops."""
    return _sort_or_argsort(values, axis, direction, indices=False)


def argsort(values: Any, axis: Any = -1, direction: str = "ASCENDING", stable: bool = False,
            name: str | None = None) -> EagerTensor:
    """The indices (int32) that sort `values` along `axis`; always stable, as TF's."""
    return _sort_or_argsort(values, axis, direction, indices=True)


def _sort_or_argsort(values: Any, axis: Any, direction: Any, indices: bool) -> EagerTensor:
    if direction not in _SORT_DIRECTIONS:
        raise ValueError(f"Argument `direction` should be one of {', '.join(_SORT_DIRECTIONS)}. Received: "
                         f"direction={direction}")
    axis_tensor = convert_to_tensor(axis)
    if axis_tensor.ndim:
        raise ValueError(f"Argument `axis` must be a constant scalar. Received: axis={axis_tensor}.")
    values = convert_to_tensor(values)
    if direction == "DESCENDING":
        return _descending_sort(values, int(axis_tensor._value), indices)
    dtype = values.dtype
    if dtype == _dtypes.uint8:  # TF's order-reversing maps: max - x, -x - 1 (integers, no overflow), -x
        result = _descending_sort(subtract(dtype.max, values), int(axis_tensor._value), indices)
        return result if indices else subtract(dtype.max, result)
    if dtype.is_integer:
        result = _descending_sort(subtract(negative(values), 1), int(axis_tensor._value), indices)
        return result if indices else subtract(negative(result), 1)
    result = _descending_sort(negative(values), int(axis_tensor._value), indices)
    return result if indices else negative(result)


def _descending_sort(values: EagerTensor, axis: int, indices: bool) -> EagerTensor:
    rank = values.ndim
    if not -rank <= axis < rank:  # TF reads the size as shape(values)[axis]
        raise InvalidArgumentError(f"slice index {axis} of dimension 0 out of bounds. [Op:StridedSlice] name: ")
    count = values.shape[axis]
    perm = None
    if axis != -1 and axis + 1 != rank:
        axis += rank if axis < 0 else 0
        perm = list(builtins.range(axis)) + [rank - 1] + list(builtins.range(axis + 1, rank - 1)) + [axis]
        values = transpose(values, perm)
    result = top_k(values, count)[1 if indices else 0]
    return result if perm is None else transpose(result, perm)


def gather_nd(params: Any, indices: Any, batch_dims: int = 0, name: str | None = None,
              bad_indices_policy: str = "") -> EagerTensor:
    """The slices of `params` at each row of `indices`' last axis. The gradient is IndexedSlices for
    indices of shape [n, 1], else the upstream scattered back (dense). With batch_dims, TF's composite."""
    batch_dims = int(np.asarray(convert_to_tensor(batch_dims)._value))  # TF reads its constant value
    if batch_dims != 0:
        return _batch_gather_nd(params, indices, batch_dims)
    params = convert_to_tensor(params)
    return execute("GatherNd", [params], indices=_index_values(indices, "Tindices", ("int16",) + _INT32_OR_64))


def _batch_gather_nd(params: Any, indices: Any, batch_dims: int) -> EagerTensor:
    """gather_nd with leading batch dimensions, composed as TF composes it: each index row prefixed with
    its batch coordinates (a grid of them, tiled over the indices' inner dimensions), one GatherNd over
    the flattened batch, reshaped back; the index arithmetic's checks are TF's ops' own."""
    indices, params = convert_to_tensor(indices), convert_to_tensor(params)
    if batch_dims < 0:
        raise ValueError("tf.gather_nd does not allow negative batch_dims.")
    if batch_dims >= indices.ndim:
        raise ValueError(f"Argument `batch_dims` = {batch_dims} must be less than rank(`indices`) = {indices.ndim}")
    if batch_dims >= params.ndim:
        raise ValueError(f"Argument `batch_dims` = {batch_dims} must be less than rank(`params`) = {params.ndim}")
    batch_shape = shape(params)[:batch_dims]
    indices_shape = shape(indices)
    coordinates = [cast(range(0, cast(size_, _dtypes.int32), 1), indices.dtype) for size_ in unstack(batch_shape, axis=0)]
    grid = transpose(stack([reshape(x, (-1,)) for x in meshgrid(*coordinates, indexing="ij")], axis=0))
    grid_shape = shape(grid)
    inner_ranks = indices.ndim - batch_dims - 1
    grid = reshape(grid, concat([grid_shape[:1], ones(inner_ranks, dtype=grid_shape.dtype), grid_shape[1:]], axis=0))
    grid = tile(grid, concat(((1,), indices_shape[batch_dims:-1], (1,)), axis=0))
    flat_indices = reshape(indices, concat(([reduce_prod(batch_shape, [0])], indices_shape[batch_dims:]), axis=0))
    gathered = gather_nd(params, concat((grid, flat_indices), axis=-1))
    return reshape(gathered, concat((batch_shape, shape(gathered)[1:]), axis=0))


def scatter_nd(indices: Any, updates: Any, shape: Any, bad_indices_policy: str = "", name: str | None = None) -> EagerTensor:
    """Zeros of `shape` with `updates` summed in at `indices` (repeated indices add up, in the dtype);
    the gradient gathers the upstream back."""
    index_array = _index_values(indices, "Tindices", ("int16",) + _INT32_OR_64)
    updates = convert_to_tensor(updates)
    dims = convert_to_tensor(shape, dtype=_dtypes.as_dtype(index_array.dtype))._value
    if index_array.dtype == np.int16:
        raise NotFoundError(f"Could not find device for node: {{{{node ScatterNd}}}} = ScatterNd[T=DT_"
                            f"{updates.dtype.kernel_name.upper()}, Tindices=DT_INT16] [Op:ScatterNd]")
    if dims.ndim != 1:
        raise InvalidArgumentError(f"Shape must be a vector, got shape {dims_text(dims.shape)} [Op:ScatterNd]")
    return execute("ScatterNd", [updates], indices=index_array, shape=tuple(int(d) for d in dims))


def _tensor_scatter(op: str, tensor: Any, indices: Any, updates: Any, index_dtypes: tuple) -> EagerTensor:
    index_array = _index_values(indices, "Tindices", index_dtypes)
    tensor, updates = _matching([tensor, updates], strict=True, beside=[indices])
    if index_array.dtype == np.int16:  # declared, without a kernel
        raise NotFoundError(f"Could not find device for node: {{{{node {op}}}}} = {op}[T=DT_"
                            f"{tensor.dtype.kernel_name.upper()}, Tindices=DT_INT16] [Op:{op}]")
    return execute(op, [tensor, updates], indices=index_array)


def tensor_scatter_nd_update(tensor: Any, indices: Any, updates: Any, name: str | None = None) -> EagerTensor:
    """`tensor` with the slices at `indices` replaced by `updates` (of a repeated index, the last)."""
    return _tensor_scatter("TensorScatterUpdate", tensor, indices, updates, ("int16",) + _INT32_OR_64 + ("uint16",))


def tensor_scatter_nd_add(tensor: Any, indices: Any, updates: Any, bad_indices_policy: str = "",
                          name: str | None = None) -> EagerTensor:
    """`tensor` with `updates` added in at `indices`, in the dtype, in order."""
    return _tensor_scatter("TensorScatterAdd", tensor, indices, updates, _INT32_OR_64)


def _index_values(value: Any, attr: str, allowed: tuple[str, ...], default: Any = None) -> np.ndarray:
    """An index argument (ids, segment ids, labels, paddings, axes) converted as TF converts it (an empty
    list to the attribute's `default` dtype, where it has one), and refused by the op as TF refuses a
    dtype outside the attribute's list."""
    empty = default is not None and isinstance(value, (list, tuple)) and np.size(value) == 0
    tensor = convert_to_tensor(value, default if empty else None)
    if tensor.dtype.kernel_name not in allowed:
        raise InvalidArgumentError(f"Value for attr '{attr}' of {tensor.dtype.kernel_name} is not in the list of "
                                   f"allowed values: {', '.join(allowed)}")
    return tensor._value


_INT32_OR_64 = ("int32", "int64")


def embedding_lookup(params: Any, ids: Any, max_norm: Any = None, name: str | None = None) -> Any:
    """The rows of `params` at `ids` (a gather along axis 0, so a Variable's gradient is IndexedSlices),
    each clipped to an L2 norm of `max_norm` if given. One tensor of params only: TF's partitioned
    lookup over a list of several is not implemented."""
    if params is None:
        raise ValueError("params must be specified")
    if isinstance(params, (list, tuple)):
        if not params:
            raise ValueError("Length of params is currently 0. Need at least one param.")
        if len(params) > 1:
            raise NotImplementedError("reftape's embedding_lookup takes one tensor of params, not a partitioned list")
        params = params[0]
    ids = convert_to_tensor(ids)
    _index_values(ids, "Tindices", ("int16",) + _INT32_OR_64)
    result = gather(params, ids)
    if max_norm is not None:
        result = _clip_by_norm(result, max_norm, list(builtins.range(ids.ndim, result.ndim)))
    return identity(result)


def _clip_by_norm(values: EagerTensor, clip_norm: Any, axes: list) -> EagerTensor:
    """TF's clip_by_norm, composed as TF composes it, op for op (the selects keep the gradient at a zero norm
    finite); the ops a tape records, and their order, decide the order of IndexedSlices' parts."""
    if np.isscalar(clip_norm):
        clip_norm = builtins.max(clip_norm, 0)
    else:
        clip_norm = cast(maximum(clip_norm, 0), values.dtype)
    l2sum = reduce_sum(multiply(values, values), axes, keepdims=True)
    positive = greater(l2sum, 0)
    safe = _select(positive, l2sum, ones(shape(l2sum), l2sum.dtype))  # TF's v1 ones_like: a Shape op, fresh ones
    l2norm = _select(positive, sqrt(safe), l2sum)
    intermediate = multiply(values, clip_norm)
    values.shape.assert_is_compatible_with(intermediate.shape)  # a clip_norm may not broadcast the values
    return identity(truediv(intermediate, maximum(l2norm, clip_norm)))


def _select(condition: EagerTensor, x: EagerTensor, y: EagerTensor) -> EagerTensor:
    """TF's v1 `where` (the Select op, which TF's own composites still call): no broadcasting."""
    return execute("Select", [x, y], condition=condition)


_PAD_MODES = ("CONSTANT", "REFLECT", "SYMMETRIC")


def pad(tensor: Any, paddings: Any, mode: str = "CONSTANT", constant_values: Any = 0,
        name: str | None = None) -> EagerTensor:
    """Pads each dimension by paddings[d] = [before, after]: with `constant_values`, or mirrored
    (REFLECT leaves the edge out, SYMMETRIC repeats it). The gradient slices the upstream back."""
    mode = mode.upper()
    if mode not in _PAD_MODES:
        raise ValueError('Value of argument `mode` expected to be one of "CONSTANT", "REFLECT", or "SYMMETRIC". '
                         f"Received `mode` = {mode}")
    tensor = convert_to_tensor(tensor)
    padding_array = _index_values(paddings, "Tpaddings", _INT32_OR_64, default=_dtypes.int32)
    if mode != "CONSTANT":
        return execute("MirrorPad", [tensor], paddings=padding_array, mode=mode)
    if not _is_tensor_like(constant_values) and np.ndim(constant_values) == 0 and constant_values == 0:
        return execute("Pad", [tensor], paddings=padding_array, constant=None)  # TF's Pad op: zeros (b'' for strings)
    value = _matching([tensor, constant_values], strict=True)[1]
    if value.dtype != tensor.dtype:
        raise InvalidArgumentError(f"cannot compute PadV2 as input #2(zero-based) was expected to be a "
                                   f"{tensor.dtype.kernel_name} tensor but is a {value.dtype.kernel_name} tensor [Op:PadV2]")
    if value.ndim:
        raise InvalidArgumentError(f"constant_values must be a scalar. Found: {dims_text(value.shape)} [Op:PadV2]")
    return execute("Pad", [tensor], paddings=padding_array, constant=value._value)


def reverse(tensor: Any, axis: Any, name: str | None = None) -> EagerTensor:
    """Reverses the given axes (ReverseV2); the gradient reverses the upstream along them."""
    tensor = convert_to_tensor(tensor)
    axes = _index_values(axis, "Tidx", _INT32_OR_64, default=_dtypes.int32)
    if tensor.ndim == 0 or not tensor._value.size:  # TF's kernel returns these as they are, whatever the axes
        return execute("Identity", [tensor])
    if axes.ndim != 1:
        raise InvalidArgumentError(f"'dims' must be 1-dimension, not {axes.ndim} [Op:ReverseV2] name: ")
    return execute("ReverseV2", [tensor], axis=tuple(int(a) for a in axes))


def one_hot(indices: Any, depth: Any, on_value: Any = None, off_value: Any = None, axis: Any = None,
            dtype: Any = None, name: str | None = None) -> EagerTensor:
    """`on_value` where an index names the position along the new axis, `off_value` elsewhere (indices
    outside [0, depth) are off everywhere). Recorded by TF with no gradient for any input."""
    dtype = None if dtype is None else _dtypes.as_dtype(dtype)
    on = None if on_value is None else convert_to_tensor(on_value, dtype_hint=dtype)
    off = None if off_value is None else convert_to_tensor(off_value, dtype_hint=dtype)
    given = [(label, t) for label, t in (("on_value", on), ("off_value", off)) if t is not None]
    if given and dtype is not None:
        for label, t in given:
            if t.dtype != dtype:
                raise TypeError(f"dtype {t.dtype} of {label} does not match dtype parameter {dtype}")
    dtype = given[0][1].dtype if given else dtype or _dtypes.float32
    on = convert_to_tensor(1, dtype) if on is None else on
    off = convert_to_tensor(0, dtype) if off is None else off
    if on.dtype != off.dtype:
        raise TypeError(f"dtype {on.dtype} of on_value does not match dtype {off.dtype} of off_value")
    index_array = _index_values(indices, "TI", ("uint8", "int8") + _INT32_OR_64, default=_dtypes.int64)
    depth = int(convert_to_tensor(depth, _dtypes.int32)._value)
    return execute("OneHot", [on, off], indices=index_array, depth=depth, axis=-1 if axis is None else int(axis))


def unsorted_segment_sum(data: Any, segment_ids: Any, num_segments: Any, name: str | None = None) -> EagerTensor:
    """Sums the slices of `data` into `num_segments` rows by segment id (negative ids dropped); the
    gradient gathers the upstream rows back."""
    data = convert_to_tensor(data)
    ids = _index_values(segment_ids, "Tindices", ("int16",) + _INT32_OR_64)
    count = _index_values(num_segments, "Tnumsegments", _INT32_OR_64)
    _check_unsorted_segments(tuple(data.shape), ids, count)
    return execute("UnsortedSegmentSum", [data], indices=ids, num_segments=int(count))


def _check_unsorted_segments(shape: tuple, ids: np.ndarray, count: np.ndarray) -> None:
    """UnsortedSegmentSum's checks, in its kernel's order (reftape's kernel, also used to densify
    IndexedSlices, trusts its arguments)."""
    def fail(message: str) -> None:
        raise InvalidArgumentError(f"{message} [Op:UnsortedSegmentSum]")
    if count.ndim:
        fail(f"num_segments should be a scalar, not shape {dims_text(count.shape)}")
    if count < 0:
        fail(f"Input num_segments == {int(count)} must not be negative.")
    if shape[:ids.ndim] != ids.shape:
        fail(f"data.shape = {dims_text(shape)} does not start with segment_ids.shape = {dims_text(ids.shape)}")
    beyond = np.flatnonzero(ids >= count)
    if beyond.size and np.prod(shape):  # with no data the kernel reads no id
        where = np.unravel_index(int(beyond[0]), ids.shape)
        fail(f"segment_ids[{','.join(str(int(i)) for i in where)}] = {ids[where]} is out of range [0, {int(count)})")


def segment_sum(data: Any, segment_ids: Any, name: str | None = None) -> EagerTensor:
    """Sums the rows of `data` by sorted segment ids into ids[-1] + 1 rows; the gradient gathers the
    upstream rows back."""
    data = convert_to_tensor(data)
    return execute("SegmentSum", [data], segment_ids=_index_values(segment_ids, "Tindices", _INT32_OR_64))


def where(condition: Any, x: Any = None, y: Any = None, name: str | None = None) -> EagerTensor:
    """Selects from `x` or `y` by `condition` (broadcasting); with one argument, true indices."""
    if x is None and y is None:
        condition = convert_to_tensor(condition)
        if condition._value.ndim == 0:
            raise InvalidArgumentError("WhereOp : Unhandled input dimensions: 0 [Op:Where] name: ")
        return constant(np.argwhere(condition._value).astype(np.int64))
    condition = convert_to_tensor(condition, dtype=_dtypes.bool)
    x, y = _matching([x, y], strict=True)
    return execute("SelectV2", [x, y], condition=condition)


def strided_slice(tensor: EagerTensor, key: tuple) -> EagerTensor:
    return execute("StridedSlice", [tensor], key=key)


_SLICE_INDEX_DTYPES = frozenset({_dtypes.int16, _dtypes.int32, _dtypes.int64})
_SLICE_TYPE_ERROR = ("Only integers, slices (`:`), ellipsis (`...`), tf.newaxis (`None`) and scalar "
                     "tf.int32/tf.int64 tensors are valid indices")


def _index_key(key: Any) -> tuple:
    """A subscript as TF's `__getitem__` reads it: a list is a tuple of indices; an index is an integer
    (a NumPy one, or a scalar int16/32/64 tensor or array), a slice, `...` or None."""
    key = tuple(key) if isinstance(key, (tuple, list)) else (key,)
    normalized = []
    for part in key:
        if isinstance(part, (EagerTensor, Variable, np.ndarray)):
            dtype = _convert(part).dtype if isinstance(part, np.ndarray) else part.dtype
            if dtype not in _SLICE_INDEX_DTYPES or np.ndim(part):
                raise TypeError(f"{_SLICE_TYPE_ERROR}, got {part!r}")
            part = np.asarray(part).item()
        elif not isinstance(part, (int, np.integer, builtins.slice)) and part is not None and part is not Ellipsis:
            raise TypeError(f"{_SLICE_TYPE_ERROR}, got {part!r}")
        normalized.append(part)
    _check_packed_indices(normalized)
    return tuple(int(p) if isinstance(p, bool) else p for p in normalized)  # packed with integers, a bool is one


def _check_packed_indices(parts: list) -> None:
    """TF packs the subscript's begin values into one tensor whose dtype the first one decides: a
    Python bool first makes it bool, which StridedSlice rejects (or another value fails to convert)."""
    values = [p for p in parts if p is not None and p is not Ellipsis]
    if not values or not isinstance(values[0], bool):
        return
    other = next((p for p in values if not isinstance(p, bool)), None)
    if other is None:
        raise InvalidArgumentError("Value for attr 'Index' of bool is not in the list of allowed values: int16, "
                                   "int32, int64 [Op:StridedSlice]")
    raise TypeError(f"Cannot convert {0 if isinstance(other, builtins.slice) else other!r} to EagerTensor of dtype bool")


index_key = _index_key  # for the Variable's sliced assign


def getitem(tensor: Any, key: Any) -> EagerTensor:
    """`tensor[key]`: a boolean key (a Python bool, a bool tensor or array) masks, as TF's does."""
    if isinstance(key, bool) or (isinstance(key, (EagerTensor, np.ndarray)) and _dtypes.as_dtype(key.dtype) == _dtypes.bool):
        return boolean_mask(tensor, key)
    return strided_slice(convert_to_tensor(tensor), _index_key(key))


def boolean_mask(tensor: Any, mask: Any, name: str = "boolean_mask", axis: Any = None) -> EagerTensor:
    """TF's composite: the dimensions the mask covers flattened into one (Reshape), the positions
    where the flattened mask is true gathered from it."""
    tensor, mask = convert_to_tensor(tensor), convert_to_tensor(mask)
    count = mask._value.ndim
    if count == 0:
        raise ValueError("mask cannot be scalar.")
    axis = 0 if axis is None else int(axis)
    tensor.shape[axis:axis + count].assert_is_compatible_with(mask.shape)
    dims = tuple(tensor.shape)
    flat = reshape(tensor, dims[:axis] + (math.prod(dims[axis:axis + count]),) + dims[axis + count:])
    return gather(flat, squeeze(where(reshape(mask, [-1])), axis=[1]), axis=axis)


# ---------------------------------------------------------------------------------------------
# Creation


def _dims(shape: Any, op: str | None = None) -> tuple:
    """A shape argument (int, list, tuple, TensorShape or int tensor) as a tuple of ints; with `op`, as
    that op's shape input: an int32 or int64 vector (or scalar where the kernel allows one), checked
    as the op checks it."""
    if isinstance(shape, TensorShape):
        return tuple(shape.as_list())
    if op is not None:
        shape = _checked_shape_input(shape, op)
    array = np.asarray(shape._value if isinstance(shape, EagerTensor) else shape)
    return tuple(int(d) for d in array.reshape(-1)) if array.ndim else (int(array),)


# Each shape-taking kernel's attribute typing the shape input, the ranks it takes and its message for others
_SHAPE_INPUTS = {
    "Fill": ("index_type", (0, 1), "dims must represent a vector, got shape {}"),
    "Reshape": ("Tshape", (0, 1), "sizes input must be 1-D, not {}"),
    "Tile": ("Tmultiples", (1,), "Expected multiples to be 1-D, but got shape {}"),
    "BroadcastTo": ("Tidx", (1,), "shape must be a vector of {{int32,int64}}, got shape {}"),
}


def _checked_shape_input(shape: Any, op: str) -> EagerTensor:
    """A shape argument converted as an op's input (its attribute's default, int32, only hinted: an empty
    list is int32, a list of floats float32) and refused as the op refuses it: a dtype other than int32
    and int64 by its attribute, a rank by its kernel."""
    attr, ranks, message = _SHAPE_INPUTS[op]
    shape = convert_to_tensor(shape, dtype_hint=_dtypes.int32)
    if shape.dtype.kernel_name not in _INT32_OR_64:
        raise InvalidArgumentError(f"Value for attr '{attr}' of {shape.dtype.kernel_name} is not in the list of allowed "
                                   f"values: int32, int64 [Op:{op}] name: ")
    if shape._value.ndim not in ranks:
        raise InvalidArgumentError(message.format(dims_text(shape._value.shape)) + f" [Op:{op}] name: ")
    return shape


def _fill_dims(shape: Any) -> EagerTensor:
    """zeros' and ones' shape: a tensor passes as it is; anything else converts to int32 (TF goes
    through a TensorShape, whose refusals end in that conversion)."""
    return shape if isinstance(shape, (EagerTensor, TensorShape)) else convert_to_tensor(shape, dtype=_dtypes.int32)


def _filled_shape(shape: Any) -> tuple:
    """The shape of a tensor TF's Fill kernel creates (zeros, ones, fill and eye run it)."""
    dims = _dims(shape, "Fill")
    for d in dims:
        if d < 0:
            raise InvalidArgumentError(f"Dimension {d} must be >= 0 [Op:Fill] name: ")
    return dims


def zeros(shape: Any, dtype: Any = _dtypes.float32, name: str | None = None) -> EagerTensor:
    """Fill of 0 (False for bools, "" for strings)."""
    dtype = _dtypes.as_dtype(dtype)
    zero = b"" if dtype == _dtypes.string else 0
    return EagerTensor(np.full(_filled_shape(_fill_dims(shape)), zero, dtype.as_numpy_dtype), dtype)


def ones(shape: Any, dtype: Any = _dtypes.float32, name: str | None = None) -> EagerTensor:
    """Fill of 1 (True for bools; a string tensor has no 1: TF's TypeError)."""
    dtype = _dtypes.as_dtype(dtype)
    dims = _filled_shape(_fill_dims(shape))
    one = constant(True if dtype == _dtypes.bool else 1, dtype=dtype)  # after the shape, as in TF
    return EagerTensor(np.full(dims, one._value, dtype.as_numpy_dtype), dtype)


def fill(dims: Any, value: Any, name: str | None = None) -> EagerTensor:
    value = convert_to_tensor(value)
    if value._value.ndim:
        raise InvalidArgumentError(f"value must represent a scalar, got shape {list(value._value.shape)} [Op:Fill]")
    return EagerTensor(np.full(_filled_shape(dims), value._value, value.dtype.as_numpy_dtype), value.dtype)


def zeros_like(input: Any, dtype: Any = None, name: str | None = None) -> EagerTensor:  # noqa: A002
    """A ZerosLike op, recorded with a None gradient (so its output is on the tape); with another
    dtype, fresh zeros that no tape records, as TF builds them."""
    source = convert_to_tensor(input)
    if dtype is not None and _asks_another_dtype(dtype, source):
        return zeros(tuple(source.shape), dtype)
    return execute("ZerosLike", [source])


def _asks_another_dtype(dtype: Any, source: EagerTensor) -> bool:
    """TF's `dtype != tensor.dtype` in zeros_like and ones_like: a tensor given as the dtype compares
    elementwise, and fails converting the DType (ValueError)."""
    if _is_tensor_like(dtype):
        return bool(not_equal(dtype, source.dtype))
    return _dtypes.as_dtype(dtype) != source.dtype


def ones_like(input: Any, dtype: Any = None, name: str | None = None) -> EagerTensor:  # noqa: A002
    """A OnesLike op, recorded with a None gradient; with another dtype, fresh ones (see zeros_like)."""
    source = convert_to_tensor(input)
    if dtype is not None and _asks_another_dtype(dtype, source):
        return ones(tuple(source.shape), dtype)
    return execute("OnesLike", [source])


def linspace(start: Any, stop: Any, num: Any, name: str | None = None, axis: int = 0) -> EagerTensor:
    """TF's composition (linspace_nd), op by op: stop converted to start's dtype, num to an integer tensor,
    both ends broadcast and expanded at `axis`, the inner points start + delta * i (delta in the true
    division's dtype), the ends concatenated around them and the whole sliced to num along `axis`."""
    start = convert_to_tensor(start)
    stop = _named_conversion(stop, start.dtype, "stop")
    num_int = _int_tensor(num, "num")
    cast(num_int, start.dtype)
    shape = _broadcast_shape(tuple(start.shape), tuple(stop.shape))
    expanded_start = expand_dims(broadcast_to(start, shape), axis)
    expanded_stop = expand_dims(broadcast_to(stop, shape), axis)
    shape = list(expanded_start.shape)
    ndims = len(shape)
    axis = int(axis) if int(axis) >= 0 else ndims + int(axis)
    num_fill = maximum(num_int - 2, 0)
    n_steps = maximum(num_int - 1, 1)
    delta = (expanded_stop - expanded_start) / cast(n_steps, expanded_stop.dtype)
    expanded_start, expanded_stop = cast(expanded_start, delta.dtype), cast(expanded_stop, delta.dtype)
    desired_range = cast(range(1, where(num_int >= 0, n_steps, -1), dtype=_dtypes.int64), delta.dtype)
    desired_range = reshape(desired_range, where(equal(axis, range(ndims)), num_fill, 1))
    concatenated = concat((expanded_start, expanded_start + delta * desired_range, expanded_stop), axis=axis)
    size = concat((shape[0:axis], reshape(num_int, [1]), shape[axis + 1:]), axis=0)
    return slice(concatenated, zeros_like(constant(shape, _dtypes.int32)), size)


def _named_conversion(value: Any, dtype: _dtypes.DType, name: str) -> EagerTensor:
    """`convert_to_tensor(value, dtype, name=name)`: TF's error for a tensor of another dtype names the argument."""
    try:
        return convert_to_tensor(value, dtype=dtype)
    except ValueError as error:
        raise ValueError(f"{name}: {error}" if isinstance(value, Tensor) else str(error)) from None


def _int_tensor(value: Any, name: str) -> EagerTensor:
    """TF's convert_to_int_tensor: converted preferring int32, then cast to int32; a tensor of no integer
    dtype is its TypeError."""
    tensor = convert_to_tensor(value, dtype_hint=_dtypes.int32)
    if not tensor.dtype.is_integer:
        raise TypeError(f"Argument `tensor` (name: {name}) must be of type integer. Received `tensor` = {tensor} of "
                        f"dtype: {tensor.dtype}")
    return cast(tensor, _dtypes.int32)


def _broadcast_shape(x: tuple, y: tuple) -> tuple:
    """TF's BroadcastArgs of two static shapes."""
    try:
        return np.broadcast_shapes(x, y)
    except ValueError:
        raise InvalidArgumentError(f"Incompatible shapes: {dims_text(x)} vs. {dims_text(y)} [Op:BroadcastArgs] "
                                   "name: ") from None


# The dtypes range infers from its arguments, in the order the widest wins
_RANGE_HIERARCHY = (_dtypes.int32, _dtypes.int64, _dtypes.float16, _dtypes.bfloat16, _dtypes.float32, _dtypes.float64)
# TF's Range op allows these (and unsigned types reftape lacks); it has CPU kernels for the floats and int32/int64
_RANGE_ALLOWED = frozenset({_dtypes.bfloat16, _dtypes.float16, _dtypes.float32, _dtypes.float64, _dtypes.int8,
                            _dtypes.int16, _dtypes.int32, _dtypes.int64})
_RANGE_KERNELS = _RANGE_ALLOWED - {_dtypes.int8, _dtypes.int16}


def range(start: Any, limit: Any = None, delta: Any = 1, dtype: Any = None, name: str = "range") -> EagerTensor:  # noqa: A001
    """TF's range: values other than tensors converted to `dtype` (a Variable too: ValueError for another
    dtype), the dtype inferred as the widest of int32 < int64 < float16 < bfloat16 < float32 < float64
    (another is TF's AssertionError), all three cast to it, then the Range kernel."""
    if limit is None:
        start, limit = 0, start
    bounds = [value if isinstance(value, Tensor) else convert_to_tensor(value, dtype=dtype)
              for value in (start, limit, delta)]
    if dtype is None:
        if not all(bound.dtype in _RANGE_HIERARCHY for bound in bounds):
            raise AssertionError()
        dtype = builtins.max((bound.dtype for bound in bounds), key=_RANGE_HIERARCHY.index)
    dtype = _dtypes.as_dtype(dtype)
    bounds = [cast(bound, dtype) for bound in bounds]
    if dtype not in _RANGE_ALLOWED:
        allowed = "bfloat16, half, float, double, int8, int16, int32, int64, uint16, uint32, uint64"
        raise InvalidArgumentError(f"Value for attr 'Tidx' of {dtype.kernel_name} is not in the list of allowed values: "
                                   f"{allowed}\n\t; NodeDef: {{{{node Range}}}} [Op:Range]")
    if dtype not in _RANGE_KERNELS:
        raise NotFoundError(f"Could not find device for node: {{{{node Range}}}} = Range[Tidx=DT_{dtype.kernel_name.upper()}] "
                            "[Op:Range]")
    for label, bound in zip(("start", "limit", "delta"), bounds):
        if bound.ndim > 1 or bound.ndim == 1 and bound.shape[0] != 1:  # a vector of one element passes
            raise InvalidArgumentError(f"{label} must be a scalar, not shape {dims_text(tuple(bound.shape))} "
                                       "[Op:Range] name: ")
    values = [bound._value.reshape(-1)[0].item() for bound in bounds]
    _check_range(*values)
    return EagerTensor(quiet_astype(np.arange(*values), dtype.as_numpy_dtype), dtype)


def _check_range(start: Any, limit: Any, delta: Any) -> None:
    """TF's Range kernel rejects a zero step and a step away from the limit (NumPy gives no values)."""
    def shown(v: Any) -> str:
        return format(v, "g") if isinstance(v, float) else str(v)

    if delta == 0:
        problem = f"Requires delta != 0: {shown(delta)}"
    elif delta > 0 and start > limit:
        problem = f"Requires start <= limit when delta > 0: {shown(start)}/{shown(limit)}"
    elif delta < 0 and start < limit:
        problem = f"Requires start >= limit when delta < 0: {shown(start)}/{shown(limit)}"
    else:
        return
    raise InvalidArgumentError(f"{problem} [Op:Range] name: ")


def sequence_mask(lengths: Any, maxlen: Any = None, dtype: Any = _dtypes.bool, name: str | None = None) -> EagerTensor:
    """mask[..., j] = j < lengths[...], for j in [0, maxlen) (maxlen: the largest length, at least 0),
    composed as TF composes it (Max, Range, Cast, Less) in maxlen's dtype; cast to `dtype` last."""
    lengths = convert_to_tensor(lengths)
    if maxlen is None:
        maxlen = maximum(constant(0, lengths.dtype), reduce_max(lengths))
    else:
        maxlen = convert_to_tensor(maxlen)
    if maxlen.ndim != 0:
        raise ValueError(f"Argument `maxlen` must be scalar for sequence_mask, received `maxlen` = {maxlen} "
                         f"with shape '{maxlen.shape}' instead")
    row_vector = range(constant(0, maxlen.dtype), maxlen, constant(1, maxlen.dtype), dtype=maxlen.dtype)
    result = less(row_vector, cast(expand_dims(lengths, -1), maxlen.dtype))
    if dtype is None or result.dtype.is_compatible_with(dtype):
        return result
    return cast(result, dtype)


def meshgrid(*args: Any, **kwargs: Any) -> list[EagerTensor]:
    """Coordinate grids: each argument reshaped along its own axis and multiplied by ones of the grid's
    shape (the first two axes swapped for indexing='xy'), in the first argument's dtype."""
    indexing = kwargs.pop("indexing", "xy")
    kwargs.pop("name", None)
    if kwargs:
        raise TypeError(f"'{next(iter(kwargs))}' is an invalid keyword argument for this function")
    if indexing not in ("xy", "ij"):
        raise ValueError(f"Argument `indexing` parameter must be either 'xy' or 'ij', got '{indexing}'")
    count = len(args)
    if not count:
        return []
    ones_shape = (1,) * count
    grids = [reshape(stack(x), ones_shape[:i] + (-1,) + ones_shape[i + 1:]) for i, x in enumerate(args)]
    sizes = [size(x) for x in args]
    if indexing == "xy" and count > 1:
        grids[0] = reshape(grids[0], (1, -1) + (1,) * (count - 2))
        grids[1] = reshape(grids[1], (-1, 1) + (1,) * (count - 2))
        sizes[0], sizes[1] = sizes[1], sizes[0]
    grid_of_ones = ones(sizes, convert_to_tensor(args[0]).dtype)
    return [grid * grid_of_ones for grid in grids]


def eye(num_rows: int, num_columns: int | None = None, batch_shape: Any = None, dtype: Any = _dtypes.float32,
        name: str | None = None) -> EagerTensor:
    dtype = _dtypes.as_dtype(dtype)
    num_columns = num_rows if num_columns is None else num_columns
    if not all(isinstance(n, (builtins.int, np.integer, EagerTensor)) for n in (num_rows, num_columns)):
        raise TypeError(f"Arguments `num_rows` and `num_columns` must be positive integer values. Received: "
                        f"num_rows={num_rows}, num_columns={num_columns}")
    if num_rows.__class__ is builtins.bool:  # TF packs it with NumPy, as a bool
        raise TypeError(f"Cannot convert [np.{num_rows}_] to EagerTensor of dtype int32")
    rows, columns = _filled_shape([builtins.int(n) for n in (num_rows, num_columns)])  # tensors cast to int32
    matrix = np.eye(rows, columns, dtype=dtype.as_numpy_dtype)
    if batch_shape is not None:
        matrix = np.broadcast_to(matrix, tuple(batch_shape) + matrix.shape).copy()
    return EagerTensor(matrix, dtype)


def shape(input: Any, out_type: Any = _dtypes.int32, name: str | None = None) -> EagerTensor:  # noqa: A002
    """The Shape op, which TF runs (and records on a tape tracking the input) even in eager mode."""
    out_type = _dtypes.as_dtype(out_type)
    if out_type.name not in ("int32", "int64"):
        raise InvalidArgumentError(f"Value for attr 'out_type' of {out_type.kernel_name} is not in the list of "
                                   f"allowed values: int32, int64\n\t; NodeDef: {{{{node Shape}}}}; Op<name=Shape; "
                                   f"signature=input:T -> output:out_type; attr=T:type; attr=out_type:type,default=DT_INT32,"
                                   f"allowed=[DT_INT32, DT_INT64]> [Op:Shape]")
    return execute("Shape", [convert_to_tensor(input)], out_type=out_type)


def rank(input: Any, name: str | None = None) -> EagerTensor:  # noqa: A002
    return constant(convert_to_tensor(input).ndim, dtype=_dtypes.int32)


def size(input: Any, out_type: Any = _dtypes.int32, name: str | None = None) -> EagerTensor:  # noqa: A002
    return constant(convert_to_tensor(input).shape.num_elements(), dtype=out_type)


def is_tensor(x: Any) -> bool:
    return isinstance(x, (Tensor, Variable, IndexedSlices))


# ---------------------------------------------------------------------------------------------
# Linear algebra


def matmul(a: Any, b: Any, transpose_a: bool = False, transpose_b: bool = False, adjoint_a: bool = False,
           adjoint_b: bool = False, a_is_sparse: bool = False, b_is_sparse: bool = False, output_type: Any = None,
           grad_a: bool = False, grad_b: bool = False, name: str | None = None) -> EagerTensor:
    """Matrix product of the two innermost dimensions, batching over the others."""
    if transpose_a and adjoint_a or transpose_b and adjoint_b:
        raise ValueError("Only one of transpose_a and adjoint_a can be True.")
    a = a if isinstance(a, EagerTensor) else convert_to_tensor(a)  # converted alone, its dtype hinted to b
    b = convert_to_tensor(b, dtype_hint=a.dtype)
    if a.ndim < 2 or b.ndim < 2:
        _refuse_dtype_without_kernel("MatMul", a.dtype)  # before the kernel looks at shapes
        raise InvalidArgumentError(f"In[0] and In[1] has different ndims: {a.shape} vs. {b.shape} [Op:MatMul] name: "
                                   if a.ndim != b.ndim else
                                   f"In[0] and In[1] ndims must be >= 2: {a.ndim} [Op:MatMul] name: ")
    if a.ndim == 2 and b.ndim == 2:
        if adjoint_a:
            a, transpose_a = conj_if_complex(a), True
        if adjoint_b:
            b, transpose_b = conj_if_complex(b), True
        return execute("MatMul", [a, b], transpose_a=bool(transpose_a), transpose_b=bool(transpose_b))
    if transpose_a:
        a, adjoint_a = conj_if_complex(a), True
    if transpose_b:
        b, adjoint_b = conj_if_complex(b), True
    return execute("BatchMatMulV2", [a, b], adj_x=bool(adjoint_a), adj_y=bool(adjoint_b))


def matvec(a: Any, b: Any, transpose_a: bool = False, adjoint_a: bool = False, a_is_sparse: bool = False,
           b_is_sparse: bool = False, name: str | None = None) -> EagerTensor:
    product = matmul(a, expand_dims(b, -1), transpose_a=transpose_a, adjoint_a=adjoint_a)  # each converted alone
    return squeeze(product, axis=-1)


def matrix_transpose(a: Any, name: str = "matrix_transpose", conjugate: bool = False) -> EagerTensor:
    """The last two axes swapped (and conjugated if asked): a Transpose, as TF builds it."""
    a = convert_to_tensor(a)
    if a.ndim < 2:
        raise ValueError(f"Argument `a` should be a (batch) matrix with rank >= 2.  Received `a` = {a._value} "
                         f"with shape: {a.shape}")
    return transpose(a, list(builtins.range(a.ndim - 2)) + [a.ndim - 1, a.ndim - 2], conjugate=conjugate)


def adjoint(matrix: Any, name: str | None = None) -> EagerTensor:
    return matrix_transpose(matrix, conjugate=True)


def _diagonal_index(k: Any) -> int:
    """One diagonal (k above the main one); TF's bands of several diagonals are not implemented."""
    index = np.asarray(k._value if isinstance(k, EagerTensor) else k).reshape(-1)
    if index.size == 2 and index[0] == index[1]:
        index = index[:1]
    if index.size != 1:
        raise NotImplementedError("reftape's diag and diag_part take one diagonal, not a band of several (k=(low, high))")
    return int(index[0])


def diag_part(input: Any, name: str = "diag_part", k: Any = 0, padding_value: Any = 0,  # noqa: A002 - TF's names
              align: str = "RIGHT_LEFT") -> EagerTensor:
    """The k-th diagonal of each matrix (MatrixDiagPartV3); its gradient is a matrix of zeros around it."""
    return _unary("MatrixDiagPartV3", input, k=_diagonal_index(k))


def diag(diagonal: Any, name: str = "diag", k: Any = 0, num_rows: Any = -1, num_cols: Any = -1,
         padding_value: Any = 0, align: str = "RIGHT_LEFT") -> EagerTensor:
    """Matrices with `diagonal` on their k-th diagonal and padding_value elsewhere (MatrixDiagV3)."""
    if _bool_typed(diagonal):  # TF's special case: a bool padding for a bool tensor or array
        padding_value = builtins.bool(padding_value)
    diagonal = convert_to_tensor(diagonal)
    padding = convert_to_tensor(padding_value, dtype=diagonal.dtype)
    return execute("MatrixDiagV3", [diagonal], k=_diagonal_index(k), num_rows=int(num_rows), num_cols=int(num_cols),
                   padding_value=padding._value)


def _bool_typed(value: Any) -> bool:
    """TF's `hasattr(value, "dtype") and value.dtype == "bool"`, before the value is converted."""
    dtype = getattr(value, "dtype", None)
    if dtype is None:
        return False
    try:
        return _dtypes.as_dtype(dtype) == _dtypes.bool
    except TypeError:
        return False


def trace(x: Any, name: str | None = None) -> EagerTensor:
    """The sum of each matrix's diagonal, as TF composes it (diag_part, then a sum)."""
    return reduce_sum(diag_part(convert_to_tensor(x)), [-1])


def band_part(input: Any, num_lower: Any, num_upper: Any, name: str | None = None) -> EagerTensor:  # noqa: A002
    """The band of each matrix within num_lower diagonals below and num_upper above (negative: all)."""
    lower, upper = (int(_index_values(n if _is_tensor_like(n) else convert_to_tensor(n, _dtypes.int64), "Tindex",
                                      _INT32_OR_64)) for n in (num_lower, num_upper))
    return _unary("MatrixBandPart", input, num_lower=lower, num_upper=upper)


def inv(input: Any, adjoint: bool = False, name: str | None = None) -> EagerTensor:  # noqa: A002 - TF's names
    return _unary("MatrixInverse", input, adjoint=bool(adjoint))


def det(input: Any, name: str | None = None) -> EagerTensor:  # noqa: A002 - TF's name
    """sign * exp(log |det|) from an LU factorisation, as TF's kernel computes it."""
    return _unary("MatrixDeterminant", input)


LogMatrixDeterminant = collections.namedtuple("LogMatrixDeterminant", ["sign", "log_abs_determinant"])


def slogdet(input: Any, name: str | None = None) -> LogMatrixDeterminant:  # noqa: A002 - TF's name
    """(sign, log |det|), both in the input's dtype (complex for complex inputs)."""
    return LogMatrixDeterminant(*_unary("LogMatrixDeterminant", input))


def cholesky(input: Any, name: str | None = None) -> EagerTensor:  # noqa: A002 - TF's name
    return _unary("Cholesky", input)


def logdet(matrix: Any, name: str | None = None) -> EagerTensor:
    """log det of Hermitian positive definite matrices, as TF composes it from the Cholesky factor."""
    factor = cholesky(matrix)
    return 2.0 * reduce_sum(log(real(diag_part(factor))), axis=[-1])


def solve(matrix: Any, rhs: Any, adjoint: bool = False, name: str | None = None) -> EagerTensor:
    return execute("MatrixSolve", _matching([matrix, rhs], strict=True), adjoint=bool(adjoint))


def triangular_solve(matrix: Any, rhs: Any, lower: bool = True, adjoint: bool = False, name: str | None = None) -> EagerTensor:
    return execute("MatrixTriangularSolve", _matching([matrix, rhs], strict=True), lower=bool(lower), adjoint=bool(adjoint))


def einsum(equation: str, *inputs: Any, **kwargs: Any) -> EagerTensor:
    """TF's einsum: the equation checked and made explicit as TF's wrapper does, one Einsum op for one or two
    operands, and a chain of two-operand Einsum ops for more (TF's contraction path aside: the values agree
    to rounding)."""
    unknown = [key for key in kwargs if key not in ("name", "optimize")]
    if unknown:  # TF's message lists "greedy" among the valid arguments, which it refuses all the same
        raise TypeError(f"Invalid keyword arguments for einsum: {', '.join(unknown)}. "
                        f"Valid arguments: name, optimize, greedy.")
    for operand in inputs:  # TF reads each operand's static shape first
        if not hasattr(operand, "shape"):
            raise AttributeError(f"'{type(operand).__name__}' object has no attribute 'shape'")
    specs, output = _einsum_equation(equation, len(inputs))
    if len(inputs) > 2:
        _check_einsum_ranks(equation, specs, [tuple(operand.shape) for operand in inputs])
    tensors = _matching(list(inputs))
    while len(tensors) > 2:
        later = "".join(specs[2:]) + output
        step = _einsum_intermediate(specs[0], specs[1], later)
        tensors[:2] = [execute("Einsum", tensors[:2], equation=f"{specs[0]},{specs[1]}->{step}")]
        specs[:2] = [step]
    return execute("Einsum", tensors, equation=",".join(specs) + "->" + output)


_EINSUM_ELLIPSIS = "..."


def _einsum_equation(equation: str, count: int) -> tuple[list[str], str]:
    """The operands' subscripts and the output's, as TF's wrapper resolves and checks them (ValueError)."""
    resolved = equation.replace(" ", "")
    labels = "a-zA-Z"
    if _EINSUM_ELLIPSIS in resolved:
        if "0" in resolved:
            raise ValueError(f'Invalid character "0" in equation: {equation}.')
        resolved, labels = resolved.replace(_EINSUM_ELLIPSIS, "0"), labels + "0"  # the ellipsis as one label
    match = re.match(f"^([{labels},]*)(->[{labels}]*)?$", resolved)
    if not match:
        raise ValueError(f"Subscripts have incorrect format: {resolved}")
    specs = match.group(1).split(",")
    if count != len(specs):
        raise ValueError(f'Got {count} inputs for equation "{equation}", expecting {len(specs)}')
    if match.group(2) is None:  # implicit: the labels appearing once, sorted (the ellipsis first)
        counts = collections.Counter(match.group(1).replace(",", ""))
        output = "".join(label for label in sorted(counts) if counts[label] == 1)
    else:
        output = match.group(2)[2:]
    if len(set(output)) != len(output):
        raise ValueError(f"Output subscripts contain a label appearing more than once: {equation}")
    for label in output:
        if label != "0" and label not in match.group(1):
            raise ValueError(f"Output subscripts contain the label {label} not present in the input subscripts.")
    restored = [spec.replace("0", _EINSUM_ELLIPSIS) for spec in specs]
    return restored, output.replace("0", _EINSUM_ELLIPSIS)


def _check_einsum_ranks(equation: str, specs: list[str], shapes: list[tuple]) -> None:
    """TF's wrapper checks each operand's rank against its subscripts before contracting more than two."""
    for i, (spec, shape) in enumerate(zip(specs, shapes)):
        named = len(spec.replace(_EINSUM_ELLIPSIS, ""))
        if spec.count(_EINSUM_ELLIPSIS) > 1:
            raise ValueError(f"Too many ellipses in input label {spec}.")
        if _EINSUM_ELLIPSIS in spec and named > len(shape):
            raise ValueError(f"Too many named labels in {i}th subscript string of equation {equation} "
                             f"for input shape {list(shape)} ")
        if _EINSUM_ELLIPSIS not in spec and named != len(shape):
            raise ValueError(f"Number of named labels in input #{i} of equation {equation} must be equal to the "
                             f"number of dimensions in shape {list(shape)}")


def _einsum_intermediate(first: str, second: str, later: str) -> str:
    """The subscripts of two operands' contraction: their labels that a later operand or the output holds."""
    ellipsis = _EINSUM_ELLIPSIS in first + second and _EINSUM_ELLIPSIS in later
    named = (first + second).replace(_EINSUM_ELLIPSIS, "")
    return (_EINSUM_ELLIPSIS if ellipsis else "") + "".join(dict.fromkeys(c for c in named if c in later))


# ---------------------------------------------------------------------------------------------
# Neural-network ops


def relu(features: Any, name: str | None = None) -> EagerTensor:
    features = features if features.__class__ is EagerTensor else convert_to_tensor(features)
    if _is_half(features.dtype):  # they keep -0.0 (kernels.activations._relu)
        return execute("Relu", [features], half=True)
    return execute("Relu", [features])


def relu6(features: Any, name: str | None = None) -> EagerTensor:
    features = features if features.__class__ is EagerTensor else convert_to_tensor(features)
    if _is_half(features.dtype):
        return execute("Relu6", [features], half=True)
    return execute("Relu6", [features])


def elu(features: Any, name: str | None = None) -> EagerTensor:
    features = convert_to_tensor(features)
    return execute("Elu", [features], T=features.dtype)


def selu(features: Any, name: str | None = None) -> EagerTensor:
    features = convert_to_tensor(features)
    return execute("Selu", [features], T=features.dtype)


def leaky_relu(features: Any, alpha: float = 0.2, name: str | None = None) -> EagerTensor:
    features = convert_to_tensor(features)
    if features.dtype.is_integer:
        features = cast(features, _dtypes.float32)
    return execute("LeakyRelu", [features], alpha=float(np.float32(alpha)), T=features.dtype)  # TF's attr is a float32


def sigmoid(x: Any, name: str | None = None) -> EagerTensor:
    """Logistic function."""
    x = x if x.__class__ is EagerTensor else convert_to_tensor(x)
    return execute("Sigmoid", [x], T=x.dtype)  # float32's kernel is its own approximation (half types arrive as float32)


def softplus(features: Any, name: str | None = None) -> EagerTensor:
    features = convert_to_tensor(features)
    return execute("Softplus", [features], T=features.dtype)  # the kernel's cut-offs are the dtype's


def softsign(features: Any, name: str | None = None) -> EagerTensor:
    return _unary("Softsign", features)


def log_sigmoid(x: Any, name: str | None = None) -> EagerTensor:
    """-softplus(-x), as TF composes it."""
    return negative(softplus(negative(x)))


def gelu(features: Any, approximate: bool = False, name: str | None = None) -> EagerTensor:
    features = convert_to_tensor(features)
    if not features.dtype.is_floating:
        raise ValueError(f"`features.dtype` must be a floating point tensor.Received:features.dtype={features.dtype}")
    if approximate:
        coeff = cast(0.044715, features.dtype)
        inner = multiply(0.7978845608028654, add(features, multiply(coeff, pow(features, 3))))
        return multiply(multiply(0.5, features), add(cast(1.0, features.dtype), tanh(inner)))  # TF's `1.0 + tanh(...)`
    return multiply(multiply(0.5, features), erfc(multiply(negative(features), cast(0.7071067811865476, features.dtype))))


def _softmax_along(op: str, logits: Any, axis: Any) -> EagerTensor:
    logits = convert_to_tensor(logits)
    axis = -1 if axis is None else int(axis)
    if axis not in (-1, logits.ndim - 1) and not -logits.ndim <= axis < logits.ndim:  # TF's Python check comes first
        raise InvalidArgumentError(f"`dim` must be in the range [{-logits.ndim}, {logits.ndim}) where {logits.ndim} is the "
                                   f"number of dimensions in the input. Received: dim={axis}")
    if op == "Softmax" and not 1 <= logits.ndim <= 5 and runs_onednn(logits.dtype.name):
        from .errors import AbortedError  # TF's oneDNN softmax kernel takes ranks 1 to 5; Eigen's any rank >= 1

        raise AbortedError("Input dims must be <= 5 and >=1 [Op:Softmax] name: ")
    if logits.ndim == 0 or axis % logits.ndim == logits.ndim - 1:  # a scalar: the kernel refuses it
        return execute(op, [logits])
    perm = list(np.arange(logits.ndim))
    perm[axis], perm[-1] = perm[-1], perm[axis]
    return transpose(execute(op, [transpose(logits, perm)]), perm)


def softmax(logits: Any, axis: Any = None, name: str | None = None) -> EagerTensor:
    return _softmax_along("Softmax", logits, axis)


def log_softmax(logits: Any, axis: Any = None, name: str | None = None) -> EagerTensor:
    return _softmax_along("LogSoftmax", logits, axis)


def l2_loss(t: Any, name: str | None = None) -> EagerTensor:
    t = t if t.__class__ is EagerTensor else convert_to_tensor(t)
    return execute("L2Loss", [t], T=t.dtype)  # T: half types reach the kernel as float32


def moments(x: Any, axes: Any, shift: Any = None, keepdims: bool = False, name: str | None = None) -> tuple:
    """(mean, variance) over `axes`; the variance's squared differences hold the mean constant, as TF's
    do; float16 computed in float32 (as TF: `x.dtype` read before any conversion). `shift` is unused."""
    computed = cast(x, _dtypes.float32) if x.dtype == _dtypes.float16 else x
    mean = reduce_mean(computed, axes, keepdims=True)
    variance = reduce_mean(squared_difference(computed, stop_gradient(mean)), axes, keepdims=True)
    if not keepdims:
        mean, variance = squeeze(mean, axes), squeeze(variance, axes)
    if x.dtype == _dtypes.float16:
        return cast(mean, _dtypes.float16), cast(variance, _dtypes.float16)
    return mean, variance


def sigmoid_cross_entropy_with_logits(labels: Any = None, logits: Any = None, name: str | None = None) -> EagerTensor:
    """max(x, 0) - x * z + log(1 + exp(-|x|)), written with where() as TF writes it (each converted alone)."""
    logits = convert_to_tensor(logits)
    labels = convert_to_tensor(labels)
    if logits.shape != labels.shape:
        raise ValueError(f"`logits` and `labels` must have the same shape, received ({logits.shape} vs {labels.shape}).")
    zero = zeros_like(logits)
    positive = greater_equal(logits, zero)
    relu_logits = where(positive, logits, zero)
    neg_abs_logits = where(positive, negative(logits), logits)
    return add(subtract(relu_logits, multiply(logits, labels)), log1p(exp(neg_abs_logits)))


def softmax_cross_entropy_with_logits(labels: Any, logits: Any, axis: int = -1, name: str | None = None) -> EagerTensor:
    """The fused SoftmaxCrossEntropyWithLogits kernel over the flattened outer dimensions (each converted
    alone: the labels are cast to the logits' dtype)."""
    logits = convert_to_tensor(logits)
    labels = convert_to_tensor(labels)
    if axis != -1:  # TF's perm: concat(range(axis), range(axis + 1, rank), [axis]); its Range refuses other negatives
        perm = concat([range(axis), range(axis + 1, logits.ndim), [axis]], 0)
        logits, labels = transpose(logits, perm), transpose(labels, perm)
    if logits.ndim == 0 or labels.ndim == 0:  # TF slices the last dimension's size out of an empty shape
        raise InvalidArgumentError("Expected begin[0] == 0 (got -1) and size[0] == 0 (got 1) when input.dim_size(0) == 0 "
                                   "[Op:Slice]")
    outer = tuple(logits.shape)[:-1]
    compute = _dtypes.float32 if logits.dtype == _dtypes.float16 else logits.dtype
    flat_logits = reshape(cast(logits, compute), (-1, logits.shape[-1]))
    flat_labels = reshape(cast(labels, compute), (-1, labels.shape[-1]))
    cost, _ = execute("SoftmaxCrossEntropyWithLogits", [flat_logits, flat_labels])
    return cast(reshape(cost, outer), logits.dtype)


def bias_add(value: Any, bias: Any, data_format: str | None = None, name: str | None = None) -> EagerTensor:
    """Adds a 1-D bias along the channel axis: the last one (N...C) or the second (NC...)."""
    if data_format is not None:
        if data_format.startswith("NC"):
            data_format = "NCHW"
        elif data_format.startswith("N") and data_format.endswith("C"):
            data_format = "NHWC"
        else:
            raise ValueError(f"`data_format` must be of the form `N...C` or `NC...`. Received: data_format={data_format}")
    value, bias = _matching([value, bias], strict=True)  # eager: straight to the op's wrapper
    return execute("BiasAdd", [value, bias], data_format=data_format or "NHWC")


def sparse_softmax_cross_entropy_with_logits(labels: Any, logits: Any, name: str | None = None) -> EagerTensor:
    """The fused SparseSoftmaxCrossEntropyWithLogits kernel over the flattened outer dimensions
    (float16 computed in float32, as TF does); labels are class indices, with no gradient."""
    labels, logits = convert_to_tensor(labels), convert_to_tensor(logits)
    precise = cast(logits, _dtypes.float32) if logits.dtype == _dtypes.float16 else logits
    if logits.ndim == 0:
        raise ValueError(f"`logits` cannot be a scalar. Received logits={logits}`")
    if labels.ndim != logits.ndim - 1:
        raise ValueError(f"`labels.shape.rank` must equal `logits.shape.rank - 1`. Received: labels.shape={labels.shape} "
                         f"of rank {labels.ndim} and logits.shape={logits.shape} of rank {logits.ndim}")
    if tuple(labels.shape) != tuple(logits.shape)[:-1]:
        raise ValueError(f"`labels.shape` must equal `logits.shape` except for the last dimension. Received: "
                         f"labels.shape={labels.shape} and logits.shape={logits.shape}")
    label_array = _index_values(labels, "Tlabels", _INT32_OR_64)
    if logits.ndim != 2:
        precise, label_array = reshape(precise, (-1, logits.shape[-1])), label_array.reshape(-1)
    cost, _ = execute("SparseSoftmaxCrossEntropyWithLogits", [precise], labels=label_array)
    cost = reshape(cost, tuple(labels.shape)) if logits.ndim != 2 else cost
    return cast(cost, _dtypes.float16) if logits.dtype == _dtypes.float16 else cost


# ---------------------------------------------------------------------------------------------
# Decompositions (issue 24's linear-algebra family): kernels/decompositions.py, VJPs in the op table

Qr = collections.namedtuple("Qr", ["q", "r"])


def qr(input: Any, full_matrices: bool = False, name: str | None = None) -> Qr:  # noqa: A002 - TF's name
    """Householder QR: Q with min(M, N) columns (M with full_matrices) and upper triangular R."""
    return Qr(*_unary("Qr", input, full_matrices=bool(full_matrices)))


def eigh(tensor: Any, name: str | None = None) -> tuple:
    """(eigenvalues ascending, eigenvectors as columns) of self-adjoint matrices (their lower triangles)."""
    e, v = _unary("SelfAdjointEigV2", tensor, compute_v=True)
    return e, v


def eigvalsh(tensor: Any, name: str | None = None) -> EagerTensor:
    return _unary("SelfAdjointEigV2", tensor, compute_v=False)[0]


def svd(tensor: Any, full_matrices: bool = False, compute_uv: bool = True, name: str | None = None) -> Any:
    """(s, u, v) with a = u diag(s) v^H, or s alone; s real (TF takes the real part of the kernel's s)."""
    s, u, v = _unary("Svd", tensor, compute_uv=bool(compute_uv), full_matrices=bool(full_matrices))
    s = real(s) if s.dtype.is_complex else s
    return (s, u, v) if compute_uv else s


def cross(a: Any, b: Any, name: str | None = None) -> EagerTensor:
    return _binary("Cross", a, b)


def normalize(tensor: Any, ord: Any = "euclidean", axis: Any = None, name: str | None = None) -> tuple:  # noqa: A002
    """(tensor / norm, norm) with the norm kept along its axes and cast to the tensor's dtype, as TF composes it."""
    tensor = convert_to_tensor(tensor)
    magnitude = cast(norm(tensor, ord, axis, keepdims=True), tensor.dtype)
    return divide(tensor, magnitude), magnitude


_PADE = {  # the Pade coefficients of TF's matrix_exponential, by degree
    3: (120.0, 60.0, 12.0),
    5: (30240.0, 15120.0, 3360.0, 420.0, 30.0),
    7: (17297280.0, 8648640.0, 1995840.0, 277200.0, 25200.0, 1512.0, 56.0),
    9: (17643225600.0, 8821612800.0, 2075673600.0, 302702400.0, 30270240.0, 2162160.0, 110880.0, 3960.0, 90.0),
    13: (64764752532480000.0, 32382376266240000.0, 7771770303897600.0, 1187353796428800.0, 129060195264000.0,
         10559470521600.0, 670442572800.0, 33522128640.0, 1323241920.0, 40840800.0, 960960.0, 16380.0, 182.0),
}


def _pade(matrix: EagerTensor, degree: int) -> tuple:
    """(U, V) of the degree's Pade approximant, summed in TF's order (odd powers in U, even in V)."""
    b = [constant(c, matrix.dtype) for c in _PADE[degree]]
    ident = eye(matrix.shape[-2], batch_shape=tuple(matrix.shape[:-2]), dtype=matrix.dtype)
    powers = [None, None, matmul(matrix, matrix)]  # powers[k]: matrix^k, even k
    for k in builtins.range(4, degree if degree != 13 else 7, 2):
        powers.append(None)
        powers.append(matmul(powers[k - 2], powers[2]) if k != 4 else matmul(powers[2], powers[2]))
    if degree == 13:
        m2, m4, m6 = powers[2], powers[4], powers[6]
        inner = add(add(m6, multiply(b[11], m4)), multiply(b[9], m2))
        tmp_u = add(add(add(add(matmul(m6, inner), multiply(b[7], m6)), multiply(b[5], m4)), multiply(b[3], m2)),
                    multiply(b[1], ident))
        tmp_v = add(add(multiply(b[12], m6), multiply(b[10], m4)), multiply(b[8], m2))
        v = add(add(add(add(matmul(m6, tmp_v), multiply(b[6], m6)), multiply(b[4], m4)), multiply(b[2], m2)),
                multiply(b[0], ident))
        return matmul(matrix, tmp_u), v
    top = degree - 1  # U's factor: matrix^top + b[top-1] matrix^(top-2) + ... + b[1] I
    tmp = powers[top]
    for k in builtins.range(top - 2, 0, -2):
        tmp = add(tmp, multiply(b[k + 1], powers[k]))
    tmp = add(tmp, multiply(b[1], ident))
    v = multiply(b[top], powers[top])
    for k in builtins.range(top - 2, 0, -2):
        v = add(v, multiply(b[k], powers[k]))
    return matmul(matrix, tmp), add(v, multiply(b[0], ident))


def expm(input: Any, name: str | None = None) -> EagerTensor:  # noqa: A002 - TF's name
    """TF's matrix_exponential, composed as TF composes it: every Pade approximant selected by the l1 norm
    (where, so gradients reach all of them), the scaled one squared back, NaN where the norm is not finite."""
    matrix = convert_to_tensor(input)
    if tuple(matrix.shape[-2:]) == (0, 0):
        return matrix
    batch_shape = tuple(matrix.shape[:-2])
    if matrix.dtype not in (_dtypes.float16, _dtypes.float32, _dtypes.float64, _dtypes.complex64, _dtypes.complex128):
        raise ValueError(f"tf.linalg.expm does not support matrices of type {matrix.dtype!r}")
    matrix = reshape(matrix, (-1,) + tuple(matrix.shape[-2:]))
    l1_norm = reduce_max(reduce_sum(abs(matrix), axis=len(matrix.shape) - 2), axis=-1)[..., None, None]

    def const(x: float) -> EagerTensor:
        return constant(x, l1_norm.dtype)

    def nest_where(bounds: tuple, cases: tuple) -> EagerTensor:
        chosen = cases[-1]
        for bound, case in reversed(list(zip(bounds, cases))):
            chosen = where(less(l1_norm, const(bound)), case, chosen)
        return chosen

    single = matrix.dtype in (_dtypes.float16, _dtypes.float32, _dtypes.complex64)
    maxnorm = const(3.925724783138660 if single else 5.371920351148152)
    squarings = maximum(floor(divide(log(divide(l1_norm, maxnorm)), log(const(2.0)))), 0)
    scaled = divide(matrix, cast(pow(const(2.0), squarings), matrix.dtype))
    degrees, bounds = ((3, 5, 7), (4.258730016922831e-001, 1.880152677804762e+000)) if single else (
        (3, 5, 7, 9, 13), (1.495585217958292e-002, 2.539398330063230e-001, 9.504178996162932e-001, 2.097847961257068e+000))
    pairs = [_pade(matrix, d) for d in degrees[:-1]] + [_pade(scaled, degrees[-1])]
    u = nest_where(bounds, tuple(p[0] for p in pairs))
    v = nest_where(bounds, tuple(p[1] for p in pairs))
    is_finite_norm = bool(is_finite(reduce_max(l1_norm)).numpy())
    result = solve(add(negative(u), v), add(u, v)) if is_finite_norm else fill(tuple(matrix.shape), constant(np.nan, matrix.dtype))
    max_squarings = reduce_max(squarings)
    i = const(0.0)
    while is_finite_norm and bool(less(i, max_squarings).numpy()):
        i, result = add(i, const(1.0)), where(less(i, squarings), matmul(result, result), result)
    return reshape(result, batch_shape + tuple(result.shape[-2:]))


def _cholesky_solve(chol: EagerTensor, rhs: Any) -> EagerTensor:
    """TF's cholesky_solve: C y = rhs, then C^H x = y (two triangular solves; rhs converted as the op converts it)."""
    y = execute("MatrixTriangularSolve", _matching([chol, rhs], strict=True), lower=True, adjoint=False)
    return execute("MatrixTriangularSolve", [chol, y], lower=True, adjoint=True)


def _regularized_gramian_cholesky(matrix: EagerTensor, l2_regularizer: Any, first_kind: bool) -> EagerTensor:
    gramian = matmul(matrix, matrix, adjoint_a=first_kind, adjoint_b=not first_kind)
    if isinstance(l2_regularizer, Tensor) or l2_regularizer != 0:
        small = matrix.shape[-1 if first_kind else -2]
        identity = eye(small, batch_shape=tuple(matrix.shape[:-2]), dtype=matrix.dtype)
        gramian = add(gramian, multiply(convert_to_tensor(l2_regularizer, dtype=matrix.dtype), identity))
    return cholesky(gramian)


def lstsq(matrix: Any, rhs: Any, l2_regularizer: Any = 0.0, fast: bool = True, name: str | None = None) -> EagerTensor:
    """TF's matrix_solve_ls: for fast=True the regularized normal equations composed from a Cholesky factor (of
    A^H A, or of A A^H for fewer rows than columns); for fast=False the MatrixSolveLs kernel (minimum norm, no
    gradient). TF takes its kernel for fast=True too on tensors past 256,000 bytes with more matrices than a
    matrix's smaller side; reftape composes those as well (the same formulas, rounded otherwise)."""
    matrix = convert_to_tensor(matrix)
    if matrix.dtype == _dtypes.complex128 and (isinstance(l2_regularizer, Tensor) or l2_regularizer != 0):
        raise NotImplementedError("matrix_solve_ls is currently disabled for complex128 and l2_regularizer != 0 due "
                                  "to poor accuracy.")
    if fast is False:
        rhs = convert_to_tensor(rhs, dtype_hint=matrix.dtype)
        return execute("MatrixSolveLs", _matching([matrix, rhs], strict=True),
                       l2_regularizer=float(l2_regularizer), fast=False)
    if matrix.shape[-2] >= matrix.shape[-1]:  # rhs converted where TF's ops convert it (a Python list: matrix's dtype)
        chol = _regularized_gramian_cholesky(matrix, l2_regularizer, first_kind=True)
        return _cholesky_solve(chol, matmul(matrix, rhs, adjoint_a=True))
    chol = _regularized_gramian_cholesky(matrix, l2_regularizer, first_kind=False)
    return matmul(matrix, _cholesky_solve(chol, rhs), adjoint_a=True)


def sqrtm(input: Any, name: str | None = None) -> EagerTensor:  # noqa: A002 - TF's name
    """The principal square root of each matrix (kernels/decompositions.py)."""
    return _unary("MatrixSquareRoot", input)


def tridiagonal_solve(diagonals: Any, rhs: Any, diagonals_format: str = "compact", transpose_rhs: bool = False,
                      conjugate_rhs: bool = False, name: str | None = None, partial_pivoting: bool = True,
                      perturb_singular: bool = False) -> EagerTensor:
    """TF's tridiagonal_solve: the diagonals in compact form [..., 3, M] (from a sequence of three, the shorter
    ones padded; or read off [..., M, M] matrices), TF's static checks, one TridiagonalSolve op."""
    def static_shape(t: Any, attribute: str) -> None:
        """TF's wrapper reads TensorShape attributes off its arguments unconverted: a NumPy array's shape is a
        tuple, a Python list has none (AttributeError, as in TF)."""
        if not isinstance(t, (Tensor, Variable)):
            owner = t.shape if hasattr(t, "shape") else t
            missing = attribute if hasattr(t, "shape") else "shape"
            raise AttributeError(f"'{type(owner).__name__}' object has no attribute '{missing}'")

    if perturb_singular and not partial_pivoting:
        raise ValueError("partial_pivoting must be True if perturb_singular is.")
    if diagonals_format == "sequence":
        if not isinstance(diagonals, (tuple, list)) or len(diagonals) != 3:
            raise ValueError("Expected diagonals to be a sequence of length 3.")
        static_shape(diagonals[2], "is_compatible_with")
        static_shape(diagonals[0], "is_compatible_with")
        superdiag, maindiag, subdiag = (convert_to_tensor(d) for d in diagonals)
        if tuple(subdiag.shape[:-1]) != tuple(maindiag.shape[:-1]) or tuple(superdiag.shape[:-1]) != tuple(maindiag.shape[:-1]):
            raise ValueError(f"Tensors representing the three diagonals must have the same shape,except for the last "
                             f"dimension, got {subdiag.shape}, {maindiag.shape}, {superdiag.shape}")
        m = maindiag.shape[-1]

        def padded(t: EagerTensor, label: str, last: list) -> EagerTensor:
            n = t.shape[-1]
            if not n or n == m:
                return t
            if n == m - 1:
                return pad(t, [[0, 0]] * (t.ndim - 1) + [last])
            raise ValueError(f"Expected {label} to be have length {m} or {m - 1}, got {n}.")

        subdiag, superdiag = padded(subdiag, "subdiagonal", [1, 0]), padded(superdiag, "superdiagonal", [0, 1])
        diagonals = stack((superdiag, maindiag, subdiag), axis=-2)
    elif diagonals_format == "matrix":
        if not hasattr(diagonals, "shape"):
            raise AttributeError(f"'{type(diagonals).__name__}' object has no attribute 'shape'")
        diagonals = convert_to_tensor(diagonals)
        m1, m2 = diagonals.shape[-1], diagonals.shape[-2]
        if m1 != m2:
            raise ValueError(f"Expected last two dimensions of diagonals to be same, got {m1} and {m2}")
        # TF reads the three diagonals with one MatrixDiagPartV3 (k=(-1, 1), LEFT_RIGHT): the same values
        if m1 == 0:
            diagonals = zeros(tuple(diagonals.shape[:-2]) + (3, 0), diagonals.dtype)
        else:
            edge = [[0, 0]] * (diagonals.ndim - 2)
            above = pad(diag_part(diagonals, k=1), edge + [[0, 1]]) if m1 > 1 else zeros_like(diag_part(diagonals))
            below = pad(diag_part(diagonals, k=-1), edge + [[1, 0]]) if m1 > 1 else zeros_like(diag_part(diagonals))
            diagonals = stack((above, diag_part(diagonals), below), axis=-2)
    elif diagonals_format != "compact":
        raise ValueError(f"Unrecognized diagonals_format: {diagonals_format}")
    static_shape(diagonals, "rank")
    static_shape(rhs, "rank")
    diagonals = convert_to_tensor(diagonals)
    rhs = convert_to_tensor(rhs)
    if diagonals.ndim < 2:
        raise ValueError(f"Expected diagonals to have rank at least 2, got {diagonals.ndim}")
    if rhs.ndim != diagonals.ndim and rhs.ndim != diagonals.ndim - 1:
        raise ValueError(f"Expected the rank of rhs to be {diagonals.ndim - 1} or {diagonals.ndim}, got {rhs.ndim}")
    if tuple(diagonals.shape[:-2]) != tuple(rhs.shape[:diagonals.ndim - 2]):
        raise ValueError(f"Batch shapes {diagonals.shape[:-2]} and {rhs.shape[:diagonals.ndim - 2]} are incompatible")
    if diagonals.shape[-2] != 3:
        raise ValueError(f"Expected 3 diagonals got {diagonals.shape[-2]}")

    def check_sides() -> None:
        if diagonals.shape[-1] and rhs.shape[-2] and diagonals.shape[-1] != rhs.shape[-2]:
            raise ValueError(f"Expected number of left-hand sided and right-hand sides to be equal, got "
                             f"{diagonals.shape[-1]} and {rhs.shape[-2]}")

    attrs = {"partial_pivoting": bool(partial_pivoting), "perturb_singular": bool(perturb_singular)}
    if rhs.ndim == diagonals.ndim - 1:  # a vector of right-hand sides, transpose_rhs ignored
        rhs = expand_dims(conj(rhs) if conjugate_rhs else rhs, -1)
        check_sides()
        return squeeze(execute("TridiagonalSolve", _matching([diagonals, rhs], strict=True), **attrs), [-1])
    if transpose_rhs:
        rhs = matrix_transpose(rhs, conjugate=conjugate_rhs)
    elif conjugate_rhs:
        rhs = conj(rhs)
    check_sides()
    return execute("TridiagonalSolve", _matching([diagonals, rhs], strict=True), **attrs)


# Segments (issue 24): sorted, unsorted and sparse segment reductions; the means and square-root
# normalisations of unsorted segments are TF's composites (a segment sum divided by the row counts).


def _sorted_segment_function(op: str, doc: str):
    def reduce(data: Any, segment_ids: Any, name: str | None = None) -> EagerTensor:
        data = convert_to_tensor(data)
        return execute(op, [data], segment_ids=_index_values(segment_ids, "Tindices", _INT32_OR_64))
    reduce.__doc__ = doc
    return reduce


segment_mean = _sorted_segment_function("SegmentMean", "The mean of each sorted segment's rows (0 for an empty one).")
segment_min = _sorted_segment_function("SegmentMin", "The minimum of each sorted segment's rows (0 for an empty one).")
segment_max = _sorted_segment_function("SegmentMax", "The maximum of each sorted segment's rows (0 for an empty one).")
segment_prod = _sorted_segment_function("SegmentProd", "The product of each sorted segment's rows (1 for an empty one).")


def _unsorted_segment_function(op: str, doc: str):
    def reduce(data: Any, segment_ids: Any, num_segments: Any, name: str | None = None) -> EagerTensor:
        data = convert_to_tensor(data)
        ids = _index_values(segment_ids, "Tindices", ("int16",) + _INT32_OR_64)
        count = _index_values(num_segments, "Tnumsegments", _INT32_OR_64)
        _check_unsorted_segments(tuple(data.shape), ids, count)
        return execute(op, [data], indices=ids, num_segments=int(count))
    reduce.__doc__ = doc
    return reduce


unsorted_segment_min = _unsorted_segment_function(
    "UnsortedSegmentMin", "The minimum of each segment's rows (the dtype's highest value for an empty one).")
unsorted_segment_max = _unsorted_segment_function(
    "UnsortedSegmentMax", "The maximum of each segment's rows (the dtype's lowest value for an empty one).")
unsorted_segment_prod = _unsorted_segment_function(
    "UnsortedSegmentProd", "The product of each segment's rows (1 for an empty one).")


def _unsorted_segment_count(data: EagerTensor, segment_ids: Any, num_segments: Any) -> EagerTensor:
    """TF's row counts of the segments, at least 1, shaped to broadcast against the segment sums (a
    Maximum op: complex data is refused there)."""
    ids = convert_to_tensor(segment_ids)
    counts = unsorted_segment_sum(ones(tuple(ids.shape), data.dtype), ids, num_segments)
    count = int(_index_values(num_segments, "Tnumsegments", _INT32_OR_64))
    counts = reshape(counts, (count,) + (1,) * (data.ndim - ids.ndim))
    return maximum(counts, convert_to_tensor(1, data.dtype))


def unsorted_segment_mean(data: Any, segment_ids: Any, num_segments: Any, name: str | None = None) -> EagerTensor:
    """Each segment's sum divided by its row count (at least 1), as TF composes it."""
    data = convert_to_tensor(data)
    counts = _unsorted_segment_count(data, segment_ids, num_segments)
    return truediv(unsorted_segment_sum(data, segment_ids, num_segments), counts)


def unsorted_segment_sqrt_n(data: Any, segment_ids: Any, num_segments: Any, name: str | None = None) -> EagerTensor:
    """Each segment's sum divided by the square root of its row count (at least 1), as TF composes it."""
    data = convert_to_tensor(data)
    counts = _unsorted_segment_count(data, segment_ids, num_segments)
    return truediv(unsorted_segment_sum(data, segment_ids, num_segments), sqrt(counts))


def _sparse_segment_function(kind: str, doc: str):
    def reduce(data: Any, indices: Any, segment_ids: Any, num_segments: Any = None, name: str | None = None,
               sparse_gradient: bool = False) -> EagerTensor:
        if sparse_gradient:
            raise NotImplementedError("reftape's sparse segment reductions have dense gradients only")
        data = convert_to_tensor(data)
        attrs = {"indices": _index_values(indices, "Tidx", _INT32_OR_64),
                 "segment_ids": _index_values(segment_ids, "Tsegmentids", _INT32_OR_64)}
        if num_segments is None:
            return execute(f"SparseSegment{kind}", [data], **attrs)
        count = _index_values(num_segments, "Tnumsegments", _INT32_OR_64)
        return execute(f"SparseSegment{kind}WithNumSegments", [data], num_segments=int(count), **attrs)
    reduce.__doc__ = doc
    return reduce


sparse_segment_sum = _sparse_segment_function("Sum", "The sum of the rows at `indices`, by sorted segment ids.")
sparse_segment_mean = _sparse_segment_function("Mean", "The mean of the rows at `indices`, by sorted segment ids.")
sparse_segment_sqrt_n = _sparse_segment_function(
    "SqrtN", "The sum of the rows at `indices` by sorted segment ids, divided by the square root of the count.")


# ---------------------------------------------------------------------------------------------
# Array ops (issue 24): roll, space_to_depth and depth_to_space are kernels; repeat, tensordot, the
# image flips and strided_slice's masks compose existing ops as TF composes them.


def roll(input: Any, shift: Any, axis: Any, name: str | None = None) -> EagerTensor:  # noqa: A002
    """Shifts elements along axes (cyclically); the gradient rolls the upstream back."""
    tensor = convert_to_tensor(input)
    shifts = _index_values(shift, "Tshift", _INT32_OR_64)
    axes = _index_values(axis, "Taxis", _INT32_OR_64)
    return execute("Roll", [tensor], shift=shifts, axis=axes)


def repeat(input: Any, repeats: Any, axis: Any = None, name: str | None = None) -> EagerTensor:  # noqa: A002
    """Each slice along `axis` repeated (the flattened input without an axis), as TF composes it: a scalar
    count tiles a new axis and reshapes; counts per slice tile by the largest and mask the surplus out."""
    if axis is None:
        input, axis = reshape(input, [-1]), 0
    if not isinstance(axis, int):
        raise TypeError(f"Argument `axis` must be an int. Received `axis` = {axis} of type {type(axis).__name__}")
    data = convert_to_tensor(input)
    counts = convert_to_tensor(repeats, dtype_hint=_dtypes.int32)
    if not counts.dtype.is_integer:
        raise TypeError(f"Argument `tensor` (name: repeats) must be of type integer. Received `tensor` = "
                        f"{counts._value} of dtype: <dtype: '{counts.dtype.name}'>")
    counts = counts._value.astype(np.int32)
    if counts.ndim > 1:
        raise ValueError(f"Shape {TensorShape(counts.shape)} must have rank at most 1")
    if data.ndim == 0:
        data = reshape(data, [1])
    rank = data.ndim
    if not -rank <= axis < rank:
        raise ValueError(f"axis={axis} out of bounds: expected {-rank}<=axis<{rank}")
    axis = axis + rank if axis < 0 else axis
    shape = tuple(data.shape)
    if counts.size == 1:
        count = int(counts.reshape(()))
        tiled = tile(expand_dims(data, axis + 1), [count if i == axis + 1 else 1 for i in builtins.range(rank + 1)])
        return reshape(tiled, shape[:axis] + (count * shape[axis],) + shape[axis + 1:])
    if counts.ndim == 1 and counts.shape[0] != shape[axis]:
        raise ValueError(f"Dimensions {shape[axis]} and {counts.shape[0]} are not compatible")
    counts = np.broadcast_to(counts, (shape[axis],))
    full = np.broadcast_to(counts, shape[:axis + 1])
    longest = builtins.max(int(full.max()) if full.size else 0, 0)
    mask = np.arange(longest) < full[..., None]
    tiled = tile(expand_dims(data, axis + 1), [longest if i == axis + 1 else 1 for i in builtins.range(rank + 1)])
    masked = boolean_mask(tiled, mask)
    if axis == 0:
        return masked
    return reshape(masked, shape[:axis] + (int(counts.sum()),) + shape[axis + 1:])


def tensordot(a: Any, b: Any, axes: Any, name: str | None = None) -> EagerTensor:
    """Sums products over `axes` (a count of a's last and b's first axes, or two lists), as TF composes it:
    each operand transposed (free axes first in a, last in b) and reshaped to a matrix, one MatMul, and
    the product reshaped to the free dimensions."""
    a, b = convert_to_tensor(a), convert_to_tensor(b)
    static = True
    if isinstance(axes, numbers.Integral) and not isinstance(axes, EagerTensor):
        if axes < 0:
            raise ValueError(f"`axes` must be at least 0. Received: {axes}.")
        if axes > a.ndim:
            raise ValueError(f"`axes` must not be larger than the number of dimensions of tensor {a}.  Received "
                             f"{axes}, vs tensor dimensions {a.ndim}.")
        a_axes, b_axes = list(builtins.range(a.ndim - axes, a.ndim)), list(builtins.range(axes))
    elif isinstance(axes, (list, tuple)):
        if len(axes) != 2:
            raise ValueError(f"`axes` must be an integer or have length 2. Received {axes}.")
        a_axes, b_axes = axes
        if isinstance(a_axes, numbers.Integral) and isinstance(b_axes, numbers.Integral):
            a_axes, b_axes = [a_axes], [b_axes]
        if len(a_axes) != len(b_axes):
            raise ValueError(f"Different number of contraction axes `a` and `b`, {len(a_axes)} != {len(b_axes)}.")
        static = isinstance(a_axes, (list, tuple)) and isinstance(b_axes, (list, tuple))
    else:
        pair = convert_to_tensor(axes, _dtypes.int32)._value
        a_axes, b_axes, static = pair[0], pair[1], False
    a_matrix, a_free = _tensordot_matrix(a, a_axes, False, static)
    b_matrix, b_free = _tensordot_matrix(b, b_axes, True, static)
    product = matmul(a_matrix, b_matrix)
    if static and list(product.shape) == a_free + b_free:
        return product
    return reshape(product, a_free + b_free)


def _tensordot_matrix(t: EagerTensor, axes: Any, flipped: bool, static: bool) -> tuple:
    """An operand of tensordot as a matrix (contracted axes first when `flipped`), and its free dimensions;
    with axes given as lists, transposes and reshapes only where they change something (as TF)."""
    shape = list(t.shape)
    axes = [int(i) + len(shape) if i < 0 else int(i) for i in np.asarray(axes).reshape(-1)]
    free = [i for i in builtins.range(len(shape)) if i not in axes]
    free_dims = [shape[i] for i in free]
    prod_free = int(np.prod([shape[i] for i in free]))
    prod_axes = int(np.prod([shape[i] for i in axes]))
    perm = axes + free if flipped else free + axes
    new_shape = [prod_axes, prod_free] if flipped else [prod_free, prod_axes]
    if not static:
        return reshape(transpose(t, perm), new_shape), free_dims
    moved = transpose(t, perm) if perm != list(builtins.range(len(shape))) else t
    return (reshape(moved, new_shape) if list(moved.shape) != new_shape else moved), free_dims


def _block_op(op: str, input: Any, block_size: Any, data_format: str) -> EagerTensor:  # noqa: A002
    tensor = convert_to_tensor(input)
    if data_format != "NHWC":
        raise NotFoundError(f"Could not find device for node: {{{{node {op}}}}} = {op}[T=DT_"
                            f"{tensor.dtype.kernel_name.upper()}, block_size={block_size}, data_format=\"{data_format}\"]")
    return execute(op, [tensor], block_size=int(block_size), data_format=data_format)


def space_to_depth(input: Any, block_size: Any, data_format: str = "NHWC", name: str | None = None) -> EagerTensor:  # noqa: A002
    """Moves each block_size x block_size spatial block into the depth (NHWC on CPU, as TF)."""
    return _block_op("SpaceToDepth", input, block_size, data_format)


def depth_to_space(input: Any, block_size: Any, data_format: str = "NHWC", name: str | None = None) -> EagerTensor:  # noqa: A002
    """Spreads the depth over block_size x block_size spatial blocks (NHWC on CPU, as TF)."""
    return _block_op("DepthToSpace", input, block_size, data_format)


def _flip_image(image: Any, flip_index: int) -> EagerTensor:
    """TF's image flip: a ReverseV2 of the rows (0) or columns (1) of an image, or of each in a batch."""
    image = convert_to_tensor(image)
    if image.ndim < 3:
        raise ValueError(f"'image' (shape {image.shape}) must be at least three-dimensional.")
    if any(d == 0 for d in tuple(image.shape)[-3:]):
        raise ValueError(f"inner 3 dims of 'image.shape' must be > 0: {image.shape}")
    if image.ndim > 4:
        raise ValueError(f"'image' (shape {image.shape})must have either 3 or 4 dimensions.")
    return reverse(image, [flip_index + image.ndim - 3])


def flip_left_right(image: Any) -> EagerTensor:
    """The image mirrored left to right (ReverseV2 along its width)."""
    return _flip_image(image, 1)


def flip_up_down(image: Any) -> EagerTensor:
    """The image mirrored top to bottom (ReverseV2 along its height)."""
    return _flip_image(image, 0)


def _mask_bits(mask: int, count: int) -> list[bool]:
    return [bool(mask >> i & 1) for i in builtins.range(count)]


def strided_slice_with_masks(input_: Any, begin: Any, end: Any, strides: Any = None, begin_mask: int = 0,
                             end_mask: int = 0, ellipsis_mask: int = 0, new_axis_mask: int = 0,
                             shrink_axis_mask: int = 0, var: Any = None, name: str | None = None) -> EagerTensor:
    """tf.strided_slice: the slice spec's begin, end and strides with TF's masks, read as the Python subscript
    they stand for (an ellipsis, a new axis, an index that drops its axis, or a slice with its begin or end
    open), and taken as `tensor[...]` takes it."""
    tensor = convert_to_tensor(input_)
    starts = _index_values(begin, "Index", ("int16",) + _INT32_OR_64).reshape(-1)
    stops = _index_values(end, "Index", ("int16",) + _INT32_OR_64).reshape(-1)
    steps = np.ones_like(starts) if strides is None else _index_values(strides, "Index", ("int16",) + _INT32_OR_64).reshape(-1)
    if not starts.size == stops.size == steps.size:
        raise InvalidArgumentError(f"Expected begin, end, and strides to be 1D equal size tensors, but got shapes "
                                   f"[{starts.size}], [{stops.size}], and [{steps.size}] instead. [Op:StridedSlice]")
    if np.any(steps == 0):
        raise InvalidArgumentError("strides[i] must be non-zero [Op:StridedSlice]")
    count = starts.size
    ellipses, new_axes, shrinks = (_mask_bits(m, count) for m in (ellipsis_mask, new_axis_mask, shrink_axis_mask))
    opens_begin, opens_end = _mask_bits(begin_mask, count), _mask_bits(end_mask, count)
    if sum(ellipses) > 1:
        raise InvalidArgumentError("Multiple ellipses in slice spec not allowed [Op:StridedSlice]")
    key = []
    for i in builtins.range(count):
        if ellipses[i]:
            key.append(Ellipsis)
        elif new_axes[i]:
            key.append(None)
        elif shrinks[i]:
            key.append(int(starts[i]))
        else:
            key.append(builtins.slice(None if opens_begin[i] else int(starts[i]), None if opens_end[i] else int(stops[i]),
                                      int(steps[i])))
    return strided_slice(tensor, tuple(key))


# ---------------------------------------------------------------------------------------------
# Special functions of issue 24 (kernels where TF has one; lbeta and a real angle composed as TF composes them)

erfinv = _unary_function("Erfinv", "The inverse error function; its gradient is sqrt(pi) / 2 exp(erfinv(x)^2).")
ndtri = _unary_function("Ndtri", "The inverse of the standard normal CDF.")
bessel_i0e = _unary_function("BesselI0e", "exp(-|x|) I0(x), the scaled modified Bessel function of order 0.")
bessel_i1e = _unary_function("BesselI1e", "exp(-|x|) I1(x), the scaled modified Bessel function of order 1.")
bessel_i0 = _unary_function("BesselI0", "I0(x), the modified Bessel function of order 0.")
bessel_i1 = _unary_function("BesselI1", "I1(x), the modified Bessel function of order 1.")


bessel_k0 = _unary_function("BesselK0", "K0(x), the modified Bessel function of the second kind of order 0.")
bessel_k0e = _unary_function("BesselK0e", "exp(x) K0(x).")
bessel_k1 = _unary_function("BesselK1", "K1(x), the modified Bessel function of the second kind of order 1.")
bessel_k1e = _unary_function("BesselK1e", "exp(x) K1(x).")


bessel_j0 = _unary_function("BesselJ0", "J0(x), the Bessel function of the first kind of order 0.")
bessel_j1 = _unary_function("BesselJ1", "J1(x), the Bessel function of the first kind of order 1.")
bessel_y0 = _unary_function("BesselY0", "Y0(x), the Bessel function of the second kind of order 0 (-inf at 0).")
bessel_y1 = _unary_function("BesselY1", "Y1(x), the Bessel function of the second kind of order 1.")
dawsn = _unary_function("Dawsn", "Dawson's integral; its gradient is 1 - 2 x dawsn(x).")
expint = _unary_function("Expint", "The exponential integral Ei(x) (NaN below 0); its gradient is exp(x) / x.")
fresnel_cos = _unary_function("FresnelCos", "The Fresnel cosine integral; its gradient is cos(pi x^2 / 2).")
fresnel_sin = _unary_function("FresnelSin", "The Fresnel sine integral; its gradient is sin(pi x^2 / 2).")
spence = _unary_function("Spence", "Spence's function (NaN below 0); its gradient is log(x) / (1 - x), -1 at 1.")


def igamma(a: Any, x: Any, name: str | None = None) -> EagerTensor:
    """The lower regularized incomplete gamma function P(a, x); differentiable in a (IgammaGradA) and x."""
    return _binary("Igamma", a, x)


def igammac(a: Any, x: Any, name: str | None = None) -> EagerTensor:
    """The upper regularized incomplete gamma function Q(a, x) = 1 - P(a, x)."""
    return _binary("Igammac", a, x)


def betainc(a: Any, b: Any, x: Any, name: str | None = None) -> EagerTensor:
    """The regularized incomplete beta function I_x(a, b); differentiable in x only. a, b and x have one shape
    or are scalars (TF's kernel checks each pair of non-scalars, InvalidArgumentError)."""
    a, b, x = _matching([a, b, x], strict=True)
    for (p, first), (q, second) in ((("a", a), ("b", b)), (("a", a), ("x", x)), (("b", b), ("x", x))):
        if first.ndim and second.ndim and tuple(first.shape) != tuple(second.shape):
            raise InvalidArgumentError(f"Shapes of {p} and {q} are inconsistent: {dims_text(tuple(first.shape))} vs. "
                                       f"{dims_text(tuple(second.shape))} [Op:Betainc]")
    return execute("Betainc", [a, b, x])


def nextafter(x1: Any, x2: Any, name: str | None = None) -> EagerTensor:
    """The next representable value after x1 toward x2; its gradient is the upstream for x1, zeros for x2. With
    no tensor among the arguments, TF's wrapper converts the first as it would, then, if that is no float32 or
    float64, toward the op's default dtype float32 (so Python integers become float32)."""
    if not isinstance(x1, EagerTensor) and not isinstance(x2, EagerTensor):
        first = convert_to_tensor(x1)
        if first.dtype not in (_dtypes.float32, _dtypes.float64):
            first = convert_to_tensor(x1, dtype_hint=_dtypes.float32)
        return execute("NextAfter", [first, convert_to_tensor(x2, dtype=first.dtype)])
    return _binary("NextAfter", x1, x2)


def lbeta(x: Any, name: str | None = None) -> EagerTensor:
    """log|Beta(x)| along the last axis, TF's composite: the sum of lgamma(x) less lgamma of the sum."""
    x = convert_to_tensor(x)
    return subtract(reduce_sum(lgamma(x), axis=[-1]), lgamma(reduce_sum(x, axis=[-1])))


def angle(input: Any, name: str | None = None) -> EagerTensor:  # noqa: A002 - TF's name
    """The complex argument (the Angle kernel); for a real input, TF's composite: pi where negative, else 0."""
    input = convert_to_tensor(input)
    if input.dtype.is_complex:
        return execute("Angle", [input])
    return where(less(input, 0), multiply(ones_like(input), np.pi), zeros_like(input))


# tf.signal's complex FFTs (issue 24)
fft = _unary_function("FFT", "The discrete Fourier transform over the innermost axis; its gradient is ifft times n.")
ifft = _unary_function("IFFT", "The inverse discrete Fourier transform over the innermost axis.")
fft2d = _unary_function("FFT2D", "The discrete Fourier transform over the innermost two axes.")
ifft2d = _unary_function("IFFT2D", "The inverse discrete Fourier transform over the innermost two axes.")


# ---------------------------------------------------------------------------------------------
# Pooling and normalisation: the public functions over the MaxPool, AvgPool, MaxPool3D, AvgPool3D,
# MaxPoolWithArgmax and LRN kernels, wrapped as TF wraps them (1-d pools as 2-d ones over an inserted axis,
# ksize and strides expanded to one value per axis); batch_normalization composed as TF composes it.

_PADDINGS = ("SAME", "VALID", "EXPLICIT")


def _pool_sequence(value: Any, n: int, channel_index: int, name: str) -> list:
    """An int or a list of 1, n or n + 2 values as one value per axis (1 on the batch and channel axes)."""
    if value is None:
        return [1] * (n + 2)
    if isinstance(value, (list, tuple)):
        value = list(value)
    elif isinstance(value, (int, np.integer)) or not hasattr(value, "__len__"):
        value = [value]
    else:
        value = list(value)
    value = [int(v) for v in value]
    if len(value) == n + 2:
        return value
    if len(value) == 1:
        value = value * n
    elif len(value) != n:
        raise ValueError(f"{name} should be of length 1, {n} or {n + 2}. Received: {name}={value} of length {len(value)}")
    return [1, 1] + value if channel_index == 1 else [1] + value + [1]


def _pool_padding(op: str, padding: Any, explicit: bool, expected: int = 4) -> tuple[str, list]:
    """(padding, explicit_paddings) as the op's wrapper passes them; lists only where the op takes them."""
    if isinstance(padding, (list, tuple)):
        if not explicit:
            raise TypeError(f"Expected string for argument 'padding' not {padding!r}.")
        flat = []
        for i, pair in enumerate(padding):
            if not isinstance(pair, (list, tuple)) or len(pair) != 2:
                raise ValueError(f"When `padding` is a list, each element of `padding` must be a list/tuple of size 2. "
                                 f"Received: padding={padding} with element at index {i}")
            flat.extend(int(p) for p in pair)
        if len(padding) != expected:
            raise ValueError(f"When padding is a list, it must be of size {expected}. Received: padding={padding} of "
                             f"size {len(padding)}")
        return "EXPLICIT", flat
    if explicit and padding == "EXPLICIT":
        raise ValueError("'EXPLICIT' is not a valid value for `padding`. To use explicit padding, `padding` must be a list.")
    if not isinstance(padding, str):
        raise TypeError(f"Expected string for argument 'padding' not {padding!r}.")
    if padding not in (_PADDINGS if explicit else _PADDINGS[:2]):
        allowed = ", ".join(f'"{p}"' for p in (_PADDINGS if explicit else _PADDINGS[:2]))
        raise InvalidArgumentError(f"Value for attr 'padding' of \"{padding}\" is not in the list of allowed values: "
                                   f"{allowed} [Op:{op}]")
    return padding, []


def _max_pool_2d_op(input: Any, ksize: list, strides: list, padding: Any, data_format: str) -> EagerTensor:
    padding, explicit = _pool_padding("MaxPool", padding, True)
    return execute("MaxPool", [input], ksize=tuple(ksize), strides=tuple(strides), padding=padding,
                   explicit_paddings=tuple(explicit), data_format=data_format)


def max_pool2d(input: Any, ksize: Any, strides: Any, padding: Any, data_format: str = "NHWC",  # noqa: A002
               name: str | None = None) -> EagerTensor:
    """The MaxPool kernel; `padding` "SAME", "VALID" or a list of [before, after] pairs per axis."""
    input = convert_to_tensor(input)
    data_format = data_format or "NHWC"
    channel_index = 1 if data_format.startswith("NC") else 3
    ksize = _pool_sequence(ksize, 2, channel_index, "ksize")
    strides = _pool_sequence(strides, 2, channel_index, "strides")
    return _max_pool_2d_op(input, ksize, strides, padding, data_format)


def _pool_1d(op: str, input: Any, ksize: Any, strides: Any, padding: Any, data_format: str | None) -> EagerTensor:
    """A 1-d pool: the 2-d kernel over an axis of size 1 inserted before the spatial one, squeezed after."""
    input = convert_to_tensor(input)
    data_format = data_format or "NWC"
    channel_index = 1 if data_format.startswith("NC") else 2
    ksize = [1] + _pool_sequence(ksize, 1, channel_index, "ksize")
    strides = [1] + _pool_sequence(strides, 1, channel_index, "strides")
    if op == "MaxPool":
        padding, explicit = _pool_padding(op, padding, True, 3)
        if padding == "EXPLICIT":
            explicit = [0, 0] + explicit
    else:
        padding, explicit = _pool_padding(op, padding, False)
    axis = 1 if data_format == "NWC" else 2
    expanded = expand_dims(input, axis)
    attrs = dict(ksize=tuple(ksize), strides=tuple(strides), padding=padding,
                 data_format="NHWC" if data_format == "NWC" else "NCHW")
    if op == "MaxPool":
        attrs["explicit_paddings"] = tuple(explicit)
    else:
        attrs["T"] = input.dtype
    return squeeze(execute(op, [expanded], **attrs), axis)


def max_pool1d(input: Any, ksize: Any, strides: Any, padding: Any, data_format: str = "NWC",  # noqa: A002
               name: str | None = None) -> EagerTensor:
    return _pool_1d("MaxPool", input, ksize, strides, padding, data_format)


def avg_pool1d(input: Any, ksize: Any, strides: Any, padding: Any, data_format: str = "NWC",  # noqa: A002
               name: str | None = None) -> EagerTensor:
    return _pool_1d("AvgPool", input, ksize, strides, padding, data_format)


def avg_pool2d(input: Any, ksize: Any, strides: Any, padding: Any, data_format: str = "NHWC",  # noqa: A002
               name: str | None = None) -> EagerTensor:
    """The AvgPool kernel: each window's mean over its positions inside the input."""
    input = convert_to_tensor(input)
    data_format = data_format or "NHWC"
    channel_index = 1 if data_format.startswith("NC") else 3
    ksize = _pool_sequence(ksize, 2, channel_index, "ksize")
    strides = _pool_sequence(strides, 2, channel_index, "strides")
    padding, _ = _pool_padding("AvgPool", padding, False)
    return execute("AvgPool", [input], ksize=tuple(ksize), strides=tuple(strides), padding=padding,
                   data_format=data_format, T=input.dtype)


def _pool_3d(op: str, input: Any, ksize: Any, strides: Any, padding: Any, data_format: str | None,
             keep_none: bool = False) -> EagerTensor:
    """A 3-d pool; `keep_none`: a data_format of None reaches the op as it is (max_pool and avg_pool pass it)."""
    input = convert_to_tensor(input)
    data_format = data_format if keep_none else data_format or "NDHWC"
    channel_index = 1 if (data_format or "").startswith("NC") else 4
    ksize = _pool_sequence(ksize, 3, channel_index, "ksize")
    strides = _pool_sequence(strides, 3, channel_index, "strides")
    padding, _ = _pool_padding(op, padding, False)
    return execute(op, [input], ksize=tuple(ksize), strides=tuple(strides), padding=padding, data_format=data_format,
                   **({"T": input.dtype} if op == "AvgPool3D" else {}))


def max_pool3d(input: Any, ksize: Any, strides: Any, padding: Any, data_format: str = "NDHWC",  # noqa: A002
               name: str | None = None) -> EagerTensor:
    return _pool_3d("MaxPool3D", input, ksize, strides, padding, data_format)


def avg_pool3d(input: Any, ksize: Any, strides: Any, padding: Any, data_format: str = "NDHWC",  # noqa: A002
               name: str | None = None) -> EagerTensor:
    return _pool_3d("AvgPool3D", input, ksize, strides, padding, data_format)


def _spatial_dims(input: EagerTensor, data_format: str | None) -> int:
    n = input.ndim - 2
    if not 1 <= n <= 3:
        raise ValueError(f"`input.shape.rank` must be 3, 4 or 5. Received: input.shape={input.shape} of rank {n + 2}.")
    return n


def max_pool(input: Any, ksize: Any, strides: Any, padding: Any, data_format: str | None = None,  # noqa: A002
             name: str | None = None) -> EagerTensor:
    """max_pool1d, max_pool2d or max_pool3d by the input's rank."""
    input = convert_to_tensor(input)
    n = _spatial_dims(input, data_format)
    channel_index = n + 1 if data_format is None else 1 if data_format.startswith("NC") else n + 1
    if isinstance(padding, (list, tuple)) and data_format == "NCHW_VECT_C":
        raise ValueError(f"`data_format='NCHW_VECT_C'` is not supported with explicit padding. Received: padding={padding}")
    ksize = _pool_sequence(ksize, n, channel_index, "ksize")
    strides = _pool_sequence(strides, n, channel_index, "strides")
    if isinstance(padding, (list, tuple)) and n == 3:
        raise ValueError(f"Explicit padding is not supported with an input tensor of rank 5. Received: padding={padding}")
    if n == 1:
        return max_pool1d(input, ksize, strides, padding, data_format=data_format)
    if n == 2:
        return max_pool2d(input, ksize, strides, padding, data_format=data_format)
    return _pool_3d("MaxPool3D", input, ksize, strides, padding, data_format, keep_none=True)


def avg_pool(input: Any, ksize: Any, strides: Any, padding: Any, data_format: str | None = None,  # noqa: A002
             name: str | None = None) -> EagerTensor:
    """avg_pool1d, the AvgPool kernel or the AvgPool3D kernel by the input's rank."""
    input = convert_to_tensor(input)
    n = _spatial_dims(input, data_format)
    channel_index = n + 1 if data_format is None else 1 if data_format.startswith("NC") else n + 1
    ksize = _pool_sequence(ksize, n, channel_index, "ksize")
    strides = _pool_sequence(strides, n, channel_index, "strides")
    if n == 1:
        return avg_pool1d(input, ksize, strides, padding, data_format=data_format)
    if n == 2:
        return avg_pool2d(input, ksize, strides, padding, data_format=data_format or "NHWC")
    return _pool_3d("AvgPool3D", input, ksize, strides, padding, data_format, keep_none=True)


MaxPoolWithArgmax = collections.namedtuple("MaxPoolWithArgmax", ["output", "argmax"])


def max_pool_with_argmax(input: Any, ksize: Any, strides: Any, padding: Any, data_format: str = "NHWC",  # noqa: A002
                         output_dtype: Any = _dtypes.int64, include_batch_in_index: bool = False,
                         name: str | None = None) -> MaxPoolWithArgmax:
    """The maxima and the flat index of each one's input element (the batch counted in the index or not)."""
    if data_format != "NHWC":
        raise ValueError(f"`data_format` values other  than 'NHWC' are not supported. Received: data_format={data_format}")
    input = convert_to_tensor(input)
    ksize = _pool_sequence(ksize, 2, 3, "ksize")
    strides = _pool_sequence(strides, 2, 3, "strides")
    padding, _ = _pool_padding("MaxPoolWithArgmax", padding, False)
    output_dtype = _dtypes.as_dtype(output_dtype)
    output, argmax = execute("MaxPoolWithArgmax", [input], ksize=tuple(ksize), strides=tuple(strides), padding=padding,
                             include_batch_in_index=bool(include_batch_in_index), Targmax=output_dtype.as_numpy_dtype)
    return MaxPoolWithArgmax(output, argmax)


def pool(input: Any, window_shape: Any, pooling_type: str, strides: Any = None, padding: str = "VALID",  # noqa: A002
         data_format: str | None = None, dilations: Any = None, name: str | None = None) -> EagerTensor:
    """The generic pool: max_pool or avg_pool of the window (1-d through an inserted axis); dilations of 1 only."""
    input = convert_to_tensor(input)
    n = len(window_shape)
    if not 1 <= n <= 3:
        raise ValueError(f"`len(window_shape)` must be 1, 2, or 3. Received: window_shape={window_shape} of length {n}")
    if input.ndim != n + 2:
        raise ValueError(f"Shape {input.shape} must have rank {n + 2}")
    strides = np.ones(n, int) if strides is None else np.array(strides, int).reshape(-1)
    dilations = np.ones(n, int) if dilations is None else np.array(dilations, int).reshape(-1)
    if len(strides) != n:
        raise ValueError(f"len(strides)={len(strides)} but should be {n}")
    if len(dilations) != n:
        raise ValueError(f"len(dilation_rate)={len(dilations)} but should be {n}")
    if np.any(strides < 1):
        raise ValueError(f"all values of strides must be positive. Received strides={strides}")
    if np.any(dilations < 1):
        raise ValueError(f"all values of dilation_rate must be positive. Received dilation_rate={dilations}")
    if np.any(strides > 1) and np.any(dilations > 1):
        raise ValueError(f"strides > 1 not supported in conjunction with dilation_rate > 1. Received: strides={strides} "
                         f"and dilation_rate={dilations}")
    if padding == "SAME" and np.any(dilations > 1):
        raise ValueError(f"pooling with 'SAME' padding is not implemented for `dilation_rate` > 1. Received: "
                         f"padding={padding} and dilation_rate={dilations}")
    if np.any(strides > np.array(window_shape)):
        raise ValueError(f"`strides` > `window_shape` not supported due to inconsistency between CPU and GPU "
                         f"implementations. Received: strides={strides} and window_shape={window_shape}")
    if (pooling_type, n) not in {(t, d) for t in ("MAX", "AVG") for d in (1, 2, 3)}:
        raise ValueError(f"{n}-D {pooling_type} pooling is not supported.")
    if np.any(dilations > 1):
        raise NotImplementedError("reftape's pool takes dilations of 1 only (TF dilates through SpaceToBatchND)")
    channels_first = data_format is not None and data_format.startswith("NC")
    window = ([1, 1] if channels_first else [1]) + [int(w) for w in window_shape] + ([] if channels_first else [1])
    steps = ([1, 1] if channels_first else [1]) + [int(s) for s in strides] + ([] if channels_first else [1])
    if n == 1:
        if data_format not in (None, "NWC", "NCW"):
            raise ValueError(f"data_format must be either 'NWC' or 'NCW'. Received: data_format={data_format}")
        axis = 2 if channels_first else 1
        result = execute("MaxPool" if pooling_type == "MAX" else "AvgPool", [expand_dims(input, axis)],
                         ksize=tuple([1] + window), strides=tuple([1] + steps),
                         padding=_pool_padding("MaxPool" if pooling_type == "MAX" else "AvgPool", padding, False)[0],
                         data_format="NCHW" if channels_first else "NHWC",
                         **({"explicit_paddings": ()} if pooling_type == "MAX" else {"T": input.dtype}))
        return squeeze(result, [axis])
    if n == 2:
        pooled = max_pool if pooling_type == "MAX" else avg_pool
        return pooled(input, window, steps, padding, data_format=data_format)
    pooled3d = max_pool3d if pooling_type == "MAX" else avg_pool3d
    return pooled3d(input, window, steps, padding, data_format=data_format or "NDHWC")


def batch_normalization(x: Any, mean: Any, variance: Any, offset: Any, scale: Any, variance_epsilon: Any,
                        name: str | None = None) -> EagerTensor:
    """(x - mean) / sqrt(variance + epsilon) * scale + offset, composed as TF composes it: the scale joins the
    inverse root first, the mean's share is folded into the offset, both cast to x's dtype."""
    inv = rsqrt(variance + variance_epsilon)
    if scale is not None:
        inv *= scale
    return x * cast(inv, x.dtype) + cast(offset - mean * inv if offset is not None else -mean * inv, x.dtype)


def local_response_normalization(input: Any, depth_radius: int = 5, bias: float = 1, alpha: float = 1,  # noqa: A002
                                 beta: float = 0.5, name: str | None = None) -> EagerTensor:
    """The LRN kernel over the last axis of a 4-D input (its float attributes held as float32, as TF holds them)."""
    input = convert_to_tensor(input)
    return execute("LRN", [input], depth_radius=int(depth_radius), bias=float(np.float32(bias)),
                   alpha=float(np.float32(alpha)), beta=float(np.float32(beta)), T=input.dtype)


lrn = local_response_normalization


# ---------------------------------------------------------------------------------------------
# Convolutions (`tf.nn.conv*`, depthwise, separable): as TF's nn_ops and nn_impl compose them from Conv2D,
# Conv3D, DepthwiseConv2dNative and their input backprops (the transposes)


def _conv_sequence(value: Any, n: int, channel_index: int, name: str) -> list:
    """TF's _get_sequence: strides or dilations for every dimension, from one value, n or n + 2 of them."""
    if value is None:
        return [1] * (n + 2)
    value = [value] if isinstance(value, int) or not hasattr(value, "__len__") else list(value)
    if len(value) == n + 2:
        return value
    if len(value) == 1:
        value = value * n
    elif len(value) != n:
        raise ValueError(f"{name} should be of length 1, {n} or {n + 2}. Received: {name}={value} of length "
                         f"{len(value)}")
    return [1, 1] + value if channel_index == 1 else [1] + value + [1]


def _conv_padding(padding: Any, expected_length: int = 4) -> tuple[str, list]:
    """TF's convert_padding: "SAME" or "VALID", or a list of [before, after] pairs (EXPLICIT)."""
    explicit: list = []
    if padding == "EXPLICIT":
        raise ValueError("'EXPLICIT' is not a valid value for `padding`. To use explicit padding, `padding` must be "
                         "a list.")
    if isinstance(padding, (list, tuple)):
        for i, pair in enumerate(padding):
            if not isinstance(pair, (list, tuple)) or len(pair) != 2:
                raise ValueError(f"When `padding` is a list, each element of `padding` must be a list/tuple of size 2. "
                                 f"Received: padding={padding} with element at index {i}")
            explicit.extend(int(p) for p in pair)
        if len(padding) != expected_length:
            raise ValueError(f"When padding is a list, it must be of size {expected_length}. Received: "
                             f"padding={padding} of size {len(padding)}")
        padding = "EXPLICIT"
    _conv_string(padding)
    return padding, explicit


def _conv_string(padding: Any) -> None:
    """A padding where TF's op wrapper takes a string only (conv1d, conv3d)."""
    if not isinstance(padding, str):
        raise TypeError(f"Expected string for argument 'padding' not {padding!r}.")
    if padding not in ("SAME", "VALID", "EXPLICIT"):
        raise InvalidArgumentError(f"Value for attr 'padding' of \"{padding}\" is not in the list of allowed values: "
                                   f"\"SAME\", \"VALID\", \"EXPLICIT\"")


def _conv_ints(values: Any, name: str) -> tuple:
    if not isinstance(values, (list, tuple)):
        raise TypeError(f"Expected list for '{name}' argument to op, not {values!r}.")
    return tuple(int(v) for v in values)


def _squeezed_batch(x: EagerTensor, inner_rank: int, op: Any) -> EagerTensor:
    """TF's squeeze_batch_dims: the batch dimensions before the inner ones made one, and restored after."""
    if x.ndim <= inner_rank + 1:
        return op(x)
    batch = tuple(x.shape)[:-inner_rank]
    out = op(reshape(x, (-1,) + tuple(x.shape)[-inner_rank:]))
    return reshape(out, batch + tuple(out.shape)[-inner_rank:])


def _conv2d_op(x: EagerTensor, filters: EagerTensor, strides: Any, padding: str, explicit: Any, dilations: Any,
               data_format: str) -> EagerTensor:
    return execute("Conv2D", [x, filters], T=x.dtype, strides=_conv_ints(strides, "strides"), padding=padding,
                   explicit_paddings=tuple(explicit), dilations=_conv_ints(dilations, "dilations"),
                   data_format=data_format)


_NO_FORMAT = object()  # tf.nn.convolution's data format of None, which Conv2D records as it is


def conv2d(input: Any, filters: Any, strides: Any, padding: Any, data_format: str = "NHWC",  # noqa: A002
           dilations: Any = None, name: str | None = None) -> EagerTensor:
    """Conv2D over the last three dimensions (those before them are batch dimensions)."""
    if not hasattr(input, "shape"):  # TF reads the input's rank before converting it
        raise AttributeError(f"'{type(input).__name__}' object has no attribute 'shape'")
    padding, explicit = _conv_padding(padding)
    data_format = None if data_format is _NO_FORMAT else data_format or "NHWC"
    channel_index = 1 if data_format is not None and data_format.startswith("NC") else 3
    strides = _conv_sequence(strides, 2, channel_index, "strides")
    dilations = _conv_sequence(dilations, 2, channel_index, "dilations")
    input, filters = _matching([input, filters], strict=True)
    return _squeezed_batch(input, 3, lambda x: _conv2d_op(x, filters, strides, padding, explicit, dilations,
                                                           data_format))


def conv1d(input: Any, filters: Any, stride: Any, padding: Any, data_format: str = "NWC",  # noqa: A002
           dilations: Any = None, name: str | None = None) -> EagerTensor:
    """Conv2D of the input and filter with a spatial dimension of 1 inserted, squeezed out after."""
    if data_format is None or data_format in ("NHWC", "NWC"):
        data_format, spatial_start, channel_index = "NHWC", -3, 2
    elif data_format in ("NCHW", "NCW"):
        data_format, spatial_start, channel_index = "NCHW", -2, 1
    else:
        raise ValueError(f"`data_format` must be 'NWC' or 'NCW'. Received: data_format={data_format}")
    strides = [1] + _conv_sequence(stride, 1, channel_index, "stride")
    dilations = [1] + _conv_sequence(dilations, 1, channel_index, "dilations")
    input, filters = convert_to_tensor(input), convert_to_tensor(filters)  # each by itself (expand_dims converts)
    _conv_string(padding)
    value, filters = expand_dims(input, spatial_start), expand_dims(filters, 0)
    result = _squeezed_batch(value, 3, lambda x: _conv2d_op(x, filters, strides, padding, (), dilations, data_format))
    return squeeze(result, [spatial_start])


def conv3d(input: Any, filters: Any, strides: Any, padding: Any, data_format: str = "NDHWC",  # noqa: A002
           dilations: Any = None, name: str | None = None) -> EagerTensor:
    """Conv3D over the last four dimensions (those before them are batch dimensions)."""
    dilations = [1, 1, 1, 1, 1] if dilations is None else dilations
    if not hasattr(input, "shape"):  # TF reads the input's rank before converting it
        raise AttributeError(f"'{type(input).__name__}' object has no attribute 'shape'")
    _conv_string(padding)
    input, filters = _matching([input, filters], strict=True)
    strides, dilations = _conv_ints(strides, "strides"), _conv_ints(dilations, "dilations")
    return _squeezed_batch(input, 4, lambda x: execute("Conv3D", [x, filters], T=x.dtype, strides=strides,
                                                       padding=padding, dilations=dilations, data_format=data_format))


def _output_sizes(output_shape: Any) -> tuple:
    return tuple(int(n) for n in np.asarray(output_shape._value if isinstance(output_shape, EagerTensor)
                                            else output_shape).reshape(-1))


def conv2d_transpose(input: Any, filters: Any, output_shape: Any, strides: Any, padding: Any = "SAME",  # noqa: A002
                     data_format: str = "NHWC", dilations: Any = None, name: str | None = None) -> EagerTensor:
    """Conv2DBackpropInput: the gradient of conv2d with respect to its input, of `output_shape`."""
    data_format = data_format or "NHWC"
    channel_index = 1 if data_format.startswith("NC") else 3
    strides = _conv_sequence(strides, 2, channel_index, "strides")
    dilations = _conv_sequence(dilations, 2, channel_index, "dilations")
    padding, explicit = _conv_padding(padding)
    filters, input = _matching([filters, input], strict=True)
    return execute("Conv2DBackpropInput", [filters, input], T=filters.dtype, input_sizes=_output_sizes(output_shape),
                   strides=_conv_ints(strides, "strides"), padding=padding, explicit_paddings=tuple(explicit),
                   dilations=_conv_ints(dilations, "dilations"), data_format=data_format)


def conv1d_transpose(input: Any, filters: Any, output_shape: Any, strides: Any, padding: Any = "SAME",  # noqa: A002
                     data_format: str = "NWC", dilations: Any = None, name: str | None = None) -> EagerTensor:
    """conv2d_transpose of the input and filter with a spatial dimension of 1 inserted, squeezed out after."""
    if data_format is None or data_format == "NWC":
        data_format, spatial_start, channel_index = "NHWC", 1, 2
    elif data_format == "NCW":
        data_format, spatial_start, channel_index = "NCHW", 2, 1
    else:
        raise ValueError(f"`data_format` must be 'NWC' or 'NCW'. Received: data_format={data_format}")
    strides = [1] + _conv_sequence(strides, 1, channel_index, "stride")
    dilations = [1] + _conv_sequence(dilations, 1, channel_index, "dilations")
    _conv_string(padding)
    filters, input = convert_to_tensor(filters), convert_to_tensor(input)  # each by itself (expand_dims converts)
    value, filters = expand_dims(input, spatial_start), expand_dims(filters, 0)
    sizes = _output_sizes(output_shape)
    sizes = sizes[:spatial_start] + (1,) + sizes[spatial_start:]
    result = execute("Conv2DBackpropInput", [filters, value], T=filters.dtype, input_sizes=sizes,
                     strides=_conv_ints(strides, "strides"), padding=padding, explicit_paddings=(),
                     dilations=_conv_ints(dilations, "dilations"),
                     data_format=data_format)
    return squeeze(result, [spatial_start])


def conv3d_transpose(input: Any, filters: Any, output_shape: Any, strides: Any, padding: Any = "SAME",  # noqa: A002
                     data_format: str = "NDHWC", dilations: Any = None, name: str | None = None) -> EagerTensor:
    """Conv3DBackpropInputV2: the gradient of conv3d with respect to its input, of `output_shape`."""
    data_format = data_format or "NDHWC"
    channel_index = 1 if data_format.startswith("NC") else 4
    strides = _conv_sequence(strides, 3, channel_index, "strides")
    dilations = _conv_sequence(dilations, 3, channel_index, "dilations")
    _conv_string(padding)
    filters, input = _matching([filters, input], strict=True)
    return execute("Conv3DBackpropInputV2", [filters, input], T=filters.dtype, input_sizes=_output_sizes(output_shape),
                   strides=_conv_ints(strides, "strides"), padding=padding,
                   dilations=_conv_ints(dilations, "dilations"), data_format=data_format)


def _with_space_to_batch(x: EagerTensor, filter_shape: tuple, rate: list, padding: Any, data_format: str | None,
                         op: Any) -> EagerTensor:
    """TF's with_space_to_batch: a dilated convolution as `op` (padding VALID, its own strides) on the padded
    input's every rate-th element per phase (each phase a batch of its own: SpaceToBatchND), the phases
    interleaved back and the extra padding cropped (BatchToSpaceND)."""
    rate = [int(r) for r in rate]
    n = len(rate)
    least = n if data_format is not None and data_format.startswith("NC") else n + 1
    if x.ndim < least:
        raise ValueError(f"`input.shape.rank` must be at least {least}. Received: input.shape={tuple(x.shape)} with "
                         f"rank {x.ndim}")
    if any(r < 1 for r in rate):
        raise ValueError(f"`dilation_rate` must be positive. Received: dilation_rate={rate}")
    if all(r == 1 for r in rate):
        return op(x, padding)
    padding, explicit = _conv_padding(padding, n + 2)
    if data_format is not None and data_format.startswith("NC"):
        return op(x, "VALID")  # TF's CPU kernels refuse channels-first data (the op raises it)
    if padding == "SAME":
        extra = [(k - 1) * r for k, r in zip(filter_shape[:n], rate)]
        base = [(e // 2, e - e // 2) for e in extra]
    elif padding == "VALID":
        base = [(0, 0)] * n
    else:
        base = [(explicit[2 + 2 * i], explicit[3 + 2 * i]) for i in range(n)]
    spatial = tuple(x.shape)[1:1 + n]
    ends = [(r - (size + b + a) % r) % r for size, (b, a), r in zip(spatial, base, rate)]
    paddings = tuple((b, a + e) for (b, a), e in zip(base, ends))
    phases = execute("SpaceToBatchND", [x], block_shape=tuple(rate), paddings=paddings)
    return execute("BatchToSpaceND", [op(phases, "VALID")], block_shape=tuple(rate),
                   crops=tuple((0, e) for e in ends))


def _depthwise_native(x: EagerTensor, filters: EagerTensor, strides: Any, padding: Any, data_format: str | None,
                      rate: Any) -> EagerTensor:
    """DepthwiseConv2dNative, dilated by `rate` through space-to-batch (strides apply to the phases)."""
    data_format = data_format or "NHWC"

    def op(value: EagerTensor, padding: Any) -> EagerTensor:
        padding, explicit = _conv_padding(padding)
        return execute("DepthwiseConv2dNative", [value, filters], T=value.dtype, strides=_conv_ints(strides, "strides"),
                       padding=padding, explicit_paddings=tuple(explicit), dilations=(1, 1, 1, 1),
                       data_format=data_format)

    return _with_space_to_batch(x, tuple(filters.shape), [1, 1] if rate is None else list(rate), padding,
                                data_format, op)


def depthwise_conv2d(input: Any, filter: Any, strides: Any, padding: Any, data_format: str | None = None,  # noqa: A002
                     dilations: Any = None, name: str | None = None) -> EagerTensor:
    """DepthwiseConv2dNative: each input channel convolved with its own filters (channel_multiplier of them)."""
    input, filter = convert_to_tensor(input), convert_to_tensor(filter)
    return _depthwise_native(input, filter, strides, padding, data_format, dilations)


def separable_conv2d(input: Any, depthwise_filter: Any, pointwise_filter: Any, strides: Any,  # noqa: A002
                     padding: Any, data_format: str | None = None, dilations: Any = None,
                     name: str | None = None) -> EagerTensor:
    """A depthwise convolution, then a 1x1 Conv2D mixing its channels."""
    input = convert_to_tensor(input)
    depthwise_filter, pointwise_filter = convert_to_tensor(depthwise_filter), convert_to_tensor(pointwise_filter)
    if pointwise_filter.ndim != 4:
        raise ValueError(f"Shape {tuple(pointwise_filter.shape)} must have rank 4")
    if tuple(pointwise_filter.shape)[:2] != (1, 1):
        raise ValueError(f"Dimensions {tuple(pointwise_filter.shape)[0]} and 1 are not compatible")
    depthwise = _depthwise_native(input, depthwise_filter, strides, padding, data_format, dilations)
    return _conv2d_op(depthwise, pointwise_filter, [1, 1, 1, 1], "VALID", (), [1, 1, 1, 1], data_format or "NHWC")


def convolution(input: Any, filters: Any, strides: Any = None, padding: Any = "VALID",  # noqa: A002
                data_format: str | None = None, dilations: Any = None, name: str | None = None) -> EagerTensor:
    """conv1d, conv2d or conv3d by the filter's rank (TF's convolution_internal)."""
    input, filters = convert_to_tensor(input), convert_to_tensor(filters)
    n = filters.ndim - 2
    if n not in (1, 2, 3):
        raise ValueError(f"`num_spatial_dims` must be 1, 2, or 3. Received: num_spatial_dims={n}.")
    channel_index = 1 if data_format is not None and data_format.startswith("NC") else n + 1
    dilations = _conv_sequence(dilations, n, channel_index, "dilations")
    strides = _conv_sequence(strides, n, channel_index, "strides")
    spatial = builtins.slice(2, None) if channel_index == 1 else builtins.slice(1, -1)
    if any(int(d) != 1 for d in dilations[spatial]) and any(int(s) != 1 for s in strides[spatial]):
        raise ValueError(f"`strides > 1` not supported in conjunction with `dilation_rate > 1`. Received: "
                         f"strides={np.array(strides[spatial])} and dilation_rate={np.array(dilations[spatial])}")
    if any(int(d) != 1 for d in dilations[spatial]):  # TF's Convolution: undilated, through space-to-batch
        rate, strides, dilations = [int(d) for d in dilations[spatial]], [1] * (n + 2), None
        inner_format = data_format or ("NWC", "NHWC", "NDHWC")[n - 1]  # TF's undilated convolution names it
        return _with_space_to_batch(input, tuple(filters.shape), rate, padding, data_format,
                                    lambda x, p: convolution(x, filters, strides, p, inner_format))
    if n == 2:  # TF passes no default data format on to Conv2D either (recorded so, for its gradients)
        return conv2d(input, filters, strides, padding, data_format=_NO_FORMAT if data_format is None else data_format,
                      dilations=dilations)
    if n == 3:  # TF passes no default data format on to Conv3D
        return conv3d(input, filters, strides, padding, data_format=data_format, dilations=dilations)
    return conv1d(input, filters, strides, padding, data_format=data_format, dilations=dilations)


# ---------------------------------------------------------------------------------------------
# tf.image.resize (bilinear and nearest, half-pixel centres) and the crops and pads composed of slices and pads

_RESIZE_KERNELS = {"bilinear": "ResizeBilinear", "nearest": "ResizeNearestNeighbor"}


class ResizeMethod:
    """tf.image.ResizeMethod: the method names resize takes (reftape computes BILINEAR and NEAREST_NEIGHBOR)."""

    BILINEAR = "bilinear"
    NEAREST_NEIGHBOR = "nearest"
    BICUBIC = "bicubic"
    AREA = "area"
    LANCZOS3 = "lanczos3"
    LANCZOS5 = "lanczos5"
    GAUSSIAN = "gaussian"
    MITCHELLCUBIC = "mitchellcubic"

_RESIZE_METHODS_ELSEWHERE = ("bicubic", "area", "lanczos3", "lanczos5", "gaussian", "mitchellcubic")


def _resize_size(size: Any) -> np.ndarray:
    """The size TF's resize converts: an int32 vector of two elements (ValueError otherwise)."""
    try:
        size = convert_to_tensor(size, dtype=_dtypes.int32)
    except (TypeError, ValueError):
        raise ValueError("'size' must be a 1-D int32 Tensor") from None
    if tuple(size.shape) != (2,):
        raise ValueError("'size' must be a 1-D Tensor of 2 elements: new_height, new_width")
    return np.asarray(size._value)


def _aspect_preserving_size(size: np.ndarray, height: int, width: int) -> tuple[int, int]:
    """The largest size within `size` of the image's aspect ratio, in float32 as TF computes it."""
    with np.errstate(divide="ignore"):  # an empty side: an infinite factor, as TF's (the kernel then refuses the image)
        factor = np.minimum(np.float32(size[0]) / np.float32(height), np.float32(size[1]) / np.float32(width))
    return tuple(int(np.round(factor * np.float32(side)).astype(np.int32)) for side in (height, width))


def resize(images: Any, size: Any, method: str = "bilinear", preserve_aspect_ratio: bool = False,
           antialias: bool = False, name: str | None = None) -> EagerTensor:
    """tf.image.resize by ResizeBilinear (float32 output) or ResizeNearestNeighbor (the input's dtype), with
    half-pixel centres; a single image (rank 3) as a batch of one. Antialiasing changes nothing for nearest;
    for bilinear it is TF's ScaleAndTranslate, which reftape does not have (NotImplementedError)."""
    images = convert_to_tensor(images)
    if images.ndim not in (3, 4):
        raise ValueError("'images' must have either 3 or 4 dimensions.")
    batched = images if images.ndim == 4 else expand_dims(images, 0)
    size = _resize_size(size)
    if method in _RESIZE_METHODS_ELSEWHERE or (method == "bilinear" and antialias):
        raise NotImplementedError(f"reftape's tf.image.resize has no method {method!r} (antialias={antialias})")
    if method not in _RESIZE_KERNELS:
        raise ValueError(f"Resize method is not implemented: {method}")
    new_size = tuple(int(s) for s in size)
    if preserve_aspect_ratio:
        new_size = _aspect_preserving_size(size, *tuple(batched.shape)[1:3])
    resized = execute(_RESIZE_KERNELS[method], [batched], size=new_size)
    return resized if images.ndim == 4 else squeeze(resized, axis=[0])


# ---------------------------------------------------------------------------------------------
# tf.signal's real FFTs, wrapped as TF wraps them: fft_length inferred from the input (an inverse's last length
# 2 (n - 1)), a shorter non-empty input zero-padded to it first (a recorded Pad), the kernel cropping a longer one

def _fft_lengths(tensor: EagerTensor, rank: int, fft_length: Any, inverse: bool) -> list[int]:
    if fft_length is None:
        lengths = list(tuple(tensor.shape)[-rank:])
        if inverse and lengths:
            lengths[-1] = builtins.max(0, 2 * (lengths[-1] - 1))
        return lengths
    lengths = [int(n) for n in np.ravel(np.asarray(convert_to_tensor(fft_length, dtype=_dtypes.int32)._value))]
    for n in lengths:
        if n < 0:
            raise ValueError(f"Dimension {n} must be >= 0")
    return lengths


def _padded_for_fft(tensor: EagerTensor, rank: int, lengths: list[int], inverse: bool) -> EagerTensor:
    if 0 in tuple(tensor.shape):
        return tensor
    wanted = lengths[:-1] + [lengths[-1] // 2 + 1] if inverse else lengths
    inner = tuple(tensor.shape)[-len(wanted):] if wanted else ()
    paddings = [[0, builtins.max(w - d, 0)] for w, d in zip(wanted, inner)]
    if not any(after for _, after in paddings):
        return tensor
    return pad(tensor, [[0, 0]] * builtins.max(tensor.ndim - len(wanted), 0) + paddings)


def _tensor_text(tensor: EagerTensor) -> str:
    """A tensor as TF's str() shows it in its wrappers' messages."""
    return f"tf.Tensor({tensor.numpy()}, shape={tuple(tensor.shape)}, dtype={tensor.dtype.name})"


def _real_fft(op: str, rank: int, input_tensor: Any, fft_length: Any) -> EagerTensor:
    tensor = convert_to_tensor(input_tensor, dtype_hint=_dtypes.float32)
    if tensor.dtype not in (_dtypes.float32, _dtypes.float64):
        raise ValueError(f"RFFT requires tf.float32 or tf.float64 inputs, got: {_tensor_text(tensor)}")
    if tensor.ndim < rank:
        raise ValueError(f"Shape {tensor.shape} must have rank at least {rank}")
    lengths = _fft_lengths(tensor, rank, fft_length, inverse=False)
    tensor = _padded_for_fft(tensor, rank, lengths, inverse=False)
    complex_dtype = _dtypes.complex64 if tensor.dtype == _dtypes.float32 else _dtypes.complex128
    return execute(op, [tensor], fft_length=tuple(lengths), Tcomplex=complex_dtype)


def _inverse_real_fft(op: str, rank: int, input_tensor: Any, fft_length: Any) -> EagerTensor:
    tensor = convert_to_tensor(input_tensor, dtype_hint=_dtypes.complex64)
    if tensor.ndim < rank:
        raise ValueError(f"Shape {tensor.shape} must have rank at least {rank}")
    if tensor.dtype not in (_dtypes.complex64, _dtypes.complex128):
        raise ValueError(f"IRFFT requires tf.complex64 or tf.complex128 inputs, got: {_tensor_text(tensor)}")
    lengths = _fft_lengths(tensor, rank, fft_length, inverse=True)
    tensor = _padded_for_fft(tensor, rank, lengths, inverse=True)
    return execute(op, [tensor], fft_length=tuple(lengths))


def rfft(input_tensor: Any, fft_length: Any = None, name: str | None = None) -> EagerTensor:
    """The FFT of a real signal over its innermost axis: fft_length // 2 + 1 bins."""
    return _real_fft("RFFT", 1, input_tensor, fft_length)


def irfft(input_tensor: Any, fft_length: Any = None, name: str | None = None) -> EagerTensor:
    """The real signal of fft_length samples whose spectrum's first bins the input holds."""
    return _inverse_real_fft("IRFFT", 1, input_tensor, fft_length)


def rfft2d(input_tensor: Any, fft_length: Any = None, name: str | None = None) -> EagerTensor:
    """The 2-d FFT of a real signal over its innermost two axes (the last halved)."""
    return _real_fft("RFFT2D", 2, input_tensor, fft_length)


def irfft2d(input_tensor: Any, fft_length: Any = None, name: str | None = None) -> EagerTensor:
    """The inverse of rfft2d."""
    return _inverse_real_fft("IRFFT2D", 2, input_tensor, fft_length)


# tf.image's crops and pads: a Slice or a Pad of the batch (a single image as a batch of one), after TF's checks
# in TF's order (ValueError); resize_with_crop_or_pad crops centrally, then pads centrally

def _image_batch(image: EagerTensor) -> EagerTensor:
    """A rank-3 image as a batch of one; ValueError for another rank than 3 or 4."""
    if image.ndim not in (3, 4):
        raise ValueError(f"'image' (shape {image.shape}) must have either 3 or 4 dimensions.")
    return image if image.ndim == 4 else expand_dims(image, 0)


def _check_image_sides(image: EagerTensor) -> None:
    if image.ndim < 3:
        raise ValueError(f"'image' (shape {image.shape}) must be at least three-dimensional.")
    if any(d == 0 for d in tuple(image.shape)[-3:]):
        raise ValueError(f"inner 3 dims of 'image.shape' must be > 0: {image.shape}")


def _check(holds: bool, message: str) -> None:
    if not holds:
        raise ValueError(message)


def _unbatched(result: EagerTensor, image: EagerTensor) -> EagerTensor:
    return result if image.ndim == 4 else squeeze(result, axis=[0])


def crop_to_bounding_box(image: Any, offset_height: int, offset_width: int, target_height: int,
                         target_width: int) -> EagerTensor:
    """The target_height x target_width window of the image from (offset_height, offset_width): a Slice."""
    image = convert_to_tensor(image)
    batch = _image_batch(image)
    _check_image_sides(batch)
    _, height, width, _ = tuple(batch.shape)
    _check(offset_width >= 0, "offset_width must be >= 0.")
    _check(offset_height >= 0, "offset_height must be >= 0.")
    _check(target_width > 0, "target_width must be > 0.")
    _check(target_height > 0, "target_height must be > 0.")
    _check(width >= target_width + offset_width, "width must be >= target + offset.")
    _check(height >= target_height + offset_height, "height must be >= target + offset.")
    cropped = slice(batch, [0, offset_height, offset_width, 0],
                    [tuple(batch.shape)[0], target_height, target_width, tuple(batch.shape)[3]])
    return _unbatched(cropped, image)


def pad_to_bounding_box(image: Any, offset_height: int, offset_width: int, target_height: int,
                        target_width: int) -> EagerTensor:
    """The image in a target_height x target_width frame of zeros at (offset_height, offset_width): a Pad."""
    image = convert_to_tensor(image)
    batch = _image_batch(image)
    _, height, width, _ = tuple(batch.shape)
    after_width, after_height = target_width - offset_width - width, target_height - offset_height - height
    _check_image_sides(batch)
    _check(offset_height >= 0, "offset_height must be >= 0")
    _check(offset_width >= 0, "offset_width must be >= 0")
    _check(after_width >= 0, "width must be <= target - offset")
    _check(after_height >= 0, "height must be <= target - offset")
    padded = pad(batch, [[0, 0], [offset_height, after_height], [offset_width, after_width], [0, 0]])
    return _unbatched(padded, image)


def resize_with_crop_or_pad(image: Any, target_height: int, target_width: int) -> EagerTensor:
    """The image cropped or zero-padded, about its centre, to target_height x target_width."""
    image = convert_to_tensor(image)
    batch = _image_batch(image)
    _check_image_sides(batch)
    _check(target_width > 0, "target_width must be > 0.")
    _check(target_height > 0, "target_height must be > 0.")
    _, height, width, _ = tuple(batch.shape)
    width_diff, height_diff = target_width - width, target_height - height
    cropped = crop_to_bounding_box(batch, builtins.max(-height_diff // 2, 0), builtins.max(-width_diff // 2, 0),
                                   builtins.min(target_height, height), builtins.min(target_width, width))
    resized = pad_to_bounding_box(cropped, builtins.max(height_diff // 2, 0), builtins.max(width_diff // 2, 0),
                                  target_height, target_width)
    return _unbatched(resized, image)


def central_crop(image: Any, central_fraction: float) -> EagerTensor:
    """The central central_fraction of the image's height and width: a Slice (the image itself for 1)."""
    image = convert_to_tensor(image)
    if central_fraction <= 0.0 or central_fraction > 1.0:
        raise ValueError("central_fraction must be within (0, 1]")
    if central_fraction == 1.0:
        return image
    _check_image_sides(image)
    rank = image.ndim
    if rank not in (3, 4):
        raise ValueError(f"`image` should either be a Tensor with rank = 3 or rank = 4. Had rank = {rank}.")
    height, width = tuple(image.shape)[rank - 3:rank - 1]
    top = int((float(height) - float(height) * central_fraction) / 2)
    left = int((float(width) - float(width) * central_fraction) / 2)
    begin, size = [top, left, 0], [height - 2 * top, width - 2 * left, -1]
    return slice(image, begin if rank == 3 else [0] + begin, size if rank == 3 else [-1] + size)
