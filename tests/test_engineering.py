"""Engineering guarantees of reftape itself (no TensorFlow involved)."""

import gc
import subprocess
import sys
import weakref

import pytest

import reftape as rt


def test_reftape_never_imports_tensorflow():
    code = ("import sys, reftape as tf\n"
            "x = tf.constant([1.0, 2.0])\n"
            "with tf.GradientTape() as t:\n"
            "    t.watch(x)\n"
            "    y = tf.reduce_sum(tf.nn.softmax(x) * tf.math.log1p(x))\n"
            "t.gradient(y, x)\n"
            "assert not any(m == 'tensorflow' or m.startswith('tensorflow.') for m in sys.modules), 'TF imported'\n")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_hundred_thousand_op_chain_has_a_gradient():
    x = rt.constant(1.0, rt.float64)
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = x
        for _ in range(100_000):
            y = y * 1.0
    assert tape.gradient(y, x).numpy() == 1.0  # d/dx of x * 1**100000


def test_non_persistent_tape_releases_its_recording():
    x = rt.constant([1.0, 2.0])
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    recording = weakref.ref(tape._tape)
    tape.gradient(y, x)
    gc.collect()
    assert recording() is None
    with pytest.raises(RuntimeError):
        tape.gradient(y, x)


def test_backward_keeps_gradients_off_the_tensors():
    x = rt.constant([1.0, 2.0])
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = rt.exp(x)
    tape.gradient(y, x)
    assert not hasattr(y, "grad") and set(type(y).__slots__) == {"_value", "_dtype", "_id"}
