"""`reftape-replay PROGRAM.json`: run a saved program on a candidate backend and on the reference
(TensorFlow), and print each discrepancy readably: the op it belongs to, the worst element in decimal
beside its exact form, the largest absolute and relative differences, and the referee's verdict and
numerical estimate. `reftape-replay DIR/discrepancies.jsonl --id ID` replays a recorded finding.
`--source` prints the program as a standalone script for `--backend` (default TensorFlow).

Exit status: 0 agree (or every discrepancy is a known divergence), 1 discrepancies, 2 bad usage or an
invalid program (nothing run), 3 harness failure (a side could not run the program), 130 interrupted.
"""

from __future__ import annotations

import re
import sys
import warnings
from pathlib import Path
from typing import Any

import numpy as np

from reftape_oracle.outcome import Outcome, decode_array
from reftape_oracle.program import Call, Op, Program, walk
from reftape_oracle import validation
from reftape_oracle.validation import ProgramError

from reftape_properties.cli import (EXIT_FINDINGS, EXIT_OK, UsageError, import_backend, parser, positive_seconds, run_command)
from reftape_properties.judge.compare import NOT_RUN, Discrepancy
from reftape_properties.findings.record import Finding
from reftape_properties.judge.function import FUNCTION
from reftape_properties.pipeline import SELF_CHECKS, evaluate
from reftape_properties.judge.known import KNOWN

PROG = "reftape-replay"


def main(argv: list[str] | None = None) -> int:
    return run_command(PROG, lambda: _replay(argv))


def _arguments(argv: list[str] | None) -> Any:
    p = parser(PROG, __doc__.split("\n\n")[0])
    p.add_argument("program", type=Path, help="a program saved as JSON, or a discrepancies.jsonl file (with --id)")
    p.add_argument("--id", help="the id of the finding to replay from a discrepancies.jsonl file")
    p.add_argument("--backend", help="candidate module, importable from the current directory (default: the "
                                     "finding's candidate, else reftape)")
    p.add_argument("--against", help="reference module, or 'numeric' (the numeric check: the candidate's gradients "
                                     "against a numerical derivative), 'forward' (the forward check: its jvps against "
                                     "its reverse mode) or 'function' (the function check: its eager run against the "
                                     "program traced in tf.function); default: the finding's reference, else tensorflow")
    p.add_argument("--source", action="store_true", help="print the standalone script for --backend "
                                                         "(default: tensorflow; run eagerly and in tf.function for the "
                                                         "function check) and exit")
    p.add_argument("--time-limit", type=positive_seconds, default=60.0, help="seconds per program and backend")
    return p.parse_args(argv)


def _replay(argv: list[str] | None) -> int:
    args = _arguments(argv)
    recorded = _recorded_finding(args.program, args.id) if args.id or args.program.suffix == ".jsonl" else None
    program = recorded.program if recorded else _load_program(args.program)
    reference = args.against or (recorded.reference if recorded else "tensorflow")
    if args.source:
        module = args.backend or (args.against if args.against not in SELF_CHECKS else None) or "tensorflow"
        try:
            print(program.to_source(module, traced=reference == FUNCTION))
        except ValueError as error:
            raise UsageError(str(error)) from None
        return EXIT_OK
    candidate = args.backend or (recorded.candidate if recorded else "reftape")
    modules = import_backend(candidate), reference if reference in SELF_CHECKS else import_backend(reference)
    if recorded:
        print(f"== replaying finding {recorded.id} ({recorded.kind}, recorded {recorded.timestamp}: "
              f"{len(recorded.discrepancies)} discrepancies) on {candidate} against {reference} ==")
    finding = evaluate(program, *modules, time_limit=args.time_limit)
    if finding is None:
        print(f"== agree: {candidate} and {reference} ran the program to the same outcome ==")
        return EXIT_OK
    print(describe_finding(finding))
    return EXIT_OK if finding.known else EXIT_FINDINGS


def _load_program(path: Path) -> Program:
    try:
        if path.stat().st_size > validation.MAX_JSON_BYTES:  # never read a file too large to be a program
            raise UsageError(f"{path}: program too large: {path.stat().st_size:,} bytes "
                             f"(at most {validation.MAX_JSON_BYTES:,})")
        text = path.read_text()
    except (OSError, UnicodeDecodeError) as error:
        raise UsageError(f"cannot read {path}: {getattr(error, 'strerror', None) or error}") from None
    try:
        return Program.from_json(text)
    except ProgramError as error:
        raise UsageError(f"{path}: invalid program: {error}") from None


