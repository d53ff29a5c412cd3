"""TF anomaly 11: the vectorized jacobian of a sparse segment reduction with num_segments (see TF_ANOMALIES.md).

y = sparse.segment_sqrt_n(v, indices=[0, 0, 0], segment_ids=[0, 0, 2], num_segments=4) for one v is
[2v / sqrt(2), 0, v, 0] (segments 1 and 3 are empty), so dy/dv is exactly [sqrt(2), 0, 1, 0]. TensorFlow's
unvectorized jacobian (experimental_use_pfor=False) and its gradient agree with it; the default vectorized
jacobian puts the third segment's derivative in the second row.

Usage: python sparse_segment_jacobian_with_num_segments.py [MODULE]   (default tensorflow; any module with TF's names)
Prints both values; exits 1 while the module's jacobian differs from the exact one, 0 when it agrees.
"""

import importlib
import sys

import numpy as np

tf = importlib.import_module(sys.argv[1] if len(sys.argv) > 1 else "tensorflow")
exact = np.array([np.sqrt(2.0), 0.0, 1.0, 0.0])

v = tf.Variable([-2.0], dtype=tf.float64)
with tf.GradientTape() as tape:
    y = tf.sparse.segment_sqrt_n(v, indices=[0, 0, 0], segment_ids=[0, 0, 2], num_segments=4)
value = np.asarray(tape.jacobian(y, v)).ravel()
print(f"{tf.__name__}: {value.tolist()}")
print(f"exact: {exact.tolist()}")
sys.exit(0 if np.allclose(value, exact) else 1)
