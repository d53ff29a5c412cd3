"""Hypothesis strategies for shapes, dtypes, values and whole programs aimed at gradient paths.

A program is drawn in two parts. Hypothesis draws only its skeleton: dtype, number of ops,
differentiation order and one seed; everything else (which ops, their inputs and attributes, leaf
values, tape options, sources, output gradients) is derived from that seed with NumPy. Generation
therefore costs a handful of Hypothesis draws per program, and shrinking still works: toward
float32, fewer ops, first order, and seed 0. Each op draws from its own seeded stream, so a program
with fewer ops keeps the prefix of the larger one.

Programs are valid by construction (no filtering) and aimed at gradient paths:
- ops form a DAG: each op consumes the unconsumed outputs of earlier ops (the frontier) where it
  can, and the gradient targets are what is left unconsumed, so every op lies on a path to a target;
- sources are chosen among the leaves and intermediates that reach the targets (now and then the
  inputs of a target's own op), plus now and then an unconnected one (an unused leaf, an integer
  leaf) or a target the tape does not hold (an unwatched constant, also a source);
- one program in three is a second- or third-order chain: a gradient computed under an outer tape
  is fed into further ops and differentiated again by that tape; and a persistent tape often
  records its own gradient computation: a gradient taken inside its block feeds one more op, and a
  later call on the same tape differentiates through both (second order through every op); the
  outer tape watches the first call's output gradients and often differentiates by them (the VJP
  of each VJP in its upstream argument), and the fed gradient's source is often the chain's root
  or a leaf at an op's special point;
- output gradients are random (values, zeros, negatives, some elements zero); special points of each op (ties, zeros
  of reduce_prod and cumprod, non-positive bases of pow with a watched exponent, kinks) are planted
  in the leaves it consumes, one of the op's own at one element in half of them, and such a leaf is
  often a source; operands are often the same tensor or of the same shape (fast paths),
  and shapes have size-1 dimensions;
- gradient calls sit inside a tape's `with` block as well as after it; dict and namedtuple sources
  and targets are inserted in unsorted key order, output gradients come in the targets' structure
  (dicts reinserted in another order) or as a flat list in TF's flattening order (which pairs them),
  a target or a source is now and then listed twice, and jacobians take sources of every structure; leaves of another dtype (integers, a float of another
  precision) are consumed by casts and offered as sources; leaves are watched inside stop_recording
  spans and used after them; an op's output is now and then watched after the tape recorded it;
  outputs of ops without a gradient (stop_gradient, round, comparisons) are offered as sources;
  `watched_variables()` follows Variables watched, assigned or read (by a recorded op, or by
  stop_gradient, which TF runs with the tapes paused) newest first; jacobians take an unconnected
  source often; half-precision programs draw composite ops (a mean among them) more often, and their
  inputs come near the dtype's largest values (for float16, a pair of them summing past it along the
  last axis);
  float32 and float64 leaves hold subnormals now and then;
- attributes take TF's other forms: an axis now and then counted from the end, reductions over
  several axes, matmul's operands transposed or adjoint and its second operand a stack of matrices
  (the first broadcasts over it); tensors with an empty dimension go through reductions, softmax,
  scans and transposes as well as elementwise ops (into a jacobian, or set aside from the other ops
  and calls, whose every op otherwise lies on a gradient path); a tape around a level lists its watched
  variables after that level's calls (what the calls read);
- ops receive what TF converts itself: one of an op's fresh constant operands becomes a Python number
  or nested list, or a NumPy scalar or array (its dtype, or float64 for floats), holding the same
  elements; and an op's chain input becomes now and then a Python list of tensors (Variables among
  them, the same tensor twice, a Python literal beside them), which TF packs with a recorded Pack
  (never into embedding_lookup, where a list is a partitioned table); neither is ever a source;
- what KNOWN_DIVERGENCES.md explains is avoided, not drawn and excused: softmax cross entropy's
  labels are never a source for a tape that may have recorded a gradient computation (entry 1).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from hypothesis import strategies as st

from reftape_oracle.catalog import CATALOG, DTYPES, FLOATS, MATRIX_RULES, OpSpec, flipped
from reftape_oracle.program import (Apply, Assign, Call, CustomGradient, Leaf, ListLiteral, Op, Program, ReadValue,
                                    Reset, StopRecording, Structure, Tape, Watch, WatchedVariables, flat_references,
                                    pack_references)

# Orders matter: Hypothesis shrinks sampled_from toward the first element (DTYPES too).
UNCONNECTED = (("none", "default"), ("none", "string"), ("zero", "string"), ("none", "enum"), ("zero", "enum"))
METHODS = ("gradient", "jacobian", "batch_jacobian")
STRUCTURES = ("single", "list", "tuple", "dict", "nested", "namedtuple")
DICT_KEYS = ("w", "b", "a", "z", "m", "c", "x", "e", "q", "d", "y", "h")  # more than most calls have sources or targets

DOMAINS = {  # (low, high) of magnitudes drawn, and the special points worth hitting
    "any": ((-3.0, 3.0), (0.0, -0.0, 1.0, -1.0)),
    "positive": ((0.1, 4.0), (1.0, 0.5)),
    "nonzero": ((0.25, 3.0), (1.0, -1.0)),
    "unit": ((-1.0, 1.0), (0.0, 0.5)),
    "prob": ((0.0, 1.0), (0.0, 0.5, 1.0)),
    "simplex": ((0.0, 1.0), ()),
    "neg": ((-3.0, -0.1), (-1.0,)),
    "pos": ((0.1, 3.0), (1.0,)),
    "above_one": ((1.0, 4.0), (1.0, 2.0)),
    "invertible": ((-1.0, 1.0), ()),  # matrices: see structured_matrices
    "spd": ((-1.0, 1.0), ()),
}
EXTREMES = (1e-6, -1e-6, 30.0, -30.0)  # huge and tiny magnitudes for the "any" domain (not complex)
# Below the smallest normal (the smallest subnormal among them): TF's kernels read them as zero in their
# vector loops and as they are in their scalar loops and selects (reftape/kernels/subnormal.py)
SUBNORMALS = {"float32": (1e-39, -1e-39, 1.4e-45), "float64": (1e-310, -1e-310, 5e-324)}
LARGEST = {"float16": (65504.0, -65504.0, 60000.0, 300.0),  # near the dtype's largest finite value, and
           "bfloat16": (3.3895314e38, -3.0e38, 1.0e38, 2.0e19)}  # values whose squares overflow
# A leaf drawn for an op holds one of the op's own special points (relu6's 6, a half type's near-overflow
# values under a composite) at one element this often, whatever else the domain mixes in.
OWN_SPECIAL_CHANCE = 0.5
MAX_ELEMENTS = 48                      # ops that grow tensors take inputs that keep outputs this small
MAX_RANK = 4
MAX_ATTRIBUTE_INTEGERS = 8  # the longest integer array an attribute holds (oracle/validation.py)
# Ops whose attribute holds an integer per row of their input (segment ids, labels)
ROW_ATTRIBUTES = frozenset({"segment_sum", "unsorted_segment_sum", "sparse_softmax_cross_entropy_with_logits"})
# Ops indexing the rows of their first input with N-d indices held flat, the index depth first
# (catalog.index_rows): at most MAX_ATTRIBUTE_INTEGERS - 1 rows
INDEXED_ROWS = frozenset({"scatter_nd", "tensor_scatter_nd_update", "tensor_scatter_nd_add"})
NEGATIVE_AXIS_CHANCE = 0.3  # an axis attribute counted from the end instead
BATCHED_MATMUL_CHANCE = 0.25  # matmul's second operand a stack of matrices
ENCLOSING_WATCHED_VARIABLES = 0.3  # watched_variables() of an enclosing tape after a level's calls
LITERAL_OPERAND_CHANCE = 0.2  # an op of several inputs takes one as a Python or NumPy value it converts itself
PACKED_INPUT_CHANCE = 0.04  # an op takes a Python list of tensors (and literals), which TF packs (recording a Pack)
PARTITIONED = frozenset({"embedding_lookup"})  # a list there is a partitioned table, not a tensor to pack
CONVERTED = ("python", "numpy", "list")  # kinds of what ops convert themselves: never a gradient's source or target
MAX_CHAIN = 4  # longer chains amplify rounding beyond any per-op tolerance: they start again from leaves
# Magnitudes, by the last part of an op's path. Ill-conditioned ops (a large input turns one ulp of
# difference between two correct implementations into many) never consume what amplifying ops may
# have made large; bounded ops make anything small again.
AMPLIFYING = frozenset({"exp", "expm1", "sinh", "cosh", "square", "pow", "reduce_prod", "cumprod", "reciprocal",
                        "rsqrt", "divide", "truediv", "xdivy", "divide_no_nan", "tan", "l2_loss", "squared_difference",
                        "multiply", "matmul", "einsum", "inv", "det", "solve", "triangular_solve", "polygamma", "zeta"})
ILL_CONDITIONED = frozenset({"exp", "expm1", "sinh", "cosh", "sin", "cos", "tan", "tanh", "sigmoid", "pow",
                             "log_sigmoid", "softplus", "erf", "erfc", "gelu", "silu", "elu", "selu", "reduce_prod",
                             "cumprod", "square", "reduce_logsumexp", "softmax", "log_softmax",
                             "softmax_cross_entropy_with_logits", "sigmoid_cross_entropy_with_logits",
                             "sparse_softmax_cross_entropy_with_logits", "cumulative_logsumexp"})
# Ops built of several steps that TF computes in the input's precision: a half-precision input near
# the dtype's largest value overflows in an intermediate step (squares, sums, exps; the sum a mean divides).
COMPOSITE = frozenset({"reduce_std", "reduce_variance", "norm", "reduce_euclidean_norm", "l2_normalize", "clip_by_norm",
                       "global_norm", "clip_by_global_norm", "moments", "reduce_mean",
                       "reduce_logsumexp", "l2_loss"})
HALF_COMPOSITE_SHARE = 0.15  # of the ops drawn in a half-precision program, beyond their uniform share
# Ops whose gradient divides by a norm of their input (x / |x|): at a gradient's result that is exactly 0 in
# exact arithmetic (that of a shift-invariant op, or of solve(a, a)) and holds rounding noise in TF, the
# noise's direction, of any size, against reftape's exact zero's NaN.
NORMALIZING = frozenset({"l2_normalize", "norm", "reduce_euclidean_norm", "clip_by_norm", "global_norm",
                         "clip_by_global_norm"})
BOUNDED = frozenset({"sin", "cos", "tanh", "sigmoid", "erf", "erfc", "softsign", "softmax", "l2_normalize", "atan",
                     "sign", "clip_by_value", "relu6"})


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


def _check_shape(shape: Any) -> None:
    if not isinstance(shape, tuple) or not all(isinstance(d, int) and d >= 0 for d in shape):
        raise ValueError(f"shape={shape!r} must be a tuple of non-negative integers")


def broadcastable_shapes(shape: tuple, *, min_rank: int = 0) -> st.SearchStrategy:
    """Shapes that broadcast against `shape`: a suffix of it, with some sides replaced by 1.
    Shrinks toward the shortest suffix, then toward keeping sides (not 1)."""
    _check_shape(shape)
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


def _array(rng: np.random.Generator, dtype: str, shape: tuple, domain: str = "any", specials: tuple = (),
           patterns: tuple = (), allow_nan: bool = False, allow_infinity: bool = False) -> np.ndarray:
    """An array of `dtype` and `shape` from `domain`, about one element in five a special point (the
    domain's and `specials`), sometimes an exact tie between two elements, sometimes one of the
    tensor `patterns` (e.g. [0, 2, 3] for reduce_prod) written along the last axis."""
    (low, high), points = DOMAINS[domain]
    size = int(np.prod(shape)) if shape else 1
    if dtype.startswith("int"):
        return rng.integers(-3, 4, size).astype(dtype).reshape(shape)
    flat = rng.uniform(low, high, size)
    if dtype.startswith("complex"):  # complex values stay clear of overflow: see KNOWN_DIVERGENCES 2
        specials = tuple(s for s in specials if abs(s) <= 4.0)
        patterns = tuple(p for p in patterns if all(abs(v) <= 4.0 for v in p))
    pool = list(points) + [s for s in specials if math.isfinite(s) or rng.random() < 0.15]
    if domain == "any" and not dtype.startswith("complex"):
        pool += [x for x in EXTREMES if rng.random() < 0.25]
        pool += [x for x in LARGEST.get(dtype, ()) if rng.random() < 0.05]
    if domain in ("any", "positive", "unit") and dtype in SUBNORMALS:
        pool += [x for x in SUBNORMALS[dtype] if (x > 0 or domain != "positive") and rng.random() < 0.15]
    pool += [math.nan] * allow_nan + [math.inf, -math.inf] * allow_infinity
    if pool:
        special = rng.random(size) < 0.2
        flat[special] = rng.choice(np.array(pool, dtype=np.float64), int(special.sum()))
    own = [s for s in specials if math.isfinite(s)]
    if own and rng.random() < OWN_SPECIAL_CHANCE:  # the op's own points, not diluted by the domain's
        flat[rng.integers(size)] = own[rng.integers(len(own))]
    if size >= 2 and rng.random() < 0.3:
        first, second = rng.choice(size, 2, replace=False)
        flat[second] = flat[first]
    patterns = [p for p in patterns if all(math.isfinite(v) for v in p) or rng.random() < 0.15]
    if patterns and rng.random() < 0.5:
        pattern = patterns[rng.integers(len(patterns))]
        if len(pattern) <= size:
            flat[:len(pattern)] = pattern  # row 0 along the last axis when it is long enough
    array = flat.reshape(shape)
    if domain == "simplex" and array.ndim:
        array = (array + 0.05) / (array + 0.05).sum(axis=-1, keepdims=True)
    if dtype.startswith("complex"):
        # No parts below 1e-3 in magnitude (KNOWN_DIVERGENCES 2), no 0+0j (a pole of many ops), and
        # no purely imaginary values: TF's scalar and vector loops give their results zeros of
        # different signs, which then land on either side of a branch cut (asinh, atan, log).
        array = np.where(np.abs(array) < 1e-3, 1.0, array)
        imaginary = rng.uniform(1e-3, 1.0, size) * rng.choice((-1.0, 1.0), size)
        imaginary[rng.random(size) < 0.2] = 0.0
        array = array + 1j * imaginary.reshape(shape)
    array = structured_matrices(array, domain)
    with np.errstate(over="ignore"):
        return array.astype(_numpy_dtype(dtype))


def structured_matrices(array: np.ndarray, domain: str) -> np.ndarray:
    """Square matrices of entries in (-1, 1) made well conditioned for a factorisation's domain: n added
    to the diagonal ("invertible": diagonally dominant), and first made Hermitian ("spd": then positive
    definite, its diagonal exactly real). Other arrays and domains are returned as they are."""
    if domain not in ("invertible", "spd") or array.ndim < 2 or array.shape[-1] != array.shape[-2]:
        return array
    size = array.shape[-1]
    if domain == "spd":
        array = (array + np.conj(np.swapaxes(array, -1, -2))) / 2
    return array + size * np.eye(size)


def values(dtype: str, shape: tuple, *, domain: str = "any", specials: tuple = (), allow_nan: bool = False,
           allow_infinity: bool = False) -> st.SearchStrategy:
    """Arrays of `dtype` and `shape` drawn from `domain`, mixing in the domain's special points,
    `specials` (exact ties, kinks), huge and tiny magnitudes; NaN and inf only when allowed. One
    Hypothesis draw (a seed) per array, whatever its size; shrinks toward seed 0."""
    if dtype not in DTYPES and dtype not in ("int32", "int64"):
        raise ValueError(f"dtype={dtype!r} is not one of {DTYPES + ('int32', 'int64')}")
    if domain not in DOMAINS:
        raise ValueError(f"domain={domain!r} is not one of {sorted(DOMAINS)}")
    _check_shape(shape)
    return st.integers(0, 2**32 - 1).map(
        lambda seed: _array(np.random.default_rng(seed), dtype, shape, domain, tuple(specials), (), allow_nan,
                            allow_infinity))


# ---------------------------------------------------------------------------------------------
# Programs


@dataclass(eq=False)
class _Tensor:
    name: str
    shape: tuple
    dtype: str
    serial: int                       # creation order: sorts sets of tensors reproducibly
    reaches: frozenset = frozenset()  # the tensors this one depends on (transitively), by identity
    kind: str = "op"                  # "op", "constant", "variable", "python", "numpy" or "list" (a ListLiteral)
    depth: int = 0                    # ops on the longest path from a leaf
    large: bool = False               # may be large in magnitude (see AMPLIFYING)
    trainable: bool = True
    inputs: tuple = ()                # the tensors the op that made this one consumed
    path: str = ""                    # the catalog op that made this one
    value: Any = None                 # a leaf's value
    watchers: set = field(default_factory=set)  # the tapes told to watch this leaf
    first_order_only: bool = False    # never a source of a gradient of a gradient (KNOWN_DIVERGENCES 1)
    special: bool = False             # a leaf holding a special point of the op it was drawn for
    upstream: bool = False            # a leaf that is a call's output gradient
    fed_source: bool = False          # the source of a gradient fed onward (its second derivative is worth taking)
    gradient: bool = False            # the result of a gradient call

    @property
    def leaf(self) -> bool:
        return self.kind != "op"

    @property
    def size(self) -> int:
        return int(np.prod(self.shape)) if self.shape else 1


@dataclass
class _Builder:
    """The state of a program being drawn: its statements, tensors, open tapes and frontier."""

    rng: np.random.Generator
    dtype: str
    ops: tuple
    base: tuple                                  # the shape of the first leaves
    statements: list = field(default_factory=list)
    body: list = field(default_factory=list)     # where the next statement goes
    tapes: list = field(default_factory=list)    # the open tapes, outermost first
    tensors: list = field(default_factory=list)  # every float tensor of the program dtype
    frontier: list = field(default_factory=list) # outputs no op consumed yet: the next targets
    leaves: list = field(default_factory=list)
    integers: list = field(default_factory=list)
    booleans: list = field(default_factory=list)  # outputs of comparisons: recorded, never differentiable
    counter: int = 0
    higher_order: bool = False                    # the next call's tape may have recorded a gradient computation

    def chance(self, probability: float) -> bool:
        return bool(self.rng.random() < probability)

    def pick(self, items: Any) -> Any:
        return items[int(self.rng.integers(len(items)))]

    def fresh(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    def emit(self, statement: Any) -> None:
        self.body.append(statement)

    def leaf(self, shape: tuple, domain: str = "any", specials: tuple = (), patterns: tuple = (),
             dtype: str | None = None, kind: str | None = None, value: np.ndarray | None = None,
             watched: bool = True) -> _Tensor:
        """A new leaf, watched by each open tape that needs telling (mostly, when `watched`)."""
        dtype = dtype or self.dtype
        kind = kind or self.pick(("constant", "variable"))
        name = self.fresh("v" if kind == "variable" else "c")
        if value is None:
            value = _array(self.rng, dtype, shape, domain, specials, patterns)
        trainable = kind == "constant" or self.chance(0.9)
        self.emit(Leaf(name, kind, value, dtype, trainable=trainable))
        large = not dtype.startswith("int") and bool(np.any(np.abs(value.astype(np.complex128)) > 100))
        special = bool(specials) and bool(np.any(np.isin(value, specials)))
        tensor = _Tensor(name, tuple(shape), dtype, self.counter, kind=kind, large=large, trainable=trainable,
                         value=value, special=special)
        for tape in self.tapes if watched else ():
            if kind == "constant" or not tape.watch_accessed_variables:
                if self.chance(0.85):
                    self.emit(Watch(tape.name, [name]))
                    tensor.watchers.add(tape.name)
        if dtype.startswith("int"):
            self.integers.append(tensor)
        else:
            self.leaves.append(tensor)
            if dtype == self.dtype:
                self.tensors.append(tensor)
        return tensor

    def output(self, name: str, shape: tuple, dtype: str, inputs: list, op: str = "", depth: int | None = None,
               large: bool | None = None, path: str = "") -> _Tensor:
        reaches = frozenset().union(*[t.reaches | {t} for t in inputs])
        depth = 1 + max(t.depth for t in inputs) if depth is None else depth
        if large is None:
            large = op in AMPLIFYING or any(t.large for t in inputs) and op not in BOUNDED
        self.counter += 1
        return _Tensor(name, tuple(int(d) for d in shape), dtype, self.counter, reaches, depth=depth, large=large,
                       inputs=tuple(inputs), path=path)

    def usable(self, spec: OpSpec) -> list:
        """The tensors `spec` may consume: at the end of a chain not yet too long, and small where
        the op is ill-conditioned for large inputs."""
        careful = _last(spec) in ILL_CONDITIONED
        return [t for t in self.tensors if t.depth < MAX_CHAIN and not (careful and t.large)]

    def sorted(self, tensors: Any) -> list:
        return sorted(tensors, key=lambda t: t.serial)


@dataclass
class _Plan:
    """How to call one op: its inputs and the shape of what it feeds onward."""

    inputs: list
    shape: tuple
    dtype: str | None = None  # output dtype, when it differs from the inputs'
    element: int | None = None  # the op returns a list: this element is fed onward


def _last(spec: OpSpec) -> str:
    return spec.path.split(".")[-1]


def _min_rank(spec: OpSpec) -> int:
    if spec.shape_rule in MATRIX_RULES:
        return 2
    if spec.shape_rule in ("matmul", "matvec", "bias") or _last(spec) in ("einsum", "sparse_softmax_cross_entropy_with_logits"):
        return 2  # exactly 2 (labels and biases are drawn for matrices)
    if spec.shape_rule == "scalars":
        return 0
    elementwise_attrs = {"alpha", "approximate", "dtype"}
    if set(spec.attrs) - elementwise_attrs and _last(spec) not in ("reshape", "expand_dims", "squeeze",
                                                                   "broadcast_to", "stack"):
        return 1
    return 1 if spec.shape_rule in ("concat", "cross_entropy") else 0


def _grows(spec: OpSpec) -> bool:
    return _last(spec) in ("tile", "broadcast_to", "concat", "stack", "expand_dims", "pad")


def _fits(t: _Tensor, spec: OpSpec) -> bool:
    rank = len(t.shape)
    if spec.shape_rule == "scalars":
        return rank == 0
    if _last(spec) in ROW_ATTRIBUTES and rank and t.shape[0] > MAX_ATTRIBUTE_INTEGERS:
        return False
    if _last(spec) in INDEXED_ROWS | {"gather_nd"} and rank and not 0 < t.shape[0] < MAX_ATTRIBUTE_INTEGERS:
        return False  # no empty index lists: TF reads [] as float32
    if spec.shape_rule in MATRIX_RULES:  # matrices, at most one batch dimension; square for a factorisation
        return 2 <= rank <= 3 and (spec.shape_rule == "matrix" or t.shape[-1] == t.shape[-2])
    if _last(spec) == "diag":  # each last-axis vector becomes a square matrix one side longer at most
        return 1 <= rank < MAX_RANK and t.size * (t.shape[-1] + 1) ** 2 <= MAX_ELEMENTS * max(t.shape[-1], 1)
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
    overflows = _last(spec) in COMPOSITE and b.dtype in LARGEST  # a fresh leaf can hold near-overflow values
    if domain == "any" and not b.chance(0.8 if overflows else 0.45 if spec.specials else 0.2):
        if waiting and not b.chance(0.1):
            return b.pick(waiting)
        if fitting:
            return b.pick(fitting)
    if shape is None:
        shape = _leaf_shape(b, spec)
    scalars = spec.specials_for(position)
    patterns = tuple(tuple(p[position]) for p in spec.specials if position < len(p) and isinstance(p[position], list))
    if overflows:  # one near-overflow value squares past the largest
        scalars = scalars + LARGEST[b.dtype]
    if overflows and b.dtype == "float16":  # two also sum past it (TF adds bfloat16 in float32)
        largest, _, large = LARGEST[b.dtype][:3]
        patterns = patterns + ((largest, large),)
    return b.leaf(shape, domain, scalars, patterns)


def _leaf_shape(b: _Builder, spec: OpSpec) -> tuple:
    if spec.shape_rule == "scalars":
        return ()
    if spec.shape_rule in MATRIX_RULES:
        rows = int(b.rng.integers(1, 4))
        matrix = (rows, rows if spec.shape_rule != "matrix" else int(b.rng.integers(1, 4)))
        return ((int(b.rng.integers(1, 3)),) if b.chance(BATCHED_MATMUL_CHANCE) else ()) + matrix
    if _min_rank(spec) == 2:
        return (int(b.rng.integers(1, 4)), int(b.rng.integers(1, 4)))
    if len(b.base) >= _min_rank(spec):
        return b.base
    return b.base + (int(b.rng.integers(1, 4)),)


def _axis_shape(shape: tuple, axis: int, keep: bool) -> tuple:
    axis %= len(shape)
    return shape[:axis] + ((1,) if keep else ()) + shape[axis + 1:]


def _gather_shape(b: _Builder, shape: tuple, attrs: dict) -> tuple:
    axis = attrs["axis"] % len(shape)
    count = int(b.rng.integers(1, 4))
    attrs["indices"] = tuple(int(i) for i in b.rng.integers(0, shape[axis], count))
    return shape[:axis] + (count,) + shape[axis + 1:]


def _gather_nd_shape(b: _Builder, shape: tuple, attrs: dict) -> tuple:
    """One to three rows of N-d indices of depth 1 or 2 (the first: IndexedSlices gradients), some repeated."""
    depth = 2 if len(shape) >= 2 and shape[1] and b.chance(0.5) else 1
    count = int(b.rng.integers(1, 4))
    rows = [int(b.rng.integers(0, shape[a])) for _ in range(count) for a in range(depth)]
    attrs["indices"] = (depth, *rows)
    return (count,) + shape[depth:]


def _scatter_nd_shape(b: _Builder, shape: tuple, attrs: dict) -> tuple:
    """Each row of the updates scattered into a new shape (its first axis replaced by one or two of 1 to
    3 entries; depth 2 where the indices fit), rows repeated at times (they add up)."""
    depth = 2 if 2 * shape[0] < MAX_ATTRIBUTE_INTEGERS and b.chance(0.5) else 1
    leading = tuple(int(b.rng.integers(1, 4)) for _ in range(depth))
    attrs["shape"] = leading + shape[1:]
    attrs["indices"] = (depth, *[int(b.rng.integers(0, d)) for _ in range(shape[0]) for d in leading])
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
    attrs["ids"] = tuple(int(i) for i in b.rng.integers(0, shape[0], count))
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
    "einsum": lambda b, shape, attrs: (shape[0],) if attrs["equation"] == "ij->i" else (shape[1], shape[0]),
    "diag": lambda b, shape, attrs: shape[:-1] + (shape[-1] + abs(attrs["k"]),) * 2,
}


def _is_reduction(spec: OpSpec) -> bool:
    return _last(spec).startswith("reduce_") or _last(spec) in ("norm", "l2_loss")


def _unary_plan(b: _Builder, spec: OpSpec, x: _Tensor, attrs: dict) -> _Plan:
    name = _last(spec)
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
    if name == "moments":  # (mean, variance): either is fed onward
        reduced = _reduction_shape(b, x.shape, {"axis": attrs["axes"], "keepdims": attrs["keepdims"]})
        return _Plan([x], reduced, element=int(b.rng.integers(2)))
    if name in _UNARY_SHAPES:
        return _Plan([x], _UNARY_SHAPES[name](b, x.shape, attrs))
    if _is_reduction(spec):
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
    elif _last(spec) in INDEXED_ROWS:  # the updates' rows, each to a row of the tensor (repeats at times)
        attrs["indices"] = (1, *[int(i) for i in b.rng.integers(0, shape[0], shape[0])])
    elif _last(spec) == "global_norm":
        shape = ()
    elif _last(spec) == "clip_by_global_norm":  # the clipped tensors, then the norm: the first is fed onward
        return _Plan([x, y], x.shape, element=0)
    return _Plan([x, y], shape)


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
    if name == "slogdet":
        return _Plan([x], shape[:-2], element=1)
    return _Plan([x], shape)


_PLANNERS = {"matrix": _linalg_plan, "square": _linalg_plan, "square_rhs": _linalg_plan, "unary": _unary_plan,
             "broadcast": _pair_plan, "same": _pair_plan, "concat": _pair_plan, "cross_entropy": _pair_plan, "matmul": _matrix_plan, "matvec": _matrix_plan, "clip": _clip_plan,
             "bias": _bias_plan, "scalars": _one_hot_plan}


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
    if spec.shape_rule in ("unary", "broadcast", "same") and _last(spec) not in PARTITIONED and b.chance(
            PACKED_INPUT_CHANCE):
        x = _packed(b, spec, x)
    attrs = {name: b.pick(choices) for name, choices in spec.attrs.items()}
    if isinstance(attrs.get("axis"), int) and not -len(x.shape) <= attrs["axis"] < len(x.shape):
        attrs["axis"] = 0
    if _last(spec) in NORMALIZING and x.gradient or _last(spec) == "l2_normalize" and (
            x.size if attrs.get("axis") is None else x.shape[attrs["axis"]]) == 1:
        # Along a single element l2_normalize's gradient cancels exactly, and TF's vectorized float32
        # rsqrt leaves rounding where reftape leaves 0 (KNOWN_DIVERGENCES 5); a gradient's result may be
        # exactly 0 in exact arithmetic and hold rounding noise (see NORMALIZING): a wider leaf instead.
        x = b.leaf((2, 3))
    _vary_axis(b, spec, x, attrs)
    plan = _PLANNERS[spec.shape_rule](b, spec, x, attrs)
    if spec.arity >= 2 and not (b.dtype == "bfloat16" and spec.shape_rule in ("matmul", "matvec")) and b.chance(
            LITERAL_OPERAND_CHANCE):  # a NumPy float32 operand of a bfloat16 matmul: TF's SparseMatMul path
        _literal_operand(b, spec, plan, first_fresh)
    name = b.fresh("y")
    b.emit(Op(name, spec.path, [t.name for t in plan.inputs], attrs))
    dtype = _output_dtype(spec, x, plan)
    if dtype is None:
        if spec.output == "bool" and plan.element is None:
            b.booleans.append(name)
        return
    out = b.output(name if plan.element is None else f"{name}[{plan.element}]", plan.shape, dtype, plan.inputs,
                   _last(spec), path=spec.path)
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
             and plan.inputs.count(t) == 1 and (i > 0 or first)]
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
    if isinstance(axis, tuple) and _is_reduction(spec):
        attrs["axis"] = _several_axes(b, len(x.shape))
        return
    rank = len(x.shape) + (spec.path == "stack")  # stack's axis counts the new dimension
    if isinstance(axis, int) and 0 <= axis < rank and b.chance(NEGATIVE_AXIS_CHANCE):
        attrs["axis"] = axis - rank


def _several_axes(b: _Builder, rank: int) -> tuple:
    """Two or more distinct axes of a tensor of `rank` (one for a vector), in random order."""
    count = int(b.rng.integers(2, rank + 1)) if rank >= 2 else 1
    return tuple(int(a) - rank if b.chance(NEGATIVE_AXIS_CHANCE) else int(a) for a in b.rng.permutation(rank)[:count])


# ---------------------------------------------------------------------------------------------
# Gradient calls


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


def _unconnected(b: _Builder, fed: bool) -> tuple[str, str]:
    if fed:  # a gradient fed onward must be a tensor
        return b.pick((("zero", "string"), ("zero", "enum")))
    return b.pick(UNCONNECTED)


def _gradient_call(b: _Builder, tape: str, targets: list[_Tensor], fed: bool,
                   source: _Tensor | None = None) -> tuple[Call, list[_Tensor], list[_Tensor]]:
    """A gradient call, its sources and its output gradients' leaves; now and then a target the tape
    does not hold, also a source."""
    name = b.fresh("g")
    unconnected, form = _unconnected(b, fed)
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
    weights, upstream = _output_gradients(b, target, flat) if b.chance(0.85 if fed else 0.6) else (None, [])
    return Call(name, tape, "gradient", target, structure, weights, unconnected, form), sources, upstream


def _jacobian_call(b: _Builder, tape: str, targets: list[_Tensor]) -> Call:
    """jacobian of one target, or batch_jacobian where a target and a source share a leading side."""
    unconnected, form = b.pick(UNCONNECTED)
    name, use_pfor = b.fresh("g"), b.chance(0.5)
    if b.chance(0.4):
        for target in [t for t in targets if len(t.shape) >= 2]:
            batch = [s for s in _reaching(b, [target]) if len(s.shape) >= 2 and s.shape[0] == target.shape[0]]
            if batch:
                source = b.pick(batch)
                return Call(name, tape, "batch_jacobian", target.name, source.name, None, unconnected, form,
                            use_pfor=use_pfor)
    target = b.pick(targets)
    offered = [v for v in _variables(b) if _offerable(b, v)]
    if offered and b.chance(0.08):  # a Variable as the target, usually also a source
        target = b.pick(offered)
    # an unconnected source often: TF's vectorized loop still checks the ops behind the connected ones
    sources = _sources(b, [target], b.pick((1, 1, 2)), JACOBIAN_UNCONNECTED) if target.reaches else [target]
    structure = _structure(b, [s.name for s in sources], b.pick(STRUCTURES))
    return Call(name, tape, "jacobian", target.name, structure, None, unconnected, form, use_pfor=use_pfor)


# ---------------------------------------------------------------------------------------------
# Tapes and levels


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
    update instead of a catalog op, and a rare reset. Half-precision programs draw a composite op
    (HALF_COMPOSITE_SHARE) more often than its uniform share."""
    overflowing = [p for p in b.ops if _last(CATALOG[p]) in COMPOSITE] if b.dtype in LARGEST else []
    for index in range(count):
        b.rng = np.random.default_rng((seed, depth, index))
        # half-precision programs draw a composite more often: most of them overflow only there
        spec = CATALOG[b.pick(overflowing if overflowing and b.chance(HALF_COMPOSITE_SHARE) else b.ops)]
        special = b.rng.random()
        if special < 1 / 24:
            _custom_gradient(b)
        elif special < 1 / 12:
            _variable_update(b)
        elif b.chance(1 / 15):
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
        if index and b.chance(1 / 40):
            b.emit(Reset(b.tapes[-1].name))


def _variables(b: _Builder) -> list[_Tensor]:
    return [t for t in b.leaves if t.kind == "variable" and t.dtype == b.dtype]


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
    if not variables:
        return
    variable = b.pick(variables)
    values = [t for t in b.tensors if t.shape == variable.shape and t is not variable]
    value = b.pick(values) if values and b.chance(0.7) else b.leaf(variable.shape, kind="constant")
    b.emit(Assign(variable.name, value.name, b.pick(("assign", "assign_add", "assign_sub"))))
    if b.chance(0.5):
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
    if not b.chance(0.07):
        return
    fresh = [b.leaf(b.base, kind="variable", watched=False) for _ in range(b.pick((2, 3)))]
    readers = [p for p in VARIABLE_READERS if b.dtype in CATALOG[p].dtypes]
    for variable in reversed(fresh):
        touch = b.rng.random() if tape.watch_accessed_variables else 1.0
        if touch < 0.3:
            b.emit(Assign(variable.name, b.leaf(b.base, kind="constant", watched=False).name))
        elif touch < 0.6:
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
    recorded = _op_on_empty(b, tape)
    if recorded is None:
        return []
    leaf, name = recorded
    method = "batch_jacobian" if len(leaf.shape) >= 2 and b.chance(0.5) else "jacobian"
    unconnected, form = b.pick(UNCONNECTED)
    return [Call(b.fresh("g"), tape, method, name, leaf.name, None, unconnected, form, use_pfor=b.chance(0.5))]


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
        b.emit(_gradient_call(b, tape.name, onward, False)[0] if b.chance(0.5) else _jacobian_call(b, tape.name, onward))


def _level(b: _Builder, seed: int, depth: int, counts: list[int]) -> None:
    """Tape `t{depth}` with what it records: the ops of deeper levels (whose gradient, computed
    under this tape, this level's ops consume), then this level's ops, then its calls."""
    tape, parent = _open_tape(b, depth)
    if depth + 1 < len(counts):
        _level(b, seed, depth + 1, counts)
    else:
        b.rng = np.random.default_rng((seed, depth, 1001))
        if _foreign_leaves(b) and b.chance(0.7):
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
    gradient = fed or b.chance(0.6) or jacobian_fails and not b.chance(0.1)
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
               if b.chance(0.5) else _jacobian_call(b, tape.name, targets))
    for call in empty:
        b.emit(call)
    if b.tapes and b.chance(ENCLOSING_WATCHED_VARIABLES):
        # what the calls read (jacobians' Variable sources, ZERO's zeros_like), as a tape around them saw it
        b.emit(WatchedVariables(b.fresh("w"), b.pick(b.tapes).name))
    b.body = parent


