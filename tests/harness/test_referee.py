"""The referee: planted wrong gradients (real, complex, jacobian, batch_jacobian, second order) are
blamed on the candidate, the same values swapped are blamed on TensorFlow, kinks are
ill-conditioned, and the numerical estimate follows TensorFlow's complex convention. TensorFlow's
side always comes from live TensorFlow; planted faults live in the test backends of tests/backends/."""

import numpy as np
import pytest

from reftape_oracle import run
from reftape_oracle.outcome import Outcome, describe
from reftape_oracle.program import Assign, Call, Leaf, Op, Program, StopRecording, Tape, Watch
from reftape_properties.judge.compare import Discrepancy, compare
from reftape_properties.judge.referee import judge, referee


def value_claim(where: str, expected: list, actual: list, dtype: str) -> Discrepancy:
    """A value discrepancy as compare() reports it: the two tensor descriptions at `where`."""
    def tensor(data: list) -> dict:
        return {"kind": "tensor", "dtype": dtype, "shape": [len(data)], "data": data}
    return Discrepancy("value", where, tensor(expected), tensor(actual), dtype=dtype)


def array(values, dtype="float32"):
    return np.array(values, dtype)


def verdicts(program, candidate):
    """(where, verdict) of every discrepancy, candidate against TF and then with the sides swapped."""
    expected, actual = run(program, "tensorflow"), run(program, candidate)
    found = referee(program, compare(expected, actual, program), expected, actual)
    swapped = referee(program, compare(actual, expected, program), actual, expected)
    return [(d.where, d.verdict) for d in found], [(d.where, d.verdict) for d in swapped]


def decimals(estimate):
    """A recorded estimate back as a NumPy array (complex from [re, im] pairs)."""
    return np.array([complex(*x) if isinstance(x, list) else x for x in estimate])


# -- TensorFlow's complex convention, which the numerical estimate follows ---------------------

def test_tensorflow_complex_gradient_is_d_re_plus_i_d_im_of_re_conj_w_times_target(tf):
    z0, w0 = np.array([1 + 2j, -0.5 + 0.3j]), np.array([0.7 - 0.2j, 1.5 + 1j])
    z, w = tf.Variable(z0), tf.constant(w0)
    with tf.GradientTape(persistent=True) as tape:
        squared_modulus = tf.math.real(z * tf.math.conj(z))   # x^2 + y^2
        linear = 3.0 * tf.math.real(z) + 5.0 * tf.math.imag(z)
        holomorphic = tf.exp(z)
    np.testing.assert_allclose(tape.gradient(squared_modulus, z), 2 * z0)          # 2x + 2iy
    np.testing.assert_allclose(tape.gradient(linear, z), [3 + 5j, 3 + 5j])
    # G = Re(conj(w) exp(z)): dG/dx + i dG/dy = w conj(exp(z))
    np.testing.assert_allclose(tape.gradient(holomorphic, z, output_gradients=w), w0 * np.conj(np.exp(z0)))
    np.testing.assert_allclose(tape.jacobian(holomorphic, z), np.diag(np.conj(np.exp(z0))))
    x0 = np.array([0.3, 0.8])
    x = tf.Variable(x0)
    with tf.GradientTape() as tape:
        complex_target = tf.complex(x, 2.0 * x)
    np.testing.assert_allclose(tape.gradient(complex_target, x, output_gradients=w),   # Re(conj(w) (1 + 2i))
                               np.real(np.conj(w0) * (1 + 2j)))


MIXED_COMPLEX = Program([
    Leaf("z", "variable", array([0.4 + 0.9j, -1.1 + 0.2j, 0.7 - 0.5j], "complex128"), "complex128"),
    Leaf("w", "constant", array([0.3 - 1.2j, 1.5 + 0.4j, -0.6 + 0.8j], "complex128"), "complex128"),
    Tape("t", body=[Op("c", "math.conj", ["z"]), Op("p", "multiply", ["z", "c"]), Op("e", "exp", ["z"]),
                    Op("y", "add", ["p", "e"])]),
    Call("g", "t", "gradient", "y", "z", output_gradients={"list": ["w"]}),
], outputs=["y"])


