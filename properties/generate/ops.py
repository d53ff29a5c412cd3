"""One op added to a program: its inputs (unconsumed outputs where they fit, else fresh leaves holding its
special points), attributes valid for their shapes, and the shape of what it feeds onward (a plan per
shape rule); now and then a Python list it packs, or a literal operand, in place of a tensor."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from reftape_oracle.catalog import (COMPOSITE, ELLIPSIS, GROWS, INDEXED_ROWS, MATRIX_RULES, NORMALIZING, PARTITIONED,
                                    POOL_RULES, REDUCTION, ROW_ATTRIBUTE, TAKES_MATRIX, TAKES_SCALAR, OpSpec,
                                    einsum_shapes, einsum_subscripts, flipped)
from reftape_oracle.catalog import CONV_RULES, EXPLICIT_PADDING, resized_size, transposed_sizes
from reftape_oracle.program import Leaf, ListLiteral, Op, Watch
from reftape_oracle.surface import keyword_name

from .builder import _Builder, _last, _Tensor
from .values import LARGEST, _array

MAX_ELEMENTS = 48                      # ops that grow tensors take inputs that keep outputs this small
MAX_RANK = 4
MAX_ATTRIBUTE_INTEGERS = 8  # the longest integer array an attribute holds (oracle/validation.py)
NEGATIVE_AXIS_CHANCE = 0.3  # an axis attribute counted from the end instead
BATCHED_MATMUL_CHANCE = 0.25  # matmul's second operand a stack of matrices
LITERAL_OPERAND_CHANCE = 0.2  # an op of several inputs takes one as a Python or NumPy value it converts itself
PACKED_INPUT_CHANCE = 0.04  # an op takes a Python list of tensors (and literals), which TF packs (recording a Pack)
EINSUM_BROADCAST_ONE_CHANCE = 0.3  # an einsum operand's ellipsis dimension is 1, broadcast against the others'
SVD_ELEMENT_CHANCES = (0.5, 0.25, 0.25)  # svd feeds onward its singular values, its weighted |U|^2 or its |V|^2
SVD_TWO_VALUES_CHANCE = 0.75  # svd's input, when its vectors are computed, has two singular values or more


@dataclass
class _Plan:
    """How to call one op: its inputs and the shape of what it feeds onward."""

    inputs: list
    shape: tuple
    dtype: str | None = None  # output dtype, when it differs from the inputs'
    element: int | None = None  # the op returns a list: this element is fed onward


def _min_rank(spec: OpSpec) -> int:
    if spec.shape_rule in MATRIX_RULES:
        return 2
    if spec.shape_rule in ("matmul", "matvec", "bias", "einsum", "least_squares", "tridiagonal") or spec.has(TAKES_MATRIX):
        return 2  # exactly 2 (einsum: 2 or 3) (labels and biases are drawn for matrices)
    if spec.shape_rule == "scalars":
        return 0
    if spec.shape_rule in ("signal", "spectrum"):  # over the last axis (a scalar is TF's ValueError)
        return 1
    elementwise_attrs = {"alpha", "approximate", "dtype"}
    if set(spec.attrs) - elementwise_attrs and not spec.has(TAKES_SCALAR):
        return 1
    return 1 if spec.shape_rule in ("concat", "cross_entropy", "cross") else 0


def _grows(spec: OpSpec) -> bool:
    return spec.has(GROWS)


def _fits(t: _Tensor, spec: OpSpec) -> bool:
    rank = len(t.shape)
    if spec.shape_rule == "scalars":
        return rank == 0
    if spec.has(ROW_ATTRIBUTE) and rank and not 0 < t.shape[0] <= MAX_ATTRIBUTE_INTEGERS:
        return False  # no empty lists of ids either: TF reads [] as float32 (and segment_sum's rule needs a last id)
    if spec.shape_rule in POOL_RULES:
        return _pool_fits(t, spec)
    if (spec.has(INDEXED_ROWS) or _last(spec) == "gather_nd") and rank and not 0 < t.shape[0] < MAX_ATTRIBUTE_INTEGERS:
        return False  # no empty index lists: TF reads [] as float32
    if spec.shape_rule == "cross":  # vectors of 3 (issue 24)
        return 1 <= rank < MAX_RANK and t.shape[-1] == 3
    if spec.shape_rule == "least_squares":  # matrices, at most one batch dimension (issue 24)
        return 2 <= rank <= 3
    if spec.shape_rule == "tridiagonal":  # compact diagonals [..., 3, M] (issue 24)
        return 2 <= rank <= 3 and t.shape[-2] == 3
    if spec.shape_rule in MATRIX_RULES:  # matrices, at most one batch dimension; square for a factorisation
        return 2 <= rank <= 3 and (spec.shape_rule == "matrix" or t.shape[-1] == t.shape[-2])
    if _last(spec) == "diag":  # each last-axis vector becomes a square matrix one side longer at most
        return 1 <= rank < MAX_RANK and t.size * (t.shape[-1] + 1) ** 2 <= MAX_ELEMENTS * max(t.shape[-1], 1)
    if spec.shape_rule == "einsum":  # a matrix, or a stack of them for an ellipsis (_einsum_plan)
        return 2 <= rank <= 3 and t.size <= MAX_ELEMENTS
    if spec.shape_rule in CONV_RULES:
        return _conv_fits(t, spec)
    if _min_rank(spec) == 2:
        return rank == 2
    if rank < _min_rank(spec):
        return False
    return not _grows(spec) or (rank < MAX_RANK and 2 * t.size <= MAX_ELEMENTS)


def _input(b: _Builder, spec: OpSpec, position: int = 0, shape: tuple | None = None) -> _Tensor:
    """An input for `spec`: an unconsumed output where one fits (mostly), an earlier tensor, or a fresh
    leaf from the op's domain with its special points planted (always, for a restricted domain)."""
    domain = spec.domains[min(position, spec.arity - 1)]
    fitting = [t for t in b.usable(spec) if _fits(t, spec) and (shape is None or t.shape == shape)]
    waiting = [t for t in b.frontier if t in fitting]
    overflows = spec.has(COMPOSITE) and b.dtype in LARGEST  # a fresh leaf can hold near-overflow values
    if domain == "any" and not b.chance(0.8 if overflows else 0.45 if spec.specials else 0.2):
        if waiting and not b.chance(0.1):
            return b.pick(waiting)
        if fitting:
            return b.pick(fitting)
    if shape is None:
        shape = _leaf_shape(b, spec)
    scalars = spec.specials_for(position)
    patterns = tuple(tuple(np.ravel(p[position]).tolist()) for p in spec.specials
                     if position < len(p) and isinstance(p[position], list))  # nested (a pool's window): flat
    if overflows:  # one near-overflow value squares past the largest
        scalars = scalars + LARGEST[b.dtype]
    if overflows and b.dtype == "float16":  # two also sum past it (TF adds bfloat16 in float32)
        largest, _, large = LARGEST[b.dtype][:3]
        patterns = patterns + ((largest, large),)
    return b.leaf(shape, domain, scalars, patterns, tied_rows=spec.has(ROW_ATTRIBUTE))


def _leaf_shape(b: _Builder, spec: OpSpec) -> tuple:
    if spec.shape_rule in POOL_RULES:
        return _pool_leaf_shape(b, spec)
    if spec.shape_rule == "scalars":
        return ()
    if spec.shape_rule in CONV_RULES:
        return _conv_leaf_shape(b, spec)
    if spec.shape_rule in MATRIX_RULES:
        rows = int(b.rng.integers(1, 4))
        matrix = (rows, rows if spec.shape_rule != "matrix" else int(b.rng.integers(1, 4)))
        return ((int(b.rng.integers(1, 3)),) if b.chance(BATCHED_MATMUL_CHANCE) else ()) + matrix
    if spec.shape_rule == "tridiagonal":  # compact diagonals of 1 to 4 rows (issue 24)
        return (3, int(b.rng.integers(1, 5)))
    if _min_rank(spec) == 2:
        return (int(b.rng.integers(1, 4)), int(b.rng.integers(1, 4)))
    if spec.shape_rule == "cross":  # vectors of 3 (issue 24)
        return b.base[:-1] + (3,) if b.base else (3,)
    if len(b.base) >= _min_rank(spec):
        return b.base
    return b.base + (int(b.rng.integers(1, 4)),)


