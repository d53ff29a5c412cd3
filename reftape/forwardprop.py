"""`tf.autodiff.ForwardAccumulator`: forward-mode autodiff (Jacobian-vector products).

An accumulator holds a tangent for each tensor it knows, starting from the primals it was given.
While it is active it sits in the thread's stack of recordings (`recording.py`) next to the
gradient tapes, and every recorded op whose inputs have tangents gets tangents for its outputs.

A tangent is found from the op's VJP (`ops_table.py`) by transposing it: the VJP is linear in its
upstream gradient, so running it on a watched stand-in upstream and differentiating the result with
respect to that stand-in, weighted by the input tangents, gives the output tangents. The VJPs are
written with reftape's own functions, so that second pass is an ordinary backward pass.

Nesting follows the order in which tapes and accumulators were entered: the ops that compute an
accumulator's tangents are seen by the tapes and accumulators entered before it, never by those
entered after it. So a tape around an accumulator can differentiate its tangents (backward over
forward) and an accumulator around a tape sees the tape's backward pass (forward over backward).

TF's answers this follows (tests/suite/test_forward_mode.py checks each against TF):
- an output gets no tangent (None) where the op's VJP gives its inputs none (round, sign, casts to
  integers, ZerosLike) or the op is never recorded (StopGradient, comparisons, argmax, Shape);
- a custom_gradient's outputs keep the tangents their forward ops gave them; only outputs left without
  one get the transposed grad_fn's (recompute_grad's raises NotImplementedError there);
- TF computes tangents in a traced function: a dtype refused there is a TypeError, gradients crossing
  its boundary are dense (the `ForwardpropCall` copy), an outer accumulator tracking any of the call's
  tensors gives every tangent it returns a tangent (zeros where unconnected), and GatherNd's
  IndexedSlices gradient (indices that are rows of one index) makes TF's transposing tape fail;
- a tangent can be IndexedSlices (scatter_nd's, unsorted_segment_sum's), densified where an op reads it.

Not followed: TF checks no tangent's shape against its primal's; reftape neither, but where TF's traced
shapes broadcast a mismatched tangent, reftape's eager VJPs may give another shape (or raise ValueError
where TF's does not). Tangents live as long as their accumulator, not as long as their tensors.
"""

from __future__ import annotations

import threading
from typing import Any

from . import functions as F
from . import nest
from .backward import backward, zeros_for
from .errors import InvalidArgumentError
from .primitives import execute
from .recording import OpRecord, Recording
from .tape import UnconnectedGradients
from .tensor import EagerTensor, IndexedSlices
from .thread_state import this_thread

class _Computing(threading.local):
    depth = 0  # how many accumulators of this thread are computing tangents now


_computing = _Computing()

# Ops whose tangent is the input's tangent, copied: no VJP to transpose (a variable's read has a handle input).
_PASS_THROUGH = frozenset({"Identity", "ReadVariableOp"})


class Accumulation:
    """What an active accumulator is to the stack of recordings: it tracks the tensors it holds a
    tangent for, and on `record` computes the tangents of an op's outputs."""

    watch_accessed_variables = False

    def __init__(self) -> None:
        # Tensor ids (never reused) -> tangents. Unlike TF, which drops a tangent with its tensor, an
        # accumulator keeps every tangent it computed while it lives (tensors take no weak references).
        self.tangents: dict[int, EagerTensor] = {}
        self.producer: dict = {}  # what code reading every active recording's ops finds: none (no backward pass)
        self.ops: dict = {}

    def tracks(self, tensor: Any) -> bool:
        return tensor._id in self.tangents and tensor._dtype._trainable

    def watch(self, tensor: Any, tangent: EagerTensor) -> None:
        previous = self.tangents.get(tensor._id)
        self.tangents[tensor._id] = tangent if previous is None else F.add(previous, tangent)

    def watch_variable(self, variable: Any) -> None:  # accumulators never watch variables by reading them
        pass

    def record(self, op: OpRecord) -> None:
        state = this_thread.state
        position = next(i for i, r in enumerate(state.active) if r is self)
        saved, state.active = state.active, state.active[:position]  # seen by what was entered before only
        _computing.depth += 1
        try:
            output_tangents = self.tangents_of(op)
        except InvalidArgumentError as error:
            raise _as_traced_error(error, op, self.tangents) from None
        finally:
            state.active = saved
            _computing.depth -= 1
        for output, tangent in zip(op.outputs, output_tangents):
            # A tangent found already stays: a custom_gradient's outputs have their forward ops' tangents.
            if tangent is not None and output._id not in self.tangents:
                self.tangents[output._id] = tangent
        _connect_for_outer_accumulators(saved[:position], op, self.tangents, output_tangents)

    def tangents_of(self, op: OpRecord) -> list:
        """The tangents of an op's outputs from this accumulation's tangents of its inputs."""
        return _output_tangents(op, self.tangents)