def _recorded_finding(path: Path, wanted: str | None) -> Finding:
    """The finding `wanted` (an id or a unique prefix of one) from a discrepancies.jsonl file."""
    from reftape_properties.findings.store import read_findings

    with warnings.catch_warnings(record=True) as skipped:
        warnings.simplefilter("always")
        try:
            findings = read_findings(path)
        except (OSError, UnicodeDecodeError) as error:
            raise UsageError(f"cannot read {path}: {getattr(error, 'strerror', None) or error}") from None
    for warning in skipped[:3]:
        print(f"{PROG}: warning: {warning.message}", file=sys.stderr)
    if len(skipped) > 3:
        print(f"{PROG}: warning: {len(skipped) - 3} more malformed records skipped", file=sys.stderr)
    ids = ", ".join(f.id for f in findings[:5]) + (", ..." if len(findings) > 5 else "")
    if wanted is None:
        if len(findings) == 1:
            return findings[0]
        raise UsageError(f"{path} holds {len(findings)} findings: choose one with --id ({ids or 'no ids'})")
    matches = [f for f in findings if f.id == wanted] or [f for f in findings if f.id.startswith(wanted)]
    if len(matches) != 1:
        problem = "no finding" if not matches else f"{len(matches)} findings"
        raise UsageError(f"{problem} with id {wanted!r} in {path} ({len(findings)} findings: {ids or 'none'})")
    return matches[0]


# -- Readable discrepancies ------------------------------------------------------------------------


def describe_finding(finding: Finding) -> str:
    """Every discrepancy of `finding`, readably (see the module docstring)."""
    found = finding.discrepancies
    lines = [f"== {len(found)} discrepanc{'y' if len(found) == 1 else 'ies'}: {finding.candidate} against "
             f"{finding.reference} =="]
    if finding.suspect:
        lines.append(f"first divergent node: {finding.suspect}")
    for d in found:
        lines += describe_discrepancy(d, finding)
    if finding.known:
        lines.append("every discrepancy is a known divergence (KNOWN_DIVERGENCES.md): not counted as a finding")
    return "\n".join(lines)


def describe_discrepancy(d: Discrepancy, finding: Finding) -> list[str]:
    ref, cand = finding.reference, finding.candidate
    lines = [f"{d.kind} at {d.where} ({belongs_to(finding.program, d.where)})"]
    expected = _described_at(finding.expected, d.where)
    actual = _described_at(finding.actual, d.where)
    if d.kind in ("value", "nan-inf-pattern") and _is_tensor(expected) and _is_tensor(actual):
        lines += _tensor_difference(d, decode_array(expected), decode_array(actual), ref, cand)
    elif d.kind in NOT_RUN:
        lines += [f"    {ref}: {_event(d.expected)}", f"    {cand}: {_event(d.actual)}"]
    else:
        lines += [f"    {ref}: {_shown(expected, d.expected)}", f"    {cand}: {_shown(actual, d.actual)}"]
    if d.verdict:
        lines.append(f"    referee: {d.verdict}")
    if d.known is not None:
        title = next((k.title for k in KNOWN if k.number == d.known), "")
        lines.append(f"    known divergence {d.known}: {title}")
    return lines


def belongs_to(program: Program, where: str) -> str:
    """The statement a discrepancy's location comes from: the op of a value, the call of a gradient."""
    match = re.match(r"(values|calls)/([A-Za-z_][A-Za-z0-9_]*)", where)
    if match is None:
        return "the program's exception" if where == "error" else "?"
    name = match.group(2)
    statement = next((s for s in reversed(list(walk(program.statements))) if getattr(s, "name", None) == name), None)
    if isinstance(statement, Op):
        return f"op {statement.path}"
    if isinstance(statement, Call):
        target = statement.target if isinstance(statement.target, str) else "several targets"
        producer = next((s for s in walk(program.statements) if isinstance(s, Op) and s.name == target), None)
        through = f", target computed by op {producer.path}" if producer else ""
        return f"{statement.tape}.{statement.method} of {target}{through}"
    return type(statement).__name__.lower() if statement is not None else "?"


def _described_at(outcome: Outcome, where: str) -> Any:
    """The description at `where` ("calls/g[0][1].values") in an outcome, or None."""
    match = re.fullmatch(r"(values|calls)/([A-Za-z0-9_]+)(.*)", where)
    if match is None:
        return None
    value = getattr(outcome, match.group(1)).get(match.group(2))
    for index, part in re.findall(r"\[(\d+)\]|\.(\w+)", match.group(3)):
        if not isinstance(value, dict):
            return None
        value = value.get("items", [None] * (int(index) + 1))[int(index)] if index else value.get(part)
    return value


