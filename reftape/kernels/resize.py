"""Image resizing as TF's CPU kernels compute it with half-pixel centres (TF 2's tf.image.resize): ResizeBilinear,
ResizeNearestNeighbor and their gradient kernels, on NHWC arrays.

Every coordinate is float32 arithmetic, as TF's: the scale is in_size / out_size, an output index i sits at
(i + 0.5) * scale - 0.5 in the input (bilinear: between floor and ceil, clamped to the image, weighted by the
fraction) or at floor((i + 0.5) * scale) (nearest, clamped). Bilinear interpolates in float32 whatever the
input's dtype (its output is float32) and, for a resize to the same size, only casts: interpolating would turn
an infinity into NaN where the cast keeps it. The gradients scatter-add in the order of the resized pixels
(row-major, then the four corners top-left, top-right, bottom-left, bottom-right): ResizeBilinearGrad in float32
products cast to the original dtype and added there (half types: added in float32, cast once at the end),
ResizeNearestNeighborGrad in the upstream's dtype, each addition rounded to it.
"""

from __future__ import annotations

import numpy as np


def check_sizes(images: np.ndarray, size: tuple) -> None:
    """TF's ImageResizerState checks, in its order (ValueError: the caller's InvalidArgumentError)."""
    if images.ndim != 4:
        raise ValueError(f"input must be 4-dimensional{list(images.shape)}")
    if size[0] <= 0 or size[1] <= 0:
        raise ValueError("output dimensions must be positive")
    if images.shape[3] <= 0:
        raise ValueError("image must have at least one channel")
    if images.shape[1] <= 0 or images.shape[2] <= 0:
        raise ValueError("input image must be of non-zero size")


def _scale(in_size: int, out_size: int) -> np.float32:
    return np.float32(in_size) / np.float32(out_size)


def bilinear_weights(out_size: int, in_size: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For each output index along one axis: the lower and upper input indices and the upper one's weight."""
    centres = (np.arange(out_size, dtype=np.float32) + np.float32(0.5)) * _scale(in_size, out_size) - np.float32(0.5)
    floors = np.floor(centres)
    lower = np.maximum(floors.astype(np.int64), 0)
    upper = np.minimum(np.ceil(centres).astype(np.int64), in_size - 1)
    return lower, upper, (centres - floors).astype(np.float32)


def nearest_indices(out_size: int, in_size: int) -> np.ndarray:
    """For each output index along one axis, the input index it copies."""
    centres = (np.arange(out_size, dtype=np.float32) + np.float32(0.5)) * _scale(in_size, out_size)
    return np.maximum(np.minimum(np.floor(centres).astype(np.int64), in_size - 1), 0)


def resize_bilinear(images: np.ndarray, size: tuple) -> np.ndarray:
    """ResizeBilinear(half_pixel_centers=True): float32 output."""
    check_sizes(images, size)
    batch, height, width, channels = images.shape
    values = images.astype(np.float32)
    if not batch:
        return np.zeros((0, size[0], size[1], channels), np.float32)
    if tuple(size) == (height, width):
        return values
    y_lower, y_upper, y_weight = bilinear_weights(size[0], height)
    x_lower, x_upper, x_weight = bilinear_weights(size[1], width)
    x_weight, y_weight = x_weight[None, None, :, None], y_weight[None, :, None, None]
    top, bottom = values[:, y_lower], values[:, y_upper]
    top = top[:, :, x_lower] + (top[:, :, x_upper] - top[:, :, x_lower]) * x_weight
    bottom = bottom[:, :, x_lower] + (bottom[:, :, x_upper] - bottom[:, :, x_lower]) * x_weight
    return top + (bottom - top) * y_weight


def resize_bilinear_grad(grads: np.ndarray, original_image, T) -> np.ndarray:  # noqa: N803 - TF's attribute
    """ResizeBilinearGrad: the float32 upstream spread back over the four corners each pixel read (of the
    original image, only its shape)."""
    original_shape = tuple(original_image.shape)
    accumulate = np.float64 if T.name == "float64" else np.float32
    output = np.zeros(original_shape, accumulate)
    batch, resized_height, resized_width, channels = grads.shape
    if not grads.size or not output.size:
        return output
    y_lower, y_upper, y_weight = bilinear_weights(resized_height, original_shape[1])
    x_lower, x_upper, x_weight = bilinear_weights(resized_width, original_shape[2])
    y_inverse, x_inverse = np.float32(1) - y_weight, np.float32(1) - x_weight
    g = grads.astype(np.float32)
    corners = [(y_lower, x_lower, y_inverse, x_inverse), (y_lower, x_upper, y_inverse, x_weight),
               (y_upper, x_lower, y_weight, x_inverse), (y_upper, x_upper, y_weight, x_weight)]
    rows = np.stack([np.broadcast_to(ys[:, None], (resized_height, resized_width)) for ys, _, _, _ in corners], -1)
    columns = np.stack([np.broadcast_to(xs[None, :], (resized_height, resized_width)) for _, xs, _, _ in corners], -1)
    terms = np.stack([g * wy[None, :, None, None] * wx[None, None, :, None] for _, _, wy, wx in corners], 3)
    b = np.arange(batch)[:, None, None, None, None]
    c = np.arange(channels)[None, None, None, None, :]
    np.add.at(output, (b, rows[None, :, :, :, None], columns[None, :, :, :, None], c), terms.astype(accumulate))
    return output


def resize_nearest(images: np.ndarray, size: tuple) -> np.ndarray:
    """ResizeNearestNeighbor(half_pixel_centers=True): a copy of the nearest input pixel."""
    check_sizes(images, size)
    ys = nearest_indices(size[0], images.shape[1])
    xs = nearest_indices(size[1], images.shape[2])
    return images[:, ys][:, :, xs]


def resize_nearest_grad(grads: np.ndarray, size: tuple, T) -> np.ndarray:  # noqa: N803 - TF's attribute
    """ResizeNearestNeighborGrad: each upstream pixel added, in T, to the input pixel it copied."""
    if grads.ndim != 4:
        raise ValueError(f"input must be 4-dimensional{list(grads.shape)}")
    dtype = T.as_numpy_dtype
    batch, height, width, channels = grads.shape
    output = np.zeros((batch, size[0], size[1], channels), dtype)
    if not output.size:
        return output
    ys = nearest_indices(height, size[0])
    xs = nearest_indices(width, size[1])
    where = (np.arange(batch)[:, None, None, None], ys[None, :, None, None], xs[None, None, :, None],
             np.arange(channels)[None, None, None, :])
    np.add.at(output, where, grads.astype(dtype))
    return output
