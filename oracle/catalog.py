"""The op catalog: what a generator and a comparison need to know about each op, keyed by TF path.

One entry per public op (`"math.log1p"`, `"nn.softmax"`, `"reduce_max"`, ...): how many tensor
inputs it takes, the shape rule relating them, the domain each input must be drawn from and the
special points worth hitting, the attributes and their valid values, the dtypes TF supports, and
whether TF differentiates it (a gradient, zeros, or None). The interpreter resolves the path on
whichever namespace it runs (reftape, TensorFlow, a user's module), so one entry serves all.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable

FLOATS = ("float16", "bfloat16", "float32", "float64")
COMPLEX = ("complex64", "complex128")
FLOATS_AND_COMPLEX = FLOATS + COMPLEX
LINALG_DTYPES = ("float32", "float64") + COMPLEX  # TF's factorisations have no half-precision kernels
# The dtypes programs are drawn in, in the order Hypothesis shrinks toward (the first is the simplest)
DTYPES = ("float32", "float64", "float16", "bfloat16", "complex64", "complex128")

# Shape rules: how input shapes relate. Each maps a base shape (rank >= 1) to input shapes.
SHAPE_RULES: dict[str, Callable[[tuple], tuple]] = {
    "unary": lambda s: (s,),
    "broadcast": lambda s: (s, s[1:]),                 # trailing-dimension broadcasting
    "same": lambda s: (s, s),
    "clip": lambda s: (s, (), ()),
    "matmul": lambda s: ((s[0], 4), (4, 2)),
    "matvec": lambda s: ((s[0], 4), (4,)),
    "concat": lambda s: (s, s),
    "cross_entropy": lambda s: (s, s),
    "bias": lambda s: (s, s[-1:]),                     # a value and a bias along its last axis
    "scalars": lambda s: ((), ()),                     # one_hot's on_value and off_value
    "matrix": lambda s: (s if len(s) >= 2 else (s[0], s[0]),),                 # a (batch of) matrices
    "square": lambda s: (s[:-1] + (s[-1], s[-1]),),                          # a batch of square matrices
    "square_rhs": lambda s: (s[:-1] + (s[-1], s[-1]), s[:-1] + (s[-1], 2)),  # and two right-hand sides each
    "einsum": lambda s: einsum_base_shapes("ij,jk->ik", s),  # the operands of the entry's equation (input_shapes)
    "cross": lambda s: (s[:-1] + (3,), s[:-1] + (3,)),  # vectors of 3 along the last axis (linalg.cross)
    "tridiagonal": lambda s: (s[:-1] + (3, s[-1]), s[:-1] + (s[-1], 2)),  # compact diagonals and two right-hand sides
    "least_squares": lambda s: ((s if len(s) >= 2 else (s[0], s[0])),  # (a batch of) matrices and two right-hand
                                (s if len(s) >= 2 else (s[0], s[0]))[:-1] + (2,)),  # sides each (linalg.lstsq)
}
MATRIX_RULES = ("matrix", "square", "square_rhs")

# Traits: what the generator and the judge know about an op beyond its signature, on its entry
# (`OpSpec.traits`, asked with `spec.has(TRAIT)`). A set of op names standing in for a trait anywhere
# else fails tests/test_catalog_traits.py.
# Magnitudes: ill-conditioned ops (a large input turns one ulp of difference between two correct
# implementations into many) never consume what amplifying ops may have made large; bounded ops make
# anything small again.
AMPLIFYING = "amplifying"            # may make its output large
ILL_CONDITIONED = "ill_conditioned"  # takes only inputs no amplifying op may have made large
BOUNDED = "bounded"                  # small output whatever its inputs
# Built of several steps that TF computes in the input's precision: a half-precision input near the dtype's
# largest value overflows in an intermediate step (squares, sums, exps; the sum a mean divides)
COMPOSITE = "composite"
# Its gradient divides by a norm of its input (x / |x|): at a gradient's result that is exactly 0 in exact
# arithmetic (that of a shift-invariant op, or of solve(a, a)) and holds rounding noise in TF, the noise's
# direction, of any size, against reftape's exact zero's NaN
NORMALIZING = "normalizing"
REDUCTION = "reduction"              # reduces along axes (several at once where its entry lists a tuple of them)
GROWS = "grows"                      # a larger output than its input (tile, pad, ...)
TAKES_MATRIX = "takes_matrix"        # its input is a matrix, exactly of rank 2 (an equation's ij, labels per row)
TAKES_SCALAR = "takes_scalar"        # its shape or axis attributes hold for a scalar input too (other ops
                                     # with such attributes take inputs of rank 1 or more)
ROW_ATTRIBUTE = "row_attribute"      # an attribute holds an integer per row of its input (segment ids, labels)
# Indexes the rows of its first input with N-d indices held flat, the index depth first (index_rows): the
# generator draws it at most as many rows as an attribute's integers, less one
INDEXED_ROWS = "indexed_rows"
PARTITIONED = "partitioned"          # a list as its input is a partitioned table, not tensors TF packs
# What the judge knows
CPOW = "cpow"                        # reftape computes its forward as TF's cpow does, bit for bit
# Factors that overflow and hold a zero: only the order of the products decides NaN, inf or 0 (KNOWN_DIVERGENCES 8)
PRODUCT_ORDER = "product_order"
# TF computes it as a composite under op determinism (the oracle's configuration), whose gradient gives NaN
# where its default fused kernel (and reftape) give an infinity (KNOWN_DIVERGENCES 12)
DETERMINISTIC_COMPOSITE = "deterministic_composite"
NEVER_RECORDED = "never_recorded"    # TF does not record it (round, floor, ... are recorded with a None gradient)
# Updates at a repeated index apply in an order TF leaves unspecified: which one stays is no derivative, and the
# numeric check does not judge gradients through it
UNSPECIFIED_ORDER = "unspecified_order"
# TF registers no gradient for its gradient's kernel (SoftsignGrad, IgammaGradA): a second derivative through it is
# TF's LookupError, which the per-op tests check; programs differentiating twice do not draw it
FIRST_ORDER = "first_order"
# Computes in float32 and returns float32 whatever its input's dtype (bilinear resize): a float64 re-evaluation
# through it holds float32 rounding, which a numerical derivative's step turns into percents, so the numeric
# check does not judge a source reaching it
NARROWS = "narrows"
# Reads one triangle of its input, taken as Hermitian, and TF's gradient is Hermitian by convention (cholesky and
# what is built on it), not the derivative of what it reads: only the Hermitian part of a gradient through it is
# judged, and a jvp through it along the tangent's Hermitian part (ops that read the whole matrix, sqrtm, do not)
HERMITIAN_GRADIENT = "hermitian_gradient"
# TF computes it with its matrix-product kernels (MatMul, BatchMatMul), whose oneDNN versions sum opposite infinite
# products to an infinity where IEEE arithmetic gives NaN (KNOWN_DIVERGENCES 16)
CONTRACTS = "contracts"
# Runs TF's Conv2D kernel with the (row, column) strides of its attributes, whose oneDNN bfloat16 version reads other
# windows at strides [1, s > 1] for some one-channel inputs (KNOWN_DIVERGENCES 17)
CONV2D_KERNEL = "conv2d_kernel"
TRAITS = (AMPLIFYING, ILL_CONDITIONED, BOUNDED, COMPOSITE, NORMALIZING, REDUCTION, GROWS, TAKES_MATRIX, TAKES_SCALAR,
          ROW_ATTRIBUTE, INDEXED_ROWS, PARTITIONED, CPOW, PRODUCT_ORDER, DETERMINISTIC_COMPOSITE, NEVER_RECORDED,
          UNSPECIFIED_ORDER, FIRST_ORDER, NARROWS, HERMITIAN_GRADIENT, CONTRACTS, CONV2D_KERNEL)


@dataclass(frozen=True)
class OpSpec:
    """What the generator and comparison need to know about one op."""

    path: str
    arity: int = 1
    shape_rule: str = "unary"
    domains: tuple = ("any",)
    attrs: dict = field(default_factory=dict)    # attribute -> tuple of valid values (first is the default used)
    dtypes: tuple = FLOATS
    specials: tuple = ()                          # special points: tuples of input values
    gradient: str = "gradient"                    # "gradient", "zeros" (sign) or "none" (round, stop_gradient)
    sums_terms: bool = False                      # output elements sum many products (widens tolerance)
    analytic: bool = True                         # holomorphic in its inputs (complex-step applies)
    call: Callable | None = None                  # adapter for signatures other than op(*tensors, **attrs)
    output: str = "same"                          # output dtype: "same" as the inputs, "bool", "int32", "int64", "real"
    traits: frozenset = frozenset()               # of TRAITS (given as any collection of them)

    def has(self, trait: str) -> bool:
        """Whether the op carries `trait` (one of TRAITS)."""
        if trait not in TRAITS:
            raise ValueError(f"unknown trait {trait!r}: not one of {TRAITS}")
        return trait in self.traits

    def specials_for(self, position: int) -> tuple:
        """The scalar special values this op's input `position` is worth drawing."""
        return tuple(point[position] for point in self.specials
                     if position < len(point) and isinstance(point[position], float))

    def input_shapes(self, base: tuple, attrs: dict | None = None) -> tuple:
        """The input shapes of the rule for `base`; a matrix operand transposed or adjoint by `attrs`
        is stored the other way round."""
        if self.shape_rule == "einsum":
            return einsum_base_shapes((attrs or {}).get("equation", self.attrs["equation"][0]), base)
        shapes = SHAPE_RULES[self.shape_rule](base)
        if self.shape_rule in ("matmul", "matvec") and attrs:
            shapes = tuple(s[::-1] if flipped(attrs, operand) else s for s, operand in zip(shapes, "ab"))
        return shapes

    def __post_init__(self) -> None:
        if len(self.domains) != self.arity:
            raise ValueError(f"{self.path}: {len(self.domains)} domains for arity {self.arity}")
        if self.gradient not in ("gradient", "zeros", "none"):
            raise ValueError(f"{self.path}: gradient must be 'gradient', 'zeros' or 'none', got {self.gradient!r}")
        object.__setattr__(self, "traits", frozenset(self.traits))
        unknown = sorted(self.traits - set(TRAITS))
        if unknown:
            raise ValueError(f"{self.path}: unknown traits {unknown}: not among {TRAITS}")


ELLIPSIS = "..."


def einsum_subscripts(equation: str) -> tuple[list[list[str]], list[str]]:
    """The operands' and the output's labels (an ellipsis one label), the output made explicit as TF makes it:
    the labels appearing once, sorted, the ellipsis first."""
    inputs, arrow, output = equation.partition("->")
    specs = [_labels(spec) for spec in inputs.split(",")]
    if arrow:
        return specs, _labels(output)
    every = [label for spec in specs for label in spec]
    return specs, sorted((label for label in set(every) if every.count(label) == 1), key=lambda l: (l != ELLIPSIS, l))


def _labels(spec: str) -> list[str]:
    before, ellipsis, after = spec.partition(ELLIPSIS)
    return list(before) + ([ELLIPSIS] if ellipsis else []) + list(after)


