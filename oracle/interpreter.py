"""One interpreter for every backend: runs a Program on any module exposing TF's names.

The backend is named by module: "reftape", "tensorflow" (loaded through the oracle's quiet,
deterministic import) or any importable module such as "mypkg.mytape". `run` never raises: an
invalid program (never run), import failures, names the backend lacks, exceptions, and hangs past
the time limit all become part of the Outcome. Errors of kind "harness" (an invalid program, an
unimportable backend, generated code that does not compile) are never a result of the program.
"""

from __future__ import annotations

import collections
import contextlib
import functools
import importlib
import signal
import threading
from types import CodeType, ModuleType
from typing import Iterator

import numpy as np

from .outcome import Outcome, describe, describe_error, environment_fingerprint
from .program import Program
from .surface import needs, surface_of
from .traced import run_traced
from .validation import ProgramError

from .tensorflow import load_tensorflow

DEFAULT_TIME_LIMIT = 60.0
_REQUIRED = ("GradientTape", "Variable", "constant", "UnconnectedGradients")
_REQUIRED_TRACED = ("function", "init_scope", "nest")   # what oracle/traced.py runs a program with


def load_backend(name: str) -> ModuleType:
    return load_tensorflow() if name == "tensorflow" else importlib.import_module(name)


class ProgramTimeout(Exception):
    pass


class FlightRecorder:
    """Told of each program before it runs in this process and when it has finished. A process that
    may die or hang in native code (a fuzz campaign's worker) records what it is running, and for how
    long it may run, for the process that watches it. This one records nothing."""

    def began(self, program: Program, seconds: float | None) -> None:
        """`program` starts; its runs may take `seconds` in all (None: no limit)."""

    def ended(self) -> None:
        """The program has finished on every backend."""


_flight_recorder = FlightRecorder()


def record_flights(recorder: FlightRecorder) -> None:
    global _flight_recorder
    _flight_recorder = recorder


@contextlib.contextmanager
def _time_limit(seconds: float | None) -> Iterator[None]:
    """Interrupts the block after `seconds` (main thread only, where signals are delivered)."""
    if not seconds or threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(signum, frame):
        raise ProgramTimeout(f"program exceeded its time limit of {seconds:g} s")

    previous = signal.signal(signal.SIGALRM, interrupt)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@functools.lru_cache(maxsize=512)
def compile_program(source: str) -> CodeType:
    """The code of a program's source, compiled once per distinct source: the reference and the
    candidate run the same program, so only the first run pays for compiling it (code objects are
    immutable; each run executes it in a fresh scope)."""
    return compile(source, "<program>", "exec")


def missing_names(program: Program, backend: ModuleType, traced: bool = False) -> list[str]:
    """Names the program needs that the backend does not define: required ones (traced: those of a
    `tf.function` too), ops, features of the tape API and op keywords, as oracle/surface.py spells them."""
    missing = {name for name in _REQUIRED + (_REQUIRED_TRACED if traced else ()) if not hasattr(backend, name)}
    return sorted(missing | (needs(program.statements) & surface_of(backend).lacking))


def run(program: Program, backend: str | ModuleType, time_limit: float | None = DEFAULT_TIME_LIMIT,
        traced: bool = False) -> Outcome:
    """Runs `program` on `backend`; returns its Outcome (never raises). `traced`: inside one `tf.function`
    (oracle/traced.py), not eagerly."""
    return run_each(program, [backend], time_limit, traced)[0]


def run_each(program: Program, backends: list, time_limit: float | None = DEFAULT_TIME_LIMIT,
             traced: bool = False) -> list[Outcome]:
    """Runs `program` on each backend in turn, validated and turned into source once for all of them;
    their Outcomes (never raises). `traced` as `run`'s."""
    try:
        source = program.body_source()  # validates the program first: only validated fields reach the source
    except ProgramError as error:  # never run: an invalid program is the harness's input error, not a result
        return [Outcome(_backend_name(b), error={"kind": "harness", "message": f"invalid program: {error}"})
                for b in backends]
    _flight_recorder.began(program, time_limit and time_limit * len(backends))
    try:
        return [_run_source(source, program, backend, traced, time_limit) for backend in backends]
    finally:
        _flight_recorder.ended()


def _backend_name(backend: str | ModuleType) -> str:
    return backend if isinstance(backend, str) else backend.__name__


def _run_source(source: str, program: Program, backend: str | ModuleType, traced: bool,
                time_limit: float | None) -> Outcome:
    name = _backend_name(backend)
    try:
        module = load_backend(backend) if isinstance(backend, str) else backend
    except Exception as error:  # noqa: BLE001 - an unloadable backend is a harness failure, not a result
        return Outcome(name, error={"kind": "harness", "message": f"cannot import backend {name!r}: {error}"})
    outcome = Outcome(name, environment=environment_fingerprint(module))
    missing = missing_names(program, module, traced)
    if missing:
        outcome.error = {"kind": "missing", "names": missing}
        return outcome
    scope = {"tf": module, "np": np, "collections": collections, "describe": describe, "describe_error": describe_error,
             "_outcome": {"values": outcome.values, "calls": outcome.calls, "error": None}}
    try:
        code = compile_program(source)
    except SyntaxError as error:
        outcome.error = {"kind": "harness", "message": f"generated code does not compile: {error}"}
        return outcome
    try:
        exec(code, scope)
        with _time_limit(time_limit):
            run_traced(scope) if traced else scope["_program"]()
    except ProgramTimeout as error:
        outcome.error = {"kind": "timeout", "message": str(error)}
    except Exception as error:  # noqa: BLE001
        outcome.error = describe_error(error, module)
        if traced and not scope.get("_traced_body_entered"):   # the backend's tf.function never ran the program
            outcome.error = {"kind": "harness", "message": f"{name} could not run the program in its tf.function: "
                                                           f"{outcome.error['class']}: {outcome.error['message']}"}
    return outcome
