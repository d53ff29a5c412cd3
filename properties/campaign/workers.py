"""Worker processes: each loads TensorFlow once, draws programs with Hypothesis, runs each through
the one pipeline and records every finding the moment it is found. Explaining a finding (its first
divergence, a minimised program) costs up to hundreds of evaluations, so it waits until fuzzing is over
(`Campaign.explain_budget`): the workers spend the whole budget finding bugs. Then they share one queue
of the campaign's findings (`explain_queue`), so a worker that found little helps one that found much,
and what another worker has named already waits behind what nobody has (`explaining_order`)."""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import math
import os
import signal
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

from reftape_oracle.interpreter import FlightRecorder
from reftape_properties.campaign.configuration import BATCH, Campaign
from reftape_properties.campaign.database import example_database
from reftape_properties.cli import STOP_SIGNALS, StopSignals, import_backend
from reftape_properties.judge.forward import FORWARD
from reftape_properties.campaign.schedule import CoverageTally
from reftape_properties.findings.store import features, read_findings, record_coverage, record_finding


class _Found(Exception):
    """Raised in the Hypothesis test for an unexplained finding, so that Hypothesis saves it."""


@contextlib.contextmanager
def _quiet_stderr() -> Iterator[None]:
    """Silences file descriptor 2 (where native code logs) for the duration of the block."""
    sys.stderr.flush()
    saved, null = os.dup(2), os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 2)
    try:
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(null)


def _batch_seed(campaign: Campaign, worker: int, batch: int, restart: int = 0) -> int:
    """Distinct per worker, batch and restart of the worker (one that died is not given the program
    that killed it again); congruent to K-1 modulo N on shard K/N, so shards never share one."""
    k, n = campaign.shard
    key = f"{campaign.seed}:{worker}:{batch}" + (f":{restart}" if restart else "")
    digest = int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big")
    return digest * n + k - 1


@dataclass(frozen=True)
class Counters:
    """What the workers share with the parent: examples begun (the budget counts them before they
    run), when the latest one finished and, per worker, when the program it is running must have
    finished (0 when none runs), on the machine's monotonic clock."""

    examples: Any
    last_finished: Any
    deadlines: Any
    fuzzing_over: Any   # an Event: the fuzzing budget is spent, explain what was found
    started: Any        # when the campaign started
    passed_over: Any    # programs the coverage schedule left out (schedule.py)

    def detected(self) -> dict:
        """When a finding is made: seconds since the campaign started, and examples begun (its time to detection)."""
        return {"seconds": round(time.monotonic() - self.started.value, 2), "examples": self.examples.value}


def in_flight_file(report: Path, worker: int) -> Path:
    """Where worker `worker` writes each program before it runs it."""
    return report / "in-flight" / f"worker-{worker}.json"


class _InFlight(FlightRecorder):
    """A worker's flight recorder: the program it runs, in a file the parent reads if the worker dies
    or hangs in native code, and the time by which that program must have finished."""

    GRACE = 10.0   # seconds past the program's own time limits

    def __init__(self, path: Path, deadlines: Any, index: int) -> None:
        self.path, self.deadlines, self.index = path, deadlines, index
        path.parent.mkdir(parents=True, exist_ok=True)

    def began(self, program: Any, seconds: float | None) -> None:
        self.path.write_text(program.to_json())
        self.deadlines[self.index] = time.monotonic() + seconds + self.GRACE if seconds else math.inf

    def ended(self) -> None:
        self.deadlines[self.index] = 0.0


