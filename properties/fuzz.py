"""`reftape-fuzz`: a fuzzing campaign of a candidate tape against TensorFlow, ending in an HTML report.

Worker processes (TensorFlow loaded once in each) draw programs with Hypothesis, run each through
the one pipeline (`findings.evaluate`) and record every finding the moment it is found
(`recording.record_finding`, fsynced), then explain it: the first divergent node names the suspect
op and minimisation shrinks the program within a budget of evaluations (once per signature and worker: a
campaign that meets one bug in every program keeps fuzzing instead of minimising it again; later
findings of that signature name the minimal one by `context["covered_by"]`); the explained form is
recorded too, linked to the original by `context["explained_from"]`. The parent process shows progress, stops the
workers at the budget or on SIGINT/SIGTERM, sent to it or to its whole process group, at any moment
(recorded findings are kept; exit 130 or 143, never a worker death), writes `run.json` and has the
report rendered. A worker that dies or hangs in native code is replaced: the program it said
it was running (its flight recorder) is run again with each side in a process of its own, and the
finding that makes is recorded with the death (`worker-deaths.jsonl`). The command itself
(`reftape-fuzz`, `reports/campaign.py`) sits in the reports layer, above this one, and passes the
renderer in.

Report directory layout: discrepancies.jsonl, coverage.jsonl, run.json, worker-deaths.jsonl,
hypothesis-db/ (the example database that `--resume` replays first, and Hypothesis's other files),
index.html and repro/<id>.py.

Past one machine: machines given `--shard 1/N` .. `--shard N/N` (whatever their `--seed`) and one
`--database redis://...` draw disjoint seeds and share Hypothesis's example database, so each
replays first what any has found (and, as Hypothesis does with any database, drops an entry that
no longer fails where it is replayed); `reftape-report OUT --merge DIR...` makes one report of
their report directories.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import datetime
import fnmatch
import hashlib
import json
import math
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

from reftape_oracle.interpreter import FlightRecorder
from reftape_oracle.isolated import signal_name

from .cli import (EXIT_FINDINGS, EXIT_HARNESS, EXIT_OK, STOP_SIGNALS, StopSignals, UsageError, import_backend,
                  parser, positive_seconds, writable_directory)

PROG = "reftape-fuzz"
DEFAULT_MINUTES = 10.0
BATCH = 100                 # examples per Hypothesis run; each run gets a seed of its own
TIME_LIMIT = 20.0           # seconds per program and backend
STOP_GRACE = 3.0            # seconds workers get to finish their example before they are killed


@dataclass(frozen=True)
class Campaign:
    """What a campaign runs: written to run.json and given to every worker."""

    backend: str
    ops: tuple[str, ...]
    dtypes: tuple[str, ...]
    seed: int
    workers: int
    minutes: float | None
    max_examples: int | None
    report: str
    resume: bool
    database: str | None = None         # a shared example database (redis://...) instead of the report's
    shard: tuple[int, int] = (1, 1)     # (K, N): this machine draws the seeds congruent to K-1 modulo N
    time_limit: float = TIME_LIMIT      # seconds per program and backend


def arguments() -> argparse.ArgumentParser:
    result = parser(PROG, "Fuzz a TF-like tape against TensorFlow with generated programs; write an HTML report.")
    budget = result.add_mutually_exclusive_group()
    budget.add_argument("--minutes", type=float, help=f"time budget (default {DEFAULT_MINUTES:g} minutes)")
    budget.add_argument("--max-examples", type=int, help="stop after this many programs")
    result.add_argument("--seed", type=int, help="campaign seed (default: random, written to run.json)")
    result.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="processes (default: all cores)")
    result.add_argument("--backend", help="candidate module (default reftape; the current directory is importable)")
    result.add_argument("--ops", help="comma-separated globs over catalog paths, e.g. 'sin,math.*' (default: all)")
    result.add_argument("--dtypes", help="comma-separated dtypes (default: all)")
    result.add_argument("--report", type=Path, default=Path("fuzz-report"), help="report directory "
                                                                                  "(default ./fuzz-report)")
    result.add_argument("--resume", action="store_true", help="replay the failures in the report directory's "
                        "example database first, with the run's --backend, --ops, --dtypes, --time-limit, "
                        "--database and --shard (from its run.json; giving another value is an error)")
    result.add_argument("--database", metavar="URL", help="a Hypothesis example database shared by machines, "
                        "e.g. redis://127.0.0.1:6379/0: failures any machine saved are replayed first")
    result.add_argument("--shard", metavar="K/N", help="this machine's share of the seeds: "
                        "machines given 1/N .. N/N draw disjoint seeds (default 1/1)")
    result.add_argument("--time-limit", type=positive_seconds, metavar="SECONDS",
                        help=f"per program and backend (default {TIME_LIMIT:g}); a worker stuck past it in native "
                             "code is killed and the program run again in processes of its own")
    return result


# What a resumed run takes from the run.json of the run it resumes: what it checks and where its saved
# failures are (replayed on another backend they would pass, and Hypothesis would delete them).
RESUMED = {"backend": "--backend", "ops": "--ops", "dtypes": "--dtypes", "time_limit": "--time-limit",
           "database": "--database", "shard": "--shard"}
_NOT_RECORDED = object()


def campaign_from(args: argparse.Namespace) -> Campaign:
    """The campaign the arguments ask for (with `--resume`, the resumed run's configuration for what
    they leave out); UsageError (before anything runs or is written) for bad usage."""
    recorded = _resumed_configuration(args.report) if args.resume else {}

    def chosen(name: str, resolve: Callable[[Any], Any], default: Any) -> Any:
        return _chosen(RESUMED[name], getattr(args, name), recorded.get(name, _NOT_RECORDED), resolve, default)

    backend = chosen("backend", str, "reftape")
    ops = chosen("ops", _matching_ops, "*")
    dtypes = chosen("dtypes", _dtype_list, None)
    time_limit = chosen("time_limit", float, TIME_LIMIT)
    shard = chosen("shard", _shard, "1/1")
    database = chosen("database", lambda url: url, None)
    _check_ops_have_dtypes(ops, dtypes)
    for name, value in (("--minutes", args.minutes), ("--max-examples", args.max_examples)):
        if value is not None and value <= 0:
            raise UsageError(f"{name} must be positive, not {value:g}")
    if args.workers < 1:
        raise UsageError(f"--workers must be at least 1, not {args.workers}")
    import_backend(backend)
    database = _reachable_database(database)
    report = writable_directory(args.report)
    seed = args.seed if args.seed is not None else int.from_bytes(os.urandom(4), "big")
    minutes = DEFAULT_MINUTES if args.minutes is None and args.max_examples is None else args.minutes
    return Campaign(backend, ops, dtypes, seed, args.workers, minutes, args.max_examples, str(report.resolve()),
                    args.resume, database, shard, time_limit)


def _chosen(option: str, given: Any, recorded: Any, resolve: Callable[[Any], Any], default: Any) -> Any:
    """An option's value: the one given (resolved), else the resumed run's, else the default; a given
    value that differs from the resumed run's is a UsageError naming both."""
    if given is None:
        return resolve(default) if recorded is _NOT_RECORDED else _one_run_setting(option, recorded, resolve)
    value = resolve(given)
    if recorded is not _NOT_RECORDED and value != recorded:
        raise UsageError(f"{option} {given!r} conflicts with the run being resumed, which used {option} "
                         f"{_as_given(option, recorded)!r} (its run.json): leave {option} out to resume that run")
    return value


