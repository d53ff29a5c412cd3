"""TF anomaly 4: a nested forward-mode JVP computed by a stale traced function (see TF_ANOMALIES.md).

TensorFlow computes each op's JVP in a traced function, cached; an accumulator around another computes
the JVP of that function call. After the nested JVP of tf.norm, the nested JVP of
sigmoid_cross_entropy_with_logits comes out wrong: the process's history changes the answer (run alone,
the same computation is right).

loss(l, z) = max(z, 0) - z*l + log(1 + exp(-|z|)), so the inner JVP along (dl_i, dz_i) is
(sigmoid(z) - l)*dz_i - z*dl_i, and its derivative along (dl_o, dz_o), the outer JVP, is
sigmoid(z)*(1 - sigmoid(z))*dz_o*dz_i - dl_o*dz_i - dz_o*dl_i.

Usage: python stale_nested_jvp_function.py [MODULE]   (default tensorflow; any module with TF's names)
Prints both values; exits 1 while the module's nested JVP differs from the exact one, 0 when it agrees.
"""

import importlib
import sys

import numpy as np

tf = importlib.import_module(sys.argv[1] if len(sys.argv) > 1 else "tensorflow")
FA = tf.autodiff.ForwardAccumulator
rng = np.random.default_rng(0)


def nested_jvp(f, primals):
    outer_tangents = [rng.uniform(-2, 2, p.shape) for p in primals]
    inner_tangents = [rng.uniform(-2, 2, p.shape) for p in primals]
    with FA(primals, [tf.constant(t) for t in outer_tangents]) as outer:
        with FA(primals, [tf.constant(t) for t in inner_tangents]) as inner:
            y = f(*primals)
        jvp = inner.jvp(y)
    return np.asarray(outer.jvp(jvp)), outer_tangents, inner_tangents


nested_jvp(tf.norm, [tf.constant(rng.uniform(-2, 2, (3, 4)))])  # the history: norm's nested JVP first

l, z = rng.uniform(0, 1, (3, 4)), rng.uniform(-2, 2, (3, 4))
value, (dl_o, dz_o), (dl_i, dz_i) = nested_jvp(
    lambda labels, logits: tf.nn.sigmoid_cross_entropy_with_logits(labels=labels, logits=logits),
    [tf.constant(l), tf.constant(z)])
s = 1 / (1 + np.exp(-z))
exact = s * (1 - s) * dz_o * dz_i - dl_o * dz_i - dz_o * dl_i
print(f"{tf.__name__}: {value[0].tolist()}")
print(f"exact: {exact[0].tolist()}")
sys.exit(0 if np.allclose(value, exact) else 1)
