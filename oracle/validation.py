"""Validation of programs, before anything runs: one table describes every statement type.

A program is checked when it is loaded (JSON, a findings record) and again before it is printed or
run (programs built in code), against the published JSON Schema (`program.schema.json`, generated
from `FIELDS` below) and the op catalog:

- every name is an identifier of the program's grammar (not a Python keyword, not a name the
  generated script itself uses: `script.SCRIPT_NAMES`) and is defined before it is used; a name defined inside a
  tape's body is visible after it, as in Python; a tensor name may be rebound, a tape's name not;
  `y[0]` refers to an element of a list result;
- tapes named by Watch, StopRecording, Reset and Call are tapes defined before; StopRecording and
  Reset sit inside their tape's with-block (outside its stop_recording spans), as TF requires; a Jvp
  names an accumulator defined before, whose tangents are one per primal; a loop body's and a cond branch's
  names are their own, and a cond's branch functions (`name_true`, `name_false`) are no other name of the program;
- every op path is in the catalog, with the catalog's arity; every attribute is one the catalog
  declares, with the type of its declared values (strings: one of the declared values);
- every option has a value TensorFlow accepts; booleans are booleans;
- tapes nest at most MAX_NESTING deep, structures at most MAX_STRUCTURE_DEPTH, and a program holds
  at most MAX_STATEMENTS statements and MAX_ELEMENTS leaf elements.

A violation raises `ProgramError` (a ValueError) whose message starts with the JSON path of the
offending field, e.g. `statements[3].body[0].inputs[1]: 'x' is not defined before this statement`.
Only validated fields reach generated source, so a program file cannot run code of its own.

Adding a statement type takes one entry in `FIELDS`: each field with its kind (name definition,
reference, tape reference, structure, op path, attributes, option, flag, value, body). Then
regenerate the schema: `python -c "from reftape_oracle.validation import write_schema; write_schema()"`.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import keyword
import math
import re
import sys
from pathlib import Path
from typing import Any

import numpy as np

from .catalog import CATALOG, call_source
from .outcome import parse_float
from .script import SCRIPT_NAMES
from .statements import STATEMENTS

MAX_NESTING = 16              # tapes, stop_recording spans and accumulators inside each other (Python allows 20 blocks)
MAX_STRUCTURE_DEPTH = 16      # lists, tuples and dicts inside each other in targets and sources
MAX_STATEMENTS = 10_000
MAX_ELEMENTS = 100_000        # leaf elements in the whole program (each is a literal in the script)
MAX_JSON_DEPTH = 120          # containers inside each other in a program's JSON, checked before the schema
MAX_JSON_BYTES = 64 << 20     # a program's JSON text
MAX_NAME_LENGTH = 64

PYTHON_DTYPES = {"float64": "float", "int64": "int", "bool": "bool", "complex128": "complex"}  # a Python leaf's types
LEAF_DTYPES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16",
               "bfloat16", "float32", "float64", "complex64", "complex128")
SCHEMA_PATH = Path(__file__).with_name("program.schema.json")
SCHEMA_ID = "https://github.com/reftape/reftape/blob/main/oracle/program.schema.json"

_NAME = r"[A-Za-z_][A-Za-z0-9_]*"
NAME_PATTERN = re.compile(_NAME)
REFERENCE_PATTERN = re.compile(rf"({_NAME})(?:\[(0|[1-9][0-9]{{0,2}})\])?")  # element indices up to 999
OP_PATH_PATTERN = re.compile(rf"{_NAME}(?:\.{_NAME})*")


class ProgramError(ValueError):
    """A program that breaks the program format; `path` is the JSON path of the offending field."""

    def __init__(self, path: str, message: str) -> None:
        self.path = path
        shown = path if len(path) <= 160 else f"{path[:70]}...{path[-70:]}"  # one readable line at any depth
        super().__init__(f"{shown}: {message}" if path else message)


@functools.lru_cache(maxsize=None)
def reserved_names() -> frozenset:
    """Names a program may not define: Python keywords and the names the generated script uses."""
    return frozenset(keyword.kwlist) | SCRIPT_NAMES


# -- Field kinds --------------------------------------------------------------------------------


class _Context:
    """What the walk knows: the names defined so far (name -> "tensor" | "tape") and the counts."""

    def __init__(self) -> None:
        self.defined: dict[str, str] = {}
        self.nesting = 0
        self.statements = 0
        self.elements = 0
        self.pending: list[tuple[str, str, str]] = []   # definitions made once the statement is checked
        self.recording: frozenset = frozenset()          # tapes whose with-block encloses the statement
        self.scopes: list[dict[str, str]] = []           # names outside the custom-gradient function being checked
        self.arity: dict[str, int] = {}                  # parameters of each custom-gradient function
        self.every_name: set[str] = set()                # every name defined anywhere (scopes included)
        self.namedtuples: dict[str, tuple] = {}          # typename -> (fields, JSON path of its first use)
        self.branch_functions: dict[str, str] = {}       # a cond's branch functions -> the JSON path of the cond

    def define(self, name: str, kind: str, at: str) -> None:
        previous = self.defined.get(name)
        if previous is not None and {previous, kind} & set(BLOCK_NAMES):  # a tensor may be rebound, as in Python
            raise ProgramError(at, f"{name!r} is already defined as a {previous} (a {kind}'s name is its own)")
        self.defined[name] = kind
        self.every_name.add(name)

    def require(self, name: str, kind: str, at: str) -> None:
        found = self.defined.get(name)
        if found is None:
            raise ProgramError(at, f"{name!r} is not defined before this statement")
        if found != kind:
            raise ProgramError(at, f"{name!r} is a {found}, not a {kind}")


class Kind:
    """One kind of field: how it is checked (`check`) and how the JSON Schema states it (`schema`)."""

    schema: dict = {}

    def check(self, value: Any, at: str, statement: Any, context: _Context) -> None:
        raise NotImplementedError


def _string(value: Any, at: str) -> str:
    if not isinstance(value, str):
        raise ProgramError(at, f"expected a string, got {_show(value)}")
    return value


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def check_identifier(value: Any, at: str) -> str:
    """A string of the program's name grammar (dict keys, for instance)."""
    name = _string(value, at)
    if len(name) > MAX_NAME_LENGTH or not NAME_PATTERN.fullmatch(name):
        raise ProgramError(at, f"{_show(name)} is not a name ([A-Za-z_][A-Za-z0-9_]*, at most "
                               f"{MAX_NAME_LENGTH} characters)")
    return name


