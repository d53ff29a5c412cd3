"""`custom_gradient`: a function whose outputs a tape records as one op, differentiated by the
gradient function it returns (captured variables included)."""

from __future__ import annotations

import functools
import inspect
from typing import Any

from . import functions as F
from . import nest
from .fp_errors import user_code
from .primitives import REGISTRY, abandon_deferral
from .recording import VariableAccessLog, record_operation



def custom_gradient(f: Any = None) -> Any:
    """Decorator: `f` returns (outputs, grad_fn); grad_fn replaces the recorded ops' gradient."""
    if f is None:
        return custom_gradient

    return _CustomGradientFunction(f)


class _CustomGradientFunction:
    """What `custom_gradient` returns: a callable that, looked up on an instance, binds `f` to it (as
    TF's decorator does), so that a method's `self` is not one of the function's inputs."""

    def __init__(self, f: Any) -> None:
        self._f = f
        functools.update_wrapper(self, f)

    def __get__(self, instance: Any, owner: Any) -> Any:
        return self if instance is None else _CustomGradientFunction(self._f.__get__(instance, owner))

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return _call_with_custom_gradient(self._f, args, kwargs)


def _call_with_custom_gradient(f: Any, args: tuple, kwargs: dict) -> Any:
    accessed = VariableAccessLog()
    with accessed:
        result, grad_fn = f(*args, **kwargs)
    flat_args = nest.flatten(args)
    # The captured variables: those read inside `f` that are not themselves arguments. Keyword
    # arguments are neither inputs nor captured variables: they get no gradient.
    passed = flat_args + nest.flatten(kwargs)
    variables = [v for v in accessed.variables if v.trainable and all(v is not arg for arg in passed)]
    accepts_variables = "variables" in inspect.signature(grad_fn).parameters or any(
        p.kind is p.VAR_KEYWORD for p in inspect.signature(grad_fn).parameters.values())
    if variables and not accepts_variables:
        raise TypeError("@tf.custom_gradient grad_fn must accept keyword argument 'variables', since function "
                        f"uses variables: {variables}")
    flat_result = [F.identity(x) for x in nest.flatten(result)]
    inputs = [F.convert_to_tensor(x) for x in flat_args + variables]  # Variables (arguments, captured) read now
    arg_count = len(flat_args)

    def grad_of_inputs(upstream: list, outputs: tuple, *recorded: Any, **_: Any) -> list:
        abandon_deferral()  # grad_fn must run once
        with user_code():
            if variables:
                input_grads, variable_grads = grad_fn(*upstream, variables=variables)
            else:
                input_grads, variable_grads = grad_fn(*upstream), []
        if variables and len(variable_grads) != len(variables):
            raise ValueError("Must return gradient for each variable from @custom_gradient grad_fn.")
        flat_grads = nest.flatten(input_grads)
        if len(flat_grads) != arg_count:
            raise ValueError(f"custom_gradient function expected to return {arg_count} gradients, "
                             f"but returned {len(flat_grads)} instead.")
        return flat_grads + variable_grads  # a tuple of variable gradients is TF's TypeError too

    record_operation(REGISTRY["CustomGradient"], inputs, flat_result, {"grad_fn": grad_of_inputs, "name": f.__name__})
    return nest.pack_sequence_as(result, flat_result)
