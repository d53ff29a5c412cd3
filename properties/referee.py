"""The referee: when the candidate and TensorFlow disagree on a floating gradient, an independent
numerical derivative says which side is wrong.

The program is re-evaluated forward only (no gradient code involved) in float64 on reftape, with
one leaf perturbed at a time, and the call's target is differentiated numerically:
- complex step, Im F(x + ih) / h, when every op is analytic (exact to rounding, no cancellation);
- otherwise central differences with h = cbrt(eps) * max(1, |x|).
Before trusting a derivative, the referee probes the neighbourhood: if the one-sided slopes on
either side disagree, or the function is not finite within reach of the step, the point is a kink
or a discontinuity and the verdict is `ill-conditioned`. Verdicts:
`candidate-wrong`, `tensorflow-wrong`, `both-wrong`, `ill-conditioned`, or `undecided` (the target
depends on another gradient call, a source is not a leaf, or both sides are within the referee's
resolution of the numerical value).
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

import numpy as np

from reftape_oracle.catalog import CATALOG
from .compare import Discrepancy
from reftape_oracle.outcome import Outcome, decode_array
from reftape_oracle.program import Call, Leaf, Op, Program, StopRecording, Tape, walk

REFERENCE_BACKEND = "reftape"


def _flat_names(structure: Any) -> list:
    """Leaf names in the order results are described (dicts in their own order)."""
    if isinstance(structure, str):
        return [structure]
    (kind, items), = structure.items()
    if kind == "dict":
        return [n for _, s in items for n in _flat_names(s)]
    return [n for s in items for n in _flat_names(s)]


def _forward_only(statements: list, rewrite_leaf) -> list:
    """The statements without calls, every leaf (at any depth) passed through `rewrite_leaf`."""
    kept = []
    for s in statements:
        if isinstance(s, (Tape, StopRecording)):
            kept.append(replace(s, body=_forward_only(s.body, rewrite_leaf)))
        elif isinstance(s, Leaf):
            kept.append(rewrite_leaf(s))
        elif not isinstance(s, Call):
            kept.append(s)
    return kept


def _promote(leaf: Leaf, value: np.ndarray | None, complex_step: bool) -> Leaf:
    if np.asarray(leaf.value).dtype.kind not in "fcV":
        return leaf
    target = "complex128" if complex_step else ("complex128" if leaf.dtype.startswith("complex") else "float64")
    array = np.asarray(leaf.value if value is None else value).astype(np.float64 if target == "float64" else np.complex128)
    return replace(leaf, value=array, dtype=target)


class _Evaluator:
    """F(x) = sum_k <w_k, target_k> with one leaf set to x, everything else fixed, in float64."""

    def __init__(self, program: Program, call: Call, leaf: str, complex_step: bool) -> None:
        from reftape_oracle.interpreter import run

        self._run, self._program, self._call = run, program, call
        self._leaf, self._complex_step = leaf, complex_step
        self.targets = _flat_names(call.target)
        leaves = program.leaves()
        self.x0 = np.asarray(leaves[leaf].value).astype(np.float64)
        weights = _flat_names(call.output_gradients) if call.output_gradients is not None else []
        self.weights = [np.asarray(leaves[w].value).astype(np.float64) if w in leaves else None for w in weights]

    def target_values(self, x: np.ndarray) -> list[np.ndarray] | None:
        statements = _forward_only(self._program.statements, lambda leaf: _promote(
            leaf, x if leaf.name == self._leaf else None, self._complex_step))
        outcome = self._run(Program(statements, self.targets), REFERENCE_BACKEND, time_limit=30)
        if outcome.error is not None or set(outcome.values) != set(self.targets):
            return None
        return [decode_array(outcome.values[t]) for t in self.targets]

    def __call__(self, x: np.ndarray) -> complex | None:
        values = self.target_values(x)
        if values is None:
            return None
        total = 0j
        for i, value in enumerate(values):
            weight = self.weights[i] if i < len(self.weights) and self.weights[i] is not None else np.ones(value.shape)
            total += np.sum(weight * value)
        return total


def numerical_gradient(evaluator: _Evaluator) -> tuple[np.ndarray | None, bool]:
    """(gradient of F w.r.t. the leaf, whether the point is ill-conditioned)."""
    x0 = evaluator.x0
    grad = np.zeros(x0.shape)
    ill = False
    for index in np.ndindex(x0.shape):
        scale = max(1.0, abs(float(x0[index])))
        if evaluator._complex_step:
            h = 1e-20 * scale
            x = x0.astype(np.complex128)
            x[index] += 1j * h
            f = evaluator(x)
            if f is None or not np.isfinite(f):
                return None, True
            grad[index] = f.imag / h
            continue
        h = np.cbrt(np.finfo(np.float64).eps) * scale
        f0, fp, fm = (evaluator(_shifted(x0, index, d)) for d in (0.0, h, -h))
        if any(f is None or not np.isfinite(f) for f in (f0, fp, fm)):
            return None, True
        right, left = (fp.real - f0.real) / h, (f0.real - fm.real) / h
        grad[index] = (fp.real - fm.real) / (2 * h)
        ill |= not np.isclose(left, right, rtol=1e-3, atol=1e-3 * max(1.0, abs(grad[index])))
    return grad, ill


def _shifted(x: np.ndarray, index: tuple, delta: float) -> np.ndarray:
    y = x.copy()
    y[index] += delta
    return y


def _analytic(program: Program) -> bool:
    return all(CATALOG[op.path].analytic and any(d.startswith("complex") for d in CATALOG[op.path].dtypes)
               for op in program.ops())


def _close(value: np.ndarray, reference: np.ndarray, dtype: np.dtype) -> bool:
    from .tolerance import epsilon

    rtol = max(1e-4, 64 * epsilon(dtype))
    scale = max(1.0, float(np.max(np.abs(reference))) if reference.size else 1.0)
    return bool(np.all(np.abs(value.astype(np.float64) - reference) <= rtol * (np.abs(reference) + scale)))


def _locate(program: Program, where: str) -> tuple[Call, str] | None:
    match = re.fullmatch(r"calls/([^\[]+)((?:\[\d+\])*)", where)
    if not match:
        return None
    call = next((s for s in walk(program.statements) if isinstance(s, Call) and s.name == match.group(1)), None)
    if call is None or call.method != "gradient":
        return None
    sources = _flat_names(call.sources)
    indices = [int(i) for i in re.findall(r"\d+", match.group(2))]
    if isinstance(call.sources, str):
        return (call, sources[0]) if not indices else None
    position = indices[0] if len(indices) == 1 else None
    return (call, sources[position]) if position is not None and position < len(sources) else None


def _depends_on_calls(program: Program, call: Call) -> bool:
    calls = {s.name for s in walk(program.statements) if isinstance(s, Call)}
    producers = {s.name: s for s in walk(program.statements) if isinstance(s, Op)}
    work, seen = list(_flat_names(call.target)), set()
    while work:
        name = work.pop()
        if name in calls:
            return True
        if name in producers and name not in seen:
            seen.add(name)
            work.extend(producers[name].inputs)
    return False


def judge(program: Program, discrepancy: Discrepancy, expected: Outcome, actual: Outcome) -> str:
    """The verdict on one value discrepancy in a gradient call."""
    located = _locate(program, discrepancy.where)
    if located is None or located[1] not in program.leaves() or _depends_on_calls(program, located[0]):
        return "undecided"
    call, leaf = located
    evaluator = _Evaluator(program, call, leaf, complex_step=_analytic(program))
    numerical, ill = numerical_gradient(evaluator)
    if ill or numerical is None:
        return "ill-conditioned"
    tf_value = np.asarray([float.fromhex(x) for x in discrepancy.expected["data"]]).reshape(numerical.shape)
    candidate = np.asarray([float.fromhex(x) for x in discrepancy.actual["data"]]).reshape(numerical.shape)
    dtype = decode_array({"dtype": discrepancy.dtype, "shape": [0], "data": []}).dtype
    tf_ok, candidate_ok = _close(tf_value, numerical, dtype), _close(candidate, numerical, dtype)
    if candidate_ok and not tf_ok:
        return "tensorflow-wrong"
    if tf_ok and not candidate_ok:
        return "candidate-wrong"
    return "both-wrong" if not (tf_ok or candidate_ok) else "undecided"


def referee(program: Program, discrepancies: list[Discrepancy], expected: Outcome, actual: Outcome) -> list[Discrepancy]:
    """Fills in the verdict of every value discrepancy in a floating gradient."""
    for d in discrepancies:
        data = d.expected.get("data") if isinstance(d.expected, dict) else None
        if d.kind == "value" and d.where.startswith("calls/") and data and isinstance(data[0], str):
            try:
                d.verdict = judge(program, d, expected, actual)
            except Exception:  # noqa: BLE001 - the referee must never lose the discrepancy it judges
                d.verdict = "undecided"
    return discrepancies
