"""The one pipeline: `evaluate` runs a program on a candidate and on the reference, compares the two
outcomes, referees value mismatches and marks known divergences, and returns a `Finding` (or None
when they agree). The pytest property, the fuzz command, replay, minimisation and the reports all
call it; nothing else re-implements any of its steps.

A Finding serialises to one JSON object (`to_json`/`from_json`, versioned by `schema_version`);
the record format is documented as a JSON Schema in `properties/finding.schema.json`.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import uuid
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from reftape_oracle.outcome import Outcome
from reftape_oracle.program import Call, Program, Tape, walk

from .compare import PROGRAM_HARNESS_EXCEPTIONS, Discrepancy, compare
from .known import Evidence, explained_by
from .referee import referee

SCHEMA_VERSION = 1
SCHEMA_PATH = Path(__file__).with_name("finding.schema.json")   # the record format, as a JSON Schema


def record_validator() -> Any:
    """A JSON Schema validator of finding records; their programs are checked by the program file
    schema (oracle/program.schema.json), which the finding schema refers to by its id."""
    import jsonschema
    from referencing import Registry, Resource

    from reftape_oracle.validation import SCHEMA_ID
    from reftape_oracle.validation import SCHEMA_PATH as PROGRAM_SCHEMA_PATH

    program = Resource.from_contents(json.loads(PROGRAM_SCHEMA_PATH.read_text()))
    schema = json.loads(SCHEMA_PATH.read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema, registry=Registry().with_resource(SCHEMA_ID, program),
                                           format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)


class HarnessError(Exception):
    """The harness itself could not run the program on one side: never an agreement."""


@dataclass
class Finding:
    """A program on which the candidate and the reference disagree, with everything that shows it."""

    program: Program
    expected: Outcome                     # the reference's outcome (the judge)
    actual: Outcome                       # the candidate's outcome
    discrepancies: list[Discrepancy]
    candidate: str = "reftape"
    reference: str = "tensorflow"
    id: str = ""
    timestamp: str = ""
    suspect: str | None = None            # the op at the first divergent node, when known
    reproduce: str | None = None          # how to draw this program again (seed, blob), when known
    context: dict = field(default_factory=dict)   # where it was found: test node id, campaign, ...

    def __post_init__(self) -> None:
        if not self.id:
            self.id = f"{self.program_digest()[:12]}-{uuid.uuid4().hex[:8]}"
        if not self.timestamp:
            self.timestamp = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")

    def program_digest(self) -> str:
        return hashlib.sha256(self.program.to_json().encode()).hexdigest()

    def judge(self) -> Finding:
        """Fills in the referee's verdict on each value discrepancy; returns the finding."""
        referee(self.program, self.discrepancies, self.expected, self.actual)
        return self

    @property
    def unexplained(self) -> list[Discrepancy]:
        return [d for d in self.discrepancies if d.known is None]

    @property
    def known(self) -> bool:
        """Every discrepancy is explained by a reviewed known divergence."""
        return not self.unexplained

    @property
    def primary(self) -> Discrepancy:
        """The discrepancy that names the finding: the first unexplained one, else the first."""
        return (self.unexplained or self.discrepancies)[0]

    def stopped_by(self, kinds: tuple[str, ...]) -> bool:
        """Whether an outcome error of one of `kinds` stopped a side (see outcome.UNFINISHED)."""
        return any((o.error or {}).get("kind") in kinds for o in (self.expected, self.actual))

    @property
    def crashed(self) -> bool:
        """A side's process died running the program: running it again in this process would kill it."""
        return self.stopped_by(("crash",))

    @property
    def kind(self) -> str:
        return self.primary.kind

    @property
    def dtype(self) -> str | None:
        return self.primary.dtype or _program_dtype(self.program)

    def signature_parts(self) -> dict:
        """What one root cause has in common across programs: kind, suspect op, dtype, tape options, verdict."""
        return {"kind": self.kind, "suspect": self.suspect or "?", "dtype": self.dtype or "?",
                "tape_options": ",".join(tape_options(self.program)), "verdict": self.primary.verdict or "-"}

    def signature(self) -> str:
        return "|".join(self.signature_parts().values())

    def to_dict(self) -> dict:
        return {"schema_version": SCHEMA_VERSION, "id": self.id, "timestamp": self.timestamp,
                "candidate": self.candidate, "reference": self.reference, "kind": self.kind,
                "signature": self.signature(), "suspect": self.suspect, "dtype": self.dtype,
                "verdict": self.primary.verdict, "known": self.known,
                "discrepancies": [asdict(d) for d in self.discrepancies],
                "program": self.program.to_dict(), "source": self.program.to_source(self.reference),
                "expected": asdict(self.expected), "actual": asdict(self.actual),
                "environment": self.expected.environment, "reproduce": self.reproduce, "context": self.context}

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), sort_keys=True)

    @classmethod
    def from_dict(cls, data: dict) -> Finding:
        if not isinstance(data, dict):
            raise ValueError(f"a finding record is a JSON object, not {type(data).__name__}")
        version = data.get("schema_version")
        if version != SCHEMA_VERSION:
            raise ValueError(f"finding schema_version {version!r} is not {SCHEMA_VERSION}")
        return cls(program=Program.from_dict(data["program"]), expected=Outcome(**data["expected"]),
                   actual=Outcome(**data["actual"]), discrepancies=[Discrepancy(**d) for d in data["discrepancies"]],
                   candidate=data["candidate"], reference=data["reference"], id=data["id"],
                   timestamp=data["timestamp"], suspect=data.get("suspect"), reproduce=data.get("reproduce"),
                   context=data.get("context") or {})

    @classmethod
    def from_json(cls, text: str) -> Finding:
        return cls.from_dict(json.loads(text))


