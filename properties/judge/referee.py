"""The referee: when the candidate and TensorFlow disagree on a floating gradient, jacobian or
batch_jacobian, an independent numerical derivative says which side is wrong.

What is differentiated. TF's gradient is the derivative of the targets along what the call's tape
recorded; whatever it did not record (stop_recording spans, ops before a reset or outside the
tape, inputs it does not track) is a constant to it. The referee models what the tape tracks and
records (`_tape_state`: TF's rules, checked against live TF in tests/harness/test_referee.py) and
re-evaluates the targets in float64 (complex128) on reftape with the source, a leaf or an op's
output, perturbed one element at a time:
- first order: a tape-free program computes every op the targets need twice, frozen at the point
  and live (the recorded ops that pass a gradient, reading the source where the tape tracks it);
- higher order (a target computed from another gradient call, such as an outer tape
  differentiating an inner gradient): the needed statements run with their tapes and inner
  gradient calls and the source leaf perturbed. The inner gradient code is re-run on reftape in
  float64 and only the outer derivative is numerical: the referee judges the outer step (an error
  in the inner gradient shows, and is judged, as a discrepancy of the inner call itself). Judged
  only when the tape tracks the source and recorded everything computed from it.

TensorFlow's convention (established by running it, see tests/harness/test_referee.py): with upstream
gradient w (`output_gradients`, default ones) the gradient of targets T with respect to a source z
is dG/dRe(z) + i dG/dIm(z), where G = Re(sum(conj(w) * T)). For a holomorphic f this is
w * conj(f'(z)); for a real source only the first term exists. Row i of a jacobian is the gradient
of the target's element i with upstream 1; row i of a batch_jacobian's member b is the derivative, with
respect to the source's member b, of the sum over the batch of the target's element i (the jacobian's
per-batch diagonal block where member b of the target depends on member b of the source alone, as TF
assumes).

How. Complex step, Im G(x + ih) / h, when every leaf is real, every op kept is analytic, no
gradient call is re-run and the complex extension equals the function at the point (exact to
rounding); otherwise central differences with h = cbrt(eps) * max(1, |x|), one real perturbation
per real element and two (real and imaginary part) per complex one. Each target element is
differenced before they are combined. An element of the estimate is ill-conditioned when its
one-sided slopes disagree (a kink), when a target is so large that float64's rounding of it exceeds its
change within the step (the difference is rounding: `reduce_sum` of 3e38 and ones), or the function is not
finite within reach of the step.

Verdicts, from the well-conditioned elements, a side being right within the comparison's
tolerance of the estimate: `candidate-wrong`, `tensorflow-wrong`, `both-wrong`; `ill-conditioned`
when both sides are right there and differ only where the estimate is ill-conditioned;
`undecided` when both are right, or the referee cannot judge (the source is produced by a call,
a higher-order path is not wholly recorded, the program has custom gradients or variable updates,
or fails in float64). The estimate is recorded on the discrepancy (`Discrepancy.estimate`) as flat
decimal floats in the result's element order, complex as [re, im], non-finite parts as None.
"""

from __future__ import annotations

import functools
import re
from dataclasses import replace
from typing import Any

import numpy as np

from reftape_oracle.catalog import CATALOG, NEVER_RECORDED, has_trait
from reftape_oracle.outcome import Outcome, decode_array
from reftape_oracle.program import (Accumulator, Call, Jvp, Leaf, ListLiteral, Op, Program, Reset, StopRecording,
                                    Tape, Watch, WatchedVariables, flat_references, structure_children, structure_references,
                                    unrolled, walk)
from reftape_properties.judge.compare import Discrepancy
from reftape_properties.judge.tolerance import Tolerance, is_floating

REFERENCE_BACKEND = "reftape"
RESOLUTION = 1e-4        # relative distance from the estimate within which a side counts as right
KINK_RESOLUTION = 1e-3   # one-sided slopes further apart than this (relative) mark a kink
COMPLEX_STEP = 1e-20
EPS = float(np.finfo(np.float64).eps)
CENTRAL_STEP = float(np.cbrt(EPS))
CONJUGATING_ATTRIBUTES = ("adjoint", "adjoint_a", "adjoint_b", "conjugate")   # True: the op conjugates an input
TENSOR_KINDS = ("tensor", "variable", "ndarray")   # descriptions that hold tensor data
# custom gradients and variable updates are not modelled; an accumulator changes nothing a tape records, nor
# does listing the watched variables
MODELLED = (Leaf, Op, ListLiteral, Watch, Tape, StopRecording, Reset, Call, Accumulator, Jvp, WatchedVariables)


