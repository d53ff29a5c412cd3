"""TF anomaly 14: the vectorized jacobian of the gradient through two chained max pools (see TF_ANOMALIES.md).

With x = [x0, x1] = [1, 2] and pool = max_pool1d(ksize 2, strides 1, 'SAME') (the last window padded),
pool(x) = [max(x0, x1), x1] = [x1, x1] for every x near [1, 2], and pool(pool(x)) = [x1, x1] again, so
f(x) = reduce_sum(square(pool(pool(x)))) = 2 x1² near the point: smooth there, with gradient [0, 4 x1] and
second derivative (the jacobian of the gradient) exactly [[0, 0], [0, 4]]. TensorFlow's unvectorized jacobian
(experimental_use_pfor=False) gives it; the default vectorized jacobian gives all zeros.

Usage: python chained_max_pool_vectorized_hessian.py [MODULE]   (default tensorflow; any module with TF's names)
Prints both values; exits 1 while the module's jacobian differs from the exact one, 0 when it agrees.
"""

import importlib
import sys

import numpy as np

tf = importlib.import_module(sys.argv[1] if len(sys.argv) > 1 else "tensorflow")
exact = np.array([0.0, 0.0, 0.0, 4.0])


def pool(v):
    return tf.nn.max_pool1d(v, ksize=2, strides=1, padding="SAME")


x = tf.constant([[[1.0], [2.0]]], dtype=tf.float64)
with tf.GradientTape() as outer:
    outer.watch(x)
    with tf.GradientTape() as inner:
        inner.watch(x)
        f = tf.reduce_sum(tf.square(pool(pool(x))))
    gradient = inner.gradient(f, x)
value = np.asarray(outer.jacobian(gradient, x)).ravel()
print(f"{tf.__name__}: {value.tolist()}")
print(f"exact: {exact.tolist()}")
sys.exit(0 if np.allclose(value, exact) else 1)
