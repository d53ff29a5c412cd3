"""Tapes and levels: a program is nested tapes, each recording its ops (now and then in a stop_recording
span, a custom gradient, a variable update) and then its calls, the gradient an inner level computes fed
to the ops of the level around it. `programs` draws a program's skeleton; `build_program` the rest."""

from __future__ import annotations

import random

from typing import Any

import numpy as np
from hypothesis import strategies as st

from reftape_oracle.catalog import BOUNDED, CATALOG, COMPOSITE, DTYPES, FIRST_ORDER, OpSpec
from reftape_oracle.program import (BLOCKS, Apply, Assign, Call, Cond, CustomGradient, Op, Program, ReadValue, Reset,
                                    StopRecording, Tape, Watch, WatchedVariables, WhileLoop)
from reftape_oracle.surface import Surface

from .accumulators import with_accumulator
from .builder import _Builder, _last, _Tensor, _variables
from .calls import _call_options, _gradient_call, _jacobian_call, _jacobians, _pfor, _root_leaf
from .ops import _UNARY_SHAPES, _add_op, _vary_axis
from .values import LARGEST, _check_bound

ENCLOSING_WATCHED_VARIABLES = 0.3  # watched_variables() of an enclosing tape after a level's calls
WHILE_LOOP_SHARE = 1 / 40  # of the ops drawn, followed by a while loop (of one or two bounded elementwise ops)
MAX_LOOP_TRIPS = 3
COND_SHARE = 1 / 40  # of the ops drawn, followed by a cond (its branches of at most two bounded elementwise ops)
HALF_COMPOSITE_SHARE = 0.15  # of the ops drawn in a half-precision program, beyond their uniform share


def _open_tape(b: _Builder, depth: int) -> tuple[Tape, list]:
    """Opens tape `t{depth}` in the current body, watching the leaves it needs told (mostly)."""
    tape = Tape(f"t{depth}", [], persistent=b.chance(0.4), watch_accessed_variables=b.chance(0.8))
    parent = b.body
    b.emit(tape)
    b.body = tape.body
    b.tapes.append(tape)
    watched = [t for t in b.leaves + b.integers
               if (t.kind == "constant" or not tape.watch_accessed_variables) and b.chance(0.85)]
    for t in watched:
        t.watchers.add(tape.name)
    if watched:
        b.emit(Watch(tape.name, [t.name for t in watched]))
    return tape, parent


def _draw_ops(b: _Builder, seed: int, depth: int, count: int) -> None:
    """`count` ops at this depth, each from its own stream (so that fewer ops keep the same prefix);
    one op in fifteen inside a stop_recording span, one in twelve a custom gradient or a variable
    update instead of a catalog op, and a rare reset; now and then (WHILE_LOOP_SHARE and COND_SHARE, each from a
    stream of its own, so programs without one are drawn as they were) a while loop or a cond over the frontier
    follows. Half-precision programs draw a composite op
    (HALF_COMPOSITE_SHARE) more often than its uniform share."""
    overflowing = [p for p in b.ops if CATALOG[p].has(COMPOSITE)] if b.dtype in LARGEST else []
    for index in range(count):
        b.rng = np.random.default_rng((seed, depth, index))
        # half-precision programs draw a composite more often: most of them overflow only there
        spec = CATALOG[b.pick(overflowing if overflowing and b.chance(HALF_COMPOSITE_SHARE) else b.ops)]
        special = b.rng.random()
        if special < 1 / 24 and b.allows("custom_gradient"):
            _custom_gradient(b)
        elif 1 / 24 <= special < 1 / 12:
            _variable_update(b)
        elif b.chance(1 / 15) and b.allows("GradientTape.stop_recording"):
            span: list = []
            b.emit(StopRecording(b.pick(b.tapes).name, span))
            body, b.body = b.body, span
            _add_op(b, spec)
            if b.chance(0.5):  # watched while paused (TF drops the watch when no tape records), used later
                b.frontier.append(b.leaf(b.base, kind="constant"))
            b.body = body
        else:
            _add_op(b, spec)
            if b.frontier and b.frontier[-1].path == spec.path and b.chance(1 / 12):
                # watching an output the tapes already recorded must not cut the path through it
                b.emit(Watch(b.pick(b.tapes).name, [b.frontier[-1].name]))
        if index and b.chance(1 / 40) and b.allows("GradientTape.reset"):
            b.emit(Reset(b.tapes[-1].name))
        for stream, share, feature, draw in ((3000, WHILE_LOOP_SHARE, "while_loop", _while_loop),
                                             (4000, COND_SHARE, "cond", _cond)):
            own = np.random.default_rng((seed, depth, index, stream))   # its own stream: the rest is drawn as before
            if own.random() < share and b.allows(feature):
                b.rng, drawing = own, b.rng
                draw(b)
                b.rng = drawing


