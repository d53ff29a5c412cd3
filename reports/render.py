"""Rendering a report directory: `index.html` and `repro/<id>.py` from the records a run left there.

Reads `discrepancies.jsonl` (findings), `coverage.jsonl` (what the programs exercised) and `run.json`
(the run's configuration and figures, written by `reftape-fuzz`); each is optional. The page is
self-contained (inline CSS, SVG and a few lines of JS; nothing fetched), so it works from file://.
Everything the records hold is autoescaped: a name, program or message containing `<script>` shows
as text.
"""

from __future__ import annotations

import inspect
import json
import textwrap
import warnings
from pathlib import Path
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape

from reftape_oracle.catalog import CATALOG, DTYPES
from reftape_oracle.outcome import decode_array, describe, describe_error
from reftape_oracle.script import ORACLE_CONFIGURATION, readable_source
from reftape_properties.explain.clusters import Cluster, cluster, explained_forms
from reftape_properties.findings.record import Finding
from reftape_properties.findings.store import coverage_summary, read_findings
from reftape_properties.judge.forward import FORWARD
from reftape_properties.judge.function import FUNCTION
from reftape_properties.judge.numeric import NUMERIC

from reftape_reports import readable
from reftape_reports.graph import layout
from reftape_reports.side_by_side import side_by_side, value_at

MAX_DISCREPANCIES_SHOWN = 8
JUDGES = {NUMERIC: "exact (numerical derivative)", FORWARD: "exact (numerical derivative along the tangents)",
          FUNCTION: "eager (a numerical derivative deciding)"}


def _environment() -> Environment:
    environment = Environment(loader=PackageLoader("reftape_reports", "templates"), undefined=StrictUndefined,
                              autoescape=select_autoescape(enabled_extensions=("html",), default=False),
                              trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True)
    environment.filters["pyrepr"] = repr
    environment.filters.update(decimal=readable.decimal, index=readable.index, shape=readable.shape,
                               setting=readable.setting, description=readable.description,
                               verdict=readable.verdict_label)
    return environment


def _read_json_lines(path: Path) -> list[dict]:
    lines = []
    if not path.exists():
        return lines
    for number, line in enumerate(path.read_text().splitlines(), 1):
        try:
            lines.append(json.loads(line)) if line.strip() else None
        except ValueError:
            warnings.warn(f"{path}:{number}: skipped a malformed line", stacklevel=2)
    return lines


def _divergent_node(finding: Finding) -> str | None:
    """The name of the first node where the two sides part, as the first-divergence step recorded it."""
    divergence = finding.first_divergence
    if isinstance(divergence, dict):
        return divergence.get("node") or divergence.get("name")
    return divergence if isinstance(divergence, str) else None


def _reference_is_zero_where_they_differ(expected: Any, actual: Any) -> bool:
    """Whether TensorFlow's value is 0 at an element where the sides differ: a relative error there
    divides by (nearly) nothing and says nothing."""
    try:
        e, a = decode_array(expected).reshape(-1), decode_array(actual).reshape(-1)
    except (KeyError, TypeError, ValueError):
        return False
    if e.shape != a.shape:
        return False
    differ = (e != a) & ~((e != e) & (a != a))   # NaN against NaN is no difference
    return bool((e[differ] == 0).any())


def _discrepancy_view(finding: Finding, index: int) -> dict:
    d = finding.discrepancies[index]
    expected, actual = value_at(finding.expected.observed(), d.where), value_at(finding.actual.observed(), d.where)
    sides = side_by_side(expected, actual, decode_array)
    return {"discrepancy": d, "unexplained": d.known is None, "sides": sides,
            "texts": (readable.description(expected), readable.description(actual)) if sides["text"] else None,
            "relative_not_applicable": d.relative_error is not None and sides["text"] is None
            and _reference_is_zero_where_they_differ(expected, actual),
            "estimate": [str(x) for x in d.estimate] if isinstance(d.estimate, list) else d.estimate}


def _cluster_view(number: int, entry: Cluster) -> dict:
    finding = entry.smallest
    shown = range(min(len(finding.discrepancies), MAX_DISCREPANCIES_SHOWN))
    return {"number": number, "cluster": entry, "finding": finding,
            "judge": JUDGES.get(finding.reference, "TensorFlow"),
            "source": finding.program.to_source("tensorflow", traced=finding.reference == FUNCTION),
            "listing": readable_source(finding.program.validate().statements),
            "graph": layout(finding.program, _divergent_node(finding)), "divergent": _divergent_node(finding),
            "discrepancies": [_discrepancy_view(finding, i) for i in shown],
            "more": len(finding.discrepancies) - len(shown)}


def _coverage_view(lines: list[dict], ops: list[str] | None) -> dict:
    summary = coverage_summary(lines)
    pairs = summary["op_dtype"]
    scope = ops or list(CATALOG)
    possible = {(op, dtype) for op in scope for dtype in CATALOG[op].dtypes}
    dtypes = sorted({dtype for _, dtype in possible}, key=lambda d: (d not in DTYPES, DTYPES.index(d) if d in DTYPES else d))
    reached = sorted({op for op, _ in pairs}, key=lambda op: scope.index(op) if op in scope else len(scope))
    return {"programs": len(lines), "ops": reached, "op_count": len(set(reached) & set(scope)),
            "unreached": [op for op in scope if op not in set(reached)],
            "scope": len(scope), "dtypes": dtypes, "pairs": pairs, "possible": possible,
            "pair_count": len(possible & set(pairs)), "options": sorted(summary["options"].items()),
            "attributes": len(summary["attributes"]), "specials": len(summary["specials"])}


