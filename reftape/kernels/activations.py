"""Neural-network kernels (TF's nn ops; `reftape/nn.py` is the public `tf.nn` namespace): Relu and
Relu6 with the signed zeros of Eigen's two loops (-0.0 gives +0.0 in the vector loop and stays -0.0 in
the scalar loop and for half types), Elu's and Selu's exp(x) - 1 rounded to the tensor's dtype,
Softmax and LogSoftmax (shifted by the row's maximum; an empty tensor returned as it is), the dense and
sparse softmax cross entropies as TF's fused kernels compute loss and backprop, BiasAdd and BiasAddGrad
in both data formats. Sigmoid, tanh and softplus are in `elementwise.py`.
"""

from __future__ import annotations

import numpy as np

from ..errors import _dims_text as dims_text
from ..primitives import count_nonzero
from .elementwise import _pmin, _rounded, _typed
from .subnormal import _PACKET


def _exp_minus_one(x, dtype):
    """exp(x) - 1 as TF's Elu and Selu kernels compute it: exp rounded to the tensor's dtype, then
    minus one. Not expm1: tiny |x| keep only exp's rounding, and float16 subnormals give 0."""
    return _rounded(np.exp(x.astype(np.float64)), dtype, x) - 1  # exp correctly rounded


def _channel_axis(rank: int, data_format: str) -> int:
    return 1 if data_format == "NCHW" else rank - 1


def _bias_add(value, bias, data_format):
    if value.ndim < 2:
        raise ValueError(f"Input tensor must be at least 2D: {dims_text(value.shape)}")
    if bias.ndim != 1:
        raise ValueError(f"Biases must be 1D: {dims_text(bias.shape)}")
    axis = _channel_axis(value.ndim, data_format)
    if bias.shape[0] != value.shape[axis]:
        raise ValueError(f"Must provide as many biases as the last dimension of the input tensor: "
                         f"{dims_text(bias.shape)} vs. {dims_text(value.shape)}")
    return value + bias.reshape((-1,) + (1,) * (value.ndim - 1 - axis))


def _bias_add_grad(g, data_format):
    axis = _channel_axis(g.ndim, data_format)
    return np.sum(g, axis=tuple(a for a in range(g.ndim) if a != axis))


def _sparse_softmax_xent(logits, labels):
    if logits.shape[-1] == 0 and logits.shape[0]:
        raise ValueError(f"Must have at least one class, but got logits shape {dims_text(logits.shape)}")
    outside = (labels < 0) | (labels >= logits.shape[-1])
    if np.any(outside):
        raise ValueError(f"Received a label value of {labels[outside][0]} which is outside the valid range of "
                         f"[0, {logits.shape[-1]}).  Label values: {' '.join(str(int(i)) for i in labels)}")
    log_probs = _log_softmax(logits)
    hot = (np.arange(logits.shape[-1]) == labels[:, None]).astype(logits.dtype)
    # the label's term only: a class of zero probability elsewhere in the row (-inf) leaves the loss finite
    loss = -np.take_along_axis(log_probs, labels[:, None].astype(np.intp), axis=-1)[:, 0]
    return loss, np.exp(log_probs) - hot


def _nothing_to_normalise(x):
    """TF's softmax kernels: a scalar is refused, an empty tensor returned as it is."""
    if x.ndim == 0:
        raise ValueError("logits must have >= 1 dimension, got []")
    return x.copy()


def _softmax(x):
    if x.ndim == 0 or x.size == 0:
        return _nothing_to_normalise(x)
    shifted = x - np.max(x, axis=-1, keepdims=True)
    e = np.exp(shifted)
    return e / np.sum(e, axis=-1, keepdims=True)


def _log_softmax(x):
    if x.ndim == 0 or x.size == 0:
        return _nothing_to_normalise(x)
    shifted = x - np.max(x, axis=-1, keepdims=True)
    return shifted - np.log(np.sum(np.exp(shifted), axis=-1, keepdims=True))


def _softmax_xent(logits, labels):
    """TF's kernel: loss = sum(labels * (log(sum(exp(shifted))) - shifted)), with no negation (a row of no
    classes loses +0), and backprop = exp(shifted) / sum(exp(shifted)) - labels."""
    shifted = logits - np.max(logits, axis=-1, keepdims=True, initial=-np.inf)
    exps = np.exp(shifted)
    sums = np.sum(exps, axis=-1, keepdims=True)
    return np.sum(labels * (np.log(sums) - shifted), axis=-1), exps / sums - labels


def _relu(x, half=False):
    """max(x, 0): NaN kept, negatives give +0.0; -0.0 gives +0.0 in Eigen's vector loop (float32, float64)
    and stays -0.0 in its scalar loop (the last size % packet elements) and for half types (`half`, set by
    F.relu; measured on TF 2.21: std::max returns its first argument on a tie)."""
    zero = _typed(0, x.dtype)
    if half:
        return np.where(x < zero, zero, x)
    y = np.where(x <= zero, zero, x)
    packet = _PACKET.get(x.dtype)
    if packet is not None:
        size = x.size
        tail = size % packet
        if tail:  # at most packet - 1 elements, checked for zeros in one C call
            flat_x = x.reshape(-1)[size - tail:]
            if count_nonzero(flat_x) != tail:
                np.copyto(y.reshape(-1)[size - tail:], flat_x, where=flat_x == 0)  # the scalar loop keeps -0.0
    return y


def _relu6(x, half=False):
    """min(max(x, 0), 6), the zeros as `_relu`'s."""
    return _pmin(_relu(x, half), np.full_like(x, 6))
