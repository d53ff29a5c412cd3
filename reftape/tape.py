"""`GradientTape`: recording scopes, `gradient`, `jacobian` and `batch_jacobian`, above the ops they
differentiate. What gets recorded lives in `recording.py`, the backward pass in `backward.py`."""

from __future__ import annotations

import contextlib
import enum
from typing import Any, Iterator

import numpy as np

from . import dtypes as _dtypes
from . import functions as F
from . import nest
from .backward import backward, reachable_ops, value_dtype, zeros_for
from .errors import InvalidArgumentError, OpError
from .primitives import REGISTRY
from .recording import Recording, activate, active_recordings, deactivate
from .tensor import EagerTensor, IndexedSlices, TensorShape, convert_to_tensor
from .thread_state import this_thread
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
            if target.shape.num_elements() == 0 and this_thread.state.tracer is None:
                return _empty_loop_jacobian(target, sources)
        self._stop_if_one_shot()
        rows = _vectorizing("jacobian", experimental_use_pfor, self._rows, recording, target,
                            [_handle_or_self(s) for s in flat_sources], None, experimental_use_pfor, parallel_iterations,
                            policy)
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
                output[-1] = _loop_stacked(target, output[-1])
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
            if target_shape.num_elements() == 0 and this_thread.state.tracer is None:
                return F.zeros(new_shape, _dtypes.float32)  # TF's eager loop of no iterations: float32 zeros
        self._stop_if_one_shot()
        rows = _vectorizing("batch_jacobian", experimental_use_pfor, self._rows, recording, target,
                            [_handle_or_self(source)], 0, experimental_use_pfor, parallel_iterations, policy)[0]
        self._release_if_one_shot()
        if rows is None and policy is UnconnectedGradients.NONE:
            return F.zeros(new_shape, target.dtype)  # TF fills in zeros of the target's dtype
        if rows is None:  # with ZERO each row's gradient is zeros of the source's dtype
            rows = [zeros_for(_handle_or_self(source))] * int(np.prod(tuple(target_shape[1:]), dtype=np.int64))
        result = _stacked(rows, 1, new_shape, value_dtype(_handle_or_self(source)))
        return _loop_stacked(target, result) if not experimental_use_pfor else result

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
              vectorized: bool, parallel_iterations: Any = None,
              policy: UnconnectedGradients = UnconnectedGradients.NONE) -> list:
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
            traced: list = []
            # TF differentiates gather(reshape(target), i), recorded only where the tape tracks the target:
            # an untracked target is connected to nothing, not even to itself (its rows stay empty).
            if recording.tracks(target):
                differentiating = True
                with _vectorizing_loop(vectorized):
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
                if _runs_loop_body_twice(parallel_iterations, count):
                    self._trace_tiles(rows, connected, policy, axis, count % parallel_iterations, count)
        except Exception as error:
            if differentiating and not self._persistent:  # TF's traced gradient call took the one-shot tape's ops
                recording.ops.clear()
            if vectorized:  # TF's loop body is traced by AutoGraph, which re-raises in its own way
                raise _as_traced(error) from None
            raise
        if vectorized:
            # the loop body's gradient call returned: TF's tape is spent before an outer tape records the loop
            self._release_if_one_shot()
            _check_vectorized_loop_is_differentiable(first_op, traced)
        return [[_dense_or_zeros(g, s) for g in r] if c else None for r, c, s in zip(rows, connected, sources)]

    def _trace_tiles(self, rows: list, connected: list, policy: UnconnectedGradients, axis: int | None,
                     remainder: int, count: int) -> None:
        """TF's vectorized loop of at least `parallel_iterations` iterations converts its first trace's
        gradients to tensors (a None fails), then traces the body again for the tiles, rows `remainder`
        on. A non-persistent tape, spent by the first trace, has nothing left for the second: jacobian's
        gradients are None there (zeros under UnconnectedGradients.ZERO), batch_jacobian refuses."""
        self._release_if_one_shot()  # the first trace's gradient call spent a non-persistent tape
        if policy is UnconnectedGradients.NONE and not all(connected):
            raise ValueError("None values not supported.")
        if self._persistent:
            return
        if axis is not None:
            raise RuntimeError("GradientTape must be created with persistent=True to compute the batch_jacobian with "
                               "parallel_iterations.")
        if policy is UnconnectedGradients.NONE:
            raise ValueError("None values not supported.")
        for row in rows:
            row[remainder:] = [None] * (count - remainder)


