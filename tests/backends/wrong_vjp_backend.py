"""A test backend: reftape with one deliberately wrong VJP (sin's derivative doubled).

Used to check that the comparison catches a wrong gradient and the referee blames this side.
"""

import reftape as _reftape
from reftape import *  # noqa: F401,F403 - the backend exposes TF's names
from reftape import math, nn, linalg  # noqa: F401


def sin(x, name=None):
    return _sin(_reftape.convert_to_tensor(x))  # a Variable is read here, outside custom_gradient


@_reftape.custom_gradient
def _sin(x):
    return _reftape.sin(x), lambda upstream: upstream * 2.0 * _reftape.cos(x)