class Unjudgeable(Exception):
    """The referee cannot evaluate the targets at the point itself."""


def base_name(name: str) -> str:
    """The variable an input refers to (`y3[0]` is element 0 of `y3`)."""
    return name.split("[", 1)[0]


def _call_inputs(call: Call) -> list[str]:
    return structure_references(call.target) + structure_references(call.sources) + \
        structure_references(call.output_gradients)


def _reads(s: Any) -> list[str]:
    """The names an op, a list or a call reads."""
    return s.reads if isinstance(s, (Op, ListLiteral)) else _call_inputs(s)


def _needed(program: Program, roots: list[str]) -> set[str]:
    """The ops and calls the roots depend on, through gradient calls too."""
    producers = {s.name: s for s in walk(program.statements) if isinstance(s, (Op, ListLiteral, Call))}
    needed: set[str] = set()
    work = [base_name(n) for n in roots]
    while work:
        name = work.pop()
        if name in needed or name not in producers:
            continue
        needed.add(name)
        s = producers[name]
        work.extend(base_name(n) for n in _reads(s))
    return needed


def depending_on(program: Program, source: str, avoiding: set[str] = frozenset()) -> set[str]:
    """The source and every op and call computed from it (along a path that passes none of `avoiding`)."""
    found = {source}
    for s in walk(program.statements):
        inputs = _reads(s) if isinstance(s, (Op, ListLiteral, Call)) and s.name not in avoiding else []
        if any(n in found or base_name(n) in found for n in inputs):
            found.add(s.name)
    return found


def _tape_state(program: Program, call: Call) -> tuple[set[str], set[str]]:
    """(watched, recorded): the tensors the call's tape tracks and the ops and calls it has recorded
    when the call is made, by TF's rules (checked against live TF in tests/harness/test_referee.py). Inside
    the tape's block and outside its own stop_recording spans, `watch` tracks floating tensors and
    an op with a tracked input is recorded (its floating output tracked), except stop_gradient;
    with watch_accessed_variables, a trainable variable an op reads there is tracked; `reset`
    forgets everything. Elsewhere nothing is recorded or watched. Inside the tape's own stop_recording span
    `watch` tracks only while another tape records (TF ignores a watch while no tape records)."""
    leaves = program.leaves()
    lists = {s.name: s.items for s in walk(program.statements) if isinstance(s, ListLiteral)}
    tape = next(s for s in walk(program.statements) if isinstance(s, Tape) and s.name == call.tape)
    watched: set[str] = set()
    recorded: set[str] = set()

    def floating_leaf(name: str) -> bool:
        return name in leaves and is_floating(np.asarray(leaves[name].value).dtype)

    def read(names: list[str]) -> list[str]:
        """The names, a list's items in place of the list (TF packs them when the op runs)."""
        return [item for n in names for item in (read(lists[n]) if n in lists else [n])]

    def tracked(name: str) -> bool:
        return name in watched or base_name(name) in watched

    def visit(statements: list, recording: bool, entered: bool = False, others: int = 0) -> bool:
        """`entered`: inside the call's tape's block, where `watch` works while any tape records (`others`:
        how many tapes besides the call's record there)."""
        for s in statements:
            if s is call:
                return True
            if isinstance(s, Tape) and visit(s.body, recording or s.name == call.tape, entered or s.name == call.tape,
                                             others + (s.name != call.tape)):
                return True
            if isinstance(s, StopRecording) and visit(s.body, recording and s.tape != call.tape, entered,
                                                      others - (s.tape != call.tape)):
                return True
            if isinstance(s, Accumulator) and visit(s.body, recording, entered):
                return True
            if isinstance(s, Reset) and s.tape == call.tape:
                watched.clear()
                recorded.clear()
            elif isinstance(s, Watch) and s.tape == call.tape and entered and (recording or others > 0):
                watched.update(n for n in s.names if floating_leaf(n) or n not in leaves)
            elif not recording:
                continue
            elif isinstance(s, Op):
                inputs = read(s.inputs)
                if tape.watch_accessed_variables:
                    watched.update(n for n in inputs if floating_leaf(n) and leaves[n].kind == "variable"
                                   and leaves[n].trainable)
                if not has_trait(s.path, NEVER_RECORDED) and any(tracked(n) for n in inputs):
                    recorded.add(s.name)
                    if CATALOG[s.path].output not in ("bool", "int32", "int64"):
                        watched.add(s.name)
            elif isinstance(s, Call) and any(tracked(n) for n in _call_inputs(s)):
                recorded.add(s.name)
                watched.add(s.name)
        return False

    visit(program.statements, False)
    return watched, recorded


