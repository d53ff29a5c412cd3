"""Minimisation: the smallest program that still shows a finding's root cause.

Delta debugging over statements, with the one pipeline (`evaluate`, without the referee) as the test.
A candidate is kept when it still fails with the same signature, apart from the tape options it
simplifies: same kind, same suspect op (its first divergence), same dtype, and the same referee
verdict when the finding has a decided one (an `undecided` finding may shrink into a program the
referee can judge: custom gradients, for one, are beyond it). The steps, tried greedily until none applies or the budget is
spent:
- keep only what the first divergence needs (the ancestors of its node, or of its call);
- remove a statement nothing uses (a watch is no use: a leaf only watched goes, its watches with it); unwrap a tape nothing names (or that is nested: its calls go to
  the enclosing tape), or an accumulator no jvp names, unwrap or drop a stop_recording span, drop a reset or a watch;
- bypass an op, a custom gradient's application, a while loop or a cond (its uses read one of its inputs instead,
  never a Python list or value);
- replace an op by a leaf holding its value computed on the reference side: a constant, or a
  variable that becomes the only source of the calls that depend on it;
- a loop's iterations down to one, then none; a cond replaced by the ops of the branch it takes, or its predicate
  a Python bool; tape options to their defaults (persistent False, watch_accessed_variables True); calls to a plain
  `gradient` without output_gradients or unconnected_gradients; one source, one target; a structure
  less one of its sources, or of its targets (with the output gradient TF pairs with it).
Every program returned has failed the test: when nothing smaller fails, the original comes back.

The budget counts evaluations (programs tested), so a loaded machine reaches the same program later
rather than a larger one sooner. It replaces a 30-second budget: the 20 planted-VJP findings of
tests/harness/test_fuzz.py's campaign (7 to 22 ops) reached a program no candidate shrinks after 36 to 206
evaluations (median 75), at 1.3 to 44 evaluations a second on a loaded 2-core machine, so 30 s
cut the 22-op one short (it needed 88 s); `MAX_EVALUATIONS` is twice the most any needed. The
wall-clock limit is only a safety net. A search the budget, the safety net or
a stop request cut short says so in `minimized["stopped_by"]` ("evaluations", "seconds",
"interrupted"; None when no smaller candidate was left), even when it found nothing smaller.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Any, Callable, Iterator, Literal

from reftape_oracle.interpreter import DEFAULT_TIME_LIMIT, run
from reftape_oracle.outcome import decode_array
from reftape_oracle.program import (BLOCKS, Accumulator, Apply, Assign, Call, Cond, Jvp, Leaf, ListLiteral, Op, Program,
                                    Reset, StopRecording, Structure, Tape, Watch, WatchedVariables, WhileLoop,
                                    flat_references, renamed_value, unrolled, walk)

from reftape_properties.explain.divergence import (DEFINITIONS, ancestors, base, first_divergence, inputs_of, producers, scope, structure_names, substitute)
from reftape_properties.findings.record import Finding
from reftape_oracle.outcome import UNFINISHED, HarnessError
from reftape_properties.pipeline import evaluate, forward_judge, judged

MAX_EVALUATIONS = 400      # programs tested per minimisation (see the module's docstring)
SAFETY_SECONDS = 600.0     # a wall-clock limit that only a stuck machine reaches; it reports itself
TAPE_USES = (Watch, StopRecording, Reset, Call, WatchedVariables)   # statements that name a tape


def minimize(finding: Finding, *, max_evaluations: int = MAX_EVALUATIONS, safety_seconds: float = SAFETY_SECONDS,
             stop: Callable[[], bool] = lambda: False, time_limit: float = DEFAULT_TIME_LIMIT) -> Finding:
    """The finding of the smallest program found within `max_evaluations` tested programs that keeps the
    finding's signature (tape options aside); `finding` itself when nothing smaller does. Computes the
    finding's first divergence (its suspect) first when it has none. `stop` is asked between
    evaluations (a campaign being stopped); `safety_seconds` bounds a stuck search. Either, or the
    budget, ending the search is recorded as its `stopped_by`. Each program tested runs within `time_limit`
    seconds per side (the campaign's: a timeout finding stays one under the limit that made it)."""
    if finding.missing_name is not None:  # what the candidate lacks is the cause, whatever program meets it
        return finding
    start = time.monotonic()
    if finding.first_divergence is None:
        first_divergence(finding)
    search = _Search(finding, max_evaluations, deadline=start + safety_seconds, stop=stop, time_limit=time_limit)
    best = finding
    while (accepted := search.first_failing(_candidates(best, forward_judge(finding.candidate, finding.reference)))) is not None:
        best = accepted
    if best is finding and search.stopped_by is None:
        return finding
    if best is not finding:
        if finding.primary.verdict is not None and best.primary.verdict is None:
            judged(best)  # the smaller program's own verdict, where the search did not need one
        best.reproduce = finding.reproduce
    else:
        best = replace(finding, context=dict(finding.context))
    best.context = {**finding.context, **best.context}
    best.minimized = {"from": finding.id, "ops_before": len(finding.program.ops()), "ops_after": len(best.program.ops()),
                      "evaluations": search.evaluations, "seconds": round(time.monotonic() - start, 2),
                      "stopped_by": search.stopped_by}
    return best


StoppedBy = Literal["evaluations", "seconds", "interrupted"]


class _Search:
    """The test: does a candidate program still fail the same way? (each program is tested once)"""

    def __init__(self, finding: Finding, max_evaluations: int, deadline: float, stop: Callable[[], bool],
                 time_limit: float) -> None:
        self.finding, self.max_evaluations, self.deadline, self.stop = finding, max_evaluations, deadline, stop
        self.time_limit = time_limit
        self.judged = finding.primary.verdict not in (None, "undecided")
        self.wanted = _cause(finding, self.judged)
        self.tested: set[str] = {finding.program.to_json()}
        self.evaluations = 0
        self.stopped_by: StoppedBy | None = None

    def exhausted(self) -> bool:
        if self.stop():
            self.stopped_by = "interrupted"
        elif self.evaluations >= self.max_evaluations:
            self.stopped_by = "evaluations"
        elif time.monotonic() > self.deadline:
            self.stopped_by = "seconds"
        return self.stopped_by is not None

    def first_failing(self, candidates: Iterator[Program]) -> Finding | None:
        for candidate in candidates:
            if candidate.to_json() in self.tested:
                continue
            if self.exhausted():
                return None
            found = self.test(candidate)
            if found is not None:
                return found
        return None

    def test(self, program: Program) -> Finding | None:
        self.tested.add(program.to_json())
        self.evaluations += 1
        limit = min(self.time_limit, max(self.deadline - time.monotonic(), 1.0))
        try:
            # a program that crashed or hung may do it again: a hang in native code ignores this process's alarm
            found = evaluate(program, self.finding.candidate, self.finding.reference, time_limit=limit, judge=False,
                             isolated=self.finding.stopped_by(UNFINISHED))
        except HarnessError:
            return None
        if self.stop():  # a stop signal may have reached the processes of an isolated run
            return None
        if found is None or (found.kind, found.dtype) != (self.finding.kind, self.finding.dtype):
            return None
        first_divergence(found)
        if self.judged:
            judged(found)
        return found if _cause(found, self.judged) == self.wanted else None


def _cause(finding: Finding, judged: bool) -> dict:
    return {k: v for k, v in finding.signature_parts().items() if judged or k != "verdict"}


# -- candidate programs, smallest changes to try first -------------------------------------

def _candidates(finding: Finding, reference: str) -> Iterator[Program]:
    program, divergence = finding.program, finding.first_divergence
    if divergence is not None:
        yield _tidy(_needed_only(program, divergence))
    for step in (_removals, _unwraps, _bypasses, lambda p: _cuts(p, reference), _options):
        for candidate in step(program):
            yield _tidy(candidate)


def _needed_only(program: Program, divergence: dict) -> Program:
    """Only the ancestors of the divergent call (adjoint and option stages) or node (forward stage)."""
    defined = producers(program)
    if divergence.get("call") in defined:  # adjoint and option stages
        needed = set(ancestors(program, inputs_of(defined[divergence["call"]]))) | {divergence["call"]}
        outputs: list = []
    else:
        needed = set(ancestors(program, [divergence["node"]]))
        outputs = [divergence["node"]] if divergence["node"] in needed else []
    for accumulator in scope(program.statements):   # a needed jvp needs its accumulator's primals and tangents
        if isinstance(accumulator, Accumulator) and any(isinstance(s, Jvp) and s.accumulator == accumulator.name
                                                        and s.name in needed for s in scope(program.statements)):
            needed |= set(ancestors(program, inputs_of(accumulator)))

    def keep(s: Any) -> bool:
        if isinstance(s, Assign):
            return s.variable in needed
        return not isinstance(s, DEFINITIONS) or s.name in needed

    return Program(_filter(program.statements, keep), outputs)


def _filter(statements: list, keep: Callable[[Any], bool]) -> list:
    return [replace(s, body=_filter(s.body, keep)) if isinstance(s, BLOCKS) else s
            for s in statements if keep(s)]


def _uses(program: Program, name: str, exclude: Any = None) -> bool:
    """Whether any statement but `exclude` (or the outputs, or a custom gradient's functions) reads
    value `name` or names tape `name`. A watch is no use of a value: a leaf nothing else reads goes
    with its watches (`_tidy`), even where one watch also names a leaf the finding needs."""
    for s in walk(program.statements):
        if s is exclude:
            continue
        if name in inputs_of(s):
            return True
        if isinstance(s, TAPE_USES) and s.tape == name or isinstance(s, Jvp) and s.accumulator == name:
            return True
    return name in map(base, program.outputs)


def _removals(program: Program) -> Iterator[Program]:
    """Drop one statement nothing reads (later statements first: they free earlier ones)."""
    for s in reversed(list(scope(program.statements))):
        if isinstance(s, DEFINITIONS) and _uses(program, s.name, exclude=s):
            continue
        if isinstance(s, (Tape, Accumulator)):
            continue
        if isinstance(s, StopRecording) and any(_uses(program, b.name) for b in scope(s.body)
                                                if isinstance(b, DEFINITIONS)):
            continue
        yield Program(_filter(program.statements, lambda t, s=s: t is not s), program.outputs)


def _unwraps(program: Program) -> Iterator[Program]:
    """A tape, stop_recording span or accumulator no jvp names replaced by its body; a nested tape's uses go to
    the enclosing tape."""
    for s, enclosing in _with_enclosing_tape(program.statements, None):
        if isinstance(s, StopRecording) or isinstance(s, Accumulator) and not _uses(program, s.name):
            yield Program(substitute(program.statements, s, s.body), program.outputs)
        elif isinstance(s, Tape) and not _uses(program, s.name):
            yield Program(substitute(program.statements, s, s.body), program.outputs)
        elif isinstance(s, Tape) and enclosing is not None:
            statements = substitute(program.statements, s, s.body)
            yield Program(_rename_tape(statements, s.name, enclosing.name), program.outputs)


def _with_enclosing_tape(statements: list, enclosing: Tape | None) -> Iterator[tuple]:
    for s in statements:
        yield s, enclosing
        if isinstance(s, BLOCKS):
            yield from _with_enclosing_tape(s.body, s if isinstance(s, Tape) else enclosing)


def _rename_tape(statements: list, old: str, new: str) -> list:
    result = []
    for s in statements:
        if isinstance(s, BLOCKS):
            s = replace(s, body=_rename_tape(s.body, old, new))
        if isinstance(s, TAPE_USES) and s.tape == old:
            s = replace(s, tape=new)
        result.append(s)
    return result


def _bypasses(program: Program) -> Iterator[Program]:
    """An op or a custom gradient's application removed, its uses reading one of its inputs instead (a
    custom gradient nothing applies any more is then removed as unused). Never a Python list or value in
    a tensor's place, nor a list's item in the list's: the shapes would change under the output gradients
    a call pairs with them, and TF's tape crashes (SIGSEGV) on an output gradient of another shape."""
    converted = {s.name for s in scope(program.statements)
                 if isinstance(s, ListLiteral) or isinstance(s, Leaf) and s.converted}
    for op in reversed([s for s in scope(program.statements) if isinstance(s, (Op, Apply, WhileLoop, Cond))]):
        for source in dict.fromkeys(op.inputs):
            if base(source) in converted:
                continue
            statements = _filter(program.statements, lambda s, op=op: s is not op)
            yield Program(renamed_value(statements, op.name, source),
                          [source if name == op.name else name for name in program.outputs])


def _cuts(program: Program, reference: str) -> Iterator[Program]:
    """An op replaced by a constant holding its reference-side value: watched and made the only source
    of the calls whose targets depend on it, or plain."""
    ops = [s for s in scope(program.statements) if isinstance(s, Op)]
    values = run(Program(program.statements, list(dict.fromkeys(op.name for op in ops))), reference).values
    for op in reversed(ops):
        description = values.get(op.name)
        if not description or description.get("kind") != "tensor":
            continue
        leaf = Leaf(op.name, "constant", decode_array(description), description["dtype"])
        dependent = [c for c in scope(program.statements)
                     if isinstance(c, Call) and op.name in ancestors(program, structure_names(c.target))]
        if dependent:
            watches = [Watch(tape, [op.name]) for tape in dict.fromkeys(c.tape for c in dependent)]
            statements = substitute(program.statements, op, [leaf, *watches])
            yield Program(_map_calls(statements, lambda c: replace(c, sources=op.name) if c in dependent else c),
                          program.outputs)
        yield Program(substitute(program.statements, op, [leaf]), program.outputs)


def _map_calls(statements: list, change: Callable[[Call], Call]) -> list:
    result = []
    for s in statements:
        if isinstance(s, BLOCKS):
            s = replace(s, body=_map_calls(s.body, change))
        elif isinstance(s, Call):
            s = change(s)
        result.append(s)
    return result


def _options(program: Program) -> Iterator[Program]:
    """One tape option or call argument back to its default; one source or target of a structure; a loop's
    iterations down to one, then none; a cond replaced by the ops of the branch it takes, or its predicate a
    Python bool."""
    for s in scope(program.statements):
        if isinstance(s, WhileLoop):
            for trips in sorted({min(s.trips, 1), 0} - {s.trips}, reverse=True):
                yield Program(substitute(program.statements, s, [replace(s, trips=trips)]), program.outputs)
        if isinstance(s, Cond):
            yield Program(*unrolled(program.statements, program.outputs, only=s))
            if s.tensor_predicate:
                yield Program(substitute(program.statements, s, [replace(s, tensor_predicate=False)]), program.outputs)
        if isinstance(s, Tape):
            for simpler in (replace(s, persistent=False), replace(s, watch_accessed_variables=True)):
                if simpler != s:
                    yield Program(substitute(program.statements, s, [simpler]), program.outputs)
        elif isinstance(s, Call):
            for simpler in _simpler_calls(s):
                yield Program(substitute(program.statements, s, [simpler]), program.outputs)


def _simpler_calls(call: Call) -> Iterator[Call]:
    if call.method != "gradient":
        yield replace(call, method="gradient", use_pfor=True)
    if call.output_gradients is not None:
        yield replace(call, output_gradients=None)
    if (call.unconnected, call.unconnected_form) != ("none", "default"):
        yield replace(call, unconnected="none", unconnected_form="default")
    if not isinstance(call.sources, str):
        for source in dict.fromkeys(structure_names(call.sources)):
            yield replace(call, sources=source)
        for sources in _without_one(call.sources):
            yield replace(call, sources=sources)
    if not isinstance(call.target, str) and call.output_gradients is None:
        for target in dict.fromkeys(structure_names(call.target)):
            yield replace(call, target=target)
        for target in _without_one(call.target):
            yield replace(call, target=target)
    elif not isinstance(call.target, str):
        yield from _without_one_target(call)


def _without_one(structure: Structure) -> Iterator[Structure]:
    """`structure` less one of its references, at any depth, from a list, tuple or dict (a namedtuple
    keeps its fields: a typename has the same fields wherever the program uses it)."""
    if isinstance(structure, str):
        return
    (kind, items), = structure.items()
    entries = items[1] if kind == "namedtuple" else items
    keyed = kind in ("dict", "namedtuple")
    for i, entry in enumerate(entries):
        child = entry[1] if keyed else entry
        if isinstance(child, str) and kind != "namedtuple":
            smaller = [entries[:i] + entries[i + 1:]]
        else:
            smaller = [entries[:i] + [[entry[0], c] if keyed else c] + entries[i + 1:] for c in _without_one(child)]
        for rest in smaller:
            yield {kind: [items[0], rest]} if kind == "namedtuple" else {kind: rest}


def _without_one_target(call: Call) -> Iterator[Call]:
    """The call less one target and the output gradient TF pairs with it (the same position in TF's
    flattening of each), as flat lists."""
    targets, weights = flat_references(call.target), flat_references(call.output_gradients)
    for position in range(len(targets)):
        yield replace(call, target=_listed(targets, position), output_gradients=_listed(weights, position))


def _listed(names: list[str], position: int) -> Structure:
    """`names` less the one at `position` (when there is one): one name alone, several as a list."""
    rest = names[:position] + names[position + 1:]
    return rest[0] if len(rest) == 1 else {"list": rest}


def _tidy(program: Program) -> Program:
    """Watches of names no longer defined, empty spans, and outputs no longer defined, dropped."""
    defined = producers(program)

    def tidy(statements: list) -> list:
        result = []
        for s in statements:
            if isinstance(s, Watch):
                s = replace(s, names=[n for n in s.names if base(n) in defined])
                if not s.names:
                    continue
            elif isinstance(s, BLOCKS):
                s = replace(s, body=tidy(s.body))
                if isinstance(s, StopRecording) and not s.body:
                    continue
            result.append(s)
        return result

    return Program(tidy(program.statements), [name for name in program.outputs if base(name) in defined])
