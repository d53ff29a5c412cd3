"""HTML reports and clusters, rendered from real findings (TensorFlow against a planted wrong VJP).

The planted fault: `tests/backends/wrong_vjp_backend.py` doubles sin's derivative. Its findings are real: both
sides run, and the expected gradient is TensorFlow's cos(x).
"""

import copy
import dataclasses
import html.parser
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import types

import numpy as np
import pytest

import wrong_vjp_backend
from reftape_oracle.program import Call, Leaf, Op, Program, Tape, Watch
from reftape_properties.explain.clusters import cluster, size
from reftape_properties.explain.divergence import first_divergence
from reftape_properties.pipeline import evaluate
from reftape_properties.findings.store import record_finding, report_dir
from reftape_properties.explain.minimize import minimize
from reftape_reports import render
from reftape_reports.commands.reftape_report import main as report_main

SCRIPT = "<script>alert('x')</script>"


def sin_program(values, extra_ops=0):
    """y1 = sin(c1) under a tape (plus `extra_ops` cos ops that do not feed the gradient)."""
    body = [Watch("t0", ["c1"]), Op("y1", "sin", ["c1"])]
    body += [Op(f"y{2 + i}", "cos", ["c1"]) for i in range(extra_ops)]
    statements = [Leaf("c1", "constant", np.array(values, dtype=np.float32), "float32"), Tape("t0", body),
                  Call("g1", "t0", "gradient", "y1", "c1")]
    return Program(statements, ["y1"])


def script_backend():
    """wrong_vjp_backend under a name that is markup, whose cos raises with markup in its message."""
    module = types.ModuleType(SCRIPT)
    module.__dict__.update({k: v for k, v in vars(wrong_vjp_backend).items() if not k.startswith("__")})

    def cos(x):
        raise ValueError(f"cos refused {SCRIPT}")

    module.cos = cos
    return module


@pytest.fixture(scope="module")
def findings():
    """Real findings: the planted sin fault three times (different sizes) with their first divergent
    node named, and one raising markup (its backend has no importable name to explain it with)."""
    found = [evaluate(sin_program([0.5, 1.0, -2.0], extra_ops=n), "wrong_vjp_backend") for n in (2, 0, 1)]
    escaped = evaluate(sin_program([0.25], extra_ops=1), script_backend())
    assert all(found) and escaped is not None
    return [first_divergence(f) for f in found] + [escaped]


def test_the_planted_fault_is_a_value_finding_blamed_on_the_candidate(findings):
    finding = findings[0]
    (gradient,) = [d for d in finding.discrepancies if d.where == "calls/g1"]
    assert gradient.kind == "value" and gradient.verdict == "candidate-wrong"


def test_one_root_cause_is_one_cluster_keeping_count_ids_and_smallest_program(findings):
    sin_findings = findings[:3]
    (only,) = cluster(sin_findings)
    assert only.count == 3 and only.ids == [f.id for f in sin_findings]
    assert only.smallest is sin_findings[1] and size(only.smallest) == min(size(f) for f in sin_findings)


def test_an_explained_form_counts_with_the_finding_it_came_from(findings):
    original = findings[0]
    minimal = dataclasses.replace(findings[1], id="", explained_from=original.id)
    (only,) = cluster([original, minimal])
    assert only.count == 1 and only.ids == [original.id] and only.smallest is minimal


def test_a_form_covered_by_a_minimal_finding_joins_its_cluster(findings):
    first, second, minimal_source = findings[0], findings[2], findings[1]
    minimal = dataclasses.replace(minimal_source, id="", suspect="sin", explained_from=first.id)
    covered = dataclasses.replace(copy.deepcopy(second), id="", suspect="sin",
                                  explained_from=second.id, covered_by=minimal.id)
    covered.program.statements[1].persistent = True   # a tape option the minimal program does not have
    assert covered.signature() != minimal.signature()
    (only,) = cluster([first, minimal, second, covered])
    assert only.ids == [first.id, second.id] and only.smallest is minimal