def _one_run_setting(option: str, recorded: Any, resolve: Callable[[Any], Any]) -> Any:
    """`recorded` after checking that its option would take it (a merged report's run.json records the
    distinct values of several runs instead); UsageError otherwise."""
    try:
        valid = recorded is None or resolve(_as_given(option, recorded)) == recorded
    except (UsageError, ValueError, TypeError):
        valid = False
    if not valid:
        raise UsageError(f"--resume: run.json records {option} {recorded!r}, not one run's setting "
                         f"(a merged report?): resume one of the runs it was made from")
    return recorded


def _as_given(option: str, value: Any) -> Any:
    """A recorded value spelled as its option takes it."""
    if option == "--shard":
        return "/".join(map(str, value))
    return ",".join(map(str, value)) if isinstance(value, tuple) else value


def _resumed_configuration(report: Path) -> dict[str, Any]:
    """The configuration `run.json` in `report` records, as `Campaign` holds it (tuples for lists)."""
    path = report / "run.json"
    try:
        configuration = json.loads(path.read_text())["configuration"]
        return {name: tuple(configuration[name]) if isinstance(configuration[name], list) else configuration[name]
                for name in RESUMED if name in configuration}
    except FileNotFoundError:
        raise UsageError(f"--resume: {str(path)!r} does not exist: no run to resume in {str(report)!r}") from None
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise UsageError(f"--resume: {str(path)!r} is unreadable ({type(error).__name__}: {error})") from None