def check_name(value: Any, at: str) -> str:
    """A name the program may define: an identifier that is not reserved."""
    name = check_identifier(value, at)
    if name in reserved_names():
        raise ProgramError(at, f"{name!r} is reserved (a Python keyword, or a name the generated script uses)")
    return name


BLOCK_NAMES = ("tape", "accumulator")   # what a `with` block's name is: never rebound


class Definition(Kind):
    """A name the statement defines: a tensor (defined once its other fields are checked) or a tape or
    an accumulator (defined at once, so that its body can name it)."""

    def __init__(self, defines: str) -> None:
        self.defines = defines
        self.schema = {"$ref": "#/$defs/name"}

    def check(self, value, at, statement, context):
        name = check_name(value, at)
        if self.defines in BLOCK_NAMES:
            context.define(name, self.defines, at)
        else:
            context.pending.append((name, self.defines, at))


class Reference(Kind):
    """A tensor defined before: `name`, or `name[i]` for an element of a list result."""

    schema = {"$ref": "#/$defs/reference"}

    def check(self, value, at, statement, context):
        check_reference(value, at, context)


def check_reference(value: Any, at: str, context: _Context) -> None:
    match = REFERENCE_PATTERN.fullmatch(_string(value, at))
    if match is None or len(value) > MAX_NAME_LENGTH + 5:
        raise ProgramError(at, f"{_show(value)} is not a reference (a name, or name[index] for an element of "
                               "a list result)")
    context.require(match.group(1), "tensor", at)


class References(Kind):
    def __init__(self, non_empty: bool = False) -> None:
        self.non_empty = non_empty
        self.schema = {"type": "array", "items": {"$ref": "#/$defs/reference"}, "minItems": int(non_empty)}

    def check(self, value, at, statement, context):
        if not isinstance(value, (list, tuple)):
            raise ProgramError(at, f"expected a list of references, got {_show(value)}")
        if self.non_empty and not value:
            raise ProgramError(at, "expected at least one reference")
        for i, item in enumerate(value):
            check_reference(item, f"{at}[{i}]", context)


class OpInputs(References):
    """The op's tensor inputs: as many as its catalog entry's arity."""

    def check(self, value, at, statement, context):
        super().check(value, at, statement, context)
        spec = CATALOG.get(statement.path)
        if spec is not None and len(value) != spec.arity:
            raise ProgramError(at, f"{statement.path} takes {spec.arity} input(s), got {len(value)}")


class TapeReference(Kind):
    """A tape defined before; `recording`: one whose `with` block encloses the statement, outside any
    stop_recording span of its own (TF raises "Tape is not recording" otherwise)."""

    def __init__(self, recording: bool = False) -> None:
        self.recording = recording
        self.schema = {"$ref": "#/$defs/name"}

    def check(self, value, at, statement, context):
        name = check_name(value, at)
        context.require(name, "tape", at)
        if self.recording and name not in context.recording:
            raise ProgramError(at, f"tape {name!r} is not recording here: {type(statement).__name__} belongs inside "
                                   "its with-block (and outside its stop_recording spans)")


MAX_TRIPS = 8   # iterations of a generated while_loop (each is a script's loop iteration: small)


class LoopParameter(Kind):
    """A loop body's parameter: opens the body's local scope, which `LoopName` closes."""

    schema = {"$ref": "#/$defs/name"}

    def check(self, value, at, statement, context):
        context.scopes.append(dict(context.defined))
        context.define(check_name(value, at), "tensor", at)


