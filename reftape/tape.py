"""The backward pass, `GradientTape` and `custom_gradient`, above the ops they differentiate.

What gets recorded lives in `recording.py`. The backward pass walks a recording's ops in reverse
order of execution, which is a topological order, with an explicit work list (no recursion), and
keeps gradients in a dict keyed by tensor id. It computes each op's input gradients with the op's
VJP, written with reftape's own differentiable functions, so that a backward pass running under an
outer tape is itself recorded: that is how higher-order gradients work, as in TF.
"""

from __future__ import annotations

import contextlib
import enum
import functools
import inspect
from typing import Any, Iterable, Iterator

import numpy as np

from . import dtypes as _dtypes
from . import functions as F
from . import nest
from .errors import InternalError, InvalidArgumentError, OpError
from .fp_errors import quiet_kernels, user_code
from .primitives import KERNELS_FLUSH, REGISTRY, DeferralAbandoned, DeferredFlushes, abandon_deferral, execute
from .recording import (OpRecord, Recording, VariableAccessLog, activate, active_recordings, deactivate,
                        record_operation)
from .tensor import EagerTensor, IndexedSlices, TensorShape, convert_to_tensor
from .variables import Variable

NON_PERSISTENT_USED = "A non-persistent GradientTape can only be used to compute one set of gradients (or jacobians)"


class UnconnectedGradients(enum.Enum):
    """What `gradient` returns for a source with no path to the target."""

    NONE = "none"
    ZERO = "zero"


def _unconnected_policy(value: Any) -> UnconnectedGradients:
    if value.__class__ is UnconnectedGradients:
        return value
    try:
        return UnconnectedGradients(value)
    except ValueError:
        raise ValueError("Unknown value for unconnected_gradients: %r" % value) from None


# ---------------------------------------------------------------------------------------------
# The backward pass


def _value_dtype(tensor: Any) -> Any:
    """The dtype of a tensor's values: a variable's handle stands for its variable's dtype."""
    return getattr(tensor, "_zeros_dtype", tensor.dtype)


def _shape_of(tensor: Any) -> tuple:
    return tensor._value.shape if tensor.__class__ is EagerTensor else tuple(tensor.shape)


def _ones_like(target: Any) -> EagerTensor | None:
    """The default seed of a target: a tensor or a variable's handle; none for strings (TF's ones)."""
    dtype = _value_dtype(target)
    if dtype is _dtypes.string:
        return None
    ones = np.empty(_shape_of(target), dtype._numpy_dtype)
    ones.fill(1)  # np.ones, without its Python wrapper
    return EagerTensor(ones, dtype, dtype._numpy_dtype in KERNELS_FLUSH)  # known to hold no subnormals


def zeros_for(source: Any) -> EagerTensor:
    """Zeros shaped like a source: a tensor, a variable, or a variable's handle (its variable's dtype)."""
    dtype = _value_dtype(source)
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
        consumed = {t._id for op in ops.values() for t in op.inputs}
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
        for t in ops[op_id].inputs:
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
        for tensor in ops[op_id].inputs:
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
        for tensor in op.inputs:
            read = producer.get(tensor._id, -1)
            if read in ops:
                reads[read] -= 1
                if not reads[read]:
                    order.append(read)
    return ordered


def _reachable_ops(recording: Recording, tensor_ids: Iterable[int]) -> list[int]:
    """Ids of the recorded ops the tensors of `tensor_ids` depend on, latest first."""
    producer, ops = recording.producer, recording.ops
    found: set[int] = set()
    work = list(tensor_ids)
    while work:
        op_id = producer.get(work.pop(), -1)
        if op_id in ops and op_id not in found:
            found.add(op_id)
            work += [t._id for t in ops[op_id].inputs]
    return sorted(found, reverse=True)


# ---------------------------------------------------------------------------------------------
# GradientTape


def _handle_or_self(value: Any) -> Any:
    if value.__class__ is EagerTensor:
        return value
    return value.handle if hasattr(value, "handle") else value