def test_the_estimate_of_a_non_holomorphic_complex_gradient_matches_tensorflow():
    expected = run(MIXED_COMPLEX, "tensorflow")
    tf_gradient = expected.calls["g"]
    wrong = [[(float.fromhex(re) + 0.5).hex(), im] for re, im in tf_gradient["data"]]
    claim = value_claim("calls/g", tf_gradient["data"], wrong, "complex128")
    verdict, estimate = judge(MIXED_COMPLEX, claim, expected, expected)
    assert verdict == "candidate-wrong"
    tf_value = np.array([complex(float.fromhex(re), float.fromhex(im)) for re, im in tf_gradient["data"]])
    np.testing.assert_allclose(estimate, tf_value, rtol=1e-7)


# -- planted faults --------------------------------------------------------------------------

SIN = Program([
    Leaf("x", "constant", array([0.3, -1.2, 2.0]), "float32"),
    Tape("t", body=[Watch("t", ["x"]), Op("y", "sin", ["x"]), Op("s", "reduce_sum", ["y"])]),
    Call("g", "t", "gradient", "s", {"list": ["x"]}),
], outputs=["s"])


def test_a_wrong_vjp_is_blamed_on_the_candidate_and_the_estimate_is_recorded():
    assert verdicts(SIN, "wrong_vjp_backend") == ([("calls/g[0]", "candidate-wrong")],
                                                   [("calls/g[0]", "tensorflow-wrong")])
    expected, actual = run(SIN, "tensorflow"), run(SIN, "wrong_vjp_backend")
    [found] = referee(SIN, compare(expected, actual, SIN), expected, actual)
    x = array([0.3, -1.2, 2.0]).astype(np.float64)  # the float32 leaf, exactly
    np.testing.assert_allclose(found.estimate, np.cos(x), rtol=1e-12)  # complex step: exact to rounding
    assert all(type(x) is float for x in found.estimate)


def test_leaves_defined_inside_tapes_are_judged():
    nested = Program([
        Tape("t", body=[Leaf("x", "constant", array([0.3, -1.2, 2.0]), "float32"), Watch("t", ["x"]),
                        Op("y", "sin", ["x"]), Op("s", "reduce_sum", ["y"])]),
        Call("g", "t", "gradient", "s", {"list": ["x"]}),
    ], outputs=["s"])
    assert verdicts(nested, "wrong_vjp_backend")[0] == [("calls/g[0]", "candidate-wrong")]


def test_dict_sources_are_located_through_the_keys_tensorflow_returned():
    program = Program([
        Leaf("x", "variable", array([0.3, -1.2]), "float32"),
        Leaf("w", "variable", array([1.5, 0.5]), "float32"),
        Tape("t", body=[Op("y", "sin", ["x"]), Op("p", "multiply", ["y", "w"])]),
        Call("g", "t", "gradient", "p", {"dict": [["b", "w"], ["a", "x"]]}),
    ])
    found, swapped = verdicts(program, "wrong_vjp_backend")
    assert [verdict for _, verdict in found] == ["candidate-wrong"]      # only x's gradient is wrong
    assert [verdict for _, verdict in swapped] == ["tensorflow-wrong"]


def test_a_wrong_complex_gradient_and_jacobian_are_blamed_on_the_candidate():
    program = Program([
        Leaf("z", "variable", array([0.4 + 0.9j, -1.1 + 0.2j], "complex64"), "complex64"),
        Leaf("w", "constant", array([0.3 - 1.2j, 1.5 + 0.4j], "complex64"), "complex64"),
        Tape("t", persistent=True, body=[Op("e", "exp", ["z"]), Op("y", "multiply", ["e", "w"])]),
        Call("g", "t", "gradient", "e", "z", output_gradients={"list": ["w"]}),
        Call("j", "t", "jacobian", "y", "z"),
    ], outputs=["y"])
    assert verdicts(program, "wrong_conjugate_backend") == (
        [("calls/g", "candidate-wrong"), ("calls/j", "candidate-wrong")],
        [("calls/g", "tensorflow-wrong"), ("calls/j", "tensorflow-wrong")])


