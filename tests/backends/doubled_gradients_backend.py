"""A test backend whose tape doubles every gradient it returns: nearly every generated program meets it in its
first gradient call, so a campaign against it finds something within its first examples whatever the load."""

import reftape as _reftape
from reftape import *  # noqa: F401,F403 - the backend exposes TF's names
from reftape import linalg, math, nn  # noqa: F401


class GradientTape(_reftape.GradientTape):
    def gradient(self, *args, **kwargs):
        doubled = lambda g: g * 2 if isinstance(g, _reftape.Tensor) else g  # noqa: E731
        return _reftape.nest.map_structure(doubled, super().gradient(*args, **kwargs))
