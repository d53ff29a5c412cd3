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
    # a verdict the minimal program's search did not keep (a signature part where it blames another)
    covered.discrepancies = [dataclasses.replace(d, verdict="ill-conditioned") for d in covered.discrepancies]
    assert covered.signature() != minimal.signature()
    (only,) = cluster([first, minimal, second, covered])
    assert only.ids == [first.id, second.id] and only.smallest is minimal


def test_different_root_causes_are_different_clusters(findings):
    clusters = cluster(findings)
    assert sorted(c.count for c in clusters) == [1, 3]


def test_clusters_read_candidate_wrong_first_then_definite_differences_then_by_count(findings):
    def ill_conditioned(finding):  # the referee blames nobody: another cause than the candidate's fault
        discrepancies = [dataclasses.replace(d, verdict="ill-conditioned" if d.verdict else None)
                         for d in finding.discrepancies]
        return dataclasses.replace(finding, id="", discrepancies=discrepancies)

    blamed, exception = findings[0], findings[3]
    clusters = cluster([ill_conditioned(findings[1]) for _ in range(4)] + [exception, blamed])
    assert [(c.verdict, c.count) for c in clusters] == [("candidate-wrong", 1), (None, 1), ("ill-conditioned", 4)]


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


# ---------------------------------------------------------------------------------------------
# The page's layout and wording, as Chromium reads it: the answer first, values as a reader writes them.
# Each check returns what it finds wrong; each is shown to fire on a planted page.

UNSUPPORTED = ["cast", "GradientTape.jacobian", "matmul(adjoint_a=)"]
SCOPE = ["sin", "cos", "multiply"]            # the run's ops; the coverage lines reach sin only
FINDINGS_HEADER = (0x17, 0x41, 0x6E)          # table.findings th's background in index.html
VIEWPORTS = {"narrow": (390, 844), "wide": (1440, 900)}
SCAFFOLDING = re.compile(r"_outcome|_program\(|describe(_error)?\(|^\s*try:|^\s*except\b", re.MULTILINE)
PYTHON_SPELLINGS = re.compile(r"\{\"kind\"|\bnull\b|\bFalse\b|\bTrue\b|(?i:verdict: none)")


def planted(name, **functions):
    """wrong_vjp_backend with `functions` replaced: a real backend with one more planted fault."""
    module = types.ModuleType(name)
    module.__dict__.update({k: v for k, v in vars(wrong_vjp_backend).items() if not k.startswith("__")})
    module.__dict__.update(functions)
    return module


@pytest.fixture(scope="module")
def more_findings():
    """Two more real findings: a candidate whose sin records no gradient (its gradient is None where
    TensorFlow's is cos), and one whose sin is off by 1e-3 where TensorFlow's sin(0) is 0."""
    import reftape

    without_gradient = planted("sin_without_gradient", sin=lambda x, name=None: reftape.stop_gradient(reftape.sin(x)))
    shifted = planted("sin_shifted", sin=lambda x, name=None: reftape.sin(x) + 1e-3)
    none_gradient = evaluate(sin_program([0.5, 1.0]), without_gradient)
    zero_reference = evaluate(sin_program([0.0, 1.0]), shifted)
    assert none_gradient is not None and zero_reference is not None
    return none_gradient, zero_reference