def einsum_shapes(equation: str, sizes: dict, batches: list[tuple]) -> tuple[list[tuple], tuple]:
    """The operands' shapes and the output's for labels of `sizes` and each operand's ellipsis dimensions
    (`batches`, which broadcast against each other)."""
    specs, output = einsum_subscripts(equation)
    batch = tuple(_broadcast(batches))
    operands = [_shape_of(spec, sizes, own) for spec, own in zip(specs, batches)]
    return operands, _shape_of(output, sizes, batch)


def _shape_of(labels: list[str], sizes: dict, batch: tuple) -> tuple:
    return tuple(d for label in labels for d in (batch if label == ELLIPSIS else (sizes[label],)))


def _broadcast(shapes: list[tuple]) -> tuple:
    rank = max(map(len, shapes), default=0)
    padded = [(1,) * (rank - len(s)) + tuple(s) for s in shapes]
    return tuple(max(dims) if min(dims) else 0 for dims in zip(*padded))


def einsum_base_shapes(equation: str, base: tuple) -> tuple:
    """The operands of `equation` for a test's base shape: labels sized by the base's sides in order of first
    appearance (then 2), the first ellipsis 2 wide and later ones 1 (broadcast against it)."""
    specs, _ = einsum_subscripts(equation)
    order = list(dict.fromkeys(label for spec in specs for label in spec if label != ELLIPSIS))
    sides = list(base) + [2] * len(order)
    sizes = {label: sides[n] for n, label in enumerate(order)}
    with_ellipsis = [n for n, spec in enumerate(specs) if ELLIPSIS in spec]
    batches = [((2,) if n == with_ellipsis[0] else (1,)) if n in with_ellipsis else () for n in range(len(specs))]
    return tuple(einsum_shapes(equation, sizes, batches)[0])


def flipped(attrs: dict, operand: str) -> bool:
    """Whether matmul's operand `operand` ("a" or "b") is transposed or adjoint by `attrs`."""
    return bool(attrs.get(f"transpose_{operand}") or attrs.get(f"adjoint_{operand}"))


def _attr_source(attrs: dict) -> str:
    return "".join(f", {k}=tf.{v}" if k == "dtype" else f", {k}={v!r}" for k, v in attrs.items())


def _default_source(op: str, inputs: list[str], attrs: dict) -> str:
    return f"{op}({', '.join(inputs)}{_attr_source(attrs)})"


def _adapter(source: Callable[[str, list, dict], str]) -> Callable:
    """Declares a call adapter together with the Python source it corresponds to."""
    def attach(call: Callable) -> Callable:
        call.source = source
        return call
    return attach


@_adapter(lambda op, xs, attrs: f"{op}([{', '.join(xs)}]{_attr_source(attrs)})")
def _list_call(op: Any, inputs: list, attrs: dict) -> Any:
    return op(list(inputs), **attrs)


@_adapter(lambda op, xs, attrs: f"{op}({xs[0]} > 0, {xs[0]}, {xs[1]})")
def _where_call(op: Any, inputs: list, attrs: dict) -> Any:
    return op(inputs[0] > 0, inputs[0], inputs[1])


@_adapter(lambda op, xs, attrs: f"{op}({xs[0]}, {xs[1]} > 0)")
def _mask_call(op: Any, inputs: list, attrs: dict) -> Any:
    return op(inputs[0], inputs[1] > 0)


@_adapter(lambda op, xs, attrs: f"{op}({attrs['equation']!r}, {', '.join(xs)})")
def _einsum_call(op: Any, inputs: list, attrs: dict) -> Any:
    return op(attrs["equation"], *inputs)


EINSUM_EQUATIONS = ("ij,jk->ik", "ij,jkk->ik", "ii,ij->j", "ij,kj", "ij...,jk...->ik...", "...ij,jk->...ik",
                    "ij,j...->i...")
UNARY_EINSUM_EQUATIONS = ("ij->i", "ij->ji", "ii->", "ii->i", "bii->b", "...ii->...i", "ji", "...j->...")


@_adapter(lambda op, xs, attrs: f"{op}(labels={xs[0]}, logits={xs[1]}{_attr_source(attrs)})")
def _cross_entropy_call(op: Any, inputs: list, attrs: dict) -> Any:
    return op(labels=inputs[0], logits=inputs[1], **attrs)


def _pairs(flat: tuple) -> list:
    """A flat attribute (the program format holds flat integer arrays) as TF's [rank, 2] paddings."""
    return [list(flat[i:i + 2]) for i in range(0, len(flat), 2)]


def _others(attrs: dict, *names: str) -> dict:
    return {k: v for k, v in attrs.items() if k not in names}


@_adapter(lambda op, xs, attrs: f"{op}({xs[0]}, {_pairs(attrs['paddings'])!r}{_attr_source(_others(attrs, 'paddings'))})")
def _pad_call(op: Any, inputs: list, attrs: dict) -> Any:
    return op(inputs[0], _pairs(attrs["paddings"]), **_others(attrs, "paddings"))


@_adapter(lambda op, xs, attrs: f"{op}({list(attrs['indices'])!r}, {attrs['depth']!r}, on_value={xs[0]}, off_value={xs[1]}"
                                 f"{_attr_source(_others(attrs, 'indices', 'depth'))})")
def _one_hot_call(op: Any, inputs: list, attrs: dict) -> Any:
    return op(list(attrs["indices"]), attrs["depth"], on_value=inputs[0], off_value=inputs[1], axis=attrs["axis"])


@_adapter(lambda op, xs, attrs: f"{op}(labels={list(attrs['labels'])!r}, logits={xs[0]})")
def _sparse_cross_entropy_call(op: Any, inputs: list, attrs: dict) -> Any:
    return op(labels=list(attrs["labels"]), logits=inputs[0])


def index_rows(flat: tuple) -> list:
    """An N-d index attribute, held flat (the index depth, then the rows), as TF's [n, depth] indices."""
    depth = flat[0]
    return [list(flat[i:i + depth]) for i in range(1, len(flat), depth)]


def _gathered_indices(attrs: dict) -> Any:
    """gather's indices: flat with no batch dimension; with `batch_dims=1`, held as `index_rows` (the count
    per batch member, then each member's indices)."""
    return index_rows(attrs["indices"]) if attrs.get("batch_dims") else attrs["indices"]


@_adapter(lambda op, xs, attrs: _default_source(op, xs, {**attrs, "indices": _gathered_indices(attrs)}))
def _gather_call(op: Any, inputs: list, attrs: dict) -> Any:
    return op(inputs[0], **{**attrs, "indices": _gathered_indices(attrs)})


@_adapter(lambda op, xs, attrs: f"{op}({xs[0]}, {index_rows(attrs['indices'])!r})")
def _gather_nd_call(op: Any, inputs: list, attrs: dict) -> Any:
    return op(inputs[0], index_rows(attrs["indices"]))


@_adapter(lambda op, xs, attrs: f"{op}({index_rows(attrs['indices'])!r}, {xs[0]}, {list(attrs['shape'])!r})")
def _scatter_nd_call(op: Any, inputs: list, attrs: dict) -> Any:
    return op(index_rows(attrs["indices"]), inputs[0], list(attrs["shape"]))


@_adapter(lambda op, xs, attrs: f"{op}({xs[0]}, {index_rows(attrs['indices'])!r}, {xs[1]})")
def _tensor_scatter_call(op: Any, inputs: list, attrs: dict) -> Any:
    return op(inputs[0], index_rows(attrs["indices"]), inputs[1])


@_adapter(lambda op, xs, attrs: f"{op}({xs[0]}{_attr_source(attrs)}).values")
def _top_k_values_call(op: Any, inputs: list, attrs: dict) -> Any:
    return op(inputs[0], **attrs).values


@_adapter(lambda op, xs, attrs: f"(lambda r: r[0] + [r[1]])({op}([{', '.join(xs)}]{_attr_source(attrs)}))")
def _global_clip_call(op: Any, inputs: list, attrs: dict) -> Any:
    """clip_by_global_norm's (clipped list, norm) as one list: the clipped tensors, then the norm."""
    clipped, norm = op(list(inputs), **attrs)
    return clipped + [norm]


@_adapter(lambda op, xs, attrs: f"list({op}({xs[0]}{_attr_source(attrs)}))")
def _pair_of_results_call(op: Any, inputs: list, attrs: dict) -> Any:
    """An op returning a tuple of tensors (moments' mean and variance), as a list."""
    return list(op(inputs[0], **attrs))


# Decompositions (issue 24): eigenvectors' and singular vectors' signs (phases) are LAPACK's in reftape and
# Eigen's in TF, so programs see only what does not depend on them: a vector's squared magnitudes, elementwise
# (the sign-invariant targets of docs/fidelity.md); for full_matrices, U's and V's first min(M, N) columns (the
# others span a complement of arbitrary basis)
@_adapter(lambda op, xs, attrs: f"(lambda e, v: [e, v * tf.math.conj(v)])(*{op}({xs[0]}))")
def _eigh_call(op: Any, inputs: list, attrs: dict) -> Any:
    e, v = op(inputs[0])
    return [e, v * _conj_of(v)]


def _conj_of(v: Any) -> Any:
    """conj(v) in v's namespace (reftape's or TF's: both export math.conj)."""
    import importlib

    return importlib.import_module(type(v).__module__.split(".")[0]).math.conj(v) if v.dtype.is_complex else v


def _svd_source(op: str, xs: list, attrs: dict) -> str:
    if not attrs.get("compute_uv", True):
        return f"{op}({xs[0]}{_attr_source(attrs)})"
    return (f"(lambda s, u, v: [s] + [w[..., :s.shape[-1]] * tf.math.conj(w[..., :s.shape[-1]])"
            f" * [[i + 1.0] for i in range(w.shape[-2])] for w in (u, v)])(*{op}({xs[0]}{_attr_source(attrs)}))")


@_adapter(_svd_source)
def _svd_call(op: Any, inputs: list, attrs: dict) -> Any:
    """The singular values and the squared magnitudes of the singular vectors (invariant to their phases),
    each row weighted by its number: under an even upstream, U^H dU would be diagonal, and the off-diagonal
    terms of svd's gradient would never be differentiated."""
    if not attrs.get("compute_uv", True):
        return op(inputs[0], **attrs)
    s, u, v = op(inputs[0], **attrs)
    k = s.shape[-1]
    return [s] + [w[..., :k] * _conj_of(w[..., :k]) * [[i + 1.0] for i in range(w.shape[-2])] for w in (u, v)]


def _constant_first_call(attr: str) -> Callable:
    """An op whose first argument is a constant attribute (polygamma's order, zeta's exponent), given as
    a tensor of the input's shape and dtype (input * 0 + value: no gradient reaches the input through it)."""
    @_adapter(lambda op, xs, attrs: f"{op}({xs[0]} * 0.0 + {attrs[attr]!r}, {xs[0]})")
    def call(op: Any, inputs: list, attrs: dict) -> Any:
        return op(inputs[0] * 0.0 + attrs[attr], inputs[0])
    return call


