"""TF anomaly 33: forward mode gives 0 for the derivative of a bilinear image.resize (see TF_ANOMALIES.md).

Bilinear resizing is linear in the image: each output pixel is a weighted sum of input pixels whose weights add
up to 1. So its JVP along a tangent v is the resize of v, and along a tangent of ones it is ones. TensorFlow
registers ResizeBilinearGrad (the kernel of the gradient) as not differentiable, and forward mode
(tf.autodiff.ForwardAccumulator), which TensorFlow derives by differentiating the gradient function, finds no
dependence: a JVP of None (0 with unconnected_gradients='zero'), a wrong value with no sign that anything is
missing. The second derivative through it is None too.

Usage: python resize_bilinear_forward.py [MODULE]   (default tensorflow; any module with TF's names)
Prints the JVP's first row and the exact one; exits 1 while the module's JVP differs from ones, 0 when it agrees.
"""

import importlib
import sys

import numpy as np

tf = importlib.import_module(sys.argv[1] if len(sys.argv) > 1 else "tensorflow")
exact = np.ones((1, 3, 5, 1))

x = tf.constant(np.arange(4.0).reshape(1, 2, 2, 1), dtype=tf.float32)
with tf.autodiff.ForwardAccumulator(x, tf.ones_like(x)) as accumulator:
    y = tf.image.resize(x, [3, 5], method="bilinear")
value = np.asarray(accumulator.jvp(y, unconnected_gradients=tf.UnconnectedGradients.ZERO))
print(f"{tf.__name__}: {value[0, 0, :, 0].tolist()} (first row of 3 x 5)")
print(f"exact: {exact[0, 0, :, 0].tolist()}")
sys.exit(0 if np.allclose(value, exact) else 1)
