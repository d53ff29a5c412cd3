"""What every command shares: exit statuses, `--version`, backend lookup and report directories.

Exit statuses (the same for every command):
    0   agreement (no unexplained finding)
    1   findings: the candidate disagrees with the reference
    2   bad usage or input: one line on stderr, nothing run
    3   harness failure: the harness itself could not run a program (never an agreement)
    4   unsupported: `--require-all` and the backend lacks an op or tape feature the run would use (nothing run)
    130 interrupted (Ctrl-C, SIGINT), after keeping what was already found
    143 terminated (SIGTERM: `timeout`, `docker stop`, a cancelled CI job), after keeping what was already found
"""

from __future__ import annotations

import argparse
import importlib
import math
import os
import signal
import sys
from importlib import metadata
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:
    from reftape_oracle.surface import Surface

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE, EXIT_HARNESS, EXIT_UNSUPPORTED = 0, 1, 2, 3, 4
EXIT_INTERRUPTED, EXIT_TERMINATED = 130, 143
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


class UsageError(Exception):
    """Bad usage or input; its message is the one line the user sees (exit 2)."""


class UnsupportedError(Exception):
    """The backend lacks what the run requires (`--require-all`); its message names what (exit 4)."""


class StopSignals:
    """While entered, SIGINT and SIGTERM only note that a stop was asked for (the first one's number):
    the command finishes what it must keep (records, the report) and exits with `exit_status`. A
    KeyboardInterrupt raised wherever the signal lands could be lost, or cut a record in two."""

    def __init__(self) -> None:
        self.received: int | None = None
        self._previous: dict[int, Any] = {}

    def __enter__(self) -> "StopSignals":
        self._previous = {signum: signal.signal(signum, self._receive) for signum in STOP_SIGNALS}
        return self

    def __exit__(self, *exception: object) -> None:
        for signum, handler in self._previous.items():
            signal.signal(signum, handler)

    def _receive(self, signum: int, frame: object) -> None:
        self.receive(signum)

    def receive(self, signum: int) -> None:
        """Notes a stop asked for by `signum` (the first one counts)."""
        if self.received is None:
            self.received = signum

    @property
    def name(self) -> str:
        return signal.Signals(self.received).name if self.received is not None else ""

    @property
    def exit_status(self) -> int:
        return EXIT_TERMINATED if self.received == signal.SIGTERM else EXIT_INTERRUPTED


def parser(prog: str, description: str | None) -> argparse.ArgumentParser:
    """An argument parser with `--version`; usage errors exit 2 as argparse does."""
    result = argparse.ArgumentParser(prog=prog, description=description)
    result.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    return result


def positive_seconds(text: str) -> float:
    """An argument's number of seconds: positive and finite."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0 < value < math.inf:
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive number of seconds")
    return value


def _version() -> str:
    try:
        return metadata.version("reftape")
    except metadata.PackageNotFoundError:
        return "unknown"


def import_backend(name: str) -> ModuleType:
    """The backend module `name`, importable from the current directory too; UsageError otherwise."""
    if name == "tensorflow":
        from reftape_oracle.tensorflow import load_tensorflow

        try:
            return load_tensorflow()
        except ImportError as error:
            raise UsageError("TensorFlow is not installed: install the harness extra "
                             "(pip install 'reftape[harness]')") from error
    if os.getcwd() not in sys.path and "" not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        return importlib.import_module(name)
    except Exception as error:  # noqa: BLE001 - any failure to import is the user's input
        raise UsageError(f"cannot import backend {name!r}: {type(error).__name__}: {error}") from error


def writable_directory(path: Path) -> Path:
    """`path`, created if needed, after checking that files can be written in it."""
    try:
        path.mkdir(parents=True, exist_ok=True)
        probe = path / f".write-check-{os.getpid()}"
        probe.write_text("")
        probe.unlink()
    except OSError as error:
        raise UsageError(f"report directory {str(path)!r} is not writable: {error.strerror or error}") from error
    return path


def run_command(prog: str, main: Callable[[], int]) -> int:
    """Runs a command's `main`, turning usage errors, harness failures and interrupts into their
    exit statuses with one line on stderr (never a traceback)."""
    from reftape_oracle.outcome import HarnessError

    try:
        return main()
    except UsageError as error:
        print(f"{prog}: error: {error}", file=sys.stderr)
        return EXIT_USAGE
    except UnsupportedError as error:
        print(f"{prog}: unsupported: {error}", file=sys.stderr)
        return EXIT_UNSUPPORTED
    except HarnessError as error:
        print(f"{prog}: harness error: {error}", file=sys.stderr)
        return EXIT_HARNESS
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


def backend_surface(module: ModuleType, declaration: str | None) -> Surface:
    """What `module` lacks: probed, and what the declaration file adds (UsageError for a bad file)."""
    from reftape_oracle.surface import DeclarationError, Surface, declared, probe

    probed = probe(module)
    if declaration is None:
        return probed
    try:
        return Surface(probed.lacking | declared(Path(declaration)))
    except DeclarationError as error:
        raise UsageError(f"--surface {error}") from None
