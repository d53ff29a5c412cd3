"""What a campaign checks and for how long: `Campaign`, read from the command line and, for
`--resume`, from the run.json of the run it resumes."""

from __future__ import annotations

import argparse
import fnmatch
import json
import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from reftape_oracle.catalog import CATALOG, DTYPES, FAMILIES

from reftape_properties.campaign.database import reachable_database
from reftape_properties.judge.forward import FORWARD
from reftape_properties.judge.function import FUNCTION, traces_functions
from reftape_properties.pipeline import CHECKS
from reftape_properties.cli import (UnsupportedError, UsageError, backend_surface, import_backend, parser,
                                    positive_seconds, writable_directory)

PROG = "reftape-fuzz"
DEFAULT_MINUTES = 10.0
BATCH = 100                 # examples per Hypothesis run; each run gets a seed of its own
TIME_LIMIT = 20.0           # seconds per program and backend
STOP_GRACE = 3.0            # seconds workers get to finish their example before they are killed
EXPLAIN_BUDGET = 60.0       # seconds after the fuzzing budget in which workers explain what they found
SCHEDULES = ("swarm", "coverage", "uniform")   # which programs run first (campaign/schedule.py)
DEFAULT_SCHEDULE = "swarm"


@dataclass(frozen=True)
class Campaign:
    """What a campaign runs: written to run.json and given to every worker."""

    backend: str
    ops: tuple[str, ...]
    dtypes: tuple[str, ...]
    seed: int
    workers: int
    minutes: float | None
    max_examples: int | None
    report: str
    resume: bool
    database: str | None = None         # a shared example database (redis://...) instead of the report's
    shard: tuple[int, int] = (1, 1)     # (K, N): this machine draws the seeds congruent to K-1 modulo N
    time_limit: float = TIME_LIMIT      # seconds per program and backend
    surface: str | None = None          # a file declaring what the backend lacks beyond what the probe finds
    lacking: tuple[str, ...] = ()       # every name the backend lacks (oracle/surface.py): never drawn
    unsupported: tuple[str, ...] = ()   # what of the campaign's ops and the tape features was left out for it
    checks: tuple[str, ...] = ("differential",)   # the properties checked on each program (pipeline.CHECKS)
    schedule: str = DEFAULT_SCHEDULE    # one of SCHEDULES
    explain_budget: float = EXPLAIN_BUDGET   # seconds to explain findings once fuzzing is over (0: never)