def _loopable(spec: OpSpec) -> bool:
    """An op a loop body may apply to its variable over and over: elementwise, any input, bounded output."""
    return (spec.arity == 1 and spec.shape_rule == "unary" and not spec.attrs and spec.domains[0] == "any"
            and spec.output == "same" and spec.gradient == "gradient" and spec.has(BOUNDED))


def _while_loop(b: _Builder) -> bool:
    """`w, = tf.while_loop(...)` over a tensor of the frontier: one or two bounded elementwise ops of the loop
    variable, now and then times a constant read from outside the loop (a closure the tapes may watch), run
    0 to MAX_LOOP_TRIPS times. False (nothing emitted) when no op fits."""
    bodies, chained = _repeatable(b)
    if not bodies or not chained:
        return False
    x = chained[0]
    closure = b.leaf(x.shape, domain="unit", kind="constant") if b.chance(0.5) and "multiply" in CATALOG else None
    param = b.fresh("p")
    body, last = [], param
    for _ in range(1 + int(b.chance(0.4))):
        name = b.fresh("y")
        body.append(Op(name, b.pick(bodies), [last]))
        last = name
    if closure is not None:
        name = b.fresh("y")
        body.append(Op(name, "multiply", [last, closure.name]))
        last = name
    loop = WhileLoop(b.fresh("w"), x.name, param, body, last, int(b.rng.integers(0, MAX_LOOP_TRIPS + 1)))
    b.emit(loop)
    out = b.output(loop.name, x.shape, x.dtype, [x] + ([closure] if closure else []))   # no catalog op's
    b.frontier = [t for t in b.frontier if t is not x] + [out]
    b.tensors.append(out)
    return True


def _repeatable(b: _Builder) -> tuple[list, list]:
    """The ops a loop body or a cond branch applies (`_loopable`), and the tensors, frontier first, it may apply them to."""
    bodies = [p for p in b.ops if _loopable(CATALOG[p])]
    chained = [t for t in b.frontier + b.tensors
               if t.dtype == b.dtype and not t.large and t.kind != "list" and t.size > 0]   # empty ones stay aside
    return bodies, chained


def _cond(b: _Builder) -> bool:
    """`k, = tf.cond(predicate, k_true, k_false)` over a tensor of the frontier: the branch taken applies one or two
    bounded elementwise ops to it (or returns it as it is), the other one such op, or none, to another tensor of its
    shape (a source only it reads has no gradient: eagerly it never runs) or to the same one; the predicate a Python
    bool or a boolean tensor. False (nothing emitted) when no op fits."""
    bodies, chained = _repeatable(b)
    if not bodies or not chained:
        return False
    x = chained[0]
    others = [t for t in b.sorted(set(b.tensors) | set(b.leaves))
              if t is not x and t.shape == x.shape and t.dtype == x.dtype and t.kind != "list" and not t.large]
    other = b.pick(others) if others and b.chance(0.7) else x

    def branch(read: _Tensor, most: int) -> tuple[list, str]:
        body, last = [], read.name
        for _ in range(int(b.rng.integers(0, most + 1))):
            name = b.fresh("y")
            body.append(Op(name, b.pick(bodies), [last]))
            last = name
        return body, last

    predicate = b.chance(0.5)
    taken, untaken = branch(x, 2), branch(other, 1)
    (true_body, true_result), (false_body, false_result) = (taken, untaken) if predicate else (untaken, taken)
    cond = Cond(b.fresh("k"), predicate, true_body, true_result, false_body, false_result, tensor_predicate=b.chance(0.5))
    b.emit(cond)
    out = b.output(cond.name, x.shape, x.dtype, [x])   # no catalog op's; it reads only x, where eager TF runs it
    b.frontier = [t for t in b.frontier if t is not x] + [out]
    b.tensors.append(out)
    return True


