"""Gradient and jacobian calls: their targets and sources (tensors that reach the targets, a leaf at a special
point, now and then an unconnected one), the structures they come in, and their output gradients."""

from __future__ import annotations

from typing import Any

import numpy as np

from reftape_oracle.catalog import CATALOG
from reftape_oracle.program import Call, Structure, flat_references, pack_references

from .builder import CONVERTED, _Builder, _Tensor, _variables
from .values import _array

# Orders matter: Hypothesis shrinks sampled_from toward the first element (DTYPES too).
UNCONNECTED = (("none", "default"), ("none", "string"), ("zero", "string"), ("none", "enum"), ("zero", "enum"))
METHODS = ("gradient", "jacobian", "batch_jacobian")
STRUCTURES = ("single", "list", "tuple", "dict", "nested", "namedtuple")
DICT_KEYS = ("w", "b", "a", "z", "m", "c", "x", "e", "q", "d", "y", "h")  # more than most calls have sources or targets


def _structure(b: _Builder, names: list[str], kind: str) -> Any:
    if kind == "single" or len(names) == 1 and kind not in ("list", "namedtuple"):
        return names[0]
    if kind == "list":
        return {"list": names}
    if kind == "tuple":
        return {"tuple": names}
    keys = [str(k) for k in b.rng.permutation(DICT_KEYS)]  # inserted in unsorted order (mostly)
    keys += [f"k{i}" for i in range(len(names) - len(keys))]  # a call with more targets than DICT_KEYS
    if kind == "dict":
        return {"dict": [[keys[i], n] for i, n in enumerate(names)]}
    if kind == "namedtuple":  # a class of its own per call, fields in unsorted order
        return {"namedtuple": [b.fresh("Pair"), [[keys[i], n] for i, n in enumerate(names)]]}
    if b.chance(0.5):  # a dict holding a list of tuples
        return {"dict": [[keys[0], names[0]], [keys[1], {"list": [{"tuple": [n]} for n in names[1:]]}]]}
    return {"list": [names[0], {"tuple": [{"dict": [[keys[i], n]]} for i, n in enumerate(names[1:])]}]}


def _offerable(b: _Builder, t: _Tensor) -> bool:
    """Whether `t` may be a source of the next call, on whichever path the call draws it: a tensor (not
    a Python or NumPy value, nor a list), and not softmax cross entropy's labels where the tape may
    have recorded a gradient computation (KNOWN_DIVERGENCES 1)."""
    return t.kind not in CONVERTED and not (b.higher_order and t.first_order_only)


def _reaching(b: _Builder, targets: list[_Tensor]) -> list[_Tensor]:
    """The float tensors the targets depend on, in creation order (those fit to be sources of the next call)."""
    return b.sorted(t for t in frozenset().union(*[t.reaches for t in targets])
                    if not t.dtype.startswith("int") and _offerable(b, t))


MAX_COVERING_SOURCES = 6
JACOBIAN_UNCONNECTED = 0.4  # how often a jacobian takes a source its target does not reach (gradients: 0.15)


def _sources(b: _Builder, targets: list[_Tensor], count: int, unconnected: float = 0.15) -> list[_Tensor]:
    """`count` sources that reach the targets (leaves first), or in half the calls every leaf that
    reaches them, up to six (so that every op on the way runs its VJP), in random order; with
    probability `unconnected` one more source that does not reach them."""
    reaching = _reaching(b, targets)
    leaves = [t for t in reaching if t.leaf]
    chosen: list[_Tensor] = []
    adjacent = [t for t in b.pick(targets).inputs if not t.dtype.startswith(("int", "bool")) and _offerable(b, t)]
    if adjacent and b.chance(0.25):  # the inputs of a target's op: its VJP's value and dtype, undiluted
        chosen = list(dict.fromkeys(adjacent))[:count]
    elif len(leaves) > count and b.chance(0.5):
        chosen = [leaves[i] for i in b.rng.permutation(len(leaves))[:MAX_COVERING_SOURCES]]
    for _ in range(count - len(chosen)):
        pool = [t for t in (leaves if leaves and b.chance(0.6) else reaching) if t not in chosen]
        if pool:
            chosen.append(b.pick(pool))
    for marked in ([t for t in leaves if t.special], [t for t in leaves if t.upstream],
                   [t for t in reaching if t.fed_source]):
        # a leaf at an op's special point (that op's VJP there reaches a result), a gradient's output
        # gradient (the VJPs that computed it are differentiated in their upstream argument), the
        # source of a gradient fed onward (its second derivative: each VJP differentiated in its input)
        marked = [t for t in marked if t not in chosen]
        if marked and b.chance(0.5):
            chosen.append(b.pick(marked))
    unrecorded = [t for t in reaching if t.path and CATALOG[t.path].gradient != "gradient" and t not in chosen]
    if unrecorded and b.chance(0.4):  # an op TF records with no gradient, or does not record (stop_gradient)
        chosen.append(b.pick(unrecorded))
    if b.chance(unconnected) or not chosen:
        apart = [t for t in b.leaves + b.integers if t not in reaching and t not in chosen and _offerable(b, t)]
        chosen.append(b.pick(apart) if apart and b.chance(0.7) else b.leaf(b.base, kind="constant"))
    return chosen