def _connect_for_outer_accumulators(outer: list, op: OpRecord, tangents: dict, output_tangents: list) -> None:
    """TF computes an op's tangents in one traced function call of the op's inputs, outputs and input
    tangents; an accumulator entered before that tracks any of them gives every output of the call a
    tangent, zeros where the tangent does not depend on what it tracks (the identity of an untracked
    tangent). reftape's accumulators saw the call's ops one by one: zeros fill in where they found none."""
    computed = [t for t in output_tangents if isinstance(t, EagerTensor)]
    if not computed:
        return
    call_inputs = list(op.inputs) + list(op.outputs) + [tangents[t._id] for t in op.inputs
                                                         if isinstance(tangents.get(t._id), EagerTensor)]
    for accumulation in outer:
        if isinstance(accumulation, Accumulation) and any(map(accumulation.tracks, call_inputs)):
            for tangent in computed:
                if tangent._id not in accumulation.tangents:
                    accumulation.tangents[tangent._id] = zeros_for(tangent)


def _as_traced_error(error: InvalidArgumentError, op: OpRecord, tangents: dict) -> Exception:
    """The error TF raises where reftape's kernels refused something while computing tangents: TF computes
    them in a traced function, whose building refuses a dtype (TypeError) or tangents not shaped like their
    primals (ValueError, when shapes do not merge) before any kernel runs."""
    if getattr(error, "traced_refusal", None) is not None:
        return TypeError(error.traced_refusal)
    if any(isinstance(tangents.get(t._id), EagerTensor) and tuple(tangents[t._id].shape) != tuple(t.shape)
           for t in op.inputs):
        return ValueError(str(error))
    return error


def _output_tangents(op: OpRecord, tangents: dict) -> list:
    """The tangents of an op's outputs (None where an output has none), its inputs' tangents given (zeros
    for a trainable input without one)."""
    inputs = op.inputs
    if op.primitive.name in _PASS_THROUGH:
        tangent = tangents.get(inputs[0]._id)
        return [None if tangent is None else F.identity(tangent) if isinstance(tangent, IndexedSlices)
                else _entered(tangent)]
    weights = [tangents[t._id] if t._id in tangents else zeros_for(t) for t in inputs if t._dtype._trainable]
    outputs = [t for t in op.outputs if t._dtype._trainable]
    if not weights or not outputs:
        return [None] * len(op.outputs)
    found = dict(zip((t._id for t in outputs), _transposed_vjp(op, outputs, weights)))
    return [found.get(t._id) for t in op.outputs]


def _transposed_vjp(op: OpRecord, outputs: list, weights: list) -> list:
    """The op's VJP, run on stand-in upstream gradients under a tape, differentiated with respect to
    them with the input tangents (`weights`, one per trainable input) as the weights: the JVP, one
    tangent (or None) per trainable output.

    Each trainable input is replayed as a copy of its own (`_entered`, which tapes entered before
    see), so that a tensor read twice (x * x) has each read's gradient weighted once, as in TF's traced
    JVP function, whose every input is a placeholder of its own."""
    replayed = tuple(_entered(t) if t._dtype._trainable else t for t in op.inputs)
    weights = [_entered(F.convert_to_tensor(w) if isinstance(w, IndexedSlices) else w) for w in weights]
    sources = [t for t in replayed if t._dtype._trainable]
    replay = Recording(persistent=False, watch_accessed_variables=False)
    for t in sources:
        replay.watch(t)
    replay.record(OpRecord(op.primitive, replayed, op.outputs, op.attrs,
                           tuple(t._dtype._trainable for t in replayed), _reads(op, replayed)))
    transpose = Recording(persistent=False, watch_accessed_variables=False)
    state = this_thread.state
    state.active.append(transpose)
    try:
        stand_ins = [F.ones_like(t) for t in outputs]
        for t in stand_ins:
            transpose.watch(t)
        grads = backward(replay, outputs, sources, stand_ins, consume=True)
        grads = [zeros_for(t) if g is None else _dense(g, op) for g, t in zip(grads, sources)]
    finally:
        state.active.remove(transpose)
    return backward(transpose, grads, stand_ins, weights, consume=True)


