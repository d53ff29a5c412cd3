"""The one pipeline: `evaluate` runs a program on a candidate and on the reference, compares the two
outcomes, referees value mismatches and marks known divergences, and returns a `Finding` (or None
when they agree). The pytest property, the fuzz command, replay, minimisation and the reports all
call it; nothing else re-implements any of its steps.
"""

from __future__ import annotations

import functools
from typing import Any, Callable

from reftape_oracle.outcome import HarnessError, Outcome
from reftape_oracle.program import Program

from reftape_properties.findings.record import SELF_CHECKS, Finding
from reftape_properties.judge.compare import PROGRAM_HARNESS_EXCEPTIONS, compare
from reftape_properties.judge.forward import FORWARD, forward_outcome
from reftape_properties.judge.function import FUNCTION, mode_discrepancies
from reftape_properties.judge.known import Evidence, explained_by
from reftape_properties.judge.numeric import (NUMERIC, forgive_precision, numeric_outcome, result_location, widened,
                                              wrong_verdict)
from reftape_properties.judge.referee import flat_decimals, referee

# The properties a program can be checked for: the reference each evaluates against, and what it checks.
CHECKS = {
    "differential": ("tensorflow", "the candidate against TensorFlow"),
    NUMERIC: (NUMERIC, "the candidate's gradients against a float64 numerical derivative"),
    FORWARD: (FORWARD, "the candidate's forward mode (jvp) against its reverse mode, a numerical derivative deciding"),
    FUNCTION: (FUNCTION, "the candidate eager against the same program traced in tf.function, a numerical "
                         "derivative deciding"),
}


def judged(finding: Finding) -> Finding:
    """Fills in the referee's verdict on each value discrepancy of `finding`; returns it. A numeric check's
    finding has its verdicts already: its reference is the numerical derivative (a forward check's too)."""
    if finding.reference in SELF_CHECKS:
        return finding
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


def _unjudged(outcome: Outcome, check: str) -> str | None:
    """Why a numeric or forward check has nothing to judge, when that is no property of the program: the
    candidate, its only side, lacks a name the program uses (a silent agreement otherwise)."""
    error = outcome.error or {}
    if error.get("kind") == "missing":
        return f"{outcome.backend} lacks {', '.join(error['names'])}: the {check} check has nothing to judge"
    return None


def evaluate_checks(program: Program, candidate: Any, checks: tuple | list, **options: Any) -> Finding | None:
    """The first finding `program` makes under `checks` (names of CHECKS, in order), or None when it passes
    them all; `options` as `evaluate`'s."""
    for check in checks:
        finding = evaluate(program, candidate, CHECKS[check][0], **options)
        if finding is not None:
            return finding
    return None


def run_sides(program: Program, candidate: Any, reference: Any, time_limit: float | None = None,
              isolated: bool = False) -> tuple[Outcome, Outcome]:
    """(expected, actual): the reference's outcome and the candidate's. With `reference` NUMERIC (the numeric
    check) the candidate alone runs, and the expected outcome is its own with an exact derivative's gradients
    where its are wrong (judge/numeric.py); with FUNCTION, the candidate's eager outcome and its traced one
    (judge/function.py). Never raises for what a side did."""
    expected, actual, _, _ = _sides(program, candidate, reference, time_limit, isolated)
    return expected, actual


def _sides(program: Program, candidate: Any, reference: Any, time_limit: float | None,
           isolated: bool) -> tuple[Outcome, Outcome, dict, Program | None]:
    """`run_sides`' outcomes, a numeric or forward check's estimates of the results it changed (empty
    otherwise), and the reverse twin a forward check found the reverse mode wrong in (else None)."""
    if reference == FUNCTION:
        (expected,), (actual,) = (_outcomes(program, [candidate], time_limit, isolated, traced) for traced in (False, True))
        return expected, actual, {}, None
    if reference in SELF_CHECKS:
        (actual,) = _outcomes(program, [candidate], time_limit, isolated)
        if reference == NUMERIC:
            expected, estimates = numeric_outcome(program, actual)
            wide = widened(program) if estimates else None
            if wide is not None:   # judged wrong in a narrow dtype: wrong in float64 too, or the dtype's doing
                forgive_precision(program, expected, actual, estimates,
                                  _outcomes(wide, [candidate], time_limit, isolated)[0])
            return expected, actual, estimates, None
        judgement = forward_outcome(program, actual, candidate, time_limit)
        return judgement.expected, actual, judgement.estimates, judgement.reverse_wrong
    expected, actual = _outcomes(program, [reference, candidate], time_limit, isolated)
    return expected, actual, {}, None


