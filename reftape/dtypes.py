"""DType objects mirroring `tf.dtypes`: the nine numeric dtypes reftape computes with, plus
`string` (watchable, never differentiable) and `resource` (a variable's handle on the tape)."""

import builtins as _builtins
from operator import attrgetter as _attrgetter
from typing import Any as _Any

import ml_dtypes as _ml_dtypes
import numpy as _np


class DType:
    """A tensor element type with TensorFlow's name and predicates."""

    def __init__(self, name: str, numpy_type: _Any, kind: str, kernel_name: str) -> None:
        self._name = name
        self._numpy_type = numpy_type
        self._numpy_dtype = None if kind == "resource" else _np.dtype(numpy_type)
        self._kind = kind  # one of: float, complex, int, uint, bool, string, resource
        self._kernel_name = kernel_name  # TF's C++ type name, used in error messages
        self._hash = hash(name)  # equal to its name's hash: a DType equals its name
        self._is_floating, self._is_complex, self._is_bool = kind == "float", kind == "complex", kind == "bool"
        self._is_integer, self._is_unsigned = kind in ("int", "uint"), kind in ("uint", "bool")
        self._trainable = kind in ("float", "complex", "resource")  # see _is_trainable

    # Getters in C (attrgetter): ops read dtypes many times each.
    name = property(_attrgetter("_name"))
    as_numpy_dtype = property(_attrgetter("_numpy_type"))
    base_dtype = property(lambda self: self)
    is_floating = property(_attrgetter("_is_floating"))
    is_complex = property(_attrgetter("_is_complex"))
    is_integer = property(_attrgetter("_is_integer"))
    is_unsigned = property(_attrgetter("_is_unsigned"))
    is_bool = property(_attrgetter("_is_bool"))
    is_numpy_compatible = property(lambda self: self._kind != "resource")
    kernel_name = property(_attrgetter("_kernel_name"))

    @property
    def real_dtype(self) -> "DType":
        return {complex64: float32, complex128: float64}.get(self, self)

    @property
    def size(self) -> int:
        return _np.dtype(self._numpy_type).itemsize

    @property
    def min(self):
        return _limits(self).min

    @property
    def max(self):
        return _limits(self).max

    def is_compatible_with(self, other: _Any) -> bool:
        return self == as_dtype(other)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is DType:  # the common case, and what as_dtype would conclude: one object per dtype
            return self is other
        if other is None:
            return False
        try:
            return self is as_dtype(other)
        except TypeError:
            return False

    def __ne__(self, other: object) -> bool:
        if other.__class__ is DType:
            return self is not other
        return not self == other

    def __hash__(self) -> int:
        return self._hash

    def __repr__(self) -> str:
        return "tf." + self._name

    def __str__(self) -> str:
        return "<dtype: %r>" % self._name

    def __reduce__(self):
        return as_dtype, (self._name,)


def _limits(dtype: DType):
    if dtype.is_integer:
        return _np.iinfo(dtype.as_numpy_dtype)
    return _ml_dtypes.finfo(dtype.as_numpy_dtype)


float16 = DType("float16", _np.float16, "float", "half")
bfloat16 = DType("bfloat16", _ml_dtypes.bfloat16, "float", "bfloat16")
float32 = DType("float32", _np.float32, "float", "float")
float64 = DType("float64", _np.float64, "float", "double")
complex64 = DType("complex64", _np.complex64, "complex", "complex64")
complex128 = DType("complex128", _np.complex128, "complex", "complex128")
int8 = DType("int8", _np.int8, "int", "int8")
int16 = DType("int16", _np.int16, "int", "int16")
int32 = DType("int32", _np.int32, "int", "int32")
int64 = DType("int64", _np.int64, "int", "int64")
uint8 = DType("uint8", _np.uint8, "uint", "uint8")
bool = DType("bool", _np.bool_, "bool", "bool")  # noqa: A001 - TF's public name
string = DType("string", _np.object_, "string", "string")
resource = DType("resource", _np.object_, "resource", "resource")
half = float16
double = float64

_ALL = (float16, bfloat16, float32, float64, complex64, complex128,
              int8, int16, int32, int64, uint8, bool, string, resource)
_BY_NAME = {d.name: d for d in _ALL} | {"half": float16, "double": float64}
# TF's lookup table of everything but NumPy dtypes: names, the Python types it knows (not int, complex
# or str: as_dtype(int) is a TypeError), NumPy scalar types and the DataType enum's numbers (so that
# as_dtype(3) is int32 and, as the keys are hashed, as_dtype(2.0) float64 and as_dtype(True) float32).
_BY_ENUM = {1: float32, 2: float64, 3: int32, 4: uint8, 5: int16, 6: int8, 7: string, 8: complex64, 9: int64, 10: bool,
            14: bfloat16, 18: complex128, 19: float16, 20: resource}
_BY_NUMPY_TYPE = {d.as_numpy_dtype: d for d in _ALL if d.is_numpy_compatible and d is not string} | {
    _np.object_: string, _np.bytes_: string, _np.str_: string, _np.longlong: int64}
_BY_ANY = {**_BY_ENUM, **_BY_NAME, float: float32, _builtins.bool: bool, object: string, **_BY_NUMPY_TYPE}


def as_dtype(type_value: _Any) -> DType:
    """Converts a DType, its name, a NumPy dtype or type, a DataType number, float, bool, object, or
    anything with a NumPy `dtype` to a DType, in TF's order of lookups."""
    if isinstance(type_value, DType):
        return type_value
    if isinstance(type_value, _np.dtype) and type_value.type in _BY_NUMPY_TYPE:
        return _BY_NUMPY_TYPE[type_value.type]
    try:
        return _BY_ANY[type_value]
    except (KeyError, TypeError):
        pass
    if hasattr(type_value, "dtype"):
        try:
            return _BY_NUMPY_TYPE[_np.dtype(type_value.dtype).type]
        except (KeyError, TypeError):
            pass
    raise TypeError(f"Cannot convert the argument `type_value`: {type_value!r} to a TensorFlow DType.")


def _is_trainable(dtype: DType) -> bool:
    """Whether values of this dtype carry gradients (TF's backprop_util.IsTrainable)."""
    return dtype._trainable
