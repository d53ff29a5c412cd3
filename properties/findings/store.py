"""Findings and coverage, written as they happen so that an interrupted run keeps them.

`discrepancies.jsonl` (in the report directory) holds one Finding per line (`Finding.to_json`, see
properties/findings/record.py and its JSON Schema), appended with one write and fsynced per record, so
parallel workers never interleave records and a crash loses nothing already found. Ids are unique
across runs that share a directory. `read_findings` skips malformed lines with a warning.

`coverage.jsonl` holds one line per program run: the ops, dtype and option values it exercised
(written whole but not fsynced: a crash of the machine may lose its last lines, never a finding).
"""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path
from typing import Any, Iterable

import warnings

import numpy as np

from reftape_oracle.catalog import CATALOG
from reftape_oracle.program import (Call, Cond, Op, Program, Reset, StopRecording, Tape, WatchedVariables, WhileLoop,
                                    structure_children, walk)

from reftape_properties.findings.record import Finding

DEFAULT_REPORT_DIR = Path("test-report")


def report_dir() -> Path:
    path = Path(os.environ.get("REFTAPE_REPORT_DIR", DEFAULT_REPORT_DIR))
    path.mkdir(parents=True, exist_ok=True)
    return path


def _append(name: str, record: dict, directory: Path | None = None, durable: bool = True) -> None:
    """One write of one whole line in append mode: parallel workers never interleave records. A
    `durable` record is on disk when this returns (fsync: about 1 ms, paid per finding; coverage lines,
    one per example, are left to the kernel)."""
    line = (json.dumps(record, sort_keys=True) + "\n").encode()
    descriptor = os.open((directory or report_dir()) / name, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(descriptor, line)
        if durable:
            os.fsync(descriptor)
    finally:
        os.close(descriptor)


def record_finding(finding: Finding, directory: Path | None = None) -> None:
    """Appends `finding` as one line of discrepancies.jsonl."""
    _append("discrepancies.jsonl", json.loads(finding.to_json()), directory)


def record_worker_death(record: dict, directory: Path) -> None:
    """Appends a campaign worker's death (`fuzz.WorkerDeath`) as one line of worker-deaths.jsonl."""
    _append("worker-deaths.jsonl", record, directory)


def read_findings(path: Path) -> list[Finding]:
    """The findings recorded in a discrepancies.jsonl file; malformed lines are skipped with a warning."""
    findings = []
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip():
            continue
        try:
            findings.append(Finding.from_json(line))
        except (ValueError, KeyError, TypeError) as error:
            warnings.warn(f"{path}:{number}: skipped a malformed finding record ({error})", stacklevel=2)
    return findings


def features(program: Program) -> dict:
    """What a program exercises: its ops with dtypes, the tape option values it uses, its ops' categorical
    attribute values ("path:key=value") and the op inputs holding one of that op's special points
    ("path@position")."""
    leaves = program.leaves()
    dtypes = sorted({leaf.dtype for leaf in leaves.values() if not leaf.dtype.startswith("int")})
    options: set[str] = set()
    ops, attributes, specials = set(), set(), set()
    for s in walk(program.statements):
        if isinstance(s, Tape):
            options |= {f"persistent={s.persistent}", f"watch_accessed_variables={s.watch_accessed_variables}"}
        elif isinstance(s, StopRecording):
            options.add("stop_recording")
        elif isinstance(s, Reset):
            options.add("reset")
        elif isinstance(s, WatchedVariables):
            options.add("watched_variables")
        elif isinstance(s, WhileLoop):
            options.add("while_loop")
        elif isinstance(s, Cond):
            options.add(f"cond({'tensor' if s.tensor_predicate else 'Python'} predicate)")
        elif isinstance(s, Call):
            options |= {f"method={s.method}", f"unconnected={s.unconnected}/{s.unconnected_form}",
                        f"output_gradients={s.output_gradients is not None}", f"sources={_kind(s.sources)}",
                        f"targets={_kind(s.target)}"}
            if s.method != "gradient":
                options.add(f"use_pfor={s.use_pfor}")
        elif hasattr(s, "path"):
            ops.add(s.path)
            if isinstance(s, Op):
                attributes |= _categorical_attributes(s)
                specials |= _inputs_at_special_points(s, leaves)
    depth = _depth(program.statements)
    options.add(f"nesting={depth}")
    return {"ops": sorted(ops), "dtypes": dtypes, "options": sorted(options), "attributes": sorted(attributes),
            "specials": sorted(specials)}


def _categorical_attributes(op: Op) -> set[str]:
    """The attribute values that choose among an op's behaviours (a padding, a flag, an axis), not sizes
    or index lists."""
    return {f"{op.path}:{key}={value!r}" for key, value in op.attrs.items()
            if value is None or isinstance(value, (bool, int, str))}


def _inputs_at_special_points(op: Op, leaves: dict) -> set[str]:
    spec = CATALOG.get(op.path)
    marked = set()
    for position, name in enumerate(op.inputs):
        points = spec.specials_for(position) if spec else ()
        leaf = leaves.get(name) if isinstance(name, str) else None
        if points and leaf is not None and _holds_any(np.asarray(leaf.value), points):
            marked.add(f"{op.path}@{position}")
    return marked


def _holds_any(value: np.ndarray, points: tuple) -> bool:
    """Whether `value` holds one of `points` (a NaN among them matching a NaN)."""
    if np.any(np.isin(value, points)):
        return True
    return any(np.isnan(point) for point in points) and value.dtype.kind in "fc" and bool(np.any(np.isnan(value)))


def _kind(structure: Any) -> str:
    if isinstance(structure, str):
        return "single"
    (kind, _), = structure.items()
    return "nested" if any(not isinstance(child, str) for child in structure_children(structure)) else kind


def _depth(statements: list) -> int:
    return max([1 + _depth(s.body) for s in statements if isinstance(s, Tape)] +
               [_depth(s.body) for s in statements if isinstance(s, StopRecording)] + [0])


def record_coverage(program: Program, exercised: dict | None = None) -> None:
    """A coverage line of `program` (its `features`, when they are computed already: `exercised`)."""
    _append("coverage.jsonl", exercised or features(program), durable=False)


def record_op_coverage(path: str, dtype: str) -> None:
    """Coverage of a single-op test (no tape options exercised)."""
    _append("coverage.jsonl", {"ops": [path], "dtypes": [dtype], "options": []}, durable=False)


def coverage_summary(lines: Iterable[dict]) -> dict:
    """Counts of op x dtype pairs, option values, attribute values and op inputs at special points over
    recorded programs."""
    pairs: Counter = Counter()
    options, attributes, specials = Counter(), Counter(), Counter()
    for line in lines:
        for op in line["ops"]:
            for dtype in line["dtypes"]:
                pairs[(op, dtype)] += 1
        options.update(line["options"])
        attributes.update(line.get("attributes", ()))   # lines of single-op tests and older runs have none
        specials.update(line.get("specials", ()))
    return {"op_dtype": pairs, "options": options, "attributes": attributes, "specials": specials}