def _matching_ops(text: str) -> tuple[str, ...]:
    from reftape_oracle.catalog import CATALOG

    patterns = [p.strip() for p in text.split(",") if p.strip()]
    ops = tuple(path for path in CATALOG if any(fnmatch.fnmatchcase(path, p) for p in patterns))
    if not ops:
        raise UsageError(f"--ops {text!r} matches no catalog op (e.g. 'sin', 'math.*', 'nn.relu')")
    return ops


def _dtype_list(text: str | None) -> tuple[str, ...]:
    from .strategies import DTYPES

    dtypes = DTYPES if text is None else tuple(d.strip() for d in text.split(",") if d.strip())
    unknown = [d for d in dtypes if d not in DTYPES]
    if unknown or not dtypes:
        raise UsageError(f"--dtypes {text!r}: unknown dtype {', '.join(unknown) or '(none)'}; "
                         f"choose from {', '.join(DTYPES)}")
    return dtypes


def _check_ops_have_dtypes(ops: tuple[str, ...], dtypes: tuple[str, ...]) -> None:
    from reftape_oracle.catalog import CATALOG

    if not any(d in CATALOG[op].dtypes for op in ops for d in dtypes):
        raise UsageError(f"none of the ops {', '.join(ops)} supports dtypes {', '.join(dtypes)}")


def _shard(text: str) -> tuple[int, int]:
    try:
        k, n = (int(part) for part in text.split("/"))
    except ValueError:
        raise UsageError(f"--shard {text!r} must be K/N with whole numbers, e.g. 2/4") from None
    if not 1 <= k <= n:
        raise UsageError(f"--shard {text!r} needs 1 <= K <= N")
    return k, n


def _reachable_database(url: str | None) -> str | None:
    """`url` after checking that its Redis server answers; UsageError otherwise."""
    if url is None:
        return None
    if not url.startswith(("redis://", "rediss://", "unix://")):
        raise UsageError(f"--database {url!r} is not a redis://host:port/db URL")
    import redis

    try:
        redis.Redis.from_url(url, socket_connect_timeout=5).ping()
    except (redis.RedisError, ValueError) as error:
        raise UsageError(f"--database {url!r} does not answer: {error}") from None
    return url


def example_database(report: Path, url: str | None = None) -> Any:
    """The Hypothesis example database of a campaign: where failures are saved and `--resume` reads.
    The one place to choose it: the report directory's, or the Redis database at `url` that every
    machine of a campaign shares."""
    if url is not None:
        import redis
        from hypothesis.extra.redis import RedisExampleDatabase

        return RedisExampleDatabase(redis.Redis.from_url(url))
    from hypothesis.database import DirectoryBasedExampleDatabase

    return DirectoryBasedExampleDatabase(report / "hypothesis" / "examples")


