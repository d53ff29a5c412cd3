"""The pytest plugin (reports/commands/pytest_plugin.py): --reftape-backend runs the backend-agnostic
tests against another module, --reftape-xfails declares that module's known failures, what the backend
lacks is deselected and listed, the suite runs from any directory as `reftape_suite`.

Each case runs pytest in a subprocess on a few tests of the suite; `wrong_vjp_backend` (tests/backends) is
reftape with sin's gradient doubled, a planted fault the option must expose, and `partial_tape` a correct
tape lacking most of the catalog and the jacobians."""

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from reftape_oracle.catalog import CATALOG

ROOT = Path(__file__).resolve().parents[2]
BACKENDS = ROOT / "tests" / "backends"
# A few tests of each kind: per op (ones partial_tape has and lacks), fixed programs, generated programs, forward
# mode (it lacks the accumulator), snippets calling function bodies of another file (it lacks tf.function).
PARTIAL_SUBSET = ("(test_op_matches_tensorflow and (sin- or cast- or matmul)) or test_regressions "
                  "or test_elementwise_unary or test_jacobian_rows or (test_op_jvp_matches_tensorflow and sin-) "
                  "or autograph")
PARTIAL_TAPE_LACKS = len(CATALOG) - 20   # tests/backends/partial_tape.py has 20 of the catalog's ops
SIN_TEST = "tests/suite/test_ops.py::test_op_matches_tensorflow[sin-float32]"
COS_TEST = "tests/suite/test_ops.py::test_op_matches_tensorflow[cos-float32]"


def _pytest(tmp_path, *args, cwd=ROOT, report=True, **env_changes):
    env = dict(os.environ, CI="true", REFTAPE_REPORT_DIR=str(tmp_path / "report"), **env_changes)
    for name in ("REFTAPE_CANDIDATE", "REFTAPE_SURFACE") + (() if report else ("REFTAPE_REPORT_DIR",)):
        env.pop(name, None)
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "-p", "no:cacheprovider",
                           "-W", "default", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=600)


def _unsupported_line(output: str) -> str:
    lines = [line for line in output.splitlines() if line.startswith("reftape: unsupported by")]
    assert len(lines) == 1, output[-3000:]
    return lines[0]


@pytest.mark.runs_long
def test_reftape_passes_where_the_wrong_backend_fails(tmp_path):
    default = _pytest(tmp_path, SIN_TEST, COS_TEST)
    assert default.returncode == 0, default.stdout
    wrong = _pytest(tmp_path, SIN_TEST, COS_TEST, "--reftape-backend", "wrong_vjp_backend")
    assert wrong.returncode == 1, wrong.stdout
    assert "1 failed, 1 passed" in wrong.stdout
    assert f"FAILED {SIN_TEST}" in wrong.stdout


def test_xfails_file_turns_the_known_failure_into_an_xfail(tmp_path):
    xfails = tmp_path / "xfails.txt"
    xfails.write_text("# sin's gradient is doubled on purpose\n"
                      "test_op_matches_tensorflow[sin-  # a substring of the node id\n"
                      "\n"
                      "test_no_such_test\n")
    result = _pytest(tmp_path, SIN_TEST, COS_TEST, "--reftape-backend", "wrong_vjp_backend",
                     "--reftape-xfails", str(xfails))
    assert result.returncode == 0, result.stdout
    assert "1 passed, 1 xfailed" in result.stdout
    assert "1 line(s) match no collected test: test_no_such_test" in result.stdout


def test_an_xfail_that_passes_does_not_fail_the_run(tmp_path):
    xfails = tmp_path / "xfails.txt"
    xfails.write_text("[cos-float32]\n")
    result = _pytest(tmp_path, COS_TEST, "--reftape-backend", "wrong_vjp_backend", "--reftape-xfails", str(xfails))
    assert result.returncode == 0, result.stdout
    assert "1 xpassed" in result.stdout


def test_unimportable_backend_is_a_one_line_usage_error(tmp_path):
    result = _pytest(tmp_path, SIN_TEST, "--reftape-backend", "no_such_tape_module")
    assert result.returncode == 4  # pytest's usage error status
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert lines == ["ERROR: --reftape-backend: cannot import backend 'no_such_tape_module': "
                     "ModuleNotFoundError: No module named 'no_such_tape_module'"]


def test_missing_xfails_file_is_a_one_line_usage_error(tmp_path):
    result = _pytest(tmp_path, SIN_TEST, "--reftape-xfails", str(tmp_path / "absent.txt"))
    assert result.returncode == 4
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "--reftape-xfails: cannot read" in lines[0] and "Traceback" not in result.stderr


@pytest.mark.runs_long
def test_a_partial_tape_passes_with_what_it_lacks_deselected_and_listed(tmp_path):
    result = _pytest(tmp_path, str(ROOT / "tests" / "suite"), "--reftape-backend", "partial_tape",
                     "-k", PARTIAL_SUBSET, cwd=BACKENDS)
    assert result.returncode == 0, result.stdout[-3000:]
    listed = _unsupported_line(result.stdout)
    assert listed.startswith(f"reftape: unsupported by partial_tape: {PARTIAL_TAPE_LACKS} catalog ops, ")
    assert "GradientTape.jacobian, " in listed and "custom_gradient" in listed and "tests deselected" in listed
    assert "(experimental_use_pfor=)" not in listed  # a missing method's keywords go without saying
    passed, deselected = (int(n) for n in re.search(r"(\d+) passed, (\d+) deselected", result.stdout).groups())
    assert passed >= 20 and deselected > 4000  # sin, matmul and the programs ran; cast and the jacobians did not


