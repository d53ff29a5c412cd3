"""Programs as data: leaves, single-assignment ops, nested tapes, forward accumulators, custom
gradients, variable updates, and gradient/jacobian/jvp calls.

A program is a list of statements. It round-trips losslessly through JSON (leaf values are stored
as exact tensor descriptions: NaN, inf and -0.0 survive) and prints as a standalone Python script
(`to_source`) that runs it and prints its outcome as JSON. The interpreter runs exactly that script
with `tf` bound to a backend, so a printed program always reproduces what the interpreter saw.

The statement types live in `statements.py` (and are importable from here), the printed script in
`script.py`; this module joins them with validation.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from .outcome import describe
from .script import body_source, check_module_name, script_source
from .statements import (BLOCKS, STATEMENTS, Accumulator, Apply, Assign, Call, Cond, CustomGradient, Jvp, Leaf, ListLiteral, Op,  # noqa: F401
                         ReadValue, Reset, StopRecording, Structure, Tape, Watch, WatchedVariables, WhileLoop, flat_references,
                         map_references, namedtuple_types, pack_references, structure_children,
                         renamed_value, structure_references, scope, unrolled, walk)
from .validation import check_schema, decode_value, loads, validate


@dataclass
class Program:
    statements: list
    outputs: list = field(default_factory=list)  # names whose forward values the outcome reports

    # -- JSON ------------------------------------------------------------------------------

    def to_dict(self) -> dict:
        return {"statements": [_statement_to_dict(s) for s in self.statements], "outputs": list(self.outputs)}

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=1)

    @classmethod
    def from_dict(cls, data: dict) -> Program:
        """The program `data` describes; ProgramError (naming the offending field) unless it is valid."""
        check_schema(data)
        program = cls([_statement_from_dict(s, f"statements[{i}]") for i, s in enumerate(data["statements"])],
                      list(data.get("outputs", [])))
        validate(program)
        return program

    @classmethod
    def from_json(cls, text: str) -> Program:
        return cls.from_dict(loads(text))

    def validate(self) -> Program:
        """Raises ProgramError unless the program is valid (see oracle/validation.py); returns it."""
        validate(self)
        return self

    # -- Source ----------------------------------------------------------------------------

    def ops(self) -> list[Op]:
        return [s for s in walk(self.statements) if isinstance(s, Op)]

    def leaves(self) -> dict[str, Leaf]:
        """Every leaf by name, wherever it is defined (inside tapes too)."""
        return {s.name: s for s in walk(self.statements) if isinstance(s, Leaf)}

    def body_source(self) -> str:
        """The program as the body of `_program()`, recording into `_outcome` (validated first: only
        validated fields reach the source)."""
        validate(self)
        return body_source(self.statements, self.outputs)

    def to_source(self, module: str = "tensorflow", deterministic: bool = True, traced: bool = False) -> str:
        """A standalone script that runs the program on `module` and prints its outcome as JSON (TF
        configured as the oracle runs it; with `deterministic` False, on its default kernels; with `traced`,
        eagerly and in tf.function, both outcomes printed)."""
        check_module_name(module)
        return script_source(self.body_source(), module, deterministic, traced)


_NESTED = ("body", "forward", "backward", "true_body", "false_body")   # fields holding statements: written with their type


def _statement_to_dict(statement: Any) -> dict:
    data = asdict(statement)
    for nested in _NESTED:
        if nested in data:
            data[nested] = [_statement_to_dict(s) for s in getattr(statement, nested)]
    if isinstance(statement, Leaf):
        data["value"] = describe(np.asarray(statement.value), None)  # a NumPy scalar too, as a 0-d tensor
    return {"statement": type(statement).__name__, **data}


def _statement_from_dict(data: dict, at: str) -> Any:
    """A statement from its (schema-checked) JSON data; `at` is its JSON path, for errors."""
    data = dict(data)
    cls = STATEMENTS[data.pop("statement")]
    if cls is Leaf:
        data["value"] = decode_value(data["value"], f"{at}.value")
    for nested in _NESTED:
        if nested in data:
            data[nested] = [_statement_from_dict(s, f"{at}.{nested}[{i}]") for i, s in enumerate(data[nested])]
    return cls(**data)
