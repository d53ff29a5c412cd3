"""The statements a program is made of: leaves, single-assignment ops, nested tapes, forward
accumulators, custom gradients, variable updates, and gradient/jacobian/jvp calls, and the structures
(targets, sources, output_gradients) that name them.

Structures are a leaf name, or {"list": [...]}, {"tuple": [...]}, {"dict": [[key, structure], ...]}
(dict order kept), {"namedtuple": [typename, [[field, structure], ...]]} (a `collections.namedtuple`
class per typename, defined at the top of the program).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Iterator, Union

import numpy as np

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


# ---------------------------------------------------------------------------------------------
# Control flow.


@dataclass
class WhileLoop:
    """`name, = tf.while_loop(lambda param: True, name, [loop_var], maximum_iterations=trips)` with `name`
    first defined as the body: `def name(param):` running ops `body` (reading `param`, their own names and
    names defined before the loop) and returning `[result]`, the loop variable's next value, of its shape
    and dtype. The body runs `trips` times (0 included), eagerly, so the tapes record each iteration's ops.
    Names inside the body are local to it."""

    name: str
    loop_var: str
    param: str
    body: list                     # Op statements
    result: str
    trips: int = 1

    @property
    def inputs(self) -> list:
        return [self.loop_var]

    @property
    def reads(self) -> list:
        """The loop variable and what the body reads from outside the loop."""
        return [self.loop_var, *_read_from_outside(self.body, parameters=[self.param])]


@dataclass
class Cond:
    """`name, = tf.cond(predicate, name_true, name_false)` with the branches first defined as functions of no
    parameter: `def name_true():` running ops `true_body` and returning `[true_result]`, `name_false` likewise.
    The predicate is a Python bool, or a boolean tensor of that value (`tensor_predicate`): eagerly TF runs the
    branch it selects and nothing of the other. A branch reads names defined before the cond (or none of
    them); the names inside it are local to it."""

    name: str
    predicate: bool
    true_body: list                # Op statements
    true_result: str
    false_body: list
    false_result: str
    tensor_predicate: bool = False

    def branch(self, taken: bool = True) -> tuple[list, str]:
        """The ops and result of the branch the predicate selects (or of the other one)."""
        chosen = self.predicate if taken else not self.predicate
        return (self.true_body, self.true_result) if chosen else (self.false_body, self.false_result)

    @property
    def inputs(self) -> list:
        """What either branch reads from outside the cond (a branch may return an outside name)."""
        return [*_read_from_outside(self.true_body, returned=self.true_result),
                *_read_from_outside(self.false_body, returned=self.false_result)]

    reads = inputs


def _read_from_outside(body: list, parameters: list = (), returned: str | None = None) -> list:
    """The names a block's ops (and its returned name) read that neither the block nor its parameters define."""
    local = {*parameters, *(op.name for op in body)}
    read = [n for op in body for n in op.inputs] + ([returned] if returned is not None else [])
    return [n for n in read if n.split("[", 1)[0] not in local]


# ---------------------------------------------------------------------------------------------
# Forward mode.


@dataclass
class Accumulator:
    """`with tf.autodiff.ForwardAccumulator(primals=[...], tangents=[...]) as name:` around `body`: every
    op run inside the block with an input that carries a tangent computes its output's tangent (the
    primals carry the tangents given, one per primal, of its shape and dtype). Tapes and their calls
    inside the block run as usual; the ops of their backward passes carry tangents too."""

    name: str
    primals: list
    tangents: list
    body: list


@dataclass
class Jvp:
    """`name = accumulator.jvp(target, unconnected_gradients=...)`: the tangents of a structure of
    tensors (None for a tensor without one, zeros with unconnected "zero"); inside the accumulator's
    block or after it. Reported with the calls."""

    name: str
    accumulator: str
    target: Structure
    unconnected: str = "none"            # "none" | "zero"


STATEMENTS = {cls.__name__: cls for cls in (Leaf, Op, ListLiteral, Watch, Tape, StopRecording, Reset, Call, WatchedVariables,
                                            CustomGradient, Apply, Assign, ReadValue, Accumulator, Jvp, WhileLoop, Cond)}
BLOCKS = (Tape, StopRecording, Accumulator)   # statements around a body of statements (`with` blocks)


def walk(statements: list):
    """Every statement, depth first, including those inside tapes, stop_recording spans, accumulators,
    custom gradients and loop bodies."""
    for s in statements:
        yield s
        if isinstance(s, BLOCKS):
            yield from walk(s.body)
        elif isinstance(s, CustomGradient):
            yield from walk(s.forward)
            yield from walk(s.backward)
        elif isinstance(s, WhileLoop):
            yield from walk(s.body)
        elif isinstance(s, Cond):
            yield from walk(s.true_body)
            yield from walk(s.false_body)


