"""Every op against live TensorFlow: forward value and gradient on random inputs for each supported
dtype, and at the special points of its domain.

Each case runs the op on watched inputs, with a random (seeded) upstream gradient, on both
namespaces; values, dtypes, shapes, Nones and IndexedSlices must agree under the tolerance model.
"""

from __future__ import annotations

import functools
import math
import zlib
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np
import pytest

from properties.snippets import Raised, differences, observe
from properties.tolerance import Tolerance

HALF_AND_UP = ("float16", "bfloat16", "float32", "float64")
WITH_COMPLEX = HALF_AND_UP + ("complex64", "complex128")
NO_BFLOAT = ("float16", "float32", "float64")


@dataclass(frozen=True)
class Case:
    """How to call one op: its TF path, input shapes and domains, attributes, dtypes, specials."""

    path: str
    shapes: tuple = ((3, 4),)
    domains: tuple = ("any",)
    kwargs: dict = field(default_factory=dict)
    dtypes: tuple = HALF_AND_UP
    specials: tuple = ()  # tuples of input values (float32), each a special point
    summed_terms: int = 1  # terms an output element sums (widens the tolerance, see tolerance.py)
    call: Callable | None = None  # (op, inputs, kwargs) -> output, for ops taking lists

    @property
    def id(self) -> str:
        suffix = ",".join(f"{k}={v}" for k, v in self.kwargs.items())
        return self.path + (f"[{suffix}]" if suffix else "")


def _list_call(op, inputs, kwargs):
    return op(list(inputs), **kwargs)


UNARY_ANY = ["negative", "abs", "sign", "exp", "square", "sin", "cos", "tanh", "sigmoid", "math.expm1", "math.sinh",
             "math.cosh", "math.asinh", "math.atan", "math.log_sigmoid", "math.softplus", "nn.relu", "nn.relu6",
             "nn.elu", "nn.selu", "nn.softplus", "nn.softsign", "nn.sigmoid", "nn.tanh", "nn.silu", "nn.gelu",
             "identity", "stop_gradient", "round", "floor", "math.ceil", "math.erf", "math.abs", "math.negative",
             "math.sign", "math.floor", "math.round", "math.exp", "math.square", "math.sin", "math.cos",
             "math.tanh", "math.sigmoid"]
COMPLEX_OK = {"negative", "exp", "square", "sin", "cos", "tanh", "sigmoid", "math.expm1", "math.sinh", "math.cosh",
              "math.asinh", "identity", "math.negative", "math.exp", "math.square", "math.sin", "math.cos",
              "math.tanh", "math.sigmoid", "abs", "math.abs"}
REAL_ONLY_HALF = {"math.erf"}

