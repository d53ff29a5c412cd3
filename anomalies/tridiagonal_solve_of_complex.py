"""TF anomaly 13: the gradient of linalg.tridiagonal_solve of a complex system misses conjugates (see TF_ANOMALIES.md).

For one equation (M = 1) the system is d x = b, so x = b / d: holomorphic, with dx/db = 1 / d and
dx/dd = -b / d². TensorFlow's convention for a complex source with upstream 1 is the conjugate of the derivative
(tests/harness/test_referee.py establishes it on TF's own ops), so at d = 1 + i, b = 1 the exact gradients are
conj(1 / d) = 0.5 + 0.5i for b and conj(-1 / d²) = -0.5i for d (the compact diagonals [[0], [d], [0]]: the
superdiagonal's last and the subdiagonal's first element are not read, their gradient is 0). TensorFlow's
gradient function solves with the transposed matrix where the adjoint is needed and multiplies by x
unconjugated, returning 0.5 - 0.5i and 0.5i; right for real systems.

Usage: python tridiagonal_solve_of_complex.py [MODULE]   (default tensorflow; any module with TF's names)
Prints both values; exits 1 while the module's gradients differ from the exact ones, 0 when they agree.
"""

import importlib
import sys

import numpy as np

tf = importlib.import_module(sys.argv[1] if len(sys.argv) > 1 else "tensorflow")
exact = np.array([0.0, -0.5j, 0.0, 0.5 + 0.5j])   # d(x)/d(diagonals), then d(x)/d(b)

diagonals = tf.constant([[0.0j], [1.0 + 1.0j], [0.0j]])
b = tf.constant([[1.0 + 0.0j]])
with tf.GradientTape() as tape:
    tape.watch([diagonals, b])
    x = tf.linalg.tridiagonal_solve(diagonals, b)
value = np.concatenate([np.asarray(g).ravel() for g in tape.gradient(x, [diagonals, b])])
print(f"{tf.__name__}: {value.tolist()}")
print(f"exact: {exact.tolist()}")
sys.exit(0 if np.allclose(value, exact) else 1)
