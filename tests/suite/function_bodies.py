"""Bodies of `tf.function`s with Python control flow over tensors, for test_function.py's snippets.

AutoGraph converts only code whose source it can read: a function defined in a snippet (compiled from a
string) is traced as written, and its `if tensor:` raises. These live in a file so that AutoGraph
converts them; each takes the library under test as `tf` and returns the decorated function."""

from __future__ import annotations

from typing import Any


def branch(tf: Any, log: list) -> Any:
    @tf.function
    def f(a):
        log.append("traced")
        if tf.reduce_sum(a) > 0:
            y = a * 2.0
        else:
            y = -a
        return y
    return f


def loop_over_range(tf: Any) -> Any:
    @tf.function
    def f(a, n):
        s = tf.constant(0.0)
        for i in tf.range(n):
            s += a * tf.cast(i, tf.float32)
        return s
    return f


def loop_over_rows(tf: Any) -> Any:
    @tf.function
    def f(m):
        s = tf.zeros([2])
        for row in m:
            s += row * row
        return s
    return f


def while_below(tf: Any) -> Any:
    @tf.function
    def f(a):
        while a < 100.0:
            a = a * 3.0
        return a
    return f


def casts(tf: Any) -> Any:
    @tf.function
    def f(a, n):
        return a * float(n) + float(int(a))
    return f


def branch_without_autograph(tf: Any) -> Any:
    @tf.function(autograph=False)
    def f(a):
        if a > 0:
            return a
        return -a
    return f


def raising(tf: Any) -> Any:
    @tf.function
    def f(a):
        raise ValueError("bad value")
    return f
