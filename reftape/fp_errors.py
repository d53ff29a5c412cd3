"""NumPy's floating-point error state around reftape's own computations.

TF's kernels and conversions give IEEE results (inf, NaN, flushed zeros) silently, whatever NumPy
error state the caller has set; user code, such as a custom gradient function, still runs under the
caller's state. NumPy 2 keeps that state in a context variable, and `np.errstate` builds a new state
object on every use, which costs more than most of reftape's small kernels: here the quiet state is
built once per outer state and set directly. Where the private names are missing (NumPy 1, or a
later NumPy that renamed them), `np.errstate` blocks are used instead.
"""

from __future__ import annotations

import functools
from typing import Any, Callable

import numpy as np

from .thread_state import this_thread


class _QuietStates:
    """The quiet state for an outer state, built as `np.errstate(all="ignore")` builds it (the caller's
    buffer size and error callback kept). The last pair is remembered: a thread's outer state rarely
    changes between kernels."""

    def __init__(self, make_state: Callable[..., Any]) -> None:
        self._make_state = make_state
        self.last: tuple = (None, None)

    def of(self, outer: Any) -> Any:
        """The quiet state for `outer`, which must be the current state."""
        last_outer, quiet = self.last
        if outer is not last_outer:
            quiet = self._make_state(all="ignore")  # reads the outer state, which is the current one
            self.last = (outer, quiet)  # one tuple: threads always read a matching pair
        return quiet


def _numpy_error_state() -> tuple[Any, _QuietStates | None]:
    try:
        from numpy._core import _ufunc_config
        return _ufunc_config._extobj_contextvar, _QuietStates(_ufunc_config._make_extobj)
    except (ImportError, AttributeError):
        return None, None


_ERROR_STATE, _QUIET_STATES = _numpy_error_state()
if _ERROR_STATE is not None:
    _get_state, _set_state, _reset_state = _ERROR_STATE.get, _ERROR_STATE.set, _ERROR_STATE.reset


def quietly(function: Callable[..., Any], args: Any, kwargs: dict) -> Any:
    """`function(*args, **kwargs)` with NumPy's floating-point warnings and errors off (what `execute`
    calls: the arguments it has collected are passed on once, not packed again by a wrapper)."""
    if _ERROR_STATE is None:
        with np.errstate(all="ignore"):
            return function(*args, **kwargs)
    outer = _get_state()
    last_outer, state = _QUIET_STATES.last  # `_QuietStates.of`, inlined: this runs for most kernels
    token = _set_state(state if outer is last_outer else _QUIET_STATES.of(outer))
    try:
        return function(*args, **kwargs) if kwargs else function(*args)
    finally:
        _reset_state(token)


def without_fp_warnings(function: Callable[..., Any]) -> Callable[..., Any]:
    """`function` run with NumPy's floating-point warnings and errors off."""
    if _ERROR_STATE is None:
        @functools.wraps(function)
        def quiet_by_block(*args: Any, **kwargs: Any) -> Any:
            with np.errstate(all="ignore"):  # NumPy 1's errstate decorator shares one saved state between threads
                return function(*args, **kwargs)
        return quiet_by_block

    get_state, set_state, reset_state = _ERROR_STATE.get, _ERROR_STATE.set, _ERROR_STATE.reset

    @functools.wraps(function)
    def quiet(*args: Any, **kwargs: Any) -> Any:
        outer = get_state()
        last_outer, state = _QUIET_STATES.last  # `_QuietStates.of`, inlined: this runs for every kernel
        token = set_state(state if outer is last_outer else _QUIET_STATES.of(outer))
        try:
            return function(*args, **kwargs)
        finally:
            reset_state(token)
    return quiet


class quiet_kernels:
    """Turns NumPy's floating-point warnings off once for a block of kernels (a backward pass) instead
    of once per kernel (`ThreadState.quiet` tells the kernels). Only for blocks of reftape's own code:
    user code called inside them must run in `user_code()`. Without access to NumPy's state, kernels
    keep quieting themselves."""

    __slots__ = ("_token",)

    def __enter__(self) -> None:
        self._token = None
        state = this_thread.state
        if _ERROR_STATE is not None and not state.quiet:
            state.outer = outer = _ERROR_STATE.get()
            self._token = _ERROR_STATE.set(_QUIET_STATES.of(outer))
            state.quiet = True

    def __exit__(self, *exc: Any) -> None:
        if self._token is not None:
            this_thread.state.quiet = False
            _ERROR_STATE.reset(self._token)


class user_code:
    """Runs user code called from a `quiet_kernels` block (a custom gradient function) under the
    caller's own NumPy error state; reftape's kernels inside it quiet themselves again."""

    __slots__ = ("_token", "_outer")

    def __enter__(self) -> None:
        self._token = None
        state = this_thread.state
        if state.quiet:
            self._outer = state.outer
            self._token = _ERROR_STATE.set(self._outer)
            state.quiet = False

    def __exit__(self, *exc: Any) -> None:
        if self._token is not None:
            _ERROR_STATE.reset(self._token)
            state = this_thread.state
            state.quiet, state.outer = True, self._outer


quiet_astype: Callable[[np.ndarray, Any], np.ndarray] = without_fp_warnings(np.ndarray.astype)
quiet_astype.__doc__ = "A copy of an array in another dtype; overflow gives inf and underflow zero, silently."
