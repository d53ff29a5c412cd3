"""`tf.autodiff.ForwardAccumulator` against live TensorFlow: the JVP of every catalog op at random inputs
and random tangents, for the catalog's dtypes; then the accumulator's semantics (unconnected tangents,
structures, Variables, nesting with other accumulators and with tapes, Hessian-vector products, the
errors on misuse, ops without a gradient, custom gradients, control flow); and a planted fault showing
the per-op comparison fires.

Each case runs on TensorFlow and on the candidate; values, dtypes, shapes, Nones and exception classes
must agree under the tolerance model (`reftape_properties.judge.tolerance`).
"""

from __future__ import annotations

import sys
import zlib
from typing import Any

import ml_dtypes
import numpy as np
import pytest

from reftape_oracle.catalog import CATALOG, apply
from reftape_oracle.outcome import describe, describe_error
from reftape_properties.conformance.snippet_outcomes import both_outcomes, reference_faults
from reftape_properties.judge.compare import compare_values

from .marks import needs, op_needs, snippets
from .planted import planted_backend
from .test_ops import CASES, Case, _draw, _inputs_for, _tolerance

ACCUMULATOR = "tf.autodiff.ForwardAccumulator"   # a tf. name: support.py looks it up on the candidate

# ---------------------------------------------------------------------------------------------
# Every catalog op: JVP at random inputs with random tangents


def _tangent(rng: np.random.Generator, x: np.ndarray) -> np.ndarray:
    """A random tangent shaped and typed like the primal `x` (bfloat16 drawn in float32, rounded)."""
    drawn = np.dtype("float32") if x.dtype == ml_dtypes.bfloat16 else x.dtype
    return np.asarray(_draw(rng, x.shape, "any", drawn)).astype(x.dtype)


def run_jvp(ns: Any, case: Case, inputs: list[np.ndarray], seed: int) -> dict:
    """A description of [outputs, their JVPs] (or the exception) for one case on one namespace, every
    input a primal with a random tangent of its own dtype."""
    rng = np.random.default_rng(seed)
    tensors = [ns.constant(x) for x in inputs]
    tangents = [ns.constant(_tangent(rng, x)) for x in inputs]
    try:
        with ns.autodiff.ForwardAccumulator(tensors, tangents) as acc:
            out = apply(ns, case.spec.path, tensors, case.attrs)
        outs = out if isinstance(out, list) else [out]
        jvps = acc.jvp(outs)
    except Exception as exc:  # noqa: BLE001 - an exception is an outcome to compare
        return describe_error(exc, ns)
    return describe([outs, jvps], ns)


def _assert_jvps_agree(case: Case, dtype: str, tf: Any, candidate: Any) -> None:
    seed = zlib.crc32(f"jvp-{case.id}-{dtype}".encode())
    inputs = _inputs_for(case, dtype, seed)
    expected, actual = run_jvp(tf, case, inputs, seed), run_jvp(candidate, case, inputs, seed)
    found = compare_values(expected, actual, tolerance_for=_tolerance(case))
    assert not found, "\n".join(d.summary() for d in found)


def _jvp_dtypes(index: int, listed: tuple) -> list[str]:
    """The dtypes a case's JVP is checked in: float64 and complex128 (the catalog lists their single-precision
    twins wherever it lists them, which differ only in the kernels' precision that test_ops.py checks), and
    for every third case a half type, float16 and bfloat16 in turn. TensorFlow traces a function for each
    op, dtype and shape it computes a JVP of (some 75 ms each): every dtype of every op (1756 cases, over
    three minutes on two cores) would take the file past its budget."""
    half = (("float16", "bfloat16") if index % 6 == 0 else ("bfloat16", "float16")) if index % 3 == 0 else ()
    chosen = [d for d in ("float64", "complex128") if d in listed] + [next((d for d in half if d in listed), None)]
    return [d for d in chosen if d is not None] or list(listed[:1])


JVP_CASES = [(case, dtype) for index, case in enumerate(CASES) for dtype in _jvp_dtypes(index, tuple(case.spec.dtypes))]


@pytest.mark.parametrize("case,dtype", [
    pytest.param(case, dtype, marks=needs(ACCUMULATOR, *op_needs(case.spec.path, case.attrs)), id=f"{case.id}-{dtype}")
    for case, dtype in JVP_CASES])