def _watchable_leaves(structure: Any) -> Iterator[Any]:
    for leaf in nest.flatten(structure):
        if not isinstance(leaf, (EagerTensor, Variable)):
            raise ValueError(f"Passed in object {leaf} of type {type(leaf).__name__!r}, "
                             f"not tf.Tensor or tf.Variable or ExtensionType.")
        yield leaf


def _as_upstream(value: Any) -> Any:
    if isinstance(value, IndexedSlices):
        return value
    return convert_to_tensor(value)


class GradientTape:
    """Records operations for automatic differentiation, with `tf.GradientTape`'s semantics."""

    def __init__(self, persistent: bool = False, watch_accessed_variables: bool = True) -> None:
        self._persistent = persistent
        self._watch_accessed_variables = watch_accessed_variables
        self._tape: Recording | None = None
        self._recording = False
        self._watched_variables: tuple = ()

    def __enter__(self) -> GradientTape:
        self._push_tape()
        return self

    def __exit__(self, typ: Any, value: Any, traceback: Any) -> None:
        if self._recording:
            self._pop_tape()

    def _push_tape(self) -> None:
        if self._recording:
            raise ValueError("Tape is still recording, This can happen if you try to "
                             "re-enter an already-active tape.")
        if self._tape is None:
            self._tape = Recording(self._persistent, self._watch_accessed_variables)
        activate(self._tape)
        self._recording = True

    def _pop_tape(self) -> None:
        if not self._recording:
            raise ValueError("Tape is not recording.")
        deactivate(self._tape)
        self._recording = False

    @contextlib.contextmanager
    def stop_recording(self) -> Iterator[None]:
        """Temporarily stops recording operations on this tape."""
        if self._tape is None:
            raise RuntimeError("Trying to stop recording a tape which is not recording.")
        self._pop_tape()
        try:
            yield
        finally:
            self._push_tape()

    def reset(self) -> None:
        """Discards everything recorded and watched so far; recording continues."""
        self._pop_tape()
        self._tape = None
        self._push_tape()

    def watch(self, tensor: Any) -> None:
        """Ensures that `tensor` (or every tensor and variable in a structure) is traced."""
        for leaf in _watchable_leaves(tensor):
            if self._tape is None:
                raise AttributeError("'NoneType' object has no attribute '_tape'")
            if not active_recordings():
                continue  # TF drops watches made while no tape at all is recording
            if hasattr(leaf, "handle"):
                self._tape.watch_variable(leaf)
            else:
                self._tape.watch(leaf)

    def watched_variables(self) -> tuple:
        if self._tape is not None:
            self._watched_variables = self._tape.watched_variables()
        return self._watched_variables

    def _check_usable(self, message: str = NON_PERSISTENT_USED) -> Recording:
        if self._tape is None:
            raise RuntimeError(message)
        return self._tape

    def _stop_if_one_shot(self) -> None:
        if self._recording and not self._persistent:
            self._pop_tape()

    def _release_if_one_shot(self) -> None:
        if not self._persistent and self._tape is not None:
            self._watched_variables = self._tape.watched_variables()
            self._tape = None

    def gradient(self, target: Any, sources: Any, output_gradients: Any = None,
                 unconnected_gradients: Any = UnconnectedGradients.NONE) -> Any:
        """Gradient of the (summed) `target` with respect to each source, shaped like `sources`."""
        recording = self._check_usable()
        self._stop_if_one_shot()
        if target is None:
            raise TypeError("Argument `target` should be a list or nested structure of Tensors, Variables "
                            "or CompositeTensors to be differentiated, but received None.")
        flat_targets = [_handle_or_self(t) for t in nest.flatten(target)]
        for t in flat_targets:
            _check_dtype_like(t)
        flat_raw = nest.flatten(sources)
        flat_sources = [_handle_or_self(s) for s in flat_raw]
        for s in flat_sources:
            _check_dtype_like(s)
        _check_ids(flat_targets, flat_sources)
        seeds = []
        if output_gradients is not None:
            seeds = [None if g is None else _as_upstream(g) for g in nest.flatten(output_gradients)]
            if any(g is None for g in seeds[:len(flat_targets)]):
                _as_upstream(None)  # TF hands a None seed to the target's gradient function, which fails on it
        policy = _unconnected_policy(unconnected_gradients)
        flat_grads = backward(recording, flat_targets, flat_sources, seeds, consume=not self._persistent)
        self._release_if_one_shot()
        flat_grads = [_fill_unconnected(g, raw, policy) for g, raw in zip(flat_grads, flat_raw)]
        return nest.pack_sequence_as(sources, flat_grads)

    def jacobian(self, target: Any, sources: Any, unconnected_gradients: Any = UnconnectedGradients.NONE,
                 parallel_iterations: Any = None, experimental_use_pfor: bool = True) -> Any:
        """Full Jacobian of `target` with respect to each source: shape target.shape + source.shape."""
        recording = self._check_usable()
        flat_sources = nest.flatten(sources)
        target = self._recorded_tensor(_static_shape_read(target))
        try:
            policy = _unconnected_policy(unconnected_gradients)
        except ValueError as err:
            if experimental_use_pfor:
                raise ValueError("Encountered an exception while vectorizing the jacobian computation. "
                                 "Vectorization can be disabled by setting experimental_use_pfor to False.") from err
            self._require_persistent("jacobian", " with ")
            raise
        if not experimental_use_pfor:
            self._require_persistent("jacobian", " with ")
            _check_loop_iterations(parallel_iterations)
            if target.shape.num_elements() == 0:
                return _empty_loop_jacobian(target, sources)
        self._stop_if_one_shot()
        rows = _vectorizing("jacobian", experimental_use_pfor, self._rows, recording, target,
                            [_handle_or_self(s) for s in flat_sources], None, experimental_use_pfor, parallel_iterations)
        self._release_if_one_shot()
        output = []
        for source, row_grads in zip(flat_sources, rows):
            if row_grads is None:
                zeros = policy is UnconnectedGradients.ZERO
                if zeros and not experimental_use_pfor and isinstance(source, Variable):
                    # TF's loop fills each row with zeros_like(source): a read, which recording tapes watch
                    F.zeros_like(source)
                output.append(F.zeros(tuple(target.shape) + tuple(source.shape), source.dtype) if zeros else None)
            else:
                output.append(_stacked(row_grads, 0, tuple(target.shape) + tuple(source.shape), source.dtype))
            if not experimental_use_pfor:
                _check_loop_dtype(target, output[-1])
        return nest.pack_sequence_as(sources, output)

    def batch_jacobian(self, target: Any, source: Any, unconnected_gradients: Any = UnconnectedGradients.NONE,
                       parallel_iterations: Any = None, experimental_use_pfor: bool = True) -> Any:
        """Jacobian of each batch row of `target` with respect to the same row of `source`."""
        recording = self._check_usable(NON_PERSISTENT_USED.replace("used to compute", "used tocompute"))
        target = self._recorded_tensor(_static_shape_read(target))
        target_shape, source_shape = target.shape, _handle_or_self(source).shape
        if target_shape.rank == 0:  # TF reads the batch dimension before checking the rank
            raise IndexError("list index out of range")
        target_shape.with_rank_at_least(2)
        source_shape.with_rank_at_least(2)
        if target_shape[0] != source_shape[0]:
            raise ValueError("Need first dimension of target shape (%s) and source shape (%s) to match."
                             % (target_shape, source_shape))
        if target_shape[0] == 0:
            raise ZeroDivisionError("integer division or modulo by zero")  # TF: elements // batch size
        F.shape(source)  # TF's array_ops.shape(source): a Variable source is read, so recording tapes watch it
        try:
            policy = _unconnected_policy(unconnected_gradients)
        except ValueError as err:
            if experimental_use_pfor:
                raise ValueError("Encountered an exception while vectorizing the batch_jacobian computation. "
                                 "Vectorization can be disabled by setting experimental_use_pfor to False.") from err
            self._require_persistent("batch_jacobian", "  with")
            raise
        batch = target_shape[0]
        new_shape = (batch,) + tuple(target_shape[1:]) + tuple(source_shape[1:])
        if not experimental_use_pfor:
            self._require_persistent("batch_jacobian", "  with")
            _check_loop_iterations(parallel_iterations)
            if target_shape.num_elements() == 0:  # TF's loop of no iterations gives float32 zeros
                return F.zeros(new_shape, _dtypes.float32)
        self._stop_if_one_shot()
        rows = _vectorizing("batch_jacobian", experimental_use_pfor, self._rows, recording, target,
                            [_handle_or_self(source)], 0, experimental_use_pfor, parallel_iterations)[0]
        self._release_if_one_shot()
        if rows is None and policy is UnconnectedGradients.NONE:
            return F.zeros(new_shape, target.dtype)  # TF fills in zeros of the target's dtype
        if rows is None:  # with ZERO each row's gradient is zeros of the source's dtype
            rows = [zeros_for(_handle_or_self(source))] * int(np.prod(tuple(target_shape[1:]), dtype=np.int64))
        result = _stacked(rows, 1, new_shape, _value_dtype(_handle_or_self(source)))
        if not experimental_use_pfor:
            _check_loop_dtype(target, result)
        return result

    def _recorded_tensor(self, target: Any) -> EagerTensor:
        """The target as a tensor, converted while this tape records (as TF reshapes it): reading a
        Variable target is then on the tape, so jacobian(v, v) is the identity; IndexedSlices (a
        gradient through gather) are densified by a recorded op."""
        if self._recording:
            return F.convert_to_tensor(target)
        self._push_tape()
        try:
            return F.convert_to_tensor(target)
        finally:
            self._pop_tape()

    def _require_persistent(self, what: str, joiner: str) -> None:
        if not self._persistent:
            raise RuntimeError(f"GradientTape must be created with persistent=True to compute the {what} "
                               f"with eager execution enabled and{joiner} experimental_use_pfor set to False.")

    def _rows(self, recording: Recording, target: EagerTensor, sources: list, axis: int | None,
              vectorized: bool, parallel_iterations: Any = None) -> list:
        """Per-source lists of gradients of one target element (or one column of every batch row,
        when `axis` is 0) each, seeded by one-hot upstream gradients; None for an unconnected source.
        `vectorized` mirrors TF's pfor loop, which a recording tape must be able to differentiate."""
        shape = tuple(target.shape)
        if axis is None:
            count, one_hot = int(np.prod(shape)), (lambda i: _one_hot(shape, target.dtype, np.unravel_index(i, shape)))
        else:
            count = int(np.prod(shape[1:]))
            one_hot = lambda j: _one_hot(shape, target.dtype, (slice(None),) + np.unravel_index(j, shape[1:]))  # noqa: E731
        rows: list[list] = [[] for _ in sources]
        connected = [False] * len(sources)
        first_op = next(Recording._op_ids)
        differentiating = False
        try:
            for source in sources:  # as each iteration's gradient call checks them, tracked target or not
                _check_dtype_like(source)
            _check_ids([target], sources)
            if not recording.tracks(target):
                # TF differentiates gather(reshape(target), i), recorded only where the tape tracks the
                # target: an untracked target is connected to nothing, not even to itself.
                return [None] * len(sources)
            differentiating = True
            for i in range(count):
                for k, grad in enumerate(backward(recording, [target], sources, [one_hot(i)])):
                    connected[k] = connected[k] or grad is not None
                    rows[k].append(grad)
            traced = [grad for row in rows for grad in row]
            if count == 0:  # TF's pfor traces the loop body once: an empty target still connects sources
                seed = EagerTensor(np.zeros(shape, target.dtype.as_numpy_dtype), target.dtype)
                traced = backward(recording, [target], sources, [seed])
                connected = [grad is not None for grad in traced]
            if vectorized:
                _check_pfor_iterations(parallel_iterations, count)
        except Exception as error:
            if differentiating and not self._persistent:  # TF's traced gradient call took the one-shot tape's ops
                recording.ops.clear()
            if vectorized:  # TF's loop body is traced by AutoGraph, which re-raises in its own way
                raise _as_traced(error) from None
            raise
        if vectorized:
            _check_vectorized_loop_is_differentiable(first_op, traced)
        return [[_dense_or_zeros(g, s) for g in r] if c else None for r, c, s in zip(rows, connected, sources)]


