"""`reftape-conformance`: runs the seed notes and the semantics catalog on TensorFlow and on a
candidate (default reftape) and prints one row per note with code and per catalog entry as it
finishes, with a progress count.

A row agrees only when both sides ran its code (compare.py's harness faults). Its status is one of:
  agrees          both ran it and showed the same
  DIFFERS (n)     both ran it and n things differ
  not run: ...    the candidate lacks a name the row's code (or the harness, for it) uses, so it was not
                  run there: the names are listed (a partial tape's author sees what ran and what not)
  HARNESS ERROR   the row's code does not compile, the reference raised outside the code under test
                  (NameError, SyntaxError, ...) or lacks a name it uses, or the harness's own code failed
  out of scope    listed in snippets.OUT_OF_SCOPE with its reason (none today)

Exit status: 0 every row agrees; 3 some row is a harness error (whatever else happened: the run cannot
be trusted); else 1 some row differs; else 3 some row was not run on the candidate: an incomplete run
is no agreement, and no finding about what the candidate computes (the table says which rows ran); 2 bad
usage (an unimportable backend, TensorFlow not installed, an unwritable --json file); 130 interrupted
(after printing the partial table).
"""

from __future__ import annotations

import json
import signal
import sys
from pathlib import Path
from typing import Any, Callable, Iterator

from reftape_properties.cli import (EXIT_FINDINGS, EXIT_HARNESS, EXIT_INTERRUPTED, EXIT_OK, UsageError, import_backend,
                                    parser, run_command, writable_directory)

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


def _rows(tf: Any, candidate: Any) -> Iterator[tuple[str, Callable[[], list[Any] | None]]]:
    """(label, check) per snippet; a check returns its discrepancies, or None when out of scope."""
    from reftape_properties.judge.compare import compare_values
    from reftape_properties.conformance.snippets import (OUT_OF_SCOPE, catalog_entries, run_catalog_entry, run_seed, seed_names, seed_snippets)

    def entry_check(entry: Any) -> Callable[[], list[Any] | None]:
        if entry.number in OUT_OF_SCOPE:
            return lambda: None
        return lambda: compare_values(run_catalog_entry(entry, tf), run_catalog_entry(entry, candidate))

    for name in (n for n in seed_names() if seed_snippets(n)):  # a note of prose only has no row
        yield f"seed {name}", lambda name=name: compare_values(run_seed(name, tf), run_seed(name, candidate))
    for entry in catalog_entries():
        yield f"catalog {entry.number:2d} {entry.title[:60]}", entry_check(entry)


CATEGORIES = ("agree", "differ", "not run", "harness error", "out of scope")


def _status(found: list[Any] | None) -> tuple[str, str]:
    """The row's status (module docstring) from its discrepancies: its category, and how it is shown."""
    from reftape_properties.judge.compare import HARNESS

    if found is None:
        return "out of scope", "out of scope"
    kinds = {d.kind for d in found}
    if HARNESS in kinds:
        return "harness error", "HARNESS ERROR"
    if kinds == {"missing"}:
        names = sorted({name for d in found for name in d.actual["names"]})
        return "not run", "not run: lacks " + ", ".join(names)
    return ("differ", f"DIFFERS ({len(found)})") if found else ("agree", "agrees")


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
            category, shown = _status(found)
            lines = None if found is None else [d.summary() for d in found]
            results.append({"label": label, "category": category, "status": shown, "differences": lines})
            print(f"[{number:{len(str(len(rows)))}d}/{len(rows)}] {label:<{width}}  {shown}", flush=True)
            if lines and (args.verbose or category == "harness error"):
                print("    " + "\n    ".join(lines), flush=True)
    finally:
        signal.signal(signal.SIGINT, previous)
    interrupted = bool(stops)
    counts = {category: sum(1 for r in results if r["category"] == category) for category in CATEGORIES}
    summary = (", ".join(f"{n} {category}" for category, n in counts.items() if n or category in ("agree", "differ"))
               + f" ({args.backend} against TensorFlow {tf.__version__})")
    if interrupted:
        summary = f"interrupted after {len(results)} of {len(rows)} rows: {summary}"
    print(f"\n{summary}", flush=True)
    if args.json is not None:
        args.json.write_text(json.dumps({"backend": args.backend, "reference": f"tensorflow {tf.__version__}",
                                         "complete": not interrupted, "total": len(rows), "counts": counts,
                                         "rows": results}, indent=1) + "\n")
    return _exit_status(counts, interrupted)


def _exit_status(counts: dict[str, int], interrupted: bool) -> int:
    """The module docstring's exit status for a run with these row counts."""
    if interrupted:
        return EXIT_INTERRUPTED
    if counts["harness error"]:
        return EXIT_HARNESS
    if counts["differ"]:
        return EXIT_FINDINGS
    return EXIT_HARNESS if counts["not run"] else EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