def arguments() -> argparse.ArgumentParser:
    result = parser(PROG, "Fuzz a TF-like tape against TensorFlow with generated programs; write an HTML report.")
    budget = result.add_mutually_exclusive_group()
    budget.add_argument("--minutes", type=float, help=f"time budget (default {DEFAULT_MINUTES:g} minutes)")
    budget.add_argument("--max-examples", type=int, help="stop after this many programs")
    result.add_argument("--seed", type=int, help="campaign seed (default: random, written to run.json)")
    result.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="processes (default: all cores)")
    result.add_argument("--backend", help="candidate module (default reftape; the current directory is importable)")
    result.add_argument("--ops", help="comma-separated globs over catalog paths, e.g. 'sin,math.*', and families of "
                        "the CI profile's split, e.g. 'family:linalg' (default: all)")
    result.add_argument("--dtypes", help="comma-separated dtypes (default: all)")
    result.add_argument("--report", type=Path, default=Path("fuzz-report"), help="report directory "
                                                                                  "(default ./fuzz-report)")
    result.add_argument("--resume", action="store_true", help="replay the failures in the report directory's "
                        "example database first, with the run's --backend, --ops, --dtypes, --time-limit, "
                        "--database and --shard (from its run.json; giving another value is an error)")
    result.add_argument("--database", metavar="URL", help="a Hypothesis example database shared by machines, "
                        "e.g. redis://127.0.0.1:6379/0: failures any machine saved are replayed first")
    result.add_argument("--shard", metavar="K/N", help="this machine's share of the seeds: "
                        "machines given 1/N .. N/N draw disjoint seeds (default 1/1)")
    result.add_argument("--list-ops", action="store_true", help="print the catalog paths --ops selects (with "
                        "--backend, whether the backend has each) and exit")
    result.add_argument("--surface", type=Path, metavar="FILE", help='JSON {"unsupported": [name, ...]}: ops '
                        "(globs), tape features or op keywords the backend lacks beyond what probing it finds")
    result.add_argument("--require-all", action="store_true", help="fail (exit 4) before running when the "
                        "backend lacks any op or tape feature the campaign would draw")
    result.add_argument("--check", dest="checks", metavar="LIST", help="comma-separated properties to check on each program: "
                        + "; ".join(f"{name}: {what}" for name, (_, what) in CHECKS.items())
                        + " (default differential)")
    result.add_argument("--schedule", choices=SCHEDULES, help="swarm (default): each program draws from a random "
                        "part of the ops, small programs first among them; coverage: the swarm's programs, those "
                        "exercising what the campaign has exercised least first (op x dtype pairs, tape options, "
                        "attribute values, special points); uniform: every program from all of them")
    result.add_argument("--explain-budget", type=float, metavar="SECONDS",
                        help=f"workers fuzz for the whole budget and record each finding at once; they explain "
                             f"(first divergence, minimisation) what they found in at most this many seconds "
                             f"after it (default {EXPLAIN_BUDGET:g}; 0: findings stay unexplained)")
    result.add_argument("--time-limit", type=positive_seconds, metavar="SECONDS",
                        help=f"per program and backend (default {TIME_LIMIT:g}); a worker stuck past it in native "
                             "code is killed and the program run again in processes of its own")
    return result


# What a resumed run takes from the run.json of the run it resumes: what it checks and where its saved
# failures are (replayed on another backend they would pass, and Hypothesis would delete them).
RESUMED = {"backend": "--backend", "ops": "--ops", "dtypes": "--dtypes", "time_limit": "--time-limit",
           "database": "--database", "shard": "--shard", "surface": "--surface", "checks": "--check",
           "schedule": "--schedule"}
