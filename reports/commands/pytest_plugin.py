"""The pytest plugin: runs the backend-agnostic suite against any module with TF's names.

Registered through the `pytest11` entry point, so it is active wherever reftape is installed. The suite
ships as the package `reftape_suite`; from any directory:

    pytest --pyargs reftape_suite --reftape-backend mytape            # default: reftape
    pytest --pyargs reftape_suite --reftape-backend mytape --reftape-xfails mytape-xfails.txt -n auto

It provides
- `--reftape-backend MODULE`: the candidate (the current directory is importable). An unimportable
  module is a one-line usage error. The choice is exported as `REFTAPE_CANDIDATE`, which the suite and
  xdist workers read.
- what the candidate lacks, probed as `reftape-fuzz` probes it (oracle/surface.py), plus `--reftape-surface
  FILE` (the same JSON declaration as `reftape-fuzz --surface`, exported as `REFTAPE_SURFACE`): a test
  whose marker `needs(...)` names something the candidate lacks is deselected, the generated programs draw
  none of it, and the terminal summary lists once what was left out. `--reftape-require-all` makes anything
  unsupported a usage error instead.
- `--reftape-xfails FILE`: the backend's known failures, in the manner of array-api-tests' xfails
  file: one pattern per line, `#` starts a comment. A test whose node id contains a pattern is
  marked `xfail(strict=False)`: a known failure must not fail the run, and a test that passes on
  some draws (Hypothesis examples differ between profiles) must not either; it shows as XPASS. A
  pattern that matches no collected test is reported as a warning, so a stale file is noticed.
- the fixtures `tf` (live TensorFlow, the judge), `candidate` (the chosen backend module) and `rt` (reftape);
- the Hypothesis profiles `ci` (the default when CI=true), `dev` (the default otherwise) and `fuzz`;
- the report directory (`$REFTAPE_REPORT_DIR`, default `test-report/<timestamp>/` under the current
  directory), where the reported example of each failing differential test is refereed and recorded,
  and the coverage summary printed at the end of the run. A failing differential test's message leads
  with what differs and the referee's verdict, and names the record holding the program.
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
SURFACE_VARIABLE = "REFTAPE_SURFACE"

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
    group.addoption("--reftape-surface", metavar="FILE", default=None,
                    help='what the backend lacks beyond what the probe finds: JSON {"unsupported": [name, ...]}, '
                         "as reftape-fuzz --surface reads it; tests needing it are deselected")
    group.addoption("--reftape-require-all", action="store_true", default=False,
                    help="a usage error if the backend lacks anything a test needs, instead of deselecting those tests")
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
    _choose_surface(config, name)
    config.addinivalue_line("markers", "needs(*names): what the test needs of the backend, as oracle/surface.py "
                                       "spells it ('cast', 'GradientTape.jacobian') or a tf name ('tf.random'); "
                                       "deselected where the backend lacks any")
    config.addinivalue_line("markers", "runs_long(seconds=30): a test of tens of seconds or more, started before the "
                                       "others, the longest first")
    xfails = config.getoption("--reftape-xfails")
    config.stash[_XFAILS] = read_xfails(Path(xfails)) if xfails else []
    if not hasattr(config, "workerinput"):  # the controller chooses one report directory for all workers
        default = Path.cwd() / "test-report" / time.strftime("%Y%m%d-%H%M%S")
        os.environ.setdefault("REFTAPE_REPORT_DIR", str(default))
        try:  # checked before any test runs, never discovered by the first finding
            writable_directory(Path(os.environ["REFTAPE_REPORT_DIR"]))
        except UsageError as error:
            pytest.exit(f"REFTAPE_REPORT_DIR: {error}", returncode=EXIT_USAGE)


_XFAILS = pytest.StashKey[list]()
_LACKING = pytest.StashKey[frozenset]()
_DESELECTED = pytest.StashKey[tuple]()


def _choose_surface(config: pytest.Config, name: str) -> None:
    """Probes the candidate (with the declaration, if any) as reftape-fuzz does; under --reftape-require-all
    anything it lacks is a usage error."""
    from reftape_oracle.catalog import CATALOG
    from reftape_properties.cli import UsageError
    from reftape_properties.conformance.support import candidate_surface, listing

    declaration = config.getoption("--reftape-surface")
    if declaration:
        os.environ[SURFACE_VARIABLE] = str(Path(declaration).resolve())
    candidate_surface.cache_clear()
    try:
        surface = candidate_surface(name)
    except UsageError as error:
        raise pytest.UsageError(str(error).replace("--surface", "--reftape-surface", 1)) from None
    config.stash[_LACKING] = surface.lacking
    unsupported = surface.unsupported(CATALOG)
    if unsupported and config.getoption("--reftape-require-all"):
        raise pytest.UsageError(f"--reftape-require-all: {name} lacks {listing(unsupported)}")


def pytest_report_header(config: pytest.Config) -> str:
    return f"reftape backend: {candidate_name(config)}"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    _mark_xfails(config, items)
    _deselect_unsupported(config, items)
    _long_tests_first(items)


def _long_tests_first(items: list[pytest.Item]) -> None:
    """The `runs_long` tests first, the longest (by the `seconds` they are marked with, 30 by default) first, in
    collection order otherwise: under xdist a long test collected last runs alone on one worker while the others
    idle (longest first bounds the time of the whole run)."""
    def seconds(item: pytest.Item) -> float:
        mark = item.get_closest_marker("runs_long")
        return 0.0 if mark is None else float(mark.kwargs.get("seconds", 30))

    items.sort(key=seconds, reverse=True)   # a stable sort: equal marks keep their order


def _deselect_unsupported(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Tests needing what the candidate lacks go through pytest's deselection, with what they needed."""
    from reftape_properties.conformance.support import candidate_surface, lacked, listing

    module, surface = _candidate_module(config), candidate_surface(candidate_name(config))
    kept, dropped, missing = [], [], set()
    for item in items:
        names = [name for marker in item.iter_markers("needs") for name in marker.args]
        lacking = lacked(names, module, surface) if names else []
        (dropped if lacking else kept).append(item)
        missing.update(lacking)
    if dropped and config.getoption("--reftape-require-all"):
        raise pytest.UsageError(f"--reftape-require-all: {candidate_name(config)} lacks {listing(missing)}, "
                                f"which {len(dropped)} tests need")
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept
    config.stash[_DESELECTED] = (len(dropped), frozenset(missing))
    if hasattr(config, "workeroutput"):  # the controller prints the summary
        config.workeroutput["reftape_deselected"] = [len(dropped), sorted(missing)]


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error) -> None:
    """xdist: a worker's deselection (each worker collects the same tests) becomes the controller's."""
    found = getattr(node, "workeroutput", {}).get("reftape_deselected")
    if found:
        node.config.stash[_DESELECTED] = (found[0], frozenset(found[1]))


