"""The referee: when the candidate and TensorFlow disagree on a floating gradient, jacobian or
batch_jacobian, an independent numerical derivative says which side is wrong.

What is differentiated. The call's targets are re-evaluated in float64 (complex128 for complex
leaves) on reftape, with the source leaf perturbed one element at a time and every other leaf
fixed. Only what the targets need is kept: the ops they depend on and, for a higher-order target
(one computed from another gradient call, such as an outer tape differentiating an inner
gradient), those inner gradient calls with the tapes that record them. The inner gradient code is
then re-run on reftape in float64 and only the outer derivative is numerical: the referee judges
the outer step; an error in the inner gradient shows, and is judged, as a discrepancy of the inner
call itself.

TensorFlow's convention (established by running it, see tests/test_referee.py): with upstream
gradient w (`output_gradients`, default ones) the gradient of targets T with respect to a source z
is dG/dRe(z) + i dG/dIm(z), where G = Re(sum(conj(w) * T)). For a holomorphic f this is
w * conj(f'(z)); for a real source only the first term exists. Row i of a jacobian is the gradient
of the target's element i with upstream 1; a batch_jacobian is the jacobian's per-batch diagonal
block.

How. Complex step, Im G(x + ih) / h, when every leaf is real, every op kept is analytic and no
gradient call is re-run (exact to rounding); otherwise central differences with
h = cbrt(eps) * max(1, |x|), one real perturbation per real element and two (real and imaginary
part) per complex one. An element of the estimate is ill-conditioned when its one-sided slopes
disagree (a kink) or the function is not finite within reach of the step.

Verdicts, from the well-conditioned elements: `candidate-wrong`, `tensorflow-wrong`, `both-wrong`;
`ill-conditioned` when both sides match the estimate there and differ only where it is
ill-conditioned; `undecided` when the referee cannot evaluate (the source is not a leaf, the
program fails in float64) or both sides are within its resolution of the estimate. The estimate
is recorded on the discrepancy (`Discrepancy.estimate`) as flat decimal floats in the result's
element order, complex as [re, im], non-finite parts as None.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

import numpy as np

from reftape_oracle.catalog import CATALOG
from reftape_oracle.outcome import Outcome, decode_array
from reftape_oracle.program import Call, Leaf, Op, Program, Reset, StopRecording, Tape, Watch, walk
from .compare import Discrepancy
from .tolerance import epsilon, is_floating

REFERENCE_BACKEND = "reftape"
RESOLUTION = 1e-4        # relative distance from the estimate within which a side counts as right
KINK_RESOLUTION = 1e-3   # one-sided slopes further apart than this (relative) mark a kink
COMPLEX_STEP = 1e-20
CENTRAL_STEP = float(np.cbrt(np.finfo(np.float64).eps))


class Unjudgeable(Exception):
    """The referee cannot evaluate the targets at the point itself."""


def _flat_names(structure: Any) -> list:
    """Leaf names in the order results are described (dicts in their own order)."""
    if structure is None:
        return []
    if isinstance(structure, str):
        return [structure]
    (kind, items), = structure.items()
    if kind == "dict":
        return [n for _, s in items for n in _flat_names(s)]
    return [n for s in items for n in _flat_names(s)]


def _base(name: str) -> str:
    """The variable an input refers to (`y3[0]` is element 0 of `y3`)."""
    return name.split("[", 1)[0]


def _needed(program: Program, roots: list[str]) -> set[str]:
    """The ops and calls the roots depend on, through gradient calls too."""
    producers = {s.name: s for s in walk(program.statements) if isinstance(s, (Op, Call))}
    needed: set[str] = set()
    work = [_base(n) for n in roots]
    while work:
        name = work.pop()
        if name in needed or name not in producers:
            continue
        needed.add(name)
        s = producers[name]
        inputs = s.inputs if isinstance(s, Op) else (
            _flat_names(s.target) + _flat_names(s.sources) + _flat_names(s.output_gradients))
        work.extend(_base(n) for n in inputs)
    return needed


def _wide(dtype: str) -> str:
    """The 64-bit dtype of a floating dtype name (others unchanged)."""
    if dtype.startswith("complex"):
        return "complex128"
    return "float64" if dtype.startswith(("float", "bfloat")) else dtype


def _pruned(statements: list, keep: set[str], leaf_value) -> list:
    """The statements computing `keep` (tapes, watches, resets kept), every leaf from `leaf_value`
    and every dtype attribute (cast) widened, so that no step rounds below 64 bits."""
    kept = []
    for s in statements:
        if isinstance(s, (Tape, StopRecording)):
            kept.append(replace(s, body=_pruned(s.body, keep, leaf_value)))
        elif isinstance(s, Leaf):
            kept.append(leaf_value(s))
        elif isinstance(s, Op) and s.name in keep:
            kept.append(replace(s, attrs={k: _wide(v) if k == "dtype" else v for k, v in s.attrs.items()}))
        elif isinstance(s, Call) and s.name in keep:
            kept.append(s)
        elif isinstance(s, Watch) and any(_base(n) in keep for n in s.names):
            kept.append(replace(s, names=[n for n in s.names if _base(n) in keep]))
        elif isinstance(s, Reset):
            kept.append(s)
    return kept


def _widened(leaf: Leaf, value: np.ndarray, complex_step: bool) -> Leaf:
    if not is_floating(np.asarray(leaf.value).dtype):
        return leaf
    dtype = "complex128" if complex_step else _wide(leaf.dtype)
    return replace(leaf, value=np.asarray(value).astype(dtype), dtype=dtype)


class _Targets:
    """The call's targets as one flat complex vector, a function of the source leaf's value."""

    def __init__(self, program: Program, call: Call, leaf: str) -> None:
        self._program, self._leaf = program, leaf
        names, weights = _flat_names(call.target), _flat_names(call.output_gradients)
        self._reported = names + weights
        leaves = program.leaves()
        self._keep = _needed(program, self._reported) | set(leaves)
        self.x0 = np.asarray(leaves[leaf].value).astype(_wide(leaves[leaf].dtype))
        values = self._values(self.x0, complex_step=False)
        if values is None:
            raise Unjudgeable("the targets cannot be evaluated in 64 bits")
        self.shapes = [v.shape for v in values[:len(names)]]
        real_targets = all(v.dtype.kind != "c" for v in values[:len(names)])
        self.t0 = self._flatten(values[:len(names)])
        self.weights = self._flatten(values[len(names):]) if weights else np.ones(self.t0.size)
        kept = [s for s in walk(program.statements) if isinstance(s, (Op, Call)) and s.name in self._keep]
        self.complex_step = (all(not leaf.dtype.startswith("complex") for leaf in leaves.values())
                             and real_targets and all(isinstance(s, Op) and _analytic(s) for s in kept))

    @staticmethod
    def _flatten(values: list[np.ndarray]) -> np.ndarray:
        return np.concatenate([v.astype(np.complex128).reshape(-1) for v in values] + [np.zeros(0, np.complex128)])

    def _values(self, x: np.ndarray, complex_step: bool) -> list[np.ndarray] | None:
        from reftape_oracle.interpreter import run

        statements = _pruned(self._program.statements, self._keep, lambda leaf: _widened(
            leaf, x if leaf.name == self._leaf else leaf.value, complex_step))
        outcome = run(Program(statements, self._reported), REFERENCE_BACKEND, time_limit=30)
        described = [outcome.values.get(n) for n in self._reported]
        if outcome.error is not None or any(d is None or d["kind"] != "tensor" for d in described):
            return None
        return [decode_array(d) for d in described]

    def __call__(self, x: np.ndarray, complex_step: bool = False) -> np.ndarray | None:
        values = self._values(x, complex_step)
        return None if values is None else self._flatten(values[:len(self.shapes)])


def _analytic(op: Op) -> bool:
    spec = CATALOG[op.path]
    return spec.analytic and any(d.startswith("complex") for d in spec.dtypes)


def _shifted(x: np.ndarray, index: tuple, delta: complex) -> np.ndarray:
    y = x.astype(np.result_type(x, delta))
    y[index] += delta
    return y


def _slopes(targets: _Targets, readout: np.ndarray, index: tuple, direction: complex) -> tuple[np.ndarray, np.ndarray]:
    """dG/dt along x0 + t * direction at element `index`, G = Re(conj(readout) @ T): (slopes, ill)."""
    x0, rows = targets.x0, readout.shape[0]
    scale = max(1.0, float(abs(x0[index])))
    failed = np.full(rows, np.nan), np.ones(rows, bool)
    with np.errstate(all="ignore"):
        if targets.complex_step:
            h = COMPLEX_STEP * scale
            t = targets(_shifted(x0, index, 1j * h * direction), complex_step=True)
            if t is None:
                return failed
            slopes = (readout.real @ t).imag / h
            return slopes, ~np.isfinite(slopes)
        h = CENTRAL_STEP * scale
        tp, tm = targets(_shifted(x0, index, h * direction)), targets(_shifted(x0, index, -h * direction))
        if tp is None or tm is None:
            return failed
        g0, gp, gm = ((readout.conj() @ t).real for t in (targets.t0, tp, tm))
        slopes = (gp - gm) / (2 * h)
        right, left = (gp - g0) / h, (g0 - gm) / h
        kink = np.abs(left - right) > KINK_RESOLUTION * (np.maximum(1.0, np.abs(slopes)) + np.abs(right))
        return slopes, kink | ~np.isfinite(g0 + gp + gm)


def numerical_derivative(targets: _Targets, readout: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """dG/dRe(x) + i dG/dIm(x) for each row of G = Re(conj(readout) @ T(x)), as (rows, elements of
    the leaf), and where each element is ill-conditioned."""
    x0 = targets.x0
    directions = (1.0, 1j) if x0.dtype.kind == "c" else (1.0,)
    estimate = np.zeros((readout.shape[0], x0.size), x0.dtype)
    ill = np.zeros(estimate.shape, bool)
    for column, index in enumerate(np.ndindex(x0.shape)):
        for direction in directions:
            slopes, bad = _slopes(targets, readout, index, direction)
            estimate[:, column] += direction * slopes
            ill[:, column] |= bad
    return estimate, ill


def _estimate(targets: _Targets, method: str) -> tuple[np.ndarray, np.ndarray]:
    """The numerical result of the call for the source leaf, shaped as TF shapes it, and its ill mask."""
    source_shape = targets.x0.shape
    if method == "gradient":
        estimate, ill = numerical_derivative(targets, targets.weights[None, :])
        return estimate.reshape(source_shape), ill.reshape(source_shape)
    estimate, ill = numerical_derivative(targets, np.eye(targets.t0.size))
    target_shape = targets.shapes[0]
    if method == "jacobian":
        return estimate.reshape(target_shape + source_shape), ill.reshape(target_shape + source_shape)
    batch = target_shape[0]
    rows, columns = int(np.prod(target_shape[1:])), int(np.prod(source_shape[1:]))

    def blocks(full: np.ndarray) -> np.ndarray:
        diagonal = np.diagonal(full.reshape(batch, rows, batch, columns), axis1=0, axis2=2)
        return np.moveaxis(diagonal, -1, 0).reshape(target_shape + source_shape[1:])

    return blocks(estimate), blocks(ill)


def _locate(program: Program, where: str, expected: Outcome) -> tuple[Call, str] | None:
    """The call and the source a discrepancy's `where` points at (dict positions read through the
    keys TF described)."""
    match = re.fullmatch(r"calls/([^\[\].]+)((?:\[\d+\])*)", where)
    if not match:
        return None
    call = next((s for s in walk(program.statements) if isinstance(s, Call) and s.name == match.group(1)), None)
    if call is None:
        return None
    structure, described = call.sources, expected.calls.get(call.name)
    for position in (int(i) for i in re.findall(r"\d+", match.group(2))):
        if isinstance(structure, str) or described is None or described.get("kind") not in ("list", "tuple", "dict"):
            return None
        (kind, items), = structure.items()
        structure = dict(items)[described["keys"][position]] if kind == "dict" else items[position]
        described = described["items"][position]
    return (call, structure) if isinstance(structure, str) else None


def _decoded(data: list, dtype: str, shape: tuple) -> np.ndarray:
    array = decode_array({"dtype": dtype, "shape": list(shape), "data": data})
    return array.astype(np.complex128 if array.dtype.kind == "c" else np.float64)


def _close(value: np.ndarray, reference: np.ndarray, dtype: str) -> bool:
    rtol = max(RESOLUTION, 64 * epsilon(decode_array({"dtype": dtype, "shape": [0], "data": []}).dtype))
    scale = max(1.0, float(np.max(np.abs(reference))) if reference.size else 1.0)
    return bool(np.all(np.abs(value - reference) <= rtol * (np.abs(reference) + scale)))


def _verdict(numerical: np.ndarray, ill: np.ndarray, tf_value: np.ndarray, candidate: np.ndarray, dtype: str) -> str:
    compared = ~ill & (np.isfinite(tf_value) | np.isfinite(candidate))
    tf_ok = _close(tf_value[compared], numerical[compared], dtype)
    candidate_ok = _close(candidate[compared], numerical[compared], dtype)
    if tf_ok and candidate_ok:
        differ = (tf_value != candidate) & ~(np.isnan(tf_value) & np.isnan(candidate))
        return "ill-conditioned" if np.any(ill & differ) else "undecided"
    if candidate_ok:
        return "tensorflow-wrong"
    return "candidate-wrong" if tf_ok else "both-wrong"


def judge(program: Program, discrepancy: Discrepancy, expected: Outcome) -> tuple[str, np.ndarray | None]:
    """The verdict on one value discrepancy in a gradient, jacobian or batch_jacobian call, and the
    numerical estimate it rests on (None when the referee could not make one)."""
    located = _locate(program, discrepancy.where, expected)
    if located is None:
        return "undecided", None
    call, source = located
    if source not in program.leaves() or (call.method != "gradient" and not isinstance(call.target, str)):
        return "undecided", None
    try:
        targets = _Targets(program, call, source)
    except Unjudgeable:
        return "undecided", None
    numerical, ill = _estimate(targets, call.method)
    try:
        tf_value, candidate = (_decoded(data, discrepancy.dtype, numerical.shape)
                               for data in (discrepancy.expected, discrepancy.actual))
    except ValueError:  # the described result does not have the source's shape
        return "undecided", numerical
    return _verdict(numerical, ill, tf_value, candidate, discrepancy.dtype), numerical


def _flat_decimals(estimate: np.ndarray) -> list:
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
                d.verdict, estimate = judge(program, d, expected)
            except Exception:  # noqa: BLE001 - the referee must never lose the discrepancy it judges
                d.verdict, estimate = "undecided", None
            d.estimate = None if estimate is None else _flat_decimals(estimate)
    return discrepancies
