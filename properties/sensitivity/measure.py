"""How many planted bugs (properties/sensitivity/mutants.py) do the detectors kill? (`reftape-sensitivity`,
reports/commands/reftape_sensitivity.py, is the command.)

Each mutant is planted in a temporary copy of the reftape package, importable under its own name
(`reftape_mutant_<id>`; reftape imports itself relatively), and each detector runs pytest in a
subprocess with `--reftape-backend reftape_mutant_<id>` and that copy on PYTHONPATH. Everything
else, the referee's float64 evaluations on reftape included, keeps using the unmutated reftape.

Detectors (run with CI=true, the CI Hypothesis profile, `-x`: a mutant is killed at the first failure):
- `fuzz`: the CI fuzz profile alone, `tests/suite/test_differential.py`;
- `suite`: every backend-agnostic test of the CI suite (per-op, semantics catalog, seeds, blind
  spots, tape semantics, metamorphic, differential); the other test files test reftape itself or
  the harness and ignore the backend option.
- `campaign:SECONDS` (`campaign-coverage:SECONDS`, `campaign-swarm:SECONDS`, `campaign-uniform:SECONDS`): what a
  user runs first, a `reftape-fuzz` campaign of that budget (seed 1, its default schedule or the one named, nothing
  explained), stopped at its first unexplained finding.
  Its time to detection, that finding's seconds from the start of the campaign (TensorFlow's start-up
  included) and examples begun, is the campaign's speed figure: `summary` gives the kill rate at 15, 30
  and 60 seconds and the median time. A kill is a finding within the budget; the figure is measured, never
  asserted (it depends on the machine and its load; the examples count does not).

Before the mutants, each detector runs once on the unmutated reftape: it must pass there (a
detector that fails on reftape would "kill" every mutant), and that run fills a memo of
TensorFlow's outcome per program, shared by the runs of this invocation (the CI profile draws the
same programs for every mutant until one fails, and TensorFlow runs with op determinism), so each
mutant costs the candidate's side only. Those runs do not shrink failing examples: the first one
decides the verdict. The memo is loaded into the pytest runs as a plugin
(`-p reftape_properties.sensitivity.measure`) and wraps the interpreter's `run` for the reference alone.

A run is `killed` when pytest reports failures (exit 1), `survived` when every test passes, and
`timeout` or `error` otherwise (neither counts as a kill). Mutants run in parallel (`--jobs`), each
pytest serially: with `-x` most runs stop within seconds, so that spends the cores better than xdist
inside each run. Exit status: 0 when every detectable mutant is killed by every detector and every
equivalent one survives, 1 otherwise, 2 for bad usage.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from reftape_properties.cli import UsageError
from reftape_oracle.outcome import HarnessError
from reftape_properties.sensitivity.mutants import Mutant

ROOT = Path(__file__).resolve().parents[2]
TESTS = ROOT / "tests" / "suite"
DETECTORS: dict[str, list[str]] = {
    "fuzz": ["test_differential.py"],
    # fast and sensitive files first: with -x a killed mutant stops early
    "suite": ["test_ops.py", "test_semantics_catalog.py", "test_seeds.py", "test_blind_spots.py", "test_tape_semantics.py",
              "test_variable_updates.py", "test_control_flow.py", "test_function.py", "test_forward_mode.py", "test_protocols.py",
              "test_metamorphic.py", "test_differential.py"],
}
CAMPAIGN_DETECTOR = re.compile(r"campaign(?:-(coverage|swarm|uniform))?:(\d+)$")   # campaign:60 (the default), campaign-swarm:60
DETECTION_MARKS = (15, 30, 60)   # seconds at which summary() gives a campaign detector's kill rate
# The CI subset: planted bugs the CI fuzz profile kills today, and the equivalent control.
QUICK = ("sin-doubled", "sub-same-shape-sign", "needs-from-recording-tapes")
DEFAULT_TIMEOUT = 900.0


@dataclass
class Result:
    """What the detectors did to one mutant."""

    mutant: Mutant
    status: dict[str, str] = field(default_factory=dict)      # detector -> killed|survived|timeout|error
    seconds: dict[str, float] = field(default_factory=dict)
    detail: dict[str, str] = field(default_factory=dict)      # detector -> the first failing test or error line

    def killed_by(self, detector: str) -> bool:
        return self.status.get(detector) == "killed"

    def to_dict(self) -> dict:
        m = self.mutant
        return {"id": m.id, "family": m.family, "class": m.cls, "file": m.file, "description": m.description,
                "equivalent": m.equivalent, "killed_by": {d: self.killed_by(d) for d in self.status},
                "status": self.status, "seconds": {d: round(s, 1) for d, s in self.seconds.items()},
                "detail": self.detail}


def module_name(mutant: Mutant) -> str:
    return "reftape_mutant_" + mutant.id.replace("-", "_")


def plant(mutant: Mutant, directory: Path) -> str:
    """Copies reftape into `directory` under the mutant's module name, plants the bug, returns the name."""
    import reftape

    name = module_name(mutant)
    package = directory / name
    shutil.copytree(Path(reftape.__file__).parent, package, ignore=shutil.ignore_patterns("__pycache__"))
    try:
        mutant.apply_to_package(package)
    except ValueError as error:  # reftape changed under the run (checked for every mutant at the start)
        raise HarnessError(f"{error}: reftape changed during the run") from None
    return name