# ---------------------------------------------------------------------------------------------
# Workers


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

        from .run_records import read_findings

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
        self.minimal_of: dict[str, str] = {}   # signature -> id of the minimal finding this worker made of it

    def stopping(self) -> bool:
        """Whether the parent asked this worker to stop, or a SIGINT/SIGTERM reached it (sent to the
        campaign's process group): it stops after the program it runs."""
        return self.signals.received is not None or self.stop.is_set()

    def exhausted(self) -> bool:
        limit = self.campaign.max_examples
        return self.stopping() or (limit is not None and self.counters.examples.value >= limit)

    def run(self) -> None:
        batch = 0
        while not self.exhausted():
            try:
                self.hypothesis_run(batch)()
            except _Found:
                pass
            batch += 1

    def hypothesis_run(self, batch: int) -> Any:
        """A Hypothesis test over generated programs, seeded from the campaign seed, worker and batch.
        Only the first run of worker 0 replays the database (`--resume`, or always with a shared
        `--database`), and not again after a restart; every run saves failures."""
        from hypothesis import HealthCheck, Phase, Verbosity, given, seed, settings

        from .strategies import programs

        replay = ((self.campaign.resume or self.campaign.database is not None)
                  and (self.index, self.restart, batch) == (0, 0, 0))
        phases = [Phase.reuse, Phase.generate] if replay else [Phase.generate]

        @settings(database=example_database(self.report, self.campaign.database), phases=phases,
                  max_examples=BATCH, deadline=None,
                  suppress_health_check=list(HealthCheck), report_multiple_bugs=False, print_blob=False,
                  verbosity=Verbosity.quiet)
        @seed(_batch_seed(self.campaign, self.index, batch, self.restart))
        @given(programs(ops=self.campaign.ops, dtypes=self.campaign.dtypes))
        def campaign_test(program: Any) -> None:
            self.check(program, batch)

        return campaign_test

    def check(self, program: Any, batch: int) -> None:
        from .findings import evaluate
        from .run_records import record_coverage

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
        with self.counters.examples.get_lock():
            self.counters.examples.value += 1
        record_coverage(program)
        finding = evaluate(program, self.backend, time_limit=self.campaign.time_limit)
        self.counters.last_finished.value = time.monotonic()
        if finding is None:
            return
        finding.context["campaign"] = {"seed": self.campaign.seed, "worker": self.index, "batch": batch}
        if text not in self.recorded:
            self.keep(finding)
        else:
            self.events.put(("replayed", finding.kind, finding.known))
        self.recorded.add(text)
        if not finding.known:
            self.failing[text] = batch
            raise _Found

    def keep(self, finding: Any) -> None:
        """Records the finding at once, then its explained form (known ones need no explaining)."""
        from .run_records import record_finding

        record_finding(finding, self.report)
        self.events.put(("finding", finding.kind, finding.known))
        if not finding.known:
            explained = self.explain(finding)
            record_finding(explained, self.report)
            self.events.put(("explained", explained.suspect or "not named", None))

    def explain(self, finding: Any) -> Any:
        """The finding with its first divergent node named and its program minimised: a record of its
        own, linked to the finding by context. A finding of a signature this worker has minimised
        before is not minimised again; it names that minimal finding instead (`covered_by`)."""
        from .clusters import COVERED_BY, EXPLAINED_FROM
        from .divergence import first_divergence
        from .minimize import minimize

        explained = first_divergence(finding)
        signature = explained.signature()
        if signature in self.minimal_of:
            context = {**explained.context, EXPLAINED_FROM: finding.id, COVERED_BY: self.minimal_of[signature]}
            return dataclasses.replace(explained, id="", timestamp="", context=context)  # a fresh id
        minimal = minimize(explained, stop=self.stopping)
        record = dataclasses.replace(minimal, id="", timestamp="",
                                     context={**minimal.context, EXPLAINED_FROM: finding.id})
        self.minimal_of[signature] = record.id
        self.minimal_of.setdefault(record.signature(), record.id)  # minimising may simplify tape options
        return record


