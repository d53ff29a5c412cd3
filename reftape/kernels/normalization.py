"""Local response normalisation as TF's CPU kernels compute it: LRN and LRNGrad over the last (depth) axis
of a 4-D input.

With N_j = bias + alpha * (the sum of x_k squared over k within depth_radius of j), LRN is x_j * N_j^-beta
(TF's float kernel takes N_j's reciprocal for beta = 1, its rsqrt for beta = 0.5 and exp(-beta log N_j)
otherwise: the same value within rounding). LRNGrad adds, for each j and each k in j's window,
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


def _norms(x: np.ndarray, depth_radius: int, bias: float, alpha: float) -> np.ndarray:
    return x.dtype.type(bias) + x.dtype.type(alpha) * _window_sums(x * x, depth_radius)


def lrn(x: np.ndarray, depth_radius: int, bias: float, alpha: float, beta: float) -> np.ndarray:
    _check("LRN", x, depth_radius)
    if x.size == 0:
        return x.copy()
    return x * np.power(_norms(x, depth_radius, bias, alpha), x.dtype.type(-beta))


def lrn_grad(dy: np.ndarray, x: np.ndarray, y: np.ndarray, depth_radius: int, bias: float, alpha: float,
             beta: float) -> np.ndarray:
    _check("LRNGrad", x, depth_radius)
    if not dy.shape == x.shape == y.shape:
        raise InvalidArgumentError("input_grads, input_image, and out_image should have the same shape [Op:LRNGrad]")
    if x.size == 0:
        return np.zeros_like(x)
    norms = _norms(x, depth_radius, bias, alpha)
    # For each j: dy_j * y_j / N_j, summed over the windows that hold k, times -2 alpha beta x_k
    per_j = dy * y / norms
    spread = _window_sums(per_j, depth_radius)  # the window is symmetric: k in window(j) iff j in window(k)
    return x.dtype.type(-2.0 * alpha * beta) * x * spread + dy * np.power(norms, x.dtype.type(-beta))