def check_mutants_apply(mutants: list[Mutant]) -> None:
    """A usage error, before anything runs, for a mutant whose original text is not in reftape once."""
    import reftape

    package = Path(reftape.__file__).parent
    for mutant in mutants:
        try:
            mutant.apply((package / mutant.file).read_text())
        except ValueError as error:
            raise UsageError(f"{error}: update it in properties/sensitivity/mutants.py") from None


_running: set[subprocess.Popen] = set()
_running_lock = threading.Lock()


def _run(command: list[str], env: dict, timeout: float) -> subprocess.CompletedProcess:
    """subprocess.run, with the child known to `_stop_children` while it runs."""
    with subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True) as process:
        with _running_lock:
            _running.add(process)
        try:
            stdout, stderr = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.communicate()
            raise
        except BaseException:  # interrupted: the child must not outlive us
            process.kill()
            raise
        finally:
            with _running_lock:
                _running.discard(process)
    return subprocess.CompletedProcess(command, process.returncode, stdout, stderr)


def stop_children() -> None:
    """Kills the running detectors: a campaign with its process group (its workers), a pytest run alone."""
    with _running_lock:
        for process in _running:
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):   # not a group leader: a pytest run
                process.kill()


def interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def is_detector(name: str) -> bool:
    return name in DETECTORS or CAMPAIGN_DETECTOR.match(name) is not None


def _environment(path: Path, **variables: str) -> dict:
    """The environment of a detector's run: `path` (the mutant's copy) importable first."""
    return dict(os.environ, **variables,
                PYTHONPATH=os.pathsep.join(filter(None, [str(path), os.environ.get("PYTHONPATH")])))


@dataclass(frozen=True)
class Runs:
    """How the detectors run: each pytest run's `timeout` in seconds, the `memo` of TensorFlow's outcomes, how
    many mutants are measured at once (`jobs`: campaigns share the cores among them) and a pytest `-k`
    expression narrowing the pytest detectors' tests (`select`)."""

    timeout: float = DEFAULT_TIMEOUT
    memo: Path | None = None
    jobs: int = 1
    select: str | None = None


def run_detector(detector: str, backend: str, path: Path, runs: Runs) -> tuple[str, float, str]:
    """(status, seconds, detail) of one detector's run against `backend` found on `path`: a pytest run,
    with TensorFlow's outcomes memoized in `runs.memo` when given, or a campaign (`run_campaign_detector`)."""
    if CAMPAIGN_DETECTOR.match(detector):
        return run_campaign_detector(detector, backend, path, runs.jobs)
    report = path / f"report-{detector}"
    env = _environment(path, CI="true", REFTAPE_REPORT_DIR=str(report))
    env.pop("REFTAPE_CANDIDATE", None)
    env.pop(MEMO_VARIABLE, None)
    if runs.memo is not None:
        env[MEMO_VARIABLE] = str(runs.memo)
    command = [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:randomly", "-p", "no:cacheprovider",
               "-p", __name__, "--reftape-backend", backend, *(["-k", runs.select] if runs.select else []),
               *[str(TESTS / name) for name in DETECTORS[detector]]]
    start = time.monotonic()
    try:
        done = _run(command, env, runs.timeout)
    except subprocess.TimeoutExpired:
        return "timeout", time.monotonic() - start, f"no verdict within {runs.timeout:.0f} s"
    seconds = time.monotonic() - start
    if done.returncode == 1:
        failed = [line for line in done.stdout.splitlines() if line.startswith("FAILED ")]
        return "killed", seconds, (failed[0][len("FAILED "):][:200] if failed else "tests failed")
    if done.returncode == 0:
        return "survived", seconds, ""
    lines = [line for line in (done.stderr + done.stdout).splitlines() if line.strip()]
    return "error", seconds, f"pytest exit {done.returncode}: {lines[-1][:200] if lines else ''}"


