"""`reftape-report DIR`: re-renders DIR/index.html and DIR/repro/*.py from the records in DIR."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from reftape_properties.cli import EXIT_OK, UsageError, parser, run_command, writable_directory

PROG = "reftape-report"


def _report(directory: Path) -> int:
    from .render import render

    if not directory.is_dir():
        raise UsageError(f"report directory {str(directory)!r} does not exist")
    if not os.access(directory, os.R_OK | os.X_OK):
        raise UsageError(f"report directory {str(directory)!r} is not readable")
    index = render(writable_directory(directory))
    print(f"{PROG}: report written to {index}")
    return EXIT_OK


def main(argv: list[str] | None = None) -> int:
    arguments = parser(PROG, __doc__)
    arguments.add_argument("directory", type=Path, help="a report directory (holding discrepancies.jsonl)")
    args = arguments.parse_args(argv)
    return run_command(PROG, lambda: _report(args.directory))


if __name__ == "__main__":
    sys.exit(main())
