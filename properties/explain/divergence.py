"""First divergence: the node of a finding's program where the two sides part, and the op to suspect.

Both sides run instrumented copies of the program (programs as data, through the one interpreter):
1. forward: every op's value is reported (and every custom gradient's application and variable
   read). Walking in program order, the first op whose value differs while every input agrees
   computed a wrong value itself (stage "forward"). When one side stops
   with an exception the other does not raise, the shortest program prefix where the two sides' errors
   part ends at the statement to blame.
   A forward check's finding (one backend on both sides, its values agree) parts in its tangents instead:
   a jvp of every op computed from the accumulator's primals is judged (the check's own rules), and the
   first op whose tangent is wrong while the tangents of its inputs are right computed a wrong JVP
   (stage "tangent").
2. adjoint: each gradient/jacobian call is replaced by one gradient of its target with respect to every
   node on its path. Walking back from the target, the first node whose adjoint differs while the
   adjoints of all its consumers agree received a wrong contribution from a consumer's VJP: that
   consumer is the suspect (stage "adjoint"). When the node has several consumers, each op consumer's
   contribution is isolated: the op alone on constants holding the reference's forward values of its
   inputs (just before it runs), differentiated with respect to the node with the reference's adjoint
   of the op as output gradient, on both sides. The one whose contribution differs is blamed. Custom
   gradient applications, variable reads and nested gradient/jacobian calls are not isolated, nor ops
   reading an element of a list result or whose values or adjoint are not single tensors; when no
   contribution or several differ, the first op among the undecided consumers is blamed (none when
   they are not ops) and they are recorded as `ambiguous`.
3. options: where the sides part at a call (or no node diverges), each option of the call and its tape
   away from its default (persistent=True, watch_accessed_variables=False, unconnected_gradients='zero')
   is flipped on both sides; the first without which they agree (the reference raising nowhere new) is
   blamed, as "GradientTape(option=value) ignored" when the candidate's outcome does not change with it
   (before any op then), else where no op is to blame (stage "option").
The divergence is recorded with both sides' descriptions at the node (`expected`: the reference's).
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any, Iterator

from reftape_oracle.interpreter import run
from reftape_oracle.outcome import UNFINISHED, Outcome, decode_array
from reftape_oracle.program import (BLOCKS, Accumulator, Apply, Assign, Call, Cond, CustomGradient, Jvp, Leaf, ListLiteral, Op,
                                    Program, ReadValue, Tape, Watch, WatchedVariables, WhileLoop, scope, unrolled, walk)
from reftape_oracle.program import structure_references as structure_names  # in a target/sources structure, in order

from reftape_properties.judge.compare import compare
from reftape_properties.findings.record import Finding
from reftape_properties.judge.forward import FORWARD
from reftape_properties.judge.function import FUNCTION
from reftape_properties.judge.function import NOT_COMPARED as MODES_DIFFER_IN
from reftape_properties.pipeline import forward_judge, run_sides

ADJOINTS = "_adjoints"   # the name of the instrumented gradient call
UPSTREAM = "_upstream"   # ... and of its output gradient in a consumer's isolated contribution
_LOCATION = re.compile(r"(values|calls)/([A-Za-z_][A-Za-z_0-9]*)((?:\[\d+\])?)")


def first_divergence(finding: Finding) -> Finding:
    """Sets `finding.suspect` and `finding.first_divergence` (None when no node diverges, when a side
    did not finish: every instrumented run would wait for the time limit, or die, or when the candidate
    lacks a name: that is the cause). A tape option the difference depends on is to blame before an op
    when the candidate ignores it, and where no op is to blame."""
    if finding.stopped_by(UNFINISHED) or finding.missing_name is not None:
        finding.first_divergence = None
        return finding
    if finding.reference == FORWARD:   # one backend on both sides: its values agree; its tangents part
        divergence = _tangent_divergence(finding)
    else:
        divergence = _forward_divergence(finding) or _adjoint_divergence(finding)
    finding.first_divergence = divergence
    if divergence is not None and divergence["op"] is not None:
        finding.suspect = divergence["op"]
    elif divergence is not None:
        finding.suspect = _inside_control_flow(finding, divergence)
    if finding.discrepancies and (divergence is None or divergence["stage"] == "adjoint"):
        option = _option_divergence(finding)
        if option is not None and (option["ignored"] or finding.suspect is None):
            finding.first_divergence, finding.suspect = option, option["op"]
    return finding


def _inside_control_flow(finding: Finding, divergence: dict) -> str | None:
    """The suspect of a divergence at a cond or a loop, which no op names: localised again in the program with
    every cond and loop replaced by the ops eager TF runs for it (`unrolled`), whose op is then the suspect. Where
    that program's sides do not part, the cond or the loop itself is to blame (its TF name)."""
    named = {divergence["node"], *divergence.get("consumers", ())}
    blocks = [s for s in scope(finding.program.statements) if isinstance(s, (Cond, WhileLoop)) and s.name in named]
    if not blocks:
        return None
    program = Program(*unrolled(finding.program.statements, finding.program.outputs))
    inlined = first_divergence(replace(finding, program=program, id="", first_divergence=None, suspect=None))
    if inlined.first_divergence is None:
        return "cond" if isinstance(blocks[0], Cond) else "while_loop"
    return inlined.suspect