def test_different_root_causes_are_different_clusters(findings):
    clusters = cluster(findings)
    assert sorted(c.count for c in clusters) == [1, 3]


def test_clusters_read_candidate_wrong_first_then_definite_differences_then_by_count(findings):
    def undecided(finding):
        discrepancies = [dataclasses.replace(d, verdict="undecided" if d.verdict else None) for d in finding.discrepancies]
        return dataclasses.replace(finding, id="", discrepancies=discrepancies)

    blamed, exception = findings[0], findings[3]
    clusters = cluster([undecided(findings[1]) for _ in range(4)] + [exception, blamed])
    assert [(c.verdict, c.count) for c in clusters] == [("candidate-wrong", 1), (None, 1), ("undecided", 4)]


def _record(directory, findings):
    for finding in findings:
        record_finding(finding, directory)


class _Text(html.parser.HTMLParser):
    """The text of a page, and the content of its <script> elements."""

    def __init__(self):
        super().__init__()
        self.text, self.scripts, self.tags, self._in_script = [], [], [], False

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        self._in_script = tag == "script"

    def handle_endtag(self, tag):
        self._in_script = False

    def handle_data(self, data):
        (self.scripts if self._in_script else self.text).append(data)


def _parse(page):
    parser = _Text()
    parser.feed(page)
    return parser


def test_markup_in_a_name_program_or_message_shows_as_text(tmp_path, findings):
    _record(tmp_path, findings)
    parsed = _parse(render(tmp_path).read_text())
    text = "".join(parsed.text)
    # Programs cannot carry markup (their names are identifiers, attribute strings catalog values);
    # a candidate's name and its exception messages can.
    assert f"candidate {SCRIPT} against" in " ".join(text.split())
    assert f"cos refused {SCRIPT}" in text
    assert not any("alert" in script for script in parsed.scripts)  # only the page's own copy button script


def test_the_page_is_self_contained(tmp_path, findings):
    _record(tmp_path, findings[:1])
    parsed = _parse(render(tmp_path).read_text())
    assert not [a for tag, a in parsed.tags if tag in ("link", "img", "iframe") or (tag == "script" and "src" in a)]
    links = [a["href"] for tag, a in parsed.tags if tag == "a"]
    assert links and all(link.startswith(("repro/", "#cluster-")) for link in links)   # nothing outside the report


def _run_repro(directory, finding) -> str:
    """The output of the repro script the report writes for `finding`, run on plain TensorFlow."""
    _record(directory, [finding])
    render(directory)
    script = directory / "repro" / f"{finding.id}.py"
    assert not re.search(r"^\s*(import|from) reftape", script.read_text(), re.MULTILINE)  # plain TensorFlow
    shown = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120,
                           cwd=tempfile.gettempdir(), env={**os.environ, "PYTHONPATH": ""})
    assert shown.returncode == 0, shown.stderr
    return shown.stdout


def _assert_shows_sin_gradients(output: str, points: tuple) -> None:
    """TF's gradient of sin at `points` is cos(x); the planted backend recorded twice that."""
    rows = {line.split()[0]: line.split()[1:4] for line in output.splitlines() if line.startswith("(")}
    for i, x in enumerate(points):
        tf_value, candidate, difference = (float(v) for v in rows[f"({i},)"])
        assert tf_value == pytest.approx(np.cos(np.float32(x)), rel=1e-6)
        assert candidate == pytest.approx(2 * np.cos(np.float32(x)), rel=1e-6)
        assert difference == pytest.approx(abs(np.cos(np.float32(x))), rel=1e-5)


def test_the_repro_script_shows_the_difference_on_tensorflow(tmp_path, findings):
    output = _run_repro(tmp_path, findings[0])
    _assert_shows_sin_gradients(output, (0.5, 1.0, -2.0))
    assert "worst element (0,)" in output  # cos(0.5) is the largest of |cos(x)|
    assert "differ at 1 of 1 recorded places: calls/g1" in output


