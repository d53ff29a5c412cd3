"""`reftape-fuzz`: a fuzzing campaign (`reftape_properties.campaign`) that ends in its HTML report.

The campaign belongs to the harness layer and the report to this one, above it: this command joins
the two, so that the harness never imports the reports. SIGINT and SIGTERM are taken as a request to
stop from the moment the arguments are read, so a stop during set-up still ends with the report.
"""

from __future__ import annotations

import argparse
import sys

from reftape_properties.campaign.configuration import PROG, arguments, campaign_from, op_listing
from reftape_properties.campaign.supervisor import run_campaign
from reftape_properties.cli import EXIT_OK, StopSignals, run_command

from reftape_reports.render import render


def main(argv: list[str] | None = None) -> int:
    with StopSignals() as signals:
        args = arguments().parse_args(argv)
        if args.list_ops:
            return run_command(PROG, lambda: _list_ops(args))
        return run_command(PROG, lambda: run_campaign(campaign_from(args), render, signals))


def _list_ops(args: argparse.Namespace) -> int:
    print("\n".join(op_listing(args.ops, args.backend, args.surface)))
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
