"""TF anomaly 24: the gradient of math.reduce_euclidean_norm of a complex tensor under a complex upstream (see TF_ANOMALIES.md).

For complex z the norm |z| is a real value in a complex dtype, so only the real part of an upstream gradient w
weighs it: by TensorFlow's convention (the gradient is dG/dRe(z) + i dG/dIm(z) for G = Re(conj(w) |z|),
tests/harness/test_referee.py) the exact gradient is Re(w) z / |z|. At z = [3 + 4i], w = 1 - i it is
(3 + 4i) / 5 = 0.6 + 0.8i. TensorFlow's gradient function returns w z / |z| = 1.4 + 0.2i, treating the norm
as holomorphic in z (as squared_difference and slogdet, entries 5 and 10); right for a real upstream.

Usage: python reduce_euclidean_norm_of_complex.py [MODULE]   (default tensorflow; any module with TF's names)
Prints both values; exits 1 while the module's gradient differs from the exact one, 0 when it agrees.
"""

import importlib
import sys

import numpy as np

tf = importlib.import_module(sys.argv[1] if len(sys.argv) > 1 else "tensorflow")
exact = np.array([0.6 + 0.8j])

z = tf.constant([3.0 + 4.0j])
with tf.GradientTape() as tape:
    tape.watch(z)
    norm = tf.math.reduce_euclidean_norm(z)
value = np.asarray(tape.gradient(norm, z, output_gradients=tf.constant(1.0 - 1.0j, dtype=tf.complex128)))
print(f"{tf.__name__}: {value.tolist()}")
print(f"exact: {exact.tolist()}")
sys.exit(0 if np.allclose(value, exact) else 1)
