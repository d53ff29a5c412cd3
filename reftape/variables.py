"""`tf.Variable`: mutable state whose reads are recorded ops on the variable's handle.

Each read produces a fresh tensor through a recorded `ReadVariableOp` from the handle, so reads
before and after an assignment are separate tape entries whose gradients meet at the handle, and
the backward pass uses the value captured at read time (catalog entries 31 and 32).
"""

from __future__ import annotations

import functools
import itertools
from typing import Any

import numpy as np

from . import dtypes as _dtypes
from . import recording as _recording
from .errors import InvalidArgumentError
from .kernels.indexing import _scatter_into
from .primitives import execute
from .thread_state import this_thread
from .tensor import CONVERSION_HOOKS, EagerTensor, IndexedSlices, TensorShape, _next_id, convert_to_tensor, numpy_text

_creation_order = itertools.count().__next__


class _Handle:
    """The variable's resource handle: the tape id that gradients w.r.t. the variable collect at."""

    __slots__ = ("_id", "_variable")
    dtype = _dtype = _dtypes.resource
    _value, _flushed = None, True  # what a kernel reads from a tensor: a handle holds no array

    def __init__(self, variable: Variable) -> None:
        self._id = _next_id()
        self._variable = variable

    @property
    def shape(self) -> TensorShape:
        return self._variable.shape

    @property
    def _zeros_dtype(self) -> Any:
        return self._variable.dtype


class Variable:
    """`tf.Variable(...)`; instances are `ResourceVariable`, as in TensorFlow."""

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        return super().__new__(ResourceVariable if cls is Variable else cls)


