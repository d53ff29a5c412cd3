"""TF anomaly 9: the gradient of linalg.det of a complex matrix misses a conjugate (see TF_ANOMALIES.md).

det(A) is holomorphic in A with d det / d A_ij = det(A) (A^-1)_ji. TensorFlow's convention for a complex source
with upstream 1 is the conjugate of the derivative (tests/harness/test_referee.py establishes it on TF's own
ops), so the exact gradient is conj(det(A)) * conj(A^-T) = conj(det(A)) * A^-H. TensorFlow's gradient function
multiplies A^-H by det(A) itself, right only where the determinant is real.

Usage: python det_of_complex.py [MODULE]   (default tensorflow; any module with TF's names)
Prints both values; exits 1 while the module's gradient differs from the exact one, 0 when it agrees.
"""

import importlib
import sys

import numpy as np

tf = importlib.import_module(sys.argv[1] if len(sys.argv) > 1 else "tensorflow")
a_value = np.array([[2.0 + 1.0j, 0.5 - 0.25j], [-0.75 + 0.5j, 1.5 - 0.5j]])
exact = np.conj(np.linalg.det(a_value)) * np.linalg.inv(a_value).conj().T

a = tf.constant(a_value)
with tf.GradientTape() as tape:
    tape.watch(a)
    d = tf.linalg.det(a)
value = np.asarray(tape.gradient(d, a))
print(f"{tf.__name__}: {value.tolist()}")
print(f"exact: {exact.tolist()}")
sys.exit(0 if np.allclose(value, exact) else 1)
