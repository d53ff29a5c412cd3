"""A test backend: reftape whose `sin` hangs, to check that a hang becomes a recorded timeout."""

import time

import reftape as _reftape
from reftape import *  # noqa: F401,F403
from reftape import linalg, math, nn  # noqa: F401


def sin(x):
    time.sleep(30)
    return _reftape.sin(x)
