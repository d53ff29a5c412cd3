"""`reftape-sensitivity`: plants each catalogued bug in a copy of reftape and reports which detectors
kill it (how it measures: properties/sensitivity/measure.py)."""

from __future__ import annotations

import json
import shutil
import signal
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from reftape_properties.cli import EXIT_FINDINGS, EXIT_OK, UsageError, parser, run_command
from reftape_properties.sensitivity.measure import (DEFAULT_TIMEOUT, DETECTORS, QUICK, TESTS, Result, Runs,
                                                    check_baseline, check_mutants_apply, interrupt, is_detector, measure,
                                                    record, stop_children, summary)
from reftape_properties.sensitivity.mutants import MUTANTS, Mutant, select


def _line(result: Result, detectors: list[str]) -> str:
    m = result.mutant
    verdicts = "  ".join(f"{d}: {result.status[d]} ({result.seconds[d]:.0f}s)" for d in detectors)
    note = "  [equivalent]" if m.equivalent else ""
    return f"{m.id:42} {m.family:4} {m.cls:19} {verdicts}{note}"


def _print_report(results: list[Result], rates: dict, detectors: list[str]) -> None:
    for d, rate in rates.items():
        share = rate["detectable_killed"] / max(rate["detectable"], 1)
        print(f"{d}: killed {rate['killed']}/{rate['mutants']} mutants; {rate['detectable_killed']}/"
              f"{rate['detectable']} detectable ({share:.0%}); vjp {rate['by_family']['vjp']}, "
              f"tape {rate['by_family']['tape']}")
        if "time_to_detection" in rate:
            figures = rate["time_to_detection"]
            within = ", ".join(f"{n} within {mark} s" for mark, n in figures["killed_within"].items())
            median = "none killed" if figures["median_seconds"] is None else f"{figures['median_seconds']:g} s"
            print(f"{d}: time to detection: {within}; median {median}")
    for d in detectors:
        survivors = [r for r in results if not r.killed_by(d)]
        if survivors:
            print(f"survivors of {d}:")
            for r in survivors:
                why = f"equivalent: {r.mutant.equivalent}" if r.mutant.equivalent else r.mutant.description
                extra = f" [{r.status[d]}: {r.detail[d]}]" if r.status[d] not in ("survived",) else ""
                print(f"  {r.mutant.id}: {why}{extra}")


def _write_json(path: Path, results: list[Result], detectors: list[str], seconds: float, complete: bool) -> None:
    path.write_text(json.dumps(record(results, detectors, seconds, complete), indent=1) + "\n")


def _options():
    result = parser("reftape-sensitivity", "Plants each catalogued bug in a copy of reftape and reports "
                                           "which detectors kill it.")
    result.add_argument("--detectors", default="fuzz",
                        help=f"comma-separated detectors among {', '.join(DETECTORS)}, and campaign:SECONDS or "
                             "campaign-coverage:SECONDS, campaign-swarm:SECONDS or campaign-uniform:SECONDS (a reftape-fuzz "
                             "campaign of that budget, with its default schedule or the one named: its time to "
                             "detection) (default: fuzz)")
    result.add_argument("--mutants", metavar="PATTERN",
                        help="glob over mutant id, family or class; commas separate alternatives (default: all)")
    result.add_argument("--quick", action="store_true", help=f"the fixed CI subset: {', '.join(QUICK)}")
    result.add_argument("--select", metavar="EXPR", help="a pytest -k expression narrowing the pytest detectors' "
                        "tests, e.g. 'elementwise' (default: all of them)")
    result.add_argument("--jobs", type=int, default=1, help="mutants measured in parallel (default: 1)")
    result.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT,
                        help=f"seconds per detector run (default: {DEFAULT_TIMEOUT:.0f})")
    result.add_argument("--json", metavar="FILE", type=Path, help="write the results as JSON")
    result.add_argument("--list", action="store_true", help="list the selected mutants and exit")
    return result


def _chosen(args) -> tuple[list[Mutant], list[str]]:
    detectors = [d.strip() for d in args.detectors.split(",") if d.strip()]
    unknown = [d for d in detectors if not is_detector(d)]
    if unknown or not detectors:
        raise UsageError(f"unknown detector {', '.join(unknown) or '(none)'}: choose among {', '.join(DETECTORS)}, "
                         "campaign:SECONDS, campaign-coverage:SECONDS, campaign-swarm:SECONDS, campaign-uniform:SECONDS")
    if args.jobs < 1 or args.timeout <= 0:
        raise UsageError("--jobs and --timeout must be positive")
    mutants = select(args.mutants)
    if args.quick:
        mutants = [m for m in mutants if m.id in QUICK]
    if not mutants:
        raise UsageError(f"no mutant matches {args.mutants!r} (see --list)")
    if not TESTS.is_dir():
        raise UsageError(f"the test suite is not beside the harness ({TESTS}): run from a source checkout")
    if args.json is not None and not args.json.parent.is_dir():
        raise UsageError(f"cannot write {str(args.json)!r}: no such directory")
    return mutants, detectors


def _main(argv: list[str] | None = None) -> int:
    args = _options().parse_args(argv)
    mutants, detectors = _chosen(args)
    if args.list:
        for m in mutants:
            print(f"{m.id:42} {m.family:4} {m.cls:19} {m.description}")
        return EXIT_OK
    check_mutants_apply(mutants)
    print(f"reftape-sensitivity: {len(mutants)} of {len(MUTANTS)} mutants, detectors {', '.join(detectors)}, "
          f"{args.jobs} job(s), timeout {args.timeout:.0f} s per run", flush=True)
    start = time.monotonic()
    signal.signal(signal.SIGTERM, interrupt)
    memo = Path(tempfile.mkdtemp(prefix="reftape-sensitivity-memo-"))
    try:
        runs = Runs(args.timeout, memo, args.jobs, args.select)
        check_baseline(detectors, runs)
        results = _measure_all(mutants, detectors, args, runs, start)
    except KeyboardInterrupt:
        stop_children()  # the running measurements end at once and remove their copies
        raise
    finally:
        shutil.rmtree(memo, ignore_errors=True)
    _print_report(results, summary(results, detectors), detectors)
    elapsed = time.monotonic() - start
    print(f"{elapsed:.0f} s in all")
    if args.json is not None:
        _write_json(args.json, results, detectors, elapsed, complete=True)
        print(f"results: {args.json}")
    perfect = all(r.killed_by(d) != bool(r.mutant.equivalent) for r in results for d in detectors)
    return EXIT_OK if perfect else EXIT_FINDINGS


def _measure_all(mutants: list[Mutant], detectors: list[str], args, runs: Runs, start: float) -> list[Result]:
    results: list[Result] = []
    pool = ThreadPoolExecutor(max_workers=args.jobs)
    try:
        for result in pool.map(lambda m: measure(m, detectors, runs), mutants):
            print(_line(result, detectors), flush=True)
            results.append(result)
            if args.json is not None:  # rewritten after each mutant: an interrupted run keeps what it measured
                _write_json(args.json, results, detectors, time.monotonic() - start, complete=False)
    except KeyboardInterrupt:
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown()
    return results


def main(argv: list[str] | None = None) -> int:
    return run_command("reftape-sensitivity", lambda: _main(argv))
