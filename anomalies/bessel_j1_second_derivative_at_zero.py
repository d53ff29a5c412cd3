"""TF anomaly 16: the second derivative of math.special.bessel_j1 at 0 is NaN where it is 0 (see TF_ANOMALIES.md).

J1(x) = x/2 - x³/16 + x⁵/384 - ... is odd and analytic, so J1''(0) = 0 exactly (the first derivative, 1/2 at 0,
is even). TensorFlow's gradient function selects 1/2 at x = 0 with a `where` whose other branch,
J0(x) - J1(x)/x, divides by x; differentiating the gradient sends a zero upstream into that masked branch,
and 0 / 0 is NaN.

Usage: python bessel_j1_second_derivative_at_zero.py [MODULE]   (default tensorflow; any module with TF's names)
Prints both values; exits 1 while the module's second derivative differs from the exact one, 0 when it agrees.
"""

import importlib
import sys

import numpy as np

tf = importlib.import_module(sys.argv[1] if len(sys.argv) > 1 else "tensorflow")
exact = np.array([0.0])

x = tf.constant([0.0], dtype=tf.float64)
with tf.GradientTape() as outer:
    outer.watch(x)
    with tf.GradientTape() as inner:
        inner.watch(x)
        y = tf.math.special.bessel_j1(x)
    first = inner.gradient(y, x)
value = np.asarray(outer.gradient(first, x))
print(f"{tf.__name__}: {value.tolist()}")
print(f"exact: {exact.tolist()}")
sys.exit(0 if np.allclose(value, exact) else 1)
