"""TF anomaly 25: forward mode gives 0 for the derivative of math.betainc in a (see TF_ANOMALIES.md).

The regularized incomplete beta function with b = 1 is I_x(a, 1) = x^a (the integral of a t^(a-1) from 0 to
x), so d/da I_x(a, 1) = x^a ln(x): at a = 2, x = 0.5 it is 0.25 ln(0.5) = -0.1733. TensorFlow's gradient
function returns None for a and b (their derivatives are not implemented), which the reverse mode reports as
no dependence and forward mode (tf.autodiff.ForwardAccumulator) turns into a JVP of 0, a wrong value.

Usage: python betainc_forward_in_a.py [MODULE]   (default tensorflow; any module with TF's names)
Prints both values; exits 1 while the module's JVP differs from the exact one, 0 when it agrees.
"""

import importlib
import sys

import numpy as np

tf = importlib.import_module(sys.argv[1] if len(sys.argv) > 1 else "tensorflow")
exact = np.array([0.25 * np.log(0.5)])

a = tf.constant([2.0], dtype=tf.float64)
with tf.autodiff.ForwardAccumulator(a, tf.constant([1.0], dtype=tf.float64)) as accumulator:
    y = tf.math.betainc(a, tf.constant([1.0], dtype=tf.float64), tf.constant([0.5], dtype=tf.float64))
value = np.asarray(accumulator.jvp(y))
print(f"{tf.__name__}: {value.tolist()}")
print(f"exact: {exact.tolist()}")
sys.exit(0 if np.allclose(value, exact) else 1)
