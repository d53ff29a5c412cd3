"""The differential property: a program's outcome on the candidate equals TensorFlow's.

`check_program` calls the one pipeline (`findings.evaluate`) without the referee, because
Hypothesis calls it again for every shrinking step. A disagreement raises `Disagreement`, which
carries its Finding; the pytest plugin (`pytest_plugin.py`) referees and records only the Finding
of the example Hypothesis finally reports. Discrepancies explained by a known divergence are
accepted.
"""

from __future__ import annotations

import os

from reftape_oracle.program import Program

from reftape_properties.findings.record import Finding
from reftape_properties.pipeline import evaluate
from reftape_properties.findings.store import record_coverage

CANDIDATE = os.environ.get("REFTAPE_CANDIDATE", "reftape")
# The differential properties are the fuzz detector: they draw this many times the profile's examples
# (a program costs tens of milliseconds; raising the examples is what finds rarer bugs, issue 7).
EXAMPLES_FACTOR = 5


class Disagreement(AssertionError):
    """The candidate disagrees with TensorFlow on a program; `.finding` says how."""

    def __init__(self, finding: Finding) -> None:
        self.finding = finding
        lines = [f"{d.kind} at {d.where}: TF {str(d.expected)[:200]} vs {finding.candidate} {str(d.actual)[:200]}"
                 for d in finding.unexplained]
        super().__init__("\n".join(lines + ["", finding.program.to_source()]))


def check_program(program: Program, candidate: str | None = None) -> None:
    """Asserts that `candidate` agrees with TensorFlow on `program` (known divergences aside)."""
    record_coverage(program)
    finding = evaluate(program, candidate or CANDIDATE, judge=False)
    if finding is not None and not finding.known:
        raise Disagreement(finding)
