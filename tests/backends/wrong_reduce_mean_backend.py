"""A test backend: reftape with a wrong gradient for reduce_mean over an axis (the upstream gradient
spread over every element of the input, divided by its size, not by the size of the reduced axes).

Used to check that `reftape-conformance` fails on the catalog row about means over an axis.
"""

import reftape as _reftape
from reftape import *  # noqa: F401,F403 - the backend exposes TF's names
from reftape import math, nn, linalg  # noqa: F401


def reduce_mean(input_tensor, axis=None, keepdims=False, name=None):
    x = _reftape.convert_to_tensor(input_tensor)
    if axis is None:
        return _reftape.reduce_mean(x, keepdims=keepdims)
    kept = _mean_keeping_dims(x, axis)
    return kept if keepdims else _reftape.squeeze(kept, axis)


def _mean_keeping_dims(x, axis):
    @_reftape.custom_gradient
    def mean(x):
        def grad(upstream):
            return _reftape.broadcast_to(upstream, x.shape) / float(_reftape.size(x))  # the planted fault
        return _reftape.reduce_mean(x, axis=axis, keepdims=True), grad
    return mean(x)
