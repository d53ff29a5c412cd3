"""The tolerance model: how far apart two floating results may be and still agree.

Reasoning, in one place:
- Both sides round every op to the dtype, so a correctly rounded result differs by at most half an
  ulp per op; different but valid kernels (TF's Eigen vs NumPy) differ by a few ulps per op. The
  base tolerance is therefore a small multiple of the dtype's machine epsilon (`finfo(dtype).eps`),
  relative to the magnitude of the values compared: `ULPS_PER_OP = 8` ulps.
- Gradients pass through more ops than forward values (the VJP of each op, plus aggregation), so
  they get `GRADIENT_FACTOR = 4` times the forward tolerance.
- Ops that sum n terms (reductions, matmul, einsum, cumsum) accumulate rounding that grows like
  sqrt(n) for random-signed terms but can reach n in the worst case; the summation order differs
  between TF and NumPy. Their tolerance is widened by `log2(n) + 1`, the growth of pairwise
  summation error, which is what both libraries implement for long sums.
- A convolution sums over a window: each forward output kh*kw*c_in products, each input-gradient element
  kh*kw*c_out, each filter-gradient element batch*out_h*out_w; every such length is at most the size of a leaf
  it reads (the input or the filter), so a program's `summed_terms` (its largest leaf) bounds it, and the per-op
  tests draw shapes whose sums have at most 12 terms (oracle/catalog.py's convolution rules).
- An absolute floor of `eps * scale` handles values that cancel to (almost) zero. Rounding errors
  are relative to the magnitudes an op computes with, not to its result: `floormod(x, 1.0)` or
  `x - y` keeps the absolute error of an `x` of 8.3 in a result of 0.7. So scale is the largest
  magnitude among the compared values and the values they were computed from (`magnitude`: for a
  program's op, its leaves and reported intermediates; never below 1). Gradients keep the floor at
  the magnitude of the values compared: the intermediates of a backward pass are not reported.
- A result is no more precise than the least precise dtype it was computed through: a float16
  softmax cast to float64 carries float16 rounding. Comparisons of a program's values therefore use
  the epsilon of the least precise floating dtype among its leaves when that exceeds the compared
  dtype's own (`least_precise`).
- Non-finite values must match exactly in position and sign: NaN where NaN, +inf where +inf. One exception,
  for two runs of one backend that may order a sum differently (the function check's eager and traced modes,
  whose graph TF's optimiser rewrites): an infinity against a finite value of its sign within the tolerance of
  the dtype's largest finite value is rounding at overflow (`rounds_to_overflow`).
- Signed zeros are compared only where the catalog says they matter; by default -0.0 == 0.0.
- A backend's gradient judged against a float64 numerical derivative alone (the numeric check,
  judge/numeric.py) carries the rounding of every intermediate in its own dtype, which can move a
  gradient far more than a few ulps where it is sensitive to its inputs (a sine of a large product).
  That reach is measured, not assumed: the derivative is estimated again with every floating leaf moved
  by `ROUNDING_PROBE_ULPS` ulps of its dtype, and a difference within `ROUNDING_PROBE_FACTOR` times the
  estimate's largest move is rounding. Intermediates round once per op; 8 ulps of each input and a
  factor 4 cover the chains of up to a few dozen ops a program has.
- The forward check (judge/forward.py) compares two sums of products, Re<u, J v> from the jvps and Re<g, v>
  from the gradients: each is a dot product whose rounding is relative to the sum of its terms' magnitudes,
  so they agree within the gradient tolerance of the jvp's dtype times the sum of |u||Jv| and |g||v|. That
  comparison only selects what is judged: a jvp is wrong by the numeric check's rules above.
The tolerances are never widened to make a particular case pass.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import ml_dtypes
import numpy as np

ULPS_PER_OP = 8
GRADIENT_FACTOR = 4
ROUNDING_PROBE_ULPS = 8
ROUNDING_PROBE_FACTOR = 4


def is_floating(dtype: np.dtype) -> bool:
    """Real or complex floating dtypes, including ml_dtypes' bfloat16 (NumPy kind 'V')."""
    dtype = np.dtype(dtype)
    return dtype.kind in "fc" or dtype == np.dtype(ml_dtypes.bfloat16)


