"""A test backend: reftape with exp's VJP missing its conjugate (upstream * exp(z), not
upstream * conj(exp(z))). Real gradients stay right; complex ones are wrong.

Used to check that the referee judges value mismatches in complex gradients.
"""

import reftape as _reftape
from reftape import *  # noqa: F401,F403 - the backend exposes TF's names
from reftape import math, nn, linalg  # noqa: F401


def exp(x, name=None):
    return _exp(_reftape.convert_to_tensor(x))  # a Variable is read here, outside custom_gradient


@_reftape.custom_gradient
def _exp(z):
    value = _reftape.exp(z)
    return value, lambda upstream: upstream * value
