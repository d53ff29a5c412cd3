"""One report from several report directories (the campaigns of several machines, say).

`merge(sources, out)` writes into `out` the records of every source: findings (each id once, so
merging again is harmless), coverage lines, and a run.json that sums the runs' results (examples,
findings, rates: the machines ran side by side) and keeps each configuration value, or the list of
the different values the runs had. `out`'s own records are replaced; then the report is rendered.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

SUMMED = ("examples", "passed_over", "examples_per_second", "unexplained", "known", "replayed")


def _lines(path: Path) -> list[str]:
    return [line for line in path.read_text().splitlines() if line.strip()] if path.exists() else []


def _findings(sources: list[Path]) -> list[str]:
    seen: set[str] = set()
    kept = []
    for source in sources:
        path = source / "discrepancies.jsonl"
        for number, line in enumerate(_lines(path), 1):
            try:
                record_id = json.loads(line)["id"]
            except (ValueError, KeyError, TypeError):
                warnings.warn(f"{path}:{number}: skipped a malformed line", stacklevel=2)
                continue
            if record_id not in seen:
                seen.add(record_id)
                kept.append(line)
    return kept


def _agreed(values: list) -> Any:
    """The one value every run had, else the distinct values in order."""
    distinct = []
    for value in values:
        if value not in distinct:
            distinct.append(value)
    return distinct[0] if len(distinct) == 1 else distinct


def _run(sources: list[Path], command: str) -> dict | None:
    runs = [json.loads((s / "run.json").read_text()) for s in sources if (s / "run.json").exists()]
    if not runs:
        return None
    configurations = [run.get("configuration", {}) for run in runs]
    configuration = {key: _agreed([c.get(key) for c in configurations]) for key in configurations[0]}
    ops = [op for c in configurations for op in (c.get("ops") or [])]
    configuration["ops"] = list(dict.fromkeys(ops))  # the coverage scope: every run's ops
    configuration["merged_from"] = [str(s) for s in sources]
    merged: dict[str, Any] = {"command": command, "started": min(run.get("started", "") for run in runs),
                              "configuration": configuration, "environment": runs[0].get("environment"),
                              "hypothesis": _agreed([run.get("hypothesis") for run in runs]),
                              "tensorflow": _agreed([run.get("tensorflow") for run in runs])}
    results = [run["result"] for run in runs if run.get("result")]
    if results:
        kinds: dict[str, int] = {}
        for result in results:
            for kind, count in (result.get("findings_by_kind") or {}).items():
                kinds[kind] = kinds.get(kind, 0) + count
        merged["result"] = {**{key: sum(r.get(key) or 0 for r in results) for key in SUMMED},
                            "seconds": max(r.get("seconds") or 0 for r in results), "findings_by_kind": kinds,
                            "interrupted": any(r.get("interrupted") for r in results),
                            "harness_error": next((r["harness_error"] for r in results if r.get("harness_error")),
                                                  None)}
    return merged


def merge(sources: list[Path], out: Path, command: str = "reftape-report --merge") -> Path:
    """Writes the records of every directory in `sources` into `out` and renders it; the page's path."""
    from reftape_reports.render import render

    sources, out = [Path(s) for s in sources], Path(out)
    findings, coverage = _findings(sources), [line for s in sources for line in _lines(s / "coverage.jsonl")]
    (out / "discrepancies.jsonl").write_text("".join(line + "\n" for line in findings))
    (out / "coverage.jsonl").write_text("".join(line + "\n" for line in coverage))
    run = _run(sources, command)
    if run is not None:
        (out / "run.json").write_text(json.dumps(run, indent=1, sort_keys=True, default=str))
    else:
        (out / "run.json").unlink(missing_ok=True)
    return render(out)
