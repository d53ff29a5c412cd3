"""Findings and coverage, written as they happen so that an interrupted run keeps them.

`discrepancies.jsonl` (in the report directory, `$REFTAPE_REPORT_DIR`, default `reports/out`)
holds one JSON object per line, flushed and fsynced per record. The format is stable:

    id            "<sha256 of the program JSON>[:16]-<n>", unique per discrepancy
    kind          a discrepancy kind (see properties/compare.py)
    where         "values/<name>", "calls/<name>[i]...", or "error"
    verdict       the referee's verdict, or null where it does not apply
    known         number of the KNOWN_DIVERGENCES.md entry that explains it, or null
    program       the program as JSON (properties/program.py)
    source        the standalone TensorFlow script that reproduces it
    expected      TensorFlow's outcome;  actual: the candidate's outcome
    measured      relative error, ulps, and the tolerance used (null where not a value mismatch)
    environment   fingerprint of the TensorFlow side (versions, CPU flags, oneDNN)
    test          the pytest node id;  reproduce: Hypothesis's reproduction blob (or null)

`coverage.jsonl` holds one line per program run: the ops, dtype and option values it exercised.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections import Counter
from pathlib import Path
from typing import Any, Iterable

from .compare import Discrepancy
from .known import explained_by
from .outcome import Outcome
from .program import Call, Program, Reset, StopRecording, Tape, walk

DEFAULT_REPORT_DIR = Path("reports/out")


def report_dir() -> Path:
    path = Path(os.environ.get("REFTAPE_REPORT_DIR", DEFAULT_REPORT_DIR))
    path.mkdir(parents=True, exist_ok=True)
    return path


def _append(name: str, record: dict) -> None:
    """One write of one whole line in append mode: parallel workers never interleave records."""
    line = (json.dumps(record, sort_keys=True) + "\n").encode()
    descriptor = os.open(report_dir() / name, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(descriptor, line)
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def record_discrepancies(program: Program, discrepancies: Iterable[Discrepancy], expected: Outcome,
                         actual: Outcome, test: str = "", reproduce: str | None = None) -> list[dict]:
    """Appends one line per discrepancy to discrepancies.jsonl; returns the records."""
    program_json = program.to_json()
    digest = hashlib.sha256(program_json.encode()).hexdigest()[:16]
    records = []
    for n, d in enumerate(discrepancies):
        known = explained_by(d)
        record = {
            "id": f"{digest}-{n}", "kind": d.kind, "where": d.where, "verdict": d.verdict,
            "known": known.number if known else None, "program": json.loads(program_json),
            "source": program.to_source(), "expected": json.loads(expected.to_json()),
            "actual": json.loads(actual.to_json()),
            "measured": None if d.relative_error is None else {
                "relative_error": d.relative_error, "ulps": d.ulps, "tolerance": d.tolerance},
            "environment": expected.environment, "test": test, "reproduce": reproduce,
        }
        _append("discrepancies.jsonl", record)
        records.append(record)
    return records


def features(program: Program) -> dict:
    """What a program exercises: its ops with dtypes, and the tape option values it uses."""
    dtypes = sorted({leaf.dtype for leaf in program.leaves().values() if not leaf.dtype.startswith("int")})
    options: set[str] = set()
    ops = set()
    for s in walk(program.statements):
        if isinstance(s, Tape):
            options |= {f"persistent={s.persistent}", f"watch_accessed_variables={s.watch_accessed_variables}"}
        elif isinstance(s, StopRecording):
            options.add("stop_recording")
        elif isinstance(s, Reset):
            options.add("reset")
        elif isinstance(s, Call):
            options |= {f"method={s.method}", f"unconnected={s.unconnected}/{s.unconnected_form}",
                        f"output_gradients={s.output_gradients is not None}", f"sources={_kind(s.sources)}"}
            if s.method != "gradient":
                options.add(f"use_pfor={s.use_pfor}")
        elif hasattr(s, "path"):
            ops.add(s.path)
    depth = _depth(program.statements)
    options.add(f"nesting={depth}")
    return {"ops": sorted(ops), "dtypes": dtypes, "options": sorted(options)}


def _kind(structure: Any) -> str:
    if isinstance(structure, str):
        return "single"
    (kind, items), = structure.items()
    nested = any(not isinstance(i, str) and not (isinstance(i, list) and isinstance(i[1], str)) for i in items)
    return "nested" if nested else kind


def _depth(statements: list) -> int:
    return max([1 + _depth(s.body) for s in statements if isinstance(s, Tape)] +
               [_depth(s.body) for s in statements if isinstance(s, StopRecording)] + [0])


def record_coverage(program: Program) -> None:
    _append("coverage.jsonl", features(program))


def record_op_coverage(path: str, dtype: str) -> None:
    """Coverage of a single-op test (no tape options exercised)."""
    _append("coverage.jsonl", {"ops": [path], "dtypes": [dtype], "options": []})


def coverage_summary(lines: Iterable[dict]) -> dict:
    """Counts of op x dtype pairs and option values over recorded programs."""
    pairs: Counter = Counter()
    options: Counter = Counter()
    for line in lines:
        for op in line["ops"]:
            for dtype in line["dtypes"]:
                pairs[(op, dtype)] += 1
        options.update(line["options"])
    return {"op_dtype": pairs, "options": options}
