"""TF anomaly 27: the second derivative of nn.moments' variance misses the mean's part (see TF_ANOMALIES.md).

var(x) = mean((x - mean(x))²) over n elements has the gradient 2 (x - mean(x)) / n and the Hessian
(2/n) (I - 11ᵀ/n): for n = 2 it is [[0.5, -0.5], [-0.5, 0.5]] at every x. TensorFlow's `nn.moments` computes
the variance as mean(squared_difference(x, stop_gradient(mean))): the first derivative is right (the variance's
derivative by its mean is zero), but differentiating that gradient again treats the mean as a constant and
gives (2/n) I = [[1, 0], [0, 1]].

Usage: python moments_variance_second_derivative.py [MODULE]   (default tensorflow; any module with TF's names)
Prints both Hessians; exits 1 while the module's differs from the exact one, 0 when it agrees.
"""

import importlib
import sys

import numpy as np

tf = importlib.import_module(sys.argv[1] if len(sys.argv) > 1 else "tensorflow")
exact = np.array([[0.5, -0.5], [-0.5, 0.5]])

x = tf.constant([1.0, 3.0], dtype=tf.float64)
with tf.GradientTape() as outer:
    outer.watch(x)
    with tf.GradientTape() as inner:
        inner.watch(x)
        _, variance = tf.nn.moments(x, axes=[0])
    first = inner.gradient(variance, x)
value = np.asarray(outer.jacobian(first, x))
print(f"{tf.__name__}: {value.tolist()}")
print(f"exact: {exact.tolist()}")
sys.exit(0 if np.allclose(value, exact) else 1)
