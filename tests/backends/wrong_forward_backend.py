"""A test backend: reftape with deliberately wrong forwards: multiply is off by 1%, cos raises.

Used to check that the first divergence names the op whose value is wrong, not the ops after it.
"""

import reftape as _reftape
from reftape import *  # noqa: F401,F403 - the backend exposes TF's names
from reftape import linalg, math, nn  # noqa: F401


def multiply(x, y, name=None):
    return _reftape.multiply(x, y) * 1.01


def cos(x, name=None):
    raise ValueError("planted: cos refuses to run")
