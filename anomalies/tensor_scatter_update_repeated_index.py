"""TF anomaly 28: tensor_scatter_nd_update with a repeated index credits every duplicate update (see TF_ANOMALIES.md).

y = tensor_scatter_nd_update(t, [[0], [0]], u) writes both rows of u to row 0 of t; one of them stays (which one
TF leaves unspecified; its CPU kernel keeps the last). Whichever stays, the derivative of y[0] by the two update
rows is 1 for that row and 0 for the other: the gradient of reduce_sum(y) by u sums to 1 over the two rows,
element by element. TensorFlow's gradient function gathers the upstream for every update row, so the two rows
sum to 2; forward mode, which TF derives from that gradient function, adds the two rows' tangents.

Usage: python tensor_scatter_update_repeated_index.py [MODULE]   (default tensorflow; any module with TF's names)
Prints the gradient's sum over the duplicate rows; exits 1 while it differs from the exact one (1), 0 when it agrees.
"""

import importlib
import sys

import numpy as np

tf = importlib.import_module(sys.argv[1] if len(sys.argv) > 1 else "tensorflow")
exact = np.array([1.0, 1.0])

t = tf.constant([[0.0, 0.0], [5.0, 6.0]], dtype=tf.float64)
u = tf.constant([[1.0, 2.0], [3.0, 4.0]], dtype=tf.float64)
with tf.GradientTape() as tape:
    tape.watch(u)
    y = tf.tensor_scatter_nd_update(t, [[0], [0]], u)
    total = tf.reduce_sum(y)
gradient = np.asarray(tape.gradient(total, u))
value = gradient.sum(axis=0)
print(f"{tf.__name__}: {value.tolist()}  (gradient by the two update rows: {gradient.tolist()})")
print(f"exact: {exact.tolist()}  (one row of ones and one of zeros; y[0] = {np.asarray(y)[0].tolist()})")
sys.exit(0 if np.allclose(value, exact) else 1)