@pytest.mark.parametrize("use_pfor", [True, False])
def test_a_wrong_jacobian_and_batch_jacobian_are_blamed_on_the_candidate(use_pfor):
    program = Program([
        Leaf("x", "variable", array([[0.3, -1.2, 2.0], [0.7, 0.1, -0.4]]), "float32"),
        Leaf("c", "constant", array([1.5, -0.5, 0.25]), "float32"),
        Tape("t", persistent=True, body=[Watch("t", ["c"]), Op("m", "multiply", ["x", "c"]), Op("y", "sin", ["m"])]),
        Call("j", "t", "jacobian", "y", {"list": ["x", "c"]}, use_pfor=use_pfor),
        Call("bj", "t", "batch_jacobian", "y", "x", use_pfor=use_pfor),
    ], outputs=["y"])
    found, swapped = verdicts(program, "wrong_vjp_backend")
    wheres = ["calls/j[0]", "calls/j[1]", "calls/bj"]
    assert found == [(where, "candidate-wrong") for where in wheres]
    assert swapped == [(where, "tensorflow-wrong") for where in wheres]


def test_indexed_slices_are_judged_as_the_dense_gradient_they_stand_for():
    program = Program([
        Leaf("x", "variable", array([[0.3, -1.2], [2.0, 0.5], [0.1, 0.2]]), "float32"),
        Tape("t", body=[Op("rows", "gather", ["x"], {"indices": (2, 0, 2), "axis": 0}), Op("y", "sin", ["rows"])]),
        Call("g", "t", "gradient", "y", {"list": ["x"]}),
    ])
    assert verdicts(program, "wrong_vjp_backend") == ([("calls/g[0].values", "candidate-wrong")],
                                                       [("calls/g[0].values", "tensorflow-wrong")])
    expected, actual = run(program, "tensorflow"), run(program, "wrong_vjp_backend")
    [found] = referee(program, compare(expected, actual, program), expected, actual)
    x = array([[0.3, -1.2], [2.0, 0.5], [0.1, 0.2]]).astype(np.float64)
    # rows 2, 0, 2 gathered: row 0 once, row 1 never, row 2 twice
    np.testing.assert_allclose(found.estimate, [*np.cos(x[0]), 0.0, 0.0, *2 * np.cos(x[2])], rtol=1e-9)


def second_order(target_op):
    """An outer tape differentiating an inner gradient of sin (directly, or through one more op)."""
    ops = [Op("h", "multiply", ["g", "x"])] if target_op else []
    return Program([
        Leaf("x", "variable", array([0.3, -1.2, 2.0]), "float32"),
        Tape("outer", body=[
            Tape("inner", body=[Op("y", "sin", ["x"])]),
            Call("g", "inner", "gradient", "y", "x"),
            *ops,
        ]),
        Call("gg", "outer", "gradient", "h" if target_op else "g", "x"),
    ], outputs=["y"])


@pytest.mark.parametrize("target_op", [False, True])
def test_a_wrong_second_derivative_is_blamed_on_the_candidate(target_op):
    program = second_order(target_op)
    assert verdicts(program, "wrong_second_order_backend") == ([("calls/gg", "candidate-wrong")],
                                                                [("calls/gg", "tensorflow-wrong")])


def test_the_second_derivative_estimate_is_numerical_over_the_inner_gradient():
    program = second_order(target_op=True)
    expected, actual = run(program, "tensorflow"), run(program, "wrong_second_order_backend")
    [found] = referee(program, compare(expected, actual, program), expected, actual)
    x = np.array([0.3, -1.2, 2.0], np.float32).astype(np.float64)
    np.testing.assert_allclose(found.estimate, np.cos(x) - x * np.sin(x), rtol=1e-7)  # d/dx (x cos x)


# -- what the call's tape recorded ------------------------------------------------------------

def test_tensorflow_tape_rules_the_referee_models(tf):
    x, w = tf.constant([1.0, 2.0]), tf.constant([3.0, 4.0])
    variable = tf.Variable([1.0, 2.0])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(w)
        product = x * w                          # recorded, but x is not tracked
    assert tape.gradient(product, x) is None
    np.testing.assert_allclose(tape.gradient(x, x), [1.0, 1.0])          # a gradient of x itself: identity
    np.testing.assert_allclose(tape.jacobian(x, x, unconnected_gradients="zero"), np.zeros((2, 2)))  # not so
    with tf.GradientTape(persistent=True) as outer:
        outer.watch(x)
        with tf.GradientTape(persistent=True) as inner:
            inner.watch(x)
            with inner.stop_recording():         # pauses `inner` only
                paused = tf.sin(x)
                read_while_paused = variable * 1.0
            mixed = paused * x
    np.testing.assert_allclose(inner.gradient(mixed, x), np.sin([1.0, 2.0]), rtol=1e-6)  # `paused` is constant
    np.testing.assert_allclose(outer.gradient(mixed, x), np.sin([1.0, 2.0]) + [1.0, 2.0] * np.cos([1.0, 2.0]),
                               rtol=1e-6)
    assert inner.gradient(read_while_paused, variable) is None
    with tf.GradientTape() as tape:
        tape.watch(x)
        tape.reset()                             # forgets what the tape tracked
        after_reset = tf.sin(x)
    assert tape.gradient(after_reset, x) is None
    with tf.GradientTape() as tape:
        with tape.stop_recording():
            tape.watch(w)                        # no effect while paused
        product = w * x
    assert tape.gradient(product, w) is None