_NOT_RECORDED = object()
# Checks the issue tracker names that the program language cannot express yet: refused, never run as something else.
def campaign_from(args: argparse.Namespace) -> Campaign:
    """The campaign the arguments ask for (with `--resume`, the resumed run's configuration for what
    they leave out); UsageError (before anything runs or is written) for bad usage."""
    recorded = _resumed_configuration(args.report) if args.resume else {}

    def chosen(name: str, resolve: Callable[[Any], Any], default: Any) -> Any:
        return _chosen(RESUMED[name], getattr(args, name), recorded.get(name, _NOT_RECORDED), resolve, default)

    backend = chosen("backend", str, "reftape")
    ops = chosen("ops", matching_ops, "*")
    dtypes = chosen("dtypes", _dtype_list, None)
    time_limit = chosen("time_limit", float, TIME_LIMIT)
    shard = chosen("shard", _shard, "1/1")
    database = chosen("database", lambda url: url, None)
    surface_file = chosen("surface", lambda path: path and str(path), None)
    checks = chosen("checks", _check_list, "differential")
    # a run recorded before schedules existed drew uniformly: its saved failures replay only so
    schedule = chosen("schedule", str, "uniform" if args.resume and "backend" in recorded and "schedule" not in recorded
                      else DEFAULT_SCHEDULE)
    for name, value in (("--minutes", args.minutes), ("--max-examples", args.max_examples)):
        if value is not None and value <= 0:
            raise UsageError(f"{name} must be positive, not {value:g}")
    if args.explain_budget is not None and not 0 <= args.explain_budget < math.inf:
        raise UsageError(f"--explain-budget must be a finite number of seconds, 0 or more, not {args.explain_budget:g}")
    if args.workers < 1:
        raise UsageError(f"--workers must be at least 1, not {args.workers}")
    surface = backend_surface(import_backend(backend), surface_file)
    if FORWARD in checks and not surface.has("autodiff.ForwardAccumulator"):
        raise UnsupportedError(f"--check {FORWARD}: {backend} lacks tf.autodiff.ForwardAccumulator, which every program "
                               "of the forward check runs in")
    if FUNCTION in checks and not traces_functions(import_backend(backend)):
        raise UnsupportedError(f"--check {FUNCTION}: {backend}'s function runs its body on every call (it does not "
                               "trace), so its traced runs are its eager ones and the check could never disagree")
    unsupported = surface.unsupported(ops)
    if args.require_all and unsupported:
        raise UnsupportedError(f"--require-all: {backend} lacks {len(unsupported)} of what the campaign draws: "
                               f"{', '.join(unsupported)}")
    ops = surface.ops(ops)
    if not ops:
        raise UsageError(f"{backend} has none of the ops selected (see --list-ops --backend {backend})")
    _check_ops_have_dtypes(ops, dtypes)
    database = reachable_database(database)
    report = writable_directory(args.report)
    seed = args.seed if args.seed is not None else int.from_bytes(os.urandom(4), "big")
    minutes = DEFAULT_MINUTES if args.minutes is None and args.max_examples is None else args.minutes
    return Campaign(backend, ops, dtypes, seed, args.workers, minutes, args.max_examples, str(report.resolve()),
                    args.resume, database, shard, time_limit, surface_file, tuple(sorted(surface.lacking)), unsupported,
                    checks, schedule, EXPLAIN_BUDGET if args.explain_budget is None else args.explain_budget)


LISTED_OPS = 12  # unsupported ops the summary line names; beyond that it counts them


def unsupported_line(campaign: Campaign) -> str:
    """What the campaign left out because its backend lacks it, in one line (the report lists it all)."""
    ops = [name for name in campaign.unsupported if name in CATALOG]
    others = [name for name in campaign.unsupported if name not in ops]
    named = ops if len(ops) <= LISTED_OPS else [f"{len(ops)} catalog ops (--list-ops --backend {campaign.backend})"]
    return f"unsupported by {campaign.backend}, not drawn: {', '.join(named + others)}"


def _chosen(option: str, given: Any, recorded: Any, resolve: Callable[[Any], Any], default: Any) -> Any:
    """An option's value: the one given (resolved), else the resumed run's, else the default; a given
    value that differs from the resumed run's is a UsageError naming both."""
    if given is None:
        return resolve(default) if recorded is _NOT_RECORDED else _one_run_setting(option, recorded, resolve)
    value = resolve(given)
    if recorded is not _NOT_RECORDED and value != recorded:
        raise UsageError(f"{option} {given!r} conflicts with the run being resumed, which used {option} "
                         f"{_as_given(option, recorded)!r} (its run.json): leave {option} out to resume that run")
    return value


def _one_run_setting(option: str, recorded: Any, resolve: Callable[[Any], Any]) -> Any:
    """`recorded` after checking that its option would take it (a merged report's run.json records the
    distinct values of several runs instead); UsageError otherwise."""
    try:
        valid = recorded is None or resolve(_as_given(option, recorded)) == recorded
    except (UsageError, ValueError, TypeError):
        valid = False
    if not valid:
        raise UsageError(f"--resume: run.json records {option} {recorded!r}, not one run's setting "
                         f"(a merged report?): resume one of the runs it was made from")
    return recorded


def _as_given(option: str, value: Any) -> Any:
    """A recorded value spelled as its option takes it."""
    if option == "--shard":
        return "/".join(map(str, value))
    return ",".join(map(str, value)) if isinstance(value, tuple) else value