def _custom_gradient(b: _Builder) -> None:
    """`@tf.custom_gradient` f(a[, c]) = sin(a) * (c or a captured Variable or a), with a gradient
    that is right (cos) or deliberately not (the upstream alone), now and then None for c (which TF
    then calls unconnected through f), applied to a tensor or a Variable;
    a captured trainable Variable comes with the `variables` keyword, positional or keyword-only."""
    # sin is ill-conditioned: not applied to what amplifying ops may have made large, in the frontier or out of it
    x = b.pick([t for t in b.frontier if t.dtype == b.dtype and not t.large] or [t for t in b.tensors if not t.large]
               or b.tensors)
    name = b.fresh("f")
    local = lambda part: f"{name}_{part}"  # noqa: E731 - names unique across the program
    variables = [v for v in _variables(b) if v.shape == x.shape and v is not x]
    capture = b.pick(variables) if variables and b.chance(0.4) else None
    pair = [t for t in b.tensors if t.shape == x.shape and t is not x and not t.large]
    params = ["a", "c"] if capture is None and pair and b.chance(0.5) else ["a"]
    other = capture.name if capture is not None else local(params[-1])
    upstream = local("upstream")
    forward = [Op(local("s"), "sin", [local("a")]), Op(local("y"), "multiply", [local("s"), other])]
    honest = b.chance(0.7)
    backward = [Op(local("cos"), "cos", [local("a")]), Op(local("da"), "multiply", [upstream, local("cos")]),
                Op(local("ga"), "multiply", [local("da"), other] if honest else [upstream, other]),
                Op(local("gc"), "multiply", [upstream, local("s")])]
    if not b.allows(*(op.path for op in forward + backward)):
        return  # the backend lacks an op the custom gradient computes with
    grads = [local("ga")] + ([local("gc") if b.chance(0.5) else None] if len(params) == 2 else [])  # None: unconnected
    mode = b.pick(("positional", "keyword")) if capture is not None and capture.trainable else "none"
    definition = CustomGradient(name, [local(p) for p in params], forward, local("y"), backward, grads, mode,
                                [local("gc")] if mode != "none" else [], upstream)
    b.emit(definition)
    argument = x
    if b.chance(0.3):  # applied to a Variable argument (read by TF after the call)
        argument = b.pick([v for v in _variables(b) if v.shape == x.shape and v is not capture] or [x])
    inputs = [argument] + ([b.pick(pair)] if len(params) == 2 else [])
    out_name = b.fresh("y")
    b.emit(Apply(out_name, name, [t.name for t in inputs]))
    out = b.output(out_name, x.shape, b.dtype, inputs + ([capture] if capture is not None else []), "multiply")
    b.frontier = [t for t in b.frontier if t not in inputs]
    b.frontier.append(out)
    b.tensors.append(out)


def _variable_update(b: _Builder) -> None:
    """`v.assign|assign_add|assign_sub(value)` inside a tape, before or after `v` is read, and now
    and then `v.read_value()` feeding the chain."""
    variables = _variables(b)
    methods = [m for m in ("assign", "assign_add", "assign_sub") if b.allows(f"Variable.{m}")]
    if not variables or not methods:
        return
    variable = b.pick(variables)
    values = [t for t in b.tensors if t.shape == variable.shape and t is not variable]
    value = b.pick(values) if values and b.chance(0.7) else b.leaf(variable.shape, kind="constant")
    b.emit(Assign(variable.name, value.name, b.pick(methods)))
    if b.chance(0.5) and b.allows("Variable.read_value"):
        name = b.fresh("r")
        b.emit(ReadValue(name, variable.name))
        out = b.output(name, variable.shape, b.dtype, [variable], "identity")
        b.frontier.append(out)
        b.tensors.append(out)


# Ops that read a Variable for `watched_variables()`: one TF runs with the tapes paused, one it records.
VARIABLE_READERS = ("stop_gradient", "identity")