def _vectorizing(what: str, vectorized: bool, rows: Any, *args: Any) -> list:
    """TF's (batch_)jacobian re-raises a ValueError from its vectorized loop as its own."""
    if not vectorized:
        return rows(*args)
    try:
        return rows(*args)
    except ValueError as err:
        raise ValueError(f"Encountered an exception while vectorizing the {what} computation. Vectorization can be "
                         "disabled by setting experimental_use_pfor to False.") from err


def _check_loop_iterations(parallel_iterations: Any) -> None:
    """The unvectorized loop (TF's while_loop) checks its parallel_iterations first."""
    if parallel_iterations is not None and parallel_iterations < 1:
        raise TypeError("'parallel_iterations' must be a positive integer.")


def _check_pfor_iterations(parallel_iterations: Any, iterations: int) -> None:
    """The vectorized loop checks parallel_iterations after tracing its body; fewer iterations than it
    asks for ignore it, otherwise it divides the iterations by it (as an int32)."""
    if parallel_iterations is None:
        return
    if parallel_iterations < 1:
        raise ValueError("Argument `parallel_iterations` must be None or a positive integer. "
                         f"Received: {parallel_iterations}.")
    if parallel_iterations == 1:
        raise ValueError("Found `parallel_iterations == 1`. Use `for_loop` instead.")
    if iterations >= parallel_iterations and not isinstance(parallel_iterations, (int, np.integer)):
        raise TypeError(f"Expected int32 passed to parameter 'y' of op 'FloorDiv', got {parallel_iterations!r} of type "
                        f"'{type(parallel_iterations).__name__}' instead. Error: Expected int32, but got "
                        f"{parallel_iterations!r} of type '{type(parallel_iterations).__name__}'.")


