"""`tf.nn`."""

from typing import Any as _Any

from . import functions as _f
from .functions import (bias_add, elu, embedding_lookup, gelu, l2_loss, l2_normalize, leaky_relu, log_softmax, moments, relu,
                        relu6, selu, sigmoid, sigmoid_cross_entropy_with_logits, softmax,
                        softmax_cross_entropy_with_logits, softplus, softsign, sparse_softmax_cross_entropy_with_logits,
                        tanh, top_k)
# Convolutions
from .functions import (conv1d, conv1d_transpose, conv2d, conv2d_transpose, conv3d, conv3d_transpose, convolution,
                        depthwise_conv2d, separable_conv2d)
from .custom_gradient import custom_gradient as _custom_gradient


def silu(features: _Any, beta: _Any = 1.0) -> _Any:
    """x * sigmoid(beta * x) with TF's hand-written gradient (a custom_gradient)."""
    features = _f.convert_to_tensor(features)
    beta = _f.cast(_f.convert_to_tensor(beta), features.dtype)
    return _swish(features, beta)


@_custom_gradient
def _swish(features: _Any, beta: _Any) -> _Any:
    def grad(dy: _Any) -> tuple:
        sigmoid_features = _f.sigmoid(_f.multiply(beta, features))
        activation_grad = sigmoid_features * (1.0 + (beta * features) * (1.0 - sigmoid_features))
        beta_grad = _f.reduce_sum(dy * _f.square(features) * sigmoid_features * (1.0 - sigmoid_features))
        return dy * activation_grad, beta_grad

    return _f.multiply(features, _f.sigmoid(_f.multiply(beta, features))), grad


swish = silu

# Array ops (issue 24)
from .functions import depth_to_space, space_to_depth  # noqa: E402
# Pooling and normalisation
from .functions import (avg_pool, avg_pool1d, avg_pool2d, avg_pool3d, batch_normalization,  # noqa: E402
                        local_response_normalization, lrn, max_pool, max_pool1d, max_pool2d, max_pool3d,
                        max_pool_with_argmax, pool)

__all__ = [name for name in dir() if not name.startswith("_")]