def test_op_jvp_matches_tensorflow(case, dtype, tf, candidate):
    _assert_jvps_agree(case, dtype, tf, candidate)



# Second order through forward mode, float64, each op's first attribute variant: an accumulator around
# another (the JVP of the JVP) and a tape around an accumulator (the gradient of a weighted JVP: a
# Hessian-vector product for a scalar). Labels of softmax_cross_entropy_with_logits are held constant:
# TF's second order in them depends on op determinism (KNOWN_DIVERGENCES.md 1).
LABELS_HELD_CONSTANT = {"nn.softmax_cross_entropy_with_logits"}


def _forget_traced_jvp_functions(ns: Any) -> None:
    """TensorFlow keeps the functions it traced to compute JVPs in a cache, and an outer accumulator can be
    served a function traced for another op's computation: nested JVPs then depend on what ran before in
    the process (norm's nested JVP, then sigmoid_cross_entropy_with_logits', gives a wrong second
    derivative that a central difference of the first refutes). Each case starts TF from an empty cache."""
    forwardprop = sys.modules.get("tensorflow.python.eager.forwardprop")
    if forwardprop is not None and getattr(ns, "__name__", "") == "tensorflow":
        forwardprop._jvp_function_cache.clear()


def run_nested_jvp(ns: Any, case: Case, inputs: list[np.ndarray], seed: int) -> dict:
    """[inner JVPs, the outer accumulator's JVPs of them], each accumulator with tangents of its own."""
    _forget_traced_jvp_functions(ns)
    rng = np.random.default_rng(seed)
    tensors = [ns.constant(x) for x in inputs]
    primals = tensors[1:] if case.spec.path in LABELS_HELD_CONSTANT else tensors
    outer_tangents, inner_tangents = ([ns.constant(_tangent(rng, x.numpy())) for x in primals] for _ in range(2))
    try:
        with ns.autodiff.ForwardAccumulator(primals, outer_tangents) as outer:
            with ns.autodiff.ForwardAccumulator(primals, inner_tangents) as inner:
                out = apply(ns, case.spec.path, tensors, case.attrs)
            outs = out if isinstance(out, list) else [out]
            jvps = inner.jvp(outs)
        second = outer.jvp(jvps)
    except Exception as exc:  # noqa: BLE001 - an exception is an outcome to compare
        return describe_error(exc, ns)
    return describe([jvps, second], ns)


def run_gradient_of_jvp(ns: Any, case: Case, inputs: list[np.ndarray], seed: int) -> dict:
    """[JVPs, the gradient of their weighted sum with respect to the primals and tangents] under a tape
    entered before the accumulator."""
    _forget_traced_jvp_functions(ns)
    rng = np.random.default_rng(seed)
    tensors = [ns.constant(x) for x in inputs]
    primals = tensors[1:] if case.spec.path in LABELS_HELD_CONSTANT else tensors
    tangents = [ns.constant(_tangent(rng, x.numpy())) for x in primals]
    try:
        with ns.GradientTape() as tape:
            tape.watch(primals + tangents)
            with ns.autodiff.ForwardAccumulator(primals, tangents) as acc:
                out = apply(ns, case.spec.path, tensors, case.attrs)
            jvps = acc.jvp(out if isinstance(out, list) else [out])
            weighted = [ns.reduce_sum(j * ns.constant(_draw(rng, tuple(j.shape), "any", j.dtype.as_numpy_dtype)))
                        for j in jvps if j is not None]
        second = tape.gradient(weighted, primals + tangents)
    except Exception as exc:  # noqa: BLE001 - an exception is an outcome to compare
        return describe_error(exc, ns)
    return describe([jvps, second], ns)


FIRST_VARIANTS = list({case.spec.path: case for case in reversed(CASES) if "float64" in case.spec.dtypes}.values())[::-1]
# Each op in one of the two forms, in turn: both for every op would take the file past its budget.
SECOND_ORDER_CASES = [(case, (run_gradient_of_jvp, run_nested_jvp)[index % 2]) for index, case in enumerate(FIRST_VARIANTS)]


