"""The commands as a user runs them (subprocesses of the installed entry points): exit statuses 0 / 1 /
2 / 3 / 130, one line on stderr and never a traceback for bad input, readable discrepancies, findings
replayed by id, streaming conformance that keeps its partial table on Ctrl-C, a quiet TensorFlow
import, and a clear line when TensorFlow is not installed. The conformance rows' tests run the command's `main`
in-process (below)."""

import copy
import importlib
import json
import os
import signal
import subprocess
import sys
import tomllib
from pathlib import Path

import numpy as np
import pytest

from reftape_oracle.program import Call, Leaf, Op, Program, Tape, Watch
from reftape_properties.judge.known import KNOWN
from test_validation import BAD_INPUTS, mutated, program_data

BIN = Path(sys.executable).parent
TESTS = Path(__file__).parent.parent
ROOT = TESTS.parent
BACKENDS = TESTS / "backends"  # the planted backends, imported by module name from the cwd
TF_LOG_LINES = ("I0000", "E0000", "W0000", "oneDNN", "cuda", "absl::InitializeLog")


def environment(**changes) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "TF_CPP_MIN_LOG_LEVEL"}  # the commands quieten TF themselves
    env.update(changes)
    return env


def command(name: str, *args, cwd: Path = ROOT, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([str(BIN / name), *map(str, args)], capture_output=True, text=True, cwd=cwd,
                          env=env or environment(), timeout=600)


def _entry_point_problems(entry_points: dict[str, str]) -> list[str]:
    """What is wrong with `name = "module:attribute"` entry points: a module that does not import, an
    attribute that is not callable."""
    problems = []
    for name, target in entry_points.items():
        module, _, attribute = target.partition(":")
        try:
            loaded = importlib.import_module(module)
        except ImportError as error:
            problems.append(f"{name}: {error}")
            continue
        if attribute and not callable(getattr(loaded, attribute, None)):
            problems.append(f"{name}: {module} has no callable {attribute}")
    return problems


def test_every_entry_point_in_pyproject_loads():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert _entry_point_problems({**project["scripts"], **project["entry-points"]["pytest11"]}) == []
    assert all((BIN / name).exists() for name in project["scripts"])


def test_the_entry_point_check_sees_stale_targets():
    assert _entry_point_problems({"a": "reftape_properties.cli:no_such_main", "b": "reftape_reports.nothing:main"}) == [
        "a: reftape_properties.cli has no callable no_such_main", "b: No module named 'reftape_reports.nothing'"]


def one_line_error(result: subprocess.CompletedProcess, status: int, *fragments: str) -> str:
    """Asserts the exit status and a one-line stderr holding every fragment; returns the line."""
    assert result.returncode == status, (result.returncode, result.stdout[-2000:], result.stderr[-2000:])
    line = result.stderr.strip()
    assert "Traceback" not in line and "\n" not in line, line
    for fragment in fragments:
        assert fragment in line, line
    return line


def write(path: Path, data) -> Path:
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


def sin_program() -> Program:
    return Program([Leaf("x", "constant", np.array([0.5, 1.0, -2.0], np.float32), "float32"),
                    Leaf("n", "constant", np.array([-1.0, 4.0], np.float32), "float32"),
                    Tape("t", [Watch("t", ["x"]), Op("y", "sin", ["x"]), Op("r", "sqrt", ["n"])]),
                    Call("g", "t", "gradient", "y", "x")], ["y", "r"])


# A backend planted in the current directory: sin's VJP doubled, sqrt finite where TF's is NaN.
PLANTED_BACKEND = '''
import reftape as _reftape
from reftape import *
from reftape import linalg, math, nn


@_reftape.custom_gradient
def sin(x):
    return _reftape.sin(x), lambda upstream: upstream * 2.0 * _reftape.cos(x)


def sqrt(x):
    return _reftape.sqrt(_reftape.abs(x))
'''


# -- Every command ------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["reftape-replay", "reftape-conformance"])
def test_version_on_every_command(name):
    result = command(name, "--version")
    assert result.returncode == 0 and result.stdout.startswith(f"{name} ")


def test_python_dash_m_runs_the_same_command():
    result = subprocess.run([sys.executable, "-m", "reftape_reports.commands.reftape_replay", "--version"], capture_output=True,
                            text=True, cwd=ROOT)
    assert result.returncode == 0 and result.stdout.startswith("reftape-replay ")


# -- Bad input: exit 2, one line, nothing run ------------------------------------------------------------


@pytest.mark.parametrize("name", ["typo in an input name", "method hessian", "persistent 'yes'", "unknown op",
                                  "25 nested tapes", "Infinity", "reset outside its tape"])
def test_an_invalid_program_is_one_line_and_exit_2(name, tmp_path):
    change, path, message = BAD_INPUTS[name]
    result = command("reftape-replay", write(tmp_path / "p.json", mutated(change)))
    one_line_error(result, 2, "invalid program", path, message)


def test_three_thousand_deep_nesting_is_one_line_and_exit_2(tmp_path):
    text = '{"statements": [' + '{"statement": "Tape", "name": "t", "body": [' * 3000 + "]}" * 3000 + "]}"
    one_line_error(command("reftape-replay", write(tmp_path / "deep.json", text)), 2, "nested too deeply")


def test_an_unreadable_program_file_is_one_line_and_exit_2(tmp_path):
    one_line_error(command("reftape-replay", tmp_path / "missing.json"), 2, "cannot read", "missing.json")
    one_line_error(command("reftape-replay", write(tmp_path / "p.json", "{not json")), 2, "not JSON")


def test_a_bad_time_limit_is_exit_2(tmp_path):
    result = command("reftape-replay", write(tmp_path / "p.json", program_data()), "--time-limit", "-1")
    assert result.returncode == 2 and "is not a positive number of seconds" in result.stderr
    assert "Traceback" not in result.stderr


def test_unimportable_backends_are_exit_2_before_anything_runs(tmp_path):
    result = command("reftape-replay", write(tmp_path / "p.json", program_data()), "--backend", "nope",
                     "--against", "nope2")
    one_line_error(result, 2, "cannot import backend 'nope'")


def test_decimal_strings_and_json_numbers_reach_the_script_as_decimals(tmp_path):
    data = {"statements": [{"statement": "Leaf", "name": "x", "kind": "constant", "dtype": "float64",
                            "value": {"kind": "tensor", "dtype": "float64", "shape": [3],
                                      "data": ["0.5", 0.5, "0x1.8p-1"]}}], "outputs": ["x"]}
    result = command("reftape-replay", write(tmp_path / "p.json", data), "--source")
    assert result.returncode == 0 and "np.array([0.5, 0.5, 0.75], dtype='float64')" in result.stdout


def test_source_imports_the_backend_it_is_asked_for(tmp_path):
    program = write(tmp_path / "p.json", program_data())
    assert "\nimport mypkg.tape as tf\n" in command("reftape-replay", program, "--source", "--backend",
                                                     "mypkg.tape").stdout
    assert "\nimport tensorflow as tf\n" in command("reftape-replay", program, "--source").stdout
    one_line_error(command("reftape-replay", program, "--source", "--backend", "x; import os"), 2, "not a module name")


# -- Verdicts ----------------------------------------------------------------------------------------------


def test_readable_discrepancies_from_a_backend_in_the_current_directory(tmp_path):
    write(tmp_path / "planted.py", PLANTED_BACKEND)
    program = write(tmp_path / "p.json", sin_program().to_json())
    result = command("reftape-replay", program, "--backend", "planted", cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    out = result.stdout
    assert "value at calls/g (t.gradient of y, target computed by op sin)" in out
    assert "worst element [0]: tensorflow 0.87758255 (0x1.c152800000000p-1), planted 1.7551651 (0x1.c152800000000p+0)" in out
    assert "max |difference| 0.878, max relative difference 1" in out
    assert "referee: candidate-wrong" in out
    assert "nan-inf-pattern at values/r (op sqrt)" in out
    assert "NaN/inf pattern differs at 1 of 2 element(s), first at [0]: tensorflow nan (nan), planted 1.0" in out
    assert "rel.err 0" not in out


def test_a_known_divergence_says_so_and_exits_0(tmp_path):
    known = next(k for k in KNOWN if k.number == 2)  # complex elementary functions at overflow
    result = command("reftape-replay", write(tmp_path / "known.json", known.program.to_json()))
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"known divergence 2: {known.title}" in result.stdout
    assert "every discrepancy is a known divergence" in result.stdout


def test_a_reference_that_times_out_is_a_harness_error_exit_3(tmp_path):
    program = write(tmp_path / "p.json", sin_program().to_json())
    result = command("reftape-replay", program, "--against", "slow_backend", "--time-limit", "0.5", cwd=BACKENDS)
    line = one_line_error(result, 3, "harness error", "slow_backend", "time limit")
    assert "agree" not in result.stdout, line


def test_a_reference_lacking_names_is_a_harness_error_exit_3(tmp_path):
    program = write(tmp_path / "p.json", sin_program().to_json())
    result = command("reftape-replay", program, "--against", "incomplete_backend", cwd=BACKENDS)
    one_line_error(result, 3, "harness error", "incomplete_backend (the reference) lacks", "sin")
    assert "agree" not in result.stdout


# -- Findings replayed by id ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def recorded(tmp_path_factory, tf):
    """A discrepancies.jsonl holding one real finding (wrong_vjp_backend against TensorFlow)."""
    from reftape_properties.pipeline import evaluate
    from reftape_properties.findings.store import record_finding

    directory = tmp_path_factory.mktemp("report")
    finding = evaluate(sin_program(), "wrong_vjp_backend")
    assert finding is not None
    record_finding(finding, directory)
    return directory / "discrepancies.jsonl", finding


def test_replay_of_a_recorded_finding_by_id(recorded):
    path, finding = recorded
    result = command("reftape-replay", path, "--id", finding.id, cwd=BACKENDS)
    assert result.returncode == 1, result.stderr
    assert f"== replaying finding {finding.id} (value, recorded {finding.timestamp}" in result.stdout
    assert "wrong_vjp_backend against tensorflow" in result.stdout and "candidate-wrong" in result.stdout


def test_an_unknown_id_is_exit_2(recorded):
    path, finding = recorded
    one_line_error(command("reftape-replay", path, "--id", "nope"), 2, "no finding with id 'nope'", finding.id)


def test_a_tampered_record_is_skipped_and_runs_nothing(recorded, tmp_path):
    path, finding = recorded
    marker = tmp_path / "created"
    record = json.loads(path.read_text().splitlines()[0])
    record["program"]["statements"][0]["name"] = f"x; __import__('pathlib').Path({str(marker)!r}).touch(); x"
    tampered = write(tmp_path / "discrepancies.jsonl", json.dumps(record) + "\n")
    result = command("reftape-replay", tampered, "--id", finding.id, cwd=BACKENDS)
    assert result.returncode == 2 and not marker.exists()
    warning, error = result.stderr.strip().splitlines()
    assert "warning:" in warning and "statements[0].name" in warning
    assert f"no finding with id {finding.id!r}" in error and "Traceback" not in result.stderr


def test_a_file_without_findings_is_exit_2_with_few_warnings(tmp_path):
    result = command("reftape-replay", ROOT / "examples" / "matvec_relu.json", "--id", "abc")
    assert result.returncode == 2 and "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 5 and "more malformed records skipped" in lines[3]
    assert "no finding with id 'abc'" in lines[4] and "(0 findings: none)" in lines[4]


# -- Report directories --------------------------------------------------------------------------------------


def test_an_unwritable_report_directory_stops_pytest_before_any_test(tmp_path):
    blocker = write(tmp_path / "a-file", "")
    result = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:randomly",
                             str(TESTS / "harness" / "test_cli.py"), "-k", "version"],
                            capture_output=True, text=True, cwd=ROOT,
                            env=environment(REFTAPE_REPORT_DIR=str(blocker / "reports")), timeout=300)
    assert result.returncode == 2, result.stdout + result.stderr
    output = result.stdout + result.stderr
    assert "REFTAPE_REPORT_DIR" in output and "is not writable" in output and "Traceback" not in output
    assert "passed" not in output