def _watched_variables(b: _Builder, tape: Tape, parent: list, rng: np.random.Generator) -> None:
    """Now and then fresh Variables touched newest first (watched explicitly, or, where the tape watches
    accessed variables, assigned or read by an op), then `tape.watched_variables()` inside its block or
    after it: TF lists the watched ones in creation order, an assign counting as an access, a read for
    stop_gradient not (TF runs it with every tape paused)."""
    b.rng = rng
    if not b.chance(0.07) or not b.allows("GradientTape.watched_variables", "Variable"):
        return
    fresh = [b.leaf(b.base, kind="variable", watched=False) for _ in range(b.pick((2, 3)))]
    readers = [p for p in VARIABLE_READERS if b.dtype in CATALOG[p].dtypes and b.allows(p)]
    assigns = b.allows("Variable.assign")
    for variable in reversed(fresh):
        touch = b.rng.random() if tape.watch_accessed_variables else 1.0
        if touch < 0.3 and assigns:
            b.emit(Assign(variable.name, b.leaf(b.base, kind="constant", watched=False).name))
        elif 0.3 <= touch < 0.6 and readers:
            b.emit(Op(b.fresh("y"), b.pick(readers), [variable.name]))
        else:
            b.emit(Watch(tape.name, [variable.name]))
    (b.body if b.chance(0.5) else parent).append(WatchedVariables(b.fresh("w"), tape.name))


EMPTY_SHAPES = ((0,), (2, 0), (0, 3), (3, 0, 2))
EMPTY_OP_CHANCE = 0.3  # a tape level also records an op on an empty tensor, outside any jacobian
# Attributes an op on an empty tensor may take as drawn (no indices, sizes or paddings into the empty axis)
EMPTY_SAFE_ATTRIBUTES = frozenset({"alpha", "approximate", "axis", "keepdims", "exclusive", "reverse", "perm",
                                   "conjugate"})


def _takes_empty(spec: OpSpec) -> bool:
    """A differentiable op of one input whose attributes can be drawn for a tensor with an empty axis:
    elementwise ops, reductions (to an empty or a full result: max's -inf, prod's 1, mean's NaN),
    softmax, scans, transpose, reverse."""
    return (spec.shape_rule == "unary" and spec.output == "same" and spec.gradient == "gradient"
            and spec.call is None and set(spec.attrs) <= EMPTY_SAFE_ATTRIBUTES and _last(spec) != "unstack")


def _empty_jacobian(b: _Builder, tape: str) -> list:
    """An op on a tensor with an empty dimension, recorded, and its jacobian or batch_jacobian with
    respect to a Variable or a watched constant, on either loop."""
    methods = [m for m in ("jacobian", "batch_jacobian") if b.allows(f"GradientTape.{m}")]
    recorded = _op_on_empty(b, tape) if methods else None
    if recorded is None:
        return []
    leaf, name = recorded
    method = "batch_jacobian" if len(leaf.shape) >= 2 and b.chance(0.5) or methods == ["batch_jacobian"] else "jacobian"
    if method not in methods or method == "batch_jacobian" and len(leaf.shape) < 2:
        return []
    unconnected, form = _call_options(b, method)
    return [Call(b.fresh("g"), tape, method, name, leaf.name, None, unconnected, form, use_pfor=_pfor(b, method))]


def _op_on_empty(b: _Builder, tape: str) -> tuple[_Tensor, str] | None:
    """An op of one input on a fresh leaf with an empty dimension (watched by `tape`); the leaf and the
    op's output name. Neither feeds another op (an empty tensor broadcasts with little, and indexes
    nothing): the leaf leaves the pools ops draw from."""
    fitting = [p for p in b.ops if _takes_empty(CATALOG[p])]
    if not fitting:
        return None
    shape = b.pick(EMPTY_SHAPES)
    leaf = b.leaf(shape, kind=b.pick(("constant", "variable")))
    name = b.fresh("y")
    b.emit(Watch(tape, [leaf.name]))
    leaf.watchers.add(tape)
    spec = CATALOG[b.pick(fitting)]
    attrs = {attribute: b.pick(choices) for attribute, choices in spec.attrs.items()}
    if isinstance(attrs.get("axis"), int) and not -len(shape) <= attrs["axis"] < len(shape):
        attrs["axis"] = 0
    _vary_axis(b, spec, leaf, attrs)
    if _last(spec) in ("transpose", "reverse"):
        _UNARY_SHAPES[_last(spec)](b, shape, attrs)
    b.emit(Op(name, spec.path, [leaf.name], attrs))
    b.leaves.remove(leaf)
    b.tensors.remove(leaf)
    return leaf, name


