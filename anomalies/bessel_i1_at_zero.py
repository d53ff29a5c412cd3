"""TF anomaly 15: the gradient of math.bessel_i1 at 0 is 1 where it is 1/2 (see TF_ANOMALIES.md).

I1(x) = x/2 + x³/16 + x⁵/384 + ... (the series sum over k of (x/2)^(2k+1) / (k! (k+1)!)), so I1'(0) = 1/2
exactly; the identity I1'(x) = I0(x) - I1(x)/x gives the same limit, 1 - 1/2. TensorFlow's gradient function
divides by x away from 0 and puts 1 in its place at x = 0.

Usage: python bessel_i1_at_zero.py [MODULE]   (default tensorflow; any module with TF's names)
Prints both values; exits 1 while the module's gradient differs from the exact one, 0 when it agrees.
"""

import importlib
import sys

import numpy as np

tf = importlib.import_module(sys.argv[1] if len(sys.argv) > 1 else "tensorflow")
exact = np.array([0.5])

x = tf.constant([0.0], dtype=tf.float64)
with tf.GradientTape() as tape:
    tape.watch(x)
    y = tf.math.bessel_i1(x)
value = np.asarray(tape.gradient(y, x))
print(f"{tf.__name__}: {value.tolist()}")
print(f"exact: {exact.tolist()}")
sys.exit(0 if np.allclose(value, exact) else 1)
