"""The numeric check: one backend's gradients against the referee's independent numerical derivative.

`numeric_outcome` turns the backend's outcome into the outcome an exact derivative gives: a copy in
which each floating gradient, jacobian and batch_jacobian result the referee can judge
(`referee.Targets`: float64 re-evaluation on reftape's forward ops, complex step or central differences)
holds the estimate in the elements where the backend is wrong. Everything else is the backend's own
description, so the one comparison (`compare`) then reports exactly the wrong elements, and a numeric
finding flows through minimisation, clustering and reports as a differential one does, its reference
named `NUMERIC`.

An element is wrong when it is outside the referee's resolution of the estimate (`referee._close`'s
rule, element by element), the estimate is well-conditioned there (no kink, finite within reach of the
step) and the difference is more than the result's dtype can explain by rounding: the estimate is made
again at points whose floating leaves are moved by `tolerance.ROUNDING_PROBE_ULPS` ulps of their own
dtype (a rounding of every input, as the backend's intermediates are rounded), and a difference within
`tolerance.ROUNDING_PROBE_FACTOR` times how far those estimates move is rounding, not a wrong gradient;
and the estimate holds with steps STEP_SWEEP times larger (a step sweep: one across a pole or a jump does
not, an infinite true derivative is no anomaly).
A non-finite gradient where the estimate is finite and well-conditioned is wrong; an estimate beyond the
dtype's range is the infinity it rounds to. Where the source reaches an op that reads its input as
Hermitian, only the gradient's Hermitian part is judged (TF's convention); a source reaching an op whose
repeated indices' updates apply in an unspecified order (`tensor_scatter_nd_update`) is not judged. A source that is also a target
is not judged: its derivative by itself is 1 or 0 by the tape's watching rules, which the differential
check covers, not by any op's gradient function.
"""

from __future__ import annotations

import copy
import re
from dataclasses import replace
from typing import Any, Callable, Iterator

import ml_dtypes
import numpy as np

from reftape_oracle.outcome import UNFINISHED, Outcome, describe
from reftape_oracle.catalog import HERMITIAN_GRADIENT, NARROWS, UNSPECIFIED_ORDER, has_trait
from reftape_oracle.program import Call, Leaf, Op, Program, flat_references, structure_children, walk

from reftape_properties.judge import referee
from reftape_properties.judge.compare import least_precise_leaf, summed_terms
from reftape_properties.judge.tolerance import (ROUNDING_PROBE_FACTOR, ROUNDING_PROBE_ULPS, Tolerance, epsilon,
                                                is_floating)

NUMERIC = "numeric"   # the reference a numeric check's findings name
ROUNDING_PROBES = 2   # points around the program's own at which the estimate is made again
STEP_SWEEP = 16       # how much larger the steps of the second estimate of a wrong element are
EXACT = Tolerance(relative=0.0, absolute_scale=0.0)   # what the float64 estimates are held to: the referee's resolution
# An estimate of a result at a program (the one judged, or one with its leaves rounded) with steps a factor times
# the usual: (estimate, where it is ill-conditioned), or None where the referee cannot make one
Estimator = Callable[[Program, float], "tuple[np.ndarray, np.ndarray] | None"]


def wrong_verdict(backend: str) -> str:
    """What a numeric discrepancy says: TF's gradient is wrong, or the candidate's."""
    return "tensorflow-wrong" if backend == "tensorflow" else "candidate-wrong"


def numeric_outcome(program: Program, outcome: Outcome) -> tuple[Outcome, dict[str, np.ndarray]]:
    """The outcome an exact derivative gives (see the module docstring), and the estimate of each result it
    changed, dense and keyed by the result's location (`calls/g1[0]`)."""
    exact = copy.deepcopy(outcome)
    exact.backend = NUMERIC
    estimates: dict[str, np.ndarray] = {}
    if outcome.error is not None and outcome.error.get("kind") in UNFINISHED + ("missing", "harness"):
        return exact, estimates   # a program that did not finish, or never ran: nothing to judge
    for call in (s for s in walk(program.statements) if isinstance(s, Call)):
        if call.method != "gradient" and not isinstance(call.target, str):
            continue   # the referee judges jacobians of one target
        described = exact.calls.get(call.name)
        targets = {referee.base_name(name) for name in flat_references(call.target)}
        for source, where, result in _results(call.sources, described, f"calls/{call.name}"):
            if referee.base_name(source) in targets:
                continue   # a target's derivative by itself is 1 or 0 by what the tape watched: no gradient function's
            try:
                estimate = _corrected(program, call, source, result)
            except Exception:  # noqa: BLE001 - what the referee cannot evaluate is not judged (as referee.referee)
                estimate = None
            if estimate is not None:
                estimates[where] = estimate
    return exact, estimates