@_adapter(lambda op, xs, attrs: f"{op}({xs[0]} * 0.0 + {attrs['a']!r}, {xs[0]} * 0.0 + {attrs['b']!r}, {xs[0]})")
def _betainc_call(op: Any, inputs: list, attrs: dict) -> Any:
    """betainc(a, b, x) with a and b constants of x's shape and dtype (issue 24: TF differentiates x only)."""
    return op(inputs[0] * 0.0 + attrs["a"], inputs[0] * 0.0 + attrs["b"], inputs[0])


def _unary(path: str, domain: str = "any", **options: Any) -> OpSpec:
    return OpSpec(path, 1, "unary", (domain,), **options)


def _binary(path: str, domains: tuple = ("any", "any"), rule: str = "broadcast", **options: Any) -> OpSpec:
    return OpSpec(path, 2, rule, domains, **options)


NAN, INF = math.nan, math.inf
# (0, -1) stands for several axes: generators draw distinct axes of the input they reduce
REDUCE_ATTRS = {"axis": (None, 1, 0, -1, (0, -1)), "keepdims": (False, True)}
# Each operand plain, transposed or adjoint (generators never set both flags of one operand: TF refuses that)
MATMUL_ATTRS = {"transpose_a": (False, True), "transpose_b": (False, True), "adjoint_a": (False, True),
                "adjoint_b": (False, True)}

