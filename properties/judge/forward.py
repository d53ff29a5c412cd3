"""The forward check: one backend's forward mode against its own reverse mode, a numerical derivative
deciding which of the two is wrong.

For each `jvp` call of a program (the tangents J v of targets T under a ForwardAccumulator with primals
x and tangents v) the check builds the program's *reverse twin* (`reverse_program`): the same statements
with the accumulator as a persistent tape watching the primals, and the jvp as a gradient call of T with
random output gradients u.
- The jvp is judged against the referee's numerical directional derivative of T along v (float64, on
  reftape's forward ops, `referee.Targets` of the twin's call: what the accumulator tracks is what a tape
  watching the primals records), by the numeric check's rules: beyond the tolerance, where the estimate is
  well-conditioned, beyond what a rounding of every leaf moves it, steady under a step sweep. A wrong jvp
  is a finding on the program itself, its expected outcome the backend's own with the estimate in the
  wrong elements (a None where the estimate is not zero included: TF turns a gradient function's None
  into a tangent of 0, anomalies 25 and 26).
- Otherwise the backend runs the twin: both modes differentiate the same function, so
  Re<u, J v> = Re<g, v> with g the gradient (<a, b> = sum(conj(a) b): TF's complex convention, see
  referee.py, makes this hold for complex tensors too). When the two sides differ by more than the
  dtype's gradient tolerance of the magnitudes summed, the reverse mode is wrong where the forward one is
  right, and the numeric check's finding on the twin is the check's finding.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from reftape_oracle.outcome import UNFINISHED, Outcome, decode_array, describe
from reftape_oracle.program import (Accumulator, Call, Jvp, Leaf, Program, Tape, Watch, flat_references,
                                    structure_references, walk)

from reftape_properties.judge import numeric, referee
from reftape_properties.judge.compare import least_precise_leaf, summed_terms
from reftape_properties.judge.tolerance import Tolerance, is_floating

FORWARD = "forward"   # the reference a forward check's findings name
COTANGENT_SEED = 0    # the seed of the reverse twin's output gradients
WIDE_TANGENT = 1e4    # the largest ratio of a tangent's nonzero magnitudes one central difference along it resolves


@dataclass
class ForwardJudgement:
    """What the forward check made of a program's outcome: the outcome exact jvps give (the backend's own
    where its jvps are right), the estimate of each jvp result it changed, and the reverse twin the numeric
    check is to judge when the reverse mode was found wrong instead (else None)."""

    expected: Outcome
    estimates: dict
    reverse_wrong: Program | None = None


@dataclass
class Twin:
    """A jvp's reverse twin: the program, its gradient call, the tangent of each primal and the output gradients."""

    program: Program
    call: Call
    tangents: dict
    cotangents: list


class _NotJudged(Exception):
    """A jvp the check does not judge: targets other than a name or a list of names, or without floating values."""


def forward_outcome(program: Program, outcome: Outcome, candidate: Any, time_limit: float | None) -> ForwardJudgement:
    """Judges each jvp of `program` from the candidate's `outcome` (see the module docstring)."""
    from reftape_oracle.interpreter import run
    exact = copy.deepcopy(outcome)
    exact.backend = FORWARD
    judgement = ForwardJudgement(exact, {})
    if outcome.error is not None and outcome.error.get("kind") in UNFINISHED + ("missing", "harness"):
        return judgement
    for jvp in (s for s in walk(program.statements) if isinstance(s, Jvp)):
        described = exact.calls.get(jvp.name)
        if described is None or described.get("kind") == "exception":
            continue
        try:
            twin = reverse_program(program, jvp, outcome)
        except _NotJudged:
            continue
        if _jvp_wrong(twin, jvp, described, outcome, judgement.estimates):
            continue
        reverse = run(twin.program, candidate, time_limit)
        if reverse.error is None and reverse.calls[jvp.name].get("kind") != "exception" and not \
                _identity_holds(twin, _items(described, len(twin.cotangents)), reverse.calls[jvp.name], outcome, jvp):
            judgement.reverse_wrong = twin.program
            return judgement
    return judgement


