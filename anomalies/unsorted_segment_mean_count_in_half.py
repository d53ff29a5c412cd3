"""TF anomaly 19: math.unsorted_segment_mean in float16 counts a segment's elements in float16 (see TF_ANOMALIES.md).

unsorted_segment_mean of n elements in one segment is their sum over n, so the gradient of each element is
exactly 1/n: for n = 4096, 2^-12, which float16 holds exactly. TensorFlow computes the op as a composite that
counts the elements by summing ones in the data's dtype; float16's integers stop at 2048 (2048 + 1 rounds back
to 2048), so every element's gradient is 1/2048, twice the exact value. (With zeros as data the value, 0, is
right; unsorted_segment_sqrt_n shares the count.)

Usage: python unsorted_segment_mean_count_in_half.py [MODULE]   (default tensorflow; any module with TF's names)
Prints both values; exits 1 while the module's gradient differs from the exact one, 0 when it agrees.
"""

import importlib
import sys

import numpy as np

tf = importlib.import_module(sys.argv[1] if len(sys.argv) > 1 else "tensorflow")
n = 4096
exact = np.array([2.0 ** -12])

x = tf.zeros([n], dtype=tf.float16)
with tf.GradientTape() as tape:
    tape.watch(x)
    mean = tf.math.unsorted_segment_mean(x, tf.zeros([n], dtype=tf.int32), num_segments=1)
value = np.unique(np.asarray(tape.gradient(mean, x)).astype(np.float64))   # one value for every element
print(f"{tf.__name__}: {value.tolist()}")
print(f"exact: {exact.tolist()}")
sys.exit(0 if value.shape == exact.shape and np.array_equal(value, exact) else 1)