# -- the program as a graph ---------------------------------------------------------------

DEFINITIONS = (Leaf, Op, ListLiteral, Call, Apply, ReadValue, CustomGradient, WatchedVariables, Jvp,
               WhileLoop, Cond)                                          # statements that define a name
VALUES = (Op, Apply, ReadValue, WhileLoop, Cond)                        # ... a value the program computes


def base(name: str) -> str:
    """The name a reference reads: `y` for `y` and for the element reference `y[0]`."""
    return name.split("[", 1)[0]


def inputs_of(statement: Any) -> list[str]:
    """The names a statement reads: an op's or an application's inputs, a list's items; a call's targets, sources and
    output gradients; a variable read or assigned; what a custom gradient's functions read outside."""
    if isinstance(statement, (Op, ListLiteral)):
        names = statement.reads
    elif isinstance(statement, Call):
        parts = (statement.target, statement.sources, statement.output_gradients)
        names = [name for part in parts if part is not None for name in structure_names(part)]
    elif isinstance(statement, Jvp):
        names = structure_names(statement.target)
    elif isinstance(statement, Accumulator):
        names = [*statement.primals, *statement.tangents]
    elif isinstance(statement, Apply):
        names = [statement.function, *statement.inputs]
    elif isinstance(statement, ReadValue):
        names = [statement.variable]
    elif isinstance(statement, Assign):
        names = [statement.variable, statement.value]
    elif isinstance(statement, (WhileLoop, Cond)):
        names = statement.reads
    elif isinstance(statement, CustomGradient):
        body = list(walk(statement.forward + statement.backward))
        local = {*statement.params, statement.upstream, *(getattr(s, "name", None) for s in body)}
        read = [n for s in body for n in inputs_of(s)] + [statement.result, *statement.input_grads,
                                                          *statement.variable_grads]
        names = [n for n in read if n is not None and base(n) not in local]
    else:
        names = []
    return [base(name) for name in names]


def producers(program: Program) -> dict[str, Any]:
    """The statement that defines each name of the program's scope (the last, where one is rebound)."""
    return {s.name: s for s in scope(program.statements) if isinstance(s, DEFINITIONS)}