# Second orders through forward mode where reftape and TF part (KNOWN_DIVERGENCES.md, "Forward mode's second order
# through the ops of issue 24"): by op path and form; each must still differ (the test below), never agree silently
SECOND_ORDER_DIVERGENCES = {
    # TF's nested accumulators meet the IndexedSlices of these ops' gradients and fail (AttributeError: no _id)
    **{(p, "nested_accumulators"): "TF fails on an IndexedSlices inside nested accumulators"
       for p in ("math.segment_mean", "math.segment_max", "math.unsorted_segment_min", "math.unsorted_segment_prod",
                 "math.unsorted_segment_sqrt_n")},
    # TF's message for IgammaGradA's missing gradient depends on where its traced JVP function meets it
    ("math.igamma", "nested_accumulators"): "LookupError of another message",
    ("math.igammac", "tape_around"): "LookupError of another message",
    ("linalg.expm", "nested_accumulators"): "values of 1e16 and more in both, differing: not yet explained",
}


def _form(run: Any) -> str:
    return "tape_around" if run is run_gradient_of_jvp else "nested_accumulators"


def _second_order_outcomes(case: Case, run: Any, tf: Any, candidate: Any) -> list:
    seed = zlib.crc32(f"jvp2-{case.id}".encode())
    inputs = _inputs_for(case, "float64", seed)
    return compare_values(run(tf, case, inputs, seed), run(candidate, case, inputs, seed), tolerance_for=_tolerance(case))


@pytest.mark.parametrize("case,run", [
    pytest.param(case, run, marks=needs(ACCUMULATOR, *op_needs(case.spec.path, case.attrs)), id=f"{case.id}-{_form(run)}")
    for case, run in SECOND_ORDER_CASES if (case.spec.path, _form(run)) not in SECOND_ORDER_DIVERGENCES])
def test_op_second_order_forward_mode_matches_tensorflow(case, run, tf, candidate):
    found = _second_order_outcomes(case, run, tf, candidate)
    assert not found, "\n".join(d.summary() for d in found)


@pytest.mark.parametrize("case,run", [
    pytest.param(case, run, marks=needs(ACCUMULATOR, *op_needs(case.spec.path, case.attrs)), id=f"{case.id}-{_form(run)}")
    for case, run in SECOND_ORDER_CASES if (case.spec.path, _form(run)) in SECOND_ORDER_DIVERGENCES])
def test_known_second_order_forward_mode_divergence_still_reproduces(case, run, tf, rt):
    assert _second_order_outcomes(case, run, tf, rt), (
        f"{case.spec.path} ({_form(run)}) agrees with TF now: remove it from SECOND_ORDER_DIVERGENCES and "
        "KNOWN_DIVERGENCES.md")

# ---------------------------------------------------------------------------------------------
# Semantics: snippets run on both sides, `r` compared (exceptions by class where TF's message spells
# TF's own objects)

RAISED = ("def raised(f):\n    try:\n        f()\n    except Exception as error:\n        return type(error).__name__\n"
          "    return 'no error'\n")
SETUP = ("FA = tf.autodiff.ForwardAccumulator\nx = tf.constant([0.5, -1.5, 2.0]); v = tf.constant([1.0, 0.25, -2.0])\n"
         + RAISED)


def forward(computation: str, result: str, primals: str = "x", tangents: str = "v") -> str:
    """`computation` under an accumulator of `primals` with `tangents`; `r` is `result`."""
    return (SETUP + f"with FA({primals}, {tangents}) as acc:\n"
            + "".join(f"    {line}\n" for line in computation.split("\n")) + f"r = {result}")


