"""The backward pass: the recorded ops a gradient depends on, in the order TF's eager backward pass runs
them, and their VJPs applied from the targets' seeds to the sources.

The pass walks a recording's ops (`recording.py`) with an explicit work list (no recursion) and keeps
gradients in a dict keyed by tensor id. Each op's input gradients come from its VJP (`ops_table.py`),
written with reftape's own differentiable functions, so that a backward pass running under an outer
tape is itself recorded: that is how higher-order gradients work, as in TF. `GradientTape` (`tape.py`)
calls `backward`.
"""

from __future__ import annotations

from typing import Any, Iterable

import numpy as np

from . import dtypes as _dtypes
from . import functions as F
from .errors import InternalError
from .fp_errors import quiet_kernels
from .primitives import KERNELS_FLUSH, DeferralAbandoned, DeferredFlushes, execute
from .recording import OpRecord, Recording, active_recordings
from .tensor import EagerTensor, IndexedSlices


def value_dtype(tensor: Any) -> Any:
    """The dtype of a tensor's values: a variable's handle stands for its variable's dtype."""
    return getattr(tensor, "_zeros_dtype", tensor.dtype)


def _shape_of(tensor: Any) -> tuple:
    return tensor._value.shape if tensor.__class__ is EagerTensor else tuple(tensor.shape)


def _ones_like(target: Any) -> EagerTensor | None:
    """The default seed of a target: a tensor or a variable's handle; none for strings (TF's ones)."""
    dtype = value_dtype(target)
    if dtype is _dtypes.string:
        return None
    ones = np.empty(_shape_of(target), dtype._numpy_dtype)
    ones.fill(1)  # np.ones, without its Python wrapper
    return EagerTensor(ones, dtype, dtype._numpy_dtype in KERNELS_FLUSH)  # known to hold no subnormals


def zeros_for(source: Any) -> EagerTensor:
    """Zeros shaped like a source: a tensor, a variable, or a variable's handle (its variable's dtype)."""
    dtype = value_dtype(source)
    return EagerTensor(np.zeros(_shape_of(source), dtype._numpy_dtype), dtype, dtype._numpy_dtype in KERNELS_FLUSH)


def aggregate(contributions: list) -> Any:
    """Sums gradient contributions as TF does: IndexedSlices concatenate, any dense one densifies."""
    if len(contributions) == 1:
        return contributions[0]
    for g in contributions:
        if g.__class__ is not EagerTensor:
            break
    else:  # tensors only: add_n without its conversions
        return execute("AddN", contributions)
    if all(isinstance(g, IndexedSlices) for g in contributions):
        if len({g.indices.dtype for g in contributions}) > 1:  # TF casts int32 indices to int64 among int64 ones
            contributions = [IndexedSlices(g.values, F.cast(g.indices, _dtypes.int64), g.dense_shape)
                             for g in contributions]
        contributions = [_flattened(g) for g in contributions]
        return IndexedSlices(F.concat([g.values for g in contributions], 0),
                             F.concat([g.indices for g in contributions], 0),
                             contributions[0].dense_shape)
    return F.add_n(contributions)


def _flattened(slices: IndexedSlices) -> IndexedSlices:
    """IndexedSlices whose values are IndexedSlices (GatherNd's gradient of a sparse upstream) as one level,
    as TF flattens them before summing: the inner values at the outer indices of the inner indices."""
    if not isinstance(slices.values, IndexedSlices):
        return slices
    inner = _flattened(slices.values)
    return IndexedSlices(inner.values, F.gather(slices.indices, inner.indices), inner.dense_shape)


def backward(recording: Recording, targets: list, sources: list, output_gradients: list,
             consume: bool = False) -> list:
    """Gradients of the sum of `targets` with respect to each of `sources` (None if unconnected).

    `targets` and `sources` are tensors or variable handles; `output_gradients[i]` (if present
    and not None) seeds target i instead of ones. With `consume` (TF's non-persistent tape), the
    recording gives up all its ops before the pass runs, so that after a pass that failed, a later
    one finds none.
    """
    ops = _ops_in_backward_order(recording, [t._id for t in targets])
    if consume:
        recording.ops.clear()
    with quiet_kernels():
        if not active_recordings():  # nothing records the pass: it can run twice unseen
            try:
                with DeferredFlushes():
                    return _backward_pass(recording, ops, targets, sources, output_gradients)
            except DeferralAbandoned:  # a subnormal met, or user code reached: the careful pass decides
                pass
        return _backward_pass(recording, ops, targets, sources, output_gradients)


