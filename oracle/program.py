"""Programs as data: leaves, single-assignment ops, nested tapes, custom gradients, variable
updates, and gradient/jacobian calls.

A program is a list of statements. It round-trips losslessly through JSON (leaf values are stored
as exact tensor descriptions: NaN, inf and -0.0 survive) and prints as a standalone Python script
(`to_source`) that runs it and prints its outcome as JSON. The interpreter runs exactly that script
with `tf` bound to a backend, so a printed program always reproduces what the interpreter saw.

Structures (targets, sources, output_gradients) are a leaf name, or {"list": [...]},
{"tuple": [...]}, {"dict": [[key, structure], ...]} (dict order kept), {"namedtuple": [typename,
[[field, structure], ...]]} (a `collections.namedtuple` class per typename, defined at the top of the
program).
"""

from __future__ import annotations

import inspect
import json
import re
import textwrap
from dataclasses import asdict, dataclass, field
from typing import Any, Union

import numpy as np

from .catalog import call_source
from .outcome import describe, describe_error
from .validation import check_schema, decode_value, loads, validate

Structure = Union[str, dict]


@dataclass
class Leaf:
    """An input: a Variable (trainable or not), a constant tensor, or a value that ops convert
    themselves: a Python literal (kind "python": a number, or nested lists of numbers, of the type
    `dtype` names: float64 for float, int64 for int, bool, complex128 for complex) or a NumPy value
    (kind "numpy": a NumPy scalar for shape (), an array otherwise)."""

    name: str
    kind: str  # "variable" | "constant"
    value: np.ndarray
    dtype: str
    trainable: bool = True

    @property
    def converted(self) -> bool:
        """A Python or NumPy value, which ops convert themselves (not a tensor)."""
        return self.kind in ("python", "numpy")


@dataclass
class Op:
    name: str
    path: str
    inputs: list
    attrs: dict = field(default_factory=dict)

    @property
    def reads(self) -> list:
        return self.inputs


@dataclass
class ListLiteral:
    """`name = [items...]`: a Python list of tensors, literals or lists, as ops receive it (TF packs a
    list holding tensors into one tensor, recording a Pack so that gradients reach the items)."""

    name: str
    items: list

    @property
    def reads(self) -> list:
        return self.items


@dataclass
class Watch:
    tape: str
    names: list


@dataclass
class Tape:
    """`with tf.GradientTape(...) as name:` around `body`."""

    name: str
    body: list
    persistent: bool = False
    watch_accessed_variables: bool = True


@dataclass
class StopRecording:
    tape: str
    body: list


@dataclass
class Reset:
    tape: str


@dataclass
class Call:
    """`name = tape.gradient|jacobian|batch_jacobian(target, sources, ...)`."""

    name: str
    tape: str
    method: str
    target: Structure
    sources: Structure
    output_gradients: Structure | None = None
    unconnected: str = "none"            # "none" | "zero"
    unconnected_form: str = "default"    # "default" (argument omitted) | "string" | "enum"
    use_pfor: bool = True                # jacobian / batch_jacobian only


# ---------------------------------------------------------------------------------------------
# Custom gradients and variable updates. Names defined here are program-wide: keep them unique
# across the whole program (also the local names inside a CustomGradient's `forward` and `backward`).


@dataclass
class CustomGradient:
    """`@tf.custom_gradient def name(*params)`: ops `forward` compute `result` from the parameters
    (and may read or assign Variables defined earlier: TF captures the trainable ones that are not
    arguments, an assign counting as an access);
    `grad(upstream)` runs ops `backward` over `upstream`, the parameters and the forward's names, and
    returns `input_grads`, one name (or None, for a None gradient) per parameter.

    `variables` says how `grad` accepts TF's `variables` keyword: "none" (`def grad(upstream)`),
    "positional" (`def grad(upstream, variables=None)`) or "keyword" (`def grad(upstream, *,
    variables=None)`). When it is not "none", `grad` also returns `variable_grads`, one name per
    captured variable; TF passes `variables` only when the forward read a trainable Variable that is
    not an argument, so a generator should pair "positional"/"keyword" with exactly one such read
    (TF orders several captured variables by a set of references: not reproducible) and "none" with
    none (otherwise both sides raise TypeError). Applied with `Apply`, anywhere after its definition.
    """

    name: str
    params: list
    forward: list                  # Op, Assign, ReadValue statements (inputs: params, their own names, earlier names)
    result: str                    # the forward's output: a param or a name defined by `forward`
    backward: list                 # Op statements (inputs: upstream, params, forward names, earlier names)
    input_grads: list              # one name or None per param
    variables: str = "none"        # "none" | "positional" | "keyword"
    variable_grads: list = field(default_factory=list)
    upstream: str = "upstream"