UNCONNECTED = {
    "unconnected/none": forward("y = tf.sin(x) * x\nz = tf.constant(3.0) * 2.0", "[y, acc.jvp(y), acc.jvp(z)]"),
    "unconnected/zero_string": forward("z = tf.constant([1.0, 2.0]) * 2.0", "[acc.jvp(z, unconnected_gradients='zero'), "
                                       "acc.jvp(z, tf.UnconnectedGradients.ZERO)]"),
    "unconnected/zero_of_int_and_string": forward("i = tf.constant([1, 2])\ns = tf.constant(['a'])",
                                                  "[acc.jvp(i, unconnected_gradients='zero'), "
                                                  "acc.jvp(s, unconnected_gradients='zero')]"),
    "unconnected/zero_of_variable": forward("w = tf.Variable([1.0, 2.0])", "acc.jvp([w, {'a': w}], unconnected_gradients"
                                            "=tf.UnconnectedGradients.ZERO)"),
    "unconnected/primal_itself": forward("y = x * 1.0", "[acc.jvp(x), acc.jvp(x, unconnected_gradients='zero')]"),
    "unconnected/bad_value": forward("y = x * 2.0", "raised(lambda: acc.jvp(y, unconnected_gradients='sometimes'))"),
    "unconnected/outside_the_block": forward("y = x * 2.0", "[acc.jvp(x * 2.0), acc.jvp(y)]"),
    "unconnected/before_entering": SETUP + "acc = FA(x, v)\ny = x * 2.0\nwith acc:\n    z = y * x\nr = [acc.jvp(y), acc.jvp(z)]",
    "unconnected/integer_primal": forward("y = i * 2", "[acc.jvp(i), acc.jvp(y)]", "i", "tf.constant([1, 1])").replace(
        "with FA", "i = tf.constant([3, 4])\nwith FA"),
}

STRUCTURES = {
    "structure/list_and_dict": forward("y = tf.sin(x)\nz = x * x", "acc.jvp([y, {'b': z, 'a': (y, z)}])"),
    "structure/namedtuple": "import collections\nP = collections.namedtuple('P', 'a b')\n" + forward(
        "y = x * 2.0", "[acc.jvp(P(y, x)), acc.jvp({'b': y, 'a': x})]", "P(x, u)", "P(v, v)").replace(
        "with FA", "u = tf.constant([1.0, 2.0, 3.0])\nwith FA"),
    "structure/dict_primals": forward("y = x * u", "acc.jvp(y)", "{'x': x, 'u': u}",
                                      "{'u': tf.ones([3]), 'x': v}").replace("with FA", "u = tf.constant([1.0, 2.0, 3.0])\nwith FA"),
    "structure/two_primals": forward("y = x * s", "[acc.jvp(y), acc.jvp((x, s))]", "[x, s]", "[v, tf.constant(2.0)]").replace(
        "with FA", "s = tf.constant(3.0)\nwith FA"),
    "structure/python_and_numpy_tangents": forward("y = x * x", "acc.jvp(y)", "x", "np.array([1, 2, 3])"),
    "structure/multi_output_ops": forward("vals, idx = tf.math.top_k(x, 2)\nparts = tf.unstack(x)\nhalves = tf.split("
                                          "tf.concat([x, x], 0), 2)\nn = tf.identity_n([x, x * 2.0])",
                                          "[acc.jvp(vals), acc.jvp(idx), acc.jvp(parts), acc.jvp(halves), acc.jvp(n)]"),
    "structure/indexed_slices_tangents": SETUP + "u = tf.constant([[1.0, 2.0], [3.0, 4.0]])\n"
                                         "with FA(u, tf.constant([[1.0, -1.0], [0.5, 2.0]])) as acc:\n"
                                         "    y = tf.scatter_nd([[1], [0]], u, [3, 2])\n    z = y * 2.0\n"
                                         "    s = tf.math.unsorted_segment_sum(u, [0, 0], 2)\n    w = tf.sin(s)\n"
                                         "r = [acc.jvp(y), acc.jvp(z), acc.jvp(s), acc.jvp(w)]",
}