def _outcomes(program: Program, sides: list, time_limit: float | None, isolated: bool,
              traced: bool = False) -> list[Outcome]:
    from reftape_oracle.interpreter import DEFAULT_TIME_LIMIT, run_each
    from reftape_oracle.isolated import run_isolated

    limit = DEFAULT_TIME_LIMIT if time_limit is None else time_limit
    if isolated:
        return [run_isolated(program, _name(side), limit, traced) for side in sides]
    return run_each(program, sides, limit, traced)


def forward_judge(candidate: Any, reference: Any) -> Any:
    """The backend whose forward values the reference side stands for: the candidate's own in a numeric or
    forward check."""
    return candidate if reference in SELF_CHECKS else reference


def evaluate(program: Program, candidate: Any = "reftape", reference: Any = "tensorflow", *,
             time_limit: float | None = None, judge: bool = True, isolated: bool = False) -> Finding | None:
    """Runs `program` on both sides (`run_sides`) and returns the Finding they make, or None when they agree.

    Raises HarnessError when either side could not run the program for reasons of the harness (a
    backend that cannot be imported, generated code that does not compile): that is never an
    agreement. `judge=False` skips the referee (for the many evaluations minimisation makes).
    `isolated` runs each side in a process of its own (backends named by module), where dying or
    hanging in native code becomes the side's outcome. A numeric check's discrepancies carry their
    verdict (the candidate is wrong) and the estimate; a forward check that finds the reverse mode wrong
    returns the numeric check's finding on the program's reverse twin (judge/forward.py). A function check's
    discrepancies are the differences between the candidate's eager and traced runs that make a finding,
    with the referee's verdicts (judge/function.py)."""
    self_check = reference in SELF_CHECKS
    expected, actual, estimates, reverse_wrong = _sides(program, candidate, reference, time_limit, isolated)
    failures = [f for f in (_unjudged(actual, reference) if self_check else _harness_failure(expected, reference=True),
                            _harness_failure(actual)) if f]
    if failures:
        raise HarnessError("; ".join(failures))
    if reverse_wrong is not None:
        return evaluate(reverse_wrong, candidate, NUMERIC, time_limit=time_limit, judge=judge, isolated=isolated)
    found = compare(expected, actual, program)
    if reference == FUNCTION:
        found = mode_discrepancies(program, found, expected, actual, _name(candidate))
    if not found:
        return None
    if reference in (NUMERIC, FORWARD):
        _blame_candidate(found, candidate, estimates)
    else:
        evidence = Evidence(program, expected, actual, candidate,
                            fresh_expected=None if isolated else _in_a_fresh_process(program, reference, time_limit))
        for d in found:
            known = explained_by(d, evidence)
            d.known = known.number if known else None
    finding = Finding(program, expected, actual, found, candidate=_name(candidate), reference=_name(reference))
    return judged(finding) if judge and not self_check and not finding.crashed else finding


def _in_a_fresh_process(program: Program, reference: Any, time_limit: float | None) -> Callable[[], Outcome]:
    """The reference's outcome of `program` in a process of its own, computed at the first call (a matcher asks
    when the reference's first outcome may depend on what its process ran before)."""
    return functools.cache(lambda: _outcomes(program, [reference], time_limit, isolated=True)[0])


def _blame_candidate(found: list, candidate: Any, estimates: dict) -> None:
    """A numeric or forward check's verdicts: the candidate's gradient (or jvp) is wrong; with the estimate it
    differs from."""
    for d in found:
        d.verdict = wrong_verdict(_name(candidate))
        estimate = estimates.get(result_location(d.where))
        d.estimate = None if estimate is None else flat_decimals(estimate)


def _name(backend: Any) -> str:
    return backend if isinstance(backend, str) else backend.__name__
