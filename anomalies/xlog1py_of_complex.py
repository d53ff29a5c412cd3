"""TF anomaly 6: the gradient of xlog1py of complex tensors with respect to y misses a conjugate (see
TF_ANOMALIES.md).

xlog1py(x, y) = x * log1p(y) is holomorphic in y with derivative x / (1 + y). TensorFlow's convention for a
complex source with upstream 1 is the conjugate of the derivative (tests/harness/test_referee.py establishes
it on TF's own ops), so the exact gradient with respect to y is conj(x / (1 + y)). TensorFlow's gradient
function returns x / (1 + y) itself.

Usage: python xlog1py_of_complex.py [MODULE]   (default tensorflow; any module with TF's names)
Prints both values; exits 1 while the module's gradient differs from the exact one, 0 when it agrees.
"""

import importlib
import sys

import numpy as np

tf = importlib.import_module(sys.argv[1] if len(sys.argv) > 1 else "tensorflow")
x_value, y_value = np.array([1.0 - 0.25j, -0.5 + 0.5j]), np.array([0.5 + 0.5j, 0.75 - 0.5j])
exact = np.conj(x_value / (1 + y_value))

x, y = tf.constant(x_value), tf.constant(y_value)
with tf.GradientTape() as tape:
    tape.watch(y)
    z = tf.math.xlog1py(x, y)
value = np.asarray(tape.gradient(z, y))
print(f"{tf.__name__}: {value.tolist()}")
print(f"exact: {exact.tolist()}")
sys.exit(0 if np.allclose(value, exact) else 1)
