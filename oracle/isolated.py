"""Runs one program in a process of its own: for what a process cannot report about itself.

A backend that dies in native code (TensorFlow's tape has segfaulted on an output gradient of
another shape) takes its process with it, and one that hangs in native code never returns to
Python, where the interpreter's time limit would stop it. `run_isolated` runs the program through
the one interpreter in a fresh `python -m reftape_oracle.isolated` process and reads its Outcome
back from a file. The process says on its standard output when its backend is loaded; from then on it has the program's time limit
(and a few seconds) before it is killed. A death by signal becomes an error of kind "crash", a
process killed past its limit one of kind "timeout".
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

from .interpreter import DEFAULT_TIME_LIMIT, load_backend, run
from .outcome import Outcome
from .program import Program

STARTUP_SECONDS = 120.0   # loading the backend (importing TensorFlow takes seconds)
GRACE_SECONDS = 5.0       # past the program's time limit, for starting and describing the run


def run_isolated(program: Program, backend: str, time_limit: float | None = DEFAULT_TIME_LIMIT,
                 traced: bool = False) -> Outcome:
    """`program`'s Outcome on `backend` (a module name), run in a fresh process (never raises); `traced` as
    the interpreter's `run`."""
    limit = DEFAULT_TIME_LIMIT if time_limit is None else time_limit
    with tempfile.TemporaryDirectory(prefix="reftape-isolated-") as directory:
        program_file, outcome_file, log = (Path(directory) / name for name in ("program.json", "outcome.json", "log"))
        program_file.write_text(program.to_json())
        with log.open("w") as stderr, subprocess.Popen(
                [sys.executable, "-m", __name__, backend, str(program_file), str(outcome_file), repr(limit),
                 *(["traced"] if traced else [])],
                stdout=subprocess.PIPE, stderr=stderr, text=True, env=_importing_as_here()) as process:
            overran = _overran(process, limit)
        if overran:
            return _unfinished(backend, "timeout", overran)
        if process.returncode < 0:
            return _unfinished(backend, "crash", f"died of {signal_name(-process.returncode)}")
        if process.returncode != 0 or not outcome_file.exists():
            last = (log.read_text().strip().splitlines() or ["no output"])[-1]
            return _unfinished(backend, "crash", f"exited with status {process.returncode}: {last}")
        return Outcome.from_json(outcome_file.read_text())


def _importing_as_here() -> dict[str, str]:
    """The environment, with this process's module search path: the backend the child imports by
    name is the module this process would import."""
    path = [entry or os.getcwd() for entry in sys.path]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(path)}


def _overran(process: subprocess.Popen, limit: float) -> str | None:
    """Waits for the process to load its backend and run the program; when it takes too long at
    either, kills it and says what it overran."""
    loaded, _, _ = select.select([process.stdout], [], [], STARTUP_SECONDS)
    allowed = limit + GRACE_SECONDS if loaded else 0
    try:
        process.wait(timeout=allowed)
        return None
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    if loaded:
        return f"was killed {allowed:g} s after it began the program (its time limit is {limit:g} s)"
    return f"was killed after {STARTUP_SECONDS:g} s of loading the backend"


def _unfinished(backend: str, kind: str, what: str) -> Outcome:
    return Outcome(backend, error={"kind": kind, "message": f"the process running {backend} {what}"})


def signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def main() -> None:
    backend, program_file, outcome_file, limit = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3]), float(sys.argv[4])
    traced = sys.argv[5:] == ["traced"]
    program = Program.from_json(program_file.read_text())
    with contextlib.suppress(Exception):  # a backend that cannot load: `run` describes it as a harness error
        load_backend(backend)
    print("loaded", flush=True)
    outcome_file.write_text(run(program, backend, limit, traced).to_json())


if __name__ == "__main__":
    main()