def _axis_shape(shape: tuple, axis: int, keep: bool) -> tuple:
    axis %= len(shape)
    return shape[:axis] + ((1,) if keep else ()) + shape[axis + 1:]


# Gathers and scatters read or write some index (row) twice now and then beyond chance: the upstreams of a
# repeated gather index add up, a scatter's updates add up (or, for an update, one of them stays)
REPEATED_INDEX_CHANCE = 0.3


def _with_a_repeat(b: _Builder, rows: list) -> list:
    """`rows` (indices, or N-d index rows as tuples), at times with a later one replaced by an earlier one."""
    if len(rows) >= 2 and b.chance(REPEATED_INDEX_CHANCE):
        later = int(b.rng.integers(1, len(rows)))
        rows[later] = rows[int(b.rng.integers(later))]
    return rows


def _flat(rows: list) -> list:
    return [int(i) for row in rows for i in row]


BATCHED_GATHER_CHANCE = 0.6   # of a gather along axis 1 or later: the first axis a batch (batch_dims=1)


def _gather_shape(b: _Builder, shape: tuple, attrs: dict) -> tuple:
    """One to three indices along the axis, some repeated; along axis 1 or later, now and then one row of
    them per member of the batch the first axis holds (`batch_dims=1`)."""
    axis = attrs["axis"] % len(shape)
    count = int(b.rng.integers(1, 4))

    def indices() -> list:
        return [int(i) for i in b.rng.integers(0, shape[axis], count)]

    batched = axis >= 1 and 0 < shape[0] * count < MAX_ATTRIBUTE_INTEGERS and b.chance(BATCHED_GATHER_CHANCE)
    if batched:
        rows = [indices() for _ in range(shape[0])]
        member = int(b.rng.integers(shape[0]))
        rows[member] = _with_a_repeat(b, rows[member])
        attrs["indices"], attrs["batch_dims"] = (count, *_flat(rows)), 1
    else:
        attrs["indices"] = tuple(_with_a_repeat(b, indices()))
        attrs.pop("batch_dims", None)
    return shape[:axis] + (count,) + shape[axis + 1:]


def _gather_nd_shape(b: _Builder, shape: tuple, attrs: dict) -> tuple:
    """One to three rows of N-d indices of depth 1 or 2 (the first: IndexedSlices gradients), some repeated."""
    depth = 2 if len(shape) >= 2 and shape[1] and b.chance(0.5) else 1
    count = int(b.rng.integers(1, 4))
    rows = [tuple(int(b.rng.integers(0, shape[a])) for a in range(depth)) for _ in range(count)]
    attrs["indices"] = (depth, *_flat(_with_a_repeat(b, rows)))
    return (count,) + shape[depth:]


def _scatter_nd_shape(b: _Builder, shape: tuple, attrs: dict) -> tuple:
    """Each row of the updates scattered into a new shape (its first axis replaced by one or two of 1 to
    3 entries; depth 2 where the indices fit), rows repeated at times (they add up)."""
    depth = 2 if 2 * shape[0] < MAX_ATTRIBUTE_INTEGERS and b.chance(0.5) else 1
    leading = tuple(int(b.rng.integers(1, 4)) for _ in range(depth))
    attrs["shape"] = leading + shape[1:]
    rows = [tuple(int(b.rng.integers(0, d)) for d in leading) for _ in range(shape[0])]
    attrs["indices"] = (depth, *_flat(_with_a_repeat(b, rows)))
    return attrs["shape"]


def _slice_shape(b: _Builder, shape: tuple, attrs: dict) -> tuple:
    """A begin in each dimension and a size of at least one from it (-1, to the end, at times)."""
    begins = [int(b.rng.integers(0, d)) if d else 0 for d in shape]
    sizes = [-1 if b.chance(0.3) else int(b.rng.integers(1, d - s + 1)) if d else 0 for d, s in zip(shape, begins)]
    attrs["begin"], attrs["size"] = tuple(begins), tuple(sizes)
    return tuple(d - s if n == -1 else n for d, s, n in zip(shape, begins, sizes))


def _top_k_shape(b: _Builder, shape: tuple, attrs: dict) -> tuple:
    attrs["k"] = int(b.rng.integers(1, shape[-1] + 1)) if shape[-1] else 0
    return shape[:-1] + (attrs["k"],)


def _embedding_lookup_shape(b: _Builder, shape: tuple, attrs: dict) -> tuple:
    count = int(b.rng.integers(1, 4))
    attrs["ids"] = tuple(_with_a_repeat(b, [int(i) for i in b.rng.integers(0, shape[0], count)]))
    return (count,) + shape[1:]


def _pad_shape(b: _Builder, shape: tuple, attrs: dict) -> tuple:
    """Paddings on one axis that at most double it, within the mode's limit (REFLECT: below the size)."""
    axis = int(b.rng.integers(len(shape)))
    size = shape[axis]
    most = size - 1 if attrs["mode"] == "REFLECT" else size
    before = int(b.rng.integers(0, most + 1))
    after = int(b.rng.integers(0, min(most, size - before) + 1))
    attrs["paddings"] = tuple(p for a in range(len(shape)) for p in ((before, after) if a == axis else (0, 0)))
    return shape[:axis] + (size + before + after,) + shape[axis + 1:]


def _reverse_shape(b: _Builder, shape: tuple, attrs: dict) -> tuple:
    """Some axes (none at times), each once, some counted from the end."""
    axes = [a - len(shape) if b.chance(0.3) else a for a in range(len(shape)) if b.chance(0.5)]
    attrs["axis"] = tuple(int(a) for a in b.rng.permutation(axes)) if axes else ()
    return shape


def _unsorted_segment_sum_shape(b: _Builder, shape: tuple, attrs: dict) -> tuple:
    """Segment ids for the first axis, -1 (dropped) among them."""
    attrs["num_segments"] = int(b.rng.integers(1, 4))
    attrs["segment_ids"] = tuple(int(i) for i in b.rng.integers(-1, attrs["num_segments"], shape[0]))
    return (attrs["num_segments"],) + shape[1:]


def _segment_sum_shape(b: _Builder, shape: tuple, attrs: dict) -> tuple:
    attrs["segment_ids"] = tuple(int(i) for i in np.sort(b.rng.integers(0, 3, shape[0])))
    return (attrs["segment_ids"][-1] + 1,) + shape[1:]


def _sparse_cross_entropy_shape(b: _Builder, shape: tuple, attrs: dict) -> tuple:
    attrs["labels"] = tuple(int(i) for i in b.rng.integers(0, shape[1], shape[0]))
    return shape[:1]


def _tile_shape(b: _Builder, shape: tuple, attrs: dict) -> tuple:
    attrs["multiples"] = tuple(1 for _ in shape)
    if shape:
        grown = int(b.rng.integers(len(shape)))
        attrs["multiples"] = tuple(2 if i == grown else 1 for i in range(len(shape)))
    return tuple(d * m for d, m in zip(shape, attrs["multiples"]))


def _transpose_shape(b: _Builder, shape: tuple, attrs: dict) -> tuple:
    """A random permutation of the axes (a 3-cycle is not its own inverse), or the default reversal."""
    attrs["perm"] = tuple(int(p) for p in b.rng.permutation(len(shape))) if len(shape) >= 2 and b.chance(0.7) else None
    return tuple(shape[p] for p in attrs["perm"]) if attrs["perm"] else tuple(reversed(shape))


def _expand_dims_shape(b: _Builder, shape: tuple, attrs: dict) -> tuple:
    attrs["axis"] = int(b.rng.integers(-len(shape) - 1, len(shape) + 1))
    axis = attrs["axis"] % (len(shape) + 1)
    return shape[:axis] + (1,) + shape[axis:]


