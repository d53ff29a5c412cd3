"""The parent process of a campaign: starts and replaces workers, stops them at the budget or on
SIGINT/SIGTERM, records worker deaths and writes run.json; `run_campaign` is the entry point."""

from __future__ import annotations

import contextlib
import dataclasses
import datetime
import json
import multiprocessing
import os
import queue
import shutil
import signal
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator

from reftape_oracle.isolated import signal_name
from reftape_properties.campaign.configuration import PROG, STOP_GRACE, Campaign, unsupported_line
from reftape_properties.campaign.progress import Display, Progress
from reftape_properties.campaign.workers import Counters, enqueue_for_explaining, explain_queue, in_flight_file, run_worker
from reftape_properties.cli import EXIT_FINDINGS, EXIT_HARNESS, EXIT_OK, STOP_SIGNALS, StopSignals


class _Crew:
    """The worker processes of a campaign: started, watched, restarted after a death, stopped."""

    def __init__(self, campaign: Campaign, started: float) -> None:
        context = multiprocessing.get_context("spawn")  # never fork a process that may hold TensorFlow
        self.campaign, self.context = campaign, context
        self.events, self.stop_event = context.Queue(), context.Event()
        self.counters = Counters(context.Value("q", 0), context.Value("d", 0.0),
                                 context.Array("d", campaign.workers), context.Event(), context.Value("d", started),
                                 context.Value("q", 0))
        self.processes: dict[int, Any] = {}
        self.restarts = {index: 0 for index in range(campaign.workers)}
        self.ready: set[int] = set()
        self.done: set[int] = set()
        self.deadly: set[str] = set()   # the programs workers died running
        self.signalled: int | None = None   # a stop signal a worker received
        for index in range(campaign.workers):
            self.start(index)

    def start(self, index: int) -> None:
        self.ready.discard(index)
        self.counters.deadlines[index] = 0.0
        process = self.context.Process(target=run_worker, daemon=True, args=(
            self.campaign, index, self.restarts[index], frozenset(self.deadly), self.events, self.stop_event,
            self.counters))
        with _one_blas_thread(), _stop_signals_blocked():
            process.start()
        self.processes[index] = process

    def restart(self, index: int) -> None:
        self.restarts[index] += 1
        self.start(index)

    def finished(self) -> bool:
        return all(index in self.done or not process.is_alive() and process.exitcode == 0
                   for index, process in self.processes.items())

    def drain(self, progress: Progress) -> None:
        while True:
            try:
                event = self.events.get_nowait()
            except (queue.Empty, OSError, EOFError, ValueError):
                return
            if event[0] == "done":
                self.done.add(event[1])
                continue
            if event[0] == "signal":
                self.signalled = self.signalled or event[1]
                continue
            if event[0] == "ready":
                self.ready.add(event[1])
            progress.absorb(event)

    def stopped_by_signal(self) -> int | None:
        """The stop signal (SIGINT, SIGTERM) a worker received or died of, if one did: somebody stopped
        it, which stops the campaign; that is no death of the harness's making."""
        return self.signalled or next(filter(None, map(_stop_signal_of, self.processes.values())), None)

    def casualties(self) -> Iterator[tuple[int, str]]:
        """Workers that died (not of a stop signal: `stopped_by_signal`), or that are stuck in a
        program past its time limits (killed now), each with what happened to it."""
        now = time.monotonic()
        for index, process in self.processes.items():
            if index in self.done:
                continue
            if _stop_signal_of(process):
                continue
            if not process.is_alive() and process.exitcode not in (0, None):
                code = process.exitcode
                yield index, (f"died of {signal_name(-code)}" if code < 0 else f"exited with status {code}")
            elif process.is_alive() and 0 < self.counters.deadlines[index] < now:
                process.kill()
                process.join()
                yield index, KILLED_PAST_TIME_LIMITS

    def stop(self) -> None:
        """Asks every worker to stop after its program and kills those still running STOP_GRACE
        seconds later (SIGTERM would only ask again): each finding was recorded when it was found."""
        self.stop_event.set()
        deadline = time.monotonic() + STOP_GRACE
        processes = list(self.processes.values())
        for process in processes:
            process.join(max(0.0, deadline - time.monotonic()))
        for process in processes:
            if process.is_alive():
                process.kill()
                process.join()


def _stop_signal_of(process: Any) -> int | None:
    """The stop signal a finished process died of; None for any other end, or while it runs."""
    code = process.exitcode
    return -code if code is not None and -code in STOP_SIGNALS else None


@contextlib.contextmanager
def _stop_signals_blocked() -> Iterator[None]:
    """SIGINT and SIGTERM held back while a worker is started: the worker inherits the mask and
    receives them once it can take them as a request to stop (`run_worker`); the parent receives its
    own when the block ends, so none is lost."""
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


KILLED_PAST_TIME_LIMITS = "was killed: its program ran past its time limits (stuck outside Python)"


