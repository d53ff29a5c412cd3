"""TF anomaly 1: the gradient of cumprod at a zero element (see TF_ANOMALIES.md).

f(x) = reduce_sum(cumprod(x)) = x0 + x0*x1 + x0*x1*x2, so at x = [2, 0, 4] the exact gradient is
[1 + x1 + x1*x2, x0 + x0*x2, x0*x1] = [1, 10, 0]. TensorFlow's gradient function divides the cumulative
sum of the upstream times the products by x with div_no_nan, which gives 0 wherever x is 0.

Usage: python cumprod_at_a_zero.py [MODULE]   (default tensorflow; any module with TF's names)
Prints both values; exits 1 while the module's gradient differs from the exact one, 0 when it agrees.
"""

import importlib
import sys

import numpy as np

tf = importlib.import_module(sys.argv[1] if len(sys.argv) > 1 else "tensorflow")
x0, x1, x2 = 2.0, 0.0, 4.0
exact = np.array([1 + x1 + x1 * x2, x0 + x0 * x2, x0 * x1])

x = tf.constant([x0, x1, x2], tf.float64)
with tf.GradientTape() as tape:
    tape.watch(x)
    y = tf.reduce_sum(tf.math.cumprod(x))
value = np.asarray(tape.gradient(y, x))
print(f"{tf.__name__}: {value.tolist()}")
print(f"exact: {exact.tolist()}")
sys.exit(0 if np.allclose(value, exact) else 1)
