"""`reftape-replay PROGRAM.json`: run a saved program on a candidate backend and on TensorFlow,
print both outcomes, the discrepancies and the referee's verdicts (exit 1 when they disagree).
`--source` prints the program as a standalone TensorFlow script instead."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from reftape_oracle.program import Program

from .findings import HarnessError, evaluate


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="reftape-replay", description=__doc__)
    parser.add_argument("program", type=Path, help="a program saved as JSON")
    parser.add_argument("--backend", default="reftape", help="candidate module (default: reftape)")
    parser.add_argument("--against", default="tensorflow", help="reference module (default: tensorflow)")
    parser.add_argument("--source", action="store_true", help="print the standalone script and exit")
    parser.add_argument("--time-limit", type=float, default=60.0, help="seconds per program and backend")
    args = parser.parse_args(argv)
    try:
        program = Program.from_json(args.program.read_text())
    except (OSError, ValueError, KeyError, TypeError) as error:
        parser.error(f"cannot read a program from {args.program}: {error}")
    if args.source:
        print(program.to_source(args.against))
        return 0

    try:
        finding = evaluate(program, args.backend, args.against, time_limit=args.time_limit)
    except HarnessError as error:
        print(f"reftape-replay: harness error: {error}", file=sys.stderr)
        return 3
    if finding is None:
        print(f"== agree: {args.backend} and {args.against} ran the program to the same outcome ==")
        return 0
    for outcome in (finding.expected, finding.actual):
        print(f"== {outcome.backend} ==")
        print(json.dumps(outcome.observed(), indent=1, sort_keys=True))
    found = finding.discrepancies
    print(f"== {len(found)} discrepancies ({args.backend} against {args.against}) ==")
    for d in found:
        measured = f" rel.err {d.relative_error:.3g}, {d.ulps:.3g} ulps" if d.relative_error is not None else ""
        verdict = f" -> {d.verdict}" if d.verdict else ""
        known = f" (known divergence {d.known})" if d.known else ""
        print(f"{d.kind:24} {d.where}{measured}{verdict}{known}")
        print(f"    {args.against}: {json.dumps(d.expected)[:300]}\n    {args.backend}: {json.dumps(d.actual)[:300]}")
    return 0 if finding.known else 1

if __name__ == "__main__":
    sys.exit(main())