def unrolled(statements: list, outputs: list = (), only: Any = None) -> tuple[list, list]:
    """`statements` and `outputs` with each WhileLoop (or only the block `only`) replaced by its body's ops once
    per iteration (each iteration's names prefixed with the loop's and the iteration's number) and each Cond by
    the ops of the branch it takes (prefixed with its name), then an identity naming the last value as the loop
    or cond: what eager TF runs and its tapes record, for whatever reads ops alone (the referee). A loop or cond
    whose value is a tensor from before it (no iteration ran, or the body or branch returns what it read) is that
    very tensor in eager TF, not a copy (a gradient by it is a gradient of the source itself), so what reads the
    loop or cond reads that tensor instead."""
    aliases: dict[str, str] = {}
    result = _unrolled(statements, aliases, only)
    outputs = list(outputs)
    for old, new in reversed(aliases.items()):   # a later alias may name an earlier one
        result = renamed_value(result, old, new)
        outputs = [_renamed(name, {old: new}) for name in outputs]
    return result, outputs


def _unrolled(statements: list, aliases: dict, only: Any) -> list:
    result: list = []
    for s in statements:
        if isinstance(s, (WhileLoop, Cond)) and (only is None or s is only):
            inlined: list = []
            if isinstance(s, WhileLoop):
                value = s.loop_var
                for iteration in range(s.trips):
                    value = _inlined(s.body, s.result, {s.param: value}, f"{s.name}_{iteration}_", inlined)
            else:
                value = _inlined(*s.branch(), {}, f"{s.name}_", inlined)
            result += inlined
            if value.split("[", 1)[0] in {op.name for op in inlined}:
                result.append(Op(s.name, "identity", [value]))
            else:
                aliases[s.name] = value
        elif isinstance(s, BLOCKS):
            result.append(replace(s, body=_unrolled(s.body, aliases, only)))
        else:
            result.append(s)
    return result


def _inlined(body: list, body_result: str, names: dict, prefix: str, into: list) -> str:
    """Appends `body`'s ops to `into`, each name prefixed, inputs renamed by `names` (the body's parameters);
    returns what `body_result` became."""
    for op in body:
        names[op.name] = prefix + op.name
        into.append(Op(names[op.name], op.path, [_renamed(name, names) for name in op.inputs], dict(op.attrs)))
    return _renamed(body_result, names)


def _renamed(reference: str, names: dict) -> str:
    base, bracket, rest = reference.partition("[")
    return names.get(base, base) + bracket + rest


def renamed_value(statements: list, old: str, new: str) -> list:
    """`statements` with every reference to the value `old` (`old` itself, or an element `old[i]`) reading `new`
    instead (`new[i]`)."""
    def renamed(name: str) -> str:
        return new + name[len(old):] if name.split("[", 1)[0] == old else name

    result = []
    for s in statements:
        if isinstance(s, Accumulator):
            s = replace(s, primals=[renamed(name) for name in s.primals], tangents=[renamed(name) for name in s.tangents],
                        body=renamed_value(s.body, old, new))
        elif isinstance(s, (Tape, StopRecording)):
            s = replace(s, body=renamed_value(s.body, old, new))
        elif isinstance(s, (Op, Apply)):
            s = replace(s, inputs=[renamed(name) for name in s.inputs])
        elif isinstance(s, WhileLoop):
            s = replace(s, loop_var=renamed(s.loop_var), body=renamed_value(s.body, old, new))
        elif isinstance(s, Cond):
            s = replace(s, true_body=renamed_value(s.true_body, old, new), true_result=renamed(s.true_result),
                        false_body=renamed_value(s.false_body, old, new), false_result=renamed(s.false_result))
        elif isinstance(s, ListLiteral):
            s = replace(s, items=[renamed(name) for name in s.items])
        elif isinstance(s, Watch):
            s = replace(s, names=[renamed(name) for name in s.names])
        elif isinstance(s, Assign):
            s = replace(s, value=renamed(s.value))
        elif isinstance(s, Jvp):
            s = replace(s, target=map_references(s.target, renamed))
        elif isinstance(s, Call):
            s = replace(s, target=map_references(s.target, renamed), sources=map_references(s.sources, renamed),
                        output_gradients=None if s.output_gradients is None else
                        map_references(s.output_gradients, renamed))
        result.append(s)
    return result


def scope(statements: list) -> Iterator[Any]:
    """The statements of the program's own scope in order: into tape, stop_recording and accumulator bodies,
    not into a custom gradient's functions, a loop's body or a cond's branches (whose names are local to them)."""
    for s in statements:
        yield s
        if isinstance(s, BLOCKS):
            yield from scope(s.body)


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
        elif isinstance(s, Jvp):
            collect(s.target)
    return types
