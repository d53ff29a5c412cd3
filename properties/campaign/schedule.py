"""Coverage-guided scheduling (`--schedule coverage`): programs that exercise something the campaign has
exercised least run first; the others mostly wait.

The swarm draws each program as it always does (so a saved example still replays to the same program), and
before the program runs, its features (`findings.store.features`: op x dtype pairs, tape option values, an
op's categorical attribute values, an op's input at one of its special points) are looked up in the campaign's
own coverage, counted over every worker's `coverage.jsonl` lines as they are written. A program is
favoured when one of its features is rare: never exercised, or fewer times than RARE_SHARE of the median
count of the features of its kind. A program that is not favoured runs at RUN_UNFAVOURED, decided by a hash
of its text and the batch's seed (the same program makes the same decision in the same batch). Early on
every feature is rare and every program runs, so special points and attribute values are met early; as the
common ones pile up, the rare ones get the time.
"""

from __future__ import annotations

import hashlib
import json
import statistics
from collections import Counter
from pathlib import Path

from reftape_properties.findings.store import coverage_summary

RARE_SHARE = 0.5        # a feature exercised fewer times than this share of its kind's median count is rare
RUN_UNFAVOURED = 0.1    # the chance that a program exercising nothing rare runs anyway


class CoverageTally:
    """The counts of every feature the campaign's programs have exercised (`coverage_summary`'s kinds), read from
    `coverage.jsonl` as it grows (a line still being written is left for the next read)."""

    def __init__(self, path: Path) -> None:
        self.path, self.offset = path, 0
        self.counts: dict[str, Counter] = coverage_summary([])
        self.bars = dict.fromkeys(self.counts, 0.0)

    def catch_up(self) -> None:
        if not self.path.exists():
            return
        with self.path.open("rb") as lines:
            lines.seek(self.offset)
            text = lines.read()
        complete = text[:text.rfind(b"\n") + 1]
        if not complete:
            return
        self.offset += len(complete)
        for kind, counts in coverage_summary(json.loads(line) for line in complete.decode().splitlines()).items():
            self.counts[kind].update(counts)
        self.bars = {kind: RARE_SHARE * statistics.median(counts.values()) if counts else 0.0
                     for kind, counts in self.counts.items()}

    def favours(self, exercised: dict) -> bool:
        """Whether the program exercises a rare feature (its lines read first)."""
        self.catch_up()
        return any(self.counts[kind][key] < max(1.0, self.bars[kind])
                   for kind, keys in coverage_summary([exercised]).items() for key in keys)

    def admits(self, exercised: dict, program_text: str, batch_seed: int) -> bool:
        """Whether the program runs: it is favoured, or wins its RUN_UNFAVOURED draw."""
        return self.favours(exercised) or runs_anyway(program_text, batch_seed)


def runs_anyway(program_text: str, batch_seed: int) -> bool:
    """The RUN_UNFAVOURED draw of an unfavoured program, fixed by its text and the batch's seed."""
    digest = hashlib.sha256(f"{batch_seed}:{program_text}".encode()).digest()
    return int.from_bytes(digest[:8], "big") < RUN_UNFAVOURED * 2**64
