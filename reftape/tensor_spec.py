"""`tf.TensorSpec`: a shape (dimensions may be unknown) and a dtype that values are checked against,
as `map_fn`'s `fn_output_signature` reads it."""

from __future__ import annotations

from typing import Any

from . import dtypes as _dtypes
from .tensor import TensorShape


class TensorSpec:
    """The type of a tensor: its (possibly partial) shape, its dtype and an optional name."""

    __slots__ = ("_shape", "_dtype", "_name")

    def __init__(self, shape: Any, dtype: Any = _dtypes.float32, name: str | None = None) -> None:
        self._shape = TensorShape(shape)
        self._dtype = _dtypes.as_dtype(dtype)
        self._name = name

    shape = property(lambda self: self._shape)
    dtype = property(lambda self: self._dtype)
    name = property(lambda self: self._name)

    def is_compatible_with(self, spec_or_value: Any) -> bool:
        """Same dtype and a compatible shape (a tensor is read as the spec of its value)."""
        return (self._dtype == spec_or_value.dtype and self._shape.is_compatible_with(spec_or_value.shape))

    def __eq__(self, other: object) -> bool:
        return (type(other) is type(self) and self._shape == other._shape and self._dtype == other._dtype
                and self._name == other._name)

    def __hash__(self) -> int:
        return hash((self._shape, self._dtype, self._name))

    def __repr__(self) -> str:
        return f"TensorSpec(shape={self._shape}, dtype={self._dtype!r}, name={self._name!r})"