@dataclass
class Apply:
    """`name = function(*inputs)`: calls a CustomGradient defined earlier on tensors or Variables
    (a Variable argument is read by TF after the call, so its gradient flows through that read)."""

    name: str
    function: str
    inputs: list


@dataclass
class WatchedVariables:
    """`name = tape.watched_variables()`: the Variables `tape` watches (TF: a tuple in creation order),
    reported with the calls; inside the tape's `with` block or after it."""

    name: str
    tape: str


@dataclass
class Assign:
    """`variable.assign|assign_add|assign_sub(value)`: `variable` names a Variable leaf, `value` a
    tensor of its shape and dtype. Reads recorded before it keep the old value; a tape watching
    accessed variables starts watching `variable` here (TF marks an assign as an access)."""

    variable: str
    value: str
    method: str = "assign"         # "assign" | "assign_add" | "assign_sub"


@dataclass
class ReadValue:
    """`name = variable.read_value()`: a recorded read of the Variable's current value."""

    name: str
    variable: str


STATEMENTS = {cls.__name__: cls for cls in (Leaf, Op, ListLiteral, Watch, Tape, StopRecording, Reset, Call, WatchedVariables,
                                            CustomGradient, Apply, Assign, ReadValue)}

# Names the generated script itself uses inside or around `_program()` (builtins included): a program
# may not define them. Emitting a new name in the source means adding it here (a test checks).
SCRIPT_NAMES = frozenset({"tf", "np", "json", "collections", "print", "describe", "describe_error", "_outcome",
                          "_program", "_error", "float", "complex", "Exception", "grad", "variables"})  # the last two: custom gradients  # the last two: custom gradients
MODULE_PATTERN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")


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
        lines = [f"    {typename} = collections.namedtuple({typename!r}, {list(fields)!r})"
                 for typename, fields in namedtuple_types(self.statements).items()]
        lines += _statements_source(self.statements, indent=1)
        for name in self.outputs:
            lines.append(f"    _outcome['values'][{name!r}] = describe({name}, tf)")
        return "def _program():\n" + ("\n".join(lines) if lines else "    pass") + "\n"

    def to_source(self, module: str = "tensorflow", deterministic: bool = True) -> str:
        """A standalone script that runs the program on `module` and prints its outcome as JSON (TF
        configured as the oracle runs it; with `deterministic` False, on its default kernels)."""
        if not MODULE_PATTERN.fullmatch(module):
            raise ValueError(f"{module!r} is not a module name")
        helpers = "\n\n".join(textwrap.dedent(inspect.getsource(f)) for f in (describe, describe_error))
        oracle = "" if module != "tensorflow" else ORACLE_CONFIGURATION if deterministic else ONE_THREAD
        return (f"import collections\nimport json\n\nimport numpy as np\nimport {module} as tf\n{oracle}\n{helpers}\n\n"
                f"_outcome = {{'values': {{}}, 'calls': {{}}, 'error': None}}\n\n\n{self.body_source()}\n\n"
                "try:\n    _program()\nexcept Exception as _error:\n"
                "    _outcome['error'] = describe_error(_error, tf)\n"
                "print(json.dumps(_outcome, sort_keys=True))\n")


# TensorFlow as the harness's oracle runs (oracle/tensorflow.py): deterministic ops (softmax cross
# entropy's second order with respect to labels, KNOWN_DIVERGENCES 1, depends on it), one thread.
ONE_THREAD = ("tf.config.threading.set_inter_op_parallelism_threads(1)\n"
              "tf.config.threading.set_intra_op_parallelism_threads(1)\n")
ORACLE_CONFIGURATION = "tf.config.experimental.enable_op_determinism()\n" + ONE_THREAD


def walk(statements: list):
    """Every statement, depth first, including those inside tapes and stop_recording spans."""
    for s in statements:
        yield s
        if isinstance(s, (Tape, StopRecording)):
            yield from walk(s.body)
        elif isinstance(s, CustomGradient):
            yield from walk(s.forward)
            yield from walk(s.backward)


_NESTED = ("body", "forward", "backward")   # fields holding statements: written with their statement type


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


def structure_children(structure: dict) -> list:
    """The structures inside a container structure, in order (a dict's and a namedtuple's values)."""
    (kind, items), = structure.items()
    if kind == "dict":
        return [s for _, s in items]
    if kind == "namedtuple":
        return [s for _, s in items[1]]
    return list(items)