CAMPAIGN_START_UP = 120.0   # seconds a campaign may take beyond its budget (loading TensorFlow) before it is a timeout


def run_campaign_detector(detector: str, backend: str, path: Path, jobs: int = 1) -> tuple[str, float, str]:
    """A `reftape-fuzz` campaign against `backend` (seed 1, nothing explained, the cores shared by `jobs`
    parallel measurements), stopped at its first unexplained finding: killed with that finding's time to
    detection, survived when the budget passes without one, error when the campaign fails."""
    schedule, budget = CAMPAIGN_DETECTOR.match(detector).groups()
    report = path / f"report-{detector.replace(':', '-')}"
    command = [sys.executable, "-m", "reftape_reports.commands.reftape_fuzz", "--backend", backend, "--seed", "1",
               "--minutes", f"{int(budget) / 60:.6f}", *(["--schedule", schedule] if schedule else []), "--explain-budget", "0",
               "--workers", str(max(1, (os.cpu_count() or 1) // jobs)), "--report", str(report)]
    start = time.monotonic()
    with subprocess.Popen(command, cwd=path, env=_environment(path), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True, start_new_session=True) as process:
        with _running_lock:
            _running.add(process)
        try:
            found = _await_unexplained(report / "discrepancies.jsonl", process, start + int(budget) + CAMPAIGN_START_UP)
        finally:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)   # the campaign keeps what it recorded and ends within seconds
            _, stderr = process.communicate()
            with _running_lock:
                _running.discard(process)
    seconds = time.monotonic() - start
    # Workers write their records in the order they finish them: after the first, another worker may still
    # record a finding it made earlier, so the time to detection is the earliest among all recorded.
    detected = _earliest_unexplained(report / "discrepancies.jsonl") if found else None
    if detected is not None:
        status = "killed" if detected["seconds"] <= int(budget) else "survived"
        return status, detected["seconds"], f"first unexplained finding after {detected['examples']} examples"
    if process.returncode == 0:
        return "survived", seconds, ""
    if process.returncode is None or process.returncode < 0:
        return "timeout", seconds, f"no verdict within {int(budget) + CAMPAIGN_START_UP:.0f} s"
    lines = [line for line in stderr.splitlines() if line.strip()]
    return "error", seconds, f"reftape-fuzz exit {process.returncode}: {lines[-1][:200] if lines else ''}"


def _unexplained(records: Path) -> list[dict]:
    """The detections (seconds, examples) of the unexplained findings written so far; a line being written is
    left for the next read."""
    detections = []
    for line in records.read_text().splitlines() if records.exists() else []:
        try:
            record = json.loads(line)
        except ValueError:
            break
        if not record.get("known") and not record.get("explained_from"):
            detections.append(record["context"]["campaign"]["detected"])
    return detections


def _await_unexplained(records: Path, process: subprocess.Popen, deadline: float) -> bool:
    """Whether the campaign records an unexplained finding before it ends or the deadline passes (polled)."""
    while True:
        running = process.poll() is None
        if _unexplained(records):
            return True
        if not running or time.monotonic() >= deadline:
            return False
        time.sleep(0.2)


def _earliest_unexplained(records: Path) -> dict:
    return min(_unexplained(records), key=lambda detected: detected["seconds"])


def measure(mutant: Mutant, detectors: list[str], runs: Runs) -> Result:
    result = Result(mutant)
    with tempfile.TemporaryDirectory(prefix="reftape-sensitivity-") as scratch:
        backend = plant(mutant, Path(scratch))
        for detector in detectors:
            status, seconds, detail = run_detector(detector, backend, Path(scratch), runs)
            result.status[detector], result.seconds[detector], result.detail[detector] = status, seconds, detail
    return result


def check_baseline(detectors: list[str], runs: Runs) -> None:
    """Each detector passes on the unmutated reftape (and fills the memo); HarnessError otherwise. A
    campaign detector's baseline is the same campaign on reftape: its whole budget without a finding."""
    for detector in detectors:
        with tempfile.TemporaryDirectory(prefix="reftape-sensitivity-") as scratch:
            status, seconds, detail = run_detector(detector, "reftape", Path(scratch), runs)
        print(f"{'(unmutated reftape)':42} {'':4} {'':19} {detector}: {status} ({seconds:.0f}s)", flush=True)
        if status != "survived":
            raise HarnessError(f"detector {detector} does not pass on the unmutated reftape "
                               f"({status}: {detail}); fix that first")


# --- The memo of TensorFlow's outcomes, loaded into the detectors' pytest runs with -p.

MEMO_VARIABLE = "REFTAPE_SENSITIVITY_MEMO"


def memoize_reference(directory: Path) -> None:
    """Wraps the interpreter's `run` so that TensorFlow's outcome of a program is computed once per
    directory: one JSON file per program digest, written atomically (parallel runs share it)."""
    import hashlib
    from dataclasses import asdict

    from reftape_oracle import interpreter
    from reftape_oracle.outcome import Outcome

    live = interpreter.run

    def run(program, backend, time_limit=interpreter.DEFAULT_TIME_LIMIT):
        if backend != "tensorflow":
            return live(program, backend, time_limit)
        path = directory / (hashlib.sha256(program.to_json().encode()).hexdigest() + ".json")
        if path.exists():
            return Outcome(**json.loads(path.read_text()))
        outcome = live(program, backend, time_limit)
        if not (outcome.error and outcome.error.get("kind") in ("timeout", "harness")):
            partial = path.parent / f"{path.name}.{os.getpid()}.partial"
            partial.write_text(json.dumps(asdict(outcome)))
            os.replace(partial, path)
        return outcome

    interpreter.run = run


def pytest_configure(config) -> None:
    """Active only in the detectors' runs (`-p reftape_properties.sensitivity.measure`): the CI profile
    without shrinking (the verdict is decided by the first failing example; shrinking only makes it
    smaller, at the price of many new programs) and the memo of TensorFlow's outcomes."""
    from hypothesis import Phase, settings

    settings.register_profile("sensitivity", parent=settings.get_profile("ci"),
                              phases=[Phase.explicit, Phase.reuse, Phase.generate])
    settings.load_profile("sensitivity")
    if os.environ.get(MEMO_VARIABLE):
        memoize_reference(Path(os.environ[MEMO_VARIABLE]))


def summary(results: list[Result], detectors: list[str]) -> dict:
    """Kill rates per detector (over all mutants, and over the detectable ones) and survivors."""
    detectable = [r for r in results if r.mutant.equivalent is None]
    rates = {}
    for d in detectors:
        killed = [r for r in results if r.killed_by(d)]
        rates[d] = {"killed": len(killed), "mutants": len(results),
                    "detectable_killed": sum(r.killed_by(d) for r in detectable), "detectable": len(detectable),
                    "by_family": {family: f"{sum(r.killed_by(d) for r in detectable if r.mutant.family == family)}/"
                                          f"{sum(r.mutant.family == family for r in detectable)}"
                                  for family in ("vjp", "tape")},
                    "survivors": [r.mutant.id for r in results if not r.killed_by(d)]}
        if CAMPAIGN_DETECTOR.match(d):
            rates[d]["time_to_detection"] = detection_figures([r.seconds[d] for r in detectable if r.killed_by(d)],
                                                              len(detectable), int(CAMPAIGN_DETECTOR.match(d).group(2)))
    return rates


def record(results: list[Result], detectors: list[str], seconds: float, complete: bool) -> dict:
    """A measurement as its JSON keeps it: the detectors, whether every mutant was measured, the seconds, the kill
    rates (`summary`) and each mutant's result."""
    return {"detectors": detectors, "complete": complete, "seconds": round(seconds, 1),
            "kill_rate": summary(results, detectors), "mutants": [r.to_dict() for r in results]}


def detection_figures(seconds: list[float], detectable: int, budget: int) -> dict:
    """A campaign detector's speed: the share of the detectable mutants killed within each of DETECTION_MARKS
    seconds before its `budget` and at the budget, and the median time to detection of those killed (None when none was)."""
    ordered = sorted(seconds)
    middle = len(ordered) // 2
    median = None if not ordered else (ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2)
    marks = sorted({mark for mark in DETECTION_MARKS if mark < budget} | {budget})
    return {"killed_within": {str(mark): f"{sum(s <= mark for s in ordered)}/{detectable}" for mark in marks},
            "median_seconds": None if median is None else round(median, 1)}
