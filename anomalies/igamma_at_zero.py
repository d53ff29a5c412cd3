"""TF anomaly 17: the gradient of math.igamma and math.igammac in x at a = 1, x = 0 is NaN (see TF_ANOMALIES.md).

The regularized lower incomplete gamma function P(a, x) has dP/dx = x^(a-1) e^(-x) / Gamma(a), the gamma
density. At a = 1, P(1, x) = 1 - e^(-x), so dP/dx = e^(-x) = 1 at x = 0 (the derivative from the right at
the end of the domain x >= 0, and the limit of the derivative there; the exponential density at 0), and
igammac = 1 - igamma has -1. TensorFlow's gradient function evaluates the density as
exp((a - 1) log(x) - x - lgamma(a)), where (a - 1) log(x) is 0 * (-inf) = NaN (betainc's guards this case).

Usage: python igamma_at_zero.py [MODULE]   (default tensorflow; any module with TF's names)
Prints both values; exits 1 while the module's gradients differ from the exact ones, 0 when they agree.
"""

import importlib
import sys

import numpy as np

tf = importlib.import_module(sys.argv[1] if len(sys.argv) > 1 else "tensorflow")
exact = np.array([1.0, -1.0])   # d igamma(1, x)/dx, d igammac(1, x)/dx at x = 0

a = tf.constant([1.0], dtype=tf.float64)
x = tf.constant([0.0], dtype=tf.float64)
with tf.GradientTape(persistent=True) as tape:
    tape.watch(x)
    lower, upper = tf.math.igamma(a, x), tf.math.igammac(a, x)
value = np.concatenate([np.asarray(tape.gradient(lower, x)), np.asarray(tape.gradient(upper, x))])
print(f"{tf.__name__}: {value.tolist()}")
print(f"exact: {exact.tolist()}")
sys.exit(0 if np.allclose(value, exact) else 1)
