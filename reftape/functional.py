"""`map_fn`, `scan`, `foldl`, `foldr` and `vectorized_map` as TF runs them eagerly: elements unstacked
into TensorArrays, read one at a time by a `while_loop`, results written to TensorArrays and stacked.
Gradients flow through those unstacks, the user's function and the stacks, as in TF."""

from __future__ import annotations

from typing import Any, Callable

from . import functions as F
from . import nest
from .control_flow import _read_variables, assert_same_structure, while_loop
from .recording import suspended
from .tensor_array import TensorArray
from .tensor_spec import TensorSpec


def _check_callable(fn: Any, message: str) -> None:
    if not callable(fn):
        raise TypeError(message.format(name=fn.__name__))  # a value without __name__: TF's AttributeError


def _is_nested(value: Any) -> bool:
    return isinstance(value, (list, tuple, dict))


def _first_dimension(tensor: Any) -> int:
    return tensor.shape[0]  # a scalar's empty shape: TF's IndexError


def _unstacked(tensors: list, size: int, element_shape: Any = None) -> list[TensorArray]:
    return [TensorArray(t.dtype, size=size, dynamic_size=False, infer_shape=True, element_shape=element_shape(t)
                        if element_shape else None).unstack(t) for t in tensors]


# ---------------------------------------------------------------------------------------------
# map_fn


def _spec_of(signature: Any) -> TensorSpec:
    return signature if isinstance(signature, TensorSpec) else TensorSpec(None, signature)


def _mapped_length(elems_flat: list) -> int:
    first = elems_flat[0]
    if first.shape.ndims < 1:
        raise ValueError("Elements in elems must be 1+ dimensional Tensors, not scalars")
    length = first.shape.with_rank_at_least(1)[0]
    for tensor in elems_flat[1:]:
        other = tensor.shape.with_rank_at_least(1)[0]
        if other != length:
            raise ValueError(f"Dimensions {length} and {other} are not compatible")
    return length


def map_fn(fn: Any, elems: Any, dtype: Any = None, parallel_iterations: Any = None, back_prop: bool = True,
           swap_memory: bool = False, infer_shape: bool = True, name: Any = None,
           fn_output_signature: Any = None) -> Any:
    """`fn` applied to the slices of `elems` along axis 0, its results stacked; their dtypes are the
    elements' unless `fn_output_signature` (or `dtype`) says otherwise."""
    if fn_output_signature is None:
        fn_output_signature = dtype
    _check_callable(fn, "The provided function {name} is not callable.fn must be callable.")
    elems = _read_variables(elems)
    elems_flat = nest.flatten(elems)
    if len(elems_flat) == 0:
        raise ValueError("elems must be a Tensor or (possibly nested) sequence of Tensors. Got {}, which does not "
                         "contain any Tensors.".format(elems))
    elems_flat = [F.convert_to_tensor(t) for t in elems_flat]
    if fn_output_signature is None:
        result_specs = [TensorSpec(None, t.dtype) for t in elems_flat]
        unflatten_result = lambda flat: nest.pack_sequence_as(elems, flat)  # noqa: E731
    else:
        result_specs = [_spec_of(s) for s in nest.flatten(fn_output_signature)]
        unflatten_result = lambda flat: nest.pack_sequence_as(fn_output_signature, flat)  # noqa: E731
    n = _mapped_length(elems_flat)
    elems_tas = _unstacked(elems_flat, n)
    results = [TensorArray(spec.dtype, size=n, dynamic_size=False, infer_shape=infer_shape, element_shape=spec.shape)
               for spec in result_specs]

    def compute(i: Any, tas: list) -> tuple:
        element = nest.pack_sequence_as(elems, [ta.read(i) for ta in elems_tas])
        result = fn(element)
        assert_same_structure(fn_output_signature or elems, result)
        return i + 1, [ta.write(i, value) for ta, value in zip(tas, nest.flatten(result))]

    _, results = while_loop(lambda i, _: i < n, compute, (F.constant(0), results), maximum_iterations=n)
    return unflatten_result([ta.stack() for ta in results])


# ---------------------------------------------------------------------------------------------
# scan, foldl, foldr


def _packing(structure: Any) -> tuple[Callable, Callable]:
    """(flatten, pack) for values shaped like `structure`: a lone value is a list of one."""
    if _is_nested(structure):
        return nest.flatten, lambda flat: nest.pack_sequence_as(structure, flat)
    return (lambda value: [value]), (lambda flat: flat[0])