@contextlib.contextmanager
def _vectorizing_loop(vectorized: bool) -> Iterator[None]:
    """Marks the backward passes of a vectorized loop, whose ops TF's pfor rebuilds (see the Einsum VJP)."""
    state = this_thread.state
    outer, state.vectorizing = state.vectorizing, vectorized
    try:
        yield
    finally:
        state.vectorizing = outer


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


def _runs_loop_body_twice(parallel_iterations: Any, iterations: int) -> bool:
    """TF's vectorized loop of at least `parallel_iterations` iterations traces its body twice (the
    remainder, then the tiles)."""
    return parallel_iterations is not None and iterations >= parallel_iterations


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
        for op_id in reachable_ops(recording, [t._id for t in returned]):
            op = recording.ops[op_id]
            if op_id > first_op:  # TF builds the gradient of each op in the loop: a refused dtype is a TypeError
                for name in op.primitive.gradient_ops:
                    built = REGISTRY[name]
                    dtype = op.inputs[0].dtype
                    if built.traced_refusal is not None and built.dtypes is not None and dtype not in built.dtypes:
                        raise TypeError(built.traced_refusal.format(dtype=dtype.name))
            if op_id > first_op and getattr(op.primitive.vjp, "unregistered", False):
                name = op.primitive.name
                # An op pfor cannot vectorize runs in a while loop; where TF needs higher-order gradients of the
                # traced loop (a persistent recording tape, or two or more), its gradient is looked up inside
                # AutoGraph's staging
                unvectorized = getattr(op.primitive.vjp, "unvectorized", False)
                message = (f"No gradient defined for operation'gradient_tape/{name}/pfor/{'while/' * unvectorized}"
                           f"{name}' (op type: {name}). In general every operation must have an associated "
                           "`@tf.RegisterGradient` for correct autodiff, which this op is lacking.")
                if unvectorized:  # raised where TF's gradient function lookup explains itself in full
                    message += (" If you want to pretend this operation is a constant in your program, you may insert "
                                "`tf.stop_gradient`. This can be useful to silence the error in cases where you know "
                                "gradients are not needed, e.g. the forward pass of tf.custom_gradient. Please see more "
                                "details in https://www.tensorflow.org/api_docs/python/tf/custom_gradient.")
                recordings = active_recordings()
                if unvectorized and (len(recordings) > 1 or any(r.persistent for r in recordings)):
                    raise StagingError(f"in user code:\n\n\n    LookupError: {message}\n")
                raise LookupError(message)


def _stacked(rows: list, axis: int, shape: tuple, dtype: Any) -> EagerTensor:
    """Per-row gradients stacked along `axis` and reshaped; zeros of `dtype` when there is no row."""
    return F.reshape(F.stack(rows, axis=axis), shape) if rows else F.zeros(shape, dtype)


def _empty_loop_jacobian(target: EagerTensor, sources: Any) -> Any:
    """jacobian without pfor of an empty target, run eagerly: TF's loop of no iterations yields one float32
    zeros([0]) whatever the sources, which fails to pack into several sources and to take the
    shape of a non-scalar source's jacobian (TF_ANOMALIES.md; traced, TF's loop gives each source's jacobian)."""
    flat = nest.flatten(sources)
    if len(flat) != 1:
        raise ValueError(f"Could not pack sequence. Structure had {len(flat)} atoms, but flat_sequence had 1 items.")
    full_shape = tuple(target.shape) + tuple(flat[0].shape)
    if full_shape != tuple(target.shape):
        raise ValueError(f"Tensor's shape {target.shape} is not compatible with supplied shape {TensorShape(full_shape)}.")
    return nest.pack_sequence_as(sources, [F.zeros(full_shape, _dtypes.float32)])


def _loop_stacked(target: EagerTensor, result: Any) -> Any:
    """Without pfor, TF writes each row into a TensorArray of the target's dtype: a row of another dtype is
    refused, and an empty target's (traced: eagerly, `_empty_loop_jacobian`) writes no row and stacks as the
    target's dtype."""
    if result is None:
        return None
    if target.shape.num_elements() == 0:
        return F.zeros(tuple(result.shape), target.dtype)
    if result.dtype != target.dtype:
        raise InvalidArgumentError(f"TensorArray dtype is {target.dtype.name} but Op is trying to write dtype "
                                   f"{result.dtype.name} ")
    return result


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