WIDER = {"float16": "float64", "bfloat16": "float64", "float32": "float64", "complex64": "complex128"}


def widened(program: Program) -> Program | None:
    """The program with its leaves, and casts, of a narrower floating dtype in float64 (complex128): the same
    function, computed where the narrow dtype's range and rounding no longer reach; None for a program all in
    float64 and complex128."""
    changed = False

    def wide(s: Any) -> Any:
        nonlocal changed
        if isinstance(s, Leaf) and s.dtype in WIDER:
            changed = True
            return replace(s, value=np.asarray(s.value).astype(WIDER[s.dtype]), dtype=WIDER[s.dtype])
        if isinstance(s, Op) and s.attrs.get("dtype") in WIDER:
            changed = True
            return replace(s, attrs={**s.attrs, "dtype": WIDER[s.attrs["dtype"]]})
        if hasattr(s, "body"):
            return replace(s, body=[wide(t) for t in s.body])
        return s

    statements = [wide(s) for s in program.statements]
    return replace(program, statements=statements) if changed else None


def forgive_precision(program: Program, exact: Outcome, outcome: Outcome, estimates: dict, wide: Outcome) -> None:
    """Where the backend's gradient of the `widened` program (its outcome `wide`) agrees with the estimate, what
    made its result wrong is the narrow dtype (an intermediate past its range, a rounding amplified), not a
    gradient function: the backend's own result goes back into the exact outcome and its estimate is dropped. A
    gradient function's bug shows in float64 too (TF_ANOMALIES.md's half-type counts, wrong only past 2048
    elements of a half type, are the kind this cannot see)."""
    for call in (s for s in walk(program.statements) if isinstance(s, Call)):
        results = [dict((where, (source, result)) for source, where, result in _results(call.sources, o.calls.get(call.name),
                                                                                        f"calls/{call.name}"))
                   for o in (exact, outcome, wide)]
        for where, (source, exact_result) in results[0].items():
            if where not in estimates or where not in results[2]:
                continue
            wide_value, _ = _dense_value(results[2][where][1])
            estimate = estimates[where]
            if wide_value.shape != estimate.shape:
                continue
            part = _judged_part(program, source, estimate.shape)
            tolerance = Tolerance.for_dtype(np.dtype(np.float64), gradient=True, summed_terms=summed_terms(program))
            finite = np.isfinite(part(estimate))
            if not np.any(_beyond(part(wide_value), part(estimate), tolerance) & finite):
                exact_result.clear()
                exact_result.update(copy.deepcopy(results[1][where][1]))
                del estimates[where]


def _results(structure: Any, described: Any, where: str) -> Iterator[tuple[str, str, dict]]:
    """(source, location, description) of each floating result a call returned, paired with its source."""
    if described is None:
        return
    kind = described["kind"]
    if isinstance(structure, str):
        values = described.get("values") if kind == "indexed_slices" else described
        dtype = values.get("dtype") if kind in ("tensor", "indexed_slices") and isinstance(values, dict) else None
        if dtype is not None and is_floating(referee.numpy_dtype(dtype)):
            yield structure, where, described
        return
    if kind not in ("list", "tuple", "namedtuple", "dict"):
        return
    (container, items), = structure.items()
    children = [dict(items)[key] for key in described["keys"]] if container == "dict" else structure_children(structure)
    for position, (child, item) in enumerate(zip(children, described["items"])):
        yield from _results(child, item, f"{where}[{position}]")


def _dense_value(result: dict) -> tuple[np.ndarray, str]:
    """The result as the dense float64/complex128 tensor it stands for, and its dtype name."""
    if result["kind"] == "indexed_slices":
        values = result["values"]
        dense = np.zeros([int(d) for d in result["dense_shape"]["data"]], referee.decoded([], values["dtype"], (0,)).dtype)
        np.add.at(dense, np.asarray(result["indices"]["data"], np.int64),
                  referee.decoded(values["data"], values["dtype"], values["shape"]))
        return dense, values["dtype"]
    return referee.decoded(result["data"], result["dtype"], result["shape"]), result["dtype"]


