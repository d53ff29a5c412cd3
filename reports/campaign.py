"""`reftape-fuzz`: a fuzzing campaign (`reftape_properties.fuzz`) that ends in its HTML report.

The campaign belongs to the harness layer and the report to this one, above it: this command joins
the two, so that the harness never imports the reports.
"""

from __future__ import annotations

import sys

from reftape_properties.cli import run_command
from reftape_properties.fuzz import PROG, arguments, campaign_from, run_campaign

from .render import render


def main(argv: list[str] | None = None) -> int:
    args = arguments().parse_args(argv)
    return run_command(PROG, lambda: run_campaign(campaign_from(args), render))


if __name__ == "__main__":
    sys.exit(main())
