"""The function check: one backend's eager run of a program against the same program traced in one
`tf.function` (oracle/traced.py: what a user gets by decorating the step), a numerical derivative deciding
which of the two is wrong.

Both modes run the same ops on the same kernels, but a traced program is a graph: gradients come from the
graph's gradient functions (a `while_loop` becomes a While op differentiated as one, not its unrolled
iterations), jacobians are vectorized in the graph, and TF's graph optimiser may rewrite and fold it.
- Compared: the forward values and the results of gradient, jacobian and jvp calls both modes computed, by
  the comparison's tolerances (`compare`): values, dtypes, shapes, structures. Not whether a gradient is
  IndexedSlices or dense, which each mode chooses its own way (a graph's gradient aggregation densifies a sum of
  slices that eager keeps as slices); not `watched_variables()`, which is no derivative and differs by TF's design: eagerly, a gradient
  call taken with unconnected zeros inside a recording tape reads (so watches) its Variable sources; traced,
  it does not.
- Not compared: exceptions, and None against a value. The modes raise differently by design: a
  non-persistent tape's jacobian without pfor raises in eager only, a kernel's error stops a traced program
  as a whole, trace-time errors are wrapped; where either mode raised (a call, or the program) there is
  nothing the other can be held to. And they connect differently by design: unconnected zeros are a
  ZerosLike op of the source eagerly, which a recording tape tracks, and a constant in a graph, which no tape
  tracks, so a later gradient by them is a value in one mode and None in the other.
- Rounding at overflow: an infinity in one mode where the other holds a finite value of its sign within the
  tolerance of the dtype's largest finite value is no finding when the rest of the result agrees
  (tolerance.rounds_to_overflow: the graph's rewritten sums round past it where eager does not).
- Verdicts: a floating gradient result where the modes differ is judged by the referee, the eager result in
  its reference's place. Where either mode is beyond the estimate the backend is wrong (the finding's
  expected side is eager, its actual side traced, and the estimate shows which). Where both are within it,
  the estimate is ill-conditioned, or the referee cannot estimate the result (a source made by another call,
  a custom gradient), the difference is rounding, a subgradient or undecidable, and no finding. A forward
  value has no verdict: a difference beyond the tolerance is a finding as it stands, as are a dtype, a shape or
  a structure that differ.

The check needs a backend whose `function` traces: one that runs its body on every call gives the eager
computation twice and could never disagree (`traces_functions`); the campaign refuses it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from reftape_oracle.outcome import Outcome, decode_array
from reftape_oracle.program import Program, WatchedVariables, walk

from reftape_properties.judge.compare import Discrepancy
from reftape_properties.judge.numeric import wrong_verdict
from reftape_properties.judge.referee import base_name, referee
from reftape_properties.judge.tolerance import Tolerance, compare_arrays, rounds_to_overflow

FUNCTION = "function"   # the reference a function check's findings name
NOT_COMPARED = ("exception", "none-vs-value", "indexed-slices-vs-dense")   # what the modes differ in by design
NOT_FOUND = ("ill-conditioned", "undecided")   # verdicts of a judged difference that is no finding
WRONG = ("candidate-wrong", "tensorflow-wrong", "both-wrong")


def mode_discrepancies(program: Program, found: list[Discrepancy], eager: Outcome, traced: Outcome,
                       backend: str) -> list[Discrepancy]:
    """The discrepancies of `found` (eager against traced) that make a finding, with their verdicts (see the
    module docstring)."""
    if _stopped_by_exception(eager) or _stopped_by_exception(traced):
        return []
    listings = {f"calls/{s.name}" for s in walk(program.statements) if isinstance(s, WatchedVariables)}
    compared = [d for d in found if d.kind not in NOT_COMPARED and base_name(d.where) not in listings
                and not _rounding_at_overflow(d)]
    referee(program, compared, eager, traced)
    kept = []
    for d in compared:
        if d.verdict in NOT_FOUND:
            continue
        if d.verdict in WRONG:
            d.verdict = wrong_verdict(backend)
        kept.append(d)
    return kept


def _rounding_at_overflow(d: Discrepancy) -> bool:
    """A NaN/inf pattern whose only differences are infinities against finite values that round to them (real
    dtypes), the rest within the tolerance."""
    if d.kind != "nan-inf-pattern" or d.tolerance is None or (d.dtype or "").startswith("complex"):
        return False
    eager, traced = decode_array(d.expected), decode_array(d.actual)
    tolerance = Tolerance(**d.tolerance)
    overflow = rounds_to_overflow(eager, traced, tolerance) | rounds_to_overflow(traced, eager, tolerance)
    if not overflow.any():
        return False
    finite = np.where(np.isfinite(eager), eager, traced)
    return compare_arrays(np.where(overflow, finite, eager), np.where(overflow, finite, traced), tolerance) is None


def _stopped_by_exception(outcome: Outcome) -> bool:
    return (outcome.error or {}).get("kind") == "exception"


def traces_functions(backend: Any) -> bool:
    """Whether the backend's `function` traces: a body called twice with tensors of one signature runs its
    Python once."""
    runs = []

    def body(x):
        runs.append(1)
        return x

    try:
        traced = backend.function(body)
        traced(backend.constant(1.0))
        traced(backend.constant(2.0))
    except Exception:  # noqa: BLE001 - a backend whose function cannot run this does not trace as TF does
        return False
    return len(runs) == 1
