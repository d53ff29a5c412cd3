"""A correct but partial tape, as another project's tape often is: reftape restricted to 20 ops, a
GradientTape with `watch`, `gradient` and `reset` only (no jacobians, stop_recording or
watched_variables), no custom_gradient, no cast, no random. Everything it has is right: a campaign
against it must find nothing, and list what it lacks as unsupported."""

from types import SimpleNamespace

import reftape
from reftape import (UnconnectedGradients, Variable, abs, add, constant, cos, divide, exp, matmul,  # noqa: F401
                     maximum, multiply, negative, reduce_max, reduce_mean, reduce_sum, sin, sqrt, square, subtract,
                     tanh)
from reftape import errors, float16, float32, float64, bfloat16, complex64, complex128, int32, int64  # noqa: F401

__version__ = "0.1"

nn = SimpleNamespace(relu=reftape.nn.relu, softplus=reftape.nn.softplus)
math = SimpleNamespace(log1p=reftape.math.log1p)


class GradientTape:
    """reftape's tape behind the three methods this backend offers."""

    def __init__(self, persistent: bool = False, watch_accessed_variables: bool = True) -> None:
        self._tape = reftape.GradientTape(persistent=persistent, watch_accessed_variables=watch_accessed_variables)

    def __enter__(self) -> "GradientTape":
        self._tape.__enter__()
        return self

    def __exit__(self, *exception: object) -> None:
        self._tape.__exit__(*exception)

    def watch(self, tensor: object) -> None:
        self._tape.watch(tensor)

    def gradient(self, target: object, sources: object, output_gradients: object = None,
                 unconnected_gradients: object = UnconnectedGradients.NONE) -> object:
        return self._tape.gradient(target, sources, output_gradients=output_gradients,
                                   unconnected_gradients=unconnected_gradients)

    def reset(self) -> None:
        self._tape.reset()