def test_tensorflow_watches_while_paused_only_when_another_tape_records(tf):
    """The rule `_tape_state` models for a watch inside the call's tape's stop_recording span."""
    x = tf.constant([3.0, 4.0])
    with tf.GradientTape() as alone:
        with alone.stop_recording():
            alone.watch(x)
        product = x * x
    assert alone.gradient(product, x) is None
    with tf.GradientTape() as other:
        with tf.GradientTape() as tape:
            with tape.stop_recording():
                tape.watch(x)                    # `other` records: the watch takes effect
            product = x * x
    np.testing.assert_allclose(tape.gradient(product, x), [6.0, 8.0])
    with tf.GradientTape() as other:
        with tf.GradientTape() as tape:
            with other.stop_recording(), tape.stop_recording():
                tape.watch(x)                    # no tape records
            product = x * x
    assert tape.gradient(product, x) is None

def test_a_path_the_tape_did_not_record_stays_constant():
    program = Program([
        Leaf("x", "constant", array([0.3, -1.2, 2.0]), "float32"),
        Tape("t", body=[Watch("t", ["x"]),
                        StopRecording("t", [Op("paused", "sin", ["x"])]),  # constant to t
                        Op("y", "sin", ["x"]), Op("p", "multiply", ["paused", "y"])]),
        Call("g", "t", "gradient", "p", "x"),
    ])
    assert verdicts(program, "wrong_vjp_backend") == ([("calls/g", "candidate-wrong")], [("calls/g", "tensorflow-wrong")])
    expected, actual = run(program, "tensorflow"), run(program, "wrong_vjp_backend")
    [found] = referee(program, compare(expected, actual, program), expected, actual)
    x = array([0.3, -1.2, 2.0]).astype(np.float64)
    np.testing.assert_allclose(found.estimate, np.sin(x) * np.cos(x), rtol=1e-7)  # not d/dx sin(x)^2 = 2 sin cos


def test_an_unrecorded_result_is_not_blamed_on_tensorflow():
    program = Program([
        Leaf("x", "constant", array([0.3, -1.2]), "float32"),
        Tape("t", body=[Op("y", "sin", ["x"])]),                  # nothing watched: TF's zeros are right
        Call("g", "t", "jacobian", "y", "x", unconnected="zero", unconnected_form="string"),
    ])
    expected = run(program, "tensorflow")
    true_derivative = describe(np.diag(np.cos(array([0.3, -1.2]))), None)["data"]
    claim = value_claim("calls/g", expected.calls["g"]["data"], true_derivative, "float32")
    assert judge(program, claim, expected, expected)[0] == "candidate-wrong"


def test_ops_without_a_gradient_are_constants_and_rounds_output_is_tracked(tf):
    x = tf.constant([1.2, 2.7])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        rounded, stopped = tf.round(x), tf.stop_gradient(x)
        product = rounded * stopped * x
    np.testing.assert_allclose(tape.gradient(product, rounded), [1.2 * 1.2, 2.7 * 2.7], rtol=1e-6)  # tracked
    assert tape.gradient(product, stopped) is None                                           # never recorded
    np.testing.assert_allclose(tape.gradient(product, x), [1.0 * 1.2, 3.0 * 2.7], rtol=1e-6)  # both constant
    program = Program([
        Leaf("x", "constant", array([1.2, 2.7]), "float32"),
        Tape("t", body=[Watch("t", ["x"]), Op("r", "round", ["x"]), Op("s", "stop_gradient", ["x"]),
                        Op("rs", "multiply", ["r", "s"]), Op("p", "multiply", ["rs", "x"])]),
        Call("g", "t", "gradient", "p", {"list": ["r", "x"]}),
    ])
    expected = run(program, "tensorflow")
    x0 = array([1.2, 2.7]).astype(np.float64)
    calculus = np.round(x0) * 2 * x0          # d/dx round(x) x x, what ignoring the tape would give
    claim = value_claim("calls/g[1]", expected.calls["g"]["items"][1]["data"],
                        describe(calculus.astype(np.float32), None)["data"], "float32")
    verdict, estimate = judge(program, claim, expected, expected)
    assert verdict == "candidate-wrong"
    np.testing.assert_allclose(estimate, np.round(x0) * x0, rtol=1e-7)


