"""The differential property: a program's outcome on the candidate equals TensorFlow's.

Every discrepancy is refereed and recorded (properties/recording.py) before the check fails, so a
failing run leaves its findings behind; discrepancies explained by a known divergence are recorded
but accepted.
"""

from __future__ import annotations

import os

from .compare import compare
from .known import explained_by
from .program import Program
from .recording import record_coverage, record_discrepancies
from .referee import referee

CANDIDATE = os.environ.get("REFTAPE_CANDIDATE", "reftape")


def _hypothesis_context() -> tuple[bool, str | None]:
    """(whether this is Hypothesis's final, reported run of the example, its reproduction blob)."""
    try:
        import hypothesis
        from hypothesis.control import current_build_context
        from hypothesis.core import encode_failure

        context = current_build_context()
    except Exception:  # noqa: BLE001 - not inside a Hypothesis test
        return True, None
    blob = encode_failure(context.data.choices)
    return context.is_final, f"@reproduce_failure({hypothesis.__version__!r}, {blob!r})"


def check_program(program: Program, candidate: str = CANDIDATE) -> None:
    """Asserts that `candidate` agrees with TensorFlow on `program` (known divergences aside)."""
    from oracle import run

    expected, actual = run(program, "tensorflow"), run(program, candidate)
    found = compare(expected, actual, program)
    record_coverage(program)
    final, blob = _hypothesis_context()
    if found and final:  # shrinking's intermediate failures are neither refereed nor recorded; the reported one is
        referee(program, found, expected, actual)
        record_discrepancies(program, found, expected, actual, os.environ.get("PYTEST_CURRENT_TEST", ""), blob)
    unexplained = [d for d in found if explained_by(d) is None]
    assert not unexplained, "\n".join(
        [f"{d.kind} at {d.where} (verdict: {d.verdict}): TF {str(d.expected)[:200]} vs {candidate} "
         f"{str(d.actual)[:200]}" for d in unexplained] + ["", program.to_source()])