def test_a_declared_surface_deselects_what_it_names(tmp_path):
    """reftape lacks nothing; a declaration saying it lacks sin deselects sin's tests (and lists it)."""
    surface = tmp_path / "surface.json"
    surface.write_text(json.dumps({"unsupported": ["sin"]}))
    result = _pytest(tmp_path, SIN_TEST, COS_TEST, "--reftape-surface", str(surface))
    assert result.returncode == 0, result.stdout[-3000:]
    assert "1 passed, 1 deselected" in result.stdout
    assert _unsupported_line(result.stdout).startswith("reftape: unsupported by reftape: sin (1 tests deselected")
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"unsupported": ["nope"]}))
    refused = _pytest(tmp_path, SIN_TEST, "--reftape-surface", str(bad))
    assert refused.returncode == 4 and "--reftape-surface" in refused.stderr and "'nope' is no feature" in refused.stderr


def test_require_all_makes_what_a_partial_tape_lacks_a_usage_error(tmp_path):
    result = _pytest(tmp_path, SIN_TEST, "--reftape-backend", "partial_tape", "--reftape-require-all", cwd=BACKENDS)
    assert result.returncode == 4, result.stdout[-3000:]
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith(f"ERROR: --reftape-require-all: partial_tape lacks {PARTIAL_TAPE_LACKS} "
                                                   "catalog ops")
    assert "GradientTape.jacobian" in lines[0]
    complete = _pytest(tmp_path, SIN_TEST, "--reftape-require-all")  # reftape lacks nothing
    assert complete.returncode == 0, complete.stdout[-3000:]


@pytest.mark.runs_long
def test_a_planted_bug_fails_with_a_short_summary_first_message(tmp_path):
    result = _pytest(tmp_path, str(ROOT / "tests" / "suite" / "test_differential.py"), "-k", "test_elementwise_unary",
                     "--reftape-backend", "wrong_vjp_backend", cwd=BACKENDS)
    assert result.returncode == 1, result.stdout[-3000:]
    section = re.split(r"_+ test_elementwise_unary _+\n", result.stdout)[1].split("\n=")[0].strip().splitlines()
    assert section[0].startswith("wrong_vjp_backend disagrees with tensorflow on a program of "), section
    assert 4 <= len(section) <= 16, section
    differing = [line for line in section if line.startswith("  value at calls/")]
    assert differing and all("tensorflow [" in line and "vs wrong_vjp_backend [" in line for line in differing)
    records = tmp_path / "report" / "discrepancies.jsonl"
    assert any(f"in {records}" in line for line in section) and records.exists()
    assert "0x1." not in result.stdout and "tf.GradientTape(" not in result.stdout  # no hex floats, no script
    recorded = json.loads(records.read_text().splitlines()[0])
    assert any(f"--id {recorded['id']}" in line for line in section)


@pytest.mark.runs_long
def test_the_installed_suite_runs_from_any_directory_and_records_there(tmp_path):
    """A non-editable install: the suite is collected from a tape's own folder, the planted bug is found, and
    the records land under that folder (not under pytest's root directory, given elsewhere here)."""
    target = tmp_path / "site"
    install = subprocess.run([sys.executable, "-m", "pip", "install", "-q", str(ROOT), "--no-deps", "--target",
                              str(target)], capture_output=True, text=True, timeout=600)
    assert install.returncode == 0, install.stderr[-2000:]
    assert (target / "reftape_suite" / "test_ops.py").exists()
    tape = tmp_path / "mytape"
    tape.mkdir()
    shutil.copy(BACKENDS / "wrong_vjp_backend.py", tape / "mytape.py")
    result = _pytest(tmp_path, "--pyargs", "reftape_suite", "--reftape-backend", "mytape", "--rootdir", str(tmp_path),
                     "-k", "test_elementwise_unary or test_op_matches_tensorflow[cos-float32]", cwd=tape, report=False,
                     PYTHONPATH=str(target))
    assert result.returncode == 1, result.stdout[-3000:]
    assert "1 failed, 1 passed" in result.stdout
    assert "reftape_suite/test_differential.py::test_elementwise_unary" in result.stdout
    runs = list((tape / "test-report").iterdir())
    assert len(runs) == 1 and (runs[0] / "discrepancies.jsonl").exists()
    assert not (tmp_path / "test-report").exists()


def test_the_checkout_collects_the_suite_once(tmp_path):
    everything = _pytest(tmp_path, "--collect-only")
    suite = _pytest(tmp_path, "--collect-only", "tests/suite")
    ids = [line for line in everything.stdout.splitlines() if "::" in line]
    assert len(ids) > 7000 and len(ids) == len(set(ids))
    suite_ids = [line for line in suite.stdout.splitlines() if "::" in line]
    assert len(suite_ids) > 4000 and [i for i in ids if i.startswith("tests/suite/")] == suite_ids
