"""Python operators on tensors and variables, dispatching to the same functions as the API.

As in TF: the other operand of a reflected operator (`2.5 * x`) converts strictly to this tensor's
dtype first; `==` gives a bool tensor, or one bool where the shapes do not broadcast, and a tensor
against None is simply unequal; `&`, `|`, `^` and `~` are logical on bools and bitwise otherwise;
`*` multiplies bools as integers.
A Variable's operators run the tensor's on the value they read first, except `==` and `!=`, which
TF defines on Variables without the None shortcut.
"""

from __future__ import annotations

from typing import Any

from . import dtypes as _dtypes
from . import functions as F
from .tensor import EagerTensor
from .variables import ResourceVariable


def _binary(fn, reflected: bool = False):
    if reflected:
        return lambda self, other: fn(F.convert_to_tensor(other, dtype=self.dtype), self)
    return lambda self, other: fn(self, other)


def _multiply(x: Any, y: Any) -> EagerTensor:
    """`*`: with a bool tensor on either side, the int32 product of both, cast back to bool."""
    if any(isinstance(v, EagerTensor) and v.dtype.is_bool for v in (x, y)):
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


_AND = _logical_or_bitwise(F.logical_and, F.bitwise_and)
_OR = _logical_or_bitwise(F.logical_or, F.bitwise_or)
_XOR = _logical_or_bitwise(F.logical_xor, F.bitwise_xor)

OPERATORS = {
    "__add__": _binary(F.add), "__radd__": _binary(F.add, True),
    "__sub__": _binary(F.subtract), "__rsub__": _binary(F.subtract, True),
    "__mul__": _binary(_multiply), "__rmul__": _binary(_multiply, True),
    "__truediv__": _binary(F.divide), "__rtruediv__": _binary(F.divide, True),
    "__floordiv__": _binary(F.floordiv), "__rfloordiv__": _binary(F.floordiv, True),
    "__mod__": _binary(F.floormod), "__rmod__": _binary(F.floormod, True),
    "__pow__": _binary(F.pow), "__rpow__": _binary(F.pow, True),
    "__matmul__": _binary(F.matmul), "__rmatmul__": _binary(F.matmul, True),
    "__lt__": _binary(F.less), "__le__": _binary(F.less_equal),
    "__gt__": _binary(F.greater), "__ge__": _binary(F.greater_equal),
    "__and__": _binary(_AND), "__rand__": _binary(_AND, True),
    "__or__": _binary(_OR), "__ror__": _binary(_OR, True),
    "__xor__": _binary(_XOR), "__rxor__": _binary(_XOR, True),
    "__neg__": F.negative, "__abs__": F.abs, "__invert__": _invert,
    "__getitem__": F.getitem, "__iter__": _iterate,
}

for _name, _method in OPERATORS.items():
    setattr(EagerTensor, _name, _method)
    setattr(ResourceVariable, _name, _on_value(_method))
EagerTensor.__eq__, EagerTensor.__ne__ = _tensor_equality("Equal", False), _tensor_equality("NotEqual", True)
EagerTensor.__round__ = _round  # a Variable has none
ResourceVariable.__eq__, ResourceVariable.__ne__ = _variable_equality("Equal"), _variable_equality("NotEqual")