def _resumed_configuration(report: Path) -> dict[str, Any]:
    """The configuration `run.json` in `report` records, as `Campaign` holds it (tuples for lists)."""
    path = report / "run.json"
    try:
        configuration = json.loads(path.read_text())["configuration"]
        return {name: tuple(configuration[name]) if isinstance(configuration[name], list) else configuration[name]
                for name in RESUMED if name in configuration}
    except FileNotFoundError:
        raise UsageError(f"--resume: {str(path)!r} does not exist: no run to resume in {str(report)!r}") from None
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise UsageError(f"--resume: {str(path)!r} is unreadable ({type(error).__name__}: {error})") from None


def matching_ops(text: str) -> tuple[str, ...]:
    """The catalog paths `--ops` selects: globs over paths, and `family:NAME` for a family of the CI profile's
    split (tests/suite/test_differential.py: elementwise_unary, linalg, nn, ...)."""
    patterns = [p.strip() for p in text.split(",") if p.strip()]
    families = {p.partition(":")[2] for p in patterns if p.startswith("family:")}
    unknown = sorted(families - set(FAMILIES))
    if unknown:
        raise UsageError(f"--ops: no family {unknown[0]!r} (families: {', '.join(sorted(FAMILIES))})")
    ops = tuple(path for path in CATALOG if any(fnmatch.fnmatchcase(path, p) for p in patterns)
                or any(path in FAMILIES[f] for f in families))
    if not ops:
        raise UsageError(f"--ops {text!r} matches no catalog op (e.g. 'sin', 'math.*', 'nn.relu', 'family:linalg')")
    return ops


def op_listing(ops_text: str | None, backend_name: str | None, declaration: Path | None = None) -> list[str]:
    """`--list-ops`: the catalog paths `--ops` selects, one per line; with a backend, each marked `has` or
    `lacks` (the op, or a keyword it cannot be called without), then the tape features it lacks and a count."""
    ops = matching_ops(ops_text or "*")
    if backend_name is None:
        return list(ops)
    surface = backend_surface(import_backend(backend_name), declaration and str(declaration))
    lines = [f"{'has' if surface.has_op(path) else 'lacks':5} {path}" for path in ops]
    unsupported = surface.unsupported(ops)
    lines += [f"lacks {name}" for name in unsupported if name not in ops and name.split("(")[0] not in ops]
    return lines + [f"{backend_name} has {len(surface.ops(ops))} of these {len(ops)} catalog ops"]


def _dtype_list(text: str | None) -> tuple[str, ...]:
    dtypes = DTYPES if text is None else tuple(d.strip() for d in text.split(",") if d.strip())
    unknown = [d for d in dtypes if d not in DTYPES]
    if unknown or not dtypes:
        raise UsageError(f"--dtypes {text!r}: unknown dtype {', '.join(unknown) or '(none)'}; "
                         f"choose from {', '.join(DTYPES)}")
    return dtypes


def _check_list(text: str) -> tuple[str, ...]:
    checks = tuple(dict.fromkeys(c.strip() for c in text.split(",") if c.strip()))
    unknown = [c for c in checks if c not in CHECKS]
    if unknown or not checks:
        raise UsageError(f"--check {text}: unknown check {', '.join(unknown) or '(none)'}; choose from "
                         f"{', '.join(CHECKS)}")
    return checks


def _check_ops_have_dtypes(ops: tuple[str, ...], dtypes: tuple[str, ...]) -> None:
    if not any(d in CATALOG[op].dtypes for op in ops for d in dtypes):
        raise UsageError(f"none of the ops {', '.join(ops)} supports dtypes {', '.join(dtypes)}")


def _shard(text: str) -> tuple[int, int]:
    try:
        k, n = (int(part) for part in text.split("/"))
    except ValueError:
        raise UsageError(f"--shard {text!r} must be K/N with whole numbers, e.g. 2/4") from None
    if not 1 <= k <= n:
        raise UsageError(f"--shard {text!r} needs 1 <= K <= N")
    return k, n