def _is_tensor(description: Any) -> bool:
    return isinstance(description, dict) and description.get("kind") == "tensor"


def _tensor_difference(d: Discrepancy, expected: np.ndarray, actual: np.ndarray, ref: str, cand: str) -> list[str]:
    with np.errstate(all="ignore"):  # differences of huge or non-finite values are reported, not warned about
        return _measured_difference(d, expected, actual, ref, cand)


def _measured_difference(d: Discrepancy, expected: np.ndarray, actual: np.ndarray, ref: str, cand: str) -> list[str]:
    e, a = expected.astype(np.complex128 if expected.dtype.kind == "c" else np.float64), \
        actual.astype(np.complex128 if actual.dtype.kind == "c" else np.float64)
    pattern = _pattern_mismatch(e, a)
    if pattern.any():
        flat = np.flatnonzero(pattern)
        index = _index(flat[0], e.shape)
        return [f"    NaN/inf pattern differs at {flat.size} of {e.size} element(s), first at {index}: "
                f"{ref} {_number(expected, flat[0])}, {cand} {_number(actual, flat[0])}"]
    error = np.where(np.isfinite(e), np.abs(a - e), 0.0)
    worst = int(np.argmax(error)) if error.size else 0
    relative = error / np.maximum(np.abs(e), np.finfo(np.float64).tiny)
    lines = [f"    worst element {_index(worst, e.shape)}: {ref} {_number(expected, worst)}, "
             f"{cand} {_number(actual, worst)}",
             f"    max |difference| {float(np.max(error)):.3g}, max relative difference "
             f"{float(np.max(np.where(np.isfinite(e), relative, 0.0))):.3g}"
             + (f" ({d.ulps:.3g} ulps)" if d.ulps is not None else "")
             + (f"; tolerance: relative {d.tolerance['relative']:.3g}" if d.tolerance else "")]
    estimate = _estimate_at(d.estimate, worst, e.size)
    if estimate is not None:
        lines.append(f"    referee's numerical estimate there: {estimate}")
    if e.size <= 8:
        lines += [f"    {ref}: {_decimals(expected)}", f"    {cand}: {_decimals(actual)}"]
    return lines


def _pattern_mismatch(e: np.ndarray, a: np.ndarray) -> np.ndarray:
    parts = ((e.real, a.real), (e.imag, a.imag)) if e.dtype.kind == "c" else ((e, a),)
    mismatch = np.zeros(e.shape, bool)
    for x, y in parts:
        mismatch |= (np.isnan(x) != np.isnan(y)) | (np.isposinf(x) != np.isposinf(y)) | (np.isneginf(x) != np.isneginf(y))
    return mismatch


def _index(flat: int, shape: tuple) -> str:
    return str([int(i) for i in np.unravel_index(int(flat), shape)]) if shape else "[]"


def _number(array: np.ndarray, flat: int) -> str:
    """An element in decimal (shortest for its dtype) beside its exact float.hex form."""
    x = array.reshape(-1)[int(flat)]
    if array.dtype.kind == "c":
        exact = f"{float(x.real).hex()}, {float(x.imag).hex()}"
    elif array.dtype.kind in "biu":
        return str(x)
    else:
        exact = float(x).hex()
    return f"{str(x)} ({exact})"  # str keeps the dtype's shortest decimal; format() would widen it


def _decimals(array: np.ndarray) -> str:
    return "[" + ", ".join(str(x) for x in array.reshape(-1)) + "]" + (f" shape {list(array.shape)}" if array.ndim > 1 else "")


def _estimate_at(estimate: Any, flat: int, size: int) -> str | None:
    if estimate is None:
        return None
    values = np.asarray(estimate, dtype=object).reshape(-1)
    if values.size != size:
        return str(estimate)[:200]
    return str(values[flat])


def _event(description: Any) -> str:
    if not isinstance(description, dict):
        return "ran to its end" if description is None else _short(description)
    if description.get("kind") == "exception":
        return f"raised {description['class']}: {description['message'][:300]}"
    if description.get("kind") == "missing":
        return f"lacks {', '.join(description.get('names', []))}"
    return description.get("message") or description.get("kind", "?")


def _shown(description: Any, fallback: Any) -> str:
    """A value at a location: tensors in decimal, absent values as such, anything else as recorded."""
    if _is_tensor(description):
        return f"{description['dtype']} {_decimals(decode_array(description))}"
    if description is None and fallback is None:
        return "absent (the program stopped before it)"
    return _short(fallback)


def _short(value: Any) -> str:
    text = str(value)
    return text if len(text) <= 300 else text[:297] + "..."


if __name__ == "__main__":
    sys.exit(main())
