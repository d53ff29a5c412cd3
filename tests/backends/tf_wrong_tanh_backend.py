"""A test backend: TensorFlow itself, with `tanh` wrapped in a `tf.custom_gradient` whose VJP forgets the square
(upstream * (1 - y) instead of upstream * (1 - y**2)). Nothing else differs from TF, so only a check that judges
one backend's gradients on their own (the numeric check) can see it: tests/harness/test_checks.py."""

import tensorflow as _tf


def __getattr__(name):
    return getattr(_tf, name)


__version__ = _tf.__version__


def tanh(x, name=None):
    return _tanh(_tf.convert_to_tensor(x))  # a Variable is read here, outside custom_gradient


@_tf.custom_gradient
def _tanh(x):
    y = _tf.tanh(x)
    return y, lambda upstream: upstream * (1 - y)
