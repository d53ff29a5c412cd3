"""A test backend: reftape with sin's first derivative right and its second derivative doubled.

The VJP is upstream * (2 cos(x) - cos(stop_gradient(x))): equal to cos(x), but an outer tape
differentiates only the first term and sees -2 sin(x). Used to check that the referee judges
higher-order targets (an outer tape differentiating an inner gradient).
"""

import reftape as _reftape
from reftape import *  # noqa: F401,F403 - the backend exposes TF's names
from reftape import math, nn, linalg  # noqa: F401


def sin(x, name=None):
    return _sin(_reftape.convert_to_tensor(x))  # a Variable is read here, outside custom_gradient


@_reftape.custom_gradient
def _sin(x):
    def vjp(upstream):
        return upstream * (2.0 * _reftape.cos(x) - _reftape.cos(_reftape.stop_gradient(x)))

    return _reftape.sin(x), vjp