@dataclass
class WorkerDeath:
    """A worker that died or hung, and what the program it was running did in processes of its own."""

    worker: int
    cause: str                   # "died of SIGSEGV", "exited with status 1", "was killed: ..."
    program: dict | None         # the program it was running; None when it died between programs
    finding: str | None = None   # the id of the finding that program made when run again, each side alone
    rerun_interrupted: bool = False   # a stop came before or while it ran again: nothing is concluded
    # killed past its time limits, the program then finished within them alone: the campaign's load made it slow
    # (a time limit is wall-clock time, which no result may depend on), which is no hang and no harness failure
    finished_alone: bool = False

    @property
    def unexplained(self) -> bool:
        return self.finding is None and not self.rerun_interrupted and not self.finished_alone

    def line(self) -> str:
        what = ("between programs" if self.program is None else
                "running a program whose run in processes of its own was interrupted" if self.rerun_interrupted
                else "running a program that finished within its time limits in processes of its own (slow under "
                     "the campaign's load)" if self.finished_alone
                else "running a program that did not fail again in processes of its own" if self.finding is None
                else f"running the program of finding {self.finding}")
        return f"worker {self.worker} {self.cause} {what}"


def _after_death(crew: _Crew, worker: int, cause: str, progress: Progress, display: Display,
                 signals: StopSignals) -> None:
    """Runs the program a worker died (or hung) in again, each side in a process of its own, and
    records the finding it makes; keeps a record of the death; restarts the worker. A worker that dies
    before it is ready (loading its backend) is a harness failure: restarting it would not help. A stop
    signal during the re-run reaches its processes too: after a stop nothing is run or concluded."""
    from reftape_oracle.outcome import HarnessError
    from reftape_properties.pipeline import evaluate_checks
    from reftape_properties.findings.store import record_finding, record_worker_death

    campaign, report = crew.campaign, Path(crew.campaign.report)
    if worker not in crew.ready:
        progress.harness_error = f"worker {worker} {cause} while starting"
        return
    program = _in_flight_program(report, worker) if crew.counters.deadlines[worker] != 0.0 else None
    death, finding, rerun_failed = WorkerDeath(worker, cause, program.to_dict() if program else None), None, False
    if program is not None and signals.received is None:
        crew.deadly.add(program.to_json())
        display.note(f"worker {worker} {cause}; running its program again, each side in a process of its own")
        try:
            finding = evaluate_checks(program, campaign.backend, campaign.checks, isolated=True,
                                      time_limit=campaign.time_limit)
        except HarnessError as error:
            rerun_failed = True
            if signals.received is None:
                progress.harness_error = str(error)
    if signals.received is not None:
        death.rerun_interrupted = program is not None
    elif program is not None and finding is None and not rerun_failed and cause == KILLED_PAST_TIME_LIMITS:
        death.finished_alone = True
        display.note(f"worker {worker}'s program finished within its time limits alone: slow under the campaign's load")
    elif finding:
        detected = crew.counters.detected()
        finding.context["campaign"] = {"seed": campaign.seed, "worker": worker, "worker_death": cause, "detected": detected}
        record_finding(finding, report)
        if not finding.known:
            enqueue_for_explaining(finding, report)
        progress.absorb(("finding", finding.kind, (finding.known, detected)))
        death.finding = finding.id
    record_worker_death(dataclasses.asdict(death), report)
    progress.deaths.append(death)
    if signals.received is None:
        crew.restart(worker)


def _in_flight_program(report: Path, worker: int) -> Any:
    """The program worker `worker` said it was running; None if its word cannot be read."""
    from reftape_oracle.program import Program

    try:
        return Program.from_json(in_flight_file(report, worker).read_text())
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _tensorflow_version() -> str | None:
    """The installed TensorFlow's version, from its distribution's metadata (importing TF takes seconds)."""
    import importlib.metadata

    for distribution in ("tensorflow", "tensorflow-cpu", "tf-nightly"):
        with contextlib.suppress(importlib.metadata.PackageNotFoundError):
            return importlib.metadata.version(distribution)
    return None


def _write_run(campaign: Campaign, progress: Progress | None, started: str) -> None:
    import hypothesis
    from reftape_oracle.outcome import environment_fingerprint

    # The reference's version is recorded here too: a run without findings has no outcome that records it.
    record: dict[str, Any] = {"command": " ".join([PROG] + sys.argv[1:]), "started": started,
                              "configuration": dataclasses.asdict(campaign), "hypothesis": hypothesis.__version__,
                              "tensorflow": _tensorflow_version(),
                              "environment": environment_fingerprint(sys.modules.get(campaign.backend))}
    if progress is not None:
        elapsed = time.monotonic() - progress.started
        record["result"] = {"examples": progress.examples, "passed_over": progress.passed_over,
                            "seconds": round(elapsed, 1),
                            "examples_per_second": round(progress.rate, 2), "findings_by_kind": progress.findings,
                            "suspects": progress.suspects, "unexplained": progress.unexplained, "known": progress.known,
                            "replayed": progress.replayed, "first_unexplained": progress.first_unexplained,
                            "interrupted": progress.interrupted,
                            "stopped_by": progress.stopped_by,
                            "harness_error": progress.harness_error,
                            "worker_deaths": [dataclasses.asdict(d) for d in progress.deaths]}
    (Path(campaign.report) / "run.json").write_text(json.dumps(record, indent=1, sort_keys=True, default=str))