def ancestors(program: Program, names: list[str]) -> list[str]:
    """`names` and every name they are computed from (a Variable: also what was assigned to it), in
    program order."""
    defined = producers(program)
    assigned: dict[str, list[str]] = {}
    for s in scope(program.statements):
        if isinstance(s, Assign):
            assigned.setdefault(s.variable, []).append(base(s.value))
    seen: set[str] = set()
    work = [base(n) for n in names if base(n) in defined]
    while work:
        name = work.pop()
        if name not in seen:
            seen.add(name)
            work += [n for n in inputs_of(defined[name]) + assigned.get(name, []) if n in defined]
    return [name for name in defined if name in seen]


def prefix(statements: list, count: int) -> tuple[list, int]:
    """The first `count` statements in scope order (a tape counts, then its body); and what is left of
    `count`. Tapes and stop_recording spans cut short keep the part of their body that ran."""
    kept = []
    for s in statements:
        if count == 0:
            break
        count -= 1
        if isinstance(s, BLOCKS):
            body, count = prefix(s.body, count)
            kept.append(replace(s, body=body))
        else:
            kept.append(s)
    return kept, count


def substitute(statements: list, old: Any, new: list) -> list:
    """The statements with `old` (by identity, at any depth) replaced by the statements `new`."""
    result = []
    for s in statements:
        if s is old:
            result += new
        elif isinstance(s, BLOCKS):
            result.append(replace(s, body=substitute(s.body, old, new)))
        else:
            result.append(s)
    return result


# -- running both sides -------------------------------------------------------------------

def _both(finding: Finding, program: Program) -> tuple[Outcome, Outcome]:
    return run_sides(program, finding.candidate, finding.reference)


def _divergent(finding: Finding, expected: Outcome, actual: Outcome, program: Program, section: str) -> dict[str, set]:
    """For each name of `section` ("values" or "calls") that differs, the item indices that differ
    (an empty set when the whole value differs). Differences the finding's check does not count (the function
    check's: a None against zeros, which eager and traced TF give by design) are no divergence."""
    found: dict[str, set] = {}
    for d in compare(expected, actual, program):
        if finding.reference == FUNCTION and d.kind in MODES_DIFFER_IN:
            continue
        match = _LOCATION.match(d.where)
        if match and match.group(1) == section:
            indices = found.setdefault(match.group(2), set())
            if match.group(3):
                indices.add(int(match.group(3)[1:-1]))
    return found


# -- stage 1: forward values ---------------------------------------------------------------

def _forward_divergence(finding: Finding) -> dict | None:
    program = finding.program
    nodes = [s for s in scope(program.statements) if isinstance(s, VALUES)]
    instrumented = Program(program.statements, list(dict.fromkeys(node.name for node in nodes)))
    expected, actual = _both(finding, instrumented)
    if _errors_part(expected, actual):
        return _failing_statement(finding, expected, actual)
    values = _divergent(finding, expected, actual, instrumented, "values")
    calls = _divergent(finding, expected, actual, instrumented, "calls")
    for node in nodes:
        if node.name in values and not any(name in values or name in calls for name in inputs_of(node)):
            return {"stage": "forward", "node": node.name, "op": node.path if isinstance(node, Op) else None,
                    "expected": expected.values.get(node.name), "actual": actual.values.get(node.name)}
    return None


def _errors_part(expected: Outcome, actual: Outcome) -> bool:
    """One side stopped with an exception the other did not raise (or of another class)."""
    return any(d.where == "error" for d in compare(Outcome(expected.backend, error=expected.error),
                                                    Outcome(actual.backend, error=actual.error)))


def _failing_statement(finding: Finding, expected: Outcome, actual: Outcome) -> dict:
    """The statement that ends the shortest prefix of the program on which the two sides' errors part."""
    statements = list(scope(finding.program.statements))
    low, high = 1, len(statements)            # the errors part on the whole program, so on `high`
    while low < high:
        middle = (low + high) // 2
        shorter = Program(prefix(finding.program.statements, middle)[0])
        if _errors_part(*_both(finding, shorter)):
            high = middle
        else:
            low = middle + 1
    statement = statements[high - 1]
    return {"stage": "forward", "node": getattr(statement, "name", type(statement).__name__),
            "op": statement.path if isinstance(statement, Op) else None,
            "expected": expected.error, "actual": actual.error}