def _broadcast_to_shape(b: _Builder, shape: tuple, attrs: dict) -> tuple:
    attrs["shape"] = (2,) + shape
    return attrs["shape"]


def _reduction_shape(b: _Builder, shape: tuple, attrs: dict) -> tuple:
    axis, keep = attrs.get("axis"), attrs.get("keepdims", False)
    if axis is None:
        return (1,) * len(shape) if keep else ()
    axes = {a % len(shape) for a in (axis if isinstance(axis, tuple) else (axis,))}
    return tuple(1 if i in axes else d for i, d in enumerate(shape) if keep or i not in axes)


# Output shapes of unary ops that change the shape, by the last part of their path.
_UNARY_SHAPES = {
    "reshape": lambda b, shape, attrs: (int(np.prod(shape)),),
    "transpose": _transpose_shape,
    "squeeze": lambda b, shape, attrs: tuple(d for d in shape if d != 1),
    "gather": _gather_shape, "gather_nd": _gather_nd_shape, "slice": _slice_shape, "top_k": _top_k_shape, "scatter_nd": _scatter_nd_shape, "tile": _tile_shape, "expand_dims": _expand_dims_shape,
    "embedding_lookup": _embedding_lookup_shape, "pad": _pad_shape, "reverse": _reverse_shape,
    "unsorted_segment_sum": _unsorted_segment_sum_shape, "segment_sum": _segment_sum_shape,
    "sparse_softmax_cross_entropy_with_logits": _sparse_cross_entropy_shape,
    "broadcast_to": _broadcast_to_shape, "argmax": lambda b, shape, attrs: _axis_shape(shape, attrs["axis"], False),
    "argmin": lambda b, shape, attrs: _axis_shape(shape, attrs["axis"], False),
    "diag": lambda b, shape, attrs: shape[:-1] + (shape[-1] + abs(attrs["k"]),) * 2,
}



def _unary_plan(b: _Builder, spec: OpSpec, x: _Tensor, attrs: dict) -> _Plan:
    name = _last(spec)
    if spec.path in _PATH_SHAPES:
        return _Plan([x], _PATH_SHAPES[spec.path](b, x.shape, attrs))
    if name in ("unstack", "split"):
        axis = attrs["axis"] % len(x.shape)
        if name == "split":
            size = x.shape[axis]
            attrs["num_or_size_splits"] = (size,) if size == 1 else (1, size - 1)
            return _Plan([x], x.shape[:axis] + (1 if size > 1 else size,) + x.shape[axis + 1:], element=0)
        return _Plan([x], x.shape[:axis] + x.shape[axis + 1:], element=int(b.rng.integers(x.shape[axis])))
    if name == "cast":
        attrs["dtype"] = "float64" if x.dtype != "float64" else "float32"
        return _Plan([x], x.shape, dtype=attrs["dtype"])
    if name == "normalize":  # the normalized tensor (issue 24)
        return _Plan([x], x.shape, element=0)
    if name == "moments":  # (mean, variance): either is fed onward
        reduced = _reduction_shape(b, x.shape, {"axis": attrs["axes"], "keepdims": attrs["keepdims"]})
        return _Plan([x], reduced, element=int(b.rng.integers(2)))
    if name in _UNARY_SHAPES:
        return _Plan([x], _UNARY_SHAPES[name](b, x.shape, attrs))
    if spec.has(REDUCTION):
        return _Plan([x], _reduction_shape(b, x.shape, attrs))
    return _Plan([x], x.shape)


def _broadcasts(a: tuple, b: tuple) -> tuple | None:
    try:
        shape = tuple(np.broadcast_shapes(a, b))
    except ValueError:
        return None
    return shape if int(np.prod(shape)) <= MAX_ELEMENTS else None


def _pairs(spec: OpSpec) -> list[tuple]:
    return [p for p in spec.specials if len(p) >= 2 and all(isinstance(v, float) for v in p[:2])]


def _paired_leaves(b: _Builder, spec: OpSpec, shape: tuple) -> tuple[_Tensor, _Tensor]:
    """Two fresh leaves of one shape with the op's special pairs planted at the same positions
    (pow's non-positive bases under a watched exponent, ties of maximum, 0/0 of divide)."""
    complex_ = b.dtype.startswith("complex")  # complex values stay clear of overflow (KNOWN_DIVERGENCES 2)
    pairs = [p for p in _pairs(spec) if all(math.isfinite(v) and (not complex_ or abs(v) <= 4.0) for v in p[:2])
             or not complex_ and b.chance(0.15)]
    size = int(np.prod(shape)) if shape else 1
    x = _array(b.rng, b.dtype, shape, spec.domains[0], spec.specials_for(0))
    y = _array(b.rng, b.dtype, shape, spec.domains[1], spec.specials_for(1))
    planted = b.rng.random(size) < 0.4 if pairs else np.zeros(size, bool)
    for position in np.flatnonzero(planted):
        pair = b.pick(pairs)
        x.reshape(-1)[position], y.reshape(-1)[position] = pair[0], pair[1]
    return b.leaf(shape, value=x), b.leaf(shape, value=y)


def _pair_plan(b: _Builder, spec: OpSpec, x: _Tensor, attrs: dict) -> _Plan:
    """Two inputs: broadcastable (rule "broadcast", either way round) or of one shape."""
    if spec.shape_rule == "cross_entropy":  # labels fresh from their domain, logits from the chain
        labels = b.leaf(x.shape, spec.domains[0], ())
        labels.first_order_only = "softmax" in spec.path  # its second order in labels depends on op determinism
        return _Plan([labels, x], x.shape if "sigmoid" in spec.path else x.shape[:-1])
    if _last(spec) == "boolean_mask":  # a fresh constant mask (x[mask > 0]): the masked elements are counted
        mask = b.leaf(x.shape, kind="constant")
        return _Plan([x, mask], (int(np.count_nonzero(mask.value > 0)),))
    if _pairs(spec) and b.chance(0.3):
        x, y = _paired_leaves(b, spec, x.shape)
    elif spec.domains[1] == "any" and b.chance(0.15):
        y = x  # the same tensor twice: exact ties, x - x, x / x
    elif spec.shape_rule == "broadcast" and spec.domains[1] == "any" and b.chance(0.6):
        partners = [t for t in b.usable(spec) if t is not x and _broadcasts(x.shape, t.shape) is not None]
        waiting = [t for t in partners if t in b.frontier]
        y = b.pick(waiting or partners) if partners else b.leaf(_suffix(b, x.shape))
    elif spec.shape_rule == "broadcast" and b.chance(0.4):
        y = b.leaf(_suffix(b, x.shape), spec.domains[1], spec.specials_for(1))
    else:
        y = _input(b, spec, 1, shape=x.shape)
    if spec.shape_rule == "broadcast" and spec.domains == ("any", "any") and b.chance(0.3):
        x, y = y, x  # the smaller operand first
    shape = tuple(np.broadcast_shapes(x.shape, y.shape))
    if spec.shape_rule == "concat":
        axis = attrs["axis"] % len(shape)
        shape = shape[:axis] + (2 * shape[axis],) + shape[axis + 1:]
    elif spec.path == "stack":
        axis = attrs["axis"] % (len(shape) + 1)
        shape = shape[:axis] + (2,) + shape[axis:]
    elif spec.has(INDEXED_ROWS):
        y = _scattered_updates(b, spec, x.shape, attrs) or y
    elif _last(spec) == "global_norm":
        shape = ()
    elif _last(spec) == "clip_by_global_norm":  # the clipped tensors, then the norm: the first is fed onward
        return _Plan([x, y], x.shape, element=0)
    return _Plan([x, y], shape)


