"""Eager tensors, shapes, IndexedSlices and value conversion, with TF's conversion rules.

Every tensor carries a process-unique `_id`; the tape identifies tensors by it, exactly as TF's
C++ tape does. Operators are attached by `reftape.functions` so that this module stays free of op
definitions.
"""

from __future__ import annotations

import itertools
from operator import attrgetter
from typing import Any, Iterator

import numpy as np

from . import dtypes as _dtypes
from .dtypes import DType
from .fp_errors import quiet_astype
from .thread_state import this_thread

_next_id = itertools.count(1).__next__
DEVICE = "/job:localhost/replica:0/task:0/device:CPU:0"


class TensorShape:
    """A shape, comparable with tuples and lists like TF's TensorShape: fully defined for tensors; a
    dimension may be None (unknown), or the rank unknown (`TensorShape(None)`), for the shapes users
    declare (a TensorArray's `element_shape`, `TensorSpec`)."""

    __slots__ = ("_dims",)

    def __init__(self, dims: Any) -> None:
        if isinstance(dims, TensorShape):
            dims = dims._dims
        self._dims = None if dims is None else tuple(None if d is None else int(d) for d in dims)

    rank = property(lambda self: None if self._dims is None else len(self._dims))
    ndims = rank
    dims = property(lambda self: None if self._dims is None else list(self._dims))

    def as_list(self) -> list[int]:
        if self._dims is None:
            raise ValueError("as_list() is not defined on an unknown TensorShape.")
        return list(self._dims)

    def num_elements(self) -> int | None:
        if not self.is_fully_defined():
            return None
        return int(np.prod(self._dims, dtype=np.int64))

    def is_fully_defined(self) -> bool:
        return self._dims is not None and None not in self._dims

    def with_rank_at_least(self, rank: int) -> TensorShape:
        if self.rank is not None and self.rank < rank:
            raise ValueError(f"Shape {self} must have rank at least {rank}")
        return self

    def concatenate(self, other: Any) -> TensorShape:
        other = TensorShape(other)
        if self._dims is None or other._dims is None:
            return TensorShape(None)
        return TensorShape(self._dims + other._dims)

    def is_compatible_with(self, other: Any) -> bool:
        other = TensorShape(other)
        if self._dims is None or other._dims is None:
            return True
        return len(self._dims) == len(other._dims) and all(
            a is None or b is None or a == b for a, b in zip(self._dims, other._dims))

    def assert_is_compatible_with(self, other: Any) -> None:
        if not self.is_compatible_with(other):
            raise ValueError(f"Shapes {self} and {TensorShape(other)} are incompatible")

    def merge_with(self, other: Any) -> TensorShape:
        """The most specific shape compatible with both (ValueError where they are not compatible)."""
        other = TensorShape(other)
        if self._dims is None:
            return other
        if other._dims is None:
            return self
        if not self.is_compatible_with(other):
            raise ValueError(f"Shapes {self} and {other} are not compatible")
        return TensorShape([a if b is None else b for a, b in zip(self._dims, other._dims)])

    def __len__(self) -> int:
        if self._dims is None:
            raise ValueError("Cannot take the length of shape with unknown rank.")
        return len(self._dims)

    def __iter__(self) -> Iterator[int]:
        if self._dims is None:
            raise ValueError("Cannot iterate over a shape with unknown rank.")
        return iter(self._dims)

    def __getitem__(self, key: Any) -> Any:
        if self._dims is None:
            return TensorShape(None) if isinstance(key, slice) else None
        if isinstance(key, slice):
            return TensorShape(self._dims[key])
        return self._dims[key]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, TensorShape):
            return self._dims == other._dims
        if isinstance(other, (list, tuple)):
            return self._dims == tuple(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._dims)

    def __repr__(self) -> str:
        return "TensorShape(None)" if self._dims is None else "TensorShape(%s)" % list(self._dims)

    def __str__(self) -> str:
        if self._dims is None:
            return "<unknown>"
        return "(%s,)" % self._dims[0] if len(self._dims) == 1 else str(self._dims)