# -- stage 1, forward mode: tangents ---------------------------------------------------------

TANGENTS = "_tangents"   # the name of the instrumented jvp call


def _tangent_divergence(finding: Finding) -> dict | None:
    """The first op (program order) whose tangent the forward check finds wrong while its inputs' are right,
    under the accumulator of the first jvp that differs."""
    differing = {m.group(2) for d in finding.discrepancies if (m := _LOCATION.match(d.where)) and m.group(1) == "calls"}
    program = finding.program
    jvp = next((s for s in scope(program.statements) if isinstance(s, Jvp) and s.name in differing), None)
    if jvp is None:
        return None
    accumulator = next(s for s in scope(program.statements) if isinstance(s, Accumulator) and s.name == jvp.accumulator)
    reached = set(accumulator.primals)
    nodes = []
    for s in scope(accumulator.body):
        if isinstance(s, Op) and any(base(n) in reached for n in s.inputs):
            reached.add(s.name)
            nodes.append(s)
    if not nodes:
        return None
    names = [node.name for node in nodes]
    instrumented = Program(program.statements + [Jvp(TANGENTS, accumulator.name, {"list": names})], names)
    expected, actual = _both(finding, instrumented)
    wrong = _divergent(finding, expected, actual, instrumented, "calls").get(TANGENTS, set())
    for position, node in enumerate(nodes):
        if position in wrong and not any(names.index(n) in wrong for n in inputs_of(node) if n in names):
            tangents = (expected.calls.get(TANGENTS) or {}).get("items") or [None] * len(names)
            found = (actual.calls.get(TANGENTS) or {}).get("items") or [None] * len(names)
            return {"stage": "tangent", "node": node.name, "op": node.path,
                    "expected": tangents[position], "actual": found[position]}
    return None


# -- stage 2: adjoints ---------------------------------------------------------------------

def _adjoint_divergence(finding: Finding) -> dict | None:
    """The first divergent adjoint of the calls whose results differ, in program order, then of the others
    (a call whose result agrees may still part inside, at what no result of the program shows)."""
    differing = {m.group(2) for d in finding.discrepancies if (m := _LOCATION.match(d.where)) and m.group(1) == "calls"}
    calls = [s for s in scope(finding.program.statements) if isinstance(s, Call)]
    for call in sorted(calls, key=lambda c: c.name not in differing):
        divergence = _call_adjoint_divergence(finding, call)
        if divergence is not None:
            return divergence
    return None


def adjoint_program(program: Program, call: Call) -> tuple[Program, list[str]]:
    """The program up to `call`, which becomes one gradient of its target with respect to every node on
    its path; and those nodes, walking back from the target."""
    position = next(i for i, s in enumerate(scope(program.statements)) if s is call)
    statements = prefix(program.statements, position + 1)[0]
    before = Program(statements)  # what an assign after the call stores in a variable is not on its path
    defined = producers(before)
    nodes = [n for n in reversed(ancestors(before, structure_names(call.target))) if _differentiable(defined[n])]
    adjoints = Call(ADJOINTS, call.tape, "gradient", call.target, {"list": nodes},
                    output_gradients=call.output_gradients if call.method == "gradient" else None,
                    unconnected=call.unconnected, unconnected_form=call.unconnected_form)
    return Program(substitute(statements, call, [adjoints])), nodes


def _differentiable(statement: Any) -> bool:
    """Whether a name's value is a tensor a gradient can be taken with respect to (not a function,
    a Python list or a Python or NumPy value)."""
    if isinstance(statement, Leaf):
        return not statement.converted
    return not isinstance(statement, (CustomGradient, ListLiteral))