# -- Conformance ----------------------------------------------------------------------------------------------


def test_fuzz_lists_the_catalog_paths_and_runs_nothing(tmp_path):
    from reftape_oracle.catalog import CATALOG

    result = command("reftape-fuzz", "--list-ops", cwd=tmp_path)
    assert result.returncode == 0 and result.stdout.splitlines() == list(CATALOG)
    assert list(tmp_path.iterdir()) == []   # no report directory: nothing ran


def test_fuzz_selects_a_family_of_the_ci_profiles_split(tmp_path):
    """`--ops family:NAME` is the CI differential test's family (tests/suite/test_differential.py), globs beside it;
    an unknown family is a usage error that names the families."""
    from reftape_oracle.catalog import FAMILIES

    result = command("reftape-fuzz", "--list-ops", "--ops", "family:linalg,sin", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert set(result.stdout.splitlines()) == set(FAMILIES["linalg"]) | {"sin"}
    one_line_error(command("reftape-fuzz", "--list-ops", "--ops", "family:lin", cwd=tmp_path), 2,
                   "no family 'lin' (families: elementwise_binary, elementwise_unary, linalg")


def test_fuzz_lists_which_selected_ops_a_backend_lacks(tmp_path):
    lacking = command("reftape-fuzz", "--list-ops", "--ops", "sin,math.log*", "--backend", "incomplete_backend",
                      cwd=BACKENDS)
    having = command("reftape-fuzz", "--list-ops", "--ops", "sin,math.log*", "--backend", "reftape", cwd=tmp_path)
    assert lacking.returncode == having.returncode == 0, (lacking.stderr, having.stderr)
    assert lacking.stdout.splitlines() == ["lacks sin", "lacks math.log", "lacks math.log1p", "lacks math.log_sigmoid",
                                           "lacks autodiff.ForwardAccumulator", "lacks cond", "lacks custom_gradient",
                                           "lacks while_loop", "incomplete_backend has 0 of these 4 catalog ops"]
    assert having.stdout.splitlines()[-1] == "reftape has 4 of these 4 catalog ops"
    one_line_error(command("reftape-fuzz", "--list-ops", "--ops", "no_such_op", cwd=tmp_path), 2, "matches no catalog op")


@pytest.mark.runs_long
def test_conformance_streams_and_keeps_its_partial_table_on_ctrl_c(tmp_path):
    report = tmp_path / "rows.json"
    process = subprocess.Popen([str(BIN / "reftape-conformance"), "--json", str(report)], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, cwd=ROOT, env=environment())
    rows = []
    for line in process.stdout:  # rows arrive while the command runs
        rows.append(line)
        if len(rows) == 2:
            process.send_signal(signal.SIGINT)
            break
    # the rest through the buffer the rows came from (communicate reads the pipe itself and would miss
    # what that buffer already holds)
    out, err = process.stdout.read(), process.stderr.read()
    process.wait(timeout=120)
    assert process.returncode == 130, err
    assert rows[0].startswith("[ 1/99] seed ") and rows[1].startswith("[ 2/99] seed ")
    assert "interrupted after" in out and "of 99 rows" in out
    assert "Traceback" not in err and not any(marker in err for marker in TF_LOG_LINES), err
    saved = json.loads(report.read_text())
    assert saved["complete"] is False and len(saved["rows"]) >= 2 and saved["rows"][0]["status"] == "agrees"


def test_conformance_checks_its_arguments_before_running(tmp_path):
    one_line_error(command("reftape-conformance", "--backend", "nope"), 2, "cannot import backend 'nope'")
    blocker = write(tmp_path / "a-file", "")
    one_line_error(command("reftape-conformance", "--json", blocker / "rows.json"), 2, "is not writable")


# The rows' tests run the command's `main` in this process (what they check is the rows and the exit status; the
# process is checked above: entry point, Ctrl-C, one-line errors), with TensorFlow's outcome of each snippet
# computed once and shared: it is a function of the snippet's code (and the probe helper a catalog entry
# runs with), which the memo is keyed by, and TensorFlow runs with op determinism.
_REFERENCE_OUTCOMES: dict = {}


def _reference_memoized(run, key_of):
    def run_memoized(snippet, ns):
        if getattr(ns, "__name__", "") != "tensorflow":
            return run(snippet, ns)
        key = (run.__name__, *key_of(snippet))
        if key not in _REFERENCE_OUTCOMES:
            _REFERENCE_OUTCOMES[key] = run(snippet, ns)
        return copy.deepcopy(_REFERENCE_OUTCOMES[key])
    return run_memoized


@pytest.fixture
def conformance(monkeypatch, capsys):
    """Runs reftape-conformance's `main` in this process, from tests/backends (where the planted backends are
    found), TensorFlow's outcomes memoized; its exit status and what it printed."""
    from reftape_properties.conformance import snippets
    from reftape_reports.commands.reftape_conformance import main

    monkeypatch.setattr(snippets, "run_catalog_entry", _reference_memoized(
        snippets.run_catalog_entry, lambda entry: (entry.source, snippets._probe_helper("_grad"))))
    monkeypatch.setattr(snippets, "run_seed", _reference_memoized(
        snippets.run_seed, lambda name: (name, (snippets.CORPUS / "seeds" / name).read_text())))
    monkeypatch.chdir(BACKENDS)
    monkeypatch.setattr(sys, "path", list(sys.path))   # whatever the command adds to it goes with the test

    def run(*args) -> tuple[int, str, str]:
        status = main([str(a) for a in args])
        printed = capsys.readouterr()
        return status, printed.out, printed.err
    return run


def conformance_rows(conformance, backend: str, tmp_path: Path) -> tuple[int, dict]:
    """Runs reftape-conformance on a backend of tests/backends; its exit status, and its rows by label start
    ("catalog 24", "seed 003_...")."""
    report = tmp_path / f"{backend}.json"
    status, out, err = conformance("--backend", backend, "--json", report)
    assert "Traceback" not in out + err, err[-2000:]
    saved = json.loads(report.read_text())
    assert saved["complete"] and len(saved["rows"]) == saved["total"] == 99
    return status, {" ".join(r["label"].split()[:2]): r for r in saved["rows"]}


# The rows about each planted fault: catalog entry 24 is about watch_accessed_variables=False (and seed
# 002 uses it), entry 88 about means over an axis.
@pytest.mark.parametrize("backend, about", [
    ("ignores_watch_accessed_backend", {"catalog 24", "seed 002_f601a798f94f017f.txt"}),
    ("wrong_reduce_mean_backend", {"catalog 88"})])
@pytest.mark.runs_long
def test_conformance_fails_a_tape_on_the_rows_about_what_it_gets_wrong(backend, about, conformance, tmp_path):
    status, rows = conformance_rows(conformance, backend, tmp_path)
    assert status == 1
    assert {label for label, r in rows.items() if r["category"] == "differ"} == about
    assert all(rows[label]["status"].startswith("DIFFERS") for label in about)
    assert rows["catalog 11"]["category"] == "out of scope"
    assert {r["category"] for label, r in rows.items() if label not in about | {"catalog 11"}} == {"agree"}


@pytest.mark.runs_long
def test_conformance_runs_what_a_partial_backend_can_and_marks_the_rest_not_run(conformance, tmp_path):
    """incomplete_backend has only GradientTape, Variable, constant and UnconnectedGradients: the rows that
    need no more run (and agree), the others are listed as not run with what it lacks, nothing is a
    finding, and the run exits 3 (an incomplete run is no agreement)."""
    status, rows = conformance_rows(conformance, "incomplete_backend", tmp_path)
    assert status == 3
    assert rows["seed 003_ed218fa13605fb4b.txt"]["status"] == "not run: lacks tf.float32, tf.pow, tf.random"
    assert rows["catalog 1"]["category"] == rows["catalog 24"]["category"] == "agree"
    assert {r["category"] for r in rows.values()} == {"agree", "not run", "out of scope"}


def test_conformance_exit_status_for_each_kind_of_row():
    from reftape_reports.commands.reftape_conformance import CATEGORIES, _exit_status

    def status(**counts):
        return _exit_status({c: counts.get(c.replace(" ", "_"), 0) for c in CATEGORIES}, interrupted=False)
    assert status(agree=3, out_of_scope=1) == 0
    assert status(agree=3, differ=1, not_run=2) == 1
    assert status(agree=3, not_run=1) == 3
    assert status(agree=3, differ=1, harness_error=1) == 3


@pytest.mark.runs_long
def test_conformance_marks_a_harness_error_and_exits_3(conformance, monkeypatch, tmp_path):
    """A catalog whose entry does not compile (planted in a copy of the corpus the command reads)."""
    from reftape_properties.conformance import snippets

    corpus = tmp_path / "corpus"
    (corpus / "seeds").mkdir(parents=True)
    for seed in (snippets.CORPUS / "seeds").iterdir():
        write(corpus / "seeds" / seed.name, seed.read_text())
    probe = (snippets.CORPUS / "tf_semantics_probe.py").read_text()
    marker = "def _():\n"
    first = probe.index(marker) + len(marker)
    write(corpus / "tf_semantics_probe.py", probe[:first] + "    show('undefined', undefined_name)\n" + probe[first:])
    monkeypatch.setattr(snippets, "CORPUS", corpus)
    report = tmp_path / "rows.json"
    status, out, err = conformance("--json", report)
    assert status == 3, (out[-2000:], err[-2000:])
    rows = json.loads(report.read_text())["rows"]
    assert [r["label"][:10] for r in rows if r["category"] == "harness error"] == ["catalog  1"]
    assert "the reference raised NameError" in rows[4]["differences"][0]
    assert "1 harness error" in out and "HARNESS ERROR" in out


def test_missing_tensorflow_is_one_line_naming_the_extra(tmp_path):
    """A meta-path finder installed at start-up (sitecustomize) hides TensorFlow from the commands."""
    hide = tmp_path / "hide"
    hide.mkdir()
    write(hide / "sitecustomize.py", (
        "import sys\n"
        "class HideTensorFlow:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'tensorflow' or name.startswith('tensorflow.'):\n"
        "            raise ModuleNotFoundError(f'No module named {name!r}', name=name)\n"
        "sys.meta_path.insert(0, HideTensorFlow())\n"))
    env = environment(PYTHONPATH=str(hide))
    for name, args in (("reftape-conformance", ()), ("reftape-replay", (write(tmp_path / "p.json", program_data()),))):
        one_line_error(command(name, *args, env=env), 2, "TensorFlow is not installed", "pip install 'reftape[harness]'")


def test_the_oracle_imports_tensorflow_quietly():
    code = "from reftape_oracle import load_tensorflow\ntf = load_tensorflow()\nprint(float(tf.constant(1.0) + 1))\n"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=environment(),
                            timeout=300)
    assert result.returncode == 0 and result.stdout.strip() == "2.0"
    assert not any(marker in result.stderr for marker in TF_LOG_LINES), result.stderr


