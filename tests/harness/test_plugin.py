"""The pytest plugin (reports/commands/pytest_plugin.py): --reftape-backend runs the backend-agnostic
tests against another module, --reftape-xfails declares that module's known failures.

Each case runs pytest in a subprocess on one per-op test; `wrong_vjp_backend` (tests/backends) is
reftape with sin's gradient doubled, a planted fault the option must expose."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SIN_TEST = "tests/suite/test_ops.py::test_op_matches_tensorflow[sin-float32]"
COS_TEST = "tests/suite/test_ops.py::test_op_matches_tensorflow[cos-float32]"


def _pytest(tmp_path, *args):
    env = dict(os.environ, CI="true", REFTAPE_REPORT_DIR=str(tmp_path / "report"))
    env.pop("REFTAPE_CANDIDATE", None)
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "-W", "default", *args],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)


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