def structure_references(structure: Structure | None) -> list[str]:
    """The references in a structure, in the order its results are described (dicts in their own order)."""
    if structure is None:
        return []
    if isinstance(structure, str):
        return [structure]
    return [name for child in structure_children(structure) for name in structure_references(child)]


def flat_references(structure: Structure | None) -> list[str]:
    """The references in the order `tf.nest.flatten` gives them: a dict's values in sorted key order
    (TF pairs targets with output_gradients in this order, whatever their structures)."""
    if structure is None:
        return []
    if isinstance(structure, str):
        return [structure]
    (kind, items), = structure.items()
    children = [s for _, s in sorted(items, key=lambda item: item[0])] if kind == "dict" else structure_children(structure)
    return [name for child in children for name in flat_references(child)]


def pack_references(structure: Structure, names: list[str]) -> Structure:
    """`structure` with its references replaced by `names`, taken in `tf.nest.flatten`'s order (as
    `tf.nest.pack_sequence_as` does: dicts keep their own order)."""
    remaining = iter(names)

    def pack(item: Structure) -> Structure:
        if isinstance(item, str):
            return next(remaining)
        (kind, items), = item.items()
        if kind == "dict":
            packed = {key: pack(child) for key, child in sorted(items, key=lambda entry: entry[0])}
            return {kind: [[key, packed[key]] for key, _ in items]}
        if kind == "namedtuple":
            return {kind: [items[0], [[key, pack(child)] for key, child in items[1]]]}
        return {kind: [pack(child) for child in items]}

    return pack(structure)


def map_references(structure: Structure, change: Any) -> Structure:
    """`structure` with each reference `r` replaced by `change(r)`."""
    if isinstance(structure, str):
        return change(structure)
    (kind, items), = structure.items()
    if kind == "dict":
        return {kind: [[key, map_references(s, change)] for key, s in items]}
    if kind == "namedtuple":
        return {kind: [items[0], [[key, map_references(s, change)] for key, s in items[1]]]}
    return {kind: [map_references(s, change) for s in items]}


def namedtuple_types(statements: list) -> dict[str, tuple]:
    """The fields of each namedtuple type the calls' structures use, by typename, in order of first use."""
    types: dict[str, tuple] = {}

    def collect(structure: Structure | None) -> None:
        if structure is None or isinstance(structure, str):
            return
        (kind, items), = structure.items()
        if kind == "namedtuple":
            types.setdefault(items[0], tuple(field for field, _ in items[1]))
        for child in structure_children(structure):
            collect(child)

    for s in walk(statements):
        if isinstance(s, Call):
            for part in (s.target, s.sources, s.output_gradients):
                collect(part)
    return types


def structure_source(structure: Structure) -> str:
    if isinstance(structure, str):
        return structure
    (kind, items), = structure.items()
    if kind == "list":
        return "[" + ", ".join(structure_source(s) for s in items) + "]"
    if kind == "tuple":
        inner = ", ".join(structure_source(s) for s in items)
        return f"({inner},)" if len(items) == 1 else f"({inner})"
    if kind == "dict":
        return "{" + ", ".join(f"{k!r}: {structure_source(s)}" for k, s in items) + "}"
    if kind == "namedtuple":
        typename, fields = items
        return f"{typename}(" + ", ".join(f"{k}={structure_source(s)}" for k, s in fields) + ")"
    raise ValueError(f"unknown structure kind {kind!r}")


def _float_literal(x: float) -> str:
    return repr(x) if np.isfinite(x) else f"float({str(x)!r})"


def array_literal(value: np.ndarray) -> str:
    """Exact Python source for an array (bfloat16 goes through float32, which holds it exactly)."""
    value = np.asarray(value)
    dtype = "float32" if value.dtype.name == "bfloat16" else value.dtype.name
    flat = value.reshape(-1)
    if value.dtype.kind == "c":
        items = [f"complex({_float_literal(float(z.real))}, {_float_literal(float(z.imag))})" for z in flat]
    elif value.dtype.kind in "biu":
        items = [repr(x) for x in flat.tolist()]
    else:
        items = [_float_literal(float(x)) for x in flat.astype(np.float64)]
    return f"np.array([{', '.join(items)}], dtype={dtype!r}).reshape({list(value.shape)})"


def python_literal(value: np.ndarray) -> str:
    """Exact Python source for an array's elements as Python numbers, nested in lists by its shape."""
    def source(x: Any) -> str:
        if isinstance(x, list):
            return "[" + ", ".join(map(source, x)) + "]"
        if isinstance(x, complex):
            return f"complex({_float_literal(x.real)}, {_float_literal(x.imag)})"
        return _float_literal(x) if isinstance(x, float) else repr(x)

    return source(np.asarray(value).tolist())