def _backward_pass(recording: Recording, ops: dict[int, OpRecord], targets: list, sources: list,
                   output_gradients: list) -> list:
    producer = recording.producer
    grads: dict[int, list] = {}
    for i, target in enumerate(targets):
        seed = output_gradients[i] if i < len(output_gradients) else None
        if seed is None and producer.get(target._id, -1) >= 0 and producer[target._id] not in ops:
            raise InternalError("Internal state of the gradient tape is invalid: failed to find operation "
                                "producing a tensor")  # a failed pass of a non-persistent tape took them all
        seed = _ones_like(target) if seed is None else seed
        if seed is not None:
            grads.setdefault(target._id, []).append(seed)

    source_ids = {s._id for s in sources}
    for op in ops.values():
        primitive = op.primitive
        if primitive.num_outputs is None:  # the common case: one upstream gradient, passed as it is
            upstream = _take(grads, op.outputs[0]._id, source_ids)
            if upstream is None:
                continue
            if upstream.__class__ is IndexedSlices and not primitive.sparse_upstream:
                upstream = F.convert_to_tensor(upstream)
            input_grads = primitive.vjp(upstream, op.outputs[0], *op.inputs, needs=op.needs, **op.attrs)
        else:
            upstream = [_take(grads, t._id, source_ids) for t in op.outputs]
            if all(g is None for g in upstream):
                continue
            input_grads = _multi_output_gradients(op, upstream)
        if not isinstance(input_grads, (list, tuple)):
            input_grads = (input_grads,)
        for tensor, grad in zip(op.inputs, input_grads):
            if grad is not None and tensor._id in producer and tensor._dtype._trainable:  # tracked
                contributions = grads.get(tensor._id)
                if contributions is None:
                    grads[tensor._id] = [grad]
                else:
                    contributions.append(grad)
    _drop_consumed_seeds(recording, ops, sources, grads)
    return [aggregate(grads[s._id]) if grads.get(s._id) else None for s in sources]


def _drop_consumed_seeds(recording: Recording, ops: dict[int, OpRecord], sources: list, grads: dict) -> None:
    """Once its last consumer is processed, a tensor the tape does not hold loses its gradients, even
    a target's seed: TF's gradient([u, u * x], u) is None when u is neither watched nor recorded. Only
    such a seed can be lost (contributions go to held tensors), and only sources' gradients are read."""
    unheld_seeded = [s._id for s in sources if s._id in grads and s._id not in recording.producer]
    if unheld_seeded:
        consumed = {t._id for op in ops.values() for t in op.reads}
        for tensor_id in unheld_seeded:
            if tensor_id in consumed:
                grads.pop(tensor_id, None)  # a source may be listed twice


def _multi_output_gradients(op: OpRecord, upstream: list) -> Any:
    """The input gradients of a recorded op of several outputs, given their upstream gradients (None: absent)."""
    primitive = op.primitive
    if not primitive.sparse_upstream:
        upstream = [F.convert_to_tensor(g) if g.__class__ is IndexedSlices else g for g in upstream]
    if primitive.fills_missing_upstream:  # with constants, as TF's backward pass does: never on a tape
        upstream = [zeros_for(y) if g is None else g for g, y in zip(upstream, op.outputs)]
    return primitive.vjp(upstream, op.outputs, *op.inputs, needs=op.needs, **op.attrs)


def _take(grads: dict, tensor_id: int, source_ids: set) -> Any:
    """A tensor's summed gradient, removed from `grads` unless the tensor is a source (read later)."""
    contributions = grads.pop(tensor_id, None)
    if not contributions:
        return None
    total = contributions[0] if len(contributions) == 1 else aggregate(contributions)
    if tensor_id in source_ids:
        grads[tensor_id] = [total]
    return total


# The bucket counts a libstdc++ unordered_map goes through as it grows one element at a time: it
# rehashes to the next when an insertion would take its size past the current one.
_BUCKET_COUNTS = (13, 29, 59, 127, 257, 541, 1109, 2357, 5087, 10273, 20753, 42043, 85229, 172933, 351061,
                  712697, 1447153, 2938679, 5967347)