class _Worker:
    """One process of a campaign: its backend, its share of the budget and what it has found."""

    def __init__(self, campaign: Campaign, index: int, restart: int, deadly: frozenset[str], events: Any,
                 stop: Any, counters: Counters, signals: StopSignals) -> None:
        from reftape_oracle.interpreter import record_flights
        from reftape_oracle.tensorflow import load_tensorflow

        self.campaign, self.index, self.restart = campaign, index, restart
        self.deadly = deadly   # programs (JSON text) a worker of this campaign died running: never again
        self.events, self.stop, self.counters, self.signals = events, stop, counters, signals
        self.report = Path(campaign.report)
        record_flights(_InFlight(in_flight_file(self.report, index), counters.deadlines, index))
        with _quiet_stderr():  # TensorFlow's C++ start-up lines, once per worker
            load_tensorflow()  # once per process: every program after the first finds TensorFlow warm
        self.backend = import_backend(campaign.backend)
        recorded = self.report / "discrepancies.jsonl"
        # Programs by their JSON text: those already recorded in the directory, those failing in this process.
        self.recorded = {f.program.to_json() for f in read_findings(recorded)} if recorded.exists() else set()
        self.failing: dict[str, int] = {}      # program text -> the batch that found it failing
        self.minimal_of: dict[str, str] = {}   # signature -> id of the minimal finding made of it
        self.tally = CoverageTally(self.report / "coverage.jsonl") if campaign.schedule == "coverage" else None
        self.batch_seed, self.replaying = 0, False

    def stopping(self) -> bool:
        """Whether the parent asked this worker to stop, or a SIGINT/SIGTERM reached it (sent to the
        campaign's process group): it stops after the program it runs."""
        return self.signals.received is not None or self.stop.is_set()

    def exhausted(self) -> bool:
        limit = self.campaign.max_examples
        return (self.stopping() or self.counters.fuzzing_over.is_set()
                or (limit is not None and self.counters.examples.value >= limit))

    def run(self) -> None:
        batch = 0
        while not self.exhausted():
            try:
                self.hypothesis_run(batch)()
            except _Found:
                pass
            batch += 1
        self.explain_found()

    def explain_found(self) -> None:
        """Explains the campaign's findings from the shared queue, one claimed at a time in `explaining_order`,
        until the queue is empty, the explain budget (counted from now) is spent or the campaign is stopped;
        what is left stays recorded, unexplained."""
        deadline = time.monotonic() + self.campaign.explain_budget

        def over() -> bool:
            return self.stopping() or time.monotonic() >= deadline

        while not over() and (finding := self.claim()) is not None:
            explained = self.explain(finding, over)
            record_finding(explained, self.report)
            self.events.put(("explained", explained.suspect or "not named", None))

    def claim(self) -> Any:
        """The first finding of the queue in `explaining_order`, taken off it (removing its file: one worker
        wins); None when the queue is empty. The minimal findings recorded so far, by any worker, are
        learned on the way: a finding of their signature is not minimised again (`explain`)."""
        queue = explain_queue(self.report)
        waiting = {path.name for path in queue.iterdir()} if queue.exists() else set()
        if not waiting:
            return None
        recorded = read_findings(self.report / "discrepancies.jsonl")
        explained = [f for f in recorded if f.explained_from is not None]
        for record in explained:
            if record.covered_by is None:
                self.minimal_of.setdefault(record.signature(), record.id)
        named = {record.suspect for record in explained if record.suspect}
        for finding in explaining_order([f for f in recorded if f.id in waiting and f.explained_from is None], named):
            with contextlib.suppress(FileNotFoundError):
                (queue / finding.id).unlink()
                return finding
        return None

    def hypothesis_run(self, batch: int) -> Any:
        """A Hypothesis test over generated programs, seeded from the campaign seed, worker and batch.
        Only the first run of worker 0 replays the database (`--resume`, or always with a shared
        `--database`), and not again after a restart; every run saves failures."""
        from hypothesis import HealthCheck, Phase, Verbosity, given, seed, settings

        from reftape_properties.generate import programs

        replay = ((self.campaign.resume or self.campaign.database is not None)
                  and (self.index, self.restart, batch) == (0, 0, 0))
        phases = [Phase.reuse, Phase.generate] if replay else [Phase.generate]
        self.batch_seed, self.replaying = _batch_seed(self.campaign, self.index, batch, self.restart), replay

        @settings(database=example_database(self.report, self.campaign.database), phases=phases,
                  max_examples=BATCH, deadline=None,
                  suppress_health_check=list(HealthCheck), report_multiple_bugs=False, print_blob=False,
                  verbosity=Verbosity.quiet)
        @seed(self.batch_seed)
        @given(programs(ops=self.campaign.ops, dtypes=self.campaign.dtypes, lacking=frozenset(self.campaign.lacking),
                        swarm=self.campaign.schedule != "uniform",
                        accumulators=1.0 if FORWARD in self.campaign.checks else 0.0))
        def campaign_test(program: Any) -> None:
            self.check(program, batch)

        return campaign_test

    def check(self, program: Any, batch: int) -> None:
        from reftape_properties.pipeline import evaluate_checks

        text = program.to_json()
        if text in self.deadly:
            return
        if text in self.failing:
            if self.failing[text] == batch:  # Hypothesis replays a failure once more before reporting it
                raise _Found
            # Found by an earlier batch: every batch starts from Hypothesis's simplest example, and
            # failing on it again would end each batch at once, without one new example.
            return
        if self.exhausted():
            return
        exercised = features(program)
        if self.passes_over(exercised, text):
            with self.counters.passed_over.get_lock():
                self.counters.passed_over.value += 1
            return
        with self.counters.examples.get_lock():
            self.counters.examples.value += 1
        record_coverage(program, exercised)
        finding = evaluate_checks(program, self.backend, self.campaign.checks, time_limit=self.campaign.time_limit)
        self.counters.last_finished.value = time.monotonic()
        if finding is None:
            return
        finding.context["campaign"] = {"seed": self.campaign.seed, "worker": self.index, "batch": batch,
                                       "detected": self.counters.detected()}
        if text not in self.recorded:
            self.keep(finding)
        else:
            self.events.put(("replayed", finding.kind, (finding.known, None)))
        self.recorded.add(text)
        if not finding.known:
            self.failing[text] = batch
            raise _Found

    def passes_over(self, exercised: dict, text: str) -> bool:
        """Whether the coverage schedule leaves this program out: it exercises nothing rare and lost its draw.
        A replayed batch runs every saved example."""
        return self.tally is not None and not self.replaying and not self.tally.admits(exercised, text, self.batch_seed)

    def keep(self, finding: Any) -> None:
        """Records the finding at once; one to explain (known ones need no explaining) joins the queue."""
        record_finding(finding, self.report)
        self.events.put(("finding", finding.kind, (finding.known, finding.context["campaign"]["detected"])))
        if not finding.known:
            enqueue_for_explaining(finding, self.report)

    def explain(self, finding: Any, over: Any) -> Any:
        """The finding with its first divergent node named and its program minimised: a record of its
        own, linked to the finding by its `explained_from`. A finding of a signature this worker has minimised
        before is not minimised again; it names that minimal finding instead (`covered_by`)."""
        from reftape_properties.explain.divergence import first_divergence
        from reftape_properties.explain.minimize import minimize

        explained = first_divergence(finding)
        signature = explained.signature()
        if signature in self.minimal_of:
            return dataclasses.replace(explained, id="", timestamp="", explained_from=finding.id,  # a fresh id
                                       covered_by=self.minimal_of[signature])
        minimal = minimize(explained, stop=over, time_limit=self.campaign.time_limit)
        record = dataclasses.replace(minimal, id="", timestamp="", explained_from=finding.id)
        self.minimal_of[signature] = record.id
        self.minimal_of.setdefault(record.signature(), record.id)  # minimising may simplify tape options
        return record


