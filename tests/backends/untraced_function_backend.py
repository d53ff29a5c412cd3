"""A test backend: reftape whose `tf.function` returns the Python function itself, so its body runs eagerly on
every call (as a tape without graphs might ship it). The function check must refuse it: its traced runs would be
its eager ones. Used by tests/harness/test_function_check.py."""

from reftape import *  # noqa: F401,F403 - the backend exposes TF's names
from reftape import autodiff, bitwise, linalg, math, nn, random  # noqa: F401


def function(func=None, **options):
    return func if func is not None else (lambda f: f)