def test_the_referees_estimate_is_printed_when_present():
    """Readable output of a finding built from recorded outcomes (no backend runs)."""
    from reftape_oracle.outcome import Outcome, describe
    from reftape_properties.judge.compare import Discrepancy
    from reftape_properties.findings.record import Finding
    from reftape_reports.commands.reftape_replay import describe_finding

    program = sin_program()
    expected = Outcome("tensorflow", calls={"g": describe(np.array([0.5, 0.25, 1.0], np.float32), None)})
    actual = Outcome("mine", calls={"g": describe(np.array([0.5, 0.75, 1.0], np.float32), None)})
    d = Discrepancy("value", "calls/g", expected.calls["g"]["data"], actual.calls["g"]["data"], 2.0, 1e7,
                    {"relative": 1e-6, "absolute_scale": 1e-6}, "float32", "candidate-wrong", [0.5, 0.2500001, 1.0])
    text = describe_finding(Finding(program, expected, actual, [d], candidate="mine"))
    assert "worst element [1]: tensorflow 0.25 (0x1.0000000000000p-2), mine 0.75 (0x1.8000000000000p-1)" in text
    assert "max |difference| 0.5, max relative difference 2 (1e+07 ulps); tolerance: relative 1e-06" in text
    assert "referee's numerical estimate there: 0.2500001" in text and "referee: candidate-wrong" in text