def test_the_repro_script_runs_programs_with_namedtuple_structures(tmp_path):
    """The generated program defines its namedtuple types with `collections`: the script imports it
    (without, TF's run stopped at a NameError and every place showed TF's value as null)."""
    program = sin_program([0.5, -1.0])
    program.statements[-1] = Call("g1", "t0", "gradient", "y1", {"namedtuple": ["Pair", [["a", "c1"]]]})
    finding = evaluate(program, "wrong_vjp_backend")
    assert finding is not None
    output = _run_repro(tmp_path, finding)
    assert "TensorFlow raised" not in output
    _assert_shows_sin_gradients(output, (0.5, -1.0))


def test_the_repro_script_reports_an_error_tensorflow_raised_outside_the_calls(tmp_path, findings):
    finding = copy.deepcopy(findings[0])  # its leaf made int32: TF's sin has no int32 kernel
    finding.program.statements[0] = dataclasses.replace(finding.program.statements[0], dtype="int32",
                                                        value=np.array([1, 2, 3], dtype=np.int32))
    output = _run_repro(tmp_path, finding)
    assert "TensorFlow raised outside the calls: tf.errors.InvalidArgumentError" in output


def test_reftape_report_rerenders_from_the_records(tmp_path, findings, capsys):
    _record(tmp_path, findings[:1])
    assert report_main([str(tmp_path)]) == 0
    assert (tmp_path / "index.html").exists() and (tmp_path / "repro" / f"{findings[0].id}.py").exists()
    assert str(tmp_path / "index.html") in capsys.readouterr().out


# Rendering reads records: it needs neither a backend nor the generator (each loads hundreds of modules).
HEAVY = ("hypothesis", "reftape", "tensorflow")
_IMPORTED_WHILE = """
import sys
{code}
print("imported:", *sorted({{m.split(".")[0] for m in sys.modules}} & set({heavy!r})))
"""


def _heavy_imports_while(code: str) -> list[str]:
    ran = subprocess.run([sys.executable, "-c", _IMPORTED_WHILE.format(code=code, heavy=HEAVY)], capture_output=True,
                         text=True, timeout=300, check=True)
    return ran.stdout.splitlines()[-1].split()[1:]


def test_rendering_a_report_imports_neither_hypothesis_nor_a_backend(tmp_path, findings):
    _record(tmp_path, findings)
    rendered = f"from reftape_reports.commands.reftape_report import main; assert main([{str(tmp_path)!r}]) == 0"
    assert _heavy_imports_while(rendered) == []
    assert (tmp_path / "index.html").exists()


def test_the_import_check_sees_a_planted_heavy_import():
    assert _heavy_imports_while("import hypothesis.strategies") == ["hypothesis"]


def test_reftape_report_rejects_a_missing_directory_in_one_line(tmp_path):
    shown = subprocess.run([sys.executable, "-m", "reftape_reports.commands.reftape_report", str(tmp_path / "absent")],
                           capture_output=True, text=True, timeout=60)
    assert shown.returncode == 2
    assert shown.stderr.count("\n") == 1 and "does not exist" in shown.stderr


def test_reftape_report_refuses_a_directory_without_records_in_one_line(tmp_path):
    (tmp_path / "notes.txt").write_text("not a record")
    shown = subprocess.run([sys.executable, "-m", "reftape_reports.commands.reftape_report", str(tmp_path)],
                           capture_output=True, text=True, timeout=60)
    assert shown.returncode == 2 and not shown.stdout
    (line,) = shown.stderr.splitlines()
    assert line.startswith("reftape-report: error: report directory") and "holds no records" in line
    assert not (tmp_path / "index.html").exists()


def test_reftape_report_refuses_a_merge_source_without_records(tmp_path, findings):
    source, empty = tmp_path / "source", tmp_path / "empty"
    source.mkdir(), empty.mkdir()
    _record(source, findings[:1])
    assert report_main([str(tmp_path / "merged"), "--merge", str(source), str(empty)]) == 2
    assert not (tmp_path / "merged" / "index.html").exists()


