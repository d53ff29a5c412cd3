"""TF anomaly 20: the gradient of reduce_mean in float16 over more than 65504 elements is 0 (see TF_ANOMALIES.md).

The mean of n elements is their sum over n, so the gradient of each element is exactly 1/n: for n = 65536 = 2^16,
2^-16, a float16 subnormal held exactly. TensorFlow's gradient function converts the count n to the gradient's
dtype before dividing; 65536 is past float16's largest finite value (65504) and becomes inf, and the gradient
is 0. The mean itself (of zeros, 0) is right.

Usage: python reduce_mean_count_past_half_range.py [MODULE]   (default tensorflow; any module with TF's names)
Prints both values; exits 1 while the module's gradient differs from the exact one, 0 when it agrees.
"""

import importlib
import sys

import numpy as np

tf = importlib.import_module(sys.argv[1] if len(sys.argv) > 1 else "tensorflow")
n = 65536
exact = np.array([2.0 ** -16])

x = tf.zeros([n], dtype=tf.float16)
with tf.GradientTape() as tape:
    tape.watch(x)
    mean = tf.reduce_mean(x)
value = np.unique(np.asarray(tape.gradient(mean, x)).astype(np.float64))   # one value for every element
print(f"{tf.__name__}: {value.tolist()}")
print(f"exact: {exact.tolist()}")
sys.exit(0 if value.shape == exact.shape and np.array_equal(value, exact) else 1)