class Tensor:
    """Base class of everything TF calls a Tensor (only `EagerTensor` is instantiated)."""

    __array_priority__ = 100


class EagerTensor(Tensor):
    """An immutable NumPy array with a DType and a tape identity.

    `_flushed` says the value is known to hold no subnormals, so that an arithmetic kernel reading it
    need not flush it again (see `primitives.execute`); False only means unknown.
    """

    __slots__ = ("_value", "_dtype", "_id", "_flushed")

    def __init__(self, value: np.ndarray, dtype: DType, flushed: bool = False) -> None:
        self._value = value
        self._dtype = dtype
        self._id = _next_id()
        self._flushed = flushed

    dtype = property(attrgetter("_dtype"))
    shape = property(lambda self: TensorShape(self._value.shape))
    ndim = property(attrgetter("_value.ndim"))
    device = property(lambda self: DEVICE)

    def get_shape(self) -> TensorShape:
        return self.shape

    def _shape_tuple(self) -> tuple:
        return self._value.shape

    def _numpy(self) -> Any:
        return self._value[()] if self._value.ndim == 0 else self._value

    def numpy(self) -> Any:
        if this_thread.state.tracer is not None:  # a value read while a tf.function traces
            this_thread.state.tracer.read(self, "numpy")
        value = self._numpy()
        return value.copy() if isinstance(value, np.ndarray) else value

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        if copy or dtype is not None and np.dtype(dtype) != self._value.dtype:
            return np.array(self._value, dtype=dtype)
        view = self._value.view()  # TF hands NumPy the tensor's own buffer, read-only
        view.flags.writeable = False
        return view

    def __len__(self) -> int:
        if self._value.ndim == 0:
            raise TypeError("Scalar tensor has no `len()`")
        return self._value.shape[0]

    # As in TF, the scalar protocols convert the NumPy value (a NumPy scalar for rank 0), so NumPy
    # decides what each rank and dtype gives and raises.
    def __bool__(self) -> bool:
        if this_thread.state.tracer is not None:
            this_thread.state.tracer.read(self, "bool")
        return bool(self._value.size > 0 and self._value)  # an empty tensor is False

    def __float__(self) -> float:
        if this_thread.state.tracer is not None:
            this_thread.state.tracer.read(self, "float")
        return float(self._numpy())

    def __int__(self) -> int:
        if this_thread.state.tracer is not None:
            this_thread.state.tracer.read(self, "int")
        return int(self._numpy())

    def __index__(self) -> int:
        if this_thread.state.tracer is not None:
            this_thread.state.tracer.read(self, "index")
        return self._numpy().__index__()

    def __complex__(self) -> complex:
        return complex(self._numpy())

    def __format__(self, spec: str) -> str:
        return format(self._numpy(), spec)

    def __hash__(self) -> int:
        raise TypeError("Tensor is unhashable. Instead, use tensor.ref() as the key.")

    def ref(self) -> "_Reference":
        return _Reference(self)

    def __copy__(self) -> EagerTensor:
        return self  # immutable: a copy is the tensor itself

    def __deepcopy__(self, memo: dict) -> EagerTensor:
        return self

    def __reduce__(self) -> tuple:
        return convert_to_tensor, (self._numpy(),)  # unpickled, a new tensor with its own tape identity

    def __repr__(self) -> str:
        return "<tf.Tensor: shape=%s, dtype=%s, numpy=%s>" % (self.shape, self.dtype.name, numpy_text(self, True))

    def __str__(self) -> str:
        return "tf.Tensor(%s, shape=%s, dtype=%s)" % (numpy_text(self), self.shape, self.dtype.name)


