"""What gets recorded and the stack of recording tapes: the bottom of the tape, below the ops.

The model is TF's eager tape. A `Recording` (TF's C++ GradientTape) maps watched tensor ids and
the ids of recorded ops' outputs to the op that produced them. An op is recorded on every active
recording that already tracks one of its inputs of a differentiable dtype. Ops (`primitives.py`)
and variables record here; the backward pass (`backward.py`) and `GradientTape` (`tape.py`) sit above the ops.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any, Sequence

from . import dtypes as _dtypes
from .tensor import EagerTensor
from .thread_state import this_thread


@dataclass(eq=False, slots=True)
class OpRecord:
    """One recorded op: its primitive, the tensors it read and wrote, its attributes, and which
    inputs some active tape could differentiate (TF's complement of `skip_input_indices`). `reads`
    is every tensor the op read, in TF's input order: the inputs and the tensors reftape passes as
    attributes (`Primitive.tf_inputs`), which the backward pass walks through but never differentiates."""

    primitive: Any
    inputs: tuple
    outputs: tuple
    attrs: dict
    needs: tuple
    reads: tuple


class Recording:
    """The state of one tape between `with` blocks: watched ids, recorded ops, watched variables."""

    _op_ids = itertools.count()

    def __init__(self, persistent: bool, watch_accessed_variables: bool) -> None:
        self.persistent = persistent
        self.watch_accessed_variables = watch_accessed_variables
        self.producer: dict[int, int] = {}  # tensor id -> op id, -1 for a watched tensor
        self.ops: dict[int, OpRecord] = {}
        self.variables: dict[int, Any] = {}  # creation order -> watched Variable

    def tracks(self, tensor: Any) -> bool:
        return tensor._id in self.producer and _dtypes._is_trainable(tensor.dtype)

    def watch(self, tensor: Any) -> None:
        self.producer.setdefault(tensor._id, -1)

    def watch_variable(self, variable: Any) -> None:
        self.watch(variable.handle)
        self.variables.setdefault(variable._creation_order, variable)  # an assign's UnreadVariable shares its key

    def record(self, op: OpRecord) -> None:
        op_id = next(self._op_ids)
        self.ops[op_id] = op
        for output in op.outputs:
            self.producer[output._id] = op_id

    def watched_variables(self) -> tuple:
        return tuple(self.variables[k] for k in sorted(self.variables))


class VariableAccessLog:
    """Collects the variables read or assigned inside a `with` block (TF's VariableWatcher)."""

    def __init__(self) -> None:
        self.variables: list = []

    def __enter__(self) -> VariableAccessLog:
        this_thread.state.access_logs.append(self)
        return self

    def __exit__(self, *exc: Any) -> None:
        this_thread.state.access_logs.remove(self)


def active_recordings() -> list[Recording]:
    """The recordings of the tapes currently recording, innermost last."""
    return this_thread.state.active


def activate(recording: Recording) -> None:
    this_thread.state.active.append(recording)


def deactivate(recording: Recording) -> None:
    this_thread.state.active.remove(recording)


def record_operation(primitive: Any, inputs: Sequence[Any], outputs: Sequence[EagerTensor], attrs: dict,
                     active: list[Recording] | None = None) -> None:
    """Records an executed op on every active tape that tracks one of the tensors it read (TF's inputs, some of
    which reftape passes as attributes: a tape records ResizeBilinearGrad for its original image) (`active`: the
    recordings of this thread's active tapes, when the caller has read them already)."""
    if active is None:
        active = this_thread.state.active
    if not active:
        return
    if len(active) == 1 and active[0].__class__ is Recording:  # the common case, cheaper: one tape's view is all
        producer = active[0].producer
        needs = ()
        for t in inputs:  # a loop: a comprehension is a function call of its own in Python 3.11
            needs += (t._id in producer and t._dtype._trainable,)
        recorded = True in needs
        if not recorded and primitive.tf_inputs is not None:   # a tensor read as an attribute may be tracked
            recorded = any(t._id in producer and t._dtype._trainable for t in primitive.tf_inputs(tuple(inputs), attrs))
        if recorded:
            op_id = next(Recording._op_ids)
            inputs = tuple(inputs)
            active[0].ops[op_id] = OpRecord(primitive, inputs, outputs, attrs, needs, _reads(primitive, inputs, attrs))
            for output in outputs:
                producer[output._id] = op_id
        return
    inputs = tuple(inputs)
    reads = _reads(primitive, inputs, attrs)
    recordings = [r for r in active if any(map(r.tracks, reads))]
    if not recordings:
        return
    needs = tuple(any(r.tracks(t) for r in active) for t in inputs)  # an accumulator's `record`: its tangents
    op = OpRecord(primitive, inputs, tuple(outputs), attrs, needs, reads)
    for recording in recordings:
        recording.record(op)


def _reads(primitive: Any, inputs: tuple, attrs: dict) -> tuple:
    """Every tensor an op read, in TF's input order (`Primitive.tf_inputs`)."""
    return inputs if primitive.tf_inputs is None else primitive.tf_inputs(inputs, attrs)


def variable_accessed(variable: Any) -> None:
    """A variable was read or assigned: tapes that watch accessed variables start watching it."""
    state = this_thread.state
    for log in state.access_logs:
        if all(v is not variable for v in log.variables):
            log.variables.append(variable)
    if variable.trainable:
        for recording in state.active:
            if recording.watch_accessed_variables:
                recording.watch_variable(variable)


class suspended:
    """Runs a block with no tape recording (TF's `tape.stop_recording()` for all tapes)."""

    __slots__ = ("_saved",)

    def __enter__(self) -> None:
        state = this_thread.state
        self._saved, state.active = state.active, []

    def __exit__(self, *exc: Any) -> None:
        this_thread.state.active = self._saved