class ClosingName(Kind):
    """A name defined as a local scope closes (a loop body's, a custom gradient's): the scope's names are not
    visible after it; the name is a `defines` ("tensor": the loop's output)."""

    schema = {"$ref": "#/$defs/name"}

    def __init__(self, defines: str = "tensor") -> None:
        self.defines = defines

    def check(self, value, at, statement, context):
        name = check_name(value, at)
        context.defined = context.scopes.pop()
        context.pending.append((name, self.defines, at))


class Trips(Kind):
    schema = {"type": "integer", "minimum": 0, "maximum": MAX_TRIPS}

    def check(self, value, at, statement, context):
        if type(value) is not int or not 0 <= value <= MAX_TRIPS:
            raise ProgramError(at, f"expected a number of iterations from 0 to {MAX_TRIPS}, got {_show(value)}")


class Tangents(References):
    """An accumulator's tangents: one per primal."""

    def check(self, value, at, statement, context):
        super().check(value, at, statement, context)
        if len(value) != len(statement.primals):
            raise ProgramError(at, f"expected one tangent per primal ({len(statement.primals)}), got {len(value)}")


class Structure(Kind):
    """A reference, or {"list": [...]}, {"tuple": [...]}, {"dict": [[key, structure], ...]},
    {"namedtuple": [typename, [[field, structure], ...]]}: a typename has the same fields wherever it
    is used, and is not a name the program defines (the script defines the class under it)."""

    def __init__(self, optional: bool = False) -> None:
        self.optional = optional
        self.schema = {"oneOf": [{"type": "null"}, {"$ref": "#/$defs/structure"}]} if optional else \
            {"$ref": "#/$defs/structure"}

    def check(self, value, at, statement, context):
        if value is None and self.optional:
            return
        _check_structure(value, at, context, 1)


STRUCTURE_FORMS = "{'list': [...]}, {'tuple': [...]}, {'dict': [[key, structure], ...]}, " \
                  "{'namedtuple': [typename, [[field, structure], ...]]}"


def _check_structure(value: Any, at: str, context: _Context, depth: int) -> None:
    if depth > MAX_STRUCTURE_DEPTH:
        raise ProgramError(at, f"structure nested more than {MAX_STRUCTURE_DEPTH} deep")
    if isinstance(value, str):
        check_reference(value, at, context)
        return
    if not isinstance(value, dict) or len(value) != 1 or next(iter(value)) not in ("list", "tuple", "dict",
                                                                                    "namedtuple"):
        raise ProgramError(at, f"expected a reference or one of {STRUCTURE_FORMS}, got {_show(value)}")
    (kind, items), = value.items()
    at = f"{at}.{kind}"
    if kind == "namedtuple":
        items = _check_namedtuple_type(items, at, context)
        at = f"{at}[1]"
    if not isinstance(items, (list, tuple)):
        raise ProgramError(at, f"expected a list, got {_show(items)}")
    keys: set = set()
    for i, item in enumerate(items):
        if kind in ("dict", "namedtuple"):
            if not isinstance(item, (list, tuple)) or len(item) != 2:
                raise ProgramError(f"{at}[{i}]", f"expected a [{'key' if kind == 'dict' else 'field'}, structure] "
                                                 f"pair, got {_show(item)}")
            key = (check_identifier if kind == "dict" else _check_field)(item[0], f"{at}[{i}][0]")
            if key in keys:
                raise ProgramError(f"{at}[{i}][0]", f"duplicate {'key' if kind == 'dict' else 'field'} {key!r}")
            keys.add(key)
            _check_structure(item[1], f"{at}[{i}][1]", context, depth + 1)
        else:
            _check_structure(item, f"{at}[{i}]", context, depth + 1)


def _check_field(value: Any, at: str) -> str:
    """A namedtuple field: an identifier, not a Python keyword, not starting with an underscore."""
    field = check_identifier(value, at)
    if keyword.iskeyword(field) or field.startswith("_"):
        raise ProgramError(at, f"{field!r} is not a namedtuple field (a Python keyword, or it starts with '_')")
    return field


def _check_namedtuple_type(value: Any, at: str, context: _Context) -> Any:
    """A namedtuple's [typename, fields]: the typename a name the program may define, used with the
    same fields everywhere; returns the [field, structure] pairs."""
    if not isinstance(value, (list, tuple)) or len(value) != 2:
        raise ProgramError(at, f"expected [typename, [[field, structure], ...]], got {_show(value)}")
    typename, fields = check_name(value[0], f"{at}[0]"), value[1]
    if isinstance(fields, (list, tuple)) and all(isinstance(f, (list, tuple)) and len(f) == 2 for f in fields):
        names = tuple(f[0] for f in fields)
        known, first = context.namedtuples.setdefault(typename, (names, at))
        if known != names:
            raise ProgramError(f"{at}[1]", f"namedtuple {typename!r} has fields {list(known)} at {first}, "
                                           f"not {list(names)}")
    return fields


class OpPath(Kind):
    schema = {"type": "string", "pattern": f"^{OP_PATH_PATTERN.pattern}$",
              "description": "a path of the op catalog (oracle/catalog.py), e.g. 'math.log1p'"}

    def check(self, value, at, statement, context):
        if _string(value, at) not in CATALOG:
            raise ProgramError(at, f"unknown op {_show(value)} (not in the op catalog, oracle/catalog.py)")