def _wide(dtype: str) -> str:
    """The 64-bit dtype of a floating dtype name (others unchanged)."""
    if dtype.startswith("complex"):
        return "complex128"
    return "float64" if dtype.startswith(("float", "bfloat")) else dtype


def _widened_leaf(leaf: Leaf, value: np.ndarray, complex_step: bool) -> Leaf:
    """A floating leaf in 64 bits (Python and NumPy ones as constants: converted alone, a Python float
    is float32)."""
    if not is_floating(np.asarray(leaf.value).dtype):
        return leaf
    dtype = "complex128" if complex_step else _wide(leaf.dtype)
    kind = "variable" if leaf.kind == "variable" else "constant"
    return replace(leaf, kind=kind, value=np.asarray(value).astype(dtype), dtype=dtype)


def _widened_op(op: Op, name: str, inputs: list[str]) -> Op:
    """The op under a new name and inputs, its dtype attribute (cast) widened to 64 bits."""
    return replace(op, name=name, inputs=inputs, attrs={k: _wide(v) if k == "dtype" else v for k, v in op.attrs.items()})


def _pruned(statements: list, keep: set[str], leaf_value) -> list:
    """The statements computing `keep`, with the tapes, watches and resets that record them, every
    leaf from `leaf_value` and every op widened to 64 bits."""
    kept = []
    for s in statements:
        if isinstance(s, Accumulator):   # tangents change no value
            kept += _pruned(s.body, keep, leaf_value)
        elif isinstance(s, (Tape, StopRecording)):
            kept.append(replace(s, body=_pruned(s.body, keep, leaf_value)))
        elif isinstance(s, Leaf):
            kept.append(leaf_value(s))
        elif isinstance(s, Op) and s.name in keep:
            kept.append(_widened_op(s, s.name, s.inputs))
        elif isinstance(s, ListLiteral) and s.name in keep:
            kept.append(s)
        elif isinstance(s, Call) and s.name in keep:
            kept.append(s)
        elif isinstance(s, Watch) and any(base_name(n) in keep for n in s.names):
            kept.append(replace(s, names=[n for n in s.names if base_name(n) in keep]))
        elif isinstance(s, Reset):
            kept.append(s)
    return kept