def _foreign_leaves(b: _Builder) -> list[_Tensor]:
    """The leaves of another dtype than the program's: integers, and a float of another precision."""
    return b.integers + [t for t in b.leaves if t.dtype != b.dtype]


def _consume_foreign(b: _Builder) -> None:
    """A leaf of another dtype consumed by a cast to the program dtype: a new root of the chain, whose
    gradients (and jacobians, and zeros for it when unconnected) change dtype on the way back."""
    foreign = b.pick(_foreign_leaves(b))
    name = b.fresh("y")
    dtype = b.dtype if b.dtype in CATALOG["cast"].attrs["dtype"] else "float32"  # the catalog's cast dtypes
    b.emit(Op(name, "cast", [foreign.name], {"dtype": dtype}))
    out = b.output(name, foreign.shape, dtype, [foreign])
    b.frontier.append(out)  # another dtype than the program's: a target only
    if dtype == b.dtype:
        b.tensors.append(out)


def _feed_onward(b: _Builder, call: Call, targets: list[_Tensor], sources: list[_Tensor],
                 upstream: list[_Tensor]) -> _Tensor:
    """The result of gradient `call` as the only unconsumed tensor, for the next ops to consume. It
    depends on the call's output gradients `upstream` too: a tape watching them may differentiate
    the gradient with respect to its upstream (the VJP of each VJP in its first argument)."""
    sources[0].fed_source = True
    reached = [r for t in targets + upstream for r in t.reaches | {t}]  # a gradient is large where any factor is
    g = b.output(call.name, sources[0].shape, b.dtype, targets + sources + upstream, depth=1,
                 large=any(r.large for r in reached))
    g.gradient = True
    b.frontier = [g]
    b.tensors.append(g)
    return g


def _continue_on_tape(b: _Builder, tape: Tape, parent: list, call: Call, targets: list[_Tensor],
                      sources: list[_Tensor], upstream: list[_Tensor]) -> None:
    """Persistent `tape` records the gradient `call` computed inside its block (as TF does): one more
    op consumes that gradient on the same tape, and a later call differentiates through both, inside
    the block or after it: a second order through every op the first call ran. Now and then, first,
    the gradient itself by its output gradients `upstream` (a forward-mode product J·v by double VJP:
    each VJP of the first call differentiated in its upstream argument, no op in between)."""
    g = _feed_onward(b, call, targets, sources, upstream)
    if upstream and b.chance(0.7):
        b.emit(_gradient_call(b, tape.name, [g], True, b.pick(upstream))[0])
    b.tapes.append(tape)
    _add_op(b, CATALOG[b.pick(b.ops)])
    b.tapes.pop()
    if b.chance(0.5):
        b.body = parent
    onward = list(b.frontier)
    if b.chance(0.5):  # with respect to the first call's source again: its second derivative
        b.emit(_gradient_call(b, tape.name, onward, True, sources[0])[0])
    else:
        b.emit(_gradient_call(b, tape.name, onward, False)[0] if b.chance(0.5) or not _jacobians(b)
               else _jacobian_call(b, tape.name, onward))