CASES = [Case(p, dtypes=WITH_COMPLEX if p in COMPLEX_OK else HALF_AND_UP) for p in UNARY_ANY] + [
    Case("math.log", domains=("positive",), dtypes=WITH_COMPLEX, specials=((0.0,), (-1.0,), (2.0,))),
    Case("math.log1p", domains=("positive",), dtypes=WITH_COMPLEX, specials=((-1.0,),)),
    Case("sqrt", domains=("positive",), dtypes=WITH_COMPLEX, specials=((0.0,), (-1.0,), (4.0,))),
    Case("math.sqrt", domains=("positive",)),
    Case("math.rsqrt", domains=("positive",), dtypes=WITH_COMPLEX, specials=((0.0,),)),
    Case("math.reciprocal", domains=("nonzero",), dtypes=WITH_COMPLEX, specials=((0.0,),)),
    Case("math.tan", domains=("unit",), dtypes=WITH_COMPLEX),
    Case("nn.leaky_relu", kwargs={"alpha": 0.3}, specials=((0.0,), (-1.0,))),
    Case("nn.gelu", kwargs={"approximate": True}),
    Case("nn.softmax", specials=(([1.0, 1.0, 1.0],),)),
    Case("nn.softmax", kwargs={"axis": 0}),
    Case("nn.log_softmax", specials=(([0.0, 0.0],),)),
    Case("nn.l2_loss", summed_terms=12),
    Case("add", shapes=((3, 4), (4,)), domains=("any", "any"), dtypes=WITH_COMPLEX),
    Case("subtract", shapes=((3, 1), (4,)), domains=("any", "any"), dtypes=WITH_COMPLEX),
    Case("multiply", shapes=((3, 4), (3, 4)), domains=("any", "any"), dtypes=WITH_COMPLEX,
         specials=((math.inf, 0.0),)),
    Case("multiply", shapes=((3, 4), ()), domains=("any", "any")),
    Case("divide", shapes=((3, 4), (4,)), domains=("any", "nonzero"), dtypes=WITH_COMPLEX,
         specials=((1.0, 0.0), (0.0, 0.0))),
    Case("pow", shapes=((3, 4), (3, 4)), domains=("positive", "any"), dtypes=WITH_COMPLEX,
         specials=((0.0, 2.0), (0.0, 0.5), (0.0, 0.0), (0.0, -1.0), (-2.0, 3.0), (-2.0, 0.5))),
    Case("maximum", shapes=((3, 4), (4,)), domains=("any", "any"),
         specials=((2.0, 2.0), (0.0, 0.0), (math.nan, 1.0))),
    Case("minimum", shapes=((3, 4), (3, 4)), domains=("any", "any"), specials=((2.0, 2.0),)),
    Case("math.squared_difference", shapes=((3, 4), (4,)), domains=("any", "any"), dtypes=WITH_COMPLEX),
    Case("math.divide_no_nan", shapes=((3, 4), (3, 4)), domains=("any", "nonzero"), dtypes=WITH_COMPLEX,
         specials=((1.0, 0.0),)),
    Case("math.xlogy", shapes=((3, 4), (3, 4)), domains=("any", "positive"), dtypes=WITH_COMPLEX,
         specials=((0.0, 0.0), (0.0, 2.0))),
    Case("math.atan2", shapes=((3, 4), (3, 4)), domains=("any", "nonzero"), dtypes=NO_BFLOAT + ("bfloat16",),
         specials=((0.0, 0.0),)),
    Case("clip_by_value", shapes=((5,), (), ()), domains=("any", "neg", "pos"),
         specials=(([-2.0, -1.0, 0.0, 1.0, 2.0], -1.0, 1.0),)),
    Case("where", shapes=((3, 4), (3, 4)), domains=("any", "any"), call=lambda op, xs, kw: op(xs[0] > 0, xs[0], xs[1])),
    Case("reduce_sum", summed_terms=12, dtypes=WITH_COMPLEX),
    Case("reduce_sum", kwargs={"axis": 1, "keepdims": True}, summed_terms=4),
    Case("reduce_mean", summed_terms=12, dtypes=WITH_COMPLEX),
    Case("reduce_mean", kwargs={"axis": 0}, summed_terms=3),
    Case("reduce_max", specials=(([1.0, 3.0, 3.0],), ([math.nan, 1.0],))),
    Case("reduce_max", kwargs={"axis": 1}),
    Case("reduce_min", specials=(([1.0, 1.0, 2.0],),)),
    Case("reduce_prod", summed_terms=12, specials=(([0.0, 2.0, 3.0],), ([0.0, 0.0, 3.0],))),
    Case("reduce_prod", kwargs={"axis": 1}, summed_terms=4, dtypes=WITH_COMPLEX),
    Case("math.reduce_logsumexp", summed_terms=12),
    Case("math.reduce_logsumexp", kwargs={"axis": 1}, summed_terms=4, specials=(([-math.inf, -math.inf],),)),
    Case("math.reduce_variance", summed_terms=12),
    Case("math.reduce_std", kwargs={"axis": 0}, summed_terms=3),
    Case("norm", summed_terms=12, specials=(([0.0, 0.0],), ([3.0, 4.0],))),
    Case("norm", kwargs={"ord": 1, "axis": 1}, summed_terms=4),
    Case("norm", kwargs={"ord": 3, "axis": 0, "keepdims": True}, summed_terms=3),
    Case("math.reduce_euclidean_norm", summed_terms=12, specials=(([0.0, 0.0],),)),
    Case("math.reduce_euclidean_norm", kwargs={"axis": 1}, summed_terms=4, dtypes=WITH_COMPLEX),
    Case("math.l2_normalize", kwargs={"axis": 1}, summed_terms=4, specials=(([0.0, 0.0],),)),
    Case("math.cumsum", kwargs={"axis": 1}, summed_terms=4, dtypes=WITH_COMPLEX),
    Case("math.cumsum", kwargs={"axis": 0, "exclusive": True, "reverse": True}, summed_terms=3),
    Case("math.cumprod", kwargs={"axis": 1}, summed_terms=4, specials=(([2.0, 0.0, 3.0],),)),
    Case("math.cumprod", kwargs={"axis": 1, "exclusive": True}, summed_terms=4),
    Case("matmul", shapes=((3, 4), (4, 2)), domains=("any", "any"), dtypes=WITH_COMPLEX, summed_terms=4),
    Case("matmul", shapes=((4, 3), (2, 4)), domains=("any", "any"), kwargs={"transpose_a": True, "transpose_b": True},
         summed_terms=4),
    Case("matmul", shapes=((2, 3, 4), (4, 2)), domains=("any", "any"), summed_terms=4),
    Case("linalg.matmul", shapes=((3, 4), (4, 2)), domains=("any", "any"), summed_terms=4),
    Case("linalg.matvec", shapes=((3, 4), (4,)), domains=("any", "any"), summed_terms=4),
    Case("einsum", shapes=((3, 4), (4, 2)), domains=("any", "any"), summed_terms=4,
         call=lambda op, xs, kw: op("ij,jk->ik", *xs)),
    Case("einsum", shapes=((3, 4),), summed_terms=4, call=lambda op, xs, kw: op("ij->i", *xs)),
    Case("reshape", call=lambda op, xs, kw: op(xs[0], [4, 3])),
    Case("transpose"),
    Case("expand_dims", kwargs={"axis": 1}),
    Case("squeeze", shapes=((3, 1, 4),)),
    Case("concat", shapes=((3, 4), (2, 4)), domains=("any", "any"), kwargs={"axis": 0}, call=_list_call),
    Case("stack", shapes=((3, 4), (3, 4)), domains=("any", "any"), kwargs={"axis": 1}, call=_list_call),
    Case("unstack", kwargs={"axis": 1}),
    Case("split", kwargs={"num_or_size_splits": [1, 3], "axis": 1}),
    Case("tile", kwargs={"multiples": [2, 1]}),
    Case("broadcast_to", shapes=((1, 4),), kwargs={"shape": [3, 4]}),
    Case("gather", kwargs={"indices": [2, 0, 2]}),
    Case("gather", kwargs={"indices": [3, 1, 1], "axis": 1}),
    Case("cast", kwargs={"dtype": "float64"}),
    Case("nn.sigmoid_cross_entropy_with_logits", shapes=((3, 4), (3, 4)), domains=("prob", "any"),
         call=lambda op, xs, kw: op(labels=xs[0], logits=xs[1]), specials=((0.5, 0.0),)),
    Case("nn.softmax_cross_entropy_with_logits", shapes=((3, 4), (3, 4)), domains=("simplex", "any"), summed_terms=4,
         call=lambda op, xs, kw: op(labels=xs[0], logits=xs[1])),
]