def _targets(program: Program, call: Call, source: str) -> referee.Targets | None:
    try:
        return referee.Targets(program, call, source)
    except Exception:  # noqa: BLE001 - what the referee cannot evaluate is not judged (as referee.referee does)
        return None


def _estimate(targets: referee.Targets | None, method: str,
              step_scale: float = 1.0) -> tuple[np.ndarray, np.ndarray] | None:
    try:
        return None if targets is None else referee.numerical_result(targets, method, step_scale)
    except Exception:  # noqa: BLE001 - as above
        return None


def _corrected(program: Program, call: Call, source: str, result: dict) -> np.ndarray | None:
    """Writes the estimate into `result` where the backend's value is wrong; returns the estimate, or None
    when nothing was wrong (or nothing could be judged)."""
    if _through_unspecified_order(program, source) or _through_narrowing(program, source):
        return None
    value, dtype = _dense_value(result)
    targets = _targets(program, call, source)
    part = _judged_part(program, source, value.shape)
    tolerance = Tolerance.for_dtype(referee.numpy_dtype(dtype), gradient=True, summed_terms=summed_terms(program),
                                    computed_through=least_precise_leaf(program))
    if targets is None or _agrees_along_a_direction(targets, call.method, value, part, tolerance, dtype):
        return None
    made = _estimate(targets, call.method)
    if made is None or made[0].shape != value.shape:
        return None
    undefined = np.repeat(_undefined_rows(targets, call.method, dtype)[:, None], targets.x0.size, axis=1)
    estimate, ill = _in_range(made[0], dtype), made[1] | referee.shaped(undefined, targets, call.method)
    judged_value, judged_estimate, ill = part(value), part(estimate), part(ill.astype(float)) != 0
    wrong = _beyond(judged_value, judged_estimate, tolerance) & ~ill & np.isfinite(judged_estimate)
    def estimator(at: Program, step_scale: float) -> tuple[np.ndarray, np.ndarray] | None:
        return _estimate(_targets(at, call, source), call.method, step_scale)

    if wrong.any():
        reach = rounding_reach(estimator, program, judged_estimate, part)
        wrong &= np.abs(judged_value - judged_estimate) > _allowed(judged_estimate, tolerance) + reach
    if wrong.any():
        wrong &= steady_under_a_step_sweep(estimator, program, judged_estimate, part)
    if not wrong.any():
        return None
    shifted = judged_estimate if part is _whole else value + (judged_estimate - judged_value)
    _write(result, np.where(wrong, shifted, value), wrong)
    return estimate


def _in_range(estimate: np.ndarray, dtype: str) -> np.ndarray:
    """The estimate, infinite where it is beyond the result dtype's range (as the exact result rounds there)."""
    largest = float(ml_dtypes.finfo(referee.numpy_dtype(dtype)).max)
    with np.errstate(invalid="ignore"):
        parts = (estimate.real, estimate.imag) if estimate.dtype.kind == "c" else (estimate,)
        rounded = [np.where(np.abs(p) > largest, np.copysign(np.inf, p), p) for p in parts]
    return rounded[0] + 1j * rounded[1] if estimate.dtype.kind == "c" else rounded[0]


