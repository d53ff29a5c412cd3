import os
import sys
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, settings

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).parent))  # test backends (wrong_vjp_backend, ...)
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

# Hypothesis profiles. `ci` is the default under CI=true; choose with --hypothesis-profile.
_quiet = [HealthCheck.too_slow, HealthCheck.data_too_large]
settings.register_profile("ci", derandomize=True, max_examples=40, deadline=None, database=None,
                          print_blob=True, suppress_health_check=_quiet)
settings.register_profile("dev", max_examples=40, deadline=None, print_blob=True, suppress_health_check=_quiet)
settings.register_profile("fuzz", max_examples=2000, deadline=None, print_blob=True, suppress_health_check=_quiet,
                          phases=list(Phase))
settings.load_profile("ci" if os.environ.get("CI") == "true" else "dev")


def pytest_configure(config):
    if not hasattr(config, "workerinput"):  # the controller chooses one report directory for all workers
        default = ROOT / "test-report" / time.strftime("%Y%m%d-%H%M%S")
        os.environ.setdefault("REFTAPE_REPORT_DIR", str(default))
        from reftape_properties.cli import EXIT_USAGE, UsageError, writable_directory

        try:  # checked before any test runs, never discovered by the first finding
            writable_directory(Path(os.environ["REFTAPE_REPORT_DIR"]))
        except UsageError as error:
            pytest.exit(f"REFTAPE_REPORT_DIR: {error}", returncode=EXIT_USAGE)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """The finding of the example Hypothesis reports (not its shrinking steps) is refereed and recorded."""
    outcome = yield
    report = outcome.get_result()
    if report.when != "call" or call.excinfo is None:
        return
    from reftape_properties.differential import Disagreement
    from reftape_properties.recording import record_finding

    errors = [call.excinfo.value]
    while errors:
        error = errors.pop()
        errors.extend(getattr(error, "exceptions", ()))  # Hypothesis reports distinct failures as a group
        if isinstance(error, Disagreement):
            error.finding.context["test"] = item.nodeid
            record_finding(error.finding.judge())


def pytest_terminal_summary(terminalreporter):
    import json

    from reftape_oracle.catalog import CATALOG
    from reftape_properties.recording import coverage_summary, report_dir

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
def tf():
    """Real TensorFlow, the judge."""
    from reftape_oracle import load_tensorflow

    return load_tensorflow()


@pytest.fixture(scope="session")
def rt():
    """reftape, the candidate."""
    import reftape

    return reftape