def _simplex(rng: np.random.Generator, shape: tuple) -> np.ndarray:
    """Rows that are probability distributions (softmax_cross_entropy_with_logits' contract)."""
    values = rng.uniform(0.0, 1.0, shape)
    return values / values.sum(axis=-1, keepdims=True) if values.ndim else values


def _draw(rng: np.random.Generator, shape: tuple, domain: str, dtype: np.dtype) -> np.ndarray:
    size = shape
    magnitude = rng.uniform(0.5, 2.0, size)
    sign = np.where(rng.uniform(size=size) < 0.5, -1.0, 1.0)
    values = {"any": rng.uniform(-2.0, 2.0, size), "positive": rng.uniform(0.2, 3.0, size),
              "nonzero": sign * magnitude, "unit": rng.uniform(-1.0, 1.0, size), "prob": rng.uniform(0.0, 1.0, size),
              "neg": -magnitude, "pos": magnitude, "simplex": _simplex(rng, size)}[domain]
    if np.dtype(dtype).kind == "c":
        values = values + 1j * rng.uniform(-0.5, 0.5, size)
    return np.asarray(values).astype(dtype)


def _resolve(ns: Any, path: str) -> Any:
    return functools.reduce(getattr, path.split("."), ns)


def run_case(ns: Any, case: Case, inputs: list[np.ndarray], upstream_seed: int, dtype: str) -> list:
    """Observations of forward value and gradients for one case on one namespace."""
    op = _resolve(ns, case.path)
    kwargs = dict(case.kwargs)
    if "dtype" in kwargs:
        kwargs["dtype"] = getattr(ns, kwargs["dtype"])
    tensors = [ns.constant(x) for x in inputs]
    try:
        with ns.GradientTape(persistent=True) as tape:
            tape.watch(tensors)
            out = case.call(op, tensors, kwargs) if case.call else op(*tensors, **kwargs)
        outs = out if isinstance(out, list) else [out]
        rng = np.random.default_rng(upstream_seed)
        upstream = [ns.constant(_draw(rng, tuple(o.shape), "any", o.dtype.as_numpy_dtype)) for o in outs]
        grads = tape.gradient(outs, tensors, output_gradients=upstream)
    except Exception as exc:  # noqa: BLE001 - an exception is an outcome to compare
        return [observe(Raised(exc), ns)]
    return [observe(outs, ns), observe(grads, ns)]


