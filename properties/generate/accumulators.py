"""Forward accumulators around a drawn program: the program's leaves first (wherever they were made:
making a tensor or a Variable is recorded by no tape and watched by none), then a
`tf.autodiff.ForwardAccumulator` whose block holds everything else (tapes, their gradient calls and the
ops fed by them, so tangents also flow through backward passes: forward-over-reverse), and `jvp` calls
of the ops' outputs, inside the block or after it."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from reftape_oracle.catalog import CATALOG
from reftape_oracle.program import BLOCKS, Accumulator, Jvp, Leaf, Op, scope, walk

from .values import _array

SECOND_PRIMAL = 0.3          # an accumulator with two primals instead of one
JVP_INSIDE = 0.4             # a jvp call inside the accumulator's block (else after it)
UNCONNECTED_ZERO = 0.3       # a jvp with unconnected_gradients=ZERO
SECOND_JVP = 0.4             # a second jvp call, of other targets


def _floating(dtype: str) -> bool:
    return dtype.startswith(("float", "bfloat", "complex"))


def _depends_on(statements: list, primals: set[str]) -> set[str]:
    """The ops computed (transitively) from the primals, in the program's ops only (calls cut the chain)."""
    reached = set(primals)
    for s in scope(statements):
        if isinstance(s, Op) and any(name.split("[", 1)[0] in reached for name in s.inputs):
            reached.add(s.name)
    return reached - primals


def _names(statements: list) -> set[str]:
    return {getattr(s, "name", None) for s in walk(statements)}


def _without_leaves(statements: list) -> list:
    return [replace(s, body=_without_leaves(s.body)) if isinstance(s, BLOCKS) else s
            for s in statements if not isinstance(s, Leaf)]


def with_accumulator(statements: list, rng: np.random.Generator) -> list:
    """`statements` (a drawn program's) with their leaves first, then an accumulator around the rest whose
    primals are one or two of the leaves ops read (floating tensors and Variables), and jvp calls of op
    outputs that depend on them; the statements unchanged when no leaf can be a primal."""
    leaves = [s for s in scope(statements) if isinstance(s, Leaf)]
    rest = _without_leaves(statements)
    read = {name.split("[", 1)[0] for s in scope(rest) if isinstance(s, Op) for name in s.inputs}
    candidates = [leaf for leaf in leaves
                  if leaf.kind in ("constant", "variable") and _floating(leaf.dtype) and leaf.name in read]
    if not candidates or not rest:
        return statements
    chosen = rng.permutation(len(candidates))[:1 + int(rng.random() < SECOND_PRIMAL)]
    primals = [candidates[int(i)] for i in sorted(chosen)]
    taken = _names(statements)
    tangents = []
    for primal in primals:
        name = _fresh("dt", taken)
        value = _array(rng, primal.dtype, np.shape(primal.value))
        tangents.append(Leaf(name, "constant", value, primal.dtype))
    reached = _depends_on(rest, {p.name for p in primals})
    ops = [s for s in scope(rest) if isinstance(s, Op) and s.name in reached
           and CATALOG[s.path].output not in ("bool", "int32", "int64")]
    accumulator = Accumulator(_fresh("a", taken), [p.name for p in primals], [t.name for t in tangents], list(rest))
    if not ops:
        return leaves + tangents + [accumulator]
    after: list = []
    for _ in range(1 + int(rng.random() < SECOND_JVP)):
        chosen = rng.permutation(len(ops))[:1 + int(rng.random() < 0.4)]
        targets = [ops[int(i)].name for i in sorted(chosen)]
        jvp = Jvp(_fresh("j", taken), accumulator.name, targets[0] if len(targets) == 1 else {"list": targets},
                  "zero" if rng.random() < UNCONNECTED_ZERO else "none")
        (accumulator.body if rng.random() < JVP_INSIDE else after).append(jvp)
    return leaves + tangents + [accumulator] + after


def _fresh(prefix: str, taken: set) -> str:
    index = 0
    while f"{prefix}{index}" in taken:
        index += 1
    taken.add(f"{prefix}{index}")
    return f"{prefix}{index}"