def _candidate_module(config: pytest.Config) -> ModuleType:
    from reftape_properties.cli import import_backend

    return import_backend(candidate_name(config))


def _mark_xfails(config: pytest.Config, items: list[pytest.Item]) -> None:
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
    from reftape_properties.findings.store import record_finding
    from reftape_properties.pipeline import judged

    disagreements, others = _disagreements(call.excinfo.value)
    for error in disagreements:
        error.finding.context["test"] = item.nodeid
        record_finding(judged(error.finding))
    if disagreements and not others:  # the traceback and the drawn program's repr say nothing the summary does not
        report.longrepr = _summary_first(disagreements, str(report.longrepr))


def _disagreements(error: BaseException) -> tuple[list, list]:
    """The Disagreements among `error` and the errors it groups (Hypothesis reports distinct failures as a
    group), and the other errors."""
    from reftape_properties.conformance.differential import Disagreement

    found, others, pending = [], [], [error]
    while pending:
        error = pending.pop()
        if isinstance(error, Disagreement):
            found.append(error)
        elif isinstance(getattr(error, "exceptions", None), (list, tuple)):  # an exception group
            pending.extend(error.exceptions)
        else:
            others.append(error)
    return found, others


def _summary_first(disagreements: list, original: str) -> str:
    """Each refereed disagreement's summary, and how Hypothesis reproduces the example."""
    from reftape_properties.conformance.differential import failure_message

    reproduce = [line.strip() for line in original.splitlines() if "reproduce_failure" in line]
    return "\n\n".join([failure_message(d.finding) for d in disagreements] + reproduce[:2])


def pytest_terminal_summary(terminalreporter, config: pytest.Config) -> None:
    _write_unsupported(terminalreporter, config)
    _write_coverage(terminalreporter, config)


def _write_unsupported(terminalreporter, config: pytest.Config) -> None:
    """Once: what the candidate lacks, and how many tests were deselected for it (a worker's count under xdist)."""
    from reftape_oracle.catalog import CATALOG
    from reftape_oracle.surface import Surface
    from reftape_properties.conformance.support import listing

    count, needed = config.stash.get(_DESELECTED, (None, frozenset()))
    names = set(Surface(config.stash.get(_LACKING, frozenset())).unsupported(CATALOG)) | set(needed)
    if not names:
        return
    deselected = f"{count} tests deselected" if count is not None else "the tests needing them deselected"
    name = candidate_name(config)
    terminalreporter.write_line(f"reftape: unsupported by {name}: {listing(names)} ({deselected}; "
                                f"the ops: reftape-fuzz --list-ops --backend {name})")


def _write_coverage(terminalreporter, config: pytest.Config) -> None:
    """What the run reached of the catalog ops the candidate has."""
    from reftape_oracle.catalog import CATALOG
    from reftape_oracle.surface import Surface

    from reftape_properties.findings.store import coverage_summary, report_dir

    path = report_dir() / "coverage.jsonl"
    if not path.exists():
        return
    summary = coverage_summary(json.loads(line) for line in path.read_text().splitlines() if line)
    pairs = summary["op_dtype"]
    has = Surface(config.stash.get(_LACKING, frozenset())).ops(CATALOG)
    possible = {(op, dtype) for op in has for dtype in CATALOG[op].dtypes}
    reached_ops = {op for op, _ in pairs}
    write = terminalreporter.write_line
    of = "" if len(has) == len(CATALOG) else f" {candidate_name(config)} has"
    write(f"reftape coverage: {len(reached_ops & set(has))}/{len(has)} catalog ops{of}, "
          f"{len(possible & set(pairs))}/{len(possible)} op x dtype pairs, "
          f"{len(summary['options'])} tape option values ({report_dir()})")
    write("  options: " + ", ".join(f"{k} x{v}" for k, v in sorted(summary["options"].items())))
    missing = sorted(set(has) - reached_ops)
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
def rt() -> ModuleType:
    """reftape itself, for the tests about the harness rather than about the backend (whatever --reftape-backend says)."""
    import reftape

    return reftape


@pytest.fixture(scope="session")
def candidate(pytestconfig: pytest.Config) -> ModuleType:
    """The backend under test (--reftape-backend, default reftape)."""
    from reftape_properties.cli import import_backend

    return import_backend(candidate_name(pytestconfig))
