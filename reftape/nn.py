"""`tf.nn`."""

from .functions import (elu, gelu, l2_loss, leaky_relu, log_softmax, relu, relu6, selu, sigmoid,
                        sigmoid_cross_entropy_with_logits, silu, softmax, softmax_cross_entropy_with_logits,
                        softplus, softsign, tanh)

swish = silu

__all__ = [name for name in dir() if not name.startswith("_")]