def _agrees_along_a_direction(targets: referee.Targets, method: str, value: np.ndarray,
                              part: Callable[[np.ndarray], np.ndarray], tolerance: Tolerance, dtype: str) -> bool:
    """Whether the result agrees with the derivative along one random direction of the source: two
    evaluations whatever the source's size, where judging every element takes two per element; only a
    result that does not is judged element by element. The tolerance is the referee's, relative to the sum
    of the magnitudes projected (a sum of roundings): an error in one element of a large result smaller
    than that is not seen."""
    if value.size == 0 or targets.x0.size == 0:
        return True   # nothing to judge
    if not np.all(np.isfinite(value)) or (part is not _whole and method == "batch_jacobian"):
        return False
    generator = np.random.default_rng(0)
    x0 = targets.x0
    along = generator.uniform(-1.0, 1.0, x0.shape)
    if x0.dtype.kind == "c":
        along = along + 1j * generator.uniform(-1.0, 1.0, x0.shape)
    along = part(along) if x0.ndim >= 2 and x0.shape[-1] == x0.shape[-2] else along
    slopes, ill = referee.slopes_along(targets, referee.readout(targets, method), along,
                                       max(1.0, float(np.max(np.abs(x0), initial=0.0))))
    defined = ~_undefined_rows(targets, method, dtype)
    if ill[defined].any():
        return False
    rows = referee.as_rows(value, targets, method)[defined]
    slopes = slopes[defined]
    projected = (np.conj(rows) @ along.reshape(-1)).real
    magnitude = np.abs(rows) @ np.abs(along.reshape(-1))
    allowed = (max(referee.RESOLUTION, tolerance.relative) * magnitude
               + max(referee.RESOLUTION, tolerance.absolute_scale) * max(1.0, float(np.max(np.abs(rows), initial=0.0))))
    return bool(np.all(np.abs(projected - slopes) <= allowed))


def steady_under_a_step_sweep(estimator: Estimator, program: Program, estimate: np.ndarray,
                              part: Callable[[np.ndarray], np.ndarray] | None = None) -> np.ndarray:
    """Where `estimate` (`estimator`'s at `program`, judged in `part`) stays within the referee's resolution
    with steps STEP_SWEEP times larger: a smooth function's central difference barely moves, one across a pole
    or jump (divide_no_nan's 0 at 0, whose true derivative is infinite) grows like the inverse of the step and
    is no derivative at all. The resolution is the referee's alone, whatever the result's dtype: the sweep
    judges the float64 estimate."""
    part = part or _whole
    swept = estimator(program, STEP_SWEEP)
    if swept is None or swept[0].shape != estimate.shape:
        return np.zeros(estimate.shape, bool)
    with np.errstate(invalid="ignore"):
        return (np.abs(part(swept[0]) - estimate) <= _allowed(estimate, EXACT)) & ~(part(swept[1].astype(float)) != 0)


def _undefined_rows(targets: referee.Targets, method: str, dtype: str) -> np.ndarray:
    """The rows of the result (`referee.readout`) that weigh a target element that is not finite at the point
    (the function they differentiate is not defined there: a log of -1) or beyond the range of the result's
    dtype (a float16 norm of [65504, 60000] is infinite in float16), whatever the backend returns."""
    beyond = ~np.isfinite(_in_range(targets.t0, dtype))
    return (referee.readout(targets, method) != 0) @ beyond


def _through_unspecified_order(program: Program, source: str) -> bool:
    """Whether the source reaches an op whose repeated indices' updates apply in an order TF leaves
    unspecified (catalog trait UNSPECIFIED_ORDER): which update stays is no derivative."""
    reached = referee.depending_on(program, source)
    return any(isinstance(op, Op) and has_trait(op.path, UNSPECIFIED_ORDER)
               and any(referee.base_name(name) in reached for name in op.inputs) for op in walk(program.statements))


def _through_narrowing(program: Program, source: str) -> bool:
    """Whether the source reaches an op that computes in float32 whatever its input's dtype (catalog trait
    NARROWS): the float64 re-evaluation then holds float32 rounding, too coarse for a numerical derivative."""
    reached = referee.depending_on(program, source)
    return any(isinstance(op, Op) and has_trait(op.path, NARROWS)
               and any(referee.base_name(name) in reached for name in op.inputs) for op in walk(program.statements))


def _judged_part(program: Program, source: str, shape: tuple) -> Callable[[np.ndarray], np.ndarray]:
    """What of a gradient is judged: all of it; the Hermitian part (over the last two axes) where the source
    reaches an op that reads its input as Hermitian (catalog trait HERMITIAN_GRADIENT: it reads one triangle),
    whose gradient is Hermitian by TF's convention while the derivative along one element is not."""
    hermitian = len(shape) >= 2 and shape[-1] == shape[-2] and bool(hermitian_readers(program, source))
    return _hermitian_part if hermitian else _whole


def hermitian_readers(program: Program, source: str) -> set[str]:
    """The ops computed from the source that read their input as Hermitian (HERMITIAN_GRADIENT)."""
    reached = referee.depending_on(program, source)
    return {op.name for op in walk(program.statements) if isinstance(op, Op) and has_trait(op.path, HERMITIAN_GRADIENT)
            and any(referee.base_name(name) in reached for name in op.inputs)}