class _Reference:
    """A hashable handle on a tensor, as returned by `Tensor.ref()`."""

    def __init__(self, tensor: EagerTensor) -> None:
        self._tensor = tensor

    def deref(self) -> EagerTensor:
        return self._tensor

    def __hash__(self) -> int:
        return self._tensor._id

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Reference) and other._tensor is self._tensor


def numpy_text(tensor: Any, is_repr: bool = False) -> str:
    """TF's rendering of a tensor's value inside str() and repr()."""
    value = tensor._numpy()
    if is_repr:
        text = repr(value.item()) if np.isscalar(value) and not isinstance(value, bytes) else repr(value)
    else:
        text = str(value)
    return "\n" + text if "\n" in text else text


class VariableSlice(EagerTensor):
    """A strided slice read from a Variable (`v[1:3]`): the same tensor on the tape, with TF's `assign`
    attribute, which writes that slice of the variable. TF's is an EagerTensor too, so it is named one."""

    __slots__ = ("assign",)

    def __init__(self, read: EagerTensor, assign: Any) -> None:
        super().__init__(read._value, read._dtype, read._flushed)
        self._id = read._id  # the recorded StridedSlice output itself
        self.assign = assign


VariableSlice.__name__ = VariableSlice.__qualname__ = "EagerTensor"


class IndexedSlices:
    """A sparse gradient: rows `values` at `indices` of a tensor of shape `dense_shape`."""

    def __init__(self, values: EagerTensor, indices: EagerTensor, dense_shape: EagerTensor | None = None) -> None:
        self._values, self._indices, self._dense_shape = values, indices, dense_shape

    values = property(lambda self: self._values)
    indices = property(lambda self: self._indices)
    dense_shape = property(lambda self: self._dense_shape)
    dtype = property(lambda self: self._values.dtype)
    device = property(lambda self: DEVICE)

    @property
    def shape(self) -> TensorShape:
        return TensorShape(self._dense_shape._value)

    def __repr__(self) -> str:
        shown = "" if self._dense_shape is None else ", dense_shape=%s" % (self._dense_shape,)
        return "IndexedSlices(indices=%s, values=%s%s)" % (self._indices, self._values, shown)

    def __neg__(self) -> IndexedSlices:
        return IndexedSlices(-self._values, self._indices, self._dense_shape)


# ---------------------------------------------------------------------------------------------
# Conversion of Python and NumPy values

_PYTHON_SCALARS = (bool, int, float, complex, str, bytes)

# TF's eager runtime caches the tensors it converts Python scalars to, keyed by the value (compared
# with ==) and the dtype asked for (None: inferred): a float zero converts with the sign of the first
# zero converted for that dtype in the process (tf.constant(0.0) then tf.constant(-0.0) is +0.0).
_SCALAR_ZEROS: dict = {}


def _is_python_value(value: Any) -> bool:
    """Python scalars and (nested) lists of them; TF infers their dtype narrowly."""
    if isinstance(value, (list, tuple)):
        return all(_is_python_value(v) for v in value)
    return isinstance(value, _PYTHON_SCALARS) and not isinstance(value, np.generic)  # np.float64 is a float


def _scalar_kinds(value: Any, kinds: set[str]) -> set[str]:
    """The kinds of the Python scalars in `value` (a scalar or nested lists): bool, number, string,
    and "beyond int64" for integers outside int64's range."""
    if isinstance(value, (list, tuple)):
        for item in value:
            _scalar_kinds(item, kinds)
    elif value.__class__ is bool:
        kinds.add("bool")
    elif isinstance(value, (str, bytes)):
        kinds.add("string")
    else:
        kinds.add("number")
        if value.__class__ is int and not -2**63 <= value < 2**63:
            kinds.add("beyond int64")
    return kinds


