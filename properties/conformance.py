"""`reftape-conformance`: runs the seed notes and the semantics catalog on TensorFlow and on a
candidate (default reftape) and prints one row per snippet as it finishes, with a progress count.

Exit status: 0 every snippet agrees, 1 some differ, 2 bad usage (an unimportable backend, TensorFlow
not installed, an unwritable --json file), 130 interrupted (after printing the partial table).
"""

from __future__ import annotations

import json
import signal
import sys
from pathlib import Path
from typing import Any, Callable, Iterator

from .cli import EXIT_FINDINGS, EXIT_INTERRUPTED, EXIT_OK, UsageError, import_backend, parser, run_command, \
    writable_directory

PROG = "reftape-conformance"


def main(argv: list[str] | None = None) -> int:
    return run_command(PROG, lambda: _conformance(argv))


def _arguments(argv: list[str] | None) -> Any:
    p = parser(PROG, __doc__.split("\n\n")[0])
    p.add_argument("--backend", default="reftape", help="candidate module, importable from the current directory "
                                                         "(default: reftape)")
    p.add_argument("--json", type=Path, metavar="FILE", help="also write the rows as JSON to FILE")
    p.add_argument("--verbose", action="store_true", help="print every difference, not just counts")
    return p.parse_args(argv)


def _rows(tf: Any, candidate: Any) -> Iterator[tuple[str, Callable[[], list[str] | None]]]:
    """(label, check) per snippet; a check returns its differences, or None when out of scope."""
    from .compare import compare_values
    from .snippets import OUT_OF_SCOPE, catalog_entries, run_catalog_entry, run_seed, seed_names

    def seed(name: str) -> list[str]:
        found = []
        for i, (e, a) in enumerate(zip(run_seed(name, tf), run_seed(name, candidate))):
            if e[0] != a[0]:
                found.append(f"snippet {i}: printed text differs")
            found += [d.summary() for d in compare_values(e[1], a[1], f"snippet {i}")]
        return found

    def entry_check(entry: Any) -> Callable[[], list[str] | None]:
        if entry.number in OUT_OF_SCOPE:
            return lambda: None
        return lambda: [d.summary() for d in compare_values(run_catalog_entry(entry, tf),
                                                          run_catalog_entry(entry, candidate))]

    for name in seed_names():
        yield f"seed {name}", lambda name=name: seed(name)
    for entry in catalog_entries():
        yield f"catalog {entry.number:2d} {entry.title[:60]}", entry_check(entry)


def _status(found: list[str] | None) -> str:
    return "out of scope" if found is None else ("agrees" if not found else f"DIFFERS ({len(found)})")


def _conformance(argv: list[str] | None) -> int:
    args = _arguments(argv)
    if args.json is not None:
        writable_directory(args.json.parent if str(args.json.parent) else Path("."))
        if args.json.is_dir():
            raise UsageError(f"--json {str(args.json)!r} is a directory")
    candidate = import_backend(args.backend)  # the user's module first: a typo fails before TF loads
    tf = import_backend("tensorflow")
    rows = list(_rows(tf, candidate))
    results: list[dict] = []
    width = max(len(label) for label, _ in rows)
    # Ctrl-C is taken between rows: a KeyboardInterrupt raised wherever the signal lands can be lost
    # (raised in a destructor, it is only printed), and the command would then run on to the end.
    stops: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: stops.append(signum))
    try:
        for number, (label, check) in enumerate(rows, 1):
            if stops:
                break
            found = check()
            results.append({"label": label, "status": _status(found), "differences": found})
            print(f"[{number:{len(str(len(rows)))}d}/{len(rows)}] {label:<{width}}  {_status(found)}", flush=True)
            if found and args.verbose:
                print("    " + "\n    ".join(found), flush=True)
    finally:
        signal.signal(signal.SIGINT, previous)
    interrupted = bool(stops)
    checked = [r for r in results if r["differences"] is not None]
    failing = sum(1 for r in checked if r["differences"])
    summary = (f"{len(checked) - failing} agree, {failing} differ, {len(results) - len(checked)} out of scope "
               f"({args.backend} against TensorFlow {tf.__version__})")
    if interrupted:
        summary = f"interrupted after {len(results)} of {len(rows)} rows: {summary}"
    print(f"\n{summary}", flush=True)
    if args.json is not None:
        args.json.write_text(json.dumps({"backend": args.backend, "reference": f"tensorflow {tf.__version__}",
                                         "complete": not interrupted, "total": len(rows), "rows": results},
                                        indent=1) + "\n")
    if interrupted:
        return EXIT_INTERRUPTED
    return EXIT_FINDINGS if failing else EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