class Targets:
    """The call's targets as one flat complex vector, a function of the source's value x.

    First order: a tape-free program computes every needed op twice, frozen (every input at the
    point itself) and live (only the recorded ops that pass a gradient, reading the source at x
    where the tape tracks it), so that the rest stays constant, as it is for TF's gradient. Higher
    order: the needed statements run with their tapes and inner gradient calls, the source leaf at
    x; judged only when the call's tape tracks the source and recorded everything computed from it.
    """

    def __init__(self, program: Program, call: Call, source: str) -> None:
        program = Program(*unrolled(program.statements, program.outputs))   # loops and conds as eager TF runs them
        if not all(isinstance(s, MODELLED) for s in walk(program.statements)):
            raise Unjudgeable("the referee does not model custom gradients and variable updates")
        # paired in TF's order, whatever the two structures
        self._names, self._weights = flat_references(call.target), flat_references(call.output_gradients)
        leaves = program.leaves()
        needed = _needed(program, self._names + self._weights + [source])
        watched, recorded = _tape_state(program, call)
        producers = {s.name: s for s in walk(program.statements) if isinstance(s, (Op, ListLiteral, Call))}
        statements = [s for s in producers.values() if s.name in needed]
        if source not in leaves and not isinstance(producers.get(base_name(source)), Op):
            raise Unjudgeable(f"the source {source} is neither a leaf nor an op's output")
        # Recorded ops without a gradient (round, floor, ...) pass nothing back: constant, like the unrecorded.
        passing = {n for n in recorded
                   if not (isinstance(producers.get(n), Op) and CATALOG[producers[n].path].gradient == "none")}
        if any(isinstance(s, Call) for s in statements):
            unrecorded = depending_on(program, source) - recorded - {source}
            if source not in leaves or source not in watched or unrecorded & needed:
                raise Unjudgeable("the tape does not record the whole path from the source to a higher-order target")
            self._build = self._taped(program, needed | set(leaves), source)
        else:
            tracked = source in watched or base_name(source) in watched   # an element of a tracked op's list
            self._build = self._flat(program, statements, passing, source, tracked, call.method)
        values = self._values(None, complex_step=False)
        if values is None:
            raise Unjudgeable("the targets cannot be evaluated in 64 bits")
        count = len(self._names)
        self.shapes = [v.shape for v in values[:count]]
        self.t0 = _flatten(values[:count])
        self.weights = _flatten(values[count:-1]) if self._weights else np.ones(self.t0.size)
        self.x0 = values[-1]
        self.complex_step = (all(not leaf.dtype.startswith("complex") for leaf in leaves.values())
                             and all(v.dtype.kind != "c" for v in values[:count])
                             and all(isinstance(s, ListLiteral) or isinstance(s, Op) and _analytic(s)
                                 for s in statements))
        if self.complex_step:  # only where the complex extension is the real function (no branch cut at x0)
            extension = self(self.x0.astype(np.complex128), complex_step=True)
            self.complex_step = extension is not None and bool(
                np.all(extension.imag == 0) and np.allclose(extension.real, self.t0.real, rtol=1e-12, atol=0))

    @functools.cached_property
    def related(self) -> np.ndarray:
        """The target elements that move when every element of the source is stepped at once (one evaluation): those
        that depend on the source, as far as a step shows (an unrelated large target is no rounding of theirs)."""
        with np.errstate(all="ignore"):
            moved = self(self.x0 + CENTRAL_STEP * np.maximum(1.0, np.abs(self.x0)))
        if moved is None or moved.shape != self.t0.shape:
            return np.ones(self.t0.shape, bool)
        return _difference(moved, self.t0) != 0

    def _flat(self, program: Program, ops: list, passing: set[str], source: str, source_tracked: bool,
              method: str):
        leaves = program.leaves()
        lists = {op.name for op in ops if isinstance(op, ListLiteral)}

        def frozen(name: str) -> str:
            return name if base_name(name) in leaves else "_frozen_" + name

        def live(name: str, perturbed: bool) -> str:
            if name == source:
                return "_source" if perturbed and source_tracked else frozen(name)
            return name if base_name(name) in passing or name in lists else frozen(name)  # a live list: live items

        def build(x: np.ndarray | None, complex_step: bool) -> Program:
            perturbed = x is not None
            statements = [_widened_leaf(leaf, leaf.value, complex_step) for leaf in leaves.values()]
            if perturbed:
                statements.append(Leaf("_source", "constant", x, x.dtype.name))
            for op in ops:
                if isinstance(op, ListLiteral):
                    statements += [ListLiteral("_frozen_" + op.name, [frozen(n) for n in op.items]),
                                   ListLiteral(op.name, [live(n, perturbed) for n in op.items])]
                    continue
                statements.append(_widened_op(op, "_frozen_" + op.name, [frozen(n) for n in op.inputs]))
                if op.name in passing:
                    statements.append(_widened_op(op, op.name, [live(n, perturbed) for n in op.inputs]))
            # A gradient of the source itself is the identity, tracked or not; a jacobian only when tracked (as in TF).
            identity = "_source" if perturbed and (source_tracked or method == "gradient") else frozen(source)
            targets = [identity if t == source else live(t, perturbed) for t in self._names]
            return Program(statements, targets + [frozen(w) for w in self._weights] + [frozen(source)])

        return build

    def _taped(self, program: Program, keep: set[str], source: str):
        def build(x: np.ndarray | None, complex_step: bool) -> Program:
            statements = _pruned(program.statements, keep, lambda leaf: _widened_leaf(
                leaf, x if x is not None and leaf.name == source else leaf.value, complex_step))
            return Program(statements, self._names + self._weights + [source])

        return build

    def _values(self, x: np.ndarray | None, complex_step: bool) -> list[np.ndarray] | None:
        from reftape_oracle.interpreter import run

        program = self._build(x, complex_step)
        outcome = run(program, REFERENCE_BACKEND, time_limit=30)
        described = [outcome.values.get(n) for n in program.outputs]
        if outcome.error is not None or any(d is None or d["kind"] not in TENSOR_KINDS for d in described):
            return None
        return [decode_array(d) for d in described]

    def __call__(self, x: np.ndarray, complex_step: bool = False) -> np.ndarray | None:
        values = self._values(x, complex_step)
        return None if values is None else _flatten(values[:len(self._names)])