def _check_python_scalars(value: Any, dtype: DType | None, inferred: bool = False) -> None:
    """TF's converter refuses sequences mixing bools, numbers and strings (bools pass as numbers of
    some dtypes; a sequence `inferred` first has had its mix judged there) and integers beyond int64's
    range, but as floats."""
    if value.__class__ is float or value.__class__ is int and -2**63 <= value < 2**63:
        return  # one number: nothing to refuse (the common case, cheaply)
    kinds = _scalar_kinds(value, set())
    mixed = kinds - {"beyond int64"}
    if len(mixed) > 1 and not inferred and not (mixed == {"bool", "number"} and dtype is not None
                                                and dtype.name in _BOOL_CONVERTS_TO):
        raise ValueError("Can't convert Python sequence with mixed types to Tensor.")
    if "beyond int64" in kinds and not (dtype is not None and dtype.is_floating):
        raise ValueError("Can't convert Python sequence with out-of-range integer to Tensor.")


def _default_python_dtype(array: np.ndarray) -> DType:
    kind = array.dtype.kind
    if kind == "f":
        return _dtypes.float32
    if kind in "iu":
        info = np.iinfo(np.int32)
        in_range = array.size == 0 or (array.min() >= info.min and array.max() <= info.max)
        return _dtypes.int32 if in_range else _dtypes.int64
    if kind == "c":
        return _dtypes.complex128
    if kind == "b":
        return _dtypes.bool
    return _dtypes.string


# -- Python sequences, NumPy values inside them included. TF's converter reads the shape off the
# first elements and picks its conversion by the first leaf: a Python float or np.float32 makes
# float32, np.float64 and np.float16 their own dtype, an integer int32 (int64 once one is beyond
# int32, float32 once a float follows), a bool bool, a complex number complex128, a string a string.
# Every other leaf must be one that conversion takes, in order: Python bools pass as numbers,
# np.bool_ only as bools.

_INT32_MIN, _INT32_MAX = -2**31, 2**31 - 1
_MIXED_TYPES = "Can't convert Python sequence with mixed types to Tensor."
_NON_RECTANGULAR = "Can't convert non-rectangular Python sequence to Tensor."
_OUT_OF_RANGE_INTEGER = "Can't convert Python sequence with out-of-range integer to Tensor."
_OUT_OF_RANGE_FLOAT = "Can't convert Python sequence with a value out of range for a double-precision float."
_SCALAR_LEAVES = (bool, int, float, complex, str, bytes, np.bool_, np.number, np.str_, np.bytes_)
_FLOAT_LEAF_DTYPES = {np.float16: _dtypes.float16, np.float32: _dtypes.float32, np.float64: _dtypes.float64}
# Finite values from which these dtypes round to an infinity (halfway to the next power of two, ties to even)
_ROUNDS_TO_INFINITY = {_dtypes.float16: 65520.0, _dtypes.float32: 3.4028235677973366e38}
# Leaf kinds each conversion takes ("float" leaves turn an integer conversion into float32)
_TAKES = {"bool": {"bool", "numpy bool"}, "int": {"bool", "int"}, "float": {"bool", "int", "float"},
          "complex": {"bool", "int", "float", "complex"}, "string": {"string"}}


def _is_sequence(value: Any) -> bool:
    return isinstance(value, (list, tuple)) or isinstance(value, np.ndarray) and value.ndim > 0


def _sequence_leaves(value: list | tuple) -> tuple[tuple, list] | None:
    """The shape TF reads off a nested sequence's first elements, and its leaves in order (NumPy arrays
    inside are sequences, 0-d ones scalars); None when a leaf is not a Python or NumPy scalar (tensors,
    which TF packs). A sequence where a scalar belongs mixes types; a scalar, or another length, where
    a sequence belongs is non-rectangular."""
    shape = []
    first = value
    while _is_sequence(first):
        shape.append(len(first))
        if not len(first):
            break
        first = first[0]
    leaves: list = []

    def walk(item: Any, depth: int) -> None:
        if depth == len(shape):
            if _is_sequence(item):
                raise ValueError(_MIXED_TYPES)
            leaves.append(item[()] if isinstance(item, np.ndarray) else item)
        elif not _is_sequence(item) or len(item) != shape[depth]:
            raise ValueError(_NON_RECTANGULAR)
        else:
            for element in item:
                walk(element, depth + 1)

    walk(value, 0)
    if not all(leaf is None or isinstance(leaf, _SCALAR_LEAVES) for leaf in leaves):
        return None
    return tuple(shape), leaves


