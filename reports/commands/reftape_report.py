"""`reftape-report DIR`: re-renders DIR/index.html and DIR/repro/*.py from the records in DIR.

`reftape-report OUT --merge DIR1 DIR2 ...`: one report in OUT from the records of several report
directories (campaigns run on several machines), replacing OUT's own records.

A directory (or merge source) holding none of the records a run leaves is refused (exit 2): its
report would claim agreement where nothing was checked.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from reftape_properties.cli import EXIT_OK, UsageError, parser, run_command, writable_directory

PROG = "reftape-report"
RECORDS = ("discrepancies.jsonl", "coverage.jsonl", "run.json", "worker-deaths.jsonl")


def _readable(directory: Path) -> Path:
    if not directory.is_dir():
        raise UsageError(f"report directory {str(directory)!r} does not exist")
    if not os.access(directory, os.R_OK | os.X_OK):
        raise UsageError(f"report directory {str(directory)!r} is not readable")
    if not any((directory / name).is_file() for name in RECORDS):
        raise UsageError(f"report directory {str(directory)!r} holds no records ({', '.join(RECORDS)}): "
                         "nothing ran there to report on")
    return directory


def _merged(out: Path, sources: list[Path]) -> int:
    from reftape_reports.merge import merge

    for source in sources:
        if source.resolve() == out.resolve():
            raise UsageError(f"{str(out)!r} cannot be both the merged report and one of its sources")
        _readable(source)
    index = merge(sources, writable_directory(out), " ".join([PROG, str(out), "--merge", *map(str, sources)]))
    print(f"{PROG}: merged report of {len(sources)} directories written to {index}")
    return EXIT_OK


def _report(directory: Path) -> int:
    from reftape_reports.render import render

    index = render(writable_directory(_readable(directory)))
    print(f"{PROG}: report written to {index}")
    return EXIT_OK


def main(argv: list[str] | None = None) -> int:
    arguments = parser(PROG, __doc__)
    arguments.add_argument("directory", type=Path, help="a report directory (holding discrepancies.jsonl)")
    arguments.add_argument("--merge", nargs="+", type=Path, metavar="SOURCE",
                           help="write DIRECTORY's report from the records of these report directories")
    args = arguments.parse_args(argv)
    if args.merge:
        return run_command(PROG, lambda: _merged(args.directory, args.merge))
    return run_command(PROG, lambda: _report(args.directory))


if __name__ == "__main__":
    sys.exit(main())
