"""TF anomaly 12: the gradient of linalg.sqrtm of a complex matrix misses a conjugate (see TF_ANOMALIES.md).

For the 1 x 1 matrix A = [[z]], sqrtm(A) = [[sqrt(z)]], holomorphic with derivative 1 / (2 sqrt(z)). TensorFlow's
convention for a complex source with upstream 1 is the conjugate of the derivative (tests/harness/test_referee.py
establishes it on TF's own ops), so at z = 3 + 4i (sqrt(z) = 2 + i) the exact gradient is
conj(1 / (4 + 2i)) = 0.2 + 0.1i. TensorFlow's gradient function solves the Sylvester equation with the transpose
of sqrtm(A) where its adjoint is needed, and returns the unconjugated 0.2 - 0.1i; right for real matrices.

Usage: python sqrtm_of_complex.py [MODULE]   (default tensorflow; any module with TF's names)
Prints both values; exits 1 while the module's gradient differs from the exact one, 0 when it agrees.
"""

import importlib
import sys

import numpy as np

tf = importlib.import_module(sys.argv[1] if len(sys.argv) > 1 else "tensorflow")
exact = np.array([[0.2 + 0.1j]])

a = tf.constant([[3.0 + 4.0j]])
with tf.GradientTape() as tape:
    tape.watch(a)
    root = tf.linalg.sqrtm(a)
value = np.asarray(tape.gradient(root, a))
print(f"{tf.__name__}: {value.tolist()}")
print(f"exact: {exact.tolist()}")
sys.exit(0 if np.allclose(value, exact) else 1)