# TF traces (batch_)jacobian's vectorized loop with AutoGraph, which re-raises an exception from the
# loop body as its own class only where it knows how to rebuild it with a new message.

class StagingError(Exception):
    """AutoGraph's class for an exception from traced code that it cannot rebuild as its own class."""


_REBUILT_AS_THEMSELVES = (AssertionError, AttributeError, NameError, NotImplementedError, RuntimeError, StopIteration,
                          TypeError, UnboundLocalError, ValueError)


def _as_traced(error: Exception) -> Exception:
    """`error`, raised inside a traced loop, as AutoGraph re-raises it."""
    kind = type(error)
    if getattr(error, "traced_refusal", None) is not None:  # a dtype refused when the traced op is built
        return TypeError(f"in user code:\n\n\n    TypeError: {error.traced_refusal}\n")
    if isinstance(error, (OpError, StagingError, KeyError)):  # KeyError: as TF 2.21's jacobian was seen to raise
        return error
    message = f"in user code:\n\n\n    {kind.__name__}: {error}\n"
    if kind in _REBUILT_AS_THEMSELVES or kind.__init__ is Exception.__init__:
        return kind(message)
    return StagingError(message)


def _check_vectorized_loop_is_differentiable(first_op: int, gradients: list) -> None:
    """TF runs (batch_)jacobian's vectorized loop as a traced function, pruned to the gradients it
    returns; when a tape records it, TF needs the gradient of every op inside, so an op without a
    registered gradient that the returned gradients depend on fails right away."""
    returned = [t for g in gradients if g is not None
                for t in ((g.values, g.indices) if isinstance(g, IndexedSlices) else (g,))]
    for recording in active_recordings():
        for op_id in _reachable_ops(recording, [t._id for t in returned]):
            op = recording.ops[op_id]
            if op_id > first_op:  # TF builds the gradient of each op in the loop: a refused dtype is a TypeError
                for name in op.primitive.gradient_ops:
                    built = REGISTRY[name]
                    dtype = op.inputs[0].dtype
                    if built.traced_refusal is not None and built.dtypes is not None and dtype not in built.dtypes:
                        raise TypeError(built.traced_refusal.format(dtype=dtype.name))
            if op_id > first_op and getattr(op.primitive.vjp, "unregistered", False):
                name = op.primitive.name
                raise LookupError(f"No gradient defined for operation'gradient_tape/{name}/pfor/{name}' (op type: "
                                  f"{name}). In general every operation must have an associated "
                                  "`@tf.RegisterGradient` for correct autodiff, which this op is lacking.")


