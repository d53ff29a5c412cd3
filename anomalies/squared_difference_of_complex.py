"""TF anomaly 5: the gradient of squared_difference of complex tensors under a complex upstream gradient
(see TF_ANOMALIES.md).

For complex x and y TensorFlow's squared_difference is (x - y) * conj(x - y) = |x - y|^2, a real value held in
a complex dtype. TF's gradient convention for a complex source z with upstream w is dG/dRe(z) + i dG/dIm(z),
G = Re(conj(w) * f) (the referee's tests/harness/test_referee.py establishes it on TF's own ops). With f real,
G = Re(w) |x - y|^2, so the gradient with respect to x is 2 Re(w) (x - y). TensorFlow's gradient function
returns 2 w (x - y): right for a real upstream (the default, ones), wrong wherever w has an imaginary part.

Usage: python squared_difference_of_complex.py [MODULE]   (default tensorflow; any module with TF's names)
Prints both values; exits 1 while the module's gradient differs from the exact one, 0 when it agrees.
"""

import importlib
import sys

import numpy as np

tf = importlib.import_module(sys.argv[1] if len(sys.argv) > 1 else "tensorflow")
x_value, y_value, w_value = np.array([1.5 + 0.5j]), np.array([-0.25 + 1.0j]), np.array([2.0 - 1.0j])
exact = 2 * w_value.real * (x_value - y_value)

x, y = tf.constant(x_value), tf.constant(y_value)
with tf.GradientTape() as tape:
    tape.watch(x)
    f = tf.math.squared_difference(x, y)
value = np.asarray(tape.gradient(f, x, output_gradients=tf.constant(w_value)))
print(f"{tf.__name__}: {value.tolist()}")
print(f"exact: {exact.tolist()}")
sys.exit(0 if np.allclose(value, exact) else 1)