def _layout_run_record(command_length=600):
    return {"command": "reftape-fuzz --ops " + ",".join(["math.reduce_logsumexp"] * (command_length // 22)),
            "started": "2026-11-27T14:00:00+00:00", "hypothesis": "6",
            "configuration": {"backend": "wrong_vjp_backend", "ops": SCOPE, "resume": False, "database": None,
                              "shard": [1, 1], "unsupported": UNSUPPORTED},
            "environment": {}}


@pytest.fixture(scope="module")
def layout_report(tmp_path_factory, findings, more_findings):
    """A report of every finding above, with a run.json (a long command, an unsupported list, no TensorFlow
    version: an older run) and coverage that reaches one op of three."""
    directory = tmp_path_factory.mktemp("layout")
    _record(directory, findings + list(more_findings))
    (directory / "run.json").write_text(json.dumps(_layout_run_record()))
    (directory / "coverage.jsonl").write_text('{"ops": ["sin"], "dtypes": ["float32"], "options": []}\n' * 3)
    return render(directory)


class _Node:
    """An element of a parsed page: tag, attributes, children (nodes and strings)."""

    def __init__(self, tag, attrs, parent=None):
        self.tag, self.attrs, self.parent, self.children = tag, attrs, parent, []

    def iter(self):
        yield self
        for child in self.children:
            if isinstance(child, _Node):
                yield from child.iter()

    def text(self, skip=("script", "style", "textarea"), sep=""):
        """The text inside, without the elements in `skip`; `sep` between elements (a table's cells)."""
        return "".join(c if isinstance(c, str) else sep + c.text(skip, sep) + sep for c in self.children
                       if isinstance(c, str) or c.tag not in skip)

    def classes(self):
        return self.attrs.get("class", "").split()

    def find_all(self, tag=None, cls=None, **attrs):
        return [n for n in self.iter() if (tag is None or n.tag == tag) and (cls is None or cls in n.classes())
                and all(n.attrs.get(k) == v for k, v in attrs.items())]


class _Tree(html.parser.HTMLParser):
    VOID = {"meta", "br", "img", "input", "link", "hr", "wbr"}

    def __init__(self):
        super().__init__()
        self.root = self.current = _Node("#document", {})

    def handle_starttag(self, tag, attrs):
        node = _Node(tag, {k: v or "" for k, v in attrs}, self.current)
        self.current.children.append(node)
        if tag not in self.VOID:
            self.current = node

    def handle_startendtag(self, tag, attrs):
        self.current.children.append(_Node(tag, {k: v or "" for k, v in attrs}, self.current))

    def handle_endtag(self, tag):
        node = self.current
        while node is not self.root and node.tag != tag:
            node = node.parent
        if node is not self.root:
            self.current = node.parent

    def handle_data(self, data):
        self.current.children.append(data)


def _tree(page: str) -> _Node:
    parser = _Tree()
    parser.feed(page)
    return parser.root


def _position(root: _Node, node: _Node) -> int:
    return next(i for i, n in enumerate(root.iter()) if n is node)


def _layout_problems(root: _Node) -> list[str]:
    """The verdict line, then the unsupported surface, then the findings table, then the clusters, then
    run, environment and coverage, each collapsed."""
    tables, clusters = root.find_all("table", "findings"), root.find_all("section", "cluster")
    if not tables or not clusters:
        return ["no findings table or no cluster"]
    order = {"verdict": root.find_all(id="verdict"), "unsupported": root.find_all(id="unsupported"),
             "findings table": tables, "first cluster": clusters[:1]}
    for name in ("run", "environment", "coverage"):
        order[name] = [n for n in root.find_all("details", id=name)]
    problems = [f"no {name}" for name, nodes in order.items() if not nodes]
    positions = [(name, _position(root, nodes[0])) for name, nodes in order.items() if nodes]
    problems += [f"{a} is not before {b}" for (a, pa), (b, pb) in zip(positions, positions[1:]) if pa > pb]
    problems += [f"{n.attrs['id']} is open" for n in root.find_all("details") if "open" in n.attrs and n.attrs.get("id")]
    return problems


def _link_problems(root: _Node) -> list[str]:
    """Each findings row links to its cluster's anchor, and every in-page link lands on an element."""
    ids = {n.attrs["id"] for n in root.iter() if "id" in n.attrs}
    links = [a.attrs["href"] for a in root.find_all("a") if a.attrs.get("href", "").startswith("#")]
    rows = [a.attrs.get("href") for table in root.find_all("table", "findings") for a in table.find_all("a")]
    clusters = [f"#{n.attrs['id']}" for n in root.find_all("section", "cluster")]
    problems = [f"{link} lands nowhere" for link in links if link[1:] not in ids]
    return problems + ([] if rows == clusters else [f"findings rows link {rows}, clusters are {clusters}"])


def _wording_problems(root: _Node) -> list[str]:
    """No description JSON, null, Python booleans or "verdict: none" outside code; a None gradient reads None
    and a missing value absent; numbers in decimal to 6 digits with the exact form on hover."""
    body = root.find_all("body")[0]
    prose = body.text(skip=("script", "style", "textarea", "code", "pre", "title"), sep=" ")
    problems = [f"prose spells {m.group(0)!r}" for m in PYTHON_SPELLINGS.finditer(prose)]
    shown = {pre.text().strip() for pre in body.find_all("pre", "actual") + body.find_all("pre", "expected")}
    problems += [f"no side reads {word}" for word in ("None", "absent") if word not in shown]
    problems += [f"a side reads {m.group(0)!r}" for text in shown for m in PYTHON_SPELLINGS.finditer(text)]
    for cell in [td for table in body.find_all("table", "values") for td in table.find_all("td", "num")]:
        text = cell.text().strip()
        if len(re.sub(r"[^0-9]", "", text.split("e")[0]).lstrip("0")) > 6:
            problems.append(f"{text} has more than 6 significant digits")
    for span in body.find_all("span"):
        exact = span.attrs.get("title", "")
        if re.fullmatch(r"-?[0-9.]+(e[+-]?[0-9]+)?", exact) and f"{float(exact):.6g}" != span.text().strip():
            problems.append(f"{span.text()} is not its exact form {exact} to 6 digits")
    return problems


def _measure_problems(root: _Node, zero_reference_id: str) -> list[str]:
    """Where TensorFlow's value is 0, no relative error: the absolute difference, relative n/a."""
    (section,) = [s for s in root.find_all("section", "cluster") if zero_reference_id in s.text()]
    (line,) = [p.text() for d in section.find_all("div", "discrepancy") for p in d.find_all("p")[:1]
               if "values/y1" in p.text()]
    line = " ".join(line.split())
    return [] if "relative: n/a (reference is 0" in line and "relative error" not in line else [f"reads {line!r}"]


def _program_problems(root: _Node, directory) -> list[str]:
    """The program shown is the user's (no harness scaffolding, calls as `g1 = t0.gradient(...)`); the
    repro script it links to holds the scaffolding that runs it."""
    problems = []
    for section in root.find_all("section", "cluster"):
        (shown,) = [pre.text() for pre in section.find_all("pre", "source")]
        (link,) = [a.attrs["href"] for a in section.find_all("a", "repro")]
        if SCAFFOLDING.search(shown) or "g1 = t0.gradient(y1, c1)" not in shown:
            problems.append(f"{section.attrs['id']} shows {shown!r}")
        script = (directory / link).read_text()
        if "_outcome['calls']['g1'] = describe(g1, tf)" not in script or "    try:" not in script:
            problems.append(f"{link} lost its scaffolding")
    return problems


def _coverage_problems(root: _Node) -> list[str]:
    (details,) = root.find_all("details", id="coverage")
    named = " ".join(p.text() for p in details.find_all("p", "unreached"))
    summary = details.find_all("summary")[0].text()
    return [f"{op} not named as not reached" for op in SCOPE[1:] if op not in named or op not in summary] + \
        (["sin named as not reached"] if re.search(r"\bsin\b", named) else [])


def _unsupported_problems(root: _Node, backend: str) -> list[str]:
    nodes = root.find_all(id="unsupported")
    text = " ".join(nodes[0].text().split()) if nodes else ""
    wanted = f"Unsupported by {backend} (not drawn): " + ", ".join(UNSUPPORTED)
    return [] if text == wanted else [f"unsupported reads {text!r}"]


def _version_problems(root: _Node) -> list[str]:
    import importlib.metadata

    version = importlib.metadata.version("tensorflow")
    shown = [" ".join(n.text().split()) for n in root.find_all(cls="tensorflow-version")]
    return [] if shown and all(version in text for text in shown) else [f"TensorFlow {version} not in {shown}"]


def _all_problems(page: str, directory, zero_reference_id: str) -> list[str]:
    root = _tree(page)
    return (_layout_problems(root) + _link_problems(root) + _wording_problems(root)
            + _measure_problems(root, zero_reference_id) + _program_problems(root, directory)
            + _coverage_problems(root) + _unsupported_problems(root, "wrong_vjp_backend") + _version_problems(root))


def _dump_dom(chromium: str, page) -> str:
    dom = _browse(chromium, page.as_uri(), "--dump-dom")
    assert dom.returncode == 0, dom.stderr[-2000:]
    return dom.stdout


def test_chromium_reads_the_answer_first_in_a_readers_words(layout_report, more_findings, system_program):
    chromium = system_program("chromium")
    dom = _dump_dom(chromium, layout_report)
    assert _all_problems(dom, layout_report.parent, more_findings[1].id) == []


def _moved_after_the_clusters(page: str) -> str:
    table = re.search(r'<section id="findings">.*?</section>\n', page, re.DOTALL).group(0)
    return page.replace(table, "").replace('<details class="secondary" id="run">',
                                           table + '<details class="secondary" id="run">')


PLANTS = {   # a planted page: what it changes, and the check that must see it
    "table after the clusters": (_moved_after_the_clusters, _layout_problems),
    "coverage before the clusters": (
        lambda page: page.replace('<details class="secondary" id="coverage">', "<!-- -->").replace(
            '<section id="clusters">', '<details class="secondary" id="coverage"></details><section id="clusters">'),
        _layout_problems),
    "run shown open": (lambda page: page.replace('id="run">', 'id="run" open>'), _layout_problems),
    "a row linking nowhere": (lambda page: page.replace('href="#cluster-2"', 'href="#cluster-9"'), _link_problems),
    "description JSON": (lambda page: page.replace('<pre class="actual">None', '<pre class="actual">{"kind": "none"}'),
                         _wording_problems),
    "null": (lambda page: page.replace('<pre class="expected">absent', '<pre class="expected">null'),
             _wording_problems),
    "Python booleans": (lambda page: page.replace("<td>false</td>", "<td>False</td>"), _wording_problems),
    "verdict: none": (lambda page: page.replace(">definite difference</span>", ">verdict: none</span>"),
                      _wording_problems),
    "a float in full": (lambda page: re.sub(r'(<span title="([-0-9.e]+)">)[^<]*', r"\1\2", page, count=1),
                        _wording_problems),
}


@pytest.mark.parametrize("plant", sorted(PLANTS))
def test_each_layout_and_wording_check_fires_on_a_planted_page(layout_report, plant):
    change, check = PLANTS[plant]
    page = layout_report.read_text()
    changed = change(page)
    assert changed != page, "the plant changed nothing"
    assert check(_tree(page)) == [] and check(_tree(changed)) != []


def test_the_content_checks_fire_on_planted_pages(layout_report, more_findings):
    page, directory, zero_id = layout_report.read_text(), layout_report.parent, more_findings[1].id
    plants = [
        (lambda p: re.sub(r"largest difference.*?\(reference is 0 where they differ\)", "relative error 8.29e+307",
                          p, flags=re.DOTALL), lambda root: _measure_problems(root, zero_id)),
        (lambda p: p.replace("g1 = t0.gradient(y1, c1)", "try:\n    g1 = t0.gradient(y1, c1)\n"
                             "    _outcome['calls']['g1'] = describe(g1, tf)\nexcept Exception as _error:\n    pass"),
         lambda root: _program_problems(root, directory)),
        (lambda p: re.sub(r'<p class="unreached">.*?</p>', '<p class="unreached"></p>', p, flags=re.DOTALL),
         _coverage_problems),
        (lambda p: re.sub(r'<p class="unsupported".*?</p>', "", p, flags=re.DOTALL),
         lambda root: _unsupported_problems(root, "wrong_vjp_backend")),
        (lambda p: re.sub(r"TensorFlow \d+\.\d+\.\d+", "TensorFlow (version not recorded)", p), _version_problems),
    ]
    for change, check in plants:
        changed = change(page)
        assert changed != page
        assert check(_tree(page)) == [] and check(_tree(changed)) != []
    scaffolding = "_outcome['calls']['g1'] = describe(g1, tf)"
    linked = directory / _tree(page).find_all("a", "repro")[0].attrs["href"]
    script = linked.read_text()
    assert scaffolding in script
    linked.write_text(script.replace(scaffolding, "pass"))
    try:
        assert _program_problems(_tree(page), directory) != []   # a repro without its scaffolding is seen too
    finally:
        linked.write_text(script)


# Screenshots: the findings table must be in the first screen, found by its header's colour in the PNG.

def _png_pixels(path) -> np.ndarray:
    """The RGB pixels of an 8-bit, non-interlaced RGB or RGBA PNG (as Chromium writes screenshots)."""
    import struct
    import zlib

    data, position, chunks = path.read_bytes(), 8, {}
    while position < len(data):
        length, kind = struct.unpack(">I4s", data[position:position + 8])
        chunks[kind] = chunks.get(kind, b"") + data[position + 8:position + 8 + length]
        position += 12 + length
    width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", chunks[b"IHDR"])
    assert depth == 8 and colour in (2, 6) and interlace == 0, (depth, colour, interlace)
    channels = 3 if colour == 2 else 4
    stride = width * channels
    raw = np.frombuffer(zlib.decompress(chunks[b"IDAT"]), np.uint8).reshape(height, stride + 1)
    pixels = np.zeros((height, stride), np.uint8)
    previous = np.zeros(stride, np.int64)
    for y in range(height):
        kind, line = raw[y, 0], raw[y, 1:].astype(np.int64)
        if kind == 0:
            row = line
        elif kind == 1:
            row = np.cumsum(line.reshape(width, channels), axis=0).reshape(-1) % 256
        elif kind == 2:
            row = (line + previous) % 256
        else:
            row = _average_or_paeth(kind, line.tolist(), previous.tolist(), channels)
        pixels[y] = row
        previous = np.asarray(row, np.int64)
    return pixels.reshape(height, width, channels)[:, :, :3]


def _average_or_paeth(kind, line, previous, channels):
    row = [0] * len(line)
    for i, x in enumerate(line):
        left = row[i - channels] if i >= channels else 0
        up = previous[i]
        if kind == 3:
            row[i] = (x + (left + up) // 2) % 256
            continue
        corner = previous[i - channels] if i >= channels else 0
        p = left + up - corner
        pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
        row[i] = (x + (left if pa <= pb and pa <= pc else up if pb <= pc else corner)) % 256
    return row


def _rows_showing(pixels: np.ndarray, colour: tuple, run: int = 24) -> list[int]:
    """The rows holding at least `run` pixels of `colour` (within 2 per channel)."""
    near = (np.abs(pixels.astype(int) - np.array(colour)) <= 2).all(axis=2)
    return [int(y) for y in np.nonzero(near.sum(axis=1) >= run)[0]]


def _screenshot(chromium: str, page, directory, name: str, size: tuple) -> np.ndarray:
    path = directory / f"{name}-{size[0]}x{size[1]}.png"
    shot = _browse(chromium, page.as_uri(), f"--screenshot={path}", f"--window-size={size[0]},{size[1]}",
                   "--hide-scrollbars")
    assert shot.returncode == 0, shot.stderr[-2000:]
    kept = os.environ.get("REFTAPE_KEEP_SCREENSHOTS")
    if kept:
        os.makedirs(kept, exist_ok=True)
        shutil.copy(path, kept)
    pixels = _png_pixels(path)
    assert pixels.shape[:2] == (size[1], size[0])
    return pixels


def test_png_decoding_reads_a_known_image(tmp_path):
    """The decoder against a PNG of known pixels written with every filter type (0 to 4)."""
    import struct
    import zlib

    rng = np.random.default_rng(0)
    image = rng.integers(0, 256, (5, 7, 3), dtype=np.uint8)
    rows, previous = [], np.zeros(21, np.int64)
    for y, kind in enumerate(range(5)):
        line = image[y].reshape(-1).astype(np.int64)
        left = np.concatenate([np.zeros(3, np.int64), line[:-3]])
        corner = np.concatenate([np.zeros(3, np.int64), previous[:-3]])
        p = left + previous - corner
        paeth = np.where((abs(p - left) <= abs(p - previous)) & (abs(p - left) <= abs(p - corner)), left,
                         np.where(abs(p - previous) <= abs(p - corner), previous, corner))
        predicted = [0, left, previous, (left + previous) // 2, paeth][kind]
        rows.append(bytes([kind]) + ((line - predicted) % 256).astype(np.uint8).tobytes())
        previous = line

    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    png = tmp_path / "known.png"
    png.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 7, 5, 8, 2, 0, 0, 0))
                    + chunk(b"IDAT", zlib.compress(b"".join(rows))) + chunk(b"IEND", b""))
    assert (_png_pixels(png) == image).all()


@pytest.mark.parametrize("viewport", sorted(VIEWPORTS))
def test_the_findings_table_is_in_the_first_screen(layout_report, viewport, tmp_path, system_program):
    chromium = system_program("chromium")
    size = VIEWPORTS[viewport]
    rows = _rows_showing(_screenshot(chromium, layout_report, tmp_path, viewport, size), FINDINGS_HEADER)
    assert rows and max(rows) < size[1], f"the findings table's header is not in the first {size[1]} px"
    moved = layout_report.with_name("moved.html")   # beside index.html: its links and repro paths still hold
    moved.write_text(_moved_after_the_clusters(layout_report.read_text()))
    try:
        shown = _rows_showing(_screenshot(chromium, moved, tmp_path, f"{viewport}-planted", size), FINDINGS_HEADER)
    finally:
        moved.unlink()
    assert shown == [], "the check did not see the table pushed below the clusters"


def test_a_clean_campaign_names_its_tensorflow_version_on_the_page(tmp_path, system_program):
    """A real campaign on reftape that finds nothing still names TensorFlow's version (run.json records it)."""
    import importlib.metadata

    chromium = system_program("chromium")
    report = tmp_path / "clean"
    ran = subprocess.run([sys.executable, "-m", "reftape_reports.commands.reftape_fuzz", "--ops", "sin,cos",
                          "--dtypes", "float32", "--max-examples", "3", "--workers", "1", "--seed", "1",
                          "--report", str(report)], cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert json.loads((report / "run.json").read_text())["tensorflow"] == importlib.metadata.version("tensorflow")
    root = _tree(_dump_dom(chromium, report / "index.html"))
    assert not (report / "discrepancies.jsonl").exists() or not (report / "discrepancies.jsonl").read_text().strip()
    assert _version_problems(root) == []
    assert not root.find_all(id="unsupported")   # a run.json without `unsupported` (older runs) shows none