# Each worker is one process per core already: BLAS threads on top of it only contend (a 512x512
# matmul took 72 ms with two threads on a loaded 2-core machine, 1.8 ms with one).
_BLAS_THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


@contextlib.contextmanager
def _one_blas_thread() -> Iterator[None]:
    """Spawned workers inherit the environment at start, before they import NumPy: one BLAS thread
    each (unless the user set a count). The campaign's own environment is restored afterwards."""
    saved = {name: os.environ.get(name) for name in _BLAS_THREAD_VARIABLES}
    os.environ.update({name: "1" for name in _BLAS_THREAD_VARIABLES if name not in os.environ})
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def run_campaign(campaign: Campaign, render: Callable[[Path], Path], signals: StopSignals | None = None) -> int:
    """Runs `campaign` to its budget, then `render`s its report directory (returning the index page);
    the exit status says whether it found anything unexplained. A SIGINT or SIGTERM (noted by
    `signals`, entered by the command before it set the campaign up, or from here on) stops the
    campaign at any moment, rendering included: what was recorded is kept, the report is rendered and
    the status is 130 or 143."""
    with contextlib.ExitStack() as stack:
        return _run(campaign, render, signals if signals is not None else stack.enter_context(StopSignals()))


def _run(campaign: Campaign, render: Callable[[Path], Path], signals: StopSignals) -> int:
    started = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    _write_run(campaign, None, started)
    progress = Progress(time.monotonic())
    display = Display()
    try:
        if signals.received is None:
            _fuzz_with_crew(campaign, progress, display, signals)
        display.show(progress, final=True)
    finally:
        display.close()
    if signals.received is not None:
        progress.interrupted, progress.stopped_by = True, signals.name
    unexamined = [d for d in progress.deaths if d.unexplained]
    if unexamined and progress.harness_error is None:
        progress.harness_error = (f"{len(unexamined)} worker death(s) that no finding explains, the first: "
                                  f"{unexamined[0].line()} (see worker-deaths.jsonl)")
    _write_run(campaign, progress, started)
    index = render(Path(campaign.report))
    print(f"{PROG}: {progress.line()}")
    if campaign.unsupported:
        print(f"{PROG}: {unsupported_line(campaign)}")
    print(f"{PROG}: report written to {index}")
    if progress.harness_error:
        print(f"{PROG}: harness error: {progress.harness_error}", file=sys.stderr)
        return EXIT_HARNESS
    if signals.received is not None:
        print(f"{PROG}: interrupted by {signals.name}; every finding recorded so far is kept", file=sys.stderr)
        return signals.exit_status
    return EXIT_FINDINGS if progress.unexplained else EXIT_OK


def _fuzz_with_crew(campaign: Campaign, progress: Progress, display: Display, signals: StopSignals) -> None:
    """Starts the workers, watches them until the budget, a stop or a harness failure, and stops them."""
    crew = _Crew(campaign, progress.started)
    try:
        _watch(crew, progress, display, signals)
    finally:
        crew.stop()
    shutil.rmtree(Path(campaign.report) / "in-flight", ignore_errors=True)  # a death's program is in its record
    shutil.rmtree(explain_queue(Path(campaign.report)), ignore_errors=True)  # what is left stays unexplained
    crew.drain(progress)
    progress.count(crew.counters)


def _end_fuzzing(crew: _Crew, progress: Progress, display: Display) -> None:
    """Tells the workers the fuzzing budget is spent: each explains what it found, within the explain budget."""
    crew.counters.fuzzing_over.set()
    if progress.unexplained and crew.campaign.explain_budget > 0:
        display.note(f"fuzzing budget spent; explaining the findings for up to {crew.campaign.explain_budget:g} s "
                     "(Ctrl-C leaves them recorded, unexplained)")


def _watch(crew: _Crew, progress: Progress, display: Display, signals: StopSignals) -> None:
    campaign = crew.campaign
    deadline = progress.started + 60 * campaign.minutes if campaign.minutes else None
    while not crew.finished() and signals.received is None and progress.harness_error is None:
        if deadline is not None and time.monotonic() >= deadline:
            if crew.counters.fuzzing_over.is_set():
                return   # the explain budget is spent too
            _end_fuzzing(crew, progress, display)
            deadline = time.monotonic() + campaign.explain_budget + STOP_GRACE
        time.sleep(0.2)
        crew.drain(progress)
        if (signum := crew.stopped_by_signal()) is not None:
            signals.receive(signum)
        for worker, cause in crew.casualties():
            _after_death(crew, worker, cause, progress, display, signals)
        progress.count(crew.counters)
        display.show(progress)