def _entered(tensor: EagerTensor) -> EagerTensor:
    """A tensor as it enters TF's traced tangent computation: a copy, whose gradient is dense."""
    return execute("ForwardpropCall", [tensor])


def _reads(op: OpRecord, replayed: tuple) -> tuple:
    """The replayed op's reads: its replayed inputs, and the tensors it reads besides them."""
    inputs = {id(t) for t in op.inputs}
    return replayed + tuple(t for t in op.reads if id(t) not in inputs)


def _dense(gradient: Any, op: OpRecord) -> EagerTensor:
    """A gradient as a tensor to differentiate: IndexedSlices (gather's) densified by a recorded op."""
    if not isinstance(gradient, IndexedSlices):
        return gradient
    if op.primitive.name == "GatherNd" and _computing.depth == 1:  # a user's op, not one of a tangent computation
        # TF's transposing tape takes GatherNd's IndexedSlices (indices of rows of one index) as they are,
        # and fails on them; GatherV2's it differentiates, and so does an outer accumulator (which sees
        # a tangent computation as one traced call, whose gradient TF builds in a graph).
        raise AttributeError("'IndexedSlices' object has no attribute '_id'")
    return F.convert_to_tensor(gradient)


class ForwardAccumulator:
    """Computes Jacobian-vector products with forward-mode autodiff, as `tf.autodiff.ForwardAccumulator`."""

    _accumulation_type = Accumulation

    def __init__(self, primals: Any, tangents: Any) -> None:
        self._accumulation = self._accumulation_type()
        self._recording = False
        seen: set[int] = set()
        for primal in nest.flatten(primals):
            if id(primal) in seen:
                raise ValueError("Tensor {} was specified as a primal multiple times. This may indicate an error. "
                                 "If it was intended, please sum the corresponding tangents.")
            seen.add(id(primal))
        _check_same_structure(primals, tangents)
        for primal, tangent in zip(nest.flatten(primals), nest.flatten(tangents)):
            self._watch(primal, tangent)

    def _watch(self, primal: Any, tangent: Any) -> None:
        dtype = primal.dtype
        tangent = F.convert_to_tensor(tangent, dtype=dtype)
        self._accumulation.watch(primal.handle if hasattr(primal, "handle") else primal, tangent)

    def __enter__(self) -> ForwardAccumulator:
        if self._recording:
            raise ValueError("Accumulator is already recording.")
        this_thread.state.active.append(self._accumulation)
        self._recording = True
        return self

    def __exit__(self, typ: Any, value: Any, traceback: Any) -> None:
        if self._recording:
            this_thread.state.active.remove(self._accumulation)
            self._recording = False

    def jvp(self, primals: Any, unconnected_gradients: Any = UnconnectedGradients.NONE) -> Any:
        """The tangents computed for `primals` (a tensor, a variable or a structure of them): None, or
        zeros with `UnconnectedGradients.ZERO`, for one that has none. Computes nothing."""
        policy = UnconnectedGradients(unconnected_gradients)
        return nest.map_structure(lambda tensor: self._fetch(tensor, policy), primals)

    def _fetch(self, tensor: Any, policy: Any) -> Any:
        key = tensor.handle if hasattr(tensor, "handle") else tensor
        tangent = self._accumulation.tangents.get(key._id)  # a non-tensor fails here, as in TF
        if tangent is None and policy is UnconnectedGradients.ZERO:
            return F.zeros_like(tensor)
        return tangent


def _check_same_structure(first: Any, second: Any) -> None:
    """TF's nest check of primals against tangents: ValueError when the nesting differs, TypeError
    when a sequence's type does."""
    first_children, second_children = _branches(first), _branches(second)
    if (first_children is None) != (second_children is None) or (
            first_children is not None and len(first_children) != len(second_children)):
        raise ValueError("The two structures don't have the same nested structure.\n\n"
                         f"First structure: {first}\n\nSecond structure: {second}")
    if first_children is None:
        return
    if type(first) is not type(second) and not (isinstance(first, dict) and isinstance(second, dict)):
        raise TypeError("The two structures don't have the same sequence type. Input structure has type "
                        f"{type(first)}, while shallow structure has type {type(second)}.")
    if isinstance(first, dict) and sorted(first) != sorted(second):
        raise ValueError("The two dictionaries don't have the same set of keys.")
    for a, b in zip(first_children, second_children):
        _check_same_structure(a, b)


def _branches(value: Any) -> list | None:
    if isinstance(value, dict):
        return [value[k] for k in sorted(value)]
    if isinstance(value, (list, tuple)):
        return list(value)
    return None