class ResourceVariable(Variable):
    __array_priority__ = 100  # NumPy operands defer to the variable's operators, as for tensors

    def __init__(self, initial_value: Any = None, trainable: bool | None = None, validate_shape: bool = True,
                 caching_device: Any = None, name: str | None = None, variable_def: Any = None,
                 dtype: Any = None, import_scope: Any = None, constraint: Any = None,
                 synchronization: Any = None, aggregation: Any = None, shape: Any = None) -> None:
        if initial_value is None:
            raise ValueError("The `initial_value` arg (None) must be specified as a `Tensor` or Python value.")
        if callable(initial_value):
            initial_value = initial_value()
        with _recording.suspended():  # the initializer is copied by a non-differentiable assign
            value = convert_to_tensor(initial_value, dtype=dtype)
        tracer = this_thread.state.tracer or this_thread.state.lifted
        if tracer is not None:  # a tf.function creates variables on its first trace only (in an init_scope too)
            tracer.variable_created()
        self._value = np.array(value._value)
        self._dtype = value.dtype
        self._trainable = True if trainable is None else bool(trainable)
        self._name = (name or "Variable") + ":0"
        self._creation_order = _creation_order()
        self.handle = _Handle(self)

    dtype = property(lambda self: self._dtype)
    name = property(lambda self: self._name)
    trainable = property(lambda self: self._trainable)
    shape = property(lambda self: TensorShape(self._value.shape))
    device = property(lambda self: "/job:localhost/replica:0/task:0/device:CPU:0")

    def get_shape(self) -> TensorShape:
        return self.shape

    def _shape_tuple(self) -> tuple:
        return self._value.shape

    def _accessed_value(self) -> np.ndarray:
        """The current value, read as TF reads it for numpy() and repr(): an access, which starts
        tapes watching accessed variables watching this one."""
        _recording.variable_accessed(self)
        if this_thread.state.tracer is not None:  # a value a tf.function's trace cannot replay
            this_thread.state.tracer.replayable = False
        return self._value

    def numpy(self) -> Any:
        value = self._accessed_value().copy()
        return value[()] if value.ndim == 0 else value

    def _numpy(self) -> Any:
        return self.numpy()

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        return np.asarray(self.numpy(), dtype=dtype)  # a copy: numpy() copies

    def read_value(self) -> EagerTensor:
        """Reads the current value; recorded on tapes that watch this variable."""
        _recording.variable_accessed(self)
        return execute("ReadVariableOp", [self.handle], value=self._value, dtype=self._dtype)

    value = read_value

    def _assign(self, value: Any, update: Any, read_value: bool, op: str | None = None) -> _UnreadVariable | None:
        """Writes `update(old, new)`; `op` names TF's kernel of an update (assign_add, assign_sub), whose
        shape check fails in the kernel, where assign's fails in Python. As in TF, only reading the
        result back (`read_value`) is an access of this variable: it returns TF's view of the handle,
        an `UnreadVariable`; without it, nothing (TF's eager assign op is None)."""
        if this_thread.state.tracer is not None:
            this_thread.state.tracer.assign(self, value, update, read_value, op)
        if isinstance(value, Variable):  # TF reads a Variable value: an access too (a read no gradient flows through)
            _recording.variable_accessed(value)
        with _recording.suspended():
            new = convert_to_tensor(value, dtype=self._dtype)
        if op is not None and self._dtype.name not in _UPDATABLE:
            raise InvalidArgumentError(
                f"No OpKernel was registered to support Op '{op}' used by {{{{node {op}}}}} with these attrs: "
                f"[dtype=DT_{self._dtype.kernel_name.upper()}]\nRegistered devices: [CPU] [Op:{op}] name: ")
        if new._value.shape != self._value.shape:
            if op is None:
                raise ValueError(f"Cannot assign value to variable ' {self._name}': Shape mismatch.The variable shape "
                                 f"{self._value.shape}, and the assigned value shape {new._value.shape} are incompatible.")
            raise InvalidArgumentError(
                f"Cannot update variable with shape {list(self._value.shape)} using a Tensor with shape "
                f"{list(new._value.shape)}, shapes must be equal. [Op:{op}] name: ")
        with np.errstate(all="ignore"):  # overflow gives inf, as in TF, without NumPy's warning
            self._store(update(self._value, new._value))
        if not read_value:
            return None
        _recording.variable_accessed(self)
        return _UnreadVariable(self)

    def assign(self, value: Any, use_locking: Any = None, name: Any = None, read_value: bool = True) -> Any:
        return self._assign(value, lambda old, new: np.array(new), read_value)

    def assign_add(self, delta: Any, use_locking: Any = None, name: Any = None, read_value: bool = True) -> Any:
        return self._assign(delta, lambda old, new: old + new, read_value, "AssignAddVariableOp")

    def assign_sub(self, delta: Any, use_locking: Any = None, name: Any = None, read_value: bool = True) -> Any:
        return self._assign(delta, lambda old, new: old - new, read_value, "AssignSubVariableOp")

    def _strided_slice_assign(self, key: tuple, value: Any) -> _UnreadVariable:
        """ResourceStridedSliceAssign: `value` (broadcast) written at `key` of the current value, an
        access of this variable; nothing is recorded, so no gradient flows to `value`."""
        if this_thread.state.tracer is not None:  # a tf.function's trace replays the whole update
            return this_thread.state.tracer.variable_call(self, ResourceVariable._strided_slice_assign, (key, value))
        new = self._converted(value)
        updated = self._value.copy()
        try:
            with np.errstate(all="ignore"):
                updated[key] = new._value
        except ValueError:
            raise InvalidArgumentError(
                f"Cannot broadcast input shape {list(new._value.shape)} into final shape "
                f"{list(np.shape(self._value[key]))} [Op:ResourceStridedSliceAssign] name: strided_slice/_assign"
            ) from None
        return self._written(updated)

    def scatter_nd_update(self, indices: Any, updates: Any, name: str | None = None) -> _UnreadVariable:
        """The slices at `indices` replaced by `updates` (of a repeated index, the last)."""
        return self._scatter_nd("ResourceScatterNdUpdate", indices, updates, accumulate=False)

    def scatter_nd_add(self, indices: Any, updates: Any, name: str | None = None) -> _UnreadVariable:
        """`updates` added in at `indices`, in order."""
        return self._scatter_nd("ResourceScatterNdAdd", indices, updates, accumulate=True)

    def scatter_nd_sub(self, indices: Any, updates: Any, name: str | None = None) -> _UnreadVariable:
        """`updates` subtracted at `indices`, in order."""
        return self._scatter_nd("ResourceScatterNdSub", indices, updates, accumulate=True, negate=True)

    def scatter_update(self, sparse_delta: Any, use_locking: bool = False, name: str | None = None) -> _UnreadVariable:
        """The rows `sparse_delta.indices` replaced by `sparse_delta.values` (a `tf.IndexedSlices`)."""
        if not isinstance(sparse_delta, IndexedSlices):
            raise TypeError(f"Argument `sparse_delta` must be a `tf.IndexedSlices`. Received arg: {sparse_delta}")
        rows = np.asarray(convert_to_tensor(sparse_delta.indices)._value)
        beyond = np.flatnonzero((rows < 0) | (rows >= self._value.shape[0]))
        if beyond.size:
            where = int(beyond[0])
            raise InvalidArgumentError(f"indices[{where}] = {rows.flat[where]} is not in [0, {self._value.shape[0]}) "
                                       "[Op:ResourceScatterUpdate] name: ")
        return self._scatter_nd("ResourceScatterUpdate", rows[..., None], sparse_delta.values, accumulate=False)

    def _scatter_nd(self, op: str, indices: Any, updates: Any, accumulate: bool, negate: bool = False) -> _UnreadVariable:
        """A Resource scatter kernel on the current value; its errors name `op`."""
        if this_thread.state.tracer is not None:  # a tf.function's trace replays the whole update
            return this_thread.state.tracer.variable_call(self, ResourceVariable._scatter_nd,
                                                          (op, indices, updates, accumulate, negate))
        index_array = _scatter_indices(indices)
        new = self._converted(updates)._value
        if negate:
            with np.errstate(all="ignore"):
                new = -new
        try:
            updated = _scatter_into(self._value.copy(), index_array, new, accumulate)
        except (ValueError, InvalidArgumentError) as error:
            text = str(error).split(" [Op:")[0].replace("into  shape", "into shape")
            raise InvalidArgumentError(f"{text} [Op:{op}]") from None
        return self._written(updated)

    def _converted(self, value: Any) -> EagerTensor:
        """A value to write, converted to this variable's dtype (reading a Variable value is an access)."""
        if isinstance(value, Variable):
            _recording.variable_accessed(value)
        with _recording.suspended():
            return convert_to_tensor(value, dtype=self._dtype)

    def _store(self, updated: np.ndarray) -> None:
        """Makes `updated` the value; the traces running now note the value before (`_Trace.before_write`)."""
        if this_thread.state.tracer is not None:
            this_thread.state.tracer.before_write(self)
        self._value = updated.astype(self._dtype.as_numpy_dtype)

    def _written(self, updated: np.ndarray) -> _UnreadVariable:
        """Stores `updated` and returns TF's lazy read of the handle, an access of this variable."""
        if this_thread.state.tracer is not None:  # an update a tf.function's trace cannot replay
            this_thread.state.tracer.replayable = False
        self._store(updated)
        _recording.variable_accessed(self)
        return _UnreadVariable(self)

    def __repr__(self) -> str:
        shown = EagerTensor(self._accessed_value(), self._dtype)
        return "<tf.Variable '%s' shape=%s dtype=%s, numpy=%s>" % (
            self._name, self.shape, self._dtype.name, numpy_text(shown, is_repr=True))

    __str__ = __repr__

    def __hash__(self) -> int:
        raise TypeError(f"Variable is unhashable. Instead, use variable.ref() as the key. (Variable: {self})")

    def ref(self) -> Any:
        return _VariableReference(self)

    # No __len__, __index__ or __format__: as in TF, len() and operator.index() fail on a Variable
    # and format() is object's (str() for an empty spec, TypeError otherwise).
    def __bool__(self) -> bool:
        return bool(self.read_value())

    def __float__(self) -> float:
        return float(self.numpy())

    def __int__(self) -> int:
        return int(self.numpy())

    def __complex__(self) -> complex:
        return complex(self.numpy())

    def __copy__(self) -> ResourceVariable:
        return self

    def __deepcopy__(self, memo: dict) -> ResourceVariable:
        return ResourceVariable(self.read_value(), **self._copied_attributes())

    def __reduce__(self) -> tuple:
        return functools.partial(ResourceVariable, initial_value=self.numpy(), **self._copied_attributes()), ()

    def _copied_attributes(self) -> dict[str, Any]:
        """What a deep copy or an unpickled variable keeps: a new variable with the same name."""
        return {"trainable": self._trainable, "name": self._name.removesuffix(":0"), "dtype": self._dtype}


