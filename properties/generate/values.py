"""Values: shapes, dtypes, the domains inputs are drawn from with their special points, and the arrays drawn
from them (`values`; `_array` draws every leaf of a program)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from hypothesis import strategies as st

from reftape_oracle.catalog import DTYPES, FLOATS

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
    # Decompositions (issue 24): spectra well apart (see structured_matrices), where eigenvector and singular
    # vector gradients divide by their differences
    "separated": ((-1.0, 1.0), ()),
    "hermitian_separated": ((-1.0, 1.0), ()),
    "tridiagonal": ((-1.0, 1.0), ()),  # compact diagonals [..., 3, M]: the main one (row 1) 3 added, dominant
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
# A leaf drawn for an op with an integer per row (segment ids) has one row copied onto another this often: rows of
# one segment then tie at its min or max, whose gradient they share (a sixth of the segment extremes' draws read
# two such rows; test_strategies.py bounds it)
ROW_TIE_CHANCE = 0.7


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
           patterns: tuple = (), allow_nan: bool = False, allow_infinity: bool = False,
           tied_rows: bool = False) -> np.ndarray:
    """An array of `dtype` and `shape` from `domain`, about one element in five a special point (the
    domain's and `specials`), sometimes an exact tie between two elements, sometimes one of the
    tensor `patterns` (e.g. [0, 2, 3] for reduce_prod) written along the last axis; with `tied_rows`, sometimes
    two equal rows (ROW_TIE_CHANCE)."""
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
    if own and rng.random() < OWN_SPECIAL_CHANCE and size:  # the op's own points, not diluted by the domain's
        flat[rng.integers(size)] = own[rng.integers(len(own))]
    if size >= 2 and rng.random() < 0.3:
        first, second = rng.choice(size, 2, replace=False)
        flat[second] = flat[first]
    patterns = [p for p in patterns if all(math.isfinite(v) for v in p) or rng.random() < 0.15]
    if patterns and rng.random() < 0.5:
        pattern = patterns[rng.integers(len(patterns))]
        if len(pattern) <= size:
            flat[:len(pattern)] = pattern  # row 0 along the last axis when it is long enough
    if tied_rows and len(shape) >= 1 and shape[0] >= 2 and rng.random() < ROW_TIE_CHANCE:
        rows = flat.reshape(shape[0], -1)
        source, target = rng.choice(shape[0], 2, replace=False)
        rows[target] = rows[source]
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
    if domain in ("separated", "hermitian_separated") and array.ndim >= 2:
        return _separated(array, domain)
    if domain == "tridiagonal" and array.ndim >= 2 and array.shape[-2] == 3:
        return array + np.array([0.0, 3.0, 0.0])[:, None]
    if domain not in ("invertible", "spd") or array.ndim < 2 or array.shape[-1] != array.shape[-2]:
        return array
    size = array.shape[-1]
    if domain == "spd":
        array = (array + np.conj(np.swapaxes(array, -1, -2))) / 2
    return array + size * np.eye(size)


def _separated(array: np.ndarray, domain: str) -> np.ndarray:
    """Matrices whose singular values ("separated", any shape) or eigenvalues ("hermitian_separated", square,
    made Hermitian) lie at least 2 apart and 0.5 from zero: entries in (-1, 1) divided by the sides' sum (a
    perturbation of norm below 1/2) added to a diagonal of magnitudes 1, 4, 7, ... (alternating signs)."""
    rows, columns = array.shape[-2:]
    if domain == "hermitian_separated":
        if rows != columns:
            return array
        array = (array + np.conj(np.swapaxes(array, -1, -2))) / 2
    diagonal = [(-1.0) ** i * (1 + 3 * i) for i in range(min(rows, columns))]
    return array / max(rows + columns, 1) + np.eye(rows, columns) * np.array(diagonal + [0.0] * (columns - len(diagonal)))


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