def _stacked(rows: list, axis: int, shape: tuple, dtype: Any) -> EagerTensor:
    """Per-row gradients stacked along `axis` and reshaped; zeros of `dtype` when there is no row."""
    return F.reshape(F.stack(rows, axis=axis), shape) if rows else F.zeros(shape, dtype)


def _empty_loop_jacobian(target: EagerTensor, sources: Any) -> Any:
    """jacobian without pfor of an empty target: TF's loop of no iterations yields one float32
    zeros([0]) whatever the sources, which fails to pack into several sources and to take the
    shape of a non-scalar source's jacobian."""
    flat = nest.flatten(sources)
    if len(flat) != 1:
        raise ValueError(f"Could not pack sequence. Structure had {len(flat)} atoms, but flat_sequence had 1 items.")
    full_shape = tuple(target.shape) + tuple(flat[0].shape)
    if full_shape != tuple(target.shape):
        raise ValueError(f"Tensor's shape {target.shape} is not compatible with supplied shape {TensorShape(full_shape)}.")
    return nest.pack_sequence_as(sources, [F.zeros(full_shape, _dtypes.float32)])


def _check_loop_dtype(target: EagerTensor, result: Any) -> None:
    """Without pfor, TF writes each row into a TensorArray of the target's dtype."""
    if result is not None and result.dtype != target.dtype:
        raise InvalidArgumentError(f"TensorArray dtype is {target.dtype.name} but Op is trying to write dtype "
                                   f"{result.dtype.name} ")