def reverse_program(program: Program, jvp: Jvp, outcome: Outcome) -> Twin:
    """The reverse twin of `jvp` (see the module docstring): its accumulator a persistent tape watching the
    primals (nothing else: watch_accessed_variables False), `jvp` a gradient call of its targets by the
    primals with output gradients drawn for the targets' values in `outcome`, other jvps of that
    accumulator left out."""
    if not (isinstance(jvp.target, str) or set(jvp.target) == {"list"} and all(isinstance(t, str) for t in jvp.target["list"])):
        raise _NotJudged("a jvp of a structure other than a list of names")
    accumulator = next(s for s in walk(program.statements) if isinstance(s, Accumulator) and s.name == jvp.accumulator)
    generator = np.random.default_rng(COTANGENT_SEED)
    cotangents = []
    for position, target in enumerate(flat_references(jvp.target)):
        described = outcome.values.get(target)
        if described is None or described.get("kind") != "tensor" or not is_floating(referee.numpy_dtype(described["dtype"])):
            raise _NotJudged(f"no floating value of {target}")
        value = _random_like(decode_array(described), generator)
        cotangents.append(Leaf(f"_cotangent{position}", "constant", value, described["dtype"]))
    call = Call(jvp.name, accumulator.name, "gradient", {"list": flat_references(jvp.target)},
                {"list": list(accumulator.primals)}, output_gradients={"list": [c.name for c in cotangents]},
                unconnected="zero", unconnected_form="enum")

    def converted(statements: list) -> list:
        result = []
        for s in statements:
            if s is accumulator:
                s = Tape(s.name, [Watch(s.name, list(s.primals))] + converted(s.body), persistent=True,
                         watch_accessed_variables=False)
            elif s is jvp:
                s = call
            elif isinstance(s, Jvp) and s.accumulator == accumulator.name:
                continue
            elif hasattr(s, "body"):
                s = replace(s, body=converted(s.body))
            result.append(s)
        return result

    twin = Program(cotangents + converted(program.statements), [])
    leaves = twin.leaves()
    tangents = {primal: np.asarray(leaves[tangent].value) for primal, tangent in zip(accumulator.primals, accumulator.tangents)
                if tangent in leaves}
    if len(tangents) != len(set(accumulator.primals)):
        raise _NotJudged("a tangent that is not a leaf")
    return Twin(twin, call, tangents, [np.asarray(c.value) for c in cotangents])


def _random_like(value: np.ndarray, generator: np.random.Generator) -> np.ndarray:
    drawn = generator.uniform(-1.0, 1.0, value.shape)
    if value.dtype.kind == "c":
        drawn = drawn + 1j * generator.uniform(-1.0, 1.0, value.shape)
    return drawn.astype(value.dtype)


def _dense(described: dict | None, shape: tuple) -> np.ndarray:
    """A jvp or gradient result as a dense complex128 array (zeros for None: an unconnected result)."""
    if described is None or described.get("kind") == "none":
        return np.zeros(shape, np.complex128)
    return numeric._dense_value(described)[0].astype(np.complex128)


def _items(described: dict, count: int) -> list:
    """The `count` results of a call of a list of that many targets (or sources), one alone included."""
    return described["items"] if described.get("kind") in ("list", "tuple") else [described] * (count == 1)


def _identity_holds(twin: Twin, jvps: list, gradients: dict, outcome: Outcome, jvp: Jvp) -> bool:
    """Re<u, J v> = Re<g, v> within the gradient tolerance of the jvp's dtype, relative to the magnitudes summed."""
    tangents = [twin.tangents[p] for p in structure_references(twin.call.sources)]
    try:
        forward_terms = [(u.astype(np.complex128), _dense(j, u.shape)) for u, j in zip(twin.cotangents, jvps, strict=True)]
        backward_terms = [(_dense(g, v.shape), v.astype(np.complex128))
                          for g, v in zip(_items(gradients, len(tangents)), tangents, strict=True)]
    except (ValueError, KeyError):
        return False   # a structure or shape that differs: never an agreement
    if any(a.shape != b.shape for a, b in forward_terms + backward_terms):
        return False
    forward = sum(float(np.vdot(a, b).real) for a, b in forward_terms)
    backward = sum(float(np.vdot(a, b).real) for a, b in backward_terms)
    if not (np.isfinite(forward) and np.isfinite(backward)):
        return forward == backward or bool(np.isnan(forward) and np.isnan(backward))
    magnitude = sum(float(np.abs(a).ravel() @ np.abs(b).ravel()) for a, b in forward_terms + backward_terms)
    tolerance = _tolerance(twin.program, outcome, jvp)
    return abs(forward - backward) <= max(tolerance.relative, tolerance.absolute_scale) * magnitude


