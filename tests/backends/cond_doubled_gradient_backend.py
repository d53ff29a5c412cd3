"""A test backend: reftape whose `cond` doubles the gradient through the branch it runs (its result passed
through an identity whose gradient is twice the upstream), while every op keeps its own gradient: the cond
itself is at fault."""

import reftape as _reftape
from reftape import *  # noqa: F401,F403 - the backend exposes TF's names
from reftape import linalg, math, nn  # noqa: F401


@_reftape.custom_gradient
def _doubled(y):
    return _reftape.identity(y), lambda upstream: 2.0 * upstream


def cond(pred, true_fn=None, false_fn=None, name=None):
    return _reftape.nest.map_structure(_doubled, _reftape.cond(pred, true_fn, false_fn))
