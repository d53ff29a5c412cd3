"""TF anomaly 2: the gradient of an exclusive cumprod of zeros (see TF_ANOMALIES.md).

cumprod([x0, x1], exclusive=True) = [1, x0], so f(x) = reduce_sum of it = 1 + x0 and the exact gradient is
[1, 0] for every x. TensorFlow's gradient function divides by x with div_no_nan, which gives 0 at x0 = 0.

Usage: python exclusive_cumprod_of_zeros.py [MODULE]   (default tensorflow; any module with TF's names)
Prints both values; exits 1 while the module's gradient differs from the exact one, 0 when it agrees.
"""

import importlib
import sys

import numpy as np

tf = importlib.import_module(sys.argv[1] if len(sys.argv) > 1 else "tensorflow")
exact = np.array([1.0, 0.0])

x = tf.constant([0.0, 0.0], tf.float64)
with tf.GradientTape() as tape:
    tape.watch(x)
    y = tf.reduce_sum(tf.math.cumprod(x, exclusive=True))
value = np.asarray(tape.gradient(y, x))
print(f"{tf.__name__}: {value.tolist()}")
print(f"exact: {exact.tolist()}")
sys.exit(0 if np.allclose(value, exact) else 1)
