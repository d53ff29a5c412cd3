"""Clusters of findings: one root cause shows as one cluster, not as many discrepancies.

Findings group by `Finding.signature()`: the cause, whatever the program's dtype and options (what the
candidate lacks; a tape option it mishandles; or the suspect op, the kind of difference, the stage where
the sides part and who else the referee blames). A finding
that was explained has a second record, its explained form (the suspect op named and, usually, the
program minimised), linked back to it by its `explained_from`; the pair counts once, under
the signature of the explained form, since only that one names the suspect op. An explained form
that was not minimised itself, because a minimal finding of its signature already existed, names
that minimal finding by its `covered_by` and joins its cluster (a verdict the search did not need may
differ, so the two signatures may). A cluster keeps its count, its members' ids and its
smallest program (fewest statements), the one to read first.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable

from reftape_oracle.program import walk

from reftape_properties.findings.record import Finding

# The order a reader acts in: the referee blames the candidate; a definite difference no referee weighs
# (an exception, a None against a value, another dtype: verdict None); then TensorFlow or nobody is to blame.
VERDICT_ORDER = ("candidate-wrong", None, "both-wrong", "tensorflow-wrong", "ill-conditioned", "undecided")


@dataclass
class Cluster:
    signature: str
    smallest: Finding                        # the member with the fewest statements (explained forms preferred)
    ids: list[str] = field(default_factory=list)   # ids of the findings found (not of their explained forms)

    @property
    def count(self) -> int:
        return len(self.ids)

    @property
    def verdict(self) -> str | None:
        return self.smallest.primary.verdict

    @property
    def known(self) -> bool:
        """Every discrepancy is explained by a reviewed known divergence."""
        return self.smallest.known


def size(finding: Finding) -> int:
    """How big a finding's program is: its statements at every depth."""
    return sum(1 for _ in walk(finding.program.statements))


def explained_forms(findings: Iterable[Finding]) -> dict[str, Finding]:
    """Each found finding's id mapped to its most explained record: its explained form when it has one."""
    findings = list(findings)
    explained = {f.explained_from: f for f in findings if f.explained_from}
    return {f.id: explained.get(f.id, f) for f in findings if not f.explained_from}


def cluster(findings: Iterable[Finding]) -> list[Cluster]:
    """Clusters of `findings`, unexplained ones first, then by verdict (VERDICT_ORDER), decreasing count and
    increasing size of the smallest program."""
    findings = list(findings)
    by_id = {f.id: f for f in findings}
    clusters: dict[str, Cluster] = {}
    for found_id, form in explained_forms(findings).items():
        signature = by_id.get(form.covered_by, form).signature()
        entry = clusters.setdefault(signature, Cluster(signature, form))
        entry.ids.append(found_id)
        if size(form) < size(entry.smallest):
            entry.smallest = form
    return sorted(clusters.values(), key=_reading_order)


def _reading_order(c: Cluster) -> tuple:
    rank = VERDICT_ORDER.index(c.verdict) if c.verdict in VERDICT_ORDER else len(VERDICT_ORDER)
    return c.known, rank, -c.count, size(c.smallest), c.signature
