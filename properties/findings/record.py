"""The `Finding` record: a program on which two backends disagree, both outcomes, the discrepancies and
what explaining it found (the first divergent node, the minimal form, the finding it was explained from).
`properties/pipeline.py` makes findings; this module holds only the record, so that reading and
rendering findings needs neither a backend nor Hypothesis.

A Finding serialises to one JSON object (`to_json`/`from_json`, versioned by `schema_version`);
the record format is documented as a JSON Schema in `properties/findings/finding.schema.json`.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import re
import uuid
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from reftape_oracle.outcome import Outcome
from reftape_oracle.program import Call, Program, WatchedVariables, walk

from reftape_properties.judge.compare import Discrepancy
from reftape_properties.judge.forward import FORWARD
from reftape_properties.judge.function import FUNCTION
from reftape_properties.judge.numeric import NUMERIC

SELF_CHECKS = (NUMERIC, FORWARD, FUNCTION)   # references that judge the candidate by itself: it alone runs the program

SCHEMA_VERSION = 2
# Version 1 kept what explaining found in `context`, under these keys; reading such a record moves them
# to their fields.
_VERSION_1_FIELDS = ("first_divergence", "minimized", "explained_from", "covered_by")
SCHEMA_PATH = Path(__file__).with_name("finding.schema.json")   # the record format, as a JSON Schema
_MISSING_ATTRIBUTE = re.compile(r"has no attribute '(\w+)'|unexpected keyword argument '(\w+)'")
_CALL_LOCATION = re.compile(r"calls/(\w+)")
OTHER_CAUSES = ("tensorflow-wrong", "both-wrong", "ill-conditioned")  # verdicts that do not blame the candidate alone


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
    # What explaining found (properties/explain/):
    first_divergence: dict | None = None  # the first node where the sides part (None: none found, or not searched)
    minimized: dict | None = None         # the search that made this record's program: from which id, its budget
    explained_from: str | None = None     # the id of the found finding this record explains
    covered_by: str | None = None         # the id of the minimal finding of the same signature, found before

    def __post_init__(self) -> None:
        if not self.id:
            self.id = f"{self.program_digest()[:12]}-{uuid.uuid4().hex[:8]}"
        if not self.timestamp:
            self.timestamp = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")

    def program_digest(self) -> str:
        return hashlib.sha256(self.program.to_json().encode()).hexdigest()

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

    @property
    def missing_name(self) -> str | None:
        """What the candidate lacks, where that is the difference: the names of a "missing" outcome, or the
        attribute or keyword an AttributeError or TypeError of the candidate's alone names ("jacobian",
        "adjoint_a=")."""
        if not self.discrepancies:
            return None
        actual, expected = self.primary.actual, self.primary.expected
        if not isinstance(actual, dict):
            return None
        if actual.get("kind") == "missing":
            return ", ".join(actual["names"])
        if actual.get("kind") == "exception" and actual.get("class") in ("AttributeError", "TypeError") and not (
                isinstance(expected, dict) and expected.get("kind") == "exception"):
            match = _MISSING_ATTRIBUTE.search(actual.get("message", ""))
            return (match[1] or f"{match[2]}=") if match else None
        return None

    def divergent_call(self) -> Call | WatchedVariables | None:
        """The call (or watched_variables()) where the sides part: the first divergence's, else the primary
        discrepancy's; None where a forward value or the program's error differs."""
        name = (self.first_divergence or {}).get("call")
        if name is None:
            match = _CALL_LOCATION.match(self.primary.where)
            name = match and match[1]
        return next((s for s in walk(self.program.statements)
                     if isinstance(s, (Call, WatchedVariables)) and s.name == name), None)

    def signature_parts(self) -> dict:
        """What one root cause has in common across programs, whatever their dtypes and other options: what
        the candidate lacks; or a tape option it mishandles; or the kind of difference, the suspect op, the
        stage where the sides part (its forward value, its VJP) and who the referee blames, where that is
        not the candidate (TensorFlow, both, an ill-conditioned point: other causes); and the check, for a
        numeric one."""
        if self.missing_name is not None:
            return {"suspect": f"lacks {self.missing_name}"}
        stage = (self.first_divergence or {}).get("stage") or "?"
        if stage == "option":
            return {"suspect": self.suspect}
        verdict = self.primary.verdict if self.primary.verdict in OTHER_CAUSES else "-"
        parts = {"kind": self.kind, "suspect": self.suspect or "?", "stage": stage, "verdict": verdict}
        return parts if not self.self_checked else {**parts, "check": self.reference}

    @property
    def self_checked(self) -> bool:
        """Found by a check that judges the candidate by itself (numeric, forward, function): it alone ran."""
        return self.reference in SELF_CHECKS

    def script(self) -> str:
        """The program as a standalone script on the backend that ran it (both modes, for a function check), or
        on TensorFlow (the reference) for a differential finding."""
        return self.program.to_source(self.candidate if self.self_checked else "tensorflow",
                                      traced=self.reference == FUNCTION)

    def signature(self) -> str:
        return "|".join(self.signature_parts().values())

    def to_dict(self) -> dict:
        return {"schema_version": SCHEMA_VERSION, "id": self.id, "timestamp": self.timestamp,
                "candidate": self.candidate, "reference": self.reference, "kind": self.kind,
                "signature": self.signature(), "suspect": self.suspect, "dtype": self.dtype,
                "verdict": self.primary.verdict, "known": self.known,
                "discrepancies": [asdict(d) for d in self.discrepancies],
                "program": self.program.to_dict(), "source": self.script(),
                "expected": asdict(self.expected), "actual": asdict(self.actual),
                "environment": self.expected.environment, "reproduce": self.reproduce, "context": self.context,
                "first_divergence": self.first_divergence, "minimized": self.minimized,
                "explained_from": self.explained_from, "covered_by": self.covered_by}

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), sort_keys=True)

    @classmethod
    def from_dict(cls, data: dict) -> Finding:
        if not isinstance(data, dict):
            raise ValueError(f"a finding record is a JSON object, not {type(data).__name__}")
        version = data.get("schema_version")
        if version == 1:
            data = _from_version_1(data)
        elif version != SCHEMA_VERSION:
            raise ValueError(f"finding schema_version {version!r} is not {SCHEMA_VERSION}")
        return cls(program=Program.from_dict(data["program"]), expected=Outcome(**data["expected"]),
                   actual=Outcome(**data["actual"]), discrepancies=[Discrepancy(**d) for d in data["discrepancies"]],
                   candidate=data["candidate"], reference=data["reference"], id=data["id"],
                   timestamp=data["timestamp"], suspect=data.get("suspect"), reproduce=data.get("reproduce"),
                   context=data.get("context") or {}, first_divergence=data.get("first_divergence"),
                   minimized=data.get("minimized"), explained_from=data.get("explained_from"),
                   covered_by=data.get("covered_by"))

    @classmethod
    def from_json(cls, text: str) -> Finding:
        return cls.from_dict(json.loads(text))


def _from_version_1(data: dict) -> dict:
    context = dict(data.get("context") or {})
    return {**data, **{name: context.pop(name, None) for name in _VERSION_1_FIELDS}, "context": context}


def _program_dtype(program: Program) -> str | None:
    floating = [leaf.dtype for leaf in program.leaves().values() if not leaf.dtype.startswith(("int", "bool"))]
    return floating[0] if floating else None
