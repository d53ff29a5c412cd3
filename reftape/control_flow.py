"""Eager control flow as TF runs it: `cond`, `case`, `switch_case` and `while_loop` are Python
branches and loops over the user's functions, so gradients flow through the ops each call executes
and through nothing else (an untaken branch runs no op)."""

from __future__ import annotations

import functools
from typing import Any, Callable

import numpy as np

from . import dtypes as _dtypes
from . import functions as F
from . import nest
from .errors import InvalidArgumentError
from .tensor import Tensor
from .tensor_array import TensorArray
from .variables import Variable


# ---------------------------------------------------------------------------------------------
# Structures, as TF's nest.assert_same_structure compares them (check_types=True)


def _is_sequence(value: Any) -> bool:
    return isinstance(value, (list, tuple, dict))


def _same_sequence_type(first: Any, second: Any) -> bool:
    if isinstance(first, dict) and isinstance(second, dict):
        return True
    if nest._is_namedtuple(first) and nest._is_namedtuple(second):
        return type(first).__name__ == type(second).__name__ and first._fields == second._fields
    return type(first) is type(second)


def assert_same_structure(first: Any, second: Any) -> None:
    """ValueError where the nestings or element counts differ, TypeError where sequence types do."""
    if len(nest.flatten(first)) != len(nest.flatten(second)):
        raise ValueError("The two structures don't have the same nested structure: they don't have the same "
                         f"number of elements. First structure: {first}, second structure: {second}.")
    _compare_structures(first, second)


def _compare_structures(first: Any, second: Any) -> None:
    if _is_sequence(first) != _is_sequence(second):
        raise ValueError(f"The two structures don't have the same nested structure. First structure: {first}, "
                         f"second structure: {second}.")
    if not _is_sequence(first):
        return
    if not _same_sequence_type(first, second):
        raise TypeError(f"The two structures don't have the same sequence type. First structure has type "
                        f"{type(first)}, while second structure has type {type(second)}.")
    if isinstance(first, dict):
        if sorted(first) != sorted(second):
            raise ValueError(f"The two dictionaries don't have the same set of keys. First structure has keys "
                             f"{list(first)}, while second structure has keys {list(second)}.")
        pairs = [(first[k], second[k]) for k in sorted(first)]
    else:
        if len(first) != len(second):
            raise ValueError(f"The two structures don't have the same sequence length. Input structure has length "
                             f"{len(first)}, while shallow structure has length {len(second)}.")
        pairs = list(zip(first, second))
    for a, b in pairs:
        _compare_structures(a, b)


def _check_has_spec(value: Any) -> None:
    """TF takes a TypeSpec of every loop variable first: a value that converts to no tensor fails there
    (None has a spec of its own: it fails only when the results are converted, after the loop)."""
    if value is None or isinstance(value, (Tensor, TensorArray)):
        return
    try:
        F.convert_to_tensor(value)
    except (ValueError, TypeError):
        raise TypeError(f"Could not build a TypeSpec for {value} of unsupported type {type(value)}.") from None


def _read_variables(structure: Any) -> Any:
    """Variables in a structure, read into tensors (a recorded read), as TF's loops take them."""
    return nest.map_structure(lambda v: F.convert_to_tensor(v) if isinstance(v, Variable) else v, structure)


def _as_tensors(structure: Any) -> Any:
    return nest.map_structure(lambda v: v if isinstance(v, TensorArray) else F.convert_to_tensor(v), structure)


# ---------------------------------------------------------------------------------------------
# cond, case, switch_case


def _check_branches(true_fn: Any, false_fn: Any) -> None:
    if true_fn is None:
        raise TypeError("cond(): 'true_fn' argument required")
    if false_fn is None:
        raise TypeError("cond(): 'false_fn' argument required")
    if not callable(true_fn):
        raise TypeError("'true_fn' must be callable.")
    if not callable(false_fn):
        raise TypeError("'false_fn' must be callable.")


def _unpacked_if_singleton(result: Any) -> Any:
    return result[0] if isinstance(result, (list, tuple)) and len(result) == 1 else result


def _run_branch(pred: Any, true_fn: Callable, false_fn: Callable, strict: bool) -> Any:
    """TF's eager cond: the predicate's value (NumPy's truth) picks the one function that runs."""
    taken = true_fn if F.convert_to_tensor(pred).numpy() else false_fn
    result = taken()
    return result if strict else _unpacked_if_singleton(result)