def test_a_gradient_with_respect_to_an_intermediate_is_judged():
    program = Program([
        Leaf("x", "variable", array([0.3, -1.2, 2.0]), "float32"),
        Tape("t", body=[Op("m", "multiply", ["x", "x"]), Op("y", "sin", ["m"]), Op("s", "reduce_sum", ["y"])]),
        Call("g", "t", "gradient", "s", {"list": ["m", "x"]}),
    ])
    assert verdicts(program, "wrong_vjp_backend") == (
        [("calls/g[0]", "candidate-wrong"), ("calls/g[1]", "candidate-wrong")],
        [("calls/g[0]", "tensorflow-wrong"), ("calls/g[1]", "tensorflow-wrong")])


def test_a_large_unrelated_target_does_not_swamp_a_small_change():
    program = Program([
        Leaf("x", "constant", array([0.3, -1.2]), "float32"),
        Leaf("big", "constant", array([40.0, 41.0]), "float32"),
        Tape("t", body=[Watch("t", ["x"]), Op("a", "abs", ["x"]), Op("y", "sin", ["a"]),  # abs: central differences
                        Op("huge", "cosh", ["big"])]),
        Call("g", "t", "gradient", {"list": ["huge", "y"]}, "x"),
    ])
    assert verdicts(program, "wrong_vjp_backend")[0] == [("calls/g", "candidate-wrong")]


def test_variable_updates_are_not_modelled_so_not_judged():
    program = Program([
        Leaf("v", "variable", array([0.3, -1.2]), "float32"),
        Leaf("c", "constant", array([2.0, 0.5]), "float32"),
        Tape("t", body=[Assign("v", "c", "assign_add"), Op("y", "sin", ["v"])]),
        Call("g", "t", "gradient", "y", "v"),
    ])
    after = array([0.3, -1.2]) + array([2.0, 0.5])
    claim = value_claim("calls/g", describe(np.cos(after), None)["data"],   # d sin(v)/dv at v's updated value
                        describe(2 * np.cos(after), None)["data"], "float32")
    assert judge(program, claim, Outcome("tensorflow", calls={"g": claim.expected}), None) == ("undecided", None)


# -- kinks ------------------------------------------------------------------------------------

RELU = Program([
    Leaf("x", "constant", array([0.0, 1.0]), "float32"),
    Tape("t", body=[Watch("t", ["x"]), Op("y", "nn.relu", ["x"])]),
    Call("g", "t", "gradient", "y", "x"),
])


def test_sides_differing_only_at_a_kink_are_ill_conditioned():
    claim = value_claim("calls/g", describe(array([0.0, 1.0]), None)["data"],
                        describe(array([1.0, 1.0]), None)["data"], "float32")
    expected = run(RELU, "tensorflow")
    verdict, estimate = judge(RELU, claim, expected, expected)
    assert verdict == "ill-conditioned"
    assert estimate[1] == pytest.approx(1.0)


def test_a_kink_elsewhere_does_not_hide_a_wrong_element():
    claim = value_claim("calls/g", describe(array([0.0, 1.0]), None)["data"],
                        describe(array([0.0, 2.0]), None)["data"], "float32")
    expected = run(RELU, "tensorflow")
    assert judge(RELU, claim, expected, expected)[0] == "candidate-wrong"


def test_complex_estimates_are_recorded_as_re_im_pairs():
    expected = run(MIXED_COMPLEX, "tensorflow")
    data = expected.calls["g"]["data"]
    claim = value_claim("calls/g", data, [[im, re] for re, im in data], "complex128")
    [judged] = referee(MIXED_COMPLEX, [claim], expected, expected)
    assert judged.verdict == "candidate-wrong"
    assert all(isinstance(pair, list) and len(pair) == 2 and all(type(x) is float for x in pair)
               for pair in judged.estimate)
    np.testing.assert_allclose(decimals(judged.estimate), [complex(float.fromhex(re), float.fromhex(im))
                                                            for re, im in data], rtol=1e-7)