def explain_queue(report: Path) -> Path:
    """The campaign's findings waiting to be explained: one empty file per finding id, in the report directory,
    so a worker's findings outlive its death and any worker can take them."""
    return report / "to-explain"


def enqueue_for_explaining(finding: Any, report: Path) -> None:
    queue = explain_queue(report)
    queue.mkdir(parents=True, exist_ok=True)
    (queue / finding.id).touch()


def explaining_order(findings: list, named: set[str]) -> list:
    """`distinct_first`, then the findings whose programs hold an op already named as a suspect behind those
    whose programs hold none: those are likeliest to be that op again, and a cause nobody has named is worth
    more to the person reading the report than a second minimal program of one already named."""
    ordered = distinct_first(findings)
    return ([f for f in ordered if not _holds_any(f, named)] + [f for f in ordered if _holds_any(f, named)])


def _holds_any(finding: Any, paths: set[str]) -> bool:
    return any(op.path in paths for op in finding.program.ops())


def distinct_first(findings: list) -> list:
    """The order to explain findings in when the budget may not reach them all: the smallest program of each
    check, kind and set of ops first (a program's ops are the likeliest causes: findings alike in all three
    mostly share one, and a small program minimises fast), smallest first; then the others, smallest first."""
    firsts, repeats, seen = [], [], set()
    for finding in sorted(findings, key=lambda f: len(f.program.ops())):
        likeness = (finding.reference, finding.kind, frozenset(op.path for op in finding.program.ops()))
        (repeats if likeness in seen else firsts).append(finding)
        seen.add(likeness)
    return firsts + repeats


def run_worker(campaign: Campaign, index: int, restart: int, deadly: frozenset[str], events: Any, stop: Any,
          counters: Counters) -> None:
    """A worker process's entry point. It starts with SIGINT and SIGTERM blocked (`_Crew.start`): a
    stop sent to the campaign's process group, even while this process starts, only asks it to stop
    after its program, as the parent's `stop` event does; it never dies of one or raises KeyboardInterrupt."""
    import traceback

    from hypothesis.configuration import set_hypothesis_home_dir

    from reftape_oracle.outcome import HarnessError

    signals = StopSignals().__enter__()   # for the life of the process
    signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)
    os.environ["REFTAPE_REPORT_DIR"] = campaign.report  # where record_coverage appends
    set_hypothesis_home_dir(Path(campaign.report) / "hypothesis")  # not .hypothesis/ in the current directory
    try:
        worker = _Worker(campaign, index, restart, deadly, events, stop, counters, signals)
        events.put(("ready", index, time.monotonic()))
        worker.run()
    except HarnessError as error:
        events.put(("harness", str(error), None))
    except Exception as error:  # noqa: BLE001 - the parent reports it as a harness failure (exit 3)
        last = traceback.extract_tb(error.__traceback__)[-1]
        events.put(("harness", f"worker {index} crashed: {type(error).__name__}: {error} "
                               f"({last.filename}:{last.lineno})", None))
    finally:
        if signals.received is not None:   # sent to this worker alone, the stop is the campaign's too
            events.put(("signal", signals.received, None))
        events.put(("done", index, None))