VARIABLES = {
    "variable/reads": forward("y = w * w\nr1 = w.read_value()\nr2 = w.value()\nr3 = tf.convert_to_tensor(w)\nr4 = tf.sin(w)",
                              "[acc.jvp(y), acc.jvp(w), acc.jvp([r1, r2, r3, r4])]", "w", "v").replace(
        "with FA", "w = tf.Variable([1.0, 2.0, 3.0])\nwith FA"),
    "variable/read_outside": "w = tf.Variable([1.0, 2.0])\n" + forward("y = w * 2.0", "[acc.jvp(y), acc.jvp(w.value()), "
                                                                       "acc.jvp(w)]", "w", "tf.constant([1.0, 3.0])"),
    "variable/assigned_inside": "w = tf.Variable([1.0, 2.0])\n" + forward("w.assign([3.0, 4.0])\ny = w * w",
                                                                          "[acc.jvp(y), acc.jvp(w)]", "w", "tf.constant([1.0, 0.5])"),
    "variable/not_a_primal": "w = tf.Variable(1.0)\n" + forward("w.assign(3.0)\ny = w * x", "[acc.jvp(w), acc.jvp(y)]"),
    "variable/not_trainable": "w = tf.Variable([1.0, 2.0], trainable=False)\n" + forward(
        "y = w * 2.0", "acc.jvp(y)", "w", "tf.constant([1.0, 0.5])"),
    "variable/mixed_with_tensor": "w = tf.Variable(1.5)\n" + forward("y = w * x", "acc.jvp(y)", "[w, x]",
                                                                     "[tf.constant(2.0), v]"),
    "variable/gather": "w = tf.Variable([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])\n" + forward(
        "y = tf.gather(w, [2, 0, 2])", "acc.jvp(y)", "w", "tf.reshape(tf.range(6.0), [3, 2])"),
    "variable/hvp_back_over_forward": SETUP + "w = tf.Variable([1.0, 2.0])\nwith tf.GradientTape() as t:\n"
                                      "    with FA(w, tf.constant([1.0, 0.5])) as acc:\n        y = tf.reduce_sum(w ** 3.0)\n"
                                      "    j = acc.jvp(y)\nr = [j, t.gradient(j, w)]",
    "variable/hvp_forward_over_back": SETUP + "w = tf.Variable([1.0, 2.0])\nwith FA(w, tf.constant([1.0, 0.0])) as acc:\n"
                                      "    with tf.GradientTape() as t:\n        y = tf.reduce_sum(w ** 3.0)\n"
                                      "    g = t.gradient(y, w)\nr = [g, acc.jvp(g)]",
}


NESTING = {
    "nesting/accumulators": "p = tf.constant(1.1)\nwith tf.autodiff.ForwardAccumulator(p, tf.constant(1.0)) as outer:\n"
                            "    with tf.autodiff.ForwardAccumulator(p, tf.constant(1.0)) as inner:\n"
                            "        y = p ** tf.constant(3.5)\nj = inner.jvp(y)\n"
                            "r = [j, outer.jvp(j), outer.jvp(y), inner.jvp(outer.jvp(y))]",
    "nesting/same_primal_two_tangents": forward("with FA(x, v * 3.0) as inner:\n    y = x * x", "[acc.jvp(y), inner.jvp(y)]"),
    "nesting/hvp_tape_outside": SETUP + "with tf.GradientTape() as t:\n    t.watch(x)\n    with FA(x, v) as acc:\n"
                                "        y = tf.reduce_sum(tf.sin(x) * x ** 2.0)\n    j = acc.jvp(y)\nr = [j, t.gradient(j, x)]",
    "nesting/hvp_forward_over_back": SETUP + "with FA(x, v) as acc:\n    with tf.GradientTape() as t:\n        t.watch(x)\n"
                                     "        y = tf.reduce_sum(tf.exp(x) * x ** 3.0)\n    g = t.gradient(y, x)\n"
                                     "r = [g, acc.jvp(g), acc.jvp(y)]",
    "nesting/tape_inside_sees_no_tangent_ops": SETUP + "with FA(x, v) as acc:\n    with tf.GradientTape(persistent=True) as t:\n"
                                               "        t.watch(x)\n        y = tf.reduce_sum(x ** 3.0)\n        j = acc.jvp(y)\n"
                                               "r = [j, t.gradient(j, x), t.gradient(y, x)]",
    "nesting/tape_acc_tape": SETUP + "with tf.GradientTape() as t1:\n    t1.watch(x)\n    with FA(x, v) as acc:\n"
                             "        with tf.GradientTape() as t2:\n            t2.watch(x)\n"
                             "            y = tf.reduce_sum(x ** 3.0)\n        g = t2.gradient(y, x)\n    j = acc.jvp(g)\n"
                             "r = [g, j, t1.gradient(j, x)]",
    "nesting/acc_tape_acc": "p = tf.constant(2.0)\nFA = tf.autodiff.ForwardAccumulator\nwith FA(p, tf.constant(1.0)) as a1:\n"
                            "    with tf.GradientTape() as t:\n        t.watch(p)\n        with FA(p, tf.constant(1.0)) as a2:\n"
                            "            y = p ** 4.0\n        j2 = a2.jvp(y)\n    g = t.gradient(j2, p)\n"
                            "r = [j2, g, a1.jvp(g), a1.jvp(j2)]",
    "nesting/gradient_with_respect_to_the_tangent": SETUP + "with tf.GradientTape() as t:\n    t.watch(v)\n"
                                                    "    with FA(x, v) as acc:\n        y = tf.reduce_sum(x ** 3.0)\n"
                                                    "    j = acc.jvp(y)\nr = t.gradient(j, v)",
    "nesting/tape_stop_recording": forward("with tf.GradientTape() as t:\n    with t.stop_recording():\n        y = x * 2.0",
                                           "acc.jvp(y)"),
    "nesting/jvp_of_a_gather_gradient": SETUP + "p = tf.constant([[1.0, 2.0], [3.0, 4.0]])\n"
                                        "with FA(p, tf.constant([[1.0, -1.0], [0.5, 2.0]])) as acc:\n"
                                        "    with tf.GradientTape() as t:\n        t.watch(p)\n"
                                        "        y = tf.reduce_sum(tf.gather(p, [1]) ** 2.0)\n    g = t.gradient(y, p)\n"
                                        "r = [type(g).__name__, acc.jvp(g.values), acc.jvp(g.indices), raised(lambda: acc.jvp(g))]",
}

