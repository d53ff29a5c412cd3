"""The differential property: a program's outcome on the candidate equals TensorFlow's.

`check_program` calls the one pipeline (`findings.evaluate`) without the referee, because
Hypothesis calls it again for every shrinking step. A disagreement raises `Disagreement`, which
carries its Finding; the pytest plugin (`pytest_plugin.py`) referees and records only the Finding
of the example Hypothesis finally reports. Discrepancies explained by a known divergence are
accepted. A disagreement's message leads with what differs, in a few lines; the program itself is in the
record (discrepancies.jsonl), which the message names.
"""

from __future__ import annotations

import os
from pathlib import Path

from reftape_oracle.program import Program

from reftape_properties.findings.record import Finding
from reftape_properties.judge.compare import Discrepancy, readable
from reftape_properties.pipeline import evaluate
from reftape_properties.findings.store import record_coverage, report_dir

CANDIDATE = os.environ.get("REFTAPE_CANDIDATE", "reftape")
# The differential properties are the fuzz detector: they draw this many times the profile's examples
# (a program costs tens of milliseconds; raising the examples is what finds rarer bugs, issue 7).
EXAMPLES_FACTOR = 5
LISTED = 8          # discrepancies a failure message lists; the record holds every one
SIDE_WIDTH = 160    # characters of each side's value in a message line


class Disagreement(AssertionError):
    """The candidate disagrees with TensorFlow on a program; `.finding` says how."""

    def __init__(self, finding: Finding) -> None:
        self.finding = finding
        super().__init__(failure_message(finding))


def failure_message(finding: Finding, report: Path | None = None) -> str:
    """What differs, first and in a few lines (values in decimal, the referee's verdicts once judged), then
    where the program and every discrepancy are recorded and how to replay them."""
    differing = finding.unexplained
    suspect = f", first diverging at op {finding.suspect}" if finding.suspect else ""
    lines = [f"{finding.candidate} disagrees with {finding.reference} on a program of {len(finding.program.ops())} ops"
             f" ({len(differing)} discrepancies{suspect}):"]
    lines += ["  " + discrepancy_line(d, finding) for d in differing[:LISTED]]
    if len(differing) > LISTED:
        lines.append(f"  ... and {len(differing) - LISTED} more, in the record")
    records = (report or report_dir()) / "discrepancies.jsonl"
    lines.append(f"The program and every discrepancy: finding {finding.id} in {records}")
    lines.append(f"Replay it: reftape-replay {records} --id {finding.id}")
    return "\n".join(lines)


def discrepancy_line(d: Discrepancy, finding: Finding) -> str:
    verdict = f" [referee: {d.verdict}]" if d.verdict else ""
    return (f"{d.kind} at {d.where}{d.measured()}: {finding.reference} {readable(d.expected, SIDE_WIDTH)}"
            f" vs {finding.candidate} {readable(d.actual, SIDE_WIDTH)}{verdict}")


def check_program(program: Program, candidate: str | None = None) -> None:
    """Asserts that `candidate` agrees with TensorFlow on `program` (known divergences aside)."""
    record_coverage(program)
    finding = evaluate(program, candidate or CANDIDATE, judge=False)
    if finding is not None and not finding.known:
        raise Disagreement(finding)