def _flatten(values: list[np.ndarray]) -> np.ndarray:
    return np.concatenate([v.astype(np.complex128).reshape(-1) for v in values] + [np.zeros(0, np.complex128)])


def _analytic(op: Op) -> bool:
    """Holomorphic as called: an attribute that conjugates an input (an adjoint) makes any op not."""
    spec = CATALOG[op.path]
    return (spec.analytic and any(d.startswith("complex") for d in spec.dtypes)
            and not any(op.attrs.get(name) is True for name in CONJUGATING_ATTRIBUTES))


def _combined(readout: np.ndarray, per_target: np.ndarray) -> np.ndarray:
    """Re(conj(readout) @ per_target), NaN in the rows that weigh a non-finite element."""
    finite = np.isfinite(per_target)
    combined = (readout.conj() @ np.where(finite, per_target, 0)).real
    return np.where((readout != 0) @ ~finite, np.nan, combined)


def _difference(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a - b element by element, 0 where nothing changed (an unchanged infinity or NaN too: a
    constant to the tape, or NaN on both sides of a comparison, which then leaves it out)."""
    return np.where((a == b) | (np.isnan(a) & np.isnan(b)), 0, a - b)


def _slopes(targets: Targets, readout: np.ndarray, index: tuple, direction: complex,
            step_scale: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """dG/dt along x0 + t * direction at element `index`, G = Re(conj(readout) @ T): (slopes, ill)."""
    along = np.zeros(targets.x0.shape, np.result_type(targets.x0, direction))
    along[index] = direction
    return slopes_along(targets, readout, along, step_scale * max(1.0, float(abs(targets.x0[index]))))


def slopes_along(targets: Targets, readout: np.ndarray, along: np.ndarray, scale: float) -> tuple[np.ndarray, np.ndarray]:
    """dG/dt along x0 + t * along, G = Re(conj(readout) @ T), with a step for values of size `scale`:
    (slopes, ill). Each target element is differenced before the rows are combined, so that a large target
    does not swamp the change of a small one. Targets that fail, or change size within the step (a mask, a
    `unique` of the source), have no derivative there: every row is ill."""
    x0, rows = targets.x0, readout.shape[0]
    failed = np.full(rows, np.nan), np.ones(rows, bool)
    with np.errstate(all="ignore"):
        if targets.complex_step:
            h = COMPLEX_STEP * scale
            t = targets(x0 + 1j * h * along, complex_step=True)
            if t is None or t.shape != targets.t0.shape:
                return failed
            slopes = _combined(readout, t.imag / h)
            return slopes, ~np.isfinite(slopes)
        h = CENTRAL_STEP * scale
        tp, tm = targets(x0 + h * along), targets(x0 - h * along)
        if tp is None or tm is None or tp.shape != targets.t0.shape or tm.shape != targets.t0.shape:
            return failed
        right = _combined(readout, _difference(tp, targets.t0) / h)
        left = _combined(readout, _difference(targets.t0, tm) / h)
        slopes = (right + left) / 2
        kink = np.abs(left - right) > KINK_RESOLUTION * (np.maximum(1.0, np.abs(slopes)) + np.abs(right))
        # a target that depends on the source but did not move, so large that float64 cannot hold its change within
        # the step: the difference is rounding (an unrelated large target is left out: it never moves)
        still = targets.related & (tp == targets.t0) & (tm == targets.t0)
        rounding = np.where(still, EPS * np.abs(targets.t0) / h, 0)
        absorbed = _combined(np.abs(readout), rounding) > KINK_RESOLUTION * np.maximum(1.0, np.abs(slopes))
        return slopes, kink | absorbed | ~np.isfinite(slopes)


def numerical_derivative(targets: Targets, readout: np.ndarray, step_scale: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """dG/dRe(x) + i dG/dIm(x) for each row of G = Re(conj(readout) @ T(x)), as (rows, elements of
    the leaf), and where each element is ill-conditioned; steps `step_scale` times the usual."""
    x0 = targets.x0
    directions = (1.0, 1j) if x0.dtype.kind == "c" else (1.0,)
    estimate = np.zeros((readout.shape[0], x0.size), x0.dtype)
    ill = np.zeros(estimate.shape, bool)
    for column, index in enumerate(np.ndindex(x0.shape)):
        for direction in directions:
            slopes, bad = _slopes(targets, readout, index, direction, step_scale)
            estimate[:, column] += direction * slopes
            ill[:, column] |= bad
    return estimate, ill


def readout(targets: Targets, method: str) -> np.ndarray:
    """The rows a call's result holds, as weights of the flat targets: a gradient's upstream; one row per
    target element for a jacobian; for TF's batch_jacobian, row i of every batch member is the gradient of
    the batch's sum of element i (the per-member jacobians where, as TF assumes, member b of the target
    depends on member b of the source alone)."""
    if method == "gradient":
        return targets.weights[None, :]
    if method == "jacobian":
        return np.eye(targets.t0.size)
    target_shape = targets.shapes[0]
    return np.tile(np.eye(int(np.prod(target_shape[1:]))), (1, target_shape[0]))


def shaped(rows_by_source: np.ndarray, targets: Targets, method: str) -> np.ndarray:
    """A (rows of `readout`, source elements) array shaped as TF shapes the call's result."""
    source_shape = targets.x0.shape
    if method == "gradient":
        return rows_by_source.reshape(source_shape)
    target_shape = targets.shapes[0]
    if method == "jacobian":
        return rows_by_source.reshape(target_shape + source_shape)
    by_member = rows_by_source.reshape((rows_by_source.shape[0], target_shape[0]) + source_shape[1:])
    return np.moveaxis(by_member, 1, 0).reshape(target_shape + source_shape[1:])


