"""The pytest plugin: runs the backend-agnostic suite against any module with TF's names.

Registered through the `pytest11` entry point, so it is active wherever reftape is installed:

    pytest tests/suite --reftape-backend mypkg.tape           # default: reftape
    pytest tests/suite --reftape-backend mypkg.tape --reftape-xfails mypkg-xfails.txt

It provides
- `--reftape-backend MODULE`: the candidate (the current directory is importable). An unimportable
  module is a one-line usage error. The choice is exported as `REFTAPE_CANDIDATE`, which the
  differential property (`properties/conformance/differential.py`) and xdist workers read.
- `--reftape-xfails FILE`: the backend's known failures, in the manner of array-api-tests' xfails
  file: one pattern per line, `#` starts a comment. A test whose node id contains a pattern is
  marked `xfail(strict=False)`: a known failure must not fail the run, and a test that passes on
  some draws (Hypothesis examples differ between profiles) must not either; it shows as XPASS. A
  pattern that matches no collected test is reported as a warning, so a stale file is noticed.
- the fixtures `tf` (live TensorFlow, the judge) and `candidate` (the chosen backend module);
- the Hypothesis profiles `ci` (the default when CI=true), `dev` (the default otherwise) and `fuzz`;
- the report directory (`$REFTAPE_REPORT_DIR`, default `test-report/<timestamp>/` under pytest's
  root directory), where the reported example of each failing differential test is refereed and
  recorded, and the coverage summary printed at the end of the run.
"""

from __future__ import annotations

import json
import os
import time
import warnings
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import HealthCheck, Phase, settings

DEFAULT_BACKEND = "reftape"
CANDIDATE_VARIABLE = "REFTAPE_CANDIDATE"

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

# Hypothesis profiles. `ci` is the default under CI=true; choose another with --hypothesis-profile.
_quiet = [HealthCheck.too_slow, HealthCheck.data_too_large]
settings.register_profile("ci", derandomize=True, max_examples=40, deadline=None, database=None,
                          print_blob=True, suppress_health_check=_quiet)
settings.register_profile("dev", max_examples=40, deadline=None, print_blob=True, suppress_health_check=_quiet)
settings.register_profile("fuzz", max_examples=2000, deadline=None, print_blob=True, suppress_health_check=_quiet,
                          phases=list(Phase))
settings.load_profile("ci" if os.environ.get("CI") == "true" else "dev")


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("reftape", "reftape: the backend under test")
    group.addoption("--reftape-backend", metavar="MODULE", default=None,
                    help=f"module with TF's names to test against TensorFlow (default: ${CANDIDATE_VARIABLE} "
                         f"or {DEFAULT_BACKEND}; the current directory is importable)")
    group.addoption("--reftape-xfails", metavar="FILE", default=None,
                    help="known failures of the backend: one node id pattern (substring) per line, # comments; "
                         "matching tests are marked xfail(strict=False)")


def candidate_name(config: pytest.Config) -> str:
    return config.getoption("--reftape-backend") or os.environ.get(CANDIDATE_VARIABLE) or DEFAULT_BACKEND


def read_xfails(path: Path) -> list[str]:
    """The patterns of an xfails file: one per line, `#` comments and blank lines ignored."""
    try:
        text = path.read_text()
    except OSError as error:
        raise pytest.UsageError(f"--reftape-xfails: cannot read {str(path)!r}: {error.strerror or error}") from None
    return [line.split("#", 1)[0].strip() for line in text.splitlines() if line.split("#", 1)[0].strip()]


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    from reftape_properties.cli import EXIT_USAGE, UsageError, import_backend, writable_directory

    name = candidate_name(config)
    try:
        import_backend(name)
    except UsageError as error:
        raise pytest.UsageError(f"--reftape-backend: {error}") from None
    os.environ[CANDIDATE_VARIABLE] = name
    xfails = config.getoption("--reftape-xfails")
    config.stash[_XFAILS] = read_xfails(Path(xfails)) if xfails else []
    if not hasattr(config, "workerinput"):  # the controller chooses one report directory for all workers
        default = config.rootpath / "test-report" / time.strftime("%Y%m%d-%H%M%S")
        os.environ.setdefault("REFTAPE_REPORT_DIR", str(default))
        try:  # checked before any test runs, never discovered by the first finding
            writable_directory(Path(os.environ["REFTAPE_REPORT_DIR"]))
        except UsageError as error:
            pytest.exit(f"REFTAPE_REPORT_DIR: {error}", returncode=EXIT_USAGE)


_XFAILS = pytest.StashKey[list]()


def pytest_report_header(config: pytest.Config) -> str:
    return f"reftape backend: {candidate_name(config)}"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    patterns = config.stash.get(_XFAILS, [])
    if not patterns:
        return
    reason = f"known failure of {candidate_name(config)} (--reftape-xfails {config.getoption('--reftape-xfails')})"
    used = set()
    for item in items:
        matching = [p for p in patterns if p in item.nodeid]
        if matching:
            item.add_marker(pytest.mark.xfail(reason=reason, strict=False))
            used.update(matching)
    unused = [p for p in patterns if p not in used]
    if unused:
        warnings.warn(pytest.PytestWarning(
            f"--reftape-xfails: {len(unused)} line(s) match no collected test: " + ", ".join(unused)))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    """The finding of the example Hypothesis reports (not its shrinking steps) is refereed and recorded."""
    outcome = yield
    report = outcome.get_result()
    if report.when != "call" or call.excinfo is None:
        return
    from reftape_properties.conformance.differential import Disagreement
    from reftape_properties.findings.store import record_finding
    from reftape_properties.pipeline import judged

    errors = [call.excinfo.value]
    while errors:
        error = errors.pop()
        errors.extend(getattr(error, "exceptions", ()))  # Hypothesis reports distinct failures as a group
        if isinstance(error, Disagreement):
            error.finding.context["test"] = item.nodeid
            record_finding(judged(error.finding))


def pytest_terminal_summary(terminalreporter) -> None:
    from reftape_oracle.catalog import CATALOG

    from reftape_properties.findings.store import coverage_summary, report_dir

    path = report_dir() / "coverage.jsonl"
    if not path.exists():
        return
    summary = coverage_summary(json.loads(line) for line in path.read_text().splitlines() if line)
    pairs = summary["op_dtype"]
    possible = {(op, dtype) for op, spec in CATALOG.items() for dtype in spec.dtypes}
    reached_ops = {op for op, _ in pairs}
    write = terminalreporter.write_line
    write(f"reftape coverage: {len(reached_ops)}/{len(CATALOG)} catalog ops, "
          f"{len(possible & set(pairs))}/{len(possible)} op x dtype pairs, "
          f"{len(summary['options'])} tape option values ({report_dir()})")
    write("  options: " + ", ".join(f"{k} x{v}" for k, v in sorted(summary["options"].items())))
    missing = sorted(set(CATALOG) - reached_ops)
    if missing:
        write("  ops not reached: " + ", ".join(missing))
    findings = report_dir() / "discrepancies.jsonl"
    if findings.exists():
        write(f"  findings recorded: {len(findings.read_text().splitlines())} in {findings}")


@pytest.fixture(scope="session")
def tf() -> ModuleType:
    """Real TensorFlow, the judge."""
    from reftape_oracle import load_tensorflow

    return load_tensorflow()


@pytest.fixture(scope="session")
def candidate(pytestconfig: pytest.Config) -> ModuleType:
    """The backend under test (--reftape-backend, default reftape)."""
    from reftape_properties.cli import import_backend

    return import_backend(candidate_name(pytestconfig))