def _level(b: _Builder, seed: int, depth: int, counts: list[int]) -> None:
    """Tape `t{depth}` with what it records: the ops of deeper levels (whose gradient, computed
    under this tape, this level's ops consume), then this level's ops, then its calls."""
    tape, parent = _open_tape(b, depth)
    if depth + 1 < len(counts):
        _level(b, seed, depth + 1, counts)
    else:
        b.rng = np.random.default_rng((seed, depth, 1001))
        if _foreign_leaves(b) and "cast" in b.ops and b.chance(0.7):
            _consume_foreign(b)
    _draw_ops(b, seed, depth, counts[depth])
    _watched_variables(b, tape, parent, np.random.default_rng((seed, depth, 1003)))
    b.rng = np.random.default_rng((seed, depth, 1002))
    empty = _empty_jacobian(b, tape.name) if depth == 0 and tape.persistent and b.chance(0.5) else []
    if b.chance(EMPTY_OP_CHANCE):
        _op_on_empty(b, tape.name)  # set aside: its forward value is reported, no call differentiates it
    fed = depth > 0 and counts[depth - 1] > 0  # the enclosing level's ops consume this gradient
    inside = b.chance(0.35)  # the calls go inside the `with` block, else after it
    # A jacobian inside the block of a non-persistent tape raises (as in TF): only now and then.
    jacobian_fails = inside and not tape.persistent
    gradient = fed or b.chance(0.6) or jacobian_fails and not b.chance(0.1) or not _jacobians(b)
    continued = gradient and not fed and tape.persistent and b.chance(0.6)  # fed onward on this same tape
    inside = inside or continued
    b.higher_order = depth < len(counts) - 1 or continued  # an inner tape's gradient computation is recorded
    if not inside:
        b.body = parent
    targets = list(b.frontier) or [b.pick(b.tensors)]  # a leaf left unconsumed is a target too
    if continued:  # with respect to the chain's root, so that the second order runs through all of it; drawn
        # with the tape still open, which so watches the output gradients (the later call may take them as sources)
        call, sources, upstream = _gradient_call(b, tape.name, targets, True, _root_leaf(b, targets))
    b.tapes.pop()
    if gradient and not continued:
        call, sources, upstream = _gradient_call(b, tape.name, targets, fed)
    elif not gradient:
        call = _jacobian_call(b, tape.name, [t for t in targets if t.dtype == b.dtype] or targets)
    b.emit(call)
    if fed:
        _feed_onward(b, call, targets, sources, upstream)
    if continued:
        _continue_on_tape(b, tape, parent, call, targets, sources, upstream)
    for _ in range(int(b.rng.integers(0, 3)) if tape.persistent else int(b.chance(0.1))):
        b.emit(_gradient_call(b, tape.name, targets, False)[0]
               if b.chance(0.5) or not _jacobians(b) else _jacobian_call(b, tape.name, targets))
    for call in empty:
        b.emit(call)
    if b.tapes and b.chance(ENCLOSING_WATCHED_VARIABLES) and b.allows("GradientTape.watched_variables"):
        # what the calls read (jacobians' Variable sources, ZERO's zeros_like), as a tape around them saw it
        b.emit(WatchedVariables(b.fresh("w"), b.pick(b.tapes).name))
    b.body = parent


def _orders(max_depth: int) -> st.SearchStrategy:
    """First order in about two programs of three, then second order, then third (within max_depth)."""
    return st.integers(0, 5).map(lambda k: min(max_depth, 1 if k < 3 else 2 if k < 5 else 3))


SWARM_STEPS = 64              # resolution of a swarm's log-uniform size
SWARM_SIZES = (3, 6, 12)      # the most ops a swarm's program has (up to the strategy's max_ops)


def _swarms(candidates: list, dtypes: tuple) -> st.SearchStrategy:
    """Swarm testing (Groce et al., ISSTA 2012): a random part of the ops, of a size log-uniform between one
    and all, so that an op meets itself, its attributes and few others in small programs, instead of being
    diluted among all. Shrinks toward one op."""
    usable = [p for p in candidates if any(d in CATALOG[p].dtypes for d in dtypes)]

    def part(step: int, seed: int) -> tuple:
        size = max(1, round(len(usable) ** (step / SWARM_STEPS)))
        chosen = set(random.Random(seed).sample(usable, size))
        return tuple(p for p in usable if p in chosen)

    return st.builds(part, st.integers(0, SWARM_STEPS), st.integers(0, 2**32 - 1))