def _one_hot(shape: tuple, dtype: Any, index: tuple) -> EagerTensor:
    value = np.zeros(shape, dtype.as_numpy_dtype)
    value[index] = 1
    return EagerTensor(value, dtype)


def _dense_or_zeros(grad: Any, source: Any) -> EagerTensor:
    return zeros_for(source) if grad is None else F.convert_to_tensor(grad)


def _check_dtype_like(value: Any) -> None:
    """TF asks each target, then each source, whether its dtype is trainable: anything that is not a
    tensor must then convert to a dtype (None, strings that name none, lists: TypeError; a number
    converts as TF's dtype enum numbers do, 3 and 3.0 to int32). Where the dtype is not trainable, TF
    logs the value's `dtype`, which a Python number lacks (AttributeError). IndexedSlices are TF types
    with a dtype: they pass, and fail later for want of a tape id."""
    if not hasattr(value, "_id"):
        dtype = _dtypes.as_dtype(value.dtype if isinstance(value, IndexedSlices) else value)
        if not dtype._trainable:
            value.dtype  # noqa: B018 - raises Python's AttributeError where it has none


def _check_ids(targets: list, sources: list) -> None:
    """What TF's C tape raises for objects that are not tensors: they lack an `_id`, sources' first,
    unless a target and a source both lack one (they then share the id it stands for, and the target's
    `dtype` is read as a source's)."""
    if all(hasattr(value, "_id") for value in sources + targets):
        return  # tensors and handles only: nothing to raise
    bad_source = next((s for s in sources if not hasattr(s, "_id")), None)
    bad_target = next((t for t in targets if not hasattr(t, "_id")), None)
    if bad_source is not None and bad_target is not None:
        bad_target.dtype  # noqa: B018
    for value in (bad_source, bad_target):
        if value is not None:
            value._id  # noqa: B018