def _fed_source(b: _Builder, targets: list[_Tensor]) -> _Tensor:
    """The one source of a gradient fed onward: of the program dtype, reaching the targets (a leaf
    mostly, so that the outer tape differentiates the same leaf again: often the chain's root, or a
    leaf at an op's special point)."""
    reaching = [t for t in _reaching(b, targets) if t.dtype == b.dtype]
    leaves = [t for t in reaching if t.leaf]
    if leaves and b.chance(0.35):  # the chain's root: the second order runs through the most VJPs
        return _root_leaf(b, targets)
    planted = [t for t in leaves if t.special]
    if planted and b.chance(0.4):  # a leaf at an op's special point: that op's VJP is differentiated there
        return b.pick(planted)
    if leaves and b.chance(0.5):
        return b.pick(leaves)
    return b.pick(reaching) if reaching and b.chance(0.95) else b.pick([t for t in b.tensors if _offerable(b, t)])


def _root_leaf(b: _Builder, targets: list[_Tensor]) -> _Tensor | None:
    """The leaf of the program dtype that the most tensors on the way to the targets depend on: a
    gradient with respect to it runs the VJPs of the whole chain."""
    on_the_way = [t for t in _reaching(b, targets) if not t.leaf] + list(targets)
    leaves = [t for t in _reaching(b, targets) if t.leaf and t.dtype == b.dtype]
    if not leaves:
        return None
    return max(leaves, key=lambda leaf: (sum(leaf in t.reaches for t in on_the_way), -leaf.serial))


def _target_structure(b: _Builder, targets: list[_Tensor]) -> tuple[Structure, list[_Tensor]]:
    """The targets as one name, or as a structure of any kind (dicts and namedtuples in unsorted key
    order, nested), with the targets in the order TF flattens that structure (and pairs them with
    output_gradients): sometimes a target listed twice, which TF seeds twice."""
    if len(targets) > 1 and b.chance(0.08):
        targets = targets + [b.pick(targets)]
    if len(targets) == 1 and not b.chance(0.15):
        return targets[0].name, targets
    structure = _structure(b, [t.name for t in targets], b.pick(STRUCTURES[1:]))
    by_name = {t.name: t for t in targets}
    return structure, [by_name[name] for name in flat_references(structure)]


def _weights_structure(b: _Builder, target: Structure, names: list[str]) -> Structure:
    """Output gradients `names` (in TF's flattening order of `target`) as TF pairs them with `target`:
    in its structure (dict entries now and then inserted in another order: TF pairs them by key), or
    as a flat list."""
    if isinstance(target, str):
        return names[0]
    style = b.rng.random()
    if style < 0.35:
        return {"list": names}
    weights = pack_references(target, names)
    return _reordered(b, weights) if style < 0.55 else weights


def _reordered(b: _Builder, structure: Structure) -> Structure:
    """`structure` with each dict's entries inserted in a random order (the same keys and values)."""
    if isinstance(structure, str):
        return structure
    (kind, items), = structure.items()
    if kind == "dict":
        return {kind: [[key, _reordered(b, child)] for key, child in (items[i] for i in b.rng.permutation(len(items)))]}
    if kind == "namedtuple":
        return {kind: [items[0], [[key, _reordered(b, child)] for key, child in items[1]]]}
    return {kind: [_reordered(b, child) for child in items]}


def _output_gradients(b: _Builder, target: Structure, targets: list[_Tensor]) -> tuple[Structure, list[_Tensor]]:
    """Upstream gradients for `targets` (flattened as TF flattens `target`): random values, zeros,
    negatives, ones, or values with some elements zero (a zero upstream where the op sits at a
    special point), one leaf each (watched by the open tapes, mostly), in a structure TF pairs with
    `target`'s; and those leaves."""
    leaves = []
    for t in targets:
        value = _array(b.rng, t.dtype, t.shape)
        style = b.rng.random()
        if style < 0.15:
            value = np.zeros_like(value)
        elif style < 0.3:
            value = -np.abs(value).astype(value.dtype)
        elif style < 0.4:
            value = np.ones_like(value)
        elif style < 0.65 and value.size >= 2:
            value[b.rng.random(value.shape) < 0.4] = 0
        if t.path and b.chance(0.5):  # zero where the target's op sits at one of its special points
            for leaf in (i for i in t.inputs if i.value is not None and i.shape == t.shape):
                special = np.isin(leaf.value, CATALOG[t.path].specials_for(t.inputs.index(leaf)))
                value = np.where(special, 0, value).astype(value.dtype)
        leaves.append(b.leaf(t.shape, dtype=t.dtype, kind="constant", value=value))
        leaves[-1].upstream = True
    return _weights_structure(b, target, [t.name for t in leaves]), leaves