def scan(fn: Any, elems: Any, initializer: Any = None, parallel_iterations: int = 10, back_prop: bool = True,
         swap_memory: bool = False, infer_shape: bool = True, reverse: bool = False, name: Any = None) -> Any:
    """Every intermediate accumulator of `fn(accumulator, element)` over the slices of `elems`, stacked."""
    _check_callable(fn, "{name} is not callable. Please provide a callable function.")
    flatten_input, pack_input = _packing(elems)
    flatten_output, pack_output = _packing(elems if initializer is None else initializer)
    elems_flat = [F.convert_to_tensor(e) for e in flatten_input(elems)]
    n = _first_dimension(elems_flat[0])
    elems_tas = _unstacked(elems_flat, n, element_shape=lambda t: t.shape[1:])
    if initializer is None:
        accumulators = [ta.read(n - 1 if reverse else 0) for ta in elems_tas]
        start = 1
    else:
        accumulators = [F.convert_to_tensor(a) for a in flatten_output(initializer)]
        start = 0
    outputs = [TensorArray(a.dtype, size=n, element_shape=a.shape if infer_shape else None, dynamic_size=False,
                           infer_shape=infer_shape) for a in accumulators]
    if initializer is None:
        outputs = [ta.write(n - 1 if reverse else 0, a) for ta, a in zip(outputs, accumulators)]

    def compute(i: Any, accumulators: list, tas: list) -> tuple:
        element = pack_input([ta.read(i) for ta in elems_tas])
        produced = fn(pack_output(accumulators), element)
        assert_same_structure(elems if initializer is None else initializer, produced)
        flat = flatten_output(produced)
        return (i - 1 if reverse else i + 1), flat, [ta.write(i, value) for ta, value in zip(tas, flat)]

    if reverse:
        first, condition = n - 1 - start, (lambda i, _1, _2: i >= 0)
    else:
        first, condition = start, (lambda i, _1, _2: i < n)
    _, _, outputs = while_loop(condition, compute, (first, accumulators, outputs), maximum_iterations=n)
    stacked = [ta.stack() for ta in outputs]
    for tensor in elems_flat[1:]:
        other = tensor.shape.with_rank_at_least(1)[0]
        if other != n:
            raise ValueError(f"Dimensions {n} and {other} are not compatible")
    return pack_output(stacked)


def _fold_setup(fn: Any, elems: Any) -> tuple[int, Any]:
    _check_callable(fn, "{name} is not callable. Please provide a callable function.")
    elems_flat = [F.convert_to_tensor(e) for e in nest.flatten(elems)]
    n = _first_dimension(elems_flat[0]) or F.shape(elems_flat[0])[0]
    elems_tas = nest.map_structure(
        lambda e: TensorArray(e.dtype, size=n, dynamic_size=False, infer_shape=True).unstack(e), elems)
    return n, elems_tas


def _read_all(elems_tas: Any, index: Any) -> Any:
    return nest.map_structure(lambda ta: ta.read(index), elems_tas)


def foldl(fn: Any, elems: Any, initializer: Any = None, parallel_iterations: int = 10, back_prop: bool = True,
          swap_memory: bool = False, name: Any = None) -> Any:
    """`fn(accumulator, element)` over the slices of `elems` from the first; the last accumulator."""
    n, elems_tas = _fold_setup(fn, elems)
    if initializer is None:
        accumulator, start = _read_all(elems_tas, 0), F.constant(1)
    else:
        accumulator, start = initializer, F.constant(0)

    def compute(i: Any, accumulator: Any) -> list:
        return [i + 1, fn(accumulator, _read_all(elems_tas, i))]

    _, result = while_loop(lambda i, _: i < n, compute, [start, accumulator], maximum_iterations=n)
    return result


def foldr(fn: Any, elems: Any, initializer: Any = None, parallel_iterations: int = 10, back_prop: bool = True,
          swap_memory: bool = False, name: Any = None) -> Any:
    """`fn(accumulator, element)` over the slices of `elems` from the last; the last accumulator."""
    n, elems_tas = _fold_setup(fn, elems)
    if initializer is None:
        start = n - 1
        accumulator = _read_all(elems_tas, start)
    else:
        accumulator, start = initializer, n

    def compute(i: Any, accumulator: Any) -> list:
        i -= 1
        return [i, fn(accumulator, _read_all(elems_tas, i))]

    _, result = while_loop(lambda i, _: i > 0, compute, [start, accumulator], maximum_iterations=n)
    return result


# ---------------------------------------------------------------------------------------------
# vectorized_map


def _batch_size(elems_flat: list) -> int:
    return max(t.shape.as_list()[0] for t in elems_flat)  # a scalar's empty list: TF's IndexError


def _slices(tensor: Any, size: int) -> list:
    """Each row of `tensor`. A first dimension of 1 is TF's broadcasting gather of row 0, one op outside the
    vectorized loop (its gradient IndexedSlices); other rows come unpacked, so their gradients are dense,
    as from TF's vectorized gather over the loop index."""
    if tensor.shape[0] == 1:
        return [F.gather(tensor, 0)] * size
    return F.unstack(tensor)


def vectorized_map(fn: Any, elems: Any, fallback_to_while_loop: bool = True, warn: bool = True) -> Any:
    """`fn` over the rows of `elems`, results stacked. TF vectorizes `fn`; the values agree (to rounding)."""
    elems = nest.map_structure(F.convert_to_tensor, _read_variables(elems))
    elems_flat = nest.flatten(elems)
    size = _batch_size(elems_flat)
    if size == 0:
        return _empty_vectorized_map(fn, elems, elems_flat)
    columns = [_slices(t, size) for t in elems_flat]
    outputs = [fn(nest.pack_sequence_as(elems, [column[i] for column in columns])) for i in range(size)]
    flat_outputs = [nest.flatten(output) for output in outputs]
    stacked = [F.stack([row[k] for row in flat_outputs]) for k in range(len(flat_outputs[0]))]
    return nest.pack_sequence_as(outputs[0], stacked)


def _empty_vectorized_map(fn: Any, elems: Any, elems_flat: list) -> Any:
    """No rows: TF traces `fn` once on an element; its outputs' shapes give the empty results'."""
    with suspended():
        traced = fn(nest.pack_sequence_as(elems, [F.zeros(t.shape.as_list()[1:], t.dtype) for t in elems_flat]))
    return nest.map_structure(lambda out: F.zeros([0] + F.convert_to_tensor(out).shape.as_list(),
                                                  F.convert_to_tensor(out).dtype), traced)


__all__ = ["foldl", "foldr", "map_fn", "scan", "vectorized_map"]