class Attributes(Kind):
    """The op's attributes: names its catalog entry declares, values of their declared types."""

    schema = {"type": "object", "propertyNames": {"$ref": "#/$defs/name"},
              "additionalProperties": {"oneOf": [{"type": ["null", "boolean", "number", "string"]},
                                                 {"type": "array", "items": {"type": "integer"}, "maxItems": 8}]}}

    def check(self, value, at, statement, context):
        if not isinstance(value, dict):
            raise ProgramError(at, f"expected an object of attributes, got {_show(value)}")
        spec = CATALOG[statement.path]
        for name, attribute in value.items():
            where = f"{at}.{name}" if isinstance(name, str) and NAME_PATTERN.fullmatch(name) else at
            if name not in spec.attrs:
                declared = ", ".join(spec.attrs) or "none"
                raise ProgramError(where, f"{statement.path} has no attribute {_show(name)} (declared: {declared})")
            _check_attribute(attribute, spec.attrs[name], where)
        try:
            call_source(statement.path, list(statement.inputs), dict(value))
        except KeyError as missing:
            raise ProgramError(at, f"{statement.path} needs attribute {missing.args[0]!r}") from None


def _attribute_type(value: Any) -> str:
    if value is None or type(value) in (bool, str, int, float):
        return type(value).__name__ if value is not None else "None"
    if isinstance(value, (list, tuple)) and all(_attribute_type(v) == "int" for v in value):
        return "int tuple"
    return "unsupported"


def _check_attribute(value: Any, declared: tuple, at: str) -> None:
    kinds = {_attribute_type(v) for v in declared}
    kind = _attribute_type(value)
    if kind == "float" and "float" in kinds and not math.isfinite(value):
        raise ProgramError(at, f"{value!r} is not a finite number")
    if kind == "int" and "float" in kinds:
        return
    if kind not in kinds:
        raise ProgramError(at, f"expected {' or '.join(sorted(kinds))} like {_show(declared[0])}, got {_show(value)}")
    if kind == "str" and value not in declared:
        raise ProgramError(at, f"{_show(value)} is not one of {', '.join(map(repr, declared))}")
    if kind == "int tuple" and (len(value) > 8 or any(abs(v) > 1 << 16 for v in value)):
        raise ProgramError(at, f"{_show(value)}: at most 8 integers of magnitude at most {1 << 16}")
    if kind == "int" and abs(value) > 1 << 16:
        raise ProgramError(at, f"{value} is out of range")


class Option(Kind):
    """One of a few strings."""

    def __init__(self, *values: str) -> None:
        self.values = values
        self.schema = {"enum": list(values)}

    def check(self, value, at, statement, context):
        if not isinstance(value, str) or value not in self.values:
            raise ProgramError(at, f"{_show(value)} is not one of {', '.join(map(repr, self.values))}")


class Flag(Kind):
    schema = {"type": "boolean"}

    def check(self, value, at, statement, context):
        if not isinstance(value, (bool, np.bool_)):
            raise ProgramError(at, f"expected true or false, got {_show(value)}")


class DType(Option):
    def __init__(self) -> None:
        super().__init__(*LEAF_DTYPES)


class Value(Kind):
    """A leaf's value: an array (a tensor description in JSON) of at most MAX_ELEMENTS in all."""

    schema = {"$ref": "#/$defs/tensor"}

    def check(self, value, at, statement, context):
        if not isinstance(value, (np.ndarray, np.generic)):
            raise ProgramError(at, f"expected a NumPy array, got {type(value).__name__}")
        if value.dtype.name not in LEAF_DTYPES:
            raise ProgramError(at, f"array dtype {value.dtype.name!r} is not one of {', '.join(LEAF_DTYPES)}")
        context.elements += value.size
        if context.elements > MAX_ELEMENTS:
            raise ProgramError(at, f"program too large: more than {MAX_ELEMENTS:,} leaf elements")


class Body(Kind):
    """Statements inside a `with` block: a tape's (which records while they run) or a stop_recording
    span's (which pauses its tape)."""

    schema = {"type": "array", "items": {"$ref": "#/$defs/statement"}}

    def __init__(self, pauses: bool = False) -> None:
        self.pauses = pauses

    def check(self, value, at, statement, context):
        if not isinstance(value, (list, tuple)):
            raise ProgramError(at, f"expected a list of statements, got {_show(value)}")
        context.nesting += 1
        if context.nesting > MAX_NESTING:
            raise ProgramError(at, f"tapes, stop_recording spans and accumulators nested more than {MAX_NESTING} deep")
        tape = statement.tape if self.pauses else statement.name   # an accumulator's name is no tape's: harmless
        recording = context.recording
        context.recording = recording - {tape} if self.pauses else recording | {tape}
        _check_statements(value, at, context)
        context.recording = recording
        context.nesting -= 1