def _scattered_updates(b: _Builder, spec: OpSpec, shape: tuple, attrs: dict) -> _Tensor | None:
    """A tensor scatter's indices (repeats at times): each row of the updates (of the tensor's shape) to a row
    of the tensor; or, half the time for a matrix or more, one to three updates of the tensor's inner shape
    to elements [i, j] (index depth 2), their new input returned."""
    if len(shape) >= 2 and shape[1] and b.chance(0.5):
        count = int(b.rng.integers(1, 4))
        rows = [(int(b.rng.integers(0, shape[0])), int(b.rng.integers(0, shape[1]))) for _ in range(count)]
        attrs["indices"] = (2, *_flat(_with_a_repeat(b, rows)))
        return _input(b, spec, 1, shape=(count,) + shape[2:])
    attrs["indices"] = (1, *_with_a_repeat(b, [int(i) for i in b.rng.integers(0, shape[0], shape[0])]))
    return None


def _suffix(b: _Builder, shape: tuple) -> tuple:
    """A shape broadcasting against `shape`: a suffix of it with some sides replaced by 1."""
    rank = int(b.rng.integers(len(shape) + 1))
    return tuple(1 if b.chance(0.4) else d for d in shape[len(shape) - rank:])


def _matrix_plan(b: _Builder, spec: OpSpec, x: _Tensor, attrs: dict) -> _Plan:
    """x (stored transposed where a flag says so) times a matrix or vector, which for matmul is now and
    then a stack of matrices: x then broadcasts over the batch (its VJP sums the batch back)."""
    _one_flag_per_operand(attrs)
    if spec.shape_rule == "matvec" and x.shape[0] == 1:
        # not into a vector of one element: a normalization downstream is then invariant to it, and its
        # gradient is the rounding noise of KNOWN_DIVERGENCES 5
        attrs["transpose_a"] = attrs["adjoint_a"] = False
    rows, inner = x.shape[::-1] if flipped(attrs, "a") else x.shape
    if spec.shape_rule == "matvec":
        shape = (inner,)
    else:
        columns = int(b.rng.integers(1, 4))
        shape = (columns, inner) if flipped(attrs, "b") else (inner, columns)
        if "transpose_b" in attrs and b.chance(BATCHED_MATMUL_CHANCE):
            shape = (int(b.rng.integers(1, 4)),) + shape
    partners = [t for t in b.usable(spec) if t.shape == shape]
    y = b.pick(partners) if partners and b.chance(0.5) else b.leaf(shape)
    if spec.shape_rule == "matvec":
        return _Plan([x, y], (rows,))
    return _Plan([x, y], shape[:-2] + (rows, shape[-2] if flipped(attrs, "b") else shape[-1]))


def _one_flag_per_operand(attrs: dict) -> None:
    """TF refuses an operand both transposed and adjoint: such an operand is left plain."""
    for operand in "ab":
        if attrs.get(f"transpose_{operand}") and attrs.get(f"adjoint_{operand}"):
            attrs[f"transpose_{operand}"] = attrs[f"adjoint_{operand}"] = False


def _bias_plan(b: _Builder, spec: OpSpec, x: _Tensor, attrs: dict) -> _Plan:
    return _Plan([x, _input(b, spec, 1, shape=x.shape[-1:])], x.shape)


def _one_hot_plan(b: _Builder, spec: OpSpec, x: _Tensor, attrs: dict) -> _Plan:
    """Scalar on and off values; indices of one axis, some outside [0, depth) (off everywhere)."""
    depth, count = attrs["depth"], int(b.rng.integers(1, 4))
    attrs["indices"] = tuple(int(i) for i in b.rng.integers(-1, depth + 1, count))
    attrs["axis"] = b.pick(spec.attrs["axis"])  # valid for the indices' rank, not for the scalar inputs'
    return _Plan([x, _input(b, spec, 1, shape=())], (depth, count) if attrs["axis"] == 0 else (count, depth))


def _clip_plan(b: _Builder, spec: OpSpec, x: _Tensor, attrs: dict) -> _Plan:
    low, high = b.leaf((), "neg"), b.leaf((), "pos")
    return _Plan([x, low, high], x.shape)


def _diagonal_length(shape: tuple, k: int) -> int:
    return min(shape[-2] + min(k, 0), shape[-1] - max(k, 0))


def _linalg_plan(b: _Builder, spec: OpSpec, x: _Tensor, attrs: dict) -> _Plan:
    """A (batch of) matrices: attributes kept valid for its sizes; a factorisation's output, a solve's
    right-hand sides (two columns at most), slogdet's log magnitude fed onward."""
    name, shape = _last(spec), x.shape
    rows, columns = shape[-2:]
    if "k" in attrs and not -rows < attrs["k"] < columns:
        attrs["k"] = 0
    if attrs.get("num_lower", -1) > rows:
        attrs["num_lower"] = -1
    if attrs.get("num_upper", -1) > columns:
        attrs["num_upper"] = -1
    if spec.shape_rule == "square_rhs":
        rhs = _input(b, spec, 1, shape=shape[:-1] + (int(b.rng.integers(1, 3)),))
        return _Plan([x, rhs], rhs.shape)
    if name in ("matrix_transpose", "adjoint"):
        return _Plan([x], shape[:-2] + (columns, rows))
    if name == "diag_part":
        return _Plan([x], shape[:-2] + (_diagonal_length(shape, attrs["k"]),))
    if name in ("trace", "det", "logdet"):
        return _Plan([x], shape[:-2])
    # Decompositions (issue 24): what each feeds onward (their sign-invariant targets: oracle/catalog.py)
    if name == "qr":  # R
        return _Plan([x], shape[:-2] + (rows if attrs["full_matrices"] else min(rows, columns), columns), element=1)
    if name == "eigh":  # the eigenvectors' squared magnitudes
        return _Plan([x], shape, element=1)
    if name == "eigvalsh":
        return _Plan([x], shape[:-1])
    if name == "svd":  # the singular values (real), or the weighted squared magnitudes of U's or V's vectors
        if attrs["compute_uv"] and min(rows, columns) < 2 and b.chance(SVD_TWO_VALUES_CHANCE):
            # of one singular value, the terms of the vectors' gradient between two values are never computed
            x = _input(b, spec, 0, shape=shape[:-2] + (max(rows, 2), max(columns, 2)))
            rows, columns = x.shape[-2:]
        k = min(rows, columns)
        if not attrs["compute_uv"]:
            return _Plan([x], shape[:-2] + (k,), dtype=_real(x.dtype))
        element = int(b.rng.choice(3, p=SVD_ELEMENT_CHANCES))
        return _Plan([x], shape[:-2] + ((k,), (rows, k), (columns, k))[element],
                     dtype=_real(x.dtype) if element == 0 else x.dtype, element=element)
    if name == "slogdet":
        return _Plan([x], shape[:-2], element=1)
    return _Plan([x], shape)


def _cross_plan(b: _Builder, spec: OpSpec, x: _Tensor, attrs: dict) -> _Plan:
    """linalg.cross (issue 24): two stacks of 3-vectors of one shape, x's or a fresh one."""
    if x.shape[-1:] != (3,):
        x = b.leaf(x.shape[:-1] + (3,) if x.shape else (3,))
    return _Plan([x, _input(b, spec, 1, shape=x.shape)], x.shape)


def _least_squares_plan(b: _Builder, spec: OpSpec, x: _Tensor, attrs: dict) -> _Plan:
    """linalg.lstsq (issue 24): x's systems with one or two right-hand sides each; the solution fed onward."""
    rhs = _input(b, spec, 1, shape=x.shape[:-1] + (int(b.rng.integers(1, 3)),))
    return _Plan([x, rhs], x.shape[:-2] + (x.shape[-1], rhs.shape[-1]))


def _tridiagonal_plan(b: _Builder, spec: OpSpec, x: _Tensor, attrs: dict) -> _Plan:
    """linalg.tridiagonal_solve (issue 24): compact diagonals and one or two right-hand sides; the solution fed onward."""
    rhs = _input(b, spec, 1, shape=x.shape[:-2] + (x.shape[-1], int(b.rng.integers(1, 3))))
    return _Plan([x, rhs], rhs.shape)