def cond(pred: Any, true_fn: Any = None, false_fn: Any = None, name: str | None = None) -> Any:
    """Runs `true_fn()` if `pred` holds, else `false_fn()`, and returns what it returns, unchanged."""
    _check_branches(true_fn, false_fn)
    return _run_branch(pred, true_fn, false_fn, strict=True)


def _checked_pairs(pred_fn_pairs: Any, exclusive: bool) -> list:
    if not isinstance(pred_fn_pairs, (list, tuple, dict)):
        raise TypeError(f"'pred_fn_pairs' must be a list, tuple, or dict. Received: {type(pred_fn_pairs)}")
    if isinstance(pred_fn_pairs, dict):
        if not exclusive:
            raise ValueError("Unordered dictionaries are not supported for the 'pred_fn_pairs' argument when "
                             "`exclusive=False` and eager mode is enabled.")
        pred_fn_pairs = list(pred_fn_pairs.items())
    for pair in pred_fn_pairs:
        if not isinstance(pair, tuple) or len(pair) != 2:
            raise TypeError(f"Each entry in 'pred_fn_pairs' must be a 2-tuple. Received {pair}.")
        pred, fn = pair
        if isinstance(pred, Tensor):
            if pred.dtype != _dtypes.bool:
                raise TypeError("pred must be Tensor of type bool: %s" % _eager_tensor_name())
        else:
            raise TypeError("pred must be a Tensor, got: %s" % pred)
        if not callable(fn):
            raise TypeError("fn for pred %s must be callable." % _eager_tensor_name())
    return list(pred_fn_pairs)


def _eager_tensor_name() -> str:
    """TF's messages name the predicate, whose `name` an eager tensor refuses."""
    raise AttributeError("Tensor.name is undefined when eager execution is enabled.")


def _count_true(predicates: Any) -> int:
    return int(sum(np.asarray(p.numpy(), bool).sum() for p in predicates))


def _assert_at_most_true(predicates: Any, most: int, message: str) -> None:
    if _count_true(predicates) > most:
        flags = ", ".join(str(bool(p.numpy())) for p in predicates)
        names = ", ".join("?" for _ in predicates)
        raise InvalidArgumentError(f"Expected 'tf.Tensor(False, shape=(), dtype=bool)' to be true. Summarized data: "
                                   f"b'{message}: more than {most} conditions ({names}) evaluated as True:'\n{flags}")


def _last_as_default(predicates: tuple, actions: tuple) -> tuple:
    """Without a default, TF's case takes the last pair as the default, which asserts its predicate."""
    predicate, action = predicates[-1], actions[-1]

    def default() -> Any:
        if not predicate.numpy():
            flags = ", ".join(str(bool(p.numpy())) for p in predicates)
            raise InvalidArgumentError("Expected 'tf.Tensor(False, shape=(), dtype=bool)' to be true. Summarized data: "
                                       f"b'Input error: None of conditions evaluated as True:'\n{flags}")
        return action()

    return default, predicates[:-1], actions[:-1]


def case(pred_fn_pairs: Any, default: Any = None, exclusive: bool = False, strict: bool = False,
         name: str = "case") -> Any:
    """The function of the first pair whose predicate holds, else `default`; a chain of conds as in TF."""
    pairs = _checked_pairs(pred_fn_pairs, exclusive)
    predicates, actions = zip(*pairs)
    if default is None:
        default, predicates, actions = _last_as_default(predicates, actions)
    chained = default
    for predicate, action in reversed(list(zip(predicates, actions))):
        chained = functools.partial(_run_branch, predicate, action, chained, strict)
    if exclusive:
        _assert_at_most_true(predicates, 1, "Input error: exclusive=True")
    return chained()