def test_a_minimisation_cut_short_says_so_on_the_page(tmp_path, findings):
    original = findings[0]
    cut = minimize(original, max_evaluations=1)
    assert cut.minimized["stopped_by"] == "evaluations"
    _record(tmp_path, [original, dataclasses.replace(cut, id="", explained_from=original.id)])
    assert report_main([str(tmp_path)]) == 0
    page = (tmp_path / "index.html").read_text()
    assert "minimisation cut short by its budget of evaluations after 1 evaluations" in page


def _run_record(**result):
    """run.json as reftape-fuzz writes it (the fields the page reads), with `result` as given."""
    return {"command": "reftape-fuzz --max-examples 5", "started": "2026-11-27T14:00:00+00:00",
            "configuration": {"backend": "reftape", "ops": ["sin"]}, "hypothesis": "6",
            "environment": {}, **({"result": {"examples": 0, "seconds": 1.0, "examples_per_second": 0.0,
                                              "findings_by_kind": {}, "suspects": {}, "unexplained": 0, "known": 0,
                                              "replayed": 0, "interrupted": False, "harness_error": None,
                                              "worker_deaths": [], **result}} if result else {})}


@pytest.mark.parametrize("result, badge", [
    ({"examples": 0, "interrupted": True}, "no program ran"),
    ({"examples": 4, "harness_error": "worker 0 died of SIGSEGV while starting"}, "harness error"),
    ({}, "run unfinished"),
], ids=["nothing-ran", "harness-error", "unfinished"])
def test_a_run_that_checked_nothing_is_never_shown_as_agreement(tmp_path, result, badge):
    (tmp_path / "run.json").write_text(json.dumps(_run_record(**result)))
    if result.get("examples") or not result:   # programs ran (their coverage lines), found nothing
        (tmp_path / "coverage.jsonl").write_text('{"ops": ["sin"], "dtypes": ["float32"], "options": []}\n' * 4)
    assert report_main([str(tmp_path)]) == 0
    page = (tmp_path / "index.html").read_text()
    assert f'<span class="badge bad">{badge}</span>' in page and "no unexplained finding" not in page


# ---------------------------------------------------------------------------------------------
# The browser


def _browse(chromium: str, url: str, *flags: str) -> subprocess.CompletedProcess:
    with tempfile.TemporaryDirectory() as profile:
        return subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", f"--user-data-dir={profile}",
                               "--disable-background-networking", "--disable-component-update", "--disable-sync",
                               "--no-first-run", *flags, url], capture_output=True, text=True, timeout=120)


def test_chromium_shows_the_report(findings, system_program):
    chromium = system_program("chromium")  # Debian's
    kept = report_dir() / "browser"   # the run's test report directory (git-ignored), kept for people to look at
    shutil.rmtree(kept, ignore_errors=True)
    kept.mkdir(parents=True)
    _record(kept, findings)
    index = render(kept)
    dom = _browse(chromium, index.as_uri(), "--dump-dom")
    assert dom.returncode == 0, dom.stderr[-2000:]
    parsed = _parse(dom.stdout)
    text = "".join(parsed.text)
    assert "Clusters" in text and "1. value in sin" in " ".join(text.split()) and "3 findings" in text
    divergent = [a for tag, a in parsed.tags if tag == "g" and "divergent" in a.get("class", "")]
    assert [a["data-node"] for a in divergent] == ["y1"]  # sin's node, in the planted fault's cluster
    assert "unexplained" in text and "candidate-wrong" in text
    assert f"cos refused {SCRIPT}" in text and SCRIPT in text
    assert not any("alert" in script for script in parsed.scripts)
    assert [a for tag, a in parsed.tags if tag == "svg" and "graph" in a.get("class", "")]
    screenshot = kept / "screenshot.png"
    shot = _browse(chromium, index.as_uri(), f"--screenshot={screenshot}", "--window-size=1280,2400")
    assert shot.returncode == 0, shot.stderr[-2000:]
    assert screenshot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and screenshot.stat().st_size > 10_000