class Parameters(Kind):
    """A custom-gradient function's parameter names: they open its local scope, which `FunctionName`
    closes (its forward and backward names are not visible after the definition)."""

    schema = {"type": "array", "items": {"$ref": "#/$defs/name"}, "minItems": 1}

    def check(self, value, at, statement, context):
        if not isinstance(value, (list, tuple)) or not value:
            raise ProgramError(at, f"expected a non-empty list of names, got {_show(value)}")
        context.scopes.append(dict(context.defined))
        for i, name in enumerate(value):
            context.define(check_name(name, f"{at}[{i}]"), "tensor", f"{at}[{i}]")


class LocalName(Kind):
    """A name defined inside the function being checked (the `upstream` of its gradient)."""

    schema = {"$ref": "#/$defs/name"}

    def check(self, value, at, statement, context):
        context.define(check_name(value, at), "tensor", at)


class FunctionBody(Kind):
    """A custom gradient's forward or backward (Op, Assign and ReadValue statements), or a loop's body (Op)."""

    schema = {"type": "array", "items": {"$ref": "#/$defs/statement"}}

    def __init__(self, owner: str = "a custom gradient's ops", allowed: tuple = ("Op", "Assign", "ReadValue")) -> None:
        self.owner, self.allowed = owner, allowed

    def check(self, value, at, statement, context):
        if not isinstance(value, (list, tuple)):
            raise ProgramError(at, f"expected a list of statements, got {_show(value)}")
        for i, item in enumerate(value):
            if type(item).__name__ not in self.allowed:
                raise ProgramError(f"{at}[{i}]", f"{self.owner} are {', '.join(self.allowed)} statements, "
                                                 f"got {_show(item)}")
        _check_statements(value, at, context)


class BranchBody(FunctionBody):
    """A cond branch's ops: they open the branch's local scope, which its `BranchResult` closes."""

    def __init__(self) -> None:
        super().__init__("a cond branch's statements", ("Op",))

    def check(self, value, at, statement, context):
        context.scopes.append(dict(context.defined))
        super().check(value, at, statement, context)


class BranchResult(Reference):
    """What a cond branch returns (a name of the branch, or one defined before the cond); closes its scope."""

    def check(self, value, at, statement, context):
        super().check(value, at, statement, context)
        context.defined = context.scopes.pop()


class CondName(Kind):
    """A cond's name: the tensor it defines, and the prefix of its branch functions' names (`name_true`,
    `name_false`), which no other name of the program may be."""

    schema = {"$ref": "#/$defs/name"}

    def check(self, value, at, statement, context):
        name = check_name(value, at)
        for function in (f"{name}_true", f"{name}_false"):
            context.branch_functions.setdefault(check_name(function, at), at)
        context.pending.append((name, "tensor", at))


class Gradients(Kind):
    """One reference or null (a None gradient) per parameter, or per captured variable."""

    schema = {"type": "array", "items": {"oneOf": [{"type": "null"}, {"$ref": "#/$defs/reference"}]}}

    def __init__(self, per: str | None = None) -> None:
        self.per = per

    def check(self, value, at, statement, context):
        if not isinstance(value, (list, tuple)):
            raise ProgramError(at, f"expected a list of references or nulls, got {_show(value)}")
        if self.per is not None and len(value) != len(getattr(statement, self.per)):
            raise ProgramError(at, f"expected one gradient per entry of {self.per} ({len(getattr(statement, self.per))}), "
                                   f"got {len(value)}")
        for i, item in enumerate(value):
            if item is not None:
                check_reference(item, f"{at}[{i}]", context)


class FunctionName(ClosingName):
    """The custom-gradient function's name: closes its local scope, then names the function."""

    def __init__(self) -> None:
        super().__init__("function")

    def check(self, value, at, statement, context):
        super().check(value, at, statement, context)
        context.arity[value] = len(statement.params)


class NameOf(Kind):
    """The name of a `kind` defined before: a custom-gradient "function", a forward "accumulator" (inside its
    `with` block or after it)."""

    schema = {"$ref": "#/$defs/name"}

    def __init__(self, kind: str) -> None:
        self.kind = kind

    def check(self, value, at, statement, context):
        context.require(check_name(value, at), self.kind, at)


class Arguments(References):
    """A function application's inputs: one per parameter of the function."""

    def check(self, value, at, statement, context):
        super().check(value, at, statement, context)
        expected = context.arity.get(statement.function)
        if expected is not None and len(value) != expected:
            raise ProgramError(at, f"{statement.function} takes {expected} argument(s), got {len(value)}")


