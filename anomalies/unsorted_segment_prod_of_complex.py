"""TF anomaly 22: the gradient of math.unsorted_segment_prod of complex tensors misses a conjugate (see TF_ANOMALIES.md).

For x = [x0, x1] in one segment, unsorted_segment_prod is x0 x1, holomorphic, with derivatives x1 and x0.
TensorFlow's convention for a complex source with upstream 1 is the conjugate of the derivative
(tests/harness/test_referee.py establishes it on TF's own ops; reduce_prod's gradient follows it), so
at x = [1 + i, 2 - i] the exact gradient is [conj(x1), conj(x0)] = [2 + i, 1 - i].
TensorFlow's gradient function returns [x1, x0] unconjugated, right only for real tensors.

Usage: python unsorted_segment_prod_of_complex.py [MODULE]   (default tensorflow; any module with TF's names)
Prints both values; exits 1 while the module's gradient differs from the exact one, 0 when it agrees.
"""

import importlib
import sys

import numpy as np

tf = importlib.import_module(sys.argv[1] if len(sys.argv) > 1 else "tensorflow")
exact = np.array([2.0 + 1.0j, 1.0 - 1.0j])

x = tf.constant([1.0 + 1.0j, 2.0 - 1.0j])
with tf.GradientTape() as tape:
    tape.watch(x)
    y = tf.math.unsorted_segment_prod(x, [0, 0], num_segments=1)
value = np.asarray(tape.gradient(y, x))
print(f"{tf.__name__}: {value.tolist()}")
print(f"exact: {exact.tolist()}")
sys.exit(0 if np.allclose(value, exact) else 1)
