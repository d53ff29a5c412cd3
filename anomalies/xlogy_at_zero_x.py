"""TF anomaly 30: the gradient of xlogy(x, y) with respect to x is 0 at x = 0 (see TF_ANOMALIES.md).

xlogy(x, y) is defined as 0 where x = 0 and as x * log(y) otherwise. For a fixed y inside the function's
domain that is one smooth function of x, linear in it, whose derivative is log(y) everywhere, x = 0 included.
TensorFlow's gradient function multiplies the partial by a mask of x != 0, so at x = 0 it gives 0 (a choice that
keeps the gradient finite where y = 0, at the price of a wrong value wherever y is inside the domain); forward mode,
derived from the gradient function, gives 0 too.

Usage: python xlogy_at_zero_x.py [MODULE]   (default tensorflow; any module with TF's names)
Prints the gradient with respect to x at x = 0, y = 2; exits 1 while it differs from the exact log(y), 0 when it agrees.
"""

import importlib
import sys

import numpy as np

tf = importlib.import_module(sys.argv[1] if len(sys.argv) > 1 else "tensorflow")
exact = np.log(2.0)

x = tf.constant(0.0, dtype=tf.float64)
y = tf.constant(2.0, dtype=tf.float64)
with tf.GradientTape() as tape:
    tape.watch(x)
    z = tf.math.xlogy(x, y)
value = float(tape.gradient(z, x))
print(f"{tf.__name__}: {value}")
print(f"exact: {exact}  (log(y) at y = 2)")
sys.exit(0 if np.isclose(value, exact) else 1)