def _tolerance(program: Program, outcome: Outcome, jvp: Jvp) -> Tolerance:
    dtype = outcome.values[flat_references(jvp.target)[0]]["dtype"]
    return Tolerance.for_dtype(referee.numpy_dtype(dtype), gradient=True, summed_terms=summed_terms(program),
                               computed_through=least_precise_leaf(program))


def _directional(twin: Twin, step_scale: float = 1.0, program: Program | None = None) -> tuple[np.ndarray, np.ndarray] | None:
    """The numerical derivative of the twin call's flat targets along the tangents of its sources (summed over
    the primals), and where it is ill-conditioned; None when the referee cannot evaluate it. `program`: the
    twin's program with other leaf values (a rounding probe)."""
    total, ill = None, None
    complex_targets = any(u.dtype.kind == "c" for u in twin.cotangents)
    for primal, tangent in twin.tangents.items():
        try:
            targets = referee.Targets(program or twin.program, twin.call, primal)
        except Exception:  # noqa: BLE001 - what the referee cannot evaluate is not judged (as referee.referee)
            return None
        size = targets.t0.size
        along = tangent.astype(targets.x0.dtype if targets.x0.dtype.kind == "c" or tangent.dtype.kind != "c" else np.complex128)
        if not np.any(along):
            continue
        def slopes_read_by(readout: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            return _slopes_by_reading(program or twin.program, twin.call, primal, targets, along, step_scale, readout)
        slopes, bad = slopes_read_by(np.eye(size))
        bad = bad | ~np.isfinite(targets.t0.reshape(-1))   # a target not defined at the point has no derivative
        slopes = slopes.astype(np.complex128)
        if complex_targets:  # the imaginary parts along the same (Hermitian-projected where read so) tangent
            imaginary, imaginary_ill = slopes_read_by(1j * np.eye(size))
            slopes, bad = slopes + 1j * imaginary, bad | imaginary_ill
        total = slopes if total is None else total + slopes
        ill = bad if ill is None else ill | bad
    return (total, ill) if total is not None else None


def _slopes_by_reading(program: Program, call: Call, primal: str, targets: referee.Targets, along: np.ndarray,
                       step_scale: float, readout: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The derivative of the readout rows of the flat targets (their real parts by the identity, their imaginary
    parts by i times it) along the tangent, and where it is ill-conditioned. A target computed
    from the primal only through ops that read it as Hermitian (a cholesky or logdet input) is one along the
    tangent's Hermitian part, as TF's gradient, which its JVP transposes, is Hermitian by convention (numeric.py
    judges that part too); a target computed from the primal both through such an op and past it is not judged."""
    readers = numeric.hermitian_readers(program, primal) if along.ndim >= 2 and along.shape[-1] == along.shape[-2] else set()
    if not readers:
        return _slopes_along(targets, readout, along, step_scale)
    through = set().union(*(referee.depending_on(program, reader) for reader in readers))
    past = referee.depending_on(program, primal, avoiding=readers)
    rows = [(referee.base_name(name) in through, referee.base_name(name) in past)
            for name, shape in zip(flat_references(call.target), targets.shapes) for _ in range(int(np.prod(shape)))]
    hermitian_only = np.array([t and not p for t, p in rows], bool)
    slopes, ill = _slopes_along(targets, readout, along, step_scale)
    if hermitian_only.any():
        projected, projected_ill = _slopes_along(targets, readout, numeric._hermitian_part(along), step_scale)
        slopes, ill = np.where(hermitian_only, projected, slopes), np.where(hermitian_only, projected_ill, ill)
    return slopes, ill | np.array([t and p for t, p in rows], bool)


def _slopes_along(targets: referee.Targets, readout: np.ndarray, along: np.ndarray,
                  step_scale: float) -> tuple[np.ndarray, np.ndarray]:
    """The derivative of the readout rows along the tangent `along`, and where it is ill-conditioned: one central
    difference along the whole tangent; or, where its nonzero elements span more than WIDE_TANGENT (a
    near-overflow tangent beside ordinary ones, whose step would not move the small ones), the derivative by
    each element contracted with the tangent."""
    flat = along.reshape(-1)
    magnitudes = np.abs(flat[flat != 0])
    if magnitudes.max() <= WIDE_TANGENT * magnitudes.min():
        largest = float(magnitudes.max())
        scale = step_scale * max(1.0, float(np.max(np.abs(targets.x0), initial=0.0)))
        slopes, ill = referee.slopes_along(targets, readout, along / largest, scale)
        return largest * slopes, ill
    by_element, ill = referee.numerical_derivative(targets, readout, step_scale)
    with np.errstate(invalid="ignore", over="ignore"):
        return (np.conj(by_element) @ flat).real, ill[:, flat != 0].any(axis=1)


def _jvp_wrong(twin: Twin, jvp: Jvp, described: dict, outcome: Outcome, estimates: dict) -> bool:
    """Whether the jvp is wrong somewhere the referee can judge it (the estimate then written into the expected
    outcome's jvp where it is wrong)."""
    made = _directional(twin)
    if made is None:
        return False
    estimate, ill = made
    items = _items(described, len(twin.cotangents))
    shapes = [u.shape for u in twin.cotangents]
    values = np.concatenate([_dense(item, shape).ravel() for item, shape in zip(items, shapes)] + [np.zeros(0)])
    tolerance = _tolerance(twin.program, outcome, jvp)
    real = not any(u.dtype.kind == "c" for u in twin.cotangents)
    if real:
        estimate, values = estimate.real, values.real

    def estimator(at: Program, step_scale: float) -> tuple[np.ndarray, np.ndarray] | None:
        made = _directional(twin, step_scale, at)
        return made if made is None or not real else (made[0].real, made[1])

    wrong = numeric._beyond(values, estimate, tolerance) & ~ill & np.isfinite(estimate)
    if wrong.any():
        reach = numeric.rounding_reach(estimator, twin.program, estimate)
        wrong &= np.abs(values - estimate) > numeric._allowed(estimate, tolerance) + reach
    if wrong.any():
        wrong &= numeric.steady_under_a_step_sweep(estimator, twin.program, estimate)
    if not wrong.any():
        return False
    _write(jvp, described, items, shapes, estimate, wrong, outcome, estimates)
    return True


def _write(jvp: Jvp, described: dict, items: list, shapes: list, estimate: np.ndarray, wrong: np.ndarray,
           outcome: Outcome, estimates: dict) -> None:
    """The estimate written into the jvp's wrong elements (an unconnected None becomes the estimate's tensor)."""
    listed = described.get("kind") in ("list", "tuple")
    offset = 0
    for position, (item, shape, target) in enumerate(zip(items, shapes, flat_references(jvp.target))):
        size = int(np.prod(shape)) if shape else 1
        part, part_wrong = estimate[offset:offset + size].reshape(shape), wrong[offset:offset + size].reshape(shape)
        offset += size
        if not part_wrong.any():
            continue
        where = f"calls/{jvp.name}" + (f"[{position}]" if listed else "")
        estimates[where] = part
        dtype = referee.numpy_dtype(outcome.values[target]["dtype"])
        part = part if dtype.kind == "c" else part.real   # a real target beside complex ones
        if item.get("kind") == "none":
            replacement = describe(part.astype(dtype), None)
            if listed:
                described["items"][position] = replacement
            else:
                described.clear()
                described.update(replacement)
            continue
        value, _ = numeric._dense_value(item)
        numeric._write(item, np.where(part_wrong, part, value), part_wrong)