def _headline(run: dict | None, found: int, unexplained: int, programs: int) -> str:
    """What the page's first line claims: unexplained findings, or why no agreement can be claimed
    (a harness error, no program run, a run that never wrote its result), or agreement."""
    result = run.get("result") if run else None
    if unexplained:
        return "unexplained"
    if result and result.get("harness_error"):
        return "harness-error"
    if not found and not programs and not (result or {}).get("examples"):
        return "nothing-ran"
    if run and not result:
        return "unfinished"
    return "agreement"


def _unsupported(configuration: dict) -> list[str]:
    """What the candidate lacks of the catalog and the tape (run.json's `unsupported`; absent in older runs,
    a list of lists in a merged run whose runs differed)."""
    listed = configuration.get("unsupported") or []
    flat = [item for entry in listed for item in (entry if isinstance(entry, list) else [entry])]
    return list(dict.fromkeys(str(item) for item in flat))


def _tensorflow_version(run: dict | None, reference_environment: dict | None) -> str | None:
    """TensorFlow's version: run.json's (every campaign records it), else a finding's reference outcome's."""
    if run and run.get("tensorflow"):
        return readable.setting(run["tensorflow"])
    if reference_environment and reference_environment.get("backend") == "tensorflow":
        return reference_environment.get("backend_version")
    return None


def _by_suspect(views: list[dict]) -> list[dict]:
    """The clusters' views grouped by the op they blame (whose gradient function is at fault; None last), in order:
    the op, its dtypes, the checks that found it, its findings and its clusters."""
    groups: dict = {}
    for view in views:
        groups.setdefault(view["finding"].suspect, []).append(view)
    return [{"suspect": suspect, "views": members, "count": sum(v["cluster"].count for v in members),
             "dtypes": list(dict.fromkeys(v["finding"].dtype for v in members if v["finding"].dtype)),
             "checks": list(dict.fromkeys(v["finding"].reference for v in members))}
            for suspect, members in groups.items()]


def _blames_tensorflow(entry: Cluster) -> bool:
    return entry.verdict == "tensorflow-wrong" and not entry.known


def render(report_dir: Path) -> Path:
    """Writes `index.html` and `repro/<id>.py` in `report_dir` from its records; returns the page's path."""
    report_dir = Path(report_dir)
    records = report_dir / "discrepancies.jsonl"
    findings = read_findings(records) if records.exists() else []
    run_path = report_dir / "run.json"
    run = json.loads(run_path.read_text()) if run_path.exists() else None
    coverage = _coverage_view(_read_json_lines(report_dir / "coverage.jsonl"),
                              list((run or {}).get("configuration", {}).get("ops") or []) or None)
    forms = list(explained_forms(findings).values())
    # TF's own bugs first, those of one op together
    clusters = sorted(cluster(findings), key=lambda c: (not _blames_tensorflow(c), _blames_tensorflow(c) and
                                                        (c.smallest.suspect is None, c.smallest.suspect or "")))
    views = [_cluster_view(i, c) for i, c in enumerate(clusters, 1)]
    environment = _environment()
    unexplained = sum(not f.known for f in forms)
    configuration = (run or {}).get("configuration") or {}
    reference_environment = findings[0].expected.environment if findings else None
    page = environment.get_template("index.html").render(
        headline=_headline(run, len(forms), unexplained, coverage["programs"]),
        title=f"reftape report: {report_dir.resolve().name}", run=run, coverage=coverage,
        configuration={k: v for k, v in configuration.items() if k != "unsupported"},
        candidate=readable.setting(configuration.get("backend") or (findings[0].candidate if findings else None)),
        unsupported=_unsupported(configuration),
        tensorflow=_tensorflow_version(run, reference_environment),
        reference_environment=reference_environment, found=len(forms), unexplained=unexplained,
        clusters=views, tensorflow_wrong=_by_suspect([v for v in views if _blames_tensorflow(v["cluster"])]),
        others=[v for v in views if not _blames_tensorflow(v["cluster"])])
    index = report_dir / "index.html"
    index.write_text(page)
    _write_repros(environment, report_dir / "repro", findings)
    return index


def _write_repros(environment: Environment, directory: Path, findings: list[Finding]) -> None:
    directory.mkdir(exist_ok=True)
    helpers = "\n\n".join(textwrap.dedent(inspect.getsource(f))
                          for f in (describe, describe_error, value_at, side_by_side))
    template = environment.get_template("repro.py.j2")
    for finding in findings:
        (directory / f"{finding.id}.py").write_text(template.render(
            finding=finding, helpers=helpers, body=finding.program.body_source(),
            oracle_configuration=ORACLE_CONFIGURATION,
            recorded=json.dumps(finding.actual.observed(), sort_keys=True),
            locations=list(dict.fromkeys(d.where for d in finding.discrepancies))))