def _orders(max_depth: int) -> st.SearchStrategy:
    """First order in about two programs of three, then second order, then third (within max_depth)."""
    return st.integers(0, 5).map(lambda k: min(max_depth, 1 if k < 3 else 2 if k < 5 else 3))


@st.composite
def programs(draw: Any, *, ops: tuple | None = None, dtypes: tuple = DTYPES, max_ops: int = 12,
             max_depth: int = 3) -> Program:
    """Programs over catalog ops `ops` (default: all) in one of `dtypes`, with between max_ops/2 and
    `max_ops` ops in all and up to `max_depth` nested tapes (differentiation up to that order).
    Shrinks toward float32, fewer ops, first order and seed 0."""
    _check_bound("max_ops", max_ops, 1, 40)
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
    count = draw(st.integers(max(1, max_ops // 2), max_ops))
    order = draw(_orders(max_depth))
    seed = draw(st.integers(0, 2**32 - 1))
    return build_program(seed, dtype, tuple(p for p in candidates if dtype in CATALOG[p].dtypes), count, order,
                         max_depth)


def build_program(seed: int, dtype: str, ops: tuple, count: int, order: int, max_depth: int = 3) -> Program:
    """The program of `count` ops over `ops` in `dtype`, differentiated to `order`, that `seed` names."""
    rng = np.random.default_rng((seed, 1000))
    rank = int(rng.choice((1, 2, 3), p=(0.35, 0.45, 0.2)))
    base = tuple(1 if rng.random() < 0.2 else int(rng.integers(2, 4)) for _ in range(rank))
    b = _Builder(rng, dtype, ops, base)
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
    return Program(b.statements, outputs)


def _walk_ops(statements: list):
    """The ops, custom gradient applications and variable reads whose values the outcome reports."""
    for s in statements:
        if isinstance(s, (Op, Apply, ReadValue)):
            yield s
        elif isinstance(s, (Tape, StopRecording)):
            yield from _walk_ops(s.body)
