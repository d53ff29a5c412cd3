"""TF anomaly 23: the gradient of math.cumprod of complex tensors misses a conjugate (see TF_ANOMALIES.md).

cumprod([x0, x1]) = [x0, x0 x1], holomorphic; the derivative of the sum of its elements is [1 + x1, x0].
TensorFlow's convention for a complex source with upstream 1 is the conjugate of the derivative
(tests/harness/test_referee.py establishes it on TF's own ops; reduce_prod's gradient follows it), so
at x = [1 + i, 2 - i] the exact gradient is [conj(1 + x1), conj(x0)] = [3 + i, 1 - i].
TensorFlow's gradient function returns [3 - i, 1 + i], the unconjugated derivative (entries 1 and 2 are the same
function's wrong values at zeros).

Usage: python cumprod_of_complex.py [MODULE]   (default tensorflow; any module with TF's names)
Prints both values; exits 1 while the module's gradient differs from the exact one, 0 when it agrees.
"""

import importlib
import sys

import numpy as np

tf = importlib.import_module(sys.argv[1] if len(sys.argv) > 1 else "tensorflow")
exact = np.array([3.0 + 1.0j, 1.0 - 1.0j])

x = tf.constant([1.0 + 1.0j, 2.0 - 1.0j])
with tf.GradientTape() as tape:
    tape.watch(x)
    y = tf.math.cumprod(x)
value = np.asarray(tape.gradient(y, x))
print(f"{tf.__name__}: {value.tolist()}")
print(f"exact: {exact.tolist()}")
sys.exit(0 if np.allclose(value, exact) else 1)
