"""Hypothesis strategies for shapes, dtypes, values, tape options and whole programs.

Programs are valid by construction: each op is drawn from the catalog and instantiated with inputs
whose shapes fit its shape rule, attributes valid for those shapes, and fresh leaves drawn from
the op's domain where it needs them, so almost no draws are filtered. Every strategy shrinks
toward the simplest case: fewer ops, lower rank and smaller sides, float32, default tape options
(non-persistent, watching accessed variables, unconnected_gradients omitted), single sources.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from hypothesis import strategies as st

from reftape_oracle.catalog import CATALOG, FLOATS, OpSpec
from reftape_oracle.program import Call, Leaf, Op, Program, Reset, StopRecording, Tape, Watch, walk

# Orders matter: Hypothesis shrinks sampled_from toward the first element.
DTYPES = ("float32", "float64", "float16", "bfloat16", "complex64", "complex128")
UNCONNECTED = (("none", "default"), ("none", "string"), ("zero", "string"), ("none", "enum"), ("zero", "enum"))
METHODS = ("gradient", "jacobian", "batch_jacobian")
STRUCTURES = ("single", "list", "tuple", "dict", "nested")

DOMAINS = {  # (low, high) of magnitudes drawn, and the special points worth hitting
    "any": ((-3.0, 3.0), (0.0, -0.0, 1.0, -1.0)),
    "positive": ((0.1, 4.0), (1.0, 0.5)),
    "nonzero": ((0.25, 3.0), (1.0, -1.0)),
    "unit": ((-1.0, 1.0), (0.0, 0.5)),
    "prob": ((0.0, 1.0), (0.0, 0.5, 1.0)),
    "simplex": ((0.0, 1.0), ()),
    "neg": ((-3.0, -0.1), (-1.0,)),
    "pos": ((0.1, 3.0), (1.0,)),
}


def _check_bound(name: str, value: Any, low: int, high: int | None = None) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or value < low or (high is not None and value > high):
        upper = "" if high is None else f" and <= {high}"
        raise ValueError(f"{name}={value!r} must be an integer >= {low}{upper}")


def _check_order(low_name: str, low: int, high_name: str, high: int) -> None:
    if low > high:
        raise ValueError(f"{low_name}={low!r} must not exceed {high_name}={high!r}")


def shapes(*, min_rank: int = 0, max_rank: int = 3, min_side: int = 1, max_side: int = 4) -> st.SearchStrategy:
    """Tensor shapes. Shrinks toward rank `min_rank` and sides of `min_side`."""
    _check_bound("min_rank", min_rank, 0)
    _check_bound("max_rank", max_rank, 0, 6)
    _check_order("min_rank", min_rank, "max_rank", max_rank)
    _check_bound("min_side", min_side, 0)
    _check_bound("max_side", max_side, 1)
    _check_order("min_side", min_side, "max_side", max_side)
    return st.lists(st.integers(min_side, max_side), min_size=min_rank, max_size=max_rank).map(tuple)


def broadcastable_shapes(shape: tuple, *, min_rank: int = 0) -> st.SearchStrategy:
    """Shapes that broadcast against `shape`: a suffix of it, with some sides replaced by 1.
    Shrinks toward the shortest suffix, then toward keeping sides (not 1)."""
    if not isinstance(shape, tuple) or not all(isinstance(d, int) and d >= 0 for d in shape):
        raise ValueError(f"shape={shape!r} must be a tuple of non-negative integers")
    _check_bound("min_rank", min_rank, 0, len(shape))

    @st.composite
    def draw_shape(draw: Any) -> tuple:
        rank = draw(st.integers(min_rank, len(shape)))
        suffix = shape[len(shape) - rank:]
        return tuple(1 if draw(st.booleans()) else d for d in suffix)

    return draw_shape()


def dtypes(*, allowed: tuple = FLOATS) -> st.SearchStrategy:
    """Dtype names among `allowed`, shrinking toward float32 (then in DTYPES order)."""
    unknown = [d for d in allowed if d not in DTYPES]
    if not allowed or unknown:
        raise ValueError(f"allowed={allowed!r} must be a non-empty subset of {DTYPES}")
    return st.sampled_from(sorted(allowed, key=DTYPES.index))


def _numpy_dtype(dtype: str) -> np.dtype:
    import ml_dtypes

    return np.dtype(ml_dtypes.bfloat16) if dtype == "bfloat16" else np.dtype(dtype)


def values(dtype: str, shape: tuple, *, domain: str = "any", specials: tuple = (), allow_nan: bool = False,
           allow_infinity: bool = False) -> st.SearchStrategy:
    """Arrays of `dtype` and `shape` drawn from `domain`, mixing in the domain's special points,
    `specials` (exact ties, kinks), huge and tiny magnitudes; NaN and inf only when allowed.
    Shrinks toward the domain's first special point (0 for "any")."""
    if dtype not in DTYPES and dtype not in ("int32", "int64"):
        raise ValueError(f"dtype={dtype!r} is not one of {DTYPES + ('int32', 'int64')}")
    if domain not in DOMAINS:
        raise ValueError(f"domain={domain!r} is not one of {sorted(DOMAINS)}")
    (low, high), points = DOMAINS[domain]
    if dtype.startswith("int"):
        element = st.integers(-3, 3)
    else:
        finite = st.floats(low, high, allow_nan=False)  # rounded to the dtype by the final cast
        if dtype.startswith("complex"):  # no parts below 1e-3 in magnitude: see KNOWN_DIVERGENCES 2
            finite = finite.map(lambda v: 0.0 if abs(v) < 1e-3 else v)
        pool = [st.sampled_from(points + tuple(specials))] if points or specials else []
        if domain == "any" and not dtype.startswith("complex"):
            # Huge and tiny magnitudes. Complex values stay clear of overflow, where TF's complex
            # elementary functions diverge from reftape's (KNOWN_DIVERGENCES.md, entry 2).
            pool.append(st.sampled_from((1e-6, -1e-6, 30.0, -30.0)))
        if allow_nan:
            pool.append(st.just(math.nan))
        if allow_infinity:
            pool.append(st.sampled_from((math.inf, -math.inf)))
        element = st.one_of(*pool, finite)
    size = int(np.prod(shape)) if shape else 1

    @st.composite
    def draw_array(draw: Any) -> np.ndarray:
        flat = draw(st.lists(element, min_size=size, max_size=size))
        array = np.array(flat, dtype=np.float64 if not dtype.startswith("int") else dtype).reshape(shape)
        if domain == "simplex" and array.ndim:
            array = (array + 0.05) / (array + 0.05).sum(axis=-1, keepdims=True)
        if dtype.startswith("complex"):
            part = st.one_of(st.just(0.0), st.floats(1e-3, 1.0), st.floats(-1.0, -1e-3))
            imaginary = np.array(draw(st.lists(part, min_size=size, max_size=size)))
            array = array + 1j * imaginary.reshape(shape)
        with np.errstate(over="ignore"):
            return array.astype(_numpy_dtype(dtype))

    return draw_array()