def _leaf_kind(leaf: Any) -> str | None:
    if leaf.__class__ is bool:
        return "bool"
    if isinstance(leaf, np.bool_):
        return "numpy bool"
    if isinstance(leaf, (int, np.integer)):
        return "int"
    if isinstance(leaf, (float, np.floating)):  # np.float64 is a float
        return "float"
    if isinstance(leaf, (complex, np.complexfloating)):
        return "complex"
    if isinstance(leaf, (str, bytes)):  # np.str_ and np.bytes_ too
        return "string"
    return None


def _check_float_range(leaf: Any, dtype: DType) -> None:
    """A finite float that rounds to an infinity of the converted-to dtype is refused (ints are not)."""
    limit = _ROUNDS_TO_INFINITY.get(dtype)
    if limit is not None and isinstance(leaf, (float, np.floating)) and limit <= abs(float(leaf)) < np.inf:
        raise ValueError(_OUT_OF_RANGE_FLOAT)


def _inferred_sequence(shape: tuple, leaves: list) -> tuple[np.ndarray, DType]:
    """A sequence's array and dtype as TF's converter infers them from its first leaf (see above)."""
    if not leaves:
        return np.zeros(shape, np.float32), _dtypes.float32
    first = leaves[0]
    conversion = _leaf_kind(first)
    if conversion is None:
        raise _unsupported_value(first)
    conversion = "bool" if conversion == "numpy bool" else conversion
    dtype = {"bool": _dtypes.bool, "int": _dtypes.int32, "float": _FLOAT_LEAF_DTYPES.get(type(first), _dtypes.float32),
             "complex": _dtypes.complex128, "string": _dtypes.string}[conversion]
    for leaf in leaves:
        kind = _leaf_kind(leaf)
        if conversion == "int" and kind == "float":
            conversion, dtype = "float", _dtypes.float32
        if kind not in _TAKES[conversion]:
            raise ValueError(_MIXED_TYPES)
        if conversion == "int" and not _INT32_MIN <= leaf <= _INT32_MAX:
            if not -2**63 <= leaf < 2**63:
                raise ValueError(_OUT_OF_RANGE_INTEGER)
            dtype = _dtypes.int64
        elif conversion == "float":
            _check_float_range(leaf, dtype)
    if dtype is _dtypes.string:
        return _as_string_array(np.array(leaves, dtype=object).reshape(shape)), dtype
    wide = {"bool": np.bool_, "int": np.int64, "float": np.float64, "complex": np.complex128}[conversion]
    return quiet_astype(np.array(leaves, dtype=wide).reshape(shape), dtype.as_numpy_dtype), dtype


def _as_python(shape: tuple, leaves: list) -> Any:
    """A sequence's leaves as nested lists of Python scalars (NumPy scalars read as their Python values)."""
    items = np.empty(len(leaves), dtype=object)
    items[:] = [leaf.item() if isinstance(leaf, np.generic) else leaf for leaf in leaves]
    return items.reshape(shape).tolist()


# The dtypes TF's converter converts a Python sequence to directly; to any other, or where that conversion fails,
# it infers the sequence's own dtype first (refusing mixed types: [1.0, 0.5j] as complex64, not as complex128)
_DIRECT_CONVERSIONS = frozenset({"float16", "float32", "float64", "int32", "int64", "uint64", "complex128", "string",
                                 "bool"})
# TF's converter takes Python bools as numbers of these dtypes only (observed in TF 2.21)
_BOOL_CONVERTS_TO = frozenset({"int32", "int64", "uint64", "float16", "float32", "float64", "complex128"})