def _call_adjoint_divergence(finding: Finding, call: Call) -> dict | None:
    program, nodes = adjoint_program(finding.program, call)
    expected, actual = _both(finding, program)
    differing = _divergent(finding, expected, actual, program, "calls").get(ADJOINTS)
    if not differing:                          # agreement, or a difference no node can localise
        return None
    adjoints = dict(zip(nodes, expected.calls[ADJOINTS]["items"]))
    for index, node in enumerate(nodes):
        consumers = consumers_on_path(program, node, nodes)
        if index in differing and not any(nodes.index(c.name) in differing for c in consumers):
            blamed, ambiguous = _blamed_consumer(finding, program, node, consumers, adjoints)
            return {"stage": "adjoint", "node": blamed.name if blamed else node,
                    "op": blamed.path if blamed else None, "call": call.name, "adjoint_of": node,
                    "consumers": [c.name for c in consumers], "ambiguous": [c.name for c in ambiguous],
                    "expected": adjoints[node], "actual": actual.calls[ADJOINTS]["items"][index]}
    return None


def consumers_on_path(program: Program, node: str, path: list[str]) -> list[Any]:
    """The statements on `path` that read `node`, in program order (directly, or in a list they read)."""
    lists = {s.name: s for s in scope(program.statements) if isinstance(s, ListLiteral)}

    def reads(names: list[str], seen: frozenset = frozenset()) -> bool:  # seen: a rebound name reads itself
        return any(n == node or n in lists and n not in seen and reads(inputs_of(lists[n]), seen | {n})
                   for n in names)

    return [s for s in scope(program.statements)
            if isinstance(s, (*VALUES, Call)) and s.name in path and reads(inputs_of(s))]


def _blamed_consumer(finding: Finding, program: Program, node: str, consumers: list,
                     adjoints: dict[str, dict]) -> tuple[Op | None, list]:
    """The consumer whose VJP gave `node` a wrong contribution, and the consumers its isolated
    contributions could not tell apart (empty when decided): the differing ones when several differ,
    else those not shown to agree (all when every one agrees). Only op consumers are isolated. An
    undecided choice is the first op among those; None when the undecided consumers are not ops (an
    op shown to agree is never blamed for them)."""
    ops = [c for c in consumers if isinstance(c, Op)]
    if len(consumers) < 2:
        return (ops[0] if ops else None), []
    verdicts = {c.name: _contribution_differs(finding, program, node, c, adjoints[c.name]) for c in ops}
    differing = [c for c in ops if verdicts[c.name]]
    if len(differing) == 1:
        return differing[0], []
    undecided = [c for c in consumers if verdicts.get(c.name) is not False]
    if not differing and undecided:  # never an op shown to agree while another consumer is undecided
        return next((c for c in undecided if isinstance(c, Op)), None), undecided
    ambiguous = differing or consumers
    return next((c for c in ambiguous if isinstance(c, Op)), ops[0] if ops else None), ambiguous


def _contribution_differs(finding: Finding, program: Program, node: str, consumer: Op,
                          upstream: dict) -> bool | None:
    """Whether the two sides differ on `consumer`'s contribution to `node`'s adjoint, computed by the
    consumer alone (see `contribution_program`); None when it cannot be isolated."""
    values = _values_before(finding, program, consumer)
    isolated = None if values is None else contribution_program(consumer, node, values, upstream)
    if isolated is None:
        return None
    expected, actual = _both(finding, isolated)
    if expected.error is not None or expected.calls.get(ADJOINTS, {}).get("kind") != "tensor":
        return None
    return ADJOINTS in _divergent(finding, expected, actual, isolated, "calls")


def _values_before(finding: Finding, program: Program, statement: Op) -> dict[str, dict] | None:
    """The reference's values of the statement's inputs just before it runs (None when an input is an
    element of a list result, or when they cannot be read)."""
    names = list(dict.fromkeys(statement.inputs))
    if any(name != base(name) for name in names):
        return None
    position = next(i for i, s in enumerate(scope(program.statements)) if s is statement)
    before = run(Program(prefix(program.statements, position)[0], names), forward_judge(finding.candidate, finding.reference))
    if before.error is not None or set(before.values) != set(names):
        return None
    return before.values