ERRORS = {
    "error/structures_differ": SETUP + "r = [raised(lambda: FA([x], v)), raised(lambda: FA(x, [1.0, 2.0, 3.0])), "
                               "raised(lambda: FA({'a': x}, {'b': v}))]",
    "error/duplicate_primal": SETUP + "r = [raised(lambda: FA([x, x], [v, v])), raised(lambda: FA([x, x], [v]))]",
    "error/tangent_dtype": SETUP + "r = [raised(lambda: FA(x, tf.constant([1, 2, 3]))), "
                           "raised(lambda: FA(x, tf.constant([1.0, 2.0, 3.0], tf.float64))), "
                           "raised(lambda: FA(tf.constant([1, 2]), tf.constant([0.5, 1.0])))]",
    "error/tangent_shape_does_not_merge": SETUP + "def f():\n    with FA(x, tf.constant([1.0, 2.0])) as acc:\n"
                                          "        y = x * 2.0\n    return acc.jvp(y)\n"
                                          "acc = FA(x, tf.constant([1.0, 2.0]))\nr = [raised(f), acc.jvp(x)]",
    "error/none_tangent": SETUP + "r = raised(lambda: FA(x, None))",
    "error/primal_not_a_tensor": SETUP + "r = [raised(lambda: FA(1.0, 2.0)), raised(lambda: FA(None, None)), "
                                 "raised(lambda: FA([1.0], [2.0]))]",
    "error/jvp_of_non_tensors": SETUP + "acc = FA(x, v)\nr = [raised(lambda: acc.jvp(3.0)), raised(lambda: acc.jvp(None)), "
                                "raised(lambda: acc.jvp(np.ones(2))), raised(lambda: acc.jvp([x, 1.0]))]",
    "error/reentered": SETUP + "acc = FA(x, v)\ndef twice():\n    with acc:\n        with acc:\n            pass\n"
                       "r = raised(twice)",
    "error/exit_twice_is_quiet": SETUP + "acc = FA(x, v)\nwith acc:\n    y = x * 2.0\nacc.__exit__(None, None, None)\n"
                                 "r = acc.jvp(y)",
    "error/traced_dtype_refusal": SETUP + "h = tf.constant([0.5, 1.5], tf.float16)\ndef f():\n"
                                  "    with FA(h, tf.constant([1.0, 1.0], tf.float16)):\n        tf.math.digamma(h)\n"
                                  "r = raised(f)",
    "error/gather_nd_rows": SETUP + "p = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])\ndef f(indices):\n"
                            "    with FA(p, tf.ones([3, 2])) as acc:\n        return acc.jvp(tf.gather_nd(p, indices))\n"
                            "r = [raised(lambda: f([[2], [0]])), f([[2, 1], [0, 0]]), f([[[2], [0]]])]",
}