def _work(campaign: Campaign, index: int, restart: int, deadly: frozenset[str], events: Any, stop: Any,
          counters: Counters) -> None:
    """A worker process's entry point. It starts with SIGINT and SIGTERM blocked (`_Crew.start`): a
    stop sent to the campaign's process group, even while this process starts, only asks it to stop
    after its program, as the parent's `stop` event does; it never dies of one or raises KeyboardInterrupt."""
    import traceback

    from .findings import HarnessError

    from hypothesis.configuration import set_hypothesis_home_dir

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


# ---------------------------------------------------------------------------------------------
# The parent: progress, stopping, the report


@dataclass
class Progress:
    started: float
    examples: int = 0
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
        if counters.last_finished.value:
            self.last_example = counters.last_finished.value

    def line(self) -> str:
        kinds = ", ".join(f"{kind} {n}" for kind, n in sorted(self.findings.items())) or "none"
        suspects = ", ".join(f"{op} {n}" for op, n in sorted(self.suspects.items()))
        return (f"{self.examples} examples, {self.rate:.1f}/s, findings: {kinds}"
                + (f" ({self.replayed} replayed)" if self.replayed else "") + (f"; suspects: {suspects}" if suspects else ""))

    def absorb(self, event: tuple) -> None:
        what, detail, value = event
        if what == "ready" and self.first_ready is None:
            self.first_ready = value  # the worker's clock: CLOCK_MONOTONIC is the machine's, not the process's
        elif what in ("finding", "replayed"):
            self.findings[detail] = self.findings.get(detail, 0) + 1
            self.known += bool(value)
            self.unexplained += not value
            self.replayed += what == "replayed"
        elif what == "explained":
            self.suspects[detail] = self.suspects.get(detail, 0) + 1
        elif what == "harness" and self.harness_error is None:
            self.harness_error = detail


class _Display:
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


