"""What the parent shows while a campaign runs: counters absorbed from the workers, one live display."""

from __future__ import annotations

import dataclasses
import os
import sys
import time
from dataclasses import dataclass

from reftape_properties.campaign.configuration import PROG
from reftape_properties.campaign.workers import Counters


@dataclass
class Progress:
    started: float
    examples: int = 0
    passed_over: int = 0                                       # by the coverage schedule
    first_ready: float | None = None
    last_example: float | None = None
    findings: dict = dataclasses.field(default_factory=dict)   # kind -> count (this run)
    suspects: dict = dataclasses.field(default_factory=dict)   # suspect op -> explained findings
    unexplained: int = 0
    known: int = 0
    replayed: int = 0
    harness_error: str | None = None
    interrupted: bool = False
    stopped_by: str | None = None                              # the signal that interrupted it
    deaths: list = dataclasses.field(default_factory=list)     # WorkerDeath, in order
    # Time to detection: seconds from the start and examples begun when the first unexplained finding was made
    first_unexplained: dict | None = None

    @property
    def rate(self) -> float:
        """Examples per second from the first worker ready (TensorFlow loaded) to the end of the last
        example, both as the workers timed them (the parent looks only every 0.2 s)."""
        if self.first_ready is None or self.last_example is None:
            return 0.0
        elapsed = self.last_example - self.first_ready
        return self.examples / elapsed if elapsed > 0 else 0.0

    def count(self, counters: Counters) -> None:
        self.examples = counters.examples.value
        self.passed_over = counters.passed_over.value
        if counters.last_finished.value:
            self.last_example = counters.last_finished.value

    def line(self) -> str:
        kinds = ", ".join(f"{kind} {n}" for kind, n in sorted(self.findings.items())) or "none"
        suspects = ", ".join(f"{op} {n}" for op, n in sorted(self.suspects.items()))
        over = f" ({self.passed_over} passed over)" if self.passed_over else ""
        return (f"{self.examples} examples{over}, {self.rate:.1f}/s, findings: {kinds}"
                + (f" ({self.replayed} replayed)" if self.replayed else "") + (f"; suspects: {suspects}" if suspects else ""))

    def absorb(self, event: tuple) -> None:
        what, detail, value = event
        if what == "ready" and self.first_ready is None:
            self.first_ready = value  # the worker's clock: CLOCK_MONOTONIC is the machine's, not the process's
        elif what in ("finding", "replayed"):
            known, detected = value
            self.findings[detail] = self.findings.get(detail, 0) + 1
            self.known += bool(known)
            self.unexplained += not known
            self.replayed += what == "replayed"
            if not known and detected and (self.first_unexplained is None
                                           or detected["seconds"] < self.first_unexplained["seconds"]):
                self.first_unexplained = detected
        elif what == "explained":
            self.suspects[detail] = self.suspects.get(detail, 0) + 1
        elif what == "harness" and self.harness_error is None:
            self.harness_error = detail


class Display:
    """rich's live display on a terminal; plain lines every few seconds otherwise or with NO_COLOR."""

    PLAIN_EVERY = 5.0

    def __init__(self) -> None:
        self.live = None
        self.last_plain = 0.0
        if sys.stdout.isatty() and not os.environ.get("NO_COLOR"):
            from rich.live import Live

            self.live = Live("starting workers (loading TensorFlow)...", refresh_per_second=4, transient=False)
            self.live.start()

    def show(self, progress: Progress, final: bool = False) -> None:
        if self.live is not None:
            from rich.table import Table

            table = Table(title=PROG, title_justify="left")
            for column in ("examples", "per second", "seconds", "findings by kind"):
                table.add_column(column, justify="left" if column.startswith("findings") else "right")
            kinds = ", ".join(f"{kind} {n}" for kind, n in sorted(progress.findings.items())) or "none"
            table.add_row(str(progress.examples), f"{progress.rate:.1f}",
                          f"{time.monotonic() - progress.started:.0f}", kinds)
            self.live.update(table)
        elif final or time.monotonic() - self.last_plain >= self.PLAIN_EVERY:
            self.last_plain = time.monotonic()
            print(f"{PROG}: {progress.line()}", flush=True)

    def note(self, line: str) -> None:
        """One line that stays above the live display."""
        if self.live is not None:
            self.live.console.print(f"{PROG}: {line}")
        else:
            print(f"{PROG}: {line}", flush=True)

    def close(self) -> None:
        if self.live is not None:
            self.live.stop()
