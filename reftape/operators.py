"""Python operators on tensors and variables, dispatching to the same functions as the API.

As in TF: the other operand of a reflected operator (`2.5 * x`) converts strictly to this tensor's
dtype first, and a forward one that fails lets the other operand's reflected operator try; `==`
gives a bool tensor, or one bool where the shapes do not broadcast, and a tensor against None is
simply unequal; `&`, `|`, `^` and `~` are logical on bools and bitwise otherwise; `*` multiplies
bools as integers.
A Variable's operators run the tensor's on the value they read first, except `==` and `!=`, which
TF defines on Variables without the None shortcut.
"""

from __future__ import annotations

from typing import Any

from . import dtypes as _dtypes
from . import functions as F
from .tensor import EagerTensor, VariableSlice
from .variables import ResourceVariable


def _binary(name: str, fn) -> dict[str, Any]:
    """`__name__` and `__rname__` as TF's operator wrappers define them. The reflected one converts
    the other operand strictly to this tensor's dtype first. Where the forward one fails (TypeError,
    ValueError), the other operand's own reflected operator gets its chance (a class that knows
    tensors); if it declines or fails too, the first error stands."""
    def forward(self: EagerTensor, other: Any) -> Any:
        try:
            return fn(self, other)
        except (TypeError, ValueError) as error:
            if not hasattr(type(other), f"__r{name}__"):
                raise
            try:
                result = getattr(other, f"__r{name}__")(self)
            except (TypeError, ValueError):
                raise error from None
            if result is NotImplemented:
                raise
            return result

    def reflected(self: EagerTensor, other: Any) -> Any:
        return fn(F.convert_to_tensor(other, dtype=self.dtype), self)

    return {f"__{name}__": forward, f"__r{name}__": reflected}


def _multiply(x: EagerTensor, y: Any) -> EagerTensor:
    """`*`: with a bool tensor on either side, the int32 product of both, cast back to bool."""
    if x.dtype.is_bool or isinstance(y, EagerTensor) and y.dtype.is_bool:
        return F.cast(F.multiply(F.cast(x, _dtypes.int32), F.cast(y, _dtypes.int32)), _dtypes.bool)
    return F.multiply(x, y)


def _logical_or_bitwise(logical, bitwise):
    return lambda x, y: (logical if x.dtype.is_bool else bitwise)(x, y)


def _invert(x: EagerTensor) -> EagerTensor:
    return F.logical_not(x) if x.dtype.is_bool else F.invert(x)


def _round(x: EagerTensor, ndigits: int | None = None) -> EagerTensor:
    """round(): TF registers its NumPy API's `around` as Tensor.__round__, which rounds floats and
    complex numbers (no complex kernel) and then, without NumPy behaviour enabled, fails looking up
    `astype`."""
    if x.dtype.is_floating or x.dtype.is_complex:
        F.round(x)
    raise AttributeError("EagerTensor object has no attribute 'astype'. If you are looking for numpy-related "
                         "methods, please run tf.experimental.numpy.experimental_enable_numpy_behavior()")


def _tensor_equality(op: str, none_result: bool):
    return lambda self, other: none_result if other is None else F.operator_equality(op, self, other)


def _variable_equality(op: str):
    return lambda variable, other: F.operator_equality(op, variable, other)


def _on_value(method):
    return lambda variable, *args: method(variable.value(), *args)


def _iterate(self: Any):
    if self.shape.rank == 0:
        raise TypeError("Cannot iterate over a scalar tensor.")
    return (self[i] for i in range(self.shape[0]))


def _variable_getitem(variable: ResourceVariable, key: Any) -> EagerTensor:
    """`v[key]`: a read of the value, sliced (a StridedSlice: a dense gradient); a strided slice (not a
    boolean mask) carries `assign(val, name=None)`, which writes that slice of the variable, as in TF."""
    result = F.getitem(variable.value(), key)
    if _is_mask(key):
        return result
    normalized = F.index_key(key)
    return VariableSlice(result, lambda val, name=None: variable._strided_slice_assign(normalized, val))


def _is_mask(key: Any) -> bool:
    return isinstance(key, bool) or (hasattr(key, "dtype") and _dtypes.as_dtype(key.dtype) == _dtypes.bool)


_AND = _logical_or_bitwise(F.logical_and, F.bitwise_and)
_OR = _logical_or_bitwise(F.logical_or, F.bitwise_or)
_XOR = _logical_or_bitwise(F.logical_xor, F.bitwise_xor)

OPERATORS = {
    **_binary("add", F.add), **_binary("sub", F.subtract), **_binary("mul", _multiply),
    **_binary("truediv", F.divide), **_binary("floordiv", F.floordiv), **_binary("mod", F.floormod),
    **_binary("pow", F.pow), **_binary("matmul", F.matmul),
    **_binary("and", _AND), **_binary("or", _OR), **_binary("xor", _XOR),
    "__lt__": F.less, "__le__": F.less_equal, "__gt__": F.greater, "__ge__": F.greater_equal,
    "__neg__": F.negative, "__abs__": F.abs, "__invert__": _invert,
    "__getitem__": F.getitem, "__iter__": _iterate,
}

for _name, _method in OPERATORS.items():
    setattr(EagerTensor, _name, _method)
    setattr(ResourceVariable, _name, _on_value(_method))
ResourceVariable.__getitem__ = _variable_getitem  # its slices assign
EagerTensor.__eq__, EagerTensor.__ne__ = _tensor_equality("Equal", False), _tensor_equality("NotEqual", True)
EagerTensor.__round__ = _round  # a Variable has none
ResourceVariable.__eq__, ResourceVariable.__ne__ = _variable_equality("Equal"), _variable_equality("NotEqual")