# The dtypes TF's AssignAddVariableOp and AssignSubVariableOp have kernels for: numbers, not bools or strings
_UPDATABLE = frozenset({"float16", "bfloat16", "float32", "float64", "complex64", "complex128", "int8", "int16",
                        "int32", "int64", "uint8"})


class _UnreadVariable(ResourceVariable):
    """What an assign returns in TF: another Variable object on the same handle, named "UnreadVariable"
    and trainable whatever the variable is; it reads (and assigns) the variable's current value, and
    tapes see it as the variable (gradients meet at the handle; the first object watched is listed).
    Its reads are no accesses: a tape watches the handle only if it already watched the variable."""

    def __init__(self, variable: ResourceVariable) -> None:
        self._variable = variable
        self._dtype = variable._dtype
        self._trainable = True
        self._name = "UnreadVariable"
        self._creation_order = variable._creation_order
        self.handle = variable.handle

    def read_value(self) -> EagerTensor:
        return execute("ReadVariableOp", [self.handle], value=self._value, dtype=self._dtype)

    value = read_value

    def _accessed_value(self) -> np.ndarray:
        return self._value

    @property
    def _value(self) -> np.ndarray:
        return self._variable._value

    @_value.setter
    def _value(self, value: np.ndarray) -> None:
        self._variable._value = value


def _scatter_indices(indices: Any) -> np.ndarray:
    """The indices of a Resource scatter, refused as TF's op refuses a dtype other than int32 or int64."""
    with _recording.suspended():
        tensor = convert_to_tensor(indices)
    if tensor.dtype.kernel_name not in ("int32", "int64"):
        raise InvalidArgumentError(f"Value for attr 'Tindices' of {tensor.dtype.kernel_name} is not in the list of "
                                   "allowed values: int32, int64")
    return tensor._value


class _VariableReference:
    def __init__(self, variable: ResourceVariable) -> None:
        self._variable = variable

    def deref(self) -> ResourceVariable:
        return self._variable

    def __hash__(self) -> int:
        return self._variable.handle._id

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _VariableReference) and other._variable is self._variable


def _variable_as_tensor(variable: Variable, dtype: Any) -> EagerTensor:
    """A Variable converted to a tensor: a recorded read, refused before reading for another dtype."""
    if dtype is not None and dtype != variable.dtype:
        raise ValueError(f"Incompatible type conversion requested to type {dtype.name} for `tf.Variable of type "
                         f"{variable.dtype.name}. (Variable: {variable!r})")
    return variable.read_value()


CONVERSION_HOOKS[Variable] = _variable_as_tensor