class _Crew:
    """The worker processes of a campaign: started, watched, restarted after a death, stopped."""

    def __init__(self, campaign: Campaign) -> None:
        context = multiprocessing.get_context("spawn")  # never fork a process that may hold TensorFlow
        self.campaign, self.context = campaign, context
        self.events, self.stop_event = context.Queue(), context.Event()
        self.counters = Counters(context.Value("q", 0), context.Value("d", 0.0),
                                 context.Array("d", campaign.workers))
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
        process = self.context.Process(target=_work, daemon=True, args=(
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
                yield index, "was killed: its program ran past its time limits (stuck outside Python)"

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
    receives them once it can take them as a request to stop (`_work`); the parent receives its
    own when the block ends, so none is lost."""
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


@dataclass
class WorkerDeath:
    """A worker that died or hung, and what the program it was running did in processes of its own."""

    worker: int
    cause: str                   # "died of SIGSEGV", "exited with status 1", "was killed: ..."
    program: dict | None         # the program it was running; None when it died between programs
    finding: str | None = None   # the id of the finding that program made when run again, each side alone
    rerun_interrupted: bool = False   # a stop came before or while it ran again: nothing is concluded

    @property
    def unexplained(self) -> bool:
        return self.finding is None and not self.rerun_interrupted

    def line(self) -> str:
        what = ("between programs" if self.program is None else
                "running a program whose run in processes of its own was interrupted" if self.rerun_interrupted
                else "running a program that did not fail again in processes of its own" if self.finding is None
                else f"running the program of finding {self.finding}")
        return f"worker {self.worker} {self.cause} {what}"


def _after_death(crew: _Crew, worker: int, cause: str, progress: Progress, display: _Display,
                 signals: StopSignals) -> None:
    """Runs the program a worker died (or hung) in again, each side in a process of its own, and
    records the finding it makes; keeps a record of the death; restarts the worker. A worker that dies
    before it is ready (loading its backend) is a harness failure: restarting it would not help. A stop
    signal during the re-run reaches its processes too: after a stop nothing is run or concluded."""
    from .findings import HarnessError, evaluate
    from .run_records import record_finding, record_worker_death

    campaign, report = crew.campaign, Path(crew.campaign.report)
    if worker not in crew.ready:
        progress.harness_error = f"worker {worker} {cause} while starting"
        return
    program = _in_flight_program(report, worker) if crew.counters.deadlines[worker] != 0.0 else None
    death, finding = WorkerDeath(worker, cause, program.to_dict() if program else None), None
    if program is not None and signals.received is None:
        crew.deadly.add(program.to_json())
        display.note(f"worker {worker} {cause}; running its program again, each side in a process of its own")
        try:
            finding = evaluate(program, campaign.backend, time_limit=campaign.time_limit, isolated=True)
        except HarnessError as error:
            if signals.received is None:
                progress.harness_error = str(error)
    if signals.received is not None:
        death.rerun_interrupted = program is not None
    elif finding:
        finding.context["campaign"] = {"seed": campaign.seed, "worker": worker, "worker_death": cause}
        record_finding(finding, report)
        progress.absorb(("finding", finding.kind, finding.known))
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


def _write_run(campaign: Campaign, progress: Progress | None, started: str) -> None:
    from reftape_oracle.outcome import environment_fingerprint

    import hypothesis

    record: dict[str, Any] = {"command": " ".join([PROG] + sys.argv[1:]), "started": started,
                              "configuration": dataclasses.asdict(campaign), "hypothesis": hypothesis.__version__,
                              "environment": environment_fingerprint(sys.modules.get(campaign.backend))}
    if progress is not None:
        elapsed = time.monotonic() - progress.started
        record["result"] = {"examples": progress.examples, "seconds": round(elapsed, 1),
                            "examples_per_second": round(progress.rate, 2), "findings_by_kind": progress.findings,
                            "suspects": progress.suspects, "unexplained": progress.unexplained, "known": progress.known,
                            "replayed": progress.replayed, "interrupted": progress.interrupted,
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
    display = _Display()
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
    print(f"{PROG}: report written to {index}")
    if progress.harness_error:
        print(f"{PROG}: harness error: {progress.harness_error}", file=sys.stderr)
        return EXIT_HARNESS
    if signals.received is not None:
        print(f"{PROG}: interrupted by {signals.name}; every finding recorded so far is kept", file=sys.stderr)
        return signals.exit_status
    return EXIT_FINDINGS if progress.unexplained else EXIT_OK


def _fuzz_with_crew(campaign: Campaign, progress: Progress, display: _Display, signals: StopSignals) -> None:
    """Starts the workers, watches them until the budget, a stop or a harness failure, and stops them."""
    crew = _Crew(campaign)
    try:
        _watch(crew, progress, display, signals)
    finally:
        crew.stop()
    shutil.rmtree(Path(campaign.report) / "in-flight", ignore_errors=True)  # a death's program is in its record
    crew.drain(progress)
    progress.count(crew.counters)


def _watch(crew: _Crew, progress: Progress, display: _Display, signals: StopSignals) -> None:
    campaign = crew.campaign
    deadline = progress.started + 60 * campaign.minutes if campaign.minutes else None
    while not crew.finished() and signals.received is None and progress.harness_error is None:
        if deadline is not None and time.monotonic() >= deadline:
            return
        time.sleep(0.2)
        crew.drain(progress)
        if (signum := crew.stopped_by_signal()) is not None:
            signals.receive(signum)
        for worker, cause in crew.casualties():
            _after_death(crew, worker, cause, progress, display, signals)
        progress.count(crew.counters)
        display.show(progress)