def contribution_program(consumer: Op, node: str, values: dict[str, dict], upstream: dict) -> Program | None:
    """`consumer` alone on constants holding `values` (descriptions by input name), differentiated with
    respect to its input `node` with `upstream` (its adjoint) as output gradient; None unless every
    description is a tensor."""
    if any(d.get("kind") != "tensor" for d in (*values.values(), upstream)):
        return None
    tape = "_tape"
    constants = [Leaf(name, "constant", decode_array(d), d["dtype"]) for name, d in values.items()]
    return Program([*constants, Leaf(UPSTREAM, "constant", decode_array(upstream), upstream["dtype"]),
                    Tape(tape, body=[Watch(tape, [node]), consumer]),
                    Call(ADJOINTS, tape, "gradient", consumer.name, node, output_gradients=UPSTREAM)])


# -- stage 3: the options of the divergent call --------------------------------------------

def _option_divergence(finding: Finding) -> dict | None:
    """The first option of the divergent call (its tape's, its own) away from its default without which the
    finding's primary difference goes (with the reference raising nowhere new: no agreement by raising; other
    differences may stay, a second fault's); `ignored` when the candidate's outcome does not change with it."""
    call = finding.divergent_call()
    if call is None:  # the sides part at a forward value or the program's error: no call's options to blame
        return None
    primary = finding.primary
    for statement, option, value, default in _options_away_from_default(finding.program, call):
        flipped = Program(substitute(finding.program.statements, statement, [replace(statement, **{option: default})]),
                          finding.program.outputs)
        expected, actual = _both(finding, flipped)
        if _raises_more(expected, finding.expected) or any(
                (d.where, d.kind) == (primary.where, primary.kind) for d in compare(expected, actual, flipped)):
            continue
        ignored = not compare(actual, finding.actual, finding.program)
        owner = "GradientTape" if isinstance(statement, Tape) else f"GradientTape.{call.method}"
        return {"stage": "option", "node": call.name, "call": call.name, "option": option,
                "op": f"{owner}({_option_spelling(option, value)})" + (" ignored" if ignored else ""),
                "ignored": ignored, "expected": finding.expected.calls.get(call.name),
                "actual": finding.actual.calls.get(call.name)}
    return None


def _options_away_from_default(program: Program, call: Any) -> Iterator[tuple[Any, str, Any, Any]]:
    """(statement, option, value, default) for each option that is not its default (persistent=True,
    watch_accessed_variables=False, unconnected_gradients='zero'): of `call`'s tape and `call` first, then of
    the other tapes (an inner tape's recording feeds the gradients an outer one computes)."""
    tapes = [s for s in walk(program.statements) if isinstance(s, Tape)]
    tapes.sort(key=lambda tape: tape.name != call.tape)
    for position, tape in enumerate(tapes):
        if tape.persistent:
            yield tape, "persistent", True, False
        if not tape.watch_accessed_variables:
            yield tape, "watch_accessed_variables", False, True
        if position == 0 and tape.name == call.tape and isinstance(call, Call) and call.unconnected == "zero":
            yield call, "unconnected", "zero", "none"


def _option_spelling(option: str, value: Any) -> str:
    return f"unconnected_gradients={value!r}" if option == "unconnected" else f"{option}={value}"


def _raises_more(flipped: Outcome, original: Outcome) -> bool:
    """Whether the flipped program stops or fails a call the original did not (agreement by raising)."""
    def failures(outcome: Outcome) -> int:
        return bool(outcome.error) + sum(isinstance(d, dict) and d.get("kind") == "exception"
                                         for d in outcome.calls.values())
    return failures(flipped) > failures(original)
