"""Each thread's eager state, in one object: the recording tapes (`recording.py`), whether NumPy's
floating-point warnings are off for a block of kernels (`fp_errors.py`), and the outputs awaiting a
deferred subnormal check (`primitives.py`).

`execute` reads this state once per op. Every attribute read on a `threading.local` looks up the
thread's dictionary (about as costly as a small kernel's bookkeeping, and an op read four or five
of them); the plain object it holds is read at the cost of an ordinary attribute.
"""

from __future__ import annotations

import threading
from typing import Any


class ThreadState:
    """The state of one thread (see the module's docstring)."""

    __slots__ = ("active", "access_logs", "quiet", "outer", "deferred", "vectorizing", "tracer", "lifted")

    def __init__(self) -> None:
        self.active: list = []  # the recordings of the tapes recording now, innermost last
        self.access_logs: list = []  # the VariableAccessLogs of the `with` blocks open now
        self.quiet = False  # NumPy's floating-point warnings are off already: kernels call their plain forward
        self.outer: Any = None  # the error state that user code called from a quiet block runs under
        self.deferred: list | None = None  # outputs awaiting their subnormal check; None: not deferring
        self.vectorizing = False  # inside a vectorized (batch_)jacobian's loop, whose ops TF's pfor rebuilds
        self.tracer: Any = None  # the trace of a `tf.function` being traced (polymorphic_function.py), or None
        self.lifted: Any = None  # the trace an `init_scope` lifted its block out of: it still sees Variables made


class _PerThread(threading.local):
    def __init__(self) -> None:
        self.state = ThreadState()


this_thread = _PerThread()  # `this_thread.state`: the calling thread's ThreadState
