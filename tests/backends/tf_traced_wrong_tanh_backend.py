"""A test backend: TensorFlow itself (tf_wrong_tanh_backend's re-export), with `tanh` wrapped in a
`tf.custom_gradient` whose VJP is right when run eagerly and forgets the square inside a `tf.function`
(upstream * (1 - y) instead of upstream * (1 - y**2)). Its eager gradients are TF's, so only the function check can
see it: tests/harness/test_function_check.py."""

import tensorflow as _tf

from tf_wrong_tanh_backend import __getattr__, __version__  # noqa: F401 - TF's names


def tanh(x, name=None):
    return _tanh(_tf.convert_to_tensor(x))  # a Variable is read here, outside custom_gradient


@_tf.custom_gradient
def _tanh(x):
    y = _tf.tanh(x)

    def vjp(upstream):
        return upstream * (1 - y * y) if _tf.executing_eagerly() else upstream * (1 - y)

    return y, vjp
