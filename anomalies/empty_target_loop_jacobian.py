"""TF anomaly 29: the jacobian without pfor of an empty target, run eagerly, is float32 (see TF_ANOMALIES.md).

y = zeros([0], float64) * x has no element, so its jacobian by a scalar float64 x has shape [0] and, like every
jacobian, the target's dtype: float64. Without pfor, `GradientTape.jacobian` loops over the target's elements
(`for_loop`, tensorflow/python/ops/parallel_for/control_flow_ops.py). Eagerly a loop of no iterations never
learns its outputs, and the fallback it then takes is one `zeros([0])` of the default dtype, float32, whatever the
target's dtype and the sources: with two sources it fails to pack, and with a non-scalar source it fails to take
the jacobian's shape (ValueError in both). Traced in `tf.function`, the same call gives float64 of the right
shape, and so does the vectorized (pfor) jacobian.

Usage: python empty_target_loop_jacobian.py [MODULE]   (default tensorflow; any module with TF's names)
Prints the eager jacobian's dtype and shape; exits 1 while the dtype is not the target's, 0 when it is.
"""

import importlib
import sys

tf = importlib.import_module(sys.argv[1] if len(sys.argv) > 1 else "tensorflow")

x = tf.constant(1.5, dtype=tf.float64)
with tf.GradientTape(persistent=True) as tape:
    tape.watch(x)
    y = tf.zeros([0], dtype=tf.float64) * x
jacobian = tape.jacobian(y, x, experimental_use_pfor=False)
vectorized = tape.jacobian(y, x)
print(f"{tf.__name__}: {jacobian.dtype.name} {list(jacobian.shape)}  (vectorized: {vectorized.dtype.name} "
      f"{list(vectorized.shape)})")
print("exact: float64 [0]  (the target's dtype, with the target's shape followed by the source's)")
sys.exit(0 if jacobian.dtype == tf.float64 and list(jacobian.shape) == [0] else 1)
