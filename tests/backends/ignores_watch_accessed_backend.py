"""A test backend: reftape whose GradientTape ignores `watch_accessed_variables=False` (it always
watches the variables a computation reads).

Used to check that `reftape-conformance` fails on the catalog row about watch_accessed_variables.
"""

import reftape as _reftape
from reftape import *  # noqa: F401,F403 - the backend exposes TF's names
from reftape import math, nn, linalg  # noqa: F401


class GradientTape(_reftape.GradientTape):
    def __init__(self, persistent=False, watch_accessed_variables=True):
        super().__init__(persistent, watch_accessed_variables=True)  # the planted fault
