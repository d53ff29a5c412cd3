"""`grad_pass_through` and `recompute_grad`, built on `custom_gradient` as TF builds them."""

from __future__ import annotations

import functools
from typing import Any

from . import functions as F
from . import nest
from .custom_gradient import custom_gradient
from .recording import suspended
from .tape import GradientTape, UnconnectedGradients


def grad_pass_through(f: Any) -> Any:
    """`f`, whose gradient is the identity: upstream gradients go to its inputs unchanged, none to
    the variables it reads."""

    @custom_gradient
    def passed_through(*args: Any, **kwargs: Any) -> Any:
        def grad(*upstream: Any, **grad_kwargs: Any) -> Any:
            variables = grad_kwargs.get("variables")
            if variables is not None:
                return upstream, [None] * len(variables)
            return upstream

        return f(*args, **kwargs), grad

    return functools.wraps(f)(passed_through)


def recompute_grad(f: Any) -> Any:
    """`f`, run without recording; its gradient runs `f` again under a tape of its own (inputs and the
    variables it read watched) and differentiates that, unconnected inputs getting zeros."""

    @custom_gradient
    def recomputed(*args: Any, **kwargs: Any) -> Any:
        with suspended():
            result = f(*args, **kwargs)

        def grad(*upstream: Any, variables: Any = None) -> Any:
            return _recomputed_gradients(f, args, kwargs, upstream, variables)

        return result, grad

    return functools.wraps(f)(recomputed)


def _recomputed_gradients(f: Any, args: tuple, kwargs: dict, upstream: tuple, variables: Any) -> tuple:
    """TF's inner custom gradient: its own grad_fn (for forward mode) raises, so a tape recording this
    backward pass gets NotImplementedError where it differentiates it."""

    @custom_gradient
    def inner(*upstream: Any) -> Any:
        with GradientTape() as tape:
            inputs = nest.map_structure(F.identity, args)
            tape.watch(inputs)
            if variables is not None:
                tape.watch(variables)
            recomputed = f(*inputs, **kwargs)
        sources = list(inputs) + list(variables or [])
        grads = tape.gradient(recomputed, sources, output_gradients=list(upstream),
                              unconnected_gradients=UnconnectedGradients.ZERO)

        def transpose(*_: Any, **__: Any) -> Any:
            raise NotImplementedError("recompute_grad tried to transpose grad of {}. Consider not using "
                                      "recompute_grad in forward modeautodiff".format(f.__name__))

        return (grads[:len(inputs)], grads[len(inputs):]), transpose

    return inner(*upstream)