def _python_value_fits(array: np.ndarray, dtype: DType) -> bool:
    """TF refuses lossy conversions of Python values (2.5 -> int32, 1j -> float32, 1 -> bool), but
    takes integers of int64's range into narrower integer types modulo their width (300 -> int8 44)."""
    kind = array.dtype.kind
    if array.size == 0:
        return True
    if kind == "b":
        return dtype.is_bool or dtype.name in _BOOL_CONVERTS_TO
    if dtype.is_integer:
        return kind == "i"  # NumPy gives Python integers beyond int64's range another kind
    if dtype.is_floating:
        return kind in "iuf" or kind == "O" and all(type(s) is int for s in array.flat)  # ints beyond int64's range
    if dtype.is_complex:
        return kind in "iufc"
    return dtype == _dtypes.string and kind in "USO"


def _as_string_array(array: np.ndarray) -> np.ndarray:
    encode = np.vectorize(lambda s: s.encode() if isinstance(s, str) else s, otypes=[object])
    return encode(array) if array.size else array.astype(object)


def _unsupported_value(value: Any) -> ValueError:
    return ValueError(f"Attempt to convert a value ({value!r}) with an unsupported type ({type(value)!r}) to a Tensor.")


def _unsupported_numpy_element(element: Any) -> ValueError:
    return ValueError(f"Failed to convert a NumPy array to a Tensor (Unsupported object type {type(element).__name__}).")


def value_to_array(value: Any, dtype: DType | None = None, dtype_hint: DType | None = None) -> tuple[np.ndarray, DType]:
    """Converts a non-tensor value to an array and its DType under TF's inference rules."""
    if value.__class__ is np.ndarray and value.dtype.kind in "biufc" and dtype_hint is None and dtype is not _dtypes.string:
        # a NumPy array of numbers or bools, the common case: what the rules below conclude for it
        dtype = _dtypes.as_dtype(value.dtype) if dtype is None else dtype
        return quiet_astype(value, dtype.as_numpy_dtype), dtype
    if value is None:
        raise _unsupported_value(value)
    shown, inferred = value, False
    if isinstance(value, (list, tuple)):
        read = _sequence_leaves(value)
        if read is not None:
            shape, leaves = read
            value = _as_python(shape, leaves)  # converting to a dtype, TF reads NumPy leaves as Python values
            if dtype is None and not (dtype_hint is not None and _python_value_fits(np.asarray(value), dtype_hint)):
                return _inferred_sequence(shape, leaves)
            if dtype is not None and leaves and not (dtype.name in _DIRECT_CONVERSIONS
                                                     and _python_value_fits(np.asarray(value), dtype)):
                _inferred_sequence(shape, leaves)   # refuses mixed types before the cast to `dtype` is checked
                inferred = True
            if leaves and type(leaves[0]) is np.float16 and (dtype or dtype_hint) == _dtypes.float16:
                for leaf in leaves:  # converted by the half conversion a first np.float16 picks, which checks
                    _check_float_range(leaf, _dtypes.float16)
    python_value = _is_python_value(value)
    try:
        array = np.asarray(value)
    except (ValueError, TypeError) as err:
        if python_value:
            raise ValueError("Can't convert non-rectangular Python sequence to Tensor.") from None
        raise _unsupported_value(value) from err
    if array.dtype == object and not python_value:  # only NumPy arrays of strings (as from numpy()) convert
        others = [v for v in array.flat if not isinstance(v, (bytes, str))]
        if others:
            raise _unsupported_numpy_element(others[0]) if isinstance(value, np.ndarray) else _unsupported_value(value)
    if dtype is None and dtype_hint is not None and (_python_value_fits(array, dtype_hint) if python_value else
                                                     array.dtype.kind not in "OSU" and dtype_hint != _dtypes.string):
        dtype = dtype_hint  # NumPy numbers are cast to a hinted dtype, whatever they hold
    if value.__class__ is float and value == 0.0:
        value = _SCALAR_ZEROS.setdefault(dtype, value)
        array = np.asarray(value)
    if python_value:
        _check_python_scalars(value, dtype, inferred)
    if dtype is None:
        dtype = _default_python_dtype(array) if python_value or array.dtype == object else _dtypes.as_dtype(array.dtype)
        if python_value:  # a scalar here: sequences are inferred above
            _check_float_range(value, dtype)
    elif python_value and not _python_value_fits(array, dtype):
        raise TypeError(f"Cannot convert {shown!r} to EagerTensor of dtype {dtype.kernel_name}")
    if dtype == _dtypes.string:
        if not python_value and array.dtype.kind not in "OSU":  # TF makes strings of strings only
            raise _unsupported_numpy_element(array.flat[0].item())
        return _as_string_array(array), dtype
    return quiet_astype(array, dtype.as_numpy_dtype), dtype


