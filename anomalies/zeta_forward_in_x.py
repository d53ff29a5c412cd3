"""TF anomaly 26: forward mode gives 0 for the derivative of math.zeta in x (see TF_ANOMALIES.md).

The Hurwitz zeta function zeta(x, q) is the sum over k >= 0 of (k + q)^-x, so d/dx zeta(x, q) is minus the sum
of ln(k + q) (k + q)^-x. At x = 4, q = 1 (Riemann's zeta'(4)) the series converges fast enough to sum directly:
after a million terms the tail is below 1e-16, and the sum is -0.0689112658961... TensorFlow's gradient function
returns None for x (its derivative is not implemented), which the reverse mode reports as no dependence and
forward mode (tf.autodiff.ForwardAccumulator) turns into a JVP of 0, a wrong value.

Usage: python zeta_forward_in_x.py [MODULE]   (default tensorflow; any module with TF's names)
Prints both values; exits 1 while the module's JVP differs from the exact one, 0 when it agrees.
"""

import importlib
import sys

import numpy as np

tf = importlib.import_module(sys.argv[1] if len(sys.argv) > 1 else "tensorflow")
k = np.arange(2.0, 1e6)
exact = np.array([-np.sum(np.log(k) / k ** 4)])

x = tf.constant([4.0], dtype=tf.float64)
with tf.autodiff.ForwardAccumulator(x, tf.constant([1.0], dtype=tf.float64)) as accumulator:
    y = tf.math.zeta(x, tf.constant([1.0], dtype=tf.float64))
value = np.asarray(accumulator.jvp(y))
print(f"{tf.__name__}: {value.tolist()}")
print(f"exact: {exact.tolist()}")
sys.exit(0 if np.allclose(value, exact) else 1)