def _leaf_source(leaf: Leaf) -> str:
    if leaf.kind == "python":
        return f"{leaf.name} = {python_literal(leaf.value)}"
    literal = array_literal(leaf.value)
    if leaf.kind == "numpy":
        return f"{leaf.name} = {literal}" + ("[()]" if np.ndim(leaf.value) == 0 else "")  # [()]: a NumPy scalar
    if leaf.kind == "variable":
        return (f"{leaf.name} = tf.Variable({literal}, dtype=tf.{leaf.dtype}, trainable={leaf.trainable}, "
                f"name={leaf.name!r})")  # named: watched_variables() and Variable results show which
    return f"{leaf.name} = tf.constant({literal}, dtype=tf.{leaf.dtype})"


def _call_source(call: Call) -> str:
    args = [structure_source(call.target), structure_source(call.sources)]
    if call.output_gradients is not None:
        args.append(f"output_gradients={structure_source(call.output_gradients)}")
    if call.unconnected_form == "string":
        args.append(f"unconnected_gradients={call.unconnected!r}")
    elif call.unconnected_form == "enum":
        args.append(f"unconnected_gradients=tf.UnconnectedGradients.{call.unconnected.upper()}")
    if call.method != "gradient" and not call.use_pfor:
        args.append("experimental_use_pfor=False")
    return f"{call.tape}.{call.method}({', '.join(args)})"


def _statements_source(statements: list, indent: int) -> list[str]:
    pad = "    " * indent
    lines: list[str] = []
    for s in statements:
        if isinstance(s, Leaf):
            lines.append(pad + _leaf_source(s))
        elif isinstance(s, Op):
            lines.append(pad + f"{s.name} = " + call_source(s.path, list(s.inputs), dict(s.attrs)))
        elif isinstance(s, ListLiteral):
            lines.append(pad + f"{s.name} = [{', '.join(s.items)}]")
        elif isinstance(s, Watch):
            lines.append(pad + f"{s.tape}.watch([{', '.join(s.names)}])")
        elif isinstance(s, Reset):
            lines.append(pad + f"{s.tape}.reset()")
        elif isinstance(s, Tape):
            lines.append(pad + f"with tf.GradientTape(persistent={s.persistent}, "
                               f"watch_accessed_variables={s.watch_accessed_variables}) as {s.name}:")
            lines += _statements_source(s.body, indent + 1) or [pad + "    pass"]
        elif isinstance(s, StopRecording):
            lines.append(pad + f"with {s.tape}.stop_recording():")
            lines += _statements_source(s.body, indent + 1) or [pad + "    pass"]
        elif isinstance(s, Call):
            lines += _reported_call_source(s.name, _call_source(s), pad)
        elif isinstance(s, WatchedVariables):
            lines += _reported_call_source(s.name, f"{s.tape}.watched_variables()", pad)
        elif isinstance(s, CustomGradient):
            lines += _custom_gradient_source(s, pad)
        elif isinstance(s, Apply):
            lines.append(pad + f"{s.name} = {s.function}({', '.join(s.inputs)})")
        elif isinstance(s, Assign):
            lines.append(pad + f"{s.variable}.{s.method}({s.value})")
        elif isinstance(s, ReadValue):
            lines.append(pad + f"{s.name} = {s.variable}.read_value()")
        else:
            raise TypeError(f"not a statement: {s!r}")
    return lines


def _reported_call_source(name: str, expression: str, pad: str) -> list[str]:
    """`name = expression`, its result (or exception) reported with the calls."""
    return [pad + "try:",
            pad + f"    {name} = {expression}",
            pad + f"    _outcome['calls'][{name!r}] = describe({name}, tf)",
            pad + "except Exception as _error:",
            pad + f"    _outcome['calls'][{name!r}] = describe_error(_error, tf)"]


def _names_source(names: list) -> str:
    return "[" + ", ".join("None" if n is None else n for n in names) + "]"


def _custom_gradient_source(s: CustomGradient, pad: str) -> list[str]:
    extra = {"none": "", "positional": ", variables=None", "keyword": ", *, variables=None"}[s.variables]
    returned = _names_source(s.input_grads)
    if s.variables != "none":
        returned += ", " + _names_source(s.variable_grads)
    inner = pad + "    "
    return ([pad + "@tf.custom_gradient", pad + f"def {s.name}({', '.join(s.params)}):"]
            + _statements_source(s.forward, len(inner) // 4)
            + [inner + f"def grad({s.upstream}{extra}):"]
            + _statements_source(s.backward, len(inner) // 4 + 1)
            + [inner + f"    return {returned}", inner + f"return {s.result}, grad"])