_ENTRIES = [
    # Arithmetic
    _binary("add", dtypes=FLOATS_AND_COMPLEX),
    _binary("subtract", dtypes=FLOATS_AND_COMPLEX),
    _binary("multiply", dtypes=FLOATS_AND_COMPLEX, specials=((INF, 0.0),), traits={AMPLIFYING}),
    _binary("divide", ("any", "nonzero"), dtypes=FLOATS_AND_COMPLEX, specials=((1.0, 0.0), (0.0, 0.0)),
            traits={AMPLIFYING}),
    _binary("pow", ("positive", "any"), rule="same", dtypes=FLOATS_AND_COMPLEX,
            specials=((0.0, 2.0), (0.0, 0.5), (0.0, 0.0), (0.0, -1.0), (-2.0, 3.0), (-2.0, 0.5)),
            traits={AMPLIFYING, ILL_CONDITIONED, CPOW}),
    _binary("maximum", specials=((2.0, 2.0), (0.0, 0.0), (NAN, 1.0)), analytic=False),
    _binary("minimum", rule="same", specials=((2.0, 2.0),), analytic=False),
    _unary("negative", dtypes=FLOATS_AND_COMPLEX),
    _unary("abs", dtypes=FLOATS_AND_COMPLEX, specials=((0.0,),), analytic=False),
    _unary("sign", gradient="zeros", specials=((0.0,),), analytic=False, traits={BOUNDED}),
    _unary("exp", dtypes=FLOATS_AND_COMPLEX, specials=((100.0,), (INF,)), traits={AMPLIFYING, ILL_CONDITIONED}),
    _unary("sqrt", "positive", dtypes=FLOATS_AND_COMPLEX, specials=((0.0,), (-1.0,), (4.0,))),
    _unary("square", dtypes=FLOATS_AND_COMPLEX, specials=((INF,),), traits={AMPLIFYING, ILL_CONDITIONED}),
    _unary("sin", dtypes=FLOATS_AND_COMPLEX, traits={ILL_CONDITIONED, BOUNDED}),
    _unary("cos", dtypes=FLOATS_AND_COMPLEX, traits={ILL_CONDITIONED, BOUNDED}),
    _unary("tanh", dtypes=FLOATS_AND_COMPLEX, specials=((INF,),), traits={ILL_CONDITIONED, BOUNDED}),
    _unary("sigmoid", dtypes=FLOATS_AND_COMPLEX, specials=((-100.0,),), traits={ILL_CONDITIONED, BOUNDED}),
    _unary("round", gradient="none", specials=((0.5,), (1.5,)), analytic=False),
    _unary("floor", gradient="none", analytic=False),
    _unary("identity", dtypes=FLOATS_AND_COMPLEX),
    _unary("stop_gradient", gradient="none", traits={NEVER_RECORDED}),
    _unary("cast", attrs={"dtype": ("float64", "float32")}, analytic=False),
    OpSpec("clip_by_value", 3, "clip", ("any", "neg", "pos"), specials=(([-2.0, -1.0, 0.0, 1.0, 2.0], -1.0, 1.0),),
           analytic=False, traits={BOUNDED}),
    # Norm clipping: a negative clip_norm counts as 0; a zero norm keeps the gradient finite (selects)
    _unary("clip_by_norm", attrs={"clip_norm": (1.0, 0.5, -1.0), "axes": (None, (-1,))}, sums_terms=True,
           specials=(([0.0, 0.0],), ([0.3, 0.4],)), analytic=False, traits={COMPOSITE, NORMALIZING}),
    _binary("clip_by_global_norm", rule="same", attrs={"clip_norm": (1.0, 20.0)}, call=_global_clip_call,
            sums_terms=True, analytic=False, traits={COMPOSITE, NORMALIZING}),
    _binary("where", rule="same", call=_where_call, analytic=False),
    # math.*
    _unary("math.log", "positive", dtypes=FLOATS_AND_COMPLEX, specials=((0.0,), (-1.0,), (2.0,))),
    _unary("math.log1p", "positive", dtypes=FLOATS_AND_COMPLEX, specials=((-1.0,),)),
    _unary("math.exp", dtypes=FLOATS_AND_COMPLEX, traits={AMPLIFYING, ILL_CONDITIONED}),
    _unary("math.expm1", dtypes=FLOATS_AND_COMPLEX, traits={AMPLIFYING, ILL_CONDITIONED}),
    _unary("math.sqrt", "positive"),
    _unary("math.rsqrt", "positive", dtypes=FLOATS_AND_COMPLEX, specials=((0.0,),), traits={AMPLIFYING}),
    _unary("math.square", dtypes=FLOATS_AND_COMPLEX, traits={AMPLIFYING, ILL_CONDITIONED}),
    _unary("math.reciprocal", "nonzero", dtypes=FLOATS_AND_COMPLEX, specials=((0.0,),), traits={AMPLIFYING}),
    _unary("math.sin", dtypes=FLOATS_AND_COMPLEX, traits={ILL_CONDITIONED, BOUNDED}),
    _unary("math.cos", dtypes=FLOATS_AND_COMPLEX, traits={ILL_CONDITIONED, BOUNDED}),
    _unary("math.tan", "unit", dtypes=FLOATS_AND_COMPLEX, traits={AMPLIFYING, ILL_CONDITIONED}),
    _unary("math.sinh", dtypes=FLOATS_AND_COMPLEX, traits={AMPLIFYING, ILL_CONDITIONED}),
    _unary("math.cosh", dtypes=FLOATS_AND_COMPLEX, traits={AMPLIFYING, ILL_CONDITIONED}),
    _unary("math.tanh", dtypes=FLOATS_AND_COMPLEX, traits={ILL_CONDITIONED, BOUNDED}),
    _unary("math.asinh", dtypes=FLOATS_AND_COMPLEX),
    _unary("math.atan", dtypes=FLOATS_AND_COMPLEX, traits={BOUNDED}),
    _unary("math.sigmoid", dtypes=FLOATS_AND_COMPLEX, traits={ILL_CONDITIONED, BOUNDED}),
    # Poles at the non-positive integers (digamma NaN there, lgamma +inf); digamma's gradient is polygamma(1, x)
    *[_unary(p, "positive", dtypes=("float16", "float32", "float64"), analytic=False,
             specials=((0.0,), (-1.0,), (-2.5,), (1.0,), (2.0,))) for p in ("math.lgamma", "math.digamma")],
    # polygamma(a, x) of the orders 0 to 2 (NaN for others); zeta(x, q) of exponents above 1; no gradient for a or x
    _unary("math.polygamma", "positive", attrs={"a": (1.0, 0.0, 2.0)}, call=_constant_first_call("a"),
           dtypes=("float32", "float64"), specials=((0.0,), (-1.5,)), analytic=False, traits={AMPLIFYING}),
    _unary("math.zeta", "positive", attrs={"x": (2.0, 3.5)}, call=_constant_first_call("x"), dtypes=("float32", "float64"),
           specials=((0.0,),), analytic=False, traits={AMPLIFYING}),
    # Special functions of issue 24. erfinv and ndtri: infinite at the ends of their domains, NaN beyond, gradients
    # from the output (exp(y^2)); Bessel functions of orders 0 and 1, exponentially scaled (bounded) or not, whose
    # order-1 gradients select at 0; the regularized incomplete gamma functions (TF differentiates a and x);
    # nextafter (ones and zeros times the upstream); lbeta (lgammas along the last axis); angle's complex kernel
    _unary("math.erfinv", "unit", dtypes=("float32", "float64"), specials=((0.0,), (1.0,), (-1.0,), (0.999,), (2.0,)),
           analytic=False, traits={AMPLIFYING, ILL_CONDITIONED}),
    _unary("math.ndtri", "prob", dtypes=("float32", "float64"), specials=((0.5,), (0.0,), (1.0,), (1e-3,), (-0.5,)),
           analytic=False, traits={AMPLIFYING, ILL_CONDITIONED}),
    *[_unary(p, dtypes=("float16", "float32", "float64"), specials=((0.0,), (8.0,), (-9.0,)), analytic=False,
             traits={BOUNDED}) for p in ("math.bessel_i0e", "math.bessel_i1e")],
    *[_unary(p, dtypes=("float16", "float32", "float64"), specials=((0.0,), (8.0,), (-9.0,)), analytic=False,
             traits={AMPLIFYING, ILL_CONDITIONED}) for p in ("math.bessel_i0", "math.bessel_i1")],
    *[_binary(p, ("positive", "positive"), dtypes=("float32", "float64"), specials=((1.0, 0.0), (0.5, 2.0), (-1.0, 1.0)),
              analytic=False, traits={ILL_CONDITIONED, BOUNDED, FIRST_ORDER}) for p in ("math.igamma", "math.igammac")],
    _binary("math.nextafter", dtypes=("float32", "float64"), specials=((1.0, 1.0), (0.0, 1.0), (NAN, 1.0)),
            analytic=False),
    _unary("math.lbeta", "positive", dtypes=("float16", "float32", "float64"), sums_terms=True,
           specials=(([1.0, 2.0],), ([0.0, 1.0],)), analytic=False, traits={COMPOSITE}),
    _unary("math.angle", dtypes=COMPLEX, output="real", specials=((0.0,),), analytic=False, traits={BOUNDED}),
    # tf.math.special's J0, J1 (J1's gradient selects 1/2 at 0) and Y0, Y1 (-inf at 0, NaN below)
    *[_unary(p, dtypes=("float16", "float32", "float64"), specials=((0.0,), (2.0,), (5.0,), (-5.5,)), analytic=False,
             traits={BOUNDED}) for p in ("math.special.bessel_j0", "math.special.bessel_j1")],
    *[_unary(p, "positive", dtypes=("float16", "float32", "float64"), specials=((0.0,), (2.0,), (5.0,), (-1.0,)),
             analytic=False, traits={AMPLIFYING, ILL_CONDITIONED}) for p in ("math.special.bessel_y0", "math.special.bessel_y1")],
    # tf.signal's complex FFTs over the innermost one or two axes: sums of n terms, linear (gradients: the inverse
    # transform scaled by n or 1/n)
    *[_unary(p, dtypes=COMPLEX, sums_terms=True, analytic=False) for p in ("signal.fft", "signal.ifft")],
    *[OpSpec(p, 1, "matrix", ("any",), dtypes=COMPLEX, sums_terms=True, analytic=False)
      for p in ("signal.fft2d", "signal.ifft2d")],
    # tf.math.special's Dawson, exponential, Fresnel and Spence integrals (TF's own kernels; NaN below 0 for expint and
    # spence, whose gradients divide by x and by 1 - x, spence's selecting -1 at 1)
    _unary("math.special.dawsn", dtypes=("float32", "float64"), specials=((0.0,), (3.25,), (-7.0,)), analytic=False,
           traits={BOUNDED}),
    # Fresnel's derivatives, cos and sin of pi x^2 / 2, are ill-conditioned for large x: an ulp of difference in an
    # input computed before (Eigen's float64 exp and log1p are not glibc's) becomes a relative 1e-2 near a zero of
    # the sine at x = 30. Fresh leaves of "unit", with the special points, are inputs where the two sides' rounding agree
    *[_unary(p, "unit", dtypes=("float32", "float64"), specials=((0.0,), (3.25,), (-7.0,)), analytic=False,
             traits={BOUNDED, ILL_CONDITIONED}) for p in ("math.special.fresnel_cos", "math.special.fresnel_sin")],
    _unary("math.special.expint", "positive", dtypes=("float32", "float64"), specials=((0.0,), (2.0,), (-1.0,), (40.0,)),
           analytic=False, traits={AMPLIFYING, ILL_CONDITIONED}),
    _unary("math.special.spence", "positive", dtypes=("float32", "float64"), specials=((0.0,), (1.0,), (0.5,), (-1.0,)),
           analytic=False),
    # betainc(a, b, x) of constant a and b (attributes: TF differentiates only x), x in [0, 1] with its ends
    _unary("math.betainc", "prob", attrs={"a": (2.0, 0.5, 1.0), "b": (3.0, 0.5, 1.0)}, call=_betainc_call,
           dtypes=("float32", "float64"), specials=((0.0,), (1.0,), (0.5,), (1.5,)), analytic=False,
           traits={ILL_CONDITIONED, BOUNDED}),
    # tf.math.special's K0 and K1 (scaled or not): +inf at 0 and below, their gradients NaN at 0 (order 1)
    *[_unary(p, "positive", dtypes=("float16", "float32", "float64"), specials=((0.0,), (2.0,), (-1.0,), (9.0,)),
             analytic=False, traits={AMPLIFYING, ILL_CONDITIONED})
      for p in ("math.special.bessel_k0", "math.special.bessel_k0e", "math.special.bessel_k1", "math.special.bessel_k1e")],
    _unary("math.log_sigmoid", specials=((-100.0,), (100.0,)), traits={ILL_CONDITIONED}),
    _unary("math.softplus", specials=((0.0,),), traits={ILL_CONDITIONED}),
    _unary("math.erf", specials=((0.0,),), traits={ILL_CONDITIONED, BOUNDED}),
    _unary("math.abs", dtypes=FLOATS_AND_COMPLEX, analytic=False),
    _unary("math.negative", dtypes=FLOATS_AND_COMPLEX),
    _unary("math.sign", gradient="zeros", analytic=False, traits={BOUNDED}),
    _unary("math.floor", gradient="none", analytic=False),
    _unary("math.ceil", gradient="none", analytic=False),
    _unary("math.round", gradient="none", analytic=False),
    _binary("math.maximum", analytic=False),
    _binary("math.minimum", analytic=False),
    _binary("math.squared_difference", dtypes=FLOATS_AND_COMPLEX, analytic=False, traits={AMPLIFYING}),
    _binary("math.divide_no_nan", ("any", "nonzero"), rule="same", dtypes=FLOATS_AND_COMPLEX,
            specials=((1.0, 0.0),), analytic=False, traits={AMPLIFYING}),
    _binary("math.multiply_no_nan", rule="same", dtypes=FLOATS_AND_COMPLEX, specials=((1.0, 0.0), (INF, 0.0), (NAN, 0.0)),
            analytic=False),
    _binary("math.xlogy", ("any", "positive"), rule="same", dtypes=FLOATS_AND_COMPLEX,
            specials=((0.0, 0.0), (0.0, 2.0)), analytic=False),
    _binary("math.pow", ("positive", "any"), rule="same", traits={AMPLIFYING, ILL_CONDITIONED, CPOW}),
    _binary("math.add"),
    _binary("math.subtract"),
    _binary("math.multiply", traits={AMPLIFYING}),
    _binary("math.divide", ("any", "nonzero"), traits={AMPLIFYING}),
    _binary("math.atan2", ("any", "nonzero"), rule="same", specials=((0.0, 0.0),), analytic=False),
    _unary("math.reduce_sum", attrs=REDUCE_ATTRS, dtypes=FLOATS_AND_COMPLEX, sums_terms=True, traits={REDUCTION}),
    _unary("math.reduce_mean", attrs=REDUCE_ATTRS, dtypes=FLOATS_AND_COMPLEX, sums_terms=True,
           traits={COMPOSITE, REDUCTION}),
    _unary("math.reduce_max", attrs=REDUCE_ATTRS, specials=(([1.0, 3.0, 3.0],), ([NAN, 1.0],)), analytic=False,
           traits={REDUCTION}),
    _unary("math.reduce_min", attrs=REDUCE_ATTRS, specials=(([1.0, 1.0, 2.0],),), analytic=False, traits={REDUCTION}),
    _unary("math.reduce_prod", attrs=REDUCE_ATTRS, sums_terms=True, specials=(([0.0, 2.0, 3.0],), ([0.0, 0.0, 3.0],)),
           traits={AMPLIFYING, ILL_CONDITIONED, REDUCTION, PRODUCT_ORDER}),
    _unary("math.reduce_logsumexp", attrs=REDUCE_ATTRS, sums_terms=True, specials=(([-INF, -INF],),), analytic=False,
           traits={ILL_CONDITIONED, COMPOSITE, REDUCTION}),
    _unary("math.reduce_variance", attrs=REDUCE_ATTRS, sums_terms=True, analytic=False, traits={COMPOSITE, REDUCTION}),
    _unary("math.reduce_std", attrs=REDUCE_ATTRS, sums_terms=True, analytic=False, traits={COMPOSITE, REDUCTION}),
    _unary("math.reduce_euclidean_norm", attrs=REDUCE_ATTRS, sums_terms=True, specials=(([0.0, 0.0],),),
           analytic=False, traits={COMPOSITE, NORMALIZING, REDUCTION}),
    _unary("math.l2_normalize", attrs={"axis": (None, 1)}, sums_terms=True, specials=(([0.0, 0.0],),), analytic=False,
           traits={BOUNDED, COMPOSITE, NORMALIZING}),
    _unary("math.cumsum", attrs={"axis": (0, 1), "exclusive": (False, True), "reverse": (False, True)},
           dtypes=FLOATS_AND_COMPLEX, sums_terms=True),
    _unary("math.cumprod", attrs={"axis": (0, 1), "exclusive": (False, True), "reverse": (False, True)},
           sums_terms=True, specials=(([2.0, 0.0, 3.0],),), traits={AMPLIFYING, ILL_CONDITIONED}),
    # -inf leads (log 0); a NaN element leaves the scan where it was (std::min and std::max keep the
    # accumulator), so the next step adds log 2 to it
    _unary("math.cumulative_logsumexp", attrs={"axis": (0, 1), "exclusive": (False, True), "reverse": (False, True)},
           sums_terms=True, specials=(([1.0, 1.0, 1.0],), ([-INF, -INF, 1.0],), ([INF, 1.0, -INF],),
                                      ([1.0, NAN, 2.0],)), traits={ILL_CONDITIONED}),
    _unary("math.rint", gradient="none", analytic=False),
    _unary("math.erfc", traits={ILL_CONDITIONED, BOUNDED}),
    _binary("math.xdivy", ("any", "nonzero"), rule="same", analytic=False, traits={AMPLIFYING}),
    _binary("math.xlog1py", ("any", "positive"), rule="same", dtypes=FLOATS_AND_COMPLEX,
            specials=((0.0, 0.0), (0.0, -1.0)), analytic=False),  # no x * log1p(-1): complex programs stay finite
    _binary("realdiv", ("any", "nonzero"), dtypes=FLOATS_AND_COMPLEX, specials=((1.0, 0.0), (0.0, 0.0))),
    _binary("math.floordiv", ("any", "nonzero"), rule="same", gradient="none", analytic=False),
    _binary("math.floormod", ("any", "nonzero"), rule="same", analytic=False),
    _binary("math.truediv", ("any", "nonzero"), traits={AMPLIFYING}),
    _binary("truediv", ("any", "nonzero"), traits={AMPLIFYING}),
    _binary("math.add_n", rule="same", call=_list_call),
    _binary("add_n", rule="same", call=_list_call),
    _unary("math.conj", dtypes=COMPLEX, analytic=False),
    _unary("math.real", dtypes=COMPLEX, output="real", analytic=False),
    _unary("math.imag", dtypes=COMPLEX, output="real", analytic=False),
    _binary("complex", rule="same", dtypes=("float32", "float64"), output="complex", analytic=False),
    _unary("tan", "unit", dtypes=FLOATS_AND_COMPLEX, traits={AMPLIFYING, ILL_CONDITIONED}),
    _unary("sinh", dtypes=FLOATS_AND_COMPLEX, traits={AMPLIFYING, ILL_CONDITIONED}),
    _unary("cosh", dtypes=FLOATS_AND_COMPLEX, traits={AMPLIFYING, ILL_CONDITIONED}),
    _unary("cumsum", attrs={"axis": (0, 1), "exclusive": (False, True), "reverse": (False, True)}, sums_terms=True),
    # Inverse functions on their real domains ("unit": (-1, 1); "above_one"); poles of the derivative at the edges
    *[_unary(p, "unit", dtypes=FLOATS_AND_COMPLEX, specials=((1.0,), (-1.0,), (0.0,), (2.0,)))
      for p in ("math.asin", "math.acos", "math.atanh")],
    _unary("math.acosh", "above_one", dtypes=FLOATS_AND_COMPLEX, specials=((1.0,), (0.5,))),
    # Comparisons, logic and index ops: never differentiable, non-float outputs
    *[_binary(p, gradient="none", output="bool", analytic=False) for p in (
        "equal", "not_equal", "less", "less_equal", "greater", "greater_equal", "math.equal", "math.not_equal",
        "math.less", "math.less_equal", "math.greater", "math.greater_equal")],
    *[_unary(p, gradient="none", output="int64", attrs={"axis": (0, 1)}, analytic=False,
             specials=(([-0.0, NAN],), ([NAN, 1.0],), ([NAN, INF, -INF],), ([NAN, NAN],)))
      for p in ("argmax", "argmin", "math.argmax", "math.argmin")],
    *[_unary(p, gradient="none", output="bool", analytic=False) for p in ("math.is_finite", "math.is_nan")],
    # Recorded by TF with a None gradient: their outputs are on the tape, differentiable as targets and sources
    *[_unary(p, gradient="none", dtypes=FLOATS_AND_COMPLEX, analytic=False) for p in ("zeros_like", "ones_like")],
    # Reductions (top level)
    _unary("reduce_sum", attrs=REDUCE_ATTRS, dtypes=FLOATS_AND_COMPLEX, sums_terms=True, traits={REDUCTION}),
    _unary("reduce_mean", attrs=REDUCE_ATTRS, dtypes=FLOATS_AND_COMPLEX, sums_terms=True,
           traits={COMPOSITE, REDUCTION}),
    _unary("reduce_max", attrs=REDUCE_ATTRS, specials=(([1.0, 3.0, 3.0],), ([3.0, 3.0, 3.0, 3.0],)), analytic=False,
           traits={REDUCTION}),
    _unary("reduce_min", attrs=REDUCE_ATTRS, analytic=False, traits={REDUCTION}),
    _unary("reduce_prod", attrs=REDUCE_ATTRS, dtypes=FLOATS_AND_COMPLEX, sums_terms=True,
           traits={AMPLIFYING, ILL_CONDITIONED, REDUCTION, PRODUCT_ORDER}),
    _unary("reduce_logsumexp", attrs=REDUCE_ATTRS, sums_terms=True, analytic=False,
           traits={ILL_CONDITIONED, COMPOSITE, REDUCTION}),
    _unary("norm", attrs={"ord": ("euclidean", 1, 3), "axis": (None, 1), "keepdims": (False, True)}, sums_terms=True,
           specials=(([0.0, 0.0],), ([3.0, 4.0],)), analytic=False, traits={COMPOSITE, NORMALIZING, REDUCTION}),
    # Structure
    _unary("reshape", attrs={"shape": ((-1,),)}, dtypes=FLOATS_AND_COMPLEX, traits={TAKES_SCALAR}),
    _unary("transpose", attrs={"perm": (None, (1, 0)), "conjugate": (False, True)}, dtypes=FLOATS_AND_COMPLEX,
           analytic=False),
    _unary("expand_dims", attrs={"axis": (1, 0, -1)}, dtypes=FLOATS_AND_COMPLEX, traits={GROWS, TAKES_SCALAR}),
    _unary("squeeze", attrs={"axis": (None,)}, dtypes=FLOATS_AND_COMPLEX, traits={TAKES_SCALAR}),
    _binary("concat", rule="concat", attrs={"axis": (0, 1)}, call=_list_call, dtypes=FLOATS_AND_COMPLEX,
            traits={GROWS}),
    _binary("stack", rule="same", attrs={"axis": (0, 1)}, call=_list_call, dtypes=FLOATS_AND_COMPLEX,
            traits={GROWS, TAKES_SCALAR}),
    _unary("unstack", attrs={"axis": (1, 0)}, dtypes=FLOATS_AND_COMPLEX),
    _unary("split", attrs={"num_or_size_splits": ((1, 3),), "axis": (1,)}, dtypes=FLOATS_AND_COMPLEX),
    _unary("tile", attrs={"multiples": ((2, 1),)}, dtypes=FLOATS_AND_COMPLEX, traits={GROWS}),
    _unary("broadcast_to", attrs={"shape": ((2, 3, 4),)}, dtypes=FLOATS_AND_COMPLEX, traits={GROWS, TAKES_SCALAR}),
    _unary("slice", attrs={"begin": ((1, 0), (0, 1)), "size": ((2, -1), (1, 2))}, dtypes=FLOATS_AND_COMPLEX),
    # with batch_dims=1 the indices are rows, one per member of the batch (_gathered_indices)
    _unary("gather", attrs={"indices": ((2, 0, 2),), "axis": (0, 1), "batch_dims": (0,)}, call=_gather_call,
           dtypes=FLOATS_AND_COMPLEX),
    # N-d indices held flat, index depth first (index_rows): rows (2, 1), (0, 2), (2, 1), or six rows of depth 1
    # (the gradient is IndexedSlices for indices of shape [n, 1])
    _unary("gather_nd", attrs={"indices": ((2, 2, 1, 0, 2, 2, 1), (1, 2, 1, 0, 2, 2, 1))}, call=_gather_nd_call,
           dtypes=FLOATS_AND_COMPLEX),
    _unary("scatter_nd", attrs={"indices": ((1, 2, 0, 2),), "shape": ((4, 4),)}, call=_scatter_nd_call,
           dtypes=FLOATS_AND_COMPLEX, traits={INDEXED_ROWS}),  # row 2 twice: the updates add up
    _binary("tensor_scatter_nd_update", rule="same", attrs={"indices": ((1, 2, 0, 1), (1, 1, 1, 0))},
            call=_tensor_scatter_call, dtypes=FLOATS_AND_COMPLEX,
            traits={INDEXED_ROWS, UNSPECIFIED_ORDER}),  # a repeated row: the last update stays (on TF's CPU)
    _binary("tensor_scatter_nd_add", rule="same", attrs={"indices": ((1, 2, 0, 2),)}, call=_tensor_scatter_call,
            dtypes=FLOATS_AND_COMPLEX, traits={INDEXED_ROWS}),
    _binary("boolean_mask", rule="same", call=_mask_call, analytic=False),
    _unary("reverse", attrs={"axis": ((1,), (0,), (-1, 0))}, dtypes=FLOATS_AND_COMPLEX),
    # Flat paddings, read as [before, after] per axis; REFLECT pads less than a dimension, SYMMETRIC up to it
    _unary("pad", attrs={"paddings": ((1, 0, 0, 2),), "mode": ("CONSTANT", "REFLECT", "SYMMETRIC"),
                         "constant_values": (0.0, 1.5)}, call=_pad_call, dtypes=FLOATS_AND_COMPLEX, traits={GROWS}),
    _unary("math.unsorted_segment_sum", attrs={"segment_ids": ((0, 2, 0), (1, -1, 1)), "num_segments": (3,)},
           dtypes=FLOATS_AND_COMPLEX, sums_terms=True, traits={ROW_ATTRIBUTE}),
    _unary("math.segment_sum", attrs={"segment_ids": ((0, 0, 2),)}, dtypes=FLOATS_AND_COMPLEX, sums_terms=True,
           traits={ROW_ATTRIBUTE}),
    # Recorded by TF with no gradient for on_value and off_value (scalars); indices outside [0, depth) are off
    OpSpec("one_hot", 2, "scalars", ("any", "any"), attrs={"indices": ((0, 2, -1),), "depth": (3,), "axis": (-1, 0)},
           call=_one_hot_call, gradient="none", dtypes=FLOATS_AND_COMPLEX, analytic=False),
    # Linear algebra
    _binary("matmul", rule="matmul", dtypes=FLOATS_AND_COMPLEX, sums_terms=True, attrs=MATMUL_ATTRS,
            traits={AMPLIFYING, CONTRACTS}),
    _binary("linalg.matmul", rule="matmul", sums_terms=True, attrs=MATMUL_ATTRS, traits={AMPLIFYING, CONTRACTS}),
    _binary("linalg.matvec", rule="matvec", sums_terms=True, attrs={"transpose_a": (False, True), "adjoint_a": (False, True)},
            traits={CONTRACTS}),
    # Equations over TF's grammar: a product, a trace inside an operand, an implicit output, an ellipsis
    # broadcast in both operands or one (properties/generate/ops.py draws shapes that fit each)
    _binary("einsum", rule="einsum", attrs={"equation": EINSUM_EQUATIONS}, call=_einsum_call, sums_terms=True,
            traits={AMPLIFYING, CONTRACTS}),
    # Reductions, transposes, traces, diagonals (batched), implicit outputs
    OpSpec("linalg.einsum", 1, "einsum", attrs={"equation": UNARY_EINSUM_EQUATIONS}, call=_einsum_call,
           sums_terms=True, traits={AMPLIFYING}),
    _unary("linalg.norm", sums_terms=True, analytic=False, traits={COMPOSITE, NORMALIZING, REDUCTION}),
    _unary("linalg.l2_normalize", attrs={"axis": (1,)}, sums_terms=True, analytic=False,
           traits={BOUNDED, COMPOSITE, NORMALIZING}),
    _binary("linalg.global_norm", rule="same", call=_list_call, sums_terms=True, specials=((0.0, 0.0),), analytic=False,
            traits={COMPOSITE, NORMALIZING}),
    OpSpec("linalg.matrix_transpose", 1, "matrix", attrs={"conjugate": (False, True)}, dtypes=FLOATS_AND_COMPLEX,
           analytic=False),
    OpSpec("linalg.adjoint", 1, "matrix", dtypes=FLOATS_AND_COMPLEX, analytic=False),
    OpSpec("linalg.trace", 1, "matrix", dtypes=FLOATS_AND_COMPLEX, sums_terms=True),
    OpSpec("linalg.diag_part", 1, "matrix", attrs={"k": (0, 1, -1)}, dtypes=FLOATS_AND_COMPLEX),
    _unary("linalg.diag", attrs={"k": (0, 1, -1)}, dtypes=FLOATS_AND_COMPLEX),
    OpSpec("linalg.band_part", 1, "matrix", attrs={"num_lower": (-1, 0, 1), "num_upper": (0, -1, 1)},
           dtypes=FLOATS_AND_COMPLEX),
    # Factorisations of well-conditioned matrices ("invertible": diagonally dominant; "spd": Hermitian positive
    # definite); singular, NaN and indefinite inputs are pinned by tests/reftape_only/test_api_surface.py
    OpSpec("linalg.inv", 1, "square", ("invertible",), attrs={"adjoint": (False, True)}, sums_terms=True,
           dtypes=("float16", "float32", "float64") + COMPLEX, traits={AMPLIFYING}),
    OpSpec("linalg.det", 1, "square", ("invertible",), sums_terms=True, dtypes=LINALG_DTYPES, traits={AMPLIFYING}),
    OpSpec("linalg.slogdet", 1, "square", ("invertible",), call=_pair_of_results_call, sums_terms=True, analytic=False,
           dtypes=LINALG_DTYPES),
    OpSpec("linalg.cholesky", 1, "square", ("spd",), sums_terms=True, analytic=False, dtypes=LINALG_DTYPES,
           traits={HERMITIAN_GRADIENT}),
    OpSpec("linalg.logdet", 1, "square", ("spd",), sums_terms=True, analytic=False, output="real", dtypes=LINALG_DTYPES,
           traits={HERMITIAN_GRADIENT}),
    OpSpec("linalg.solve", 2, "square_rhs", ("invertible", "any"), attrs={"adjoint": (False, True)}, sums_terms=True,
           dtypes=LINALG_DTYPES, traits={AMPLIFYING}),
    OpSpec("linalg.triangular_solve", 2, "square_rhs", ("invertible", "any"),
           attrs={"lower": (True, False), "adjoint": (False, True)}, sums_terms=True, dtypes=LINALG_DTYPES,
           traits={AMPLIFYING}),
    # Decompositions (issue 24): sign-invariant targets (the adapters above); well-separated spectra ("separated",
    # "hermitian_separated": properties/generate/values.py); degenerate points pinned by tests/suite/test_ops.py
    OpSpec("linalg.qr", 1, "matrix", attrs={"full_matrices": (False, True)}, call=_pair_of_results_call,
           sums_terms=True, analytic=False, dtypes=LINALG_DTYPES),
    OpSpec("linalg.eigh", 1, "square", ("hermitian_separated",), call=_eigh_call, sums_terms=True, analytic=False,
           dtypes=LINALG_DTYPES),
    OpSpec("linalg.eigvalsh", 1, "square", ("hermitian_separated",), sums_terms=True, analytic=False,
           dtypes=LINALG_DTYPES),
    OpSpec("linalg.svd", 1, "matrix", ("separated",), attrs={"compute_uv": (True, False), "full_matrices": (False, True)},
           call=_svd_call, sums_terms=True, analytic=False, dtypes=LINALG_DTYPES),
    OpSpec("linalg.expm", 1, "square", ("unit",), sums_terms=True, analytic=False, dtypes=LINALG_DTYPES,
           traits={AMPLIFYING}),
    # fast=False: TF's kernel, which has no gradient (tests/suite/test_ops.py); complex128 with a regularizer: TF's
    # NotImplementedError
    OpSpec("linalg.lstsq", 2, "least_squares", ("separated", "any"), attrs={"l2_regularizer": (0.0, 0.5)},
           sums_terms=True, analytic=False, dtypes=LINALG_DTYPES, traits={AMPLIFYING}),
    OpSpec("linalg.sqrtm", 1, "square", ("spd",), sums_terms=True, analytic=False, dtypes=LINALG_DTYPES),
    # Compact diagonals, diagonally dominant ("tridiagonal"); the sequence and matrix formats in tests/suite/test_ops.py
    OpSpec("linalg.tridiagonal_solve", 2, "tridiagonal", ("tridiagonal", "any"),
           attrs={"partial_pivoting": (True, False)}, sums_terms=True, analytic=False, dtypes=LINALG_DTYPES,
           traits={AMPLIFYING}),
    _binary("linalg.cross", rule="cross", dtypes=FLOATS),
    _unary("linalg.normalize", attrs={"ord": ("euclidean", 1), "axis": (None, -1)}, call=_pair_of_results_call,
           sums_terms=True, analytic=False, traits={BOUNDED, COMPOSITE, NORMALIZING}),
    # Selections by order: ties and signed zeros in index order
    # (NaNs, and sorted=False for 1 < k < n, in the orders TF's kernel leaves)
    _unary("math.top_k", attrs={"k": (2, 4, 1), "sorted": (True, False)}, call=_top_k_values_call, analytic=False,
           specials=(([1.0, 3.0, 3.0, 1.0],), ([0.0, -0.0, 2.0, -0.0],), ([NAN, 1.0, NAN, 3.0],))),
    _unary("sort", attrs={"axis": (-1, 0), "direction": ("ASCENDING", "DESCENDING")}, analytic=False,
           specials=(([1.0, 3.0, 3.0, 1.0],), ([2.0, NAN, -1.0, NAN],))),
    _unary("argsort", attrs={"axis": (-1, 0), "direction": ("ASCENDING", "DESCENDING")}, gradient="none",
           output="int32", analytic=False, specials=(([1.0, 3.0, 3.0, 1.0],), ([0.0, -0.0, 2.0, -0.0],))),
    # Neural-network ops
    _unary("nn.relu", specials=((0.0,), (NAN,)), analytic=False),
    _unary("nn.relu6", specials=((0.0,), (6.0,)), analytic=False, traits={BOUNDED}),
    _unary("nn.elu", specials=((0.0,),), analytic=False, traits={ILL_CONDITIONED}),
    _unary("nn.selu", specials=((0.0,),), analytic=False, traits={ILL_CONDITIONED}),
    _unary("nn.leaky_relu", attrs={"alpha": (0.2, 0.3)}, specials=((0.0,), (-1.0,)), analytic=False),
    _unary("nn.gelu", attrs={"approximate": (False, True)}, specials=((0.0,),), traits={ILL_CONDITIONED}),
    _unary("nn.silu", specials=((0.0,),), traits={ILL_CONDITIONED}),
    _unary("nn.softplus", specials=((0.0,),), traits={ILL_CONDITIONED}),
    _unary("nn.softsign", analytic=False, traits={BOUNDED, FIRST_ORDER}),
    _unary("nn.sigmoid", dtypes=FLOATS_AND_COMPLEX, traits={ILL_CONDITIONED, BOUNDED}),
    _unary("nn.tanh", dtypes=FLOATS_AND_COMPLEX, traits={ILL_CONDITIONED, BOUNDED}),
    _unary("nn.softmax", attrs={"axis": (-1, 0)}, specials=(([1.0, 1.0, 1.0],),), sums_terms=True,
           traits={ILL_CONDITIONED, BOUNDED}),
    _unary("nn.log_softmax", attrs={"axis": (-1, 0)}, specials=(([0.0, 0.0],),), sums_terms=True,
           traits={ILL_CONDITIONED}),
    _unary("nn.l2_loss", sums_terms=True, traits={AMPLIFYING, COMPOSITE, REDUCTION}),
    # (mean, variance): the variance's differences hold the mean constant; float16 computed in float32
    _unary("nn.moments", attrs={"axes": ((0,), (-1,)), "keepdims": (False, True)}, call=_pair_of_results_call,
           sums_terms=True, analytic=False, traits={COMPOSITE}),
    _binary("nn.sigmoid_cross_entropy_with_logits", ("prob", "any"), rule="cross_entropy", call=_cross_entropy_call,
            specials=((0.5, 0.0),), analytic=False, traits={ILL_CONDITIONED}),
    _binary("nn.softmax_cross_entropy_with_logits", ("simplex", "any"), rule="cross_entropy",
            call=_cross_entropy_call, sums_terms=True, traits={ILL_CONDITIONED}),
    _unary("nn.sparse_softmax_cross_entropy_with_logits", attrs={"labels": ((3, 0, 1),)}, call=_sparse_cross_entropy_call,
           sums_terms=True, traits={ILL_CONDITIONED, TAKES_MATRIX, ROW_ATTRIBUTE, DETERMINISTIC_COMPOSITE}),
    # Not NCHW: TF's vectorized jacobian takes BiasAddGrad's NCHW input to be of rank 4 (KNOWN_DIVERGENCES.md)
    _binary("nn.bias_add", rule="bias", dtypes=FLOATS_AND_COMPLEX),
    # Not max_norm: its comparisons number TF's tape differently (KNOWN_DIVERGENCES.md 9); tests/suite/test_ops.py covers it
    _unary("nn.embedding_lookup", attrs={"ids": ((2, 0, 2),)}, traits={PARTITIONED}),
    _unary("nn.l2_normalize", attrs={"axis": (1, None)}, sums_terms=True, analytic=False,
           traits={BOUNDED, COMPOSITE, NORMALIZING}),
]