def epsilon(dtype: np.dtype) -> float:
    dtype = np.dtype(dtype)
    if dtype.kind == "c":
        dtype = np.dtype(np.float32 if dtype.itemsize == 8 else np.float64)
    return float(ml_dtypes.finfo(dtype).eps)


def least_precise(dtypes: list) -> np.dtype | None:
    """The floating dtype with the largest epsilon among `dtypes` (None when there is none)."""
    floating = [np.dtype(d) for d in dtypes if is_floating(d)]
    return max(floating, key=epsilon) if floating else None


def rounds_to_overflow(infinite: np.ndarray, finite: np.ndarray, tolerance: Tolerance) -> np.ndarray:
    """Where `infinite` is an infinity and `finite` a finite value of its sign that the tolerance's rounding
    could carry past the dtype's largest finite value."""
    largest = float(ml_dtypes.finfo(finite.dtype).max)
    with np.errstate(invalid="ignore"):
        near = np.abs(finite.astype(np.float64)) * (1 + tolerance.relative) >= largest
        return np.isinf(infinite) & np.isfinite(finite) & (np.sign(infinite) == np.sign(finite)) & near


def summation_factor(terms: int) -> float:
    """Error growth of a pairwise sum of `terms` terms, relative to one rounding."""
    return math.log2(max(terms, 1)) + 1


@dataclass(frozen=True)
class Tolerance:
    relative: float
    absolute_scale: float
    magnitude: float = 1.0  # the smallest scale of the absolute floor: what the values were computed from

    @classmethod
    def for_dtype(cls, dtype: np.dtype, *, gradient: bool = False, summed_terms: int = 1,
                  computed_through: np.dtype | None = None, magnitude: float = 1.0) -> Tolerance:
        eps = max(epsilon(dtype), epsilon(computed_through) if computed_through is not None else 0.0)
        factor = ULPS_PER_OP * (GRADIENT_FACTOR if gradient else 1) * summation_factor(summed_terms)
        return cls(relative=factor * eps, absolute_scale=factor * eps, magnitude=max(magnitude, 1.0))


@dataclass(frozen=True)
class Mismatch:
    reason: str
    max_relative_error: float = 0.0
    max_ulps: float = 0.0


def compare_arrays(expected: np.ndarray, actual: np.ndarray, tolerance: Tolerance) -> Mismatch | None:
    """None when `actual` agrees with `expected` under `tolerance`, else what differs."""
    expected, actual = np.asarray(expected), np.asarray(actual)
    if expected.shape != actual.shape:
        return Mismatch(f"shape {actual.shape} != {expected.shape}")
    if not is_floating(expected.dtype) or not is_floating(actual.dtype):
        equal = np.array_equal(expected, actual)
        return None if equal else Mismatch("values differ")
    e = expected.astype(np.complex128 if expected.dtype.kind == "c" else np.float64)
    a = actual.astype(e.dtype)
    parts = ((e.real, a.real), (e.imag, a.imag)) if e.dtype.kind == "c" else ((e, a),)
    for e_part, a_part in parts:
        if not np.array_equal(np.isnan(e_part), np.isnan(a_part)):
            return Mismatch("NaN pattern differs")
        if not (np.array_equal(np.isposinf(e_part), np.isposinf(a_part))
                and np.array_equal(np.isneginf(e_part), np.isneginf(a_part))):
            return Mismatch("inf pattern differs")
    return _compare_finite(e, a, tolerance, expected.dtype)


def _compare_finite(e: np.ndarray, a: np.ndarray, tolerance: Tolerance, dtype: np.dtype) -> Mismatch | None:
    """Errors are moduli (complex values compare as points of the plane, relative to their size)."""
    finite = np.isfinite(e)
    if not finite.any():
        return None
    e, a = e[finite], a[finite]
    scale = max(float(np.max(np.abs(e))), tolerance.magnitude)
    error = np.abs(a - e)
    allowed = tolerance.relative * np.abs(e) + tolerance.absolute_scale * scale
    if np.all(error <= allowed):
        return None
    eps = epsilon(dtype)
    relative = float(np.max(error / np.maximum(np.abs(e), eps * scale)))
    ulps = float(np.max(error / (eps * np.maximum(np.abs(e), eps * scale))))
    return Mismatch("values differ", max_relative_error=relative, max_ulps=ulps)
