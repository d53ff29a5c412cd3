"""TF anomaly 10: the gradient of slogdet's log|det| of a complex matrix under a complex upstream gradient (see
TF_ANOMALIES.md).

For a complex matrix A, slogdet's second result is log|det(A)|, a real value held in a complex dtype, so only the
real part of an upstream gradient w weighs it: with G = Re(conj(w) log|det A|) = Re(w) log|det A|, TensorFlow's
convention (dG/dRe(A) + i dG/dIm(A)) gives the exact gradient Re(w) * A^-H. TensorFlow's gradient function
returns w * A^-H: right for a real upstream (the default), wrong wherever w has an imaginary part.

Usage: python slogdet_of_complex.py [MODULE]   (default tensorflow; any module with TF's names)
Prints both values; exits 1 while the module's gradient differs from the exact one, 0 when it agrees.
"""

import importlib
import sys

import numpy as np

tf = importlib.import_module(sys.argv[1] if len(sys.argv) > 1 else "tensorflow")
a_value = np.array([[2.0 + 1.0j, 0.5 - 0.25j], [-0.75 + 0.5j, 1.5 - 0.5j]])
w_value = np.array(1.0 - 0.5j)
exact = w_value.real * np.linalg.inv(a_value).conj().T

a = tf.constant(a_value)
with tf.GradientTape() as tape:
    tape.watch(a)
    _, log_abs_det = tf.linalg.slogdet(a)
value = np.asarray(tape.gradient(log_abs_det, a, output_gradients=tf.constant(w_value)))
print(f"{tf.__name__}: {value.tolist()}")
print(f"exact: {exact.tolist()}")
sys.exit(0 if np.allclose(value, exact) else 1)