# Segments (issue 24). Sorted ids: empty segments 0 (1 for a product); unsorted ids (negative ones dropped):
# empty segments the dtype's lowest (max) or highest (min) finite value, 1 for a product, 0 for the means.
# Ties share a minimum's or maximum's gradient evenly; a product's gradient at one zero is the product of the
# others, at two zeros nothing. The sparse ones pick rows by `indices` (repeats included) into sorted segments.
_ENTRIES += [
    _unary("math.segment_mean", attrs={"segment_ids": ((0, 0, 2), (0, 1, 1))}, dtypes=FLOATS_AND_COMPLEX,
           sums_terms=True, traits={ROW_ATTRIBUTE}),
    *[_unary(p, attrs={"segment_ids": ((0, 0, 2), (0, 1, 1))}, specials=(([1.0, 1.0, 3.0],), ([NAN, 1.0, 1.0],),
                                                                          ([1.0, NAN, 2.0],)),
             analytic=False, traits={ROW_ATTRIBUTE}) for p in ("math.segment_min", "math.segment_max")],
    _unary("math.segment_prod", attrs={"segment_ids": ((0, 0, 2), (0, 1, 1))}, dtypes=FLOATS_AND_COMPLEX,
           specials=(([0.0, 2.0, 3.0],), ([0.0, 0.0, 3.0],), ([2.0, 0.0, 0.0],)), sums_terms=True,
           traits={ROW_ATTRIBUTE, AMPLIFYING}),
    *[_unary(p, attrs={"segment_ids": ((0, 2, 0), (1, -1, 1)), "num_segments": (3,)},
             specials=(([1.0, 5.0, 1.0],), ([NAN, 1.0, 1.0],)), analytic=False, traits={ROW_ATTRIBUTE, AMPLIFYING})
      for p in ("math.unsorted_segment_min", "math.unsorted_segment_max")],
    _unary("math.unsorted_segment_prod", attrs={"segment_ids": ((0, 2, 0), (1, -1, 1)), "num_segments": (3,)},
           dtypes=FLOATS_AND_COMPLEX, specials=(([0.0, 2.0, 3.0],), ([0.0, 1.0, 0.0],), ([2.0, 0.0, 0.0],)),
           sums_terms=True, traits={ROW_ATTRIBUTE, AMPLIFYING}),
    *[_unary(p, attrs={"segment_ids": ((0, 2, 0), (1, -1, 1)), "num_segments": (3,)}, sums_terms=True,
             traits={ROW_ATTRIBUTE}) for p in ("math.unsorted_segment_mean", "math.unsorted_segment_sqrt_n")],
    *[_unary(p, attrs={"indices": ((2, 0, 2, 1),), "segment_ids": ((0, 0, 1, 3), (0, 1, 1, 1)),
                       "num_segments": (None, 5)}, sums_terms=True, traits={ROW_ATTRIBUTE})
      for p in ("sparse.segment_sum", "sparse.segment_mean", "sparse.segment_sqrt_n")],
]
# Array ops (issue 24): roll's gradient rolls back; repeat is TF's composite (tile, and for counts per slice a
# boolean mask); tensordot transposes, reshapes and multiplies (axes 1 here; tests/suite/test_ops.py takes the
# other forms); strided_slice's masks (an open begin or end, a new axis, an index dropping its axis). The
# image rule: a batch of images, height 2 rows per base row, width 2, the base's last side as depth.
SHAPE_RULES["image"] = lambda s: ((1, 2 * s[0], 2, s[-1]),)
_ENTRIES += [
    # Roll: non-negative axes (TF's vectorized jacobians roll the wrong axis for a negative one: KNOWN_DIVERGENCES.md,
    # outside the program language); tests/suite/test_ops.py takes negative axes and vectors of shifts
    _unary("roll", attrs={"shift": (1, -5), "axis": (0, 1)}, dtypes=FLOATS_AND_COMPLEX),
    _unary("repeat", attrs={"repeats": (2, (1, 0, 2)), "axis": (0, 1, None)}, dtypes=FLOATS_AND_COMPLEX,
           traits={GROWS}),
    _binary("tensordot", rule="matmul", attrs={"axes": (1,)}, dtypes=FLOATS_AND_COMPLEX, sums_terms=True,
            traits={AMPLIFYING, CONTRACTS}),
    _unary("strided_slice", attrs={"begin": ((0, 1), (2, -1)), "end": ((3, 4), (0, 0)), "strides": ((1, 2), (-1, -2)),
                                   "begin_mask": (0, 1), "end_mask": (0, 2), "new_axis_mask": (0, 2),
                                   "shrink_axis_mask": (0, 1), "ellipsis_mask": (0, 1)}, dtypes=FLOATS_AND_COMPLEX),
    *[OpSpec(p, 1, "image", attrs={"block_size": (2,)}, dtypes=FLOATS_AND_COMPLEX)
      for p in ("nn.space_to_depth", "nn.depth_to_space")],
    *[OpSpec(p, 1, "image", dtypes=FLOATS_AND_COMPLEX) for p in ("image.flip_left_right", "image.flip_up_down")],
]
# tf.image.resize: bilinear (float32 whatever the input's dtype; its gradient in the input's) or nearest (a copy);
# half-pixel centres; a size that shrinks one side and grows the other, a column, and an aspect-preserving fit
# (resized_size). Each output sums at most four terms, each gradient element those of the pixels that read it.
RESIZE_METHODS = ("bilinear", "nearest")
_ENTRIES += [
    OpSpec("image.resize", 1, "image", attrs={"size": ((3, 5), (5, 1), (8, 3)), "method": RESIZE_METHODS,
                                              "preserve_aspect_ratio": (False, True)},
           sums_terms=True, analytic=False, traits={NARROWS}),
]