def _tolerance(case: Case) -> Callable:
    return lambda dtype: Tolerance.for_dtype(dtype, gradient=True, summed_terms=case.summed_terms)


def _inputs_for(case: Case, dtype: str, seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    np_dtype = np.dtype(dtype) if dtype != "bfloat16" else np.dtype("float32")
    arrays = [_draw(rng, shape, domain, np_dtype) for shape, domain in zip(case.shapes, case.domains)]
    if dtype == "bfloat16":
        import ml_dtypes

        arrays = [a.astype(ml_dtypes.bfloat16) for a in arrays]
    return arrays


DTYPED_CASES = [(case, dtype) for case in CASES for dtype in case.dtypes]


@pytest.mark.parametrize("case,dtype", DTYPED_CASES, ids=[f"{c.id}-{d}" for c, d in DTYPED_CASES])
def test_op_matches_tensorflow(case, dtype, tf, rt):
    seed = zlib.crc32(f"{case.id}-{dtype}".encode())
    inputs = _inputs_for(case, dtype, seed)
    expected = run_case(tf, case, inputs, seed, dtype)
    actual = run_case(rt, case, inputs, seed, dtype)
    found = differences(expected, actual, tolerance_for=_tolerance(case))
    assert not found, "\n".join(found)


SPECIAL_CASES = [(case, point) for case in CASES for point in case.specials]


@pytest.mark.parametrize("case,point", SPECIAL_CASES, ids=[f"{c.id}@{p}" for c, p in SPECIAL_CASES])
def test_op_at_special_point_matches_tensorflow(case, point, tf, rt):
    inputs = [np.asarray(v, np.float32) for v in point]
    expected = run_case(tf, case, inputs, 0, "float32")
    actual = run_case(rt, case, inputs, 0, "float32")
    found = differences(expected, actual, tolerance_for=_tolerance(case), signed_zeros=True)
    assert not found, "\n".join(found)