def _unordered_map_order(keys: list[int]) -> list[int]:
    """The iteration order of a libstdc++ std::unordered_map<int64_t, ...> (identity hash, bucket =
    key modulo the bucket count) after inserting `keys` in turn: one list of nodes where a bucket's
    nodes are contiguous; a key joins the front of its bucket's run, or the front of the list when its
    bucket is empty; a rehash reinserts the nodes in list order by the same rule."""
    level = 0
    runs: list[int] = []  # buckets, last is first in the list
    members: dict[int, list[int]] = {}  # a bucket's keys, last is first

    def insert(key: int) -> None:
        bucket = key % _BUCKET_COUNTS[level]
        if bucket in members:
            members[bucket].append(key)
        else:
            members[bucket] = [key]
            runs.append(bucket)

    def in_order() -> list[int]:
        return [k for b in reversed(runs) for k in reversed(members[b])]

    for count, key in enumerate(keys, 1):
        if count > _BUCKET_COUNTS[level]:
            nodes = in_order()
            level += 1
            runs.clear()
            members.clear()
            for node in nodes:
                insert(node)
        insert(key)
    return in_order()


def _tf_initial_order(recording: Recording, target_ids: Iterable[int], initial: list[int]) -> list[int]:
    """The order in which TF runs the ops it starts from, when there are several (targets' producers
    that no other op of the pass reads): TF copies the ops the targets depend on into a fresh
    std::unordered_map keyed by the tape's own op numbers (0, 1, ... in recording order), in the order
    of its depth-first search from the targets (a stack, last target first; an op's inputs pushed
    the first time the search reads them), lists the starting ops in that map's iteration order and
    runs them last first."""
    producer, ops = recording.producer, recording.ops
    tape_number = {op_id: n for n, op_id in enumerate(ops)}
    inserted: list[int] = []
    visited: set[int] = set()
    read: set[int] = set()
    stack = list(target_ids)
    while stack:
        op_id = producer.get(stack.pop(), -1)
        if op_id not in ops or op_id in visited:
            continue
        visited.add(op_id)
        inserted.append(tape_number[op_id])
        for t in ops[op_id].reads:
            if t._id not in read:
                read.add(t._id)
                if t._id in producer:
                    stack.append(t._id)
    by_number = {tape_number[op_id]: op_id for op_id in initial}
    return [by_number[n] for n in reversed(_unordered_map_order(inserted)) if n in by_number]


def _ops_in_backward_order(recording: Recording, tensor_ids: Iterable[int]) -> dict[int, OpRecord]:
    """The recorded ops the tensors of `tensor_ids` depend on, by op id, in the order TF's eager backward pass
    runs their gradients: an op once every read of its outputs by these ops has been processed, first
    ready first run, from the ops none of them reads. Gradient contributions arrive, and are summed
    or concatenated (IndexedSlices), in this order; several starting ops in the order of TF's hash map
    of ops (`_tf_initial_order`)."""
    producer, ops = recording.producer, recording.ops
    found = list(dict.fromkeys(op_id for op_id in map(producer.get, tensor_ids) if op_id in ops))
    target_ops = set(found)
    reads: dict[int, int] = {}  # op -> reads of its outputs by the ops found
    for op_id in found:  # grows as the search finds ops, each once
        for tensor in ops[op_id].reads:
            read = producer.get(tensor._id, -1)
            if read in ops:  # not a watched tensor (-1), nor the output of an op a failed pass took
                if read in reads:
                    reads[read] += 1
                else:
                    reads[read] = 1
                    if read not in target_ops:
                        found.append(read)
    order = [op_id for op_id in found if op_id not in reads]
    if len(order) > 1:
        order = _tf_initial_order(recording, tensor_ids, order)
    ordered = {}
    for op_id in order:  # grows as ops become ready
        op = ordered[op_id] = ops[op_id]
        for tensor in op.reads:
            read = producer.get(tensor._id, -1)
            if read in ops:
                reads[read] -= 1
                if not reads[read]:
                    order.append(read)
    return ordered


def reachable_ops(recording: Recording, tensor_ids: Iterable[int]) -> list[int]:
    """Ids of the recorded ops the tensors of `tensor_ids` depend on, latest first."""
    producer, ops = recording.producer, recording.ops
    found: set[int] = set()
    work = list(tensor_ids)
    while work:
        op_id = producer.get(work.pop(), -1)
        if op_id in ops and op_id not in found:
            found.add(op_id)
            work += [t._id for t in ops[op_id].reads]
    return sorted(found, reverse=True)