# tf.image's crops and pads (slices and pads of the batch) on the image rule's (1, 2 h, 2, depth): windows and
# frames that fit it (the generator fits them to the image it draws: properties/generate/ops.py)
_ENTRIES += [
    OpSpec("image.crop_to_bounding_box", 1, "image", attrs={"offset_height": (0, 2), "offset_width": (0, 1),
                                                            "target_height": (3, 1), "target_width": (1,)},
           dtypes=FLOATS_AND_COMPLEX),
    OpSpec("image.pad_to_bounding_box", 1, "image", attrs={"offset_height": (0, 2), "offset_width": (1, 0),
                                                           "target_height": (9, 8), "target_width": (3, 4)},
           dtypes=FLOATS_AND_COMPLEX, traits={GROWS}),
    OpSpec("image.resize_with_crop_or_pad", 1, "image", attrs={"target_height": (4, 9), "target_width": (3, 1)},
           dtypes=FLOATS_AND_COMPLEX, traits={GROWS}),
    OpSpec("image.central_crop", 1, "image", attrs={"central_fraction": (0.5, 0.8, 1.0)}, dtypes=FLOATS_AND_COMPLEX),
]


# tf.signal's real FFTs, fft_length inferred (tests/suite/test_ops.py takes explicit ones: an explicit length on an
# empty input gives whatever TF's memory held). The spectrum rule: an inverse's last axis at least 2 bins (one bin
# is a transform of 0 samples, which aborts TF's process); the signal rule: a real signal (its last axis halved);
# rfft2d and irfft2d over a matrix.
SHAPE_RULES["signal"] = lambda s: (s,)
SHAPE_RULES["spectrum"] = lambda s: (s[:-1] + ((s[-1] + 1) if s[-1] else 0,),)
_ENTRIES += [
    OpSpec("signal.rfft", 1, "signal", dtypes=("float32", "float64"), output="complex", sums_terms=True,
           analytic=False),
    OpSpec("signal.rfft2d", 1, "signal", dtypes=("float32", "float64"), output="complex", sums_terms=True,
           analytic=False, traits={TAKES_MATRIX}),
    OpSpec("signal.irfft", 1, "spectrum", dtypes=COMPLEX, output="real", sums_terms=True, analytic=False),
    OpSpec("signal.irfft2d", 1, "spectrum", dtypes=COMPLEX, output="real", sums_terms=True, analytic=False,
           traits={TAKES_MATRIX}),
]


