"""The one pipeline: `evaluate` runs a program on a candidate and on the reference, compares the two
outcomes, referees value mismatches and marks known divergences, and returns a `Finding` (or None
when they agree). The pytest property, the fuzz command, replay, minimisation and the reports all
call it; nothing else re-implements any of its steps.
"""

from __future__ import annotations

from typing import Any

from reftape_oracle.outcome import HarnessError, Outcome
from reftape_oracle.program import Program

from reftape_properties.findings.record import Finding
from reftape_properties.judge.compare import PROGRAM_HARNESS_EXCEPTIONS, compare
from reftape_properties.judge.known import Evidence, explained_by
from reftape_properties.judge.referee import referee


def judged(finding: Finding) -> Finding:
    """Fills in the referee's verdict on each value discrepancy of `finding`; returns it."""
    referee(finding.program, finding.discrepancies, finding.expected, finding.actual)
    return finding


def _harness_failure(outcome: Outcome, reference: bool = False) -> str | None:
    """Why a side could not run the program, when the harness (not the program) is to blame. The
    reference lacking a name or timing out leaves nothing to judge against: never an agreement."""
    error = outcome.error or {}
    if error.get("kind") == "harness" or reference and error.get("kind") == "timeout":
        return f"{outcome.backend}: {error['message']}"
    if reference and error.get("kind") == "missing":
        return f"{outcome.backend} (the reference) lacks {', '.join(error['names'])}"
    if reference and error.get("kind") == "exception" and error["class"] in PROGRAM_HARNESS_EXCEPTIONS:
        return f"{outcome.backend} (the reference) raised {error['class']} outside the code under test: {error['message']}"
    return None


def evaluate(program: Program, candidate: Any = "reftape", reference: Any = "tensorflow", *,
             time_limit: float | None = None, judge: bool = True, isolated: bool = False) -> Finding | None:
    """Runs `program` on both sides and returns the Finding they make, or None when they agree.

    Raises HarnessError when either side could not run the program for reasons of the harness (a
    backend that cannot be imported, generated code that does not compile): that is never an
    agreement. `judge=False` skips the referee (for the many evaluations minimisation makes).
    `isolated` runs each side in a process of its own (backends named by module), where dying or
    hanging in native code becomes the side's outcome."""
    from reftape_oracle.interpreter import DEFAULT_TIME_LIMIT, run_each
    from reftape_oracle.isolated import run_isolated

    limit = DEFAULT_TIME_LIMIT if time_limit is None else time_limit
    if isolated:
        expected, actual = (run_isolated(program, _name(side), limit) for side in (reference, candidate))
    else:
        expected, actual = run_each(program, [reference, candidate], limit)
    failures = [f for f in (_harness_failure(expected, reference=True), _harness_failure(actual)) if f]
    if failures:
        raise HarnessError("; ".join(failures))
    found = compare(expected, actual, program)
    if not found:
        return None
    evidence = Evidence(program, expected, actual, candidate)
    for d in found:
        known = explained_by(d, evidence)
        d.known = known.number if known else None
    finding = Finding(program, expected, actual, found, candidate=_name(candidate), reference=_name(reference))
    return judged(finding) if judge and not finding.crashed else finding


def _name(backend: Any) -> str:
    return backend if isinstance(backend, str) else backend.__name__