NO_GRADIENT = {
    "no_gradient/ops": forward("outs = [tf.round(x), tf.floor(x), tf.sign(x), tf.argmax(x), tf.equal(x, x), "
                               "tf.cast(x, tf.int32), tf.stop_gradient(x), tf.cast(tf.cast(x, tf.int32), tf.float32), "
                               "tf.shape(x), tf.zeros_like(x), tf.ones_like(x), tf.size(x), tf.math.floordiv(x, 1.0), "
                               "tf.math.floormod(x, 1.5), tf.math.is_finite(x)]", "[acc.jvp(outs), "
                               "acc.jvp(outs, unconnected_gradients='zero')]"),
    "no_gradient/casts": forward("d = tf.cast(x, tf.float64)\nh = tf.cast(x, tf.float16)\nc = tf.cast(x, tf.complex64)",
                                 "[acc.jvp(d), acc.jvp(h), acc.jvp(c), acc.jvp(tf.cast(c, tf.float32))]"),
    "no_gradient/integer_path": forward("i = tf.cast(x, tf.int32)\ny = tf.cast(i, tf.float32) * x", "[acc.jvp(i), acc.jvp(y)]"),
}

COMPLEX = {
    "complex/holomorphic_and_not": SETUP + "z = tf.constant([1 + 2j, 3 - 1j], tf.complex64)\n"
                                   "dz = tf.constant([0.5 + 1j, -1 + 0.25j], tf.complex64)\nwith FA(z, dz) as acc:\n"
                                   "    outs = [z * z, tf.math.conj(z), tf.abs(z), tf.math.real(z), tf.math.imag(z), tf.exp(z), "
                                   "tf.square(z), z / (z + 1.0), tf.sqrt(z)]\nr = acc.jvp(outs)",
    "complex/from_real": forward("z = tf.complex(x, 2.0 * x)\ny = tf.abs(z * z)", "[acc.jvp(z), acc.jvp(y)]"),
    "complex/float64": SETUP + "z = tf.constant([[1 + 2j, 3 - 1j], [0.5j, -2.0]], tf.complex128)\n"
                       "with FA(z, tf.ones_like(z) * (1 - 1j)) as acc:\n    y = tf.linalg.matmul(z, z, adjoint_b=True)\n"
                       "r = acc.jvp(y)",
    "complex/half_types": SETUP + "h = tf.constant([1.0, 2.0], tf.float16)\nb = tf.constant([1.0, 2.0], tf.bfloat16)\n"
                          "with FA([h, b], [tf.constant([0.5, 1.0], tf.float16), tf.constant([0.5, 1.0], tf.bfloat16)]) as acc:\n"
                          "    y = tf.exp(h)\n    s = tf.sin(b)\nr = [acc.jvp(y), acc.jvp(s)]",
}

CUSTOM = {
    "custom_gradient/forward_ops_seen": forward("@tf.custom_gradient\ndef f(t):\n    def grad(dy):\n        return dy * 100.0\n"
                                                "    return t * 3.0, grad\ny = f(x)", "acc.jvp(y)"),
    "custom_gradient/stopped_forward": forward("@tf.custom_gradient\ndef f(t):\n    def grad(dy):\n        return dy * 100.0\n"
                                               "    return tf.stop_gradient(t) * 3.0, grad\ny = f(x)", "acc.jvp(y)"),
    "custom_gradient/two_outputs": forward("@tf.custom_gradient\ndef f(t):\n    def grad(dy1, dy2):\n"
                                           "        return dy1 * 100.0 + dy2 * 5.0\n"
                                           "    return (tf.stop_gradient(t) * 3.0, t * 2.0), grad\ny = f(x)", "acc.jvp(y)"),
    "custom_gradient/grad_pass_through": forward("y = tf.grad_pass_through(tf.round)(x)", "acc.jvp(y)"),
    "custom_gradient/recompute_grad": SETUP + "def f():\n    with FA(x, v) as acc:\n        y = tf.recompute_grad(tf.sin)(x)\n"
                                      "    return acc.jvp(y)\nr = raised(f)",
}