def _indexed_branches(branch_fns: Any, default: Any, branch_index: Any) -> list:
    if not isinstance(branch_index, Tensor):
        raise TypeError("'branch_index' must be a Tensor, got {}".format(type(branch_index)))
    if not branch_index.dtype.is_integer:
        raise TypeError("'branch_index' must be an integer Tensor, got {}".format(branch_index.dtype))
    if not branch_fns:
        raise ValueError("Must provide at least one item in 'branch_fns'")
    if not isinstance(branch_fns, (list, tuple, dict)):
        raise TypeError("'branch_fns' must be a list, tuple, or dict")
    if isinstance(branch_fns, dict):
        branch_fns = branch_fns.items()
    if all(callable(fn) for fn in branch_fns):
        branch_fns = list(enumerate(branch_fns))
    for entry in branch_fns:
        if not isinstance(entry, tuple) or len(entry) != 2:
            raise TypeError(f"Each entry in 'branch_fns' must be a 2-tuple. Received {entry}.")
        key, fn = entry
        if not isinstance(key, int):
            raise TypeError("key must be a Python `int`, got {}".format(type(key)))
        if not callable(fn):
            raise TypeError("fn for key {} must be callable.".format(key))
    keys = [key for key, _ in branch_fns]
    if min(keys) < 0 or max(keys) >= len(keys) or len(set(keys)) != len(keys):
        raise ValueError("branch indices (keys) must form contiguous range of [0 to {}) but found {{{}}}".format(
            len(keys), ",".join(map(str, sorted(keys)))))
    branches = [fn for _, fn in sorted(branch_fns, key=lambda entry: entry[0])]
    return branches + ([default] if default is not None else [])


def switch_case(branch_index: Any, branch_fns: Any, default: Any = None, name: str = "switch_case") -> Any:
    """Runs the branch at `branch_index`; an index out of range runs the last branch (the default if given)."""
    branches = _indexed_branches(branch_fns, default, branch_index)
    index = branch_index.numpy()
    if np.ndim(index) != 0:  # TF's Select of a scalar fallback against this index
        raise InvalidArgumentError("'then' must be at least a vector, but saw shape: [] [Op:Select] name: ")
    index = int(index)
    return branches[len(branches) - 1 if index < 0 or index >= len(branches) else index]()


# ---------------------------------------------------------------------------------------------
# while_loop


def _check_loop_arguments(cond: Any, body: Any, parallel_iterations: Any) -> None:
    if not callable(cond):
        raise TypeError("'cond' must be callable.")
    if not callable(body):
        raise TypeError("'body' must be callable.")
    if parallel_iterations < 1:
        raise TypeError("'parallel_iterations' must be a positive integer.")


def _iteration_limit(maximum_iterations: Any) -> int:
    limit = F.convert_to_tensor(maximum_iterations)
    if limit.shape.ndims != 0:
        raise ValueError(f"'maximum_iterations' must be a scalar. Received shape: {limit.shape}")
    return int(limit.numpy())


def _counted(cond: Callable, body: Callable, limit: int) -> tuple[Callable, Callable]:
    """TF's loop with maximum_iterations: a counter beside the loop variables, and both conditions
    evaluated at every test (no short circuit)."""
    counted_cond = lambda i, loop_vars: F.logical_and(i < limit, cond(*loop_vars))  # noqa: E731
    counted_body = lambda i, loop_vars: (i + 1, body(*loop_vars))  # noqa: E731
    return counted_cond, counted_body


def while_loop(cond: Any, body: Any, loop_vars: Any, shape_invariants: Any = None, parallel_iterations: int = 10,
               back_prop: bool = True, swap_memory: bool = False, maximum_iterations: Any = None,
               name: str | None = None) -> Any:
    """Runs `body` while `cond` holds, as Python, and returns the last loop variables (Python numbers as
    tensors). Eagerly, TF ignores `shape_invariants` and `back_prop` (gradients still flow)."""
    _check_loop_arguments(cond, body, parallel_iterations)
    loop_vars = _read_variables(loop_vars)
    if not loop_vars:
        raise ValueError("'loop_vars' must be provided.")
    len(loop_vars)  # noqa: B018 - TF asks whether one variable was given: a scalar tensor has no len()
    if maximum_iterations is not None:
        cond, body = _counted(cond, body, _iteration_limit(maximum_iterations))
        loop_vars = (0, loop_vars)
    structure = list(loop_vars)
    for leaf in nest.flatten(structure):
        _check_has_spec(leaf)
    while cond(*loop_vars):
        loop_vars = body(*loop_vars)
        assert_same_structure(structure, list(loop_vars))
    loop_vars = _as_tensors(loop_vars)
    return loop_vars[1] if maximum_iterations is not None else loop_vars


__all__ = ["case", "cond", "switch_case", "while_loop"]