# One entry per statement type: each field (in the order they are checked) with its kind.
FIELDS: dict[str, dict[str, Kind]] = {
    "Leaf": {"name": Definition("tensor"), "kind": Option("variable", "constant", "python", "numpy"),
             "value": Value(), "dtype": DType(), "trainable": Flag()},
    "Op": {"name": Definition("tensor"), "path": OpPath(), "inputs": OpInputs(), "attrs": Attributes()},
    "ListLiteral": {"name": Definition("tensor"), "items": References(non_empty=True)},
    "Watch": {"tape": TapeReference(), "names": References()},
    "Tape": {"name": Definition("tape"), "persistent": Flag(), "watch_accessed_variables": Flag(), "body": Body()},
    "StopRecording": {"tape": TapeReference(recording=True), "body": Body(pauses=True)},
    "Reset": {"tape": TapeReference(recording=True)},
    "Call": {"name": Definition("tensor"), "tape": TapeReference(),
             "method": Option("gradient", "jacobian", "batch_jacobian"), "target": Structure(),
             "sources": Structure(), "output_gradients": Structure(optional=True),
             "unconnected": Option("none", "zero"), "unconnected_form": Option("default", "string", "enum"),
             "use_pfor": Flag()},
    "CustomGradient": {"params": Parameters(), "forward": FunctionBody(), "result": Reference(),
                       "upstream": LocalName(), "backward": FunctionBody(), "input_grads": Gradients(per="params"),
                       "variables": Option("none", "positional", "keyword"), "variable_grads": Gradients(),
                       "name": FunctionName()},
    "Apply": {"name": Definition("tensor"), "function": NameOf("function"), "inputs": Arguments()},
    "Assign": {"variable": Reference(), "value": Reference(), "method": Option("assign", "assign_add", "assign_sub")},
    "ReadValue": {"name": Definition("tensor"), "variable": Reference()},
    "WatchedVariables": {"name": Definition("tuple of watched variables"), "tape": TapeReference()},
    "Accumulator": {"primals": References(non_empty=True), "tangents": Tangents(), "name": Definition("accumulator"),
                    "body": Body()},
    "Jvp": {"name": Definition("tensor"), "accumulator": NameOf("accumulator"), "target": Structure(),
            "unconnected": Option("none", "zero")},
    "WhileLoop": {"loop_var": Reference(), "param": LoopParameter(),
                  "body": FunctionBody("a loop body's statements", ("Op",)), "result": Reference(),
                  "name": ClosingName(), "trips": Trips()},
    "Cond": {"predicate": Flag(), "tensor_predicate": Flag(), "true_body": BranchBody(), "true_result": BranchResult(),
             "false_body": BranchBody(), "false_result": BranchResult(), "name": CondName()},
}


def _check_leaf_form(statement: Any, at: str) -> None:
    """A Python or NumPy leaf holds exactly the values its dtype names (they print as they are)."""
    kind, dtype = statement.kind, statement.dtype
    if kind == "python" and dtype not in PYTHON_DTYPES:
        raise ProgramError(f"{at}.dtype", f"a Python leaf is of dtype {', '.join(PYTHON_DTYPES)} (Python "
                                          f"{', '.join(PYTHON_DTYPES.values())}), not {dtype!r}")
    if kind == "numpy" and dtype == "bfloat16":
        raise ProgramError(f"{at}.dtype", "a NumPy leaf cannot be bfloat16 (NumPy has no such type)")
    if statement.converted and statement.value.dtype.name != dtype:
        raise ProgramError(f"{at}.value", f"a {kind} leaf's value is of its dtype {dtype!r}, not "
                                          f"{statement.value.dtype.name!r}")


def _check_call_options(statement: Any, at: str) -> None:
    if getattr(statement, "unconnected", "none") == "zero" and getattr(statement, "unconnected_form", "") == "default":
        raise ProgramError(f"{at}.unconnected_form", "'default' omits the argument, which means 'none': "
                                                      "write unconnected_gradients as 'string' or 'enum'")


# -- The walk ------------------------------------------------------------------------------------


def _check_statements(statements: Any, at: str, context: _Context) -> None:
    classes = STATEMENTS
    for i, statement in enumerate(statements):
        where = f"{at}[{i}]"
        context.statements += 1
        if context.statements > MAX_STATEMENTS:
            raise ProgramError(where, f"program too large: more than {MAX_STATEMENTS:,} statements")
        kind = type(statement).__name__
        if kind not in FIELDS or classes.get(kind) is not type(statement):
            raise ProgramError(where, f"not a statement: {_show(statement)}")
        for field, field_kind in FIELDS[kind].items():
            field_kind.check(getattr(statement, field), f"{where}.{field}", statement, context)
        _check_call_options(statement, where)
        if kind == "Leaf":
            _check_leaf_form(statement, where)
        for name, defines, name_at in context.pending:
            context.define(name, defines, name_at)
        context.pending.clear()


def validate(program: Any) -> None:
    """Raises ProgramError unless `program` (a Program) follows the program format."""
    context = _Context()
    if not isinstance(program.statements, (list, tuple)):
        raise ProgramError("statements", "expected a list of statements")
    _check_statements(program.statements, "statements", context)
    References().check(program.outputs, "outputs", None, context)
    for typename, (_, at) in context.namedtuples.items():
        if typename in context.every_name:
            raise ProgramError(f"{at}[0]", f"namedtuple type {typename!r} is also a name the program defines "
                                           "(the script defines the class under its typename)")
    for function, at in context.branch_functions.items():
        if function in context.every_name or function in context.namedtuples:
            raise ProgramError(at, f"{function!r}, the name of a cond's branch function, is also a name the program "
                                   "defines (the script defines the branch under it)")


# -- JSON ----------------------------------------------------------------------------------------