# ---------------------------------------------------------------------------------------------
# Programs


@dataclass
class _Tensor:
    name: str
    shape: tuple
    dtype: str


@dataclass
class _Builder:
    """The state of a program being drawn: its leaves, the tensors available to ops, its options."""

    draw: Any
    dtype: str
    ops: tuple
    statements: list = field(default_factory=list)
    pool: list = field(default_factory=list)     # float tensors of the program dtype
    leaves: list = field(default_factory=list)
    counter: int = 0

    def fresh(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    def leaf(self, shape: tuple, domain: str = "any", specials: tuple = (), dtype: str | None = None,
             kind: str | None = None, into: list | None = None) -> _Tensor:
        dtype = dtype or self.dtype
        kind = kind or self.draw(st.sampled_from(("constant", "variable")))
        trainable = self.draw(st.sampled_from((True, False))) if kind == "variable" else True
        name = self.fresh("v" if kind == "variable" else "c")
        value = self.draw(values(dtype, shape, domain=domain, specials=specials))
        (self.statements if into is None else into).append(Leaf(name, kind, value, dtype, trainable))
        tensor = _Tensor(name, shape, dtype)
        self.leaves.append(tensor)
        return tensor


@dataclass
class _Plan:
    """How to call one op: its input names and what its output feeds onward."""

    inputs: list
    shape: tuple | None       # output shape; None when the output is reported but not fed onward
    dtype: str | None = None  # output dtype, when it differs from the inputs' (cast)
    element: bool = False     # the op returns a list: its first element is fed onward


def _axis_shape(shape: tuple, axis: int, keep: bool) -> tuple:
    axis %= len(shape)
    return shape[:axis] + ((1,) if keep else ()) + shape[axis + 1:]


def _gather_shape(shape: tuple, attrs: dict, draw: Any) -> tuple:
    axis = attrs["axis"] % len(shape)
    attrs["indices"] = tuple(draw(st.lists(st.integers(0, shape[axis] - 1), min_size=1, max_size=3)))
    return shape[:axis] + (len(attrs["indices"]),) + shape[axis + 1:]


def _tile_shape(shape: tuple, attrs: dict, draw: Any) -> tuple:
    attrs["multiples"] = tuple(draw(st.integers(1, 2)) for _ in shape)
    return tuple(d * m for d, m in zip(shape, attrs["multiples"]))


def _expand_dims_shape(shape: tuple, attrs: dict, draw: Any) -> tuple:
    attrs["axis"] = draw(st.integers(-len(shape) - 1, len(shape)))
    axis = attrs["axis"] % (len(shape) + 1)
    return shape[:axis] + (1,) + shape[axis:]


def _broadcast_to_shape(shape: tuple, attrs: dict, draw: Any) -> tuple:
    attrs["shape"] = (2,) + shape
    return attrs["shape"]


def _reduction_shape(shape: tuple, attrs: dict, draw: Any) -> tuple:
    axis, keep = attrs.get("axis"), attrs.get("keepdims", False)
    if axis is None:
        return (1,) * len(shape) if keep else ()
    return _axis_shape(shape, axis, keep)


# Output shapes of unary ops that change the shape, by the last part of their path.
_UNARY_SHAPES = {
    "reshape": lambda shape, attrs, draw: (int(np.prod(shape)),),
    "transpose": lambda shape, attrs, draw: tuple(reversed(shape)),
    "squeeze": lambda shape, attrs, draw: tuple(d for d in shape if d != 1),
    "gather": _gather_shape, "tile": _tile_shape, "expand_dims": _expand_dims_shape,
    "broadcast_to": _broadcast_to_shape, "argmax": lambda shape, attrs, draw: _axis_shape(shape, attrs["axis"], False),
    "argmin": lambda shape, attrs, draw: _axis_shape(shape, attrs["axis"], False),
    "einsum": lambda shape, attrs, draw: (shape[0],) if attrs["equation"] == "ij->i" else (shape[1], shape[0]),
}


def _is_reduction(spec: OpSpec) -> bool:
    name = spec.path.split(".")[-1]
    return name.startswith("reduce_") or name in ("norm", "l2_loss")


def _matrix(b: _Builder, body: list) -> _Tensor:
    """A matrix leaf, so that rank-2 ops are reachable from rank-1 programs too."""
    return b.leaf((b.draw(st.integers(1, 3)), b.draw(st.integers(1, 3))), into=body)


def _unary_plan(b: _Builder, spec: OpSpec, x: _Tensor, attrs: dict, body: list) -> _Plan:
    name = spec.path.split(".")[-1]
    if spec.domains[0] != "any":
        x = b.leaf(x.shape, spec.domains[0], spec.specials_for(0), into=body)
    if name == "einsum" and len(x.shape) != 2:
        x = _matrix(b, body)
    if name in ("unstack", "split"):
        axis = attrs["axis"] % len(x.shape)
        if name == "split":
            size = x.shape[axis]
            attrs["num_or_size_splits"] = (size,) if size == 1 else (1, size - 1)
            first = x.shape[:axis] + (attrs["num_or_size_splits"][0],) + x.shape[axis + 1:]
        else:
            first = x.shape[:axis] + x.shape[axis + 1:]
        return _Plan([x.name], first, element=True)
    if name == "cast":
        attrs["dtype"] = "float64" if x.dtype != "float64" else "float32"
        return _Plan([x.name], x.shape, dtype=attrs["dtype"])
    if name in _UNARY_SHAPES:
        return _Plan([x.name], _UNARY_SHAPES[name](x.shape, attrs, b.draw))
    if _is_reduction(spec):
        return _Plan([x.name], _reduction_shape(x.shape, attrs, b.draw))
    return _Plan([x.name], x.shape)


def _pair_plan(b: _Builder, spec: OpSpec, x: _Tensor, attrs: dict, body: list) -> _Plan:
    """Two inputs: broadcastable (rule "broadcast") or of one shape ("same", "concat", "cross_entropy")."""
    draw, (x_domain, y_domain) = b.draw, spec.domains
    y_shape = draw(broadcastable_shapes(x.shape)) if spec.shape_rule == "broadcast" else x.shape
    if spec.shape_rule == "cross_entropy":  # labels drawn from their domain, logits from the pool
        labels = b.leaf(x.shape, x_domain, (), into=body)
        return _Plan([labels.name, x.name], x.shape if "sigmoid" in spec.path else x.shape[:-1])
    if x_domain != "any":
        x = b.leaf(x.shape, x_domain, spec.specials_for(0), into=body)
    partners = [t for t in b.pool if t.shape == y_shape and t.dtype == x.dtype and t is not x]
    if y_domain != "any" or not partners or draw(st.booleans()):
        y = b.leaf(y_shape, y_domain, spec.specials_for(1), into=body)
    else:
        y = draw(st.sampled_from(partners))
    shape = tuple(np.broadcast_shapes(x.shape, y.shape))
    if spec.shape_rule == "concat":
        axis = attrs["axis"] % len(shape)
        shape = shape[:axis] + (2 * shape[axis],) + shape[axis + 1:]
    elif spec.path == "stack":
        axis = attrs["axis"] % (len(shape) + 1)
        shape = shape[:axis] + (2,) + shape[axis:]
    return _Plan([x.name, y.name], shape)


def _matrix_plan(b: _Builder, spec: OpSpec, x: _Tensor, attrs: dict, body: list) -> _Plan:
    if len(x.shape) != 2:
        x = _matrix(b, body)
    columns = b.draw(st.integers(1, 3))
    y = b.leaf((x.shape[1], columns) if spec.shape_rule == "matmul" else (x.shape[1],), into=body)
    return _Plan([x.name, y.name], (x.shape[0], columns) if spec.shape_rule == "matmul" else (x.shape[0],))


def _clip_plan(b: _Builder, spec: OpSpec, x: _Tensor, attrs: dict, body: list) -> _Plan:
    low, high = b.leaf((), "neg", into=body), b.leaf((), "pos", into=body)
    return _Plan([x.name, low.name, high.name], x.shape)


_PLANNERS = {"unary": _unary_plan, "broadcast": _pair_plan, "same": _pair_plan, "concat": _pair_plan,
             "cross_entropy": _pair_plan, "matmul": _matrix_plan, "matvec": _matrix_plan, "clip": _clip_plan}


def _instantiate(b: _Builder, spec: OpSpec, body: list) -> _Tensor | None:
    """Appends one op of `spec` to `body`, with inputs fitting its shape rule and attributes valid
    for them; returns its output when it can feed later ops (same dtype family, a tensor)."""
    x = b.draw(st.sampled_from([t for t in b.pool if t.shape]))  # the base leaves guarantee rank >= 1
    attrs = {name: b.draw(st.sampled_from(choices)) for name, choices in spec.attrs.items()}
    if isinstance(attrs.get("axis"), int) and not -len(x.shape) <= attrs["axis"] < len(x.shape):
        attrs["axis"] = 0
    plan = _PLANNERS[spec.shape_rule](b, spec, x, attrs, body)
    name = b.fresh("y")
    body.append(Op(name, spec.path, plan.inputs, attrs))
    if spec.output != "same" or plan.shape is None or spec.path.endswith("abs") and x.dtype.startswith("complex"):
        return None  # bool, integer and real-from-complex outputs are reported, not fed onward
    return _Tensor(f"{name}[0]" if plan.element else name, tuple(int(d) for d in plan.shape), plan.dtype or x.dtype)


def _structure(draw: Any, names: list[str], kind: str) -> Any:
    if kind == "single" or len(names) == 1 and kind != "list":
        return names[0]
    if kind == "list":
        return {"list": names}
    if kind == "tuple":
        return {"tuple": names}
    if kind == "dict":
        return {"dict": [[f"k{i}", n] for i, n in enumerate(names)]}
    return {"dict": [["first", names[0]], ["rest", {"list": [{"tuple": [n]} for n in names[1:]]}]]}


def _call(b: _Builder, tape: str, persistent: bool, outputs: list[_Tensor]) -> list:
    """One or two calls on `tape` over the tensors it may have recorded. The result of a gradient
    with one source joins the pool, so that an enclosing tape can differentiate it again."""
    draw = b.draw
    calls = []
    for _ in range(draw(st.integers(1, 2))):
        method = draw(st.sampled_from(METHODS))
        target = draw(st.sampled_from(outputs))
        sources = draw(st.lists(st.sampled_from(b.leaves + outputs), min_size=1, max_size=3, unique_by=lambda t: t.name))
        source_names = [s.name for s in sources]
        unconnected, form = draw(st.sampled_from(UNCONNECTED))
        name = b.fresh("g")
        if method == "gradient":
            kind = draw(st.sampled_from(STRUCTURES))
            targets = [target] + ([t for t in outputs if t is not target][:1] if draw(st.booleans()) else [])
            weights = None
            if draw(st.booleans()):
                weights = {"list": [b.leaf(t.shape, kind="constant", dtype=t.dtype).name for t in targets]}
            target_structure = targets[0].name if len(targets) == 1 else {"list": [t.name for t in targets]}
            calls.append(Call(name, tape, method, target_structure, _structure(draw, source_names, kind), weights,
                              unconnected, form))
            if isinstance(calls[-1].sources, str) and sources[0].dtype == b.dtype and len(calls) == 1:
                b.pool.append(_Tensor(name, sources[0].shape, b.dtype))
        elif method == "jacobian":
            structure = _structure(draw, source_names, draw(st.sampled_from(STRUCTURES[:2])))
            calls.append(Call(name, tape, method, target.name, structure, None, unconnected, form,
                              use_pfor=draw(st.sampled_from((True, False)))))
        else:
            batch = [s for s in sources if len(s.shape) >= 2 and len(target.shape) >= 2 and s.shape[0] == target.shape[0]]
            if not batch:
                continue
            calls.append(Call(name, tape, method, target.name, batch[0].name, None, unconnected, form))
    return calls


def _draw_ops(b: _Builder, tape: str, body: list, produced: list, count: int) -> None:
    """`count` ops recorded by `tape`, occasionally inside a stop_recording span or after a reset."""
    draw = b.draw
    chooser = draw(st.randoms(use_true_random=False))  # near-uniform over the ops (sampled_from favours
    for _ in range(count):                              # the first few), still replayable and shrinkable
        spec = CATALOG[chooser.choice(b.ops)]
        span = body
        if draw(st.integers(0, 9)) == 0:
            span = []
            body.append(StopRecording(tape, span))
        if draw(st.integers(0, 19)) == 0:
            body.append(Reset(tape))
        out = _instantiate(b, spec, span)
        if out is not None and out.dtype == b.dtype:
            b.pool.append(out)
            produced.append(out)


def _tape_block(b: _Builder, depth: int, max_depth: int, max_ops: int, body: list) -> None:
    """A tape (and possibly a nested one) whose recorded ops and calls are appended to `body`."""
    draw = b.draw
    name = f"t{depth}"
    persistent = draw(st.sampled_from((False, True)))
    watch_accessed = draw(st.sampled_from((True, False)))
    inner: list = []
    watched = draw(st.lists(st.sampled_from(b.leaves), max_size=len(b.leaves), unique_by=lambda t: t.name))
    if watched:
        inner.append(Watch(name, [t.name for t in watched]))
    produced: list[_Tensor] = []
    _draw_ops(b, name, inner, produced, draw(st.integers(1, max_ops)))
    if depth + 1 < max_depth and draw(st.booleans()):
        _tape_block(b, depth + 1, max_depth, max_ops, inner)
        _draw_ops(b, name, inner, produced, draw(st.integers(0, 1)))
    body.append(Tape(name, inner, persistent, watch_accessed))
    if produced:
        body.extend(_call(b, name, persistent, produced))


@st.composite
def programs(draw: Any, *, ops: tuple | None = None, dtypes: tuple = DTYPES, max_ops: int = 4,
             max_depth: int = 3) -> Program:
    """Programs over catalog ops `ops` (default: all) in one of `dtypes`, with up to `max_ops` ops
    per tape and tapes nested `max_depth` deep. Shrinks toward one op, rank-1 leaves, float32 and
    default tape options."""
    _check_bound("max_ops", max_ops, 1, 20)
    _check_bound("max_depth", max_depth, 1, 3)
    unknown = [p for p in (ops or ()) if p not in CATALOG]
    if unknown:
        raise ValueError(f"ops={unknown!r} are not in the catalog")
    bad = [d for d in dtypes if d not in DTYPES]
    if not dtypes or bad:
        raise ValueError(f"dtypes={dtypes!r} must be a non-empty subset of {DTYPES}")
    candidates = tuple(ops or CATALOG)
    supported = [d for d in sorted(dtypes, key=DTYPES.index) if any(d in CATALOG[p].dtypes for p in candidates)]
    if not supported:
        raise ValueError(f"none of ops={ops!r} supports any of dtypes={dtypes!r}")
    dtype = draw(st.sampled_from(supported))
    usable = tuple(p for p in candidates if dtype in CATALOG[p].dtypes)
    b = _Builder(draw, dtype, usable)
    base = draw(shapes(min_rank=1, max_rank=2, min_side=1, max_side=3))
    for _ in range(draw(st.integers(1, 2))):
        b.pool.append(b.leaf(base))
    if draw(st.integers(0, 3)) == 0:
        b.leaf(base, dtype="int32", kind="constant")
    _tape_block(b, 0, max_depth, max_ops, b.statements)
    outputs = [s.name for s in walk(b.statements) if isinstance(s, Op)]
    return Program(b.statements, outputs)