def constant(value: Any, dtype: Any = None, shape: Any = None, name: str | None = None) -> EagerTensor:
    """`tf.constant`: a new tensor from a Python or NumPy value (or a copy of a tensor's value)."""
    asked, dtype = dtype, None if dtype is None else _dtypes.as_dtype(dtype)
    if isinstance(value, EagerTensor):
        array, value_dtype = value._value, value.dtype
        if dtype is not None and dtype != value_dtype:  # TF copies a tensor, never casts it
            raise TypeError(f"Expected tensor {array} with dtype {asked!r}, but got dtype {value_dtype!r}.")
    else:
        array, value_dtype = value_to_array(value, dtype)
    if shape is not None:
        shape = tuple(TensorShape(shape))
        if array.size == 1:
            array = np.full(shape, array.reshape(()), dtype=array.dtype)
        elif array.size == int(np.prod(shape)):
            array = array.reshape(shape)
        else:
            raise TypeError(f"Eager execution of tf.constant with unsupported shape. Tensor {value} "
                            f"(converted from {value}) has {array.size} elements, but got `shape` {shape} "
                            f"with {int(np.prod(shape))} elements).")
    return EagerTensor(array, value_dtype)


# Conversion hooks for types defined in later modules (Variable, IndexedSlices densification):
# `(value, dtype) -> tensor`, dtype the one requested (or None).
CONVERSION_HOOKS: dict[type, Any] = {}
# TF's packing of lists and tuples that hold tensors, `(value, dtype) -> tensor or None` (functions.py).
SEQUENCE_PACKING: list = []


def convert_to_tensor(value: Any, dtype: Any = None, dtype_hint: Any = None, name: str | None = None) -> EagerTensor:
    """`tf.convert_to_tensor`: tensors pass through, variables are read, values are converted."""
    dtype = None if dtype is None else _dtypes.as_dtype(dtype)
    if isinstance(value, IndexedSlices) and dtype is not None and dtype != value.dtype:
        raise ValueError(f"Incompatible tensor conversion requested to `dtype` {dtype.name} for IndexedSlices ({value}) "
                         f"with dtype {value.dtype.name}")
    if isinstance(value, (list, tuple)) and SEQUENCE_PACKING:
        packed = SEQUENCE_PACKING[0](value, dtype)
        if packed is not None:
            return packed
    for cls, hook in CONVERSION_HOOKS.items():
        if isinstance(value, cls):
            value = hook(value, dtype)
            break
    if isinstance(value, EagerTensor):
        if dtype is not None and dtype != value.dtype:
            raise ValueError(f"Tensor conversion requested dtype {dtype.name} for Tensor with dtype "
                             f"{value.dtype.name}: {value!r}")
        return value
    hint = None if dtype_hint is None else _dtypes.as_dtype(dtype_hint)
    array, value_dtype = value_to_array(value, dtype, hint)
    return EagerTensor(array, value_dtype)