def as_rows(result: np.ndarray, targets: Targets, method: str) -> np.ndarray:
    """The inverse of `shaped`: a call's result as (rows of `readout`, source elements)."""
    if method != "batch_jacobian":
        return result.reshape(-1, targets.x0.size)
    batch, rows = targets.shapes[0][0], int(np.prod(targets.shapes[0][1:]))
    return np.moveaxis(result.reshape((batch, rows, -1)), 1, 0).reshape(rows, -1)


def numerical_result(targets: Targets, method: str, step_scale: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """The numerical result of the call for the source leaf, shaped as TF shapes it, and its ill mask
    (with steps `step_scale` times the usual: a step sweep)."""
    estimate, ill = numerical_derivative(targets, readout(targets, method), step_scale)
    return shaped(estimate, targets, method), shaped(ill, targets, method)


def _locate(program: Program, where: str, expected: Outcome) -> tuple[Call, str, list[int], bool] | None:
    """The call and source a discrepancy's `where` points at, the positions leading to the result
    inside the call's described result (dict positions read through the keys TF described), and
    whether it is the values of IndexedSlices."""
    match = re.fullmatch(r"calls/([^\[\].]+)((?:\[\d+\])*)(\.values)?", where)
    if not match:
        return None
    call = next((s for s in walk(program.statements) if isinstance(s, Call) and s.name == match.group(1)), None)
    if call is None:
        return None
    positions = [int(i) for i in re.findall(r"\d+", match.group(2))]
    structure, described = call.sources, expected.calls.get(call.name)
    for position in positions:
        if isinstance(structure, str) or described is None or \
                described.get("kind") not in ("list", "tuple", "namedtuple", "dict"):
            return None
        (kind, items), = structure.items()
        structure = dict(items)[described["keys"][position]] if kind == "dict" else \
            structure_children(structure)[position]
        described = described["items"][position]
    return (call, structure, positions, bool(match.group(3))) if isinstance(structure, str) else None


def _dense(outcome: Outcome, call: Call, positions: list[int]) -> np.ndarray:
    """The IndexedSlices a call returned at `positions`, as the dense tensor they stand for."""
    described = outcome.calls[call.name]
    for position in positions:
        described = described["items"][position]
    values = decoded(described["values"]["data"], described["values"]["dtype"], described["values"]["shape"])
    dense = np.zeros([int(d) for d in described["dense_shape"]["data"]], values.dtype)
    np.add.at(dense, np.asarray(described["indices"]["data"], np.int64), values)
    return dense


def numpy_dtype(name: str) -> np.dtype:
    return decode_array({"dtype": name, "shape": [0], "data": []}).dtype


def decoded(data: list, dtype: str, shape: tuple) -> np.ndarray:
    array = decode_array({"dtype": dtype, "shape": list(shape), "data": data})
    return array.astype(np.complex128 if array.dtype.kind == "c" else np.float64)


def _close(value: np.ndarray, reference: np.ndarray, tolerance: Tolerance) -> bool:
    """Within the comparison's tolerance of the estimate, and never finer than the referee's resolution."""
    scale = max(1.0, float(np.max(np.abs(reference))) if reference.size else 1.0)
    allowed = (max(RESOLUTION, tolerance.relative) * np.abs(reference)
               + max(RESOLUTION, tolerance.absolute_scale) * scale)
    return bool(np.all(np.abs(value - reference) <= allowed))


def _verdict(numerical: np.ndarray, ill: np.ndarray, tf_value: np.ndarray, candidate: np.ndarray,
             tolerance: Tolerance) -> str:
    compared = ~ill & (np.isfinite(tf_value) | np.isfinite(candidate))
    tf_ok = _close(tf_value[compared], numerical[compared], tolerance)
    candidate_ok = _close(candidate[compared], numerical[compared], tolerance)
    if tf_ok and candidate_ok:
        differ = (tf_value != candidate) & ~(np.isnan(tf_value) & np.isnan(candidate))
        return "ill-conditioned" if np.any(ill & differ) else "undecided"
    if candidate_ok:
        return "tensorflow-wrong"
    return "candidate-wrong" if tf_ok else "both-wrong"


def judge(program: Program, discrepancy: Discrepancy, expected: Outcome,
          actual: Outcome) -> tuple[str, np.ndarray | None]:
    """The verdict on one value discrepancy in a gradient, jacobian or batch_jacobian call, and the
    numerical estimate it rests on (None when the referee could not make one). IndexedSlices are
    judged as the dense tensors they stand for, and so is their estimate."""
    located = _locate(program, discrepancy.where, expected)
    if located is None:
        return "undecided", None
    call, source, positions, sliced = located
    if call.method != "gradient" and not isinstance(call.target, str):
        return "undecided", None
    try:
        targets = Targets(program, call, source)
    except Unjudgeable:
        return "undecided", None
    numerical, ill = numerical_result(targets, call.method)
    try:
        if sliced:
            tf_value, candidate = _dense(expected, call, positions), _dense(actual, call, positions)
        else:
            tf_value, candidate = (decoded(data, discrepancy.dtype, numerical.shape)
                                   for data in (discrepancy.expected["data"], discrepancy.actual["data"]))
    except ValueError:  # the described result does not have the source's shape
        return "undecided", numerical
    if tf_value.shape != numerical.shape or candidate.shape != numerical.shape:
        return "undecided", numerical
    tolerance = (Tolerance(**discrepancy.tolerance) if discrepancy.tolerance
                 else Tolerance.for_dtype(numpy_dtype(discrepancy.dtype), gradient=True))
    return _verdict(numerical, ill, tf_value, candidate, tolerance), numerical


def flat_decimals(estimate: np.ndarray) -> list:
    def number(x: float) -> float | None:
        return float(x) if np.isfinite(x) else None

    flat = estimate.reshape(-1)
    if estimate.dtype.kind == "c":
        return [[number(z.real), number(z.imag)] for z in flat]
    return [number(x) for x in flat]


def referee(program: Program, discrepancies: list[Discrepancy], expected: Outcome, actual: Outcome) -> list[Discrepancy]:
    """Fills in the verdict (and numerical estimate) of every value discrepancy in a floating call result."""
    for d in discrepancies:
        if d.kind == "value" and d.where.startswith("calls/") and (d.dtype or "").startswith(("float", "bfloat", "complex")):
            try:
                d.verdict, estimate = judge(program, d, expected, actual)
            except Exception:  # noqa: BLE001 - the referee must never lose the discrepancy it judges
                d.verdict, estimate = "undecided", None
            d.estimate = None if estimate is None else flat_decimals(estimate)
    return discrepancies