def _call_options(b: _Builder, method: str, fed: bool = False) -> tuple[str, str]:
    """`unconnected_gradients` and how it is spelled, for a call of `method` (omitted where the backend
    lacks the keyword)."""
    if not b.allows(f"GradientTape.{method}(unconnected_gradients=)"):
        return UNCONNECTED[0]
    if fed:  # a gradient fed onward must be a tensor
        return b.pick((("zero", "string"), ("zero", "enum")))
    return b.pick(UNCONNECTED)


def _pfor(b: _Builder, method: str) -> bool:
    """Whether a jacobian call runs TF's vectorized loop (the default), else `experimental_use_pfor=False`."""
    return b.chance(0.5) or not b.allows(f"GradientTape.{method}(experimental_use_pfor=)")


def _jacobians(b: _Builder) -> bool:
    """Whether the backend has a jacobian method (`_jacobian_call` draws among those it has)."""
    return b.allows("GradientTape.jacobian") or b.allows("GradientTape.batch_jacobian")


def _gradient_call(b: _Builder, tape: str, targets: list[_Tensor], fed: bool,
                   source: _Tensor | None = None) -> tuple[Call, list[_Tensor], list[_Tensor]]:
    """A gradient call, its sources and its output gradients' leaves; now and then a target the tape
    does not hold, also a source."""
    name = b.fresh("g")
    unconnected, form = _call_options(b, "gradient", fed)
    if fed:
        sources = [source or _fed_source(b, targets)]
        structure = sources[0].name
    else:
        sources = _sources(b, targets, b.pick((1, 1, 2, 3)))
        if b.chance(0.12):  # a target that is also a source
            sources.append(b.pick([t for t in targets if t not in sources and _offerable(b, t)]
                                  or [t for t in targets if _offerable(b, t)] or targets))
        if b.chance(0.05):  # a source listed twice: TF gives its gradient at both places
            sources.append(b.pick(sources))
        if b.booleans and b.chance(0.05):  # a comparison's output: recorded, without a gradient
            sources.append(_Tensor(b.pick(b.booleans), (), "bool", 0))
        if _variables(b) and b.chance(0.12):  # a Variable among the targets
            targets = targets + [b.pick(_variables(b))]
        unheld = [t for t in _reaching(b, targets) if t.kind == "constant" and tape not in t.watchers]
        if unheld and b.chance(0.5) or b.chance(0.05):
            # A target the tape does not hold (an unwatched constant), also a source: TF gives None
            # where a recorded op consumes it, its seed where none does.
            held_not = b.pick(unheld) if unheld else b.leaf(b.base, kind="constant", watched=False)
            targets, sources = targets + [held_not], sources + [held_not]
        structure = _structure(b, [s.name for s in sources], b.pick(STRUCTURES))
    target, flat = _target_structure(b, targets)
    # a gradient fed onward mostly has output gradients: a later call may differentiate it by them
    weights, upstream = (_output_gradients(b, target, flat)
                         if b.chance(0.85 if fed else 0.6) and b.allows("GradientTape.gradient(output_gradients=)")
                         else (None, []))
    return Call(name, tape, "gradient", target, structure, weights, unconnected, form), sources, upstream


def _jacobian_call(b: _Builder, tape: str, targets: list[_Tensor]) -> Call:
    """jacobian of one target, or batch_jacobian where a target and a source share a leading side (of those
    the backend has; a gradient call where it has neither fits)."""
    batch_only = not b.allows("GradientTape.jacobian")
    method = "batch_jacobian" if batch_only else "jacobian"
    unconnected, form = _call_options(b, method)
    name, use_pfor = b.fresh("g"), _pfor(b, method)
    if (b.chance(0.4) or batch_only) and b.allows("GradientTape.batch_jacobian"):
        for target in [t for t in targets if len(t.shape) >= 2]:
            batch = [s for s in _reaching(b, [target]) if len(s.shape) >= 2 and s.shape[0] == target.shape[0]]
            if batch:
                source = b.pick(batch)
                return Call(name, tape, "batch_jacobian", target.name, source.name, None, unconnected, form,
                            use_pfor=use_pfor)
    if batch_only:
        return _gradient_call(b, tape, targets, False)[0]
    target = b.pick(targets)
    offered = [v for v in _variables(b) if _offerable(b, v)]
    if offered and b.chance(0.08):  # a Variable as the target, usually also a source
        target = b.pick(offered)
    # an unconnected source often: TF's vectorized loop still checks the ops behind the connected ones
    sources = _sources(b, [target], b.pick((1, 1, 2)), JACOBIAN_UNCONNECTED) if target.reaches else [target]
    structure = _structure(b, [s.name for s in sources], b.pick(STRUCTURES))
    return Call(name, tape, "jacobian", target.name, structure, None, unconnected, form, use_pfor=use_pfor)