def format_path(parts: Any) -> str:
    """`statements[3].body[0].inputs[1]` for the parts ("statements", 3, "body", 0, "inputs", 1)."""
    text = ""
    for part in parts:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def check_json_shape(data: Any) -> None:
    """Bounds the nesting of raw JSON data (without recursion) before anything recursive reads it."""
    stack: list[tuple[Any, tuple, int]] = [(data, (), 0)]
    while stack:
        value, parts, depth = stack.pop()
        if depth > MAX_JSON_DEPTH:
            raise ProgramError(format_path(parts), f"nested more than {MAX_JSON_DEPTH} levels deep (tapes nest at "
                                                   f"most {MAX_NESTING} deep, structures {MAX_STRUCTURE_DEPTH})")
        if isinstance(value, dict):
            stack += [(v, parts + (str(k),), depth + 1) for k, v in value.items()]
        elif isinstance(value, list):
            stack += [(v, parts + (i,), depth + 1) for i, v in enumerate(value)]


@functools.lru_cache(maxsize=None)
def _schema_validator() -> Any:
    import jsonschema

    schema = json.loads(SCHEMA_PATH.read_text())
    return jsonschema.Draft202012Validator(schema)


def check_schema(data: Any) -> None:
    """Raises ProgramError at the most relevant violation of the JSON Schema."""
    import jsonschema

    check_json_shape(data)
    validator = _schema_validator()
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 20_000))  # the schema recurses a bounded number of levels (above)
    try:
        error = jsonschema.exceptions.best_match(validator.iter_errors(data))
    finally:
        sys.setrecursionlimit(limit)
    if error is None:
        return
    _check_enclosing_structure(data, list(error.absolute_path))  # the schema cannot say which alternative
    raise ProgramError(format_path(error.absolute_path), _schema_message(error))


STRUCTURE_FIELDS = ("target", "sources", "output_gradients")


def _check_enclosing_structure(data: Any, parts: list) -> None:
    """For a schema violation at `parts` inside a call's structure, the grammar's own error there
    (one that names the alternative meant: a namedtuple's field, a dict's pair)."""
    for depth, part in enumerate(parts):
        if part in STRUCTURE_FIELDS and isinstance(data, dict) and data.get("statement") in ("Call", "Jvp"):
            _check_structure(data[part], format_path(parts[:depth + 1]), _GrammarOnly(), 1)
            return
        try:
            data = data[part]
        except (KeyError, IndexError, TypeError):
            return


class _GrammarOnly(_Context):
    """A context in which every name is defined: checks the grammar of references alone."""

    def require(self, name: str, kind: str, at: str) -> None:
        pass


def _schema_message(error: Any) -> str:
    definitions = _schema_validator().schema["$defs"]
    if error.schema == definitions["number"]:
        try:
            parse_float(error.instance)
        except ValueError as reason:
            return str(reason)
    if error.schema == definitions["structure"]:
        return f"{_show(error.instance)} is not a structure: a reference, or one of {STRUCTURE_FORMS}"
    message = error.message
    return message if len(message) <= 200 else message[:197] + "..."


def loads(text: str) -> Any:
    """Parses a program's JSON text; ProgramError for text that is not JSON, too large or nested too deeply."""
    if len(text) > MAX_JSON_BYTES:
        raise ProgramError("", f"program too large: {len(text):,} characters of JSON (at most {MAX_JSON_BYTES:,})")
    try:
        return json.loads(text, parse_constant=_reject_constant)
    except RecursionError:
        raise ProgramError("", f"JSON nested too deeply to read (programs nest at most {MAX_JSON_DEPTH} "
                               "levels)") from None
    except json.JSONDecodeError as error:
        raise ProgramError("", f"not JSON: {error}") from None


def _reject_constant(name: str) -> Any:
    raise ProgramError("", f"{name} is not JSON: write 'nan', 'inf' or '-inf' as strings")


def decode_value(description: Any, at: str) -> np.ndarray:
    """The array of a leaf's tensor description (already schema-checked), each element parsed by
    the one grammar of numbers (`outcome.parse_float`)."""
    from .outcome import decode_array

    dtype, shape, data = description["dtype"], description["shape"], description["data"]
    size = math.prod(shape)
    if size > MAX_ELEMENTS:
        raise ProgramError(f"{at}.shape", f"{size:,} elements: a program holds at most {MAX_ELEMENTS:,}")
    if len(data) != size:
        raise ProgramError(f"{at}.data", f"{len(data)} elements for shape {shape} ({size} expected)")
    for i, element in enumerate(data):
        _check_element(element, dtype, f"{at}.data[{i}]")
    return decode_array(description)


def _check_element(element: Any, dtype: str, at: str) -> None:
    try:
        if dtype.startswith("complex"):
            if not isinstance(element, list) or len(element) != 2:
                raise ValueError(f"expected a [real, imaginary] pair, got {_show(element)}")
            parse_float(element[0]), parse_float(element[1])
        elif dtype.startswith(("float", "bfloat")):
            parse_float(element)
        elif dtype == "bool":
            if not isinstance(element, bool):
                raise ValueError(f"expected true or false, got {_show(element)}")
        else:
            info = np.iinfo(dtype)
            if isinstance(element, bool) or not isinstance(element, int) or not info.min <= element <= info.max:
                raise ValueError(f"expected an integer in the range of {dtype}, got {_show(element)}")
    except ValueError as error:
        raise ProgramError(at, str(error)) from None


