"""`tf.TensorArray` as TF runs it eagerly: a Python list of tensors. Writes store the tensors
themselves and reads return them, so gradients flow through whatever ops built and consume them
(`stack` packs, `unstack` unpacks, `concat` concatenates, `split` splits), as in TF."""

from __future__ import annotations

from typing import Any

import numpy as np

from . import dtypes as _dtypes
from . import functions as F
from .errors import InvalidArgumentError, OpError, OutOfRangeError
from .tensor import EagerTensor, TensorShape


def _python_index(index: Any) -> Any:
    return index.numpy() if isinstance(index, EagerTensor) else index


class TensorArray:
    """A list of tensors of one dtype, written and read by index; `write` and the other updates return
    the array itself."""

    def __init__(self, dtype: Any, size: Any = None, dynamic_size: Any = None, clear_after_read: Any = None,
                 tensor_array_name: Any = None, handle: Any = None, flow: Any = None, infer_shape: bool = True,
                 element_shape: Any = None, colocate_with_first_write_call: bool = True, name: Any = None) -> None:
        if handle is not None:
            raise ValueError("TensorArray handles are not supported when eager execution is enabled.")
        if size is None:
            raise ValueError("Size must be declared for TensorArrays when eager execution is enabled.")
        self._flow = F.constant(0, dtype=_dtypes.int32)
        self._infer_shape = infer_shape
        self._element_shape = TensorShape(element_shape)
        self._dtype = _dtypes.as_dtype(dtype)
        self._dynamic_size = dynamic_size or False
        self._clear_after_read = True if clear_after_read is None else clear_after_read
        self._previously_read: list = []
        self._tensors: list = [None for _ in range(_python_index(size))]

    flow = property(lambda self: self._flow)
    dtype = property(lambda self: self._dtype)
    handle = property(lambda self: None)
    element_shape = property(lambda self: self._element_shape)
    dynamic_size = property(lambda self: self._dynamic_size)

    def identity(self) -> TensorArray:
        return self

    def grad(self, source: Any, flow: Any = None, name: Any = None) -> Any:
        raise NotImplementedError("TensorArray.grad is not supported when executing eagerly; eager's gradient "
                                  "implementation does not use/need this function to compute gradients of "
                                  "operations that use TensorArrays.")

    def read(self, index: Any, name: Any = None) -> EagerTensor:
        index = _python_index(index)
        if index < 0:
            raise OutOfRangeError("Reading from negative indices (index %d) is not allowed." % index)
        if index >= len(self._tensors):
            raise OutOfRangeError("Tried to read from index %d but array size is: %d " % (index, len(self._tensors)))
        tensor = self._tensors[index]
        if tensor is None:
            if index in self._previously_read:
                raise InvalidArgumentError("Could not read index %d twice because it was cleared after a previous "
                                           "read (perhaps try setting clear_after_read = false?)" % index)
            tensor = self._zeros_if_unwritten(index)
        if self._clear_after_read:
            self._tensors[index] = None
            self._previously_read.append(index)
        return tensor

    def write(self, index: Any, value: Any, name: Any = None) -> TensorArray:
        self._write(index, value)
        return self

    def _write(self, index: Any, value: Any) -> None:
        index = _python_index(index)
        if index < 0:
            raise OutOfRangeError("Writing to negative indices (index %d) is not allowed." % index)
        size = len(self._tensors)
        if index >= size:
            if not self._dynamic_size:
                raise OutOfRangeError("Tried to write to index %d but array is not resizeable and size is: %d "
                                      % (index, size))
            self._tensors.extend(None for _ in range(index - size + 1))
        if not isinstance(value, EagerTensor):
            value = F.convert_to_tensor(value, dtype_hint=self._dtype)
        if self._dtype != value.dtype:
            raise InvalidArgumentError("TensorArray dtype is %s but Op is trying to write dtype %s "
                                       % (self._dtype.name, value.dtype.name))
        if not self._element_shape.is_compatible_with(value.shape):
            raise ValueError("Incompatible shape for value (%s), expected (%s)" % (value.shape, self._element_shape))
        if self._infer_shape:
            self._element_shape = self._element_shape.merge_with(value.shape)
        self._tensors[index] = value

    def _zeros_if_unwritten(self, index: int) -> EagerTensor:
        """An element never written reads as zeros of the element shape, which is then stored."""
        tensor = self._tensors[index]
        if tensor is None:
            if not self._element_shape.is_fully_defined():
                raise ValueError(f"Cannot convert a partially known TensorShape {self._element_shape} to a Tensor.")
            tensor = self._tensors[index] = F.zeros(self._element_shape.as_list(), self._dtype)
        return tensor

    def stack(self, name: Any = None) -> EagerTensor:
        for index in range(len(self._tensors)):
            self._zeros_if_unwritten(index)
        if not self._tensors and self._element_shape.is_fully_defined():
            return F.zeros([0] + self._element_shape.as_list(), self._dtype)
        if not self._tensors:
            return F.convert_to_tensor([], dtype=self._dtype)
        return F.convert_to_tensor(self._tensors, dtype=self._dtype)  # a recorded Pack

    def gather(self, indices: Any, name: Any = None) -> EagerTensor:
        indices = _python_index(indices)
        return F.stack([self._zeros_if_unwritten(i) for i in indices])

    def concat(self, name: Any = None) -> EagerTensor:
        parts = [self._zeros_if_unwritten(i) for i in range(len(self._tensors))]
        try:
            return F.concat(parts, 0)
        except OpError:
            ranks = [t.shape.ndims for t in self._tensors]
            if 0 in ranks:
                raise InvalidArgumentError("Concat saw a scalar shape at index %d but requires at least vectors."
                                           % ranks.index(0)) from None
            raise

    def unstack(self, value: Any, name: Any = None) -> TensorArray:
        tensors = F.unstack(value)
        if len(tensors) > len(self._tensors) and not self._dynamic_size:
            raise ValueError("Cannot unstack %d tensors into a TensorArray of static size %d "
                             % (len(tensors), len(self._tensors)))
        self._tensors = tensors
        return self

    def scatter(self, indices: Any, value: Any, name: Any = None) -> TensorArray:
        indices = _python_index(indices)
        for index, element in zip(indices, F.unstack(value)):
            self._write(index, element)
        return self

    def split(self, value: Any, lengths: Any, name: Any = None) -> TensorArray:
        value = F.convert_to_tensor(value, dtype_hint=self._dtype)
        lengths = F.convert_to_tensor(lengths)
        total = int(np.sum(lengths.numpy()))
        if lengths.shape.ndims != 1:
            raise InvalidArgumentError("Expected lengths to be a vector, received shape: %s " % lengths.shape.as_list())
        if value.shape.ndims == 0:
            raise InvalidArgumentError("Expected value to be at least a vector, but received shape: %s "
                                       % value.shape.as_list())
        if total != value.shape.as_list()[0]:
            raise InvalidArgumentError("Expected sum of lengths to be equal to values.shape[0], but sum of lengths is "
                                       "%d and value's shape is: %s " % (total, value.shape.as_list()))
        if not self._dynamic_size and lengths.shape[0] != len(self._tensors):
            raise InvalidArgumentError("TensorArray's size is not equal to the size of lengths (%d vs. %d), and the "
                                       "TensorArray is not marked as dynamically resizeable."
                                       % (len(self._tensors), lengths.shape[0]))
        self._tensors = F.split(value, lengths)
        return self

    def size(self, name: Any = None) -> EagerTensor:
        return F.constant(len(self._tensors))

    def close(self, name: Any = None) -> None:
        del self._tensors[:]