def _program_dtype(program: Program) -> str | None:
    floating = [leaf.dtype for leaf in program.leaves().values() if not leaf.dtype.startswith(("int", "bool"))]
    return floating[0] if floating else None


def tape_options(program: Program) -> list[str]:
    """The tape options a program uses, as sorted `name=value` strings (part of a signature)."""
    options = set()
    for s in walk(program.statements):
        if isinstance(s, Tape):
            options |= {f"persistent={s.persistent}", f"watch_accessed_variables={s.watch_accessed_variables}"}
        elif isinstance(s, Call):
            options |= {f"method={s.method}", f"unconnected={s.unconnected}"}
    return sorted(options)


def _harness_failure(outcome: Outcome, reference: bool = False) -> str | None:
    """Why a side could not run the program, when the harness (not the program) is to blame. The
    reference lacking a name or timing out leaves nothing to judge against: never an agreement."""
    error = outcome.error or {}
    if error.get("kind") == "harness" or reference and error.get("kind") == "timeout":
        return f"{outcome.backend}: {error['message']}"
    if reference and error.get("kind") == "missing":
        return f"{outcome.backend} (the reference) lacks {', '.join(error['names'])}"
    if reference and error.get("kind") == "exception" and error["class"] in PROGRAM_HARNESS_EXCEPTIONS:
        return f"{outcome.backend} (the reference) raised {error['class']} outside the code under test: {error['message']}"
    return None


def evaluate(program: Program, candidate: Any = "reftape", reference: Any = "tensorflow", *,
             time_limit: float | None = None, judge: bool = True, isolated: bool = False) -> Finding | None:
    """Runs `program` on both sides and returns the Finding they make, or None when they agree.

    Raises HarnessError when either side could not run the program for reasons of the harness (a
    backend that cannot be imported, generated code that does not compile): that is never an
    agreement. `judge=False` skips the referee (for the many evaluations minimisation makes).
    `isolated` runs each side in a process of its own (backends named by module), where dying or
    hanging in native code becomes the side's outcome."""
    from reftape_oracle.interpreter import DEFAULT_TIME_LIMIT, run_each
    from reftape_oracle.isolated import run_isolated

    limit = DEFAULT_TIME_LIMIT if time_limit is None else time_limit
    if isolated:
        expected, actual = (run_isolated(program, _name(side), limit) for side in (reference, candidate))
    else:
        expected, actual = run_each(program, [reference, candidate], limit)
    failures = [f for f in (_harness_failure(expected, reference=True), _harness_failure(actual)) if f]
    if failures:
        raise HarnessError("; ".join(failures))
    found = compare(expected, actual, program)
    if not found:
        return None
    evidence = Evidence(program, expected, actual, candidate)
    for d in found:
        known = explained_by(d, evidence)
        d.known = known.number if known else None
    finding = Finding(program, expected, actual, found, candidate=_name(candidate), reference=_name(reference))
    return finding.judge() if judge and not finding.crashed else finding


def _name(backend: Any) -> str:
    return backend if isinstance(backend, str) else backend.__name__