@st.composite
def programs(draw: Any, *, ops: tuple | None = None, dtypes: tuple = DTYPES, max_ops: int = 12,
             max_depth: int = 3, lacking: frozenset = frozenset(), swarm: bool = False,
             accumulators: float = 0.0) -> Program:
    """Programs over catalog ops `ops` (default: all) in one of `dtypes`, with between max_ops/2 and
    `max_ops` ops in all and up to `max_depth` nested tapes (differentiation up to that order), using
    none of the names `lacking` (what a backend lacks, as oracle/surface.py spells them). With `swarm`,
    each program draws from a random part of the ops (`_swarms`) and has at most 3, 6 or 12 ops (what a
    campaign draws first to find bugs early). A share `accumulators` of the programs run inside a forward
    accumulator with jvp calls (`accumulators.py`). Shrinks toward float32, fewer ops, first order, seed 0
    and no accumulator."""
    _check_bound("max_ops", max_ops, 1, 40)
    _check_bound("max_depth", max_depth, 1, 3)
    if not 0.0 <= accumulators <= 1.0:
        raise ValueError(f"accumulators={accumulators!r} must be a share between 0 and 1")
    if accumulators and "autodiff.ForwardAccumulator" in lacking:
        raise ValueError("accumulators need tf.autodiff.ForwardAccumulator, which the backend lacks")
    unknown = [p for p in (ops or ()) if p not in CATALOG]
    if unknown:
        raise ValueError(f"ops={unknown!r} are not in the catalog")
    bad = [d for d in dtypes if d not in DTYPES]
    if not dtypes or bad:
        raise ValueError(f"dtypes={dtypes!r} must be a non-empty subset of {DTYPES}")
    candidates = Surface(frozenset(lacking)).ops(ops or CATALOG)
    if swarm and candidates:
        candidates = draw(_swarms(list(candidates), dtypes))
        max_ops = draw(st.sampled_from([size for size in SWARM_SIZES if size < max_ops] + [max_ops]))
    supported = [d for d in sorted(dtypes, key=DTYPES.index) if any(d in CATALOG[p].dtypes for p in candidates)]
    if not supported:
        raise ValueError(f"none of ops={ops!r} supports any of dtypes={dtypes!r}, or the backend lacks them all")
    dtype = draw(st.sampled_from(supported))
    count = draw(st.integers(max(1, max_ops // 2), max_ops))
    order = draw(_orders(max_depth))
    seed = draw(st.integers(0, 2**32 - 1))
    accumulated = accumulators == 1.0 or bool(accumulators) and draw(st.floats(0, 1)) > 1 - accumulators
    return build_program(seed, dtype, tuple(p for p in candidates if dtype in CATALOG[p].dtypes), count, order,
                         max_depth, frozenset(lacking), accumulated)


def build_program(seed: int, dtype: str, ops: tuple, count: int, order: int, max_depth: int = 3,
                  lacking: frozenset = frozenset(), accumulated: bool = False) -> Program:
    """The program of `count` ops over `ops` in `dtype`, differentiated to `order`, that `seed` names,
    using none of the names `lacking`; `accumulated`: inside a forward accumulator with jvp calls."""
    rng = np.random.default_rng((seed, 1000))
    if order > 1:  # a second derivative through an op of FIRST_ORDER is TF's LookupError: every later call fails
        ops = tuple(p for p in ops if not CATALOG[p].has(FIRST_ORDER)) or ops
    rank = int(rng.choice((1, 2, 3), p=(0.35, 0.45, 0.2)))
    base = tuple(1 if rng.random() < 0.2 else int(rng.integers(2, 4)) for _ in range(rank))
    b = _Builder(rng, dtype, ops, base, lacking=lacking)
    b.body = b.statements
    for _ in range(int(rng.integers(1, 3))):
        b.leaf(base)
    if rng.random() < 0.3:
        b.leaf(base, dtype="int32", kind="constant")
    if rng.random() < 0.25 and not dtype.startswith("complex"):  # a float leaf of another precision
        b.leaf(base, dtype="float64" if dtype != "float64" else "float32")
    b.frontier = list(b.tensors)
    shadow = order == 1 and max_depth > 1 and rng.random() < 0.25  # nested first-order tapes
    outer = [int(rng.integers(1, 3)) for _ in range(order - 1)]
    counts = outer + [max(1, count - sum(outer))]
    if shadow:
        counts = [0] + counts
    _level(b, seed, 0, counts)
    outputs = [s.name for s in _walk_ops(b.statements)]
    statements = with_accumulator(b.statements, np.random.default_rng((seed, 2000))) if accumulated else b.statements
    return Program(statements, outputs)


def _walk_ops(statements: list):
    """The ops, custom gradient applications, variable reads and loops whose values the outcome reports."""
    for s in statements:
        if isinstance(s, (Op, Apply, ReadValue, WhileLoop)):
            yield s
        elif isinstance(s, BLOCKS):
            yield from _walk_ops(s.body)