def resized_size(size: tuple, height: int, width: int, preserve_aspect_ratio: bool) -> tuple:
    """The spatial size tf.image.resize returns: `size`, or with preserve_aspect_ratio the largest size within
    it of the image's aspect ratio, computed in float32 as TF computes it (a side may round to 0)."""
    if not preserve_aspect_ratio:
        return tuple(size)
    import numpy as np

    factor = min(np.float32(size[0]) / np.float32(height), np.float32(size[1]) / np.float32(width))
    return tuple(int(np.round(np.float32(factor) * np.float32(side))) for side in (height, width))

# Pooling and normalisation. Inputs channels last (TF's CPU kernels refuse NCHW): a base shape (h, ..., w) as a
# batch of h rows of w + 2 positions and 2 channels (1-d), one image h + 2 by w + 2 with 2 channels (2-d), or one
# volume h + 2 by w + 2 by 3 with 1 channel (3-d); an empty side stays empty. Sides of at least 3 hold every
# window the entries draw: a VALID window larger than the input pools to an empty output, whose MaxPoolGrad
# TF leaves uninitialised (docs/fidelity.md). Windows tie at the special points (max pooling routes to the
# first maximum; 3-d max pooling's gradient to every tied one); batch_normalization's statistics and
# parameters are per channel.
def _side(n: int) -> int:
    return n + 2 if n else 0


SHAPE_RULES.update({
    "pool1d": lambda s: ((s[0], _side(s[-1]), 2),),
    "pool2d": lambda s: ((1, _side(s[0]), _side(s[-1]), 2),),
    "pool3d": lambda s: ((1, _side(s[0]), _side(s[-1]), 3, 1),),
    "batch_norm": lambda s: (s, s[-1:], s[-1:], s[-1:], s[-1:]),
})
POOL_RULES = ("pool1d", "pool2d", "pool3d")
POOLING_3D_DTYPES = ("bfloat16", "float32")  # TF has MaxPool3D and AvgPool3D CPU kernels for these only
_POOL_ATTRS = {"padding": ("VALID", "SAME"), "strides": (1, 2)}
_TIES = {1: [[[3.0], [3.0], [1.0], [3.0]]], 2: [[[[3.0], [3.0], [1.0]], [[1.0], [3.0], [2.0]], [[3.0], [0.0], [3.0]]]],
         3: [[[[[3.0], [3.0]], [[1.0], [3.0]]], [[[3.0], [2.0]], [[3.0], [3.0]]]]]}  # windows up to 3 wide fit


@_adapter(lambda op, xs, attrs: f"list({op}({xs[0]}{_attr_source(attrs)}))")
def _argmax_pool_call(op: Any, inputs: list, attrs: dict) -> Any:
    """max_pool_with_argmax's (output, argmax) as a list."""
    return list(op(inputs[0], **attrs))


def _pooling(path: str, rule: str, ksizes: tuple, **options: Any) -> OpSpec:
    n = int(rule[-2])
    maximum = "max" in path
    return OpSpec(path, 1, rule, attrs={"ksize": ksizes, **_POOL_ATTRS}, analytic=not maximum,
                  sums_terms=not maximum, specials=((_TIES[n],),) if maximum else (), **options)


_ENTRIES += [
    _pooling("nn.max_pool1d", "pool1d", (2, 3, (1, 2, 1))),
    _pooling("nn.max_pool2d", "pool2d", (2, (2, 3), (1, 3, 2, 1))),
    _pooling("nn.max_pool3d", "pool3d", (2, (1, 2, 2)), dtypes=POOLING_3D_DTYPES),
    _pooling("nn.max_pool", "pool2d", (2, (3, 2))),
    _pooling("nn.avg_pool1d", "pool1d", (2, 3)),
    _pooling("nn.avg_pool2d", "pool2d", (2, (2, 3), (1, 3, 2, 1))),
    _pooling("nn.avg_pool3d", "pool3d", (2, (1, 2, 2)), dtypes=POOLING_3D_DTYPES),
    _pooling("nn.avg_pool", "pool2d", (2, (3, 2))),
    OpSpec("nn.max_pool_with_argmax", 1, "pool2d", attrs={"ksize": (2, (2, 3)), **_POOL_ATTRS,
                                                          "include_batch_in_index": (False, True)},
           call=_argmax_pool_call, analytic=False, specials=((_TIES[2],),)),
    OpSpec("nn.pool", 1, "pool2d", attrs={"window_shape": ((2, 2), (3, 2)), "pooling_type": ("MAX", "AVG"),
                                          "strides": ((1, 1), (2, 2)), "padding": ("VALID", "SAME")},
           analytic=False, sums_terms=True, specials=((_TIES[2],),)),
    # Over the depth axis of a 4-D input; TF has no gradient of LRNGrad (no second order) and no bfloat16 kernel
    OpSpec("nn.local_response_normalization", 1, "pool2d",
           attrs={"depth_radius": (5, 1, 0), "bias": (1.0, 2.0), "alpha": (1.0, 0.5), "beta": (0.5, 0.75, 1.0)},
           dtypes=("float16", "float32"), sums_terms=True, analytic=False, traits={COMPOSITE}),
    OpSpec("nn.batch_normalization", 5, "batch_norm", ("any", "any", "positive", "any", "any"),
           attrs={"variance_epsilon": (1e-3, 0.0, 0.5)}, dtypes=FLOATS_AND_COMPLEX, analytic=False,
           traits={COMPOSITE}),
]

# ---------------------------------------------------------------------------------------------
# Convolutions: an input of rank 3, 4 or 5 (channels last) and a filter whose input channels are the input's.
# The base shape decides the batch (empty for an empty first dimension) and the output channels (half the
# last dimension); the spatial sizes are fixed and small, so that every sum (the forward's over a window and
# the input channels, the filter gradient's over the batch and the output's positions) has at most 12 terms.
# Not drawn: conv2d's and conv1d's dilations (TF's CPU backprops refuse them: tests/reftape_only/
# test_api_surface.py pins it) and an empty spatial dimension (TF's filter backprop of one returns
# uninitialised memory).


def _conv_batch(s: tuple) -> int:
    return min(s[0], 1)


def _conv_channels(s: tuple) -> int:
    return s[-1] // 2 if len(s) > 1 else 2


def _depthwise_channels(s: tuple) -> int:
    return 2 if all(s) else 0


