"""TF anomaly 3: the gradient of multiply_no_nan of complex tensors misses a conjugate (see TF_ANOMALIES.md).

f(x) = multiply_no_nan(x, y) = x * y is holomorphic in x with f'(x) = y. TensorFlow's convention for a
complex source with upstream 1 is the conjugate of the derivative (the gradient of `multiply` is conj(y)),
so the exact gradient is conj(y). TensorFlow's gradient function multiplies the upstream by y itself.

Usage: python multiply_no_nan_of_complex.py [MODULE]   (default tensorflow; any module with TF's names)
Prints both values; exits 1 while the module's gradient differs from the exact one, 0 when it agrees.
"""

import importlib
import sys

import numpy as np

tf = importlib.import_module(sys.argv[1] if len(sys.argv) > 1 else "tensorflow")
y_value = np.array([1.0 - 0.5j, -2.0 + 1.5j])
exact = np.conj(y_value)

x = tf.constant([0.25 + 1.0j, 2.0 - 0.75j], tf.complex128)
y = tf.constant(y_value, tf.complex128)
with tf.GradientTape() as tape:
    tape.watch(x)
    z = tf.math.multiply_no_nan(x, y)
value = np.asarray(tape.gradient(z, x))
print(f"{tf.__name__}: {value.tolist()}")
print(f"exact: {exact.tolist()}")
sys.exit(0 if np.allclose(value, exact) else 1)