CONTROL_FLOW = {
    "control_flow/cond": forward("y = tf.cond(tf.reduce_sum(x) > 0.0, lambda: tf.sin(x) * x, lambda: x)\n"
                                 "z = tf.cond(tf.constant(False), lambda: x, lambda: x * x)", "[acc.jvp(y), acc.jvp(z)]"),
    "control_flow/case_and_switch": forward("y = tf.case([(tf.reduce_sum(x) > 0.0, lambda: tf.exp(x))], default=lambda: x)\n"
                                            "z = tf.switch_case(tf.constant(1), [lambda: x, lambda: x ** 3.0])",
                                            "[acc.jvp(y), acc.jvp(z)]"),
    "control_flow/while_loop": forward("w = tf.while_loop(lambda i, s: i < 3, lambda i, s: (i + 1, s * x), "
                                       "(tf.constant(0), tf.ones_like(x)))", "acc.jvp(w)"),
    "control_flow/scan_map_fold": forward("sc = tf.scan(lambda a, e: a * e + e, x)\nmf = tf.map_fn(lambda e: e * e, x)\n"
                                          "fl = tf.foldl(lambda a, e: a * e, x)\nfr = tf.foldr(lambda a, e: a - e * e, x)\n"
                                          "vm = tf.vectorized_map(lambda e: tf.sin(e) * e, x)",
                                          "acc.jvp([sc, mf, fl, fr, vm])"),
    "control_flow/tensor_array": forward("arr = tf.TensorArray(tf.float32, size=2)\narr = arr.write(0, x * 2.0).write(1, "
                                         "tf.sin(x))\ns = arr.stack()\nrd = arr.read(1)", "[acc.jvp(s), acc.jvp(rd)]"),
    "control_flow/gradient_inside": forward("with tf.GradientTape() as t:\n    t.watch(x)\n"
                                            "    y = tf.while_loop(lambda i, s: i < 2, lambda i, s: (i + 1, tf.sin(s) * x), "
                                            "(0, x))[1]\ng = t.gradient(y, x)", "[acc.jvp(y), acc.jvp(g)]"),
}

SNIPPETS = {**UNCONNECTED, **STRUCTURES, **VARIABLES, **NESTING, **ERRORS, **NO_GRADIENT, **COMPLEX, **CUSTOM,
            **CONTROL_FLOW}


def _outcomes(code: str, tf: Any, candidate: Any) -> tuple[dict, dict]:
    """Both sides' outcomes, TF's from an empty JVP function cache: a function traced earlier in the process
    for the same op and shapes turns a tangent's shape error at tracing (ValueError) into one at run time
    (InvalidArgumentError), so TF's answer would depend on the tests run before."""
    _forget_traced_jvp_functions(tf)
    return both_outcomes(code, tf, candidate)


@pytest.mark.parametrize("name", snippets(SNIPPETS))
def test_forward_mode_snippet_matches_tensorflow(name, tf, candidate):
    expected, actual = _outcomes(SNIPPETS[name], tf, candidate)
    found = compare_values(expected, actual)
    assert not found, "\n".join(d.summary() for d in found)


def test_the_reference_runs_every_forward_mode_snippet(tf):
    assert not reference_faults(SNIPPETS, tf)


def test_error_snippets_raise_on_the_reference(tf):
    """The class-only error snippets would agree vacuously if nothing raised: TF raises in each `raised` call
    (f([[2, 1], [0, 0]]) and f([[[2], [0]]]) of gather_nd_rows are the JVPs TF computes)."""
    for name, code in ERRORS.items():
        if name == "error/exit_twice_is_quiet":  # raises nowhere
            continue
        outcome = _outcomes(code, tf, tf)[0]
        assert "no error" not in repr(outcome), (name, outcome)


# ---------------------------------------------------------------------------------------------
# The per-op comparison fires on a planted fault


@pytest.mark.parametrize("path,dtype", [("multiply", "complex128"), ("sin", "float64")])
def test_op_jvp_comparison_finds_a_planted_fault(path, dtype, tf):
    """tests/backends/wrong_jvp_backend.py conjugates Mul's tangents and doubles Sin's: its gradients are
    right, its JVPs are not, and the comparison says where."""
    planted = planted_backend("wrong_jvp_backend")
    case = next(c for c in CASES if c.spec.path == path)
    _assert_jvps_agree(Case(CATALOG["add"], {}), "float64", tf, planted)  # the rest of its forward mode is right
    with pytest.raises(AssertionError, match="value at"):
        _assert_jvps_agree(case, dtype, tf, planted)


def test_planted_conjugate_is_invisible_in_real_dtypes(tf):
    """The dropped conjugate only shows in complex dtypes: the float64 JVP of multiply agrees."""
    planted = planted_backend("wrong_jvp_backend")
    _assert_jvps_agree(next(c for c in CASES if c.spec.path == "multiply"), "float64", tf, planted)