# -- The published schema, generated from FIELDS ---------------------------------------------------


def program_schema() -> dict:
    """The JSON Schema (Draft 2020-12) of a program, generated from `FIELDS` and the dataclasses."""
    classes = STATEMENTS
    definitions: dict[str, Any] = {
        "name": {"type": "string", "pattern": f"^{NAME_PATTERN.pattern}$", "maxLength": MAX_NAME_LENGTH,
                 "description": "an identifier; not a Python keyword, nor a name the generated script uses "
                                "(tf, np, describe, float, ...)"},
        "reference": {"type": "string", "pattern": f"^{REFERENCE_PATTERN.pattern}$",
                      "description": "a name defined before, or name[index] for an element of a list result"},
        "structure": {"oneOf": [
            {"$ref": "#/$defs/reference"},
            {"type": "object", "properties": {"list": {"type": "array", "items": {"$ref": "#/$defs/structure"}}},
             "required": ["list"], "additionalProperties": False},
            {"type": "object", "properties": {"tuple": {"type": "array", "items": {"$ref": "#/$defs/structure"}}},
             "required": ["tuple"], "additionalProperties": False},
            {"type": "object", "required": ["dict"], "additionalProperties": False, "properties": {"dict": {
                "type": "array", "items": {"type": "array", "minItems": 2, "maxItems": 2,
                                           "prefixItems": [{"$ref": "#/$defs/name"}, {"$ref": "#/$defs/structure"}]}}}},
            {"type": "object", "required": ["namedtuple"], "additionalProperties": False, "properties": {"namedtuple": {
                "type": "array", "minItems": 2, "maxItems": 2, "description": "[typename, [[field, structure], ...]]",
                "prefixItems": [{"$ref": "#/$defs/name"}, {"type": "array", "items": {
                    "type": "array", "minItems": 2, "maxItems": 2,
                    "prefixItems": [{"$ref": "#/$defs/field"}, {"$ref": "#/$defs/structure"}]}}]}}},
        ]},
        "field": {"type": "string", "pattern": "^[A-Za-z][A-Za-z0-9_]*$", "maxLength": MAX_NAME_LENGTH,
                  "description": "a namedtuple field: an identifier not starting with '_', not a Python keyword"},
        "number": {"oneOf": [
            {"type": "number", "description": "decimal"},
            {"type": "string", "pattern": r"^-?[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?$", "description": "decimal"},
            {"type": "string", "pattern": r"^-?0x[0-9a-f]\.[0-9a-f]+p[+-][0-9]+$",
             "description": "exact hexadecimal float in float.hex form, e.g. 0x1.8p-1"},
            {"enum": ["inf", "-inf", "nan"]},
        ]},
        "tensor": {"type": "object", "required": ["kind", "dtype", "shape", "data"], "additionalProperties": False,
                   "properties": {
                       "kind": {"const": "tensor"}, "dtype": {"enum": list(LEAF_DTYPES)},
                       "shape": {"type": "array", "items": {"type": "integer", "minimum": 0}, "maxItems": 8},
                       "data": {"type": "array", "items": {"oneOf": [
                           {"$ref": "#/$defs/number"}, {"type": "boolean"},
                           {"type": "array", "prefixItems": [{"$ref": "#/$defs/number"}, {"$ref": "#/$defs/number"}],
                            "minItems": 2, "maxItems": 2, "description": "complex: [real, imaginary]"}]}}}},
        "statement": {"type": "object", "required": ["statement"],
                      "properties": {"statement": {"enum": list(FIELDS)}},
                      "allOf": [{"if": {"properties": {"statement": {"const": kind}}},
                                 "then": {"$ref": f"#/$defs/{kind}"}} for kind in FIELDS]},
    }
    for kind, fields in FIELDS.items():
        declared = {f.name: f for f in dataclasses.fields(classes[kind])}
        required = [name for name in fields if declared[name].default is dataclasses.MISSING
                    and declared[name].default_factory is dataclasses.MISSING]
        definitions[kind] = {"type": "object", "required": ["statement", *required], "additionalProperties": False,
                             "properties": {"statement": {"const": kind},
                                            **{name: field.schema for name, field in fields.items()}}}
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": SCHEMA_ID,
            "title": "reftape program",
            "description": "A program of the reftape harness: statements run in order, outputs reported at the end. "
                           "Generated from oracle/validation.py (FIELDS); names, scoping, the op catalog and "
                           "size limits are checked there too.",
            "type": "object", "required": ["statements"], "additionalProperties": False,
            "properties": {"$schema": {"type": "string"},
                           "statements": {"type": "array", "items": {"$ref": "#/$defs/statement"}},
                           "outputs": {"type": "array", "items": {"$ref": "#/$defs/reference"}}},
            "$defs": definitions}


def write_schema(path: Path = SCHEMA_PATH) -> None:
    """Writes the published schema (run after changing FIELDS)."""
    path.write_text(json.dumps(program_schema(), indent=1) + "\n")