def _einsum_plan(b: _Builder, spec: OpSpec, x: _Tensor, attrs: dict) -> _Plan:
    """The drawn equation's operands: x first where its shape fits the first subscripts (a fresh leaf
    otherwise), the others drawn for the labels' sizes, each ellipsis's dimensions broadcasting against the
    others' (some of size 1, some operands with fewer of them)."""
    specs, _ = einsum_subscripts(attrs["equation"])
    bound = _einsum_binding(specs[0], x.shape)
    sizes, batch = bound if bound else ({}, None)
    drawn = {label: int(b.rng.integers(1, 4)) for labels in specs for label in labels
             if label != ELLIPSIS and label not in sizes}
    full = _einsum_full_batch(b, batch)
    batches = [batch if n == 0 and bound else _einsum_operand_batch(b, full) if ELLIPSIS in labels else ()
               for n, labels in enumerate(specs)]
    shapes, output = einsum_shapes(attrs["equation"], {**sizes, **drawn}, batches)
    if max(math.prod(shape) for shape in shapes + [output]) > MAX_ELEMENTS:  # the drawn labels of size 1: as
        shapes, output = einsum_shapes(attrs["equation"], {**sizes, **dict.fromkeys(drawn, 1)}, batches)  # x's
    first = x if bound else b.leaf(shapes[0])
    others = [_input(b, spec, n, shape=shape) for n, shape in enumerate(shapes[1:], start=1)]
    return _Plan([first] + others, output)


def _einsum_binding(labels: list, shape: tuple) -> tuple[dict, tuple] | None:
    """The label sizes and ellipsis dimensions of an operand of `shape` under `labels`, or None where it
    does not fit them (another rank; a repeated label over dimensions of different sizes)."""
    named = [label for label in labels if label != ELLIPSIS]
    extra = len(shape) - len(named)
    if extra < 0 or extra and ELLIPSIS not in labels:
        return None
    start = labels.index(ELLIPSIS) if ELLIPSIS in labels else len(labels)
    dims = shape[:start] + shape[start + extra:]
    sizes: dict = {}
    for label, size in zip(named, dims):
        if sizes.setdefault(label, size) != size:
            return None
    return sizes, tuple(shape[start:start + extra])


def _einsum_full_batch(b: _Builder, bound: tuple | None) -> tuple:
    """The ellipsis dimensions of the result: those of the bound operand, else one of 1 to 3 or two of 1 or 2."""
    if bound:
        return bound
    rank = int(b.rng.integers(1, 3))
    return tuple(int(b.rng.integers(1, 5 - rank)) for _ in range(rank))


def _einsum_operand_batch(b: _Builder, full: tuple) -> tuple:
    """An operand's ellipsis dimensions: a suffix of the full ones (none at times), some of them 1."""
    rank = int(b.rng.integers(len(full) + 1)) if full and b.chance(0.3) else len(full)
    return tuple(1 if b.chance(EINSUM_BROADCAST_ONE_CHANCE) else d for d in full[len(full) - rank:])


_PLANNERS = {"matrix": _linalg_plan, "square": _linalg_plan, "square_rhs": _linalg_plan, "unary": _unary_plan,
             "broadcast": _pair_plan, "same": _pair_plan, "concat": _pair_plan, "cross_entropy": _pair_plan, "matmul": _matrix_plan, "matvec": _matrix_plan, "clip": _clip_plan, "cross": _cross_plan,
             "least_squares": _least_squares_plan, "tridiagonal": _tridiagonal_plan,
             "bias": _bias_plan, "scalars": _one_hot_plan, "einsum": _einsum_plan}


# Segments and array ops (issue 24): the segment reductions draw ids as the segment sums do; the sparse ones
# (keyed by path: their last names are the segment sums') pick rows by indices, repeats included; repeat,
# strided_slice and the image rule's ops (a batch of images) draw what fits their input.
def _sparse_segment_shape(b: _Builder, shape: tuple, attrs: dict) -> tuple:
    """Indices into the rows (repeats at times), sorted segment ids for them (gaps at times), and at times the
    number of segments, never beyond the last id: past it TF's vectorized jacobian puts a segment's derivative in
    the wrong row (TF_ANOMALIES.md 11; tests/suite/test_ops.py's cases take such a num_segments)."""
    count = int(b.rng.integers(1, 5))
    attrs["indices"] = tuple(_with_a_repeat(b, [int(i) for i in b.rng.integers(0, shape[0], count)]))
    attrs["segment_ids"] = tuple(int(i) for i in np.sort(b.rng.integers(0, 3, count)))
    rows = attrs["segment_ids"][-1] + 1
    attrs["num_segments"] = rows if b.chance(0.5) else None
    return (attrs["num_segments"] or rows,) + shape[1:]


_UNARY_SHAPES.update({
    **{f"segment_{kind}": _segment_sum_shape for kind in ("mean", "min", "max", "prod")},
    **{f"unsorted_segment_{kind}": _unsorted_segment_sum_shape for kind in ("mean", "min", "max", "prod", "sqrt_n")},
})
_PATH_SHAPES = {f"sparse.segment_{kind}": _sparse_segment_shape for kind in ("sum", "mean", "sqrt_n")}



def _repeat_shape(b: _Builder, shape: tuple, attrs: dict) -> tuple:
    """One count (1 or 2) for every slice, or a count per slice (0 to 2) where the axis has at most 8;
    no axis: the flattened input."""
    if attrs["axis"] is None:
        shape = (int(np.prod(shape)),)
    axis = (attrs["axis"] or 0) % len(shape)
    if shape[axis] <= MAX_ATTRIBUTE_INTEGERS and b.chance(0.5):
        counts = [int(r) for r in b.rng.integers(0, 3, shape[axis])]
        counts[0] = counts[0] or int(not sum(counts))  # never an empty output (no op downstream takes one)
        attrs["repeats"], total = tuple(counts), sum(counts)
    else:
        attrs["repeats"] = int(b.rng.integers(1, 3))
        total = attrs["repeats"] * shape[axis]
    return shape[:axis] + (total,) + shape[axis + 1:]


def _strided_slice_shape(b: _Builder, shape: tuple, attrs: dict) -> tuple:
    """A spec (_strided_slice_spec) whose slice is not empty (the ops downstream take no empty tensors), or
    the whole tensor."""
    for _ in range(8):
        drawn = {}
        out = _strided_slice_spec(b, shape, drawn)
        if all(out):
            attrs.update(drawn)
            return out
    attrs.update(begin=(0,) * len(shape), end=(0,) * len(shape), strides=(1,) * len(shape),
                 begin_mask=(1 << len(shape)) - 1, end_mask=(1 << len(shape)) - 1, ellipsis_mask=0, new_axis_mask=0,
                 shrink_axis_mask=0)
    return shape


def _strided_slice_spec(b: _Builder, shape: tuple, attrs: dict) -> tuple:
    """A spec entry per axis: begin and end anywhere in or beyond the axis (negative ones too), strides of
    either sign, open begins and ends, an index dropping a nonempty axis, at times a new axis (below the
    largest rank) or an ellipsis standing for the first axis."""
    begins, ends, strides, key = [], [], [], []
    masks = dict.fromkeys(("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask"), 0)
    new_axis = int(b.rng.integers(len(shape))) if len(shape) < MAX_RANK and b.chance(0.2) else -1
    for i, size in enumerate(shape):
        if i == new_axis:
            masks["new_axis_mask"] |= 1 << len(key)
            key.append(None)
            begins.append(0), ends.append(0), strides.append(1)
        begin, end = (int(v) for v in b.rng.integers(-size - 1, size + 2, 2))
        stride = int(b.pick((1, 1, 2, -1, -2)))
        bit = 1 << len(key)
        if i == 0 and b.chance(0.1):
            masks["ellipsis_mask"] |= bit
            key.append(Ellipsis)
        elif size and b.chance(0.2):
            begin, stride = int(b.rng.integers(-size, size)), 1
            masks["shrink_axis_mask"] |= bit
            key.append(begin)
        else:
            opens = [b.chance(0.25), b.chance(0.25)]
            masks["begin_mask"] |= bit * opens[0]
            masks["end_mask"] |= bit * opens[1]
            key.append(slice(None if opens[0] else begin, None if opens[1] else end, stride))
        begins.append(begin), ends.append(end), strides.append(stride)
    attrs.update(begin=tuple(begins), end=tuple(ends), strides=tuple(strides), **masks)
    return np.empty(shape)[tuple(key)].shape


