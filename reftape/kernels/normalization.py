"""Local response normalisation as TF's CPU kernels compute it: LRN and LRNGrad over the last (depth) axis
of a 4-D input.

With N_j = bias + alpha * (the sum of x_k squared over k within depth_radius of j), LRN is x_j * N_j^-beta
(TF's kernel takes N_j's reciprocal for beta = 1, its rsqrt for beta = 0.5 and exp(-beta log N_j) otherwise,
and sums the squares as a product with a 0/1 band matrix of the depth). LRNGrad adds, for each j and each k in j's window,
dy_j * (-2 alpha beta x_k y_j / N_j), plus dy_j * N_j^-beta where k = j, as TF's loop does.
"""

from __future__ import annotations

import numpy as np

from ..errors import InvalidArgumentError


def _window_sums(values: np.ndarray, radius: int) -> np.ndarray:
    """Each depth position's sum of `values` within `radius` of it (clipped at the ends), added in depth order."""
    depth = values.shape[-1]
    sums = np.zeros_like(values)
    for j in range(depth):
        sums[..., j] = values[..., max(j - radius, 0):min(j + radius + 1, depth)].sum(axis=-1)
    return sums


def _check(op: str, x: np.ndarray, depth_radius: int) -> None:
    if x.ndim != 4:
        raise InvalidArgumentError(f"input must be 4-dimensional [Op:{op}]")
    if depth_radius < 0:
        raise InvalidArgumentError(f"depth_radius = {depth_radius} is negative [Op:{op}]")


def _rounding(T):
    """Rounds float32 arrays to T where T is a half type (TF's kernels compute in T), else nothing."""
    if T is None or np.dtype(T.as_numpy_dtype).itemsize > 2:
        return lambda a: a
    half = np.dtype(T.as_numpy_dtype)
    return lambda a: a.astype(half).astype(np.float32)


def lrn(x: np.ndarray, depth_radius: int, bias: float, alpha: float, beta: float, T=None) -> np.ndarray:
    """TF's kernel: the squares (in T) times a 0/1 band matrix of the depth (so an infinite or NaN square
    outside a position's window still makes it NaN: inf * 0), times alpha, plus bias, to the power -beta."""
    _check("LRN", x, depth_radius)
    if x.size == 0:
        return x.copy()
    rounded = _rounding(T)
    depth = x.shape[-1]
    band = (np.abs(np.arange(depth)[:, None] - np.arange(depth)[None, :]) <= depth_radius).astype(x.dtype)
    squares = rounded(x * x)
    norms = rounded(rounded(rounded(squares @ band) * x.dtype.type(alpha)) + x.dtype.type(bias))
    if beta == 1.0:
        scale = rounded(x.dtype.type(1) / norms)
    elif beta == 0.5:
        scale = rounded(x.dtype.type(1) / np.sqrt(norms))
    else:
        scale = rounded(np.exp(rounded(rounded(np.log(norms)) * x.dtype.type(-beta))))
    return rounded(x * scale)


def lrn_grad(dy: np.ndarray, x: np.ndarray, y: np.ndarray, depth_radius: int, bias: float, alpha: float,
             beta: float, T=None) -> np.ndarray:
    """TF's loop: each position's norm over its window (in T), then for each k of the window
    -2 alpha beta x_k y_j / N_j, plus N_j^-beta where k = j, times the upstream, added to k."""
    _check("LRNGrad", x, depth_radius)
    if not dy.shape == x.shape == y.shape:
        raise InvalidArgumentError("input_grads, input_image, and out_image should have the same shape [Op:LRNGrad]")
    if x.size == 0:
        return np.zeros_like(x)
    rounded = _rounding(T)
    depth = x.shape[-1]
    coefficient = x.dtype.type(-2.0 * alpha * beta)
    grads = np.zeros_like(x)
    for j in range(depth):  # TF's loop, its order of operations kept (x_k * y_j before the division by N_j)
        window = range(max(j - depth_radius, 0), min(j + depth_radius + 1, depth))
        norm = x.dtype.type(0)
        for k in window:
            norm = rounded(norm + rounded(x[..., k] * x[..., k]))
        norm = rounded(rounded(norm * x.dtype.type(alpha)) + x.dtype.type(bias))
        upstream = dy[..., j]
        live = upstream != 0  # a zero upstream element contributes nothing, NaN or infinite factors included
        for k in window:
            share = rounded(coefficient * x[..., k] * y[..., j] / norm)  # in float32 for half types: their attrs are float
            if k == j:
                share = rounded(share + np.power(norm, x.dtype.type(-beta)))
            grads[..., k] = np.where(live, rounded(grads[..., k] + rounded(share * upstream)), grads[..., k])
    return grads