def _whole(array: np.ndarray) -> np.ndarray:
    return array


def _hermitian_part(matrix: np.ndarray) -> np.ndarray:
    return (matrix + np.conj(np.swapaxes(matrix, -1, -2))) / 2


def _allowed(estimate: np.ndarray, tolerance: Tolerance) -> np.ndarray:
    """The referee's rule (`referee._close`), element by element."""
    scale = max(1.0, float(np.max(np.abs(estimate), initial=0.0, where=np.isfinite(estimate))))
    return (max(referee.RESOLUTION, tolerance.relative) * np.abs(estimate)
            + max(referee.RESOLUTION, tolerance.absolute_scale) * scale)


def _beyond(value: np.ndarray, estimate: np.ndarray, tolerance: Tolerance) -> np.ndarray:
    with np.errstate(invalid="ignore"):
        return ~np.isfinite(value) & (value != estimate) | (np.abs(value - estimate) > _allowed(estimate, tolerance))


def rounding_reach(estimator: Estimator, program: Program, estimate: np.ndarray,
                   part: Callable[[np.ndarray], np.ndarray] | None = None) -> np.ndarray:
    """How far `estimate` (`estimator`'s at `program`, judged in `part`) moves when every floating leaf moves
    by a rounding of its dtype (its largest move over the probes, times ROUNDING_PROBE_FACTOR; infinite where a
    probe cannot be estimated)."""
    part = part or _whole
    generator = np.random.default_rng(0)
    reach = np.zeros(estimate.shape)
    for _ in range(ROUNDING_PROBES):
        moved = estimator(_rounded_leaves(program, generator), 1.0)
        if moved is None or moved[0].shape != estimate.shape:
            return np.full(estimate.shape, np.inf)
        with np.errstate(invalid="ignore"):
            reach = np.maximum(reach, np.where(part(moved[1].astype(float)) != 0, np.inf,
                                               np.abs(part(moved[0]) - estimate)))
    with np.errstate(over="ignore"):   # a reach past float's range is infinite
        return ROUNDING_PROBE_FACTOR * np.nan_to_num(reach, nan=np.inf, posinf=np.inf)


def _rounded_leaves(program: Program, generator: np.random.Generator) -> Program:
    """The program with each floating leaf's elements moved by ±ROUNDING_PROBE_ULPS ulps of its dtype."""
    def moved(s: Any) -> Any:
        if isinstance(s, Leaf) and is_floating(np.asarray(s.value).dtype):
            value = np.asarray(s.value)
            step = ROUNDING_PROBE_ULPS * epsilon(value.dtype) * generator.choice([-1.0, 1.0], value.shape)
            return replace(s, value=value.astype(np.complex128 if value.dtype.kind == "c" else np.float64) * (1 + step))
        if hasattr(s, "body"):
            return replace(s, body=[moved(t) for t in s.body])
        return s

    return replace(program, statements=[moved(s) for s in program.statements])


def _write(result: dict, corrected: np.ndarray, wrong: np.ndarray) -> None:
    """`result` (a tensor or IndexedSlices description) made to hold `corrected`; IndexedSlices keep their
    indices, the correction going to the first slice of each wrong row."""
    if result["kind"] != "indexed_slices":
        result["data"] = _data(corrected, result["dtype"])
        return
    values = result["values"]
    sliced = referee.decoded(values["data"], values["dtype"], values["shape"])
    dense, _ = _dense_value(result)
    first: dict[int, int] = {}
    for position, row in enumerate(np.asarray(result["indices"]["data"], np.int64).reshape(-1)):
        first.setdefault(int(row), position)
    for row, position in first.items():
        if wrong[row].any():
            sliced[position] += corrected[row] - dense[row]
    values["data"] = _data(sliced, values["dtype"])


def _data(array: np.ndarray, dtype: str) -> list:
    with np.errstate(over="ignore"):   # an estimate past the dtype's range is infinite in it
        return describe(array.astype(referee.numpy_dtype(dtype)), None)["data"]


def result_location(where: str) -> str:
    """The result a discrepancy's location belongs to (`calls/g1[0]` for `calls/g1[0].values`)."""
    return re.sub(r"\.(values|indices|dense_shape)$", "", where)