def _roll_shape(b: _Builder, shape: tuple, attrs: dict) -> tuple:
    """An axis of the input counted from the start (see the catalog entry), a shift of either sign."""
    attrs["axis"] = attrs["axis"] % len(shape)
    return shape


_UNARY_SHAPES["repeat"] = _repeat_shape
_UNARY_SHAPES["roll"] = _roll_shape
_UNARY_SHAPES["strided_slice"] = _strided_slice_shape


def _image_fits(t: _Tensor, spec: OpSpec) -> bool:
    shape, name = t.shape, _last(spec)
    if name.startswith("flip") or name in _WINDOW_SHAPES or name == "resize":
        return len(shape) in (3, 4) and all(shape[-3:])
    if len(shape) != 4:
        return False
    if name == "space_to_depth":
        return shape[1] % 2 == 0 and shape[2] % 2 == 0
    return shape[3] % 4 == 0


def _image_plan(b: _Builder, spec: OpSpec, x: _Tensor, attrs: dict) -> _Plan:
    """A batch of images (or one, for a flip) the op takes: the chain's where it fits, else a fresh one."""
    if not _image_fits(x, spec):
        x = b.leaf(spec.input_shapes((1, 4))[0])  # (1, 2, 2, 4): every image rule op takes it
    batch, height, width, depth = (1,) * (4 - len(x.shape)) + x.shape
    if _last(spec) == "space_to_depth":
        return _Plan([x], (batch, height // 2, width // 2, depth * 4))
    if _last(spec) == "depth_to_space":
        return _Plan([x], (batch, height * 2, width * 2, depth // 4))
    if _last(spec) == "resize":
        return _resize_plan(x, attrs)
    if _last(spec) in _WINDOW_SHAPES:
        return _Plan([x], x.shape[:-3] + _WINDOW_SHAPES[_last(spec)](*x.shape[-3:-1], attrs) + x.shape[-1:])
    return _Plan([x], x.shape)


def _resize_plan(x: _Tensor, attrs: dict) -> _Plan:
    """tf.image.resize's output: float32 from bilinear; an aspect-preserving fit that would round a side to 0
    (TF's InvalidArgumentError) resized to the size as given instead."""
    height, width = x.shape[-3:-1]
    size = resized_size(attrs["size"], height, width, attrs["preserve_aspect_ratio"])
    if 0 in size:
        attrs["preserve_aspect_ratio"] = False
        size = tuple(attrs["size"])
    dtype = "float32" if attrs["method"] == "bilinear" else None
    return _Plan([x], x.shape[:-3] + size + x.shape[-1:], dtype)


_PLANNERS["image"] = _image_plan


# Pooling and normalisation: channels-last inputs of the rule's rank (a batch, the spatial sides, the channels),
# attributes kept valid for them (VALID windows no larger than the input: SAME instead), and the pooled shape.
def _pool_rank(spec: OpSpec) -> int:
    return int(spec.shape_rule[-2]) + 2


def _pool_fits(t: _Tensor, spec: OpSpec) -> bool:
    return len(t.shape) == _pool_rank(spec) and 0 < t.size <= MAX_ELEMENTS


def _pool_leaf_shape(b: _Builder, spec: OpSpec) -> tuple:
    """A batch of 1 or 2, spatial sides of 1 to 4 (1 to 3 in 3-d), 1 or 2 channels: at most MAX_ELEMENTS elements."""
    spatial = _pool_rank(spec) - 2
    side = 4 if spatial < 3 else 3
    shape = (int(b.rng.integers(1, 3)), *(int(b.rng.integers(1, side + 1)) for _ in range(spatial)),
             int(b.rng.integers(1, 3)))
    return shape if math.prod(shape) <= MAX_ELEMENTS else (1,) + shape[1:-1] + (1,)


def _per_spatial_axis(value, spatial: int) -> list:
    """ksize, strides or window_shape in any form TF takes, one value per spatial axis."""
    values = list(value) if isinstance(value, (tuple, list)) else [value]
    if len(values) == spatial + 2:
        return values[1:-1]
    return values * spatial if len(values) == 1 else values


def _pool_plan(b: _Builder, spec: OpSpec, x: _Tensor, attrs: dict) -> _Plan:
    name = _last(spec)
    if name == "local_response_normalization":
        return _Plan([x], x.shape)
    spatial = len(x.shape) - 2
    window = _per_spatial_axis(attrs.get("ksize", attrs.get("window_shape")), spatial)
    steps = _per_spatial_axis(attrs["strides"], spatial)
    sides = x.shape[1:-1]
    if attrs["padding"] == "VALID" and any(d < k for d, k in zip(sides, window)):
        attrs["padding"] = "SAME"
    if attrs["padding"] == "SAME":
        pooled = tuple(-(-d // s) for d, s in zip(sides, steps))
    else:
        pooled = tuple((d - k) // s + 1 for d, k, s in zip(sides, window, steps))
    shape = x.shape[:1] + pooled + x.shape[-1:]
    return _Plan([x], shape, element=0 if name == "max_pool_with_argmax" else None)


def _batch_norm_plan(b: _Builder, spec: OpSpec, x: _Tensor, attrs: dict) -> _Plan:
    """Per-channel statistics and parameters (the last axis), the variance from its positive domain."""
    channels = x.shape[-1:]
    return _Plan([x] + [_input(b, spec, n, shape=channels) for n in range(1, 5)], x.shape)


_PLANNERS.update({"pool1d": _pool_plan, "pool2d": _pool_plan, "pool3d": _pool_plan, "batch_norm": _batch_norm_plan})


# ---------------------------------------------------------------------------------------------
# Convolutions: the input (the chain's where its rank fits, at least one of everything) and filters drawn for it,
# windows that fit VALID padding, and the output's shape as TF's windowed sizes give it (through space-to-batch
# for dilations, where strides apply to the phases)

_CONV_RANKS = {"conv1d": 3, "conv2d": 4, "conv3d": 5, "depthwise": 4, "separable": 4, "conv1d_transpose": 3,
               "conv2d_transpose": 4, "conv3d_transpose": 5}


def _conv_fits(t: _Tensor, spec: OpSpec) -> bool:
    grows = 4 if spec.shape_rule.endswith("transpose") else 2  # a stride of 2 doubles each spatial side
    return len(t.shape) == _CONV_RANKS[spec.shape_rule] and all(t.shape) and grows * t.size <= MAX_ELEMENTS


def _conv_leaf_shape(b: _Builder, spec: OpSpec) -> tuple:
    rank = _CONV_RANKS[spec.shape_rule]
    spatial = tuple(int(b.rng.integers(1, 4 if rank < 5 else 3)) for _ in range(rank - 2))
    return (int(b.rng.integers(1, 3)),) + spatial + (int(b.rng.integers(1, 3)),)


def _per_dimension(value, n: int) -> tuple:
    """Strides or dilations of the spatial dimensions, from one value, n of them or n + 2."""
    if value is None:
        return (1,) * n
    value = (value,) if isinstance(value, int) else tuple(value)
    return value[1:-1] if len(value) == n + 2 else value * n if len(value) == 1 else value


def _windowed(size: int, window: int, stride: int, dilation: int, padding, before: int = 0, after: int = 0) -> int:
    """TF's windowed output size (for a window that fits)."""
    effective = (window - 1) * dilation + 1
    if padding == "SAME":
        return -(-size // stride)
    return (size + before + after - effective) // stride + 1


def _phased(size: int, window: int, stride: int, rate: int, padding, before: int = 0, after: int = 0) -> int:
    """The output size of a convolution dilated by `rate` through space-to-batch."""
    base = (window - 1) * rate if padding == "SAME" else before + after
    extra = (rate - (size + base) % rate) % rate
    phase = (size + base + extra) // rate
    return ((phase - window) // stride + 1) * rate - extra


def _conv_window(b: _Builder, size: int, dilation: int, room: int) -> int:
    """A window of 1 or 2 (3 at times) that fits in `room` padded positions at `dilation`."""
    largest = max(1, min(3, (room - 1) // dilation + 1))
    return int(b.rng.integers(1, largest + 1))


def _conv_plan(b: _Builder, spec: OpSpec, x: _Tensor, attrs: dict) -> _Plan:
    rule = spec.shape_rule
    if not _conv_fits(x, spec):
        x = b.leaf(_conv_leaf_shape(b, spec))
    batch, spatial, channels = x.shape[0], x.shape[1:-1], x.shape[-1]
    n = len(spatial)
    if rule.endswith("transpose"):
        outputs = int(b.rng.integers(1, 3))
        window = tuple(int(b.rng.integers(1, 3)) for _ in spatial)
        w = _input(b, spec, 1, shape=window + (outputs, channels))
        sizes = transposed_sizes(spatial, window, attrs["strides"], attrs["padding"])
        return _Plan([x, w], (batch,) + sizes + (outputs,))
    strides_name = "stride" if "stride" in attrs else "strides"
    strides = _per_dimension(attrs[strides_name], n)
    dilations = _per_dimension(attrs.get("dilations"), n)
    if _last(spec) == "convolution" and max(strides) > 1 and max(dilations) > 1:
        attrs["dilations"], dilations = None, (1,) * n  # TF refuses both at once
    if _last(spec) == "conv2d" and not isinstance(attrs["padding"], str):
        # TF's vectorized jacobian rebuilds Conv2DBackpropFilter without its explicit paddings (an error where
        # the filter's gradient is needed; the per-op tests cover explicit padding)
        attrs["padding"] = "VALID"
    padding = attrs["padding"]
    pads = [(0, 0)] * n if isinstance(padding, str) else [EXPLICIT_PADDING[2 + 2 * i:4 + 2 * i] for i in range(n)]
    phased = max(dilations) > 1 and _last(spec) != "conv2d"  # space-to-batch (conv2d dilates natively)
    window = tuple(_conv_window(b, size, 1 if phased else d, -(-(size + sum(p)) // d) if phased else size + sum(p))
                   for size, d, p in zip(spatial, dilations, pads))
    if phased:
        out = tuple(_phased(size, k, s, d, padding, *p)
                    for size, k, s, d, p in zip(spatial, window, strides, dilations, pads))
    else:
        out = tuple(_windowed(size, k, s, d, padding, *p)
                    for size, k, s, d, p in zip(spatial, window, strides, dilations, pads))
    outputs = int(b.rng.integers(1, 3))
    if rule == "depthwise":
        w = _input(b, spec, 1, shape=window + (channels, outputs))
        return _Plan([x, w], (batch,) + out + (channels * outputs,))
    if rule == "separable":
        multiplier = int(b.rng.integers(1, 3))
        depthwise = _input(b, spec, 1, shape=window + (channels, multiplier))
        pointwise = _input(b, spec, 2, shape=(1, 1, channels * multiplier, outputs))
        return _Plan([x, depthwise, pointwise], (batch,) + out + (outputs,))
    w = _input(b, spec, 1, shape=window + (channels, outputs))
    return _Plan([x, w], (batch,) + out + (outputs,))


_PLANNERS.update(dict.fromkeys(CONV_RULES, _conv_plan))


def _real(dtype: str) -> str:
    return {"complex64": "float32", "complex128": "float64"}.get(dtype, dtype)


def _output_dtype(spec: OpSpec, x: _Tensor, plan: _Plan) -> str | None:
    """The dtype of what the op feeds onward, or None when its output is only reported (bool, int)."""
    if spec.output in ("bool", "int32", "int64"):
        return None
    if spec.output == "real" or spec.path.endswith("abs") and x.dtype.startswith("complex"):
        return _real(x.dtype)
    if spec.output == "complex":
        return "complex128" if x.dtype == "float64" else "complex64"
    return plan.dtype or x.dtype


# The input position the chain feeds, where it is not the first: cross entropies take fresh labels
# (their first input) and the chain as logits, from the logits' domain.
_CHAIN_POSITION = {"cross_entropy": 1}


def _add_op(b: _Builder, spec: OpSpec) -> None:
    """Appends one op of `spec` whose inputs fit its shape rule; its output joins the frontier, and
    its inputs leave it (except where the op cuts the gradient: they stay targets too). Now and then
    its chain input is a Python list the op packs, or one of its fresh constant operands a Python or
    NumPy value it converts."""
    first_fresh = b.counter + 1
    x = _input(b, spec, _CHAIN_POSITION.get(spec.shape_rule, 0))
    if spec.shape_rule in ("unary", "broadcast", "same") and not spec.has(PARTITIONED) and b.chance(
            PACKED_INPUT_CHANCE):
        x = _packed(b, spec, x)
    attrs = {name: b.pick(choices) for name, choices in spec.attrs.items()}
    omitted = [name for name in attrs if not b.allows(keyword_name(spec.path, name))]  # optional ones (has_op)
    attrs.update((name, spec.attrs[name][0]) for name in omitted)  # the default a call without the keyword takes
    if isinstance(attrs.get("axis"), int) and not -len(x.shape) <= attrs["axis"] < len(x.shape):
        attrs["axis"] = 0
    if spec.has(NORMALIZING) and x.gradient or _last(spec) == "l2_normalize" and (
            x.size if attrs.get("axis") is None else x.shape[attrs["axis"]]) == 1:
        # Along a single element l2_normalize's gradient cancels exactly, and TF's vectorized float32
        # rsqrt leaves rounding where reftape leaves 0 (KNOWN_DIVERGENCES 5); a gradient's result may be
        # exactly 0 in exact arithmetic and hold rounding noise (the NORMALIZING trait): a wider leaf instead.
        x = b.leaf((2, 3))
    _vary_axis(b, spec, x, attrs)
    plan = _PLANNERS[spec.shape_rule](b, spec, x, attrs)
    if spec.arity >= 2 and not (b.dtype == "bfloat16" and spec.shape_rule in ("matmul", "matvec")) and not (
            spec.shape_rule.endswith("transpose")) and b.chance(  # (a convolution transpose reads its operands' shapes)
            LITERAL_OPERAND_CHANCE):  # a NumPy float32 operand of a bfloat16 matmul: TF's SparseMatMul path
        _literal_operand(b, spec, plan, first_fresh)
    name = b.fresh("y")
    b.emit(Op(name, spec.path, [t.name for t in plan.inputs], {k: v for k, v in attrs.items() if k not in omitted}))
    dtype = _output_dtype(spec, x, plan)
    if dtype is None:
        if spec.output == "bool" and plan.element is None:
            b.booleans.append(name)
        return
    out = b.output(name if plan.element is None else f"{name}[{plan.element}]", plan.shape, dtype, plan.inputs,
                   spec.path, path=spec.path)
    if spec.gradient == "gradient":
        consumed = [item for t in plan.inputs for item in (t.inputs if t.kind == "list" else (t,))]
        b.frontier = [t for t in b.frontier if t not in consumed]
    b.frontier.append(out)
    if dtype == b.dtype:
        b.tensors.append(out)


def _packed(b: _Builder, spec: OpSpec, x: _Tensor) -> _Tensor:
    """`[x, ...]` in place of `x`, where the op may take a tensor one rank higher: x with tensors of its
    shape and dtype (x itself again at times) and now and then a Python literal of that shape, in
    any order; the list as the op's input (TF packs it, recording a Pack that passes the gradient to
    each tensor)."""
    pseudo = _Tensor("", (2,) + x.shape, x.dtype, 0)
    if len(x.shape) >= MAX_RANK or 2 * x.size > MAX_ELEMENTS or not _fits(pseudo, spec):
        return x
    partners = [t for t in b.usable(spec) if t.shape == x.shape and t.dtype == x.dtype]
    items = [x]
    for _ in range(int(b.rng.integers(1, 3)) if 3 * x.size <= MAX_ELEMENTS else 1):
        if b.chance(0.2):
            items.append(_literal(b, _array(b.rng, x.dtype, x.shape, spec.domains[0]), "python"))
        else:
            items.append(b.pick(partners) if partners and b.chance(0.7) else x)
    order = b.rng.permutation(len(items))
    items = [items[i] for i in order]
    name = b.fresh("s")
    b.emit(ListLiteral(name, [t.name for t in items]))
    packed = b.output(name, (len(items),) + x.shape, x.dtype, items, depth=max(t.depth for t in items))
    packed.kind = "list"
    return packed


def _literal(b: _Builder, value: np.ndarray, kind: str) -> _Tensor:
    """A fresh Python (or NumPy) value holding `value` in a form TF converts (see `_literal_value`)."""
    value = _literal_value(b, value, kind)
    name = b.fresh("p")
    b.emit(Leaf(name, kind, value, value.dtype.name))
    return _Tensor(name, tuple(value.shape), value.dtype.name, b.counter, kind=kind, value=value)


def _literal_value(b: _Builder, value: np.ndarray, kind: str) -> np.ndarray:
    """`value` as a Python or NumPy leaf holds it: Python floats, complex numbers or ints (a float's
    value rounded, now and then); NumPy values of its dtype (float32 for bfloat16) or, for floats,
    float64 now and then (which TF casts to the dtype it converts to)."""
    value = np.asarray(value)
    if kind == "python":
        if value.dtype.kind == "c":
            return value.astype(np.complex128)
        if value.dtype.kind in "iu" or b.chance(0.2):
            return np.round(value.astype(np.float64)).astype(np.int64)
        return value.astype(np.float64)
    if value.dtype.kind == "f" and b.chance(0.3) or value.dtype.name == "bfloat16":
        return value.astype(np.float64 if value.dtype.name != "bfloat16" or b.chance(0.5) else np.float32)
    return value


def _literal_operand(b: _Builder, spec: OpSpec, plan: _Plan, first_fresh: int) -> None:
    """One of the op's fresh constant operands (drawn for it, used once) becomes a Python or NumPy value
    holding the same elements (its special points kept); the chain's operand mostly stays a tensor, and
    matmul's first operand always: converted alone, a float32 one beside a bfloat16 b takes TF's
    SparseMatMul path, which reftape does not model."""
    first = spec.shape_rule not in ("matmul", "matvec") and b.chance(0.2)
    fresh = [i for i, t in enumerate(plan.inputs) if t.kind == "constant" and t.serial >= first_fresh
             and plan.inputs.count(t) == 1 and (i > 0 or first)
             and spec.domains[min(i, spec.arity - 1)] != "simplex"]  # as Python floats, labels convert to float32
    # and their rows no longer sum to 1 (KNOWN_DIVERGENCES.md 1: TF's answer then depends on op determinism)
    if not fresh:
        return
    position = b.pick(fresh)
    t = plan.inputs[position]
    literal = _literal(b, t.value, "python" if b.chance(0.55) else "numpy")
    b.body[:] = [s for s in b.body if getattr(s, "name", None) != t.name and not (isinstance(s, Watch)
                                                                                  and s.names == [t.name])]
    for pool in (b.leaves, b.tensors, b.integers, b.frontier):
        if t in pool:
            pool.remove(t)
    plan.inputs[position] = literal


def _vary_axis(b: _Builder, spec: OpSpec, x: _Tensor, attrs: dict) -> None:
    """An axis attribute in the other forms TF takes: now and then counted from the end (an op's VJP
    must count it back), and, for a reduction whose catalog entry lists several axes, distinct axes
    of the input in any order, some counted from the end. (Ops that draw their own axis, one_hot and
    expand_dims, replace it afterwards.)"""
    axis = attrs.get("axis")
    if isinstance(axis, tuple) and spec.has(REDUCTION):
        attrs["axis"] = _several_axes(b, len(x.shape))
        return
    rank = len(x.shape) + (spec.path == "stack")  # stack's axis counts the new dimension
    if isinstance(axis, int) and 0 <= axis < rank and b.chance(NEGATIVE_AXIS_CHANCE):
        attrs["axis"] = axis - rank


def _several_axes(b: _Builder, rank: int) -> tuple:
    """Two or more distinct axes of a tensor of `rank` (one for a vector), in random order."""
    count = int(b.rng.integers(2, rank + 1)) if rank >= 2 else 1
    return tuple(int(a) - rank if b.chance(NEGATIVE_AXIS_CHANCE) else int(a) for a in b.rng.permutation(rank)[:count])


# tf.signal's real FFTs: rfft halves the last axis to n // 2 + 1 bins (complex), an inverse doubles it to
# 2 (n - 1) samples (real); an inverse takes at least 2 bins (TF aborts on a transform of 0 samples)
def _signal_plan(b: _Builder, spec: OpSpec, x: _Tensor, attrs: dict) -> _Plan:
    if not x.shape:
        x = b.leaf((2,))
    return _Plan([x], x.shape[:-1] + (x.shape[-1] // 2 + 1 if x.shape[-1] else 0,))


INTERIOR_BINS_CHANCE = 0.5


def _spectrum_plan(b: _Builder, spec: OpSpec, x: _Tensor, attrs: dict) -> _Plan:
    """A spectrum of 2 or more bins; one of 2 is replaced by a fresh one of 3 at INTERIOR_BINS_CHANCE, as only
    bins between the first and the last stand for their mirror images too (which the gradient doubles)."""
    if not x.shape or x.shape[-1] == 1:
        x = b.leaf(x.shape[:-1] + (2,))
    elif x.shape[-1] == 2 and b.chance(INTERIOR_BINS_CHANCE):
        x = b.leaf(x.shape[:-1] + (3,))
    return _Plan([x], x.shape[:-1] + (max(0, 2 * (x.shape[-1] - 1)),))


_PLANNERS.update({"signal": _signal_plan, "spectrum": _spectrum_plan})


# tf.image's crops and pads: the drawn window or frame fitted to the image's height and width; its spatial size
def _crop_window(height: int, width: int, attrs: dict) -> tuple:
    for side, size in (("height", height), ("width", width)):
        attrs[f"offset_{side}"] = min(attrs[f"offset_{side}"], size - 1)
        attrs[f"target_{side}"] = min(attrs[f"target_{side}"], size - attrs[f"offset_{side}"])
    return attrs["target_height"], attrs["target_width"]


def _pad_frame(height: int, width: int, attrs: dict) -> tuple:
    for side, size in (("height", height), ("width", width)):
        attrs[f"target_{side}"] = max(attrs[f"target_{side}"], size + attrs[f"offset_{side}"])
    return attrs["target_height"], attrs["target_width"]


def _central_window(height: int, width: int, attrs: dict) -> tuple:
    fraction = attrs["central_fraction"]
    return tuple(size - 2 * int((float(size) - float(size) * fraction) / 2) for size in (height, width))


def _resized_frame(height: int, width: int, attrs: dict) -> tuple:
    return attrs["target_height"], attrs["target_width"]


_WINDOW_SHAPES: dict = {}  # dispatch: each crop's or pad's spatial size, by the op's last name
_WINDOW_SHAPES["crop_to_bounding_box"] = _crop_window
_WINDOW_SHAPES["pad_to_bounding_box"] = _pad_frame
_WINDOW_SHAPES["resize_with_crop_or_pad"] = _resized_frame
_WINDOW_SHAPES["central_crop"] = _central_window