SHAPE_RULES.update({
    "conv1d": lambda s: ((_conv_batch(s), 6, 2), (2, 2, _conv_channels(s))),
    "conv2d": lambda s: ((_conv_batch(s), 3, 4, 2), (2, 2, 2, _conv_channels(s))),
    "conv3d": lambda s: ((_conv_batch(s), 2, 2, 3, 2), (2, 1, 2, 2, _conv_channels(s))),
    # empty input channels only: TF's depthwise backprops leave uninitialised memory for an empty batch (the
    # filter's) or channel multiplier (the input's)
    "depthwise": lambda s: ((1, 3, 4, _depthwise_channels(s)), (2, 2, _depthwise_channels(s), 2)),
    "separable": lambda s: ((1, 3, 4, _depthwise_channels(s)), (2, 2, _depthwise_channels(s), 2),
                            (1, 1, 2 * _depthwise_channels(s), 2)),
    # a transpose's input is a convolution's output: its filter is (window, output channels, input channels)
    "conv1d_transpose": lambda s: ((_conv_batch(s), 3, 2), (2, _conv_channels(s), 2)),
    "conv2d_transpose": lambda s: ((_conv_batch(s), 2, 3, 2), (2, 2, _conv_channels(s), 2)),
    "conv3d_transpose": lambda s: ((_conv_batch(s), 2, 2, 3, 2), (2, 1, 2, _conv_channels(s), 2)),
})
CONV_RULES = ("conv1d", "conv2d", "conv3d", "depthwise", "separable", "conv1d_transpose", "conv2d_transpose",
              "conv3d_transpose")
EXPLICIT_PADDING = (0, 0, 1, 0, 0, 2, 0, 0)  # [before, after] per dimension of NHWC, held flat


def conv_padding(padding: Any) -> Any:
    """A padding attribute as TF takes it: "SAME" or "VALID", or flat explicit paddings as pairs."""
    return padding if isinstance(padding, str) else [list(padding[i:i + 2]) for i in range(0, len(padding), 2)]


def _conv_keywords(attrs: dict) -> str:
    return "".join(f", {k}={conv_padding(v)!r}" if k == "padding" else f", {k}={v!r}" for k, v in attrs.items())


@_adapter(lambda op, xs, attrs: f"{op}({', '.join(xs)}{_conv_keywords(attrs)})")
def _conv_call(op: Any, inputs: list, attrs: dict) -> Any:
    return op(*inputs, **{k: conv_padding(v) if k == "padding" else v for k, v in attrs.items()})


def transposed_sizes(spatial: tuple, window: tuple, strides: Any, padding: str) -> tuple:
    """The spatial sizes a convolution transpose of `spatial` returns, the largest for VALID padding."""
    strides = (strides,) * len(spatial) if isinstance(strides, int) else tuple(strides)
    if padding == "SAME":
        return tuple(n * s for n, s in zip(spatial, strides))
    return tuple((n - 1) * s + k for n, s, k in zip(spatial, strides, window))


def _transposed_source(op: str, xs: list, attrs: dict) -> str:
    x, w = xs
    strides = attrs["strides"]
    rank = 3 if op.endswith("conv1d_transpose") else 4 if op.endswith("conv2d_transpose") else 5
    per = (strides,) * (rank - 2) if isinstance(strides, int) else tuple(strides)
    sizes = [f"{x}.shape[{i + 1}] * {s}" if attrs["padding"] == "SAME"
             else f"({x}.shape[{i + 1}] - 1) * {s} + {w}.shape[{i}]" for i, s in enumerate(per)]
    return f"{op}({x}, {w}, [{x}.shape[0], {', '.join(sizes)}, {w}.shape[-2]]{_conv_keywords(attrs)})"


@_adapter(_transposed_source)
def _transposed_call(op: Any, inputs: list, attrs: dict) -> Any:
    x, w = inputs
    shape, window = tuple(x.shape), tuple(w.shape)
    sizes = transposed_sizes(shape[1:-1], window[:-2], attrs["strides"], attrs["padding"])
    return op(x, w, [shape[0], *sizes, window[-2]], **attrs)


def _conv(path: str, rule: str, attrs: dict, arity: int = 2, call: Callable = _conv_call,
          traits: frozenset = frozenset()) -> OpSpec:
    return OpSpec(path, arity, rule, ("any",) * arity, attrs=attrs, call=call, sums_terms=True,
                  traits={AMPLIFYING, *traits})


_ENTRIES += [
    _conv("nn.conv2d", "conv2d", {"strides": (1, 2, (1, 2)), "padding": ("SAME", "VALID", EXPLICIT_PADDING)},
          traits={CONV2D_KERNEL}),
    _conv("nn.conv1d", "conv1d", {"stride": (1, 2), "padding": ("SAME", "VALID")}),
    _conv("nn.conv3d", "conv3d", {"strides": ((1, 1, 1, 1, 1), (1, 1, 2, 1, 1)), "padding": ("SAME", "VALID")}),
    # a dilated convolution through space-to-batch (strides of 1 only: ValueError otherwise)
    _conv("nn.convolution", "conv2d", {"strides": (None, 2), "padding": ("VALID", "SAME"), "dilations": (None, 2)},
          traits={CONV2D_KERNEL}),
    # dilations with strides: strides over the space-to-batch phases, as TF has it
    _conv("nn.depthwise_conv2d", "depthwise", {"strides": ((1, 1, 1, 1), (1, 2, 2, 1)),
                                               "padding": ("SAME", "VALID", EXPLICIT_PADDING),
                                               "dilations": (None, (2, 2))}),
    _conv("nn.separable_conv2d", "separable", {"strides": ((1, 1, 1, 1), (1, 2, 2, 1)), "padding": ("SAME", "VALID"),
                                               "dilations": (None, (2, 2))}, arity=3),
    _conv("nn.conv2d_transpose", "conv2d_transpose", {"strides": (1, 2), "padding": ("SAME", "VALID")},
          call=_transposed_call),
    _conv("nn.conv1d_transpose", "conv1d_transpose", {"strides": (1, 2), "padding": ("SAME", "VALID")},
          call=_transposed_call),
    _conv("nn.conv3d_transpose", "conv3d_transpose", {"strides": (1, (1, 2, 1)), "padding": ("SAME", "VALID")},
          call=_transposed_call),
]


CATALOG: dict[str, OpSpec] = {}
for _spec in _ENTRIES:
    if _spec.path in CATALOG:
        raise ValueError(f"duplicate catalog entry {_spec.path}")
    CATALOG[_spec.path] = _spec


def has_trait(path: str, trait: str) -> bool:
    """Whether catalog op `path` carries `trait` (one of TRAITS); False for a path outside the catalog."""
    if trait not in TRAITS:
        raise ValueError(f"unknown trait {trait!r}: not one of {TRAITS}")
    return path in CATALOG and CATALOG[path].has(trait)

# Public names in reftape's namespaces that are not ops: plumbing, creation, types and modules.
NOT_OPS = frozenset({
    "GradientTape", "Variable", "Tensor", "TensorShape", "IndexedSlices", "UnconnectedGradients", "DType",
    "as_dtype", "constant", "convert_to_tensor", "custom_gradient", "function", "init_scope", "is_tensor", "ones", "zeros",
    "fill", "linspace", "range", "eye", "shape", "rank", "size", "linalg.eye",
    "nn.swish",  # an alias of nn.silu
    "nn.lrn",  # an alias of nn.local_response_normalization
    "asin", "acos", "atanh", "acosh",  # the same functions as math.asin, ... (tests/reftape_only/test_api_surface.py pins them)
    "nn.top_k",  # math.top_k (pinned there too)
    "image.ResizeMethod",  # resize's method names
    # integer lengths in, a mask out, and variadic grids: tests/reftape_only/test_api_surface.py and test_ops' snippets pin them
    "sequence_mask", "meshgrid",
    "logical_and", "logical_or", "logical_not", "math.logical_and", "math.logical_or", "math.logical_not",  # bool only
    "math.logical_xor",
    "reduce_any", "reduce_all", "math.reduce_any", "math.reduce_all",  # bool only
    "truncatediv", "truncatemod",  # TF exports them at the top level only; tests/reftape_only/test_api_surface.py pins them
    "bitwise.bitwise_and", "bitwise.bitwise_or", "bitwise.bitwise_xor", "bitwise.invert",  # integers only
    "bitwise.left_shift", "bitwise.right_shift",
    "random.normal", "random.uniform", "random.set_seed",
    # control flow and gradient utilities: they take functions (tests/suite/test_control_flow.py pins them)
    "cond", "case", "switch_case", "while_loop", "map_fn", "scan", "foldl", "foldr", "vectorized_map", "TensorArray",
    "TensorSpec", "identity_n", "get_static_value", "grad_pass_through", "recompute_grad",
})


def resolve(namespace: Any, path: str) -> Any:
    """The op at `path` ("math.log1p") in a TF-compatible namespace; AttributeError names what is missing."""
    target = namespace
    for part in path.split("."):
        if not hasattr(target, part):
            raise AttributeError(f"backend {getattr(namespace, '__name__', namespace)!r} has no {path!r}")
        target = getattr(target, part)
    return target


def apply(namespace: Any, path: str, inputs: list, attrs: dict) -> Any:
    """Calls op `path` of `namespace` on input tensors with attributes (dtype names become DTypes)."""
    spec = CATALOG[path]
    op = resolve(namespace, path)
    attrs = {k: getattr(namespace, v) if k == "dtype" else v for k, v in attrs.items()}
    if spec.call is not None:
        return spec.call(op, inputs, attrs)
    return op(*inputs, **attrs)


def attribute_variants(spec: OpSpec) -> list[dict]:
    """The default attributes (first valid value of each), then each other valid value in turn."""
    default = {name: values[0] for name, values in spec.attrs.items()}
    variants = [default]
    for name, values in spec.attrs.items():
        variants += [{**default, name: value} for value in values[1:]]
    return variants


def call_source(path: str, inputs: list[str], attrs: dict) -> str:
    """Python source calling op `path` (on a namespace named `tf`) with the named inputs."""
    call = CATALOG[path].call
    return (call.source if call is not None else _default_source)(f"tf.{path}", inputs, attrs)


def family(path: str) -> str:
    """The op family a catalog entry belongs to (used to split the property tests)."""
    spec = CATALOG[path]
    name = path.split(".")[-1]
    if spec.gradient == "none" or spec.output != "same":
        return "non_differentiable"
    if path.startswith("nn."):
        return "nn"
    if spec.shape_rule in ("matmul", "matvec") or "einsum" in name or path.startswith("linalg."):
        return "linalg"
    if name.startswith(("reduce_", "cum")) or name in ("norm", "l2_normalize", "clip_by_norm", "global_norm",
                                                          "clip_by_global_norm", "moments"):
        return "reductions"
    if name in ("reshape", "transpose", "expand_dims", "squeeze", "concat", "stack", "unstack", "split", "tile",
                "broadcast_to", "gather", "where", "clip_by_value", "cast", "identity", "stop_gradient", "add_n", "reverse",
                "pad", "segment_sum", "unsorted_segment_sum", "gather_nd", "scatter_nd", "tensor_scatter_nd_update",
                "tensor_scatter_nd_add", "slice", "sort", "top_k"):
        return "structure"
    return "elementwise_binary" if spec.arity >= 2 else "elementwise_unary"


FAMILIES: dict[str, tuple] = {}
for _path in CATALOG:
    FAMILIES.setdefault(family(_path), ())
    FAMILIES[family(_path)] += (_path,)