def _static_shape_read(target: Any) -> Any:
    """The target, once its `.shape` has been read as TF's jacobians read it first: a target
    without one (None, a number) raises TF's AttributeError, not a conversion error."""
    target.shape  # noqa: B018
    return target


def _fill_unconnected(grad: Any, source: Any, policy: UnconnectedGradients) -> Any:
    if grad is None and policy is UnconnectedGradients.ZERO and source.dtype is not _dtypes.string:  # TF: no zeros
        # TF fills a source with a ZerosLike op, which recording tapes see (a gradient of these zeros
        # taken by an outer tape is zeros, not None); a variable is read for it, so a tape that
        # watches accessed variables watches it and records its zeros too.
        return F.zeros_like(source)
    return grad


# ---------------------------------------------------------------------------------------------
# custom_gradient


def custom_gradient(f: Any = None) -> Any:
    """Decorator: `f` returns (outputs, grad_fn); grad_fn replaces the recorded ops' gradient."""
    if f is None:
        return custom_gradient

    return _CustomGradientFunction(f)


class _CustomGradientFunction:
    """What `custom_gradient` returns: a callable that, looked up on an instance, binds `f` to it (as
    TF's decorator does), so that a method's `self` is not one of the function's inputs."""

    def __init__(self, f: Any) -> None:
        self._f = f
        functools.update_wrapper(self, f)

    def __get__(self, instance: Any, owner: Any) -> Any:
        return self if instance is None else _CustomGradientFunction(self._f.__get__(instance, owner))

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return _call_with_custom_gradient(self._f, args, kwargs)


def _call_with_custom_gradient(f: Any, args: tuple, kwargs: dict) -> Any:
    accessed = VariableAccessLog()
    with accessed:
        result, grad_fn = f(*args, **kwargs)
    flat_args = nest.flatten(args)
    # The captured variables: those read inside `f` that are not themselves arguments. Keyword
    # arguments are neither inputs nor captured variables: they get no gradient.
    passed = flat_args + nest.flatten(kwargs)
    variables = [v for v in accessed.variables if v.trainable and all(v is not arg for arg in passed)]
    accepts_variables = "variables" in inspect.signature(grad_fn).parameters or any(
        p.kind is p.VAR_KEYWORD for p in inspect.signature(grad_fn).parameters.values())
    if variables and not accepts_variables:
        raise TypeError("@tf.custom_gradient grad_fn must accept keyword argument 'variables', since function "
                        f"uses variables: {variables}")
    flat_result = [F.identity(x) for x in nest.flatten(result)]
    inputs = [F.convert_to_tensor(x) for x in flat_args + variables]  # Variables (arguments, captured) read now
    arg_count = len(flat_args)

    def grad_of_inputs(upstream: list, outputs: tuple, *recorded: Any, **_: Any) -> list:
        abandon_deferral()  # grad_fn must run once
        with user_code():
            if variables:
                input_grads, variable_grads = grad_fn(*upstream, variables=variables)
            else:
                input_grads, variable_grads = grad_fn(*upstream), []
        if variables and len(variable_grads) != len(variables):
            raise ValueError("Must return gradient for each variable from @custom_gradient grad_fn.")
        flat_grads = nest.flatten(input_grads)
        if len(flat_grads) != arg_count:
            raise ValueError(f"custom_gradient function expected to return {arg_count} gradients, "
                             f"but returned {len(flat_grads)} instead.")
        return flat_grads + variable_grads  # a tuple of variable gradients is TF's TypeError too

    record_operation(REGISTRY["CustomGradient"], inputs, flat_result, {"grad_fn": grad_of_inputs, "name": f.__name__})
    return nest.pack_sequence_as(result, flat_result)
