"""Tape semantics the generated programs rarely reach, against live TensorFlow.

Where the program language expresses a case it runs through the one pipeline (`evaluate` must find
nothing) and then pins what TensorFlow 2.21 was observed to do, on TensorFlow and on the backend
under test. Namedtuple structures and `watched_variables()` run as programs too; their first tests
below call the APIs on the `tf` and `candidate` fixtures directly.
"""

from __future__ import annotations

import collections
import warnings

import numpy as np
import pytest

from reftape_oracle import run
from reftape_oracle.program import (Assign, Call, Leaf, Op, Program, Reset, StopRecording, Tape, Watch,
                                    WatchedVariables)
from reftape_properties.conformance.differential import CANDIDATE
from reftape_properties.pipeline import evaluate
from reftape_properties.conformance.snippet_outcomes import reference_faults, run_statements
from . import reference_outcomes
from .marks import calls as calling, each_side, needs, program, snippets
from .test_blind_spots import value

BACKENDS = ["tensorflow", CANDIDATE]
INVALID_ARGUMENT = "tf.errors.InvalidArgumentError"  # how an outcome names the class


def constant(name: str, values, dtype: str = "float32") -> Leaf:
    return Leaf(name, "constant", np.asarray(values, dtype), dtype)


def variable(name: str, values, trainable: bool = True) -> Leaf:
    return Leaf(name, "variable", np.asarray(values, "float32"), "float32", trainable)


PAIR = lambda first, second: {"namedtuple": ["Pair", [["first", first], ["second", second]]]}  # noqa: E731


PROGRAMS: dict[str, Program] = {
    # y is recorded, then watched: the watch must not cut the path x -> y -> z
    "watch_intermediate": Program([
        constant("x", [0.5, -1.0]),
        Tape("t", [Watch("t", ["x"]), Op("y", "multiply", ["x", "x"]), Watch("t", ["y", "x"]), Op("z", "sin", ["y"])],
             True),
        Call("gx", "t", "gradient", "z", "x"), Call("gy", "t", "gradient", "z", "y"),
        Call("jx", "t", "jacobian", "z", "x"), Call("jx_loop", "t", "jacobian", "z", "x", use_pfor=False)], []),
    # a float32 target, a float64 source it never reaches
    **{f"jacobian_zeros/pfor={pfor}/{form}": Program([
        constant("x", [1.0, 2.0]), constant("u", [3.0, 4.0, 5.0], "float64"),
        Tape("t", [Watch("t", ["x", "u"]), Op("y", "multiply", ["x", "x"])], True),
        Call("j", "t", "jacobian", "y", {"list": ["x", "u"]}, unconnected="zero", unconnected_form=form, use_pfor=pfor),
        Call("ju", "t", "jacobian", "y", "u", unconnected="zero", unconnected_form=form, use_pfor=pfor),
        Call("jn", "t", "jacobian", "y", "u", use_pfor=pfor)], [])
       for pfor in (True, False) for form in ("string", "enum")},
    # a float32 target computed from a float64 source: rows of float64
    **{f"batch_jacobian_dtype/pfor={pfor}": Program([
        constant("x", [[1.0, 2.0], [3.0, 4.0]], "float64"),
        Tape("t", [Watch("t", ["x"]), Op("s", "multiply", ["x", "x"]), Op("y", "cast", ["s"], {"dtype": "float32"})],
             True),
        Call("b", "t", "batch_jacobian", "y", "x", use_pfor=pfor),
        Call("j", "t", "jacobian", "y", "x", use_pfor=pfor)], [])
       for pfor in (True, False)},
    # jacobian inside a recording outer tape, through softsign (its gradient op SoftsignGrad has none)
    **{f"pfor_check/pfor={pfor}": Program([
        constant("x", [0.5, -1.0]), constant("c", [2.0, 3.0]),
        Tape("outer", [Watch("outer", ["x", "c"]),
                       Tape("inner", [Watch("inner", ["x", "c"]), Op("y", "nn.softsign", ["x"])], True),
                       Call("jx", "inner", "jacobian", "y", {"list": ["x"]}, use_pfor=pfor),
                       Call("jxc", "inner", "jacobian", "y", {"list": ["x", "c"]}, use_pfor=pfor),
                       Call("jcx", "inner", "jacobian", "y", {"list": ["c", "x"]}, use_pfor=pfor),
                       Call("jc", "inner", "jacobian", "y", {"list": ["c"]}, use_pfor=pfor)])], [])
       for pfor in (True, False)},
    # namedtuple sources (nested, with a dict and a list inside) for gradient, jacobian and
    # output_gradients given as a namedtuple of targets
    "namedtuple_structures": Program([
        constant("x", [1.0, 2.0]), variable("w", [0.5, -1.0]), constant("u", [2.0, 3.0]),
        Tape("t", [Watch("t", ["x"]), Op("y", "multiply", ["x", "w"]), Op("z", "sin", ["x"])], True),
        Call("g", "t", "gradient", "y", PAIR("x", "w")),
        Call("nested", "t", "gradient", "y", {"dict": [["k", PAIR("w", {"list": ["x"]})]]}),
        Call("swapped", "t", "gradient", "y", PAIR("w", "u"), unconnected="zero", unconnected_form="string"),
        Call("j", "t", "jacobian", "y", PAIR("x", "w")),
        Call("targets", "t", "gradient", PAIR("y", "z"), "x", PAIR("u", "x"))], []),
    # watched_variables(): watched explicitly (out of order, twice), read, only assigned, after reset,
    # without watching accessed variables, untrainable, inside stop_recording, nested, created late
    "watched_variables": Program([
        variable("a", [1.0]), variable("b", [2.0]), variable("c", [3.0]), variable("n", [4.0], trainable=False),
        constant("one", [1.0]),
        Tape("t1", [Watch("t1", ["c", "a", "c"]), Op("y1", "multiply", ["b", "b"]), WatchedVariables("t1_inside", "t1")]),
        WatchedVariables("t1_after", "t1"),
        Tape("t2", [Op("y2", "sin", ["c"]), Assign("a", "one"), WatchedVariables("t2_assigned", "t2"), Reset("t2"),
                    WatchedVariables("t2_reset", "t2"), Assign("b", "one", "assign_add")], True),
        WatchedVariables("t2_after", "t2"),
        Tape("t3", [Op("y3", "sin", ["c"]), Assign("a", "one"), Watch("t3", ["b"])], watch_accessed_variables=False),
        WatchedVariables("t3_after", "t3"),
        Tape("t4", [Op("y4", "sin", ["n"]), WatchedVariables("t4_read", "t4"), Watch("t4", ["n"])]),
        WatchedVariables("t4_after", "t4"),
        Tape("t5", [StopRecording("t5", [Watch("t5", ["a"]), Op("y5", "sin", ["c"])])]),
        WatchedVariables("t5_after", "t5"),
        Tape("outer", [Tape("inner", [Op("y6", "sin", ["c"])]), Op("y7", "sin", ["a"])]),
        WatchedVariables("outer_after", "outer"), WatchedVariables("inner_after", "inner"),
        Tape("t6", [variable("late", [5.0]), Watch("t6", ["late", "b"])]),
        WatchedVariables("t6_after", "t6"),
        Tape("t7", [Assign("a", "c", "assign_sub")]),
        WatchedVariables("t7_after", "t7"),
        Tape("t8", [Tape("t9", [Watch("t9", ["c"]), WatchedVariables("t9_inside", "t9")],
                         watch_accessed_variables=False)]),
        WatchedVariables("t8_after", "t8")], []),
}


@pytest.mark.parametrize("name", [program(name, PROGRAMS[name].statements) for name in sorted(PROGRAMS)])
def test_tape_semantics_agree_with_tensorflow(name):
    finding = evaluate(PROGRAMS[name], CANDIDATE, judge=False)
    assert finding is None, [(d.kind, d.where, d.expected, d.actual) for d in finding.discrepancies]


def calls(name: str, backend: str) -> dict:
    result = run(PROGRAMS[name], backend)
    assert result.error is None, result.error
    return {k: value(v) for k, v in result.calls.items()}


def raised(call) -> str | None:
    """The exception class a call raised, None when it returned."""
    return call if isinstance(call, str) else None


@each_side(PROGRAMS, "watch_intermediate")
def test_watching_a_recorded_tensor_keeps_the_path_through_it(backend):
    """TF: watching y = x * x after it was recorded leaves dz/dx = cos(y) * 2x intact."""
    got = calls("watch_intermediate", backend)
    x = np.float32([0.5, -1.0])
    assert got["gx"] is not None and np.allclose(got["gx"], np.cos(x * x) * 2 * x)
    assert np.allclose(got["gy"], np.cos(x * x))
    assert np.allclose(got["jx"], np.diag(np.cos(x * x) * 2 * x)) and np.allclose(got["jx_loop"], got["jx"])


@each_side(PROGRAMS, "jacobian_zeros/*")
@pytest.mark.parametrize("form", ["string", "enum"])
def test_jacobian_zeros_for_an_unconnected_source_take_the_source_dtype(backend, form):
    """TF: pfor gives float64 zeros for the float64 source; the loop raises writing them to a float32 array."""
    vectorized = calls(f"jacobian_zeros/pfor=True/{form}", backend)
    assert vectorized["j"][1].dtype == vectorized["ju"].dtype == np.float64
    assert vectorized["ju"].shape == (2, 3) and not vectorized["ju"].any() and vectorized["jn"] is None
    assert vectorized["j"][0].dtype == np.float32 and vectorized["j"][0].tolist() == [[2.0, 0.0], [0.0, 4.0]]
    looped = calls(f"jacobian_zeros/pfor=False/{form}", backend)
    assert raised(looped["j"]) == raised(looped["ju"]) == INVALID_ARGUMENT and looped["jn"] is None


@each_side(PROGRAMS, "batch_jacobian_dtype/*")
def test_loop_jacobians_refuse_rows_of_another_dtype(backend):
    """TF: pfor returns float64 (batch_)jacobians of a float32 target; the loop raises InvalidArgumentError."""
    vectorized = calls("batch_jacobian_dtype/pfor=True", backend)
    assert vectorized["b"].dtype == vectorized["j"].dtype == np.float64
    assert vectorized["b"].tolist() == [[[2.0, 0.0], [0.0, 4.0]], [[6.0, 0.0], [0.0, 8.0]]]
    looped = calls("batch_jacobian_dtype/pfor=False", backend)
    assert raised(looped["b"]) == raised(looped["j"]) == INVALID_ARGUMENT


@each_side(PROGRAMS, "pfor_check/*")
def test_a_recorded_vectorized_jacobian_needs_every_gradient_once_any_source_is_connected(backend):
    """TF: under a recording outer tape, pfor through softsign raises LookupError unless no source is connected."""
    vectorized = calls("pfor_check/pfor=True", backend)
    assert raised(vectorized["jx"]) == raised(vectorized["jxc"]) == raised(vectorized["jcx"]) == "LookupError"
    assert vectorized["jc"] == [None]
    looped = calls("pfor_check/pfor=False", backend)
    assert np.allclose(looped["jxc"][0], np.diag([0.4444444, 0.25])) and looped["jxc"][1] is None
    assert looped["jcx"][0] is None and looped["jc"] == [None]


Pair = collections.namedtuple("Pair", "first second")


def namedtuple_gradients(tf):
    a, b = tf.constant([1.0, 2.0]), tf.constant(3.0, tf.float64)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch([a, b])
        y = a * a + tf.cast(b, tf.float32)
    return (tape.gradient(y, Pair(a, b)), tape.gradient(y, {"k": Pair(a, [b])}), tape.jacobian(y, Pair(a, b)),
            tape.gradient(y, Pair(b, a), unconnected_gradients="zero"))


@calling("cast", "nest")
@needs("GradientTape.jacobian")
def test_namedtuple_sources_give_namedtuple_gradients(tf, candidate):
    """TF: gradients and jacobians keep the sources' namedtuple class, also nested in a dict."""
    for backend in (tf, candidate):
        flat, nested, jacobian, swapped = namedtuple_gradients(backend)
        assert type(flat) is Pair and type(nested["k"]) is Pair and type(jacobian) is Pair and type(swapped) is Pair
        assert type(nested["k"].second) is list
        assert flat.first.numpy().tolist() == [2.0, 4.0] and flat.second.dtype == backend.float64
        assert swapped.first.numpy() == 2.0 and jacobian.second.numpy().tolist() == [1.0, 1.0]
    expected, actual = namedtuple_gradients(tf), namedtuple_gradients(candidate)
    assert repr(tf.nest.map_structure(lambda g: g.numpy().tolist(), expected)) == \
        repr(candidate.nest.map_structure(lambda g: g.numpy().tolist(), actual))


def watched_in_creation_order(tf, watch_accessed_variables: bool) -> list[list[int]]:
    """Positions (in creation order) of the variables each tape lists, watched or read out of order."""
    created = [tf.Variable(1.0, name="zeta"), tf.Variable(2.0, name="alpha"), tf.Variable(3.0, name="mid")]

    def touch(tape, variable):
        if watch_accessed_variables:
            variable * 2.0                                             # a read
        else:
            tape.watch(variable)

    listed = []
    for order in ([2, 0, 1], [1, 2, 0], [2, 1]):
        with tf.GradientTape(watch_accessed_variables=watch_accessed_variables) as tape:
            for i in order:
                touch(tape, created[i])
            late = tf.Variable(4.0, name="late")                       # created inside the tape, touched last
            touch(tape, late)
            if watch_accessed_variables:
                created[0].assign_add(0.0)                             # an assign is an access
        everything = created + [late]
        listed.append([next(k for k, v in enumerate(everything) if v is w) for w in tape.watched_variables()])
    return listed


@needs("Variable", "Variable.assign_add", "GradientTape.watched_variables")
@pytest.mark.parametrize("watch_accessed_variables", [True, False])
def test_watched_variables_are_listed_in_creation_order(tf, candidate, watch_accessed_variables):
    """TF: watched_variables() lists variables in creation order, whatever the order of watches and reads."""
    expected = watched_in_creation_order(tf, watch_accessed_variables)
    assert expected == [[0, 1, 2, 3], [0, 1, 2, 3], [0, 1, 2, 3] if watch_accessed_variables else [1, 2, 3]]
    assert watched_in_creation_order(candidate, watch_accessed_variables) == expected


@each_side(PROGRAMS, "namedtuple_structures")
def test_namedtuple_sources_and_targets_in_programs(backend):
    """TF: gradients and jacobians with respect to a namedtuple come back as that namedtuple (typename and
    fields), nested ones too; a namedtuple of targets is flattened like a list."""
    described = run(PROGRAMS["namedtuple_structures"], backend).calls
    for name in ("g", "swapped", "j"):
        assert {k: described[name][k] for k in ("kind", "type", "fields")} == \
            {"kind": "namedtuple", "type": "Pair", "fields": ["first", "second"]}
    assert described["nested"]["items"][0]["kind"] == "namedtuple"
    assert described["nested"]["items"][0]["items"][1]["kind"] == "list"
    got = calls("namedtuple_structures", backend)
    x, w = np.float32([1.0, 2.0]), np.float32([0.5, -1.0])
    assert np.allclose(got["g"][0], w) and np.allclose(got["g"][1], x)
    assert np.allclose(got["swapped"][0], x) and np.allclose(got["swapped"][1], [0.0, 0.0])
    u = np.float32([2.0, 3.0])
    assert np.allclose(got["targets"], u * w + x * np.cos(x))   # weights u on y = x * w, x on z = sin(x)


def _watched_names(backend: str) -> dict[str, list]:
    described = run(PROGRAMS["watched_variables"], backend).calls
    assert all(d["kind"] == "tuple" for d in described.values()), described
    return {name: [item["variable"]["name"] for item in d["items"]] for name, d in described.items()}


@each_side(PROGRAMS, "watched_variables")
def test_watched_variables_in_programs(backend):
    """TF: watched_variables() is a tuple in creation order without duplicates: explicit watches and reads
    alike, an assign counts as an access, reset() forgets, a tape not watching accessed variables lists
    only explicit watches, a read of an untrainable variable is not a watch but watching it is, nothing
    is watched while the tape is paused, a read inside an inner tape is an access for the outer, assigning
    a Variable's value reads it (an access), and so does describing a Variable (its numpy())."""
    assert _watched_names(backend) == {
        "t1_inside": ["a:0", "b:0", "c:0"], "t1_after": ["a:0", "b:0", "c:0"],
        "t2_assigned": ["a:0", "c:0"], "t2_reset": [], "t2_after": ["b:0"],
        "t3_after": ["b:0"], "t4_read": [], "t4_after": ["n:0"], "t5_after": [],
        "outer_after": ["a:0", "c:0"], "inner_after": ["c:0"], "t6_after": ["b:0", "late:0"],
        "t7_after": ["a:0", "c:0"], "t9_inside": ["c:0"], "t8_after": ["c:0"]}


def watched_after_looking(tf) -> dict[str, list[str]]:
    """The variables a tape watches after each way of looking at Variable `v` inside it."""
    looks = {"numpy": lambda v: v.numpy(), "asarray": np.asarray, "repr": repr, "str": str, "bool": bool,
             "float": float, "int": int, "dtype and shape": lambda v: (v.dtype, v.shape, v.name),
             "assigned to another": lambda v: tf.Variable(0.0, name="w").assign(v)}
    watched = {}
    for look, apply in looks.items():
        v = tf.Variable(1.0, name="v")
        with tf.GradientTape() as tape:
            apply(v)
        watched[look] = [w.name for w in tape.watched_variables()]
    return watched


@needs("Variable", "Variable.assign", "GradientTape.watched_variables")
def test_looking_at_a_variable_value_is_an_access(tf, candidate):
    """TF: numpy(), np.asarray, repr/str, bool, float and int read a Variable (an access: tapes watching
    accessed variables watch it), as does assigning its value to another; dtype, shape and name do not."""
    expected = watched_after_looking(tf)
    assert expected == {**{look: ["v:0"] for look in ("numpy", "asarray", "repr", "str", "bool", "float", "int")},
                        "dtype and shape": [], "assigned to another": ["v:0", "w:0"]}
    assert watched_after_looking(candidate) == expected


def under_strict_numpy(tf) -> tuple:
    """Conversion, ops and gradients at poles, NaN, overflow and underflow with NumPy's error state set
    to raise and its warnings made errors; and whether that state is still the caller's afterwards."""
    with warnings.catch_warnings(), np.errstate(all="raise"):
        warnings.simplefilter("error")
        x = tf.Variable([0.0, -1.0, 3e38, 1e-50, 2.0])           # 1e-50 underflows to 0 in float32
        with tf.GradientTape() as tape:
            y = tf.math.log(x) + tf.divide(1.0, x) + x * x + tf.sqrt(x)
        gradient = tape.gradient(y, x)
        state_kept = np.geterr() == {"divide": "raise", "over": "raise", "under": "raise", "invalid": "raise"}
    return y.numpy().tolist(), gradient.numpy().tolist(), state_kept


@calling("Variable", "divide", "math.log", "sqrt")
def test_computations_ignore_the_callers_numpy_error_state(tf, candidate):
    """TF computes IEEE results silently whatever NumPy's error state; reftape's kernels and
    conversions must neither raise nor warn, nor change the caller's state."""
    expected = under_strict_numpy(tf)
    assert expected[2] and np.isnan(expected[0][0]) and expected[0][2] == np.inf
    assert repr(under_strict_numpy(candidate)) == repr(expected)


def numpy_error_in_custom_gradient(tf) -> str:
    """What a custom gradient function's own NumPy division by zero does under the caller's errstate."""
    @tf.custom_gradient
    def identity(x):
        def grad(upstream):
            np.float64(1.0) / np.float64(0.0)
            return upstream
        return tf.identity(x), grad

    x = tf.constant([1.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = identity(x)
    with np.errstate(divide="raise"):
        try:
            tape.gradient(y, x)
        except FloatingPointError:
            return "FloatingPointError"
    return "no error"


@needs("custom_gradient")
def test_custom_gradient_functions_run_under_the_callers_numpy_error_state(tf, candidate):
    """TF calls a custom gradient function as plain Python: its NumPy follows the caller's error state,
    although reftape's backward pass turns NumPy's errors off for its own kernels."""
    assert numpy_error_in_custom_gradient(tf) == "FloatingPointError"
    assert numpy_error_in_custom_gradient(candidate) == "FloatingPointError"


def raised_by_vectorized_jacobians(tf, error: Exception) -> list[str]:
    """Exception classes from the vectorized jacobian and batch_jacobian when a custom gradient
    function raises `error`, and from the vectorized jacobian through an op without a gradient."""
    @tf.custom_gradient
    def identity(x):
        def grad(upstream):
            raise error
        return tf.identity(x), grad

    def raised(call) -> str:
        try:
            call()
        except Exception as caught:  # noqa: BLE001 - the class is the outcome
            return type(caught).__name__
        return "no error"

    x = tf.constant([[1.0, 2.0]])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = identity(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            s = tf.nn.softsign(x)
        z = inner.gradient(s, x) + y                      # SoftsignGrad, recorded: it has no gradient
    return [raised(lambda: tape.jacobian(y, x)), raised(lambda: tape.batch_jacobian(y, x)),
            raised(lambda: tape.jacobian(z, x))]


@needs("custom_gradient", "GradientTape.jacobian")
@pytest.mark.parametrize("error", [ZeroDivisionError("z"), ValueError("v"), LookupError("l"), IndexError("i")],
                         ids=lambda e: type(e).__name__)
def test_vectorized_jacobians_reraise_as_autograph_does(tf, candidate, error):
    """TF traces the vectorized loop with AutoGraph: an exception from its body comes back as its own
    class only where AutoGraph can rebuild it (ValueError, TypeError, ...), as StagingError otherwise."""
    expected = raised_by_vectorized_jacobians(tf, error)
    assert expected[2] == "StagingError" and "no error" not in expected
    assert raised_by_vectorized_jacobians(candidate, error) == expected


# Snippets run on TF and on the backend: the value of `r` (or the exception) must agree, messages included.
TAPE_SNIPPETS = {
    # digamma's gradient (polygamma) at infinities, huge and tiny inputs, to the second order, in the
    # input's dtype as TF's float32 and float64 kernels compute it
    **{f"digamma_far_out/{dtype}": f"x = tf.constant([float('inf'), -float('inf'), 2.23, {big}, -1e30, 0.0, -3.0, {tiny}, 0.7], "
       f"tf.{dtype})\nwith tf.GradientTape() as t:\n    t.watch(x)\n    with tf.GradientTape() as t2:\n"
       f"        t2.watch(x)\n        y = tf.math.digamma(x)\n    g = t2.gradient(y, x)\nr = [g, t.gradient(g, x)]"
       for dtype, big, tiny in (("float32", "1e30", "1e-30"), ("float64", "1e300", "1e-300"))},
    # a list holding tensors is packed by a recorded Pack: gradients reach the tensors and Variables in it
    "packed_list/reduce_sum": "x = tf.constant(3.0); v = tf.Variable(2.0)\nwith tf.GradientTape() as t:\n    t.watch(x)\n"
                              "    y = tf.reduce_sum([x * x, x, 2.0, v])\nr = t.gradient(y, [x, v])",
    "packed_list/nested_cast": "x = tf.constant(3.0); v = tf.Variable(2.0)\nwith tf.GradientTape() as t:\n    t.watch(x)\n"
                               "    y = tf.convert_to_tensor([[x, 1.0], [x, v]], dtype=tf.float64) ** 2\nr = t.gradient(y, [x, v])",
    "packed_list/op_argument": "x = tf.Variable([1.0, 2.0])\nwith tf.GradientTape() as t:\n"
                               "    y = tf.matmul([x, [3.0, 4.0]], [[x[0]], [x[1]]])\nr = [y, t.gradient(y, x)]",
    **{f"matrix_norm/ord={o}": f"x = tf.Variable([[3.0, -4.0], [1.0, 2.0], [-5.0, 0.5]])\nwith tf.GradientTape() as t:\n"
       f"    y = tf.norm(x, ord={o}, axis=[0, 1])\nr = [y, t.gradient(y, x)]" for o in ("1", "np.inf")},
    # an upstream gradient shaped unlike the output: TF sums each operand's over every axis where the
    # operand's size is 1 or missing (BroadcastGradientArgs), even where the output's is 1 too
    **{f"seed_of_another_shape/{op}": f"a = tf.constant([1.0]); b = tf.Variable([[2.0, 3.0]])\n"
       f"with tf.GradientTape() as t:\n    t.watch(a)\n    y = {op}(a, b)\n"
       f"r = t.gradient(y, [a, b], output_gradients=tf.constant([[1.0, 2.0], [3.0, -4.0]]))"
       for op in ("tf.add", "tf.multiply", "tf.subtract", "tf.maximum")},
    # boolean_mask: a Reshape and a gather, whose IndexedSlices the Reshape's gradient densifies
    **{f"boolean_mask/{name}": f"x = tf.Variable([[1.0, 2.0], [3.0, 4.0]])\nwith tf.GradientTape() as t:\n"
       f"    y = {masked} ** 2\nr = [y, t.gradient(y, x)]"
       for name, masked in [("rows", "tf.boolean_mask(x, [False, True])"), ("axis_1", "tf.boolean_mask(x, [True, False], axis=1)"),
                            ("elements", "tf.boolean_mask(x, [[True, False], [False, True]])"), ("subscript", "x[x > 1.5]")]},
    # concat keeps IndexedSlices sparse: rows by index range along axis 0, a part of every row along another axis
    **{f"concat_of_gathered/{name}": "a = tf.constant([[1.0, 2.0, 3.0]]); b = tf.constant([[4.0, 5.0, 6.0], [7.0, 8.0, 9.0]])\n"
       f"with tf.GradientTape() as t:\n    t.watch([a, b])\n    y = tf.gather({concat}, {indices})\nr = t.gradient(y, [a, b])"
       for name, concat, indices in [("axis_0", "tf.concat([a, b], axis=0)", "[2, 0, 1, 2]"),
                                     ("axis_1", "tf.concat([b, b * 2.0], axis=1)", "[1, 1]"),
                                     ("axis_minus_1_through_identity", "tf.identity(tf.concat([a, a], axis=-1))", "[0]")]},
    "concat_of_gathered/second_order": "b = tf.constant([[4.0, 5.0, 6.0], [7.0, 8.0, 9.0]])\n"
                                       "with tf.GradientTape() as outer:\n    outer.watch(b)\n    with tf.GradientTape() as inner:\n"
                                       "        inner.watch(b)\n        y = tf.gather(tf.concat([b * b, b], axis=1), [1, 0])\n"
                                       "    g = inner.gradient(y, b)\nr = outer.gradient(g, b)",
    # the jacobian loop's gradient calls check their sources even where the target is not tracked
    **{f"untracked_target_indexed_slices_source/pfor={pfor}":
       "with tf.GradientTape(persistent=True) as t:\n    v = tf.Variable([-1.0])\n    s = t.gradient(tf.gather(v, [0, 0]), v)\n"
       f"    y = tf.expand_dims(s, axis=1)\nr = t.jacobian(y, {{'x': s}}, experimental_use_pfor={pfor})"
       for pfor in (False, True)},
    # TF runs the backward pass from the targets' producers, an op once every read of its outputs has run
    # (first ready first run): contributions arrive, and IndexedSlices concatenate, in that order
    "backward_order/two_gathers": "x = tf.Variable([1.0, 2.0, 3.0])\nwith tf.GradientTape() as t:\n"
                                  "    y = tf.reduce_sum(tf.gather(x, [2])) + tf.reduce_sum(tf.gather(x, [[0]])[0])\n"
                                  "r = t.gradient(y, x)",
    "backward_order/diamond_and_fan_out": "x = tf.constant(np.arange(8.0, dtype=np.float32))\nwith tf.GradientTape() as t:\n"
                                          "    t.watch(x); a = tf.gather(x, [1, 2]) * 2.0; b = tf.gather(x, [3, 4])\n"
                                          "    c = a * b + tf.gather(x, [5, 6]); d = tf.identity(a) + c + a\n"
                                          "    p, q = tf.unstack(d); y = q * tf.gather(x, [7, 0]) + p\nr = t.gradient(y, [x, c])",
    # several targets: TF starts from their producers in the order of a hash map of op numbers
    **{f"backward_order/{n}_targets/{order}": "x = tf.constant(np.arange(40.0, dtype=np.float32))\n"
                                              "with tf.GradientTape() as t:\n    t.watch(x)\n"
                                              f"    ys = [tf.gather(x, [i]) for i in range({n})]\n"
                                              f"r = t.gradient(ys{'[::-1]' if order == 'reversed' else ''}, x)"
       for n in (3, 13, 14, 15, 31) for order in ("created", "reversed")},
    # an IndexedSlices target has a dtype (TF's trainability check passes) but no tape id
    "indexed_slices_target": "x = tf.Variable([1.0, 2.0])\nwith tf.GradientTape() as t:\n    y = tf.gather(x, [1])\n"
                             "s = t.gradient(y, x)\nwith tf.GradientTape() as t2:\n    w = x * 2.0\nr = t2.gradient(s, x)",
    # output_gradients are flattened: entries past the targets are ignored, None for a target fails
    "output_gradients_nested_list": "x = tf.Variable([1.0, 2.0])\nwith tf.GradientTape() as t:\n    z = x * 2; w = x * 3\n"
                                    "r = t.gradient([z, w], x, output_gradients=[[1.0, 3.0], None])",
    "output_gradients_none_for_a_target": "x = tf.Variable([1.0, 2.0])\nwith tf.GradientTape() as t:\n    z = x * 2; w = x * 3\n"
                                          "r = t.gradient([z, w], x, output_gradients=[None, tf.constant([1.0, 5.0])])",
    # a single target: its flattened output_gradients' first entry is its seed, None included (TF fails on it)
    "output_gradients_none_then_value_single_target": "x = tf.constant(2.0)\nwith tf.GradientTape() as t:\n    t.watch(x)\n"
                                                      "    y = x * x\nr = t.gradient(y, x, output_gradients=[None, 1.0])",
    "output_gradients_value_then_none_single_target": "x = tf.constant(2.0)\nwith tf.GradientTape() as t:\n    t.watch(x)\n"
                                                      "    y = x * x\nr = t.gradient(y, x, output_gradients=[2.0, None])",
    "output_gradients_nested_none_single_target": "x = tf.constant(2.0)\nwith tf.GradientTape() as t:\n    t.watch(x)\n"
                                                  "    y = x * x\nr = t.gradient(y, x, output_gradients=[[None], 1.0])",
    "output_gradients_shorter_than_targets": "x = tf.constant(2.0)\nwith tf.GradientTape() as t:\n    t.watch(x)\n"
                                             "    z = x * 3.0; w = x * x\nr = t.gradient([z, w], x, output_gradients=[2.0])",
    "output_gradients_empty_list": "x = tf.constant(2.0)\nwith tf.GradientTape() as t:\n    t.watch(x)\n"
                                   "    z = x * 3.0; w = x * x\nr = t.gradient([z, w], x, output_gradients=[])",
    "output_gradients_empty_inner_list": "x = tf.constant(2.0)\nwith tf.GradientTape() as t:\n    t.watch(x)\n"
                                         "    z = x * 3.0; w = x * x\nr = t.gradient([z, w], x, output_gradients=[[], 2.0])",
    "output_gradients_dict_in_another_order": "x = tf.constant(2.0)\nwith tf.GradientTape() as t:\n    t.watch(x)\n"
                                              "    z = x * 3.0; w = x * x\n"
                                              "r = t.gradient({'a': z, 'b': w}, x, output_gradients={'b': 2.0, 'a': None})",
    # gather's gradient: IndexedSlices only where the axis was given as 0; batch_dims and other axes dense
    **{f"gather_gradient/{kwargs}": "p = tf.constant(np.arange(24.0, dtype=np.float32).reshape(2, 3, 4))\n"
                                    f"i = tf.constant({indices})\nwith tf.GradientTape() as t:\n    t.watch(p)\n"
                                    f"    y = tf.gather(p, i, {kwargs})\n"
                                    "r = t.gradient(y, p, output_gradients=tf.reshape(tf.range(tf.size(y), dtype=tf.float32), "
                                    "tf.shape(y)))"
       for indices, kwargs in [("[[0, 2], [1, 1]]", "batch_dims=1"), ("[[0, 2], [1, 1]]", "batch_dims=1, axis=2"),
                               ("[[0, 2], [1, 1]]", "batch_dims=-1"), ("[[0, 2], [1, 1]]", "batch_dims=-2"),
                               ("[[0, 2], [1, 1]]", "batch_dims=1, axis=-1"), ("[[0, 2], [1, 1]]", "axis=-2"),
                               ("[1, 0, 1]", "axis=-3"), ("[1, 0, 1]", "axis=0"), ("[1, 0]", "axis=0, batch_dims=1"),
                               ("[[[0, 2], [1, 1], [3, 0]], [[1, 1], [0, 0], [2, 2]]]", "batch_dims=2"),
                               ("[[0, 2], [1, 1]]", "batch_dims=2"), ("[[0, 2], [1, 1]]", "batch_dims=-3")]},
    # truncatediv's gradient is None for both operands, truncatemod has none registered (LookupError)
    **{f"truncated_gradient/{op}/{unconnected}": "x = tf.constant([7.5, -3.0]); y = tf.constant([2.0, 2.0])\n"
                                                 f"with tf.GradientTape() as t:\n    t.watch([x, y]); z = tf.{op}(x, y)\n"
                                                 f"r = t.gradient(z, [x, y], unconnected_gradients='{unconnected}')"
       for op in ("truncatediv", "truncatemod") for unconnected in ("none", "zero")},
    "reduce_any_cast_gradient": "x = tf.constant([7.5, -3.0])\nwith tf.GradientTape() as t:\n    t.watch(x)\n"
                                "    z = tf.cast(tf.reduce_any(x > 0.0), tf.float32) * x\nr = t.gradient(z, x)",
    "gather_batch_dims_second_order": "p = tf.constant(np.arange(24.0, dtype=np.float32).reshape(2, 3, 4))\n"
                                      "with tf.GradientTape() as t2:\n    t2.watch(p)\n"
                                      "    with tf.GradientTape() as t1:\n        t1.watch(p)\n"
                                      "        y = tf.gather(p, tf.constant([[0, 2], [1, 1]]), batch_dims=1, axis=2)\n"
                                      "    d = t1.gradient(y * y, p)\n    s = tf.reduce_sum(d * d)\nr = t2.gradient(s, p)",
    # TF seeds a string target with nothing
    "string_target_is_its_own_source": "x = tf.constant(['a'])\nwith tf.GradientTape() as t:\n    t.watch(x)\n"
                                       "r = t.gradient(x, x)",
    "string_target_is_its_own_source_zero": "x = tf.constant(['a'])\nwith tf.GradientTape() as t:\n    t.watch(x)\n"
                                            "r = t.gradient(x, x, unconnected_gradients='zero')",
    # targets and sources that are not tensors: TypeError where no dtype matches, else the C tape's AttributeError
    **{f"non_tensor/{target}/{sources}": "x = tf.Variable(1.0)\nwith tf.GradientTape() as t:\n    y = x * 2\n"
                                         f"r = t.gradient({target}, {sources})"
       for target, sources in [("2.0", "x"), ("y", "2.0"), ("2.0", "3.0"), ("[y, 2.0]", "[x]"), ("[y, 'abc']", "[x]"),
                               ("[y]", "[x, 'abc']"), ("[y, 3]", "[x]"), ("[y]", "[x, 3]"), ("y", "np.float32(1)"),
                               ("2.0", "None"), ("2.5", "x"), ("y", "[x, None]")]},
    # jacobian's sources are checked inside the traced loop
    **{f"jacobian_source_none/pfor={pfor}": "x = tf.Variable([1.0, 2.0])\nwith tf.GradientTape(persistent=True) as t:\n"
                                            f"    z = x * x\nr = t.jacobian(z, [x, None], experimental_use_pfor={pfor})"
       for pfor in (True, False)},
    "batch_jacobian_loop_needs_persistent": "x = tf.Variable([[1.0, 2.0]])\nwith tf.GradientTape() as t:\n    z = x * x\n"
                                            "r = t.batch_jacobian(z, x, experimental_use_pfor=False)",
    # a ValueError from the vectorized loop's body is re-raised as jacobian's own
    "jacobian_custom_gradient_wrong_count": "@tf.custom_gradient\ndef f(x, z):\n    return x * z, lambda dy: dy\n"
                                            "x = tf.Variable([2.0, 1.0]); z = tf.Variable([2.0, 1.0])\n"
                                            "with tf.GradientTape(persistent=True) as t:\n    y = f(x, z)\nr = t.jacobian(y, x)",
    # densified IndexedSlices drop the rows of negative indices, and their gradient is zero there
    "indexed_slices_negative_index_densified": "v = tf.constant([[5.0], [6.0], [7.0]])\nwith tf.GradientTape() as t:\n"
                                               "    t.watch(v)\n    d = tf.convert_to_tensor(tf.IndexedSlices(v * 1.0, "
                                               "tf.constant([-1, 0, 0]), tf.constant([3, 1])))\n"
                                               "    y = d * tf.constant([[1.0], [2.0], [3.0]])\nr = (d, t.gradient(y, v))",
    # custom_gradient: a method binds its instance (self is no input); keyword arguments are neither inputs nor
    # captured variables; variable gradients are concatenated to a list as given (a tuple fails)
    "custom_gradient_method": "class M:\n    k = 3.0\n    @tf.custom_gradient\n    def f(self, x):\n"
                              "        return x * self.k, lambda dy: dy * self.k * 2.0\n"
                              "x = tf.constant(2.0)\nwith tf.GradientTape() as t:\n    t.watch(x)\n    y = M().f(x)\n"
                              "r = (y, t.gradient(y, x))",
    "custom_gradient_keyword_variable": "v = tf.Variable(2.0)\n@tf.custom_gradient\ndef f(x, w=None):\n"
                                        "    return x * w, lambda dy: dy * 2.0\n"
                                        "x = tf.constant(1.0)\nwith tf.GradientTape() as t:\n    t.watch(x)\n"
                                        "    y = f(x, w=v)\nr = t.gradient(y, [x, v])",
    "custom_gradient_keyword_variable_in_a_dict": "v = tf.Variable(2.0); u = tf.Variable(5.0)\n@tf.custom_gradient\n"
                                                  "def f(x, w=None):\n    def g(dy, variables):\n"
                                                  "        return dy * 2.0, [dy * 7.0 for _ in variables]\n"
                                                  "    return x * w['a'] * u, g\n"
                                                  "x = tf.constant(1.0)\nwith tf.GradientTape() as t:\n    t.watch(x)\n"
                                                  "    y = f(x, w={'a': v})\nr = t.gradient(y, [x, v, u])",
    "custom_gradient_keyword_variable_counted_as_input": "v = tf.Variable(2.0)\n@tf.custom_gradient\ndef f(x, w=None):\n"
                                                         "    return x * w, lambda dy, variables=None: (dy, [dy])\n"
                                                         "x = tf.constant(1.0)\nwith tf.GradientTape() as t:\n"
                                                         "    t.watch(x)\n    y = f(x, w=v)\nr = t.gradient(y, [x, v])",
    **{f"custom_gradient_variable_gradients_as/{kind}": "v = tf.Variable(2.0)\n@tf.custom_gradient\ndef f(x):\n"
                                                        f"    return x * v, lambda dy, variables: (dy * 2.0, {grads})\n"
                                                        "x = tf.constant(1.0)\nwith tf.GradientTape() as t:\n"
                                                        "    t.watch(x)\n    y = f(x)\nr = t.gradient(y, [x, v])"
       for kind, grads in [("list", "[dy * 5.0]"), ("tuple", "(dy * 5.0,)"), ("list_of_none", "[None]"),
                           ("too_many", "[dy, dy]")]},
    # parallel_iterations: the loop checks it first, the vectorized loop after tracing its body
    **{f"parallel_iterations/{method}/{size}/{pi}/pfor={pfor}":
       f"x = tf.Variable(tf.ones([1, {size}]))\nwith tf.GradientTape(persistent=True) as t:\n    z = x * x\n"
       f"r = t.{method}(z, x, parallel_iterations={pi}, experimental_use_pfor={pfor})"
       for method in ("jacobian", "batch_jacobian") for size in (0, 3)
       for pi in ("1", "2", "3", "4", "0", "-1", "1.5", "4.5", "True", "'2'") for pfor in (True, False)},
    # a subnormal met only inside the backward pass is flushed (reftape's deferred checks run the pass again), after
    # a short and a long run of clean outputs (one batch of checks, several): the gradient is 0, not about 1
    # (complex products flush their parts themselves; test_ops checks the deferred checks on complex outputs)
    **{f"backward_subnormal_flushed/float32/{run}": "x = tf.Variable(1.0)\nwith tf.GradientTape() as t:\n"
                                                    f"    y = x * 1e38\n    for _ in range({run}):\n        y = y * 1.0\n"
                                                    "    y = y * 1e-20\nr = t.gradient(y, x, output_gradients=tf.constant(1.1e-18))"
       for run in (0, 300)},
    "backward_subnormal_flushed/float64": "x = tf.Variable(tf.constant(1.0, tf.float64))\n"
                                         "with tf.GradientTape() as t:\n    y = (x * 1e308) * 1e-160\n"
                                         "r = t.gradient(y, x, output_gradients=tf.constant(2e-148, tf.float64))",
    # TF runs stop_gradient with every tape paused: a variable read for it is not watched (found by the random
    # differential run); IndexedSlices keep their form
    "stop_gradient_variable_not_watched": "v = tf.Variable([1.0, 2.0]); w = tf.Variable([3.0, 4.0])\n"
                                          "with tf.GradientTape() as t:\n    y = tf.stop_gradient(v) * w + tf.stop_gradient(w)\n"
                                          "r = (t.watched_variables(), t.gradient(y, [v, w]))",
    "stop_gradient_indexed_slices": "r = tf.stop_gradient(tf.IndexedSlices(tf.constant([[1.0, 2.0]]), tf.constant([1]), "
                                    "tf.constant([3, 2])))",
    # concat of one value is TF's identity of it: a new tensor (watching it watches nothing else), and
    # IndexedSlices kept, so that a one-piece split passes a gather's sparse gradient through (found by the
    # random differential run); with two pieces they are densified
    "concat_one_value_is_a_new_tensor": "x = tf.constant([1.0, 2.0])\nwith tf.GradientTape() as t:\n"
                                        "    y = tf.concat([x], 0)\n    t.watch(y)\n    z = y * y\n"
                                        "r = (t.gradient(z, x), y is x)",
    **{f"split_gather_gradient/{sizes}": "v = tf.Variable([[1.0], [2.0], [3.0]])\nwith tf.GradientTape() as t:\n"
                                         f"    q = tf.gather(tf.split(v, {sizes}, axis=0)[-1], [1])\nr = t.gradient(q, v)"
       for sizes in ("[3]", "[1, 2]")},
    **{f"{function}_of_indexed_slices": f"r = tf.{function}(tf.IndexedSlices(tf.constant([[1.0, 2.0]]), tf.constant([1]), "
                                        f"tf.constant([3, 2])){', 0' if function == 'concat' else ''})"
       for function in ("identity", "concat")},
    # a gradient call that fails (softsign has no second-order gradient) still takes every op of a non-persistent
    # tape: later calls fail for want of a target's producer, or see seeds only (found by the random differential
    # run); a persistent tape keeps its ops
    **{f"failed_pass_then/{'-'.join(order)}/persistent={persistent}": (
        f"x = tf.Variable([2.0, 1.7]); c = tf.constant([1.0, 2.0])\nwith tf.GradientTape(persistent={persistent}) as t0:\n"
        "    t0.watch(c)\n    with tf.GradientTape() as t1:\n        y = tf.nn.softsign(x)\n"
        "    g = t1.gradient(y, x)\n    z = c * 3.0 + g\nr = []\n"
        f"for target, seed in {'[' + ', '.join({'g': '(g, None)', 'gs': '(g, tf.ones(2))', 'z': '(z, None)'}[n] for n in order) + ']'}:\n"
        "    try:\n        r.append(t0.gradient(target, c, output_gradients=seed))\n"
        "    except (LookupError, tf.errors.InternalError, RuntimeError) as error:\n        r.append(type(error).__name__)")
       for order in (("g", "g", "gs", "z"), ("g", "z", "g")) for persistent in (False, True)},
    # TF's TanhGrad gradient multiplies its upstream by -2.0 with Python's operator: an IndexedSlices upstream (a
    # gather of the first-order gradient) is a TypeError there; SigmoidGrad's densifies it (found by the fuzzer)
    **{f"gradient_of_gathered_gradient/{op}": "x = tf.constant([0.3, -0.5, 0.8])\nwith tf.GradientTape() as outer:\n"
                                              "    outer.watch(x)\n    with tf.GradientTape() as inner:\n"
                                              f"        inner.watch(x)\n        y = tf.{op}(x)\n"
                                              "    z = tf.gather(inner.gradient(y, x), [2, 0])\nr = outer.gradient(z, x)"
       for op in ("tanh", "sigmoid")},
    # unconnected Variable sources read by the jacobians (found by the fuzzer): batch_jacobian takes its source's shape
    # with array_ops.shape, a read; jacobian's loop fills each row with zeros_like(source) under 'zero', a read too
    **{f"jacobian_reads_unconnected_variable/{method}/{unconnected}/pfor={pfor}":
       "x = tf.constant([[1.0, 2.0]])\nwith tf.GradientTape() as outer:\n"
       "    with tf.GradientTape(persistent=True) as t:\n        t.watch(x); v = tf.Variable([[3.0, 4.0]]); y = x * x\n"
       f"        j = t.{method}(y, v, unconnected_gradients='{unconnected}', experimental_use_pfor={pfor})\n"
       "r = (j, t.watched_variables(), outer.watched_variables())"
       for method in ("jacobian", "batch_jacobian") for unconnected in ("none", "zero") for pfor in (False, True)},
    # a custom gradient's grad_fn runs once per gradient, even in a backward pass that meets a subnormal (which
    # reftape runs again)
    "custom_gradient_grad_fn_runs_once": "calls = []\n@tf.custom_gradient\ndef f(x):\n"
                                         "    return x * 2.0, lambda dy: calls.append(1) or dy * 2.0\n"
                                         "x = tf.constant(1.0)\nwith tf.GradientTape() as t:\n    t.watch(x)\n"
                                         "    y = f(x * 1e38) * 1e-20\n"
                                         "r = (t.gradient(y, x, output_gradients=tf.constant(1.1e-18)), len(calls))",
    # an unwatched constant, target and source, loses its seed once an op of the pass reads it: here only
    # through the condition of a where, a comparison TF records without a gradient
    **{f"unheld_target_read_through_a_where_condition/{unconnected}/{seeded}":
       "x, u = tf.constant([1.0, 2.0]), tf.constant([3.0, 4.0])\nwith tf.GradientTape() as t:\n"
       "    t.watch(x)\n    w = tf.where(tf.less_equal(x - u, 1.0), x, 0.0)\n"
       f"r = t.gradient([w, u], u, output_gradients={seeded}, unconnected_gradients='{unconnected}')"
       for unconnected in ("none", "zero") for seeded in ("None", "[tf.ones(2), tf.constant([5.0, 6.0])]")},
    # TF's gradients of broadcasting binary ops (here realdiv) and of reshapes read their operands' shapes
    # through Shape ops and reshape to them: a tape recording the backward pass reaches the operands
    # through those reads, and an unheld target they consumed loses its seed
    **{f"unheld_target_read_through_a_gradients_shape_read/{op}/{tracked}":
       "c15, c17, c25 = tf.constant([[0.0], [0.0]]), tf.constant([[-0.84], [-1.04]]), tf.constant([[2.31], [2.31]])\n"
       f"with tf.GradientTape() as t0:\n    t0.watch([c17{', c25' if tracked else ''}])\n"
       "    with tf.GradientTape(persistent=True) as t1:\n        t1.watch([c15, c25])\n"
       f"        g14 = c15 + c17\n        y26 = {op}\n        g28 = t1.gradient(y26, c15)\n"
       "    r = t0.gradient([g28, c15], c15, unconnected_gradients='zero')"
       for op in ("g14 / c25", "g14 * c25", "tf.reshape(g14 * c25, [2])", "tf.maximum(g14, c25)")
       for tracked in (True, False)},
    # the same through reduce_sum's and reduce_mean's gradients (found by the fuzzer): in eager mode TF's reads
    # Shape(input) unless the reduction indices, as given, are [0, 1, ..., rank - 1]; broadcast_to's always reads
    # it. A tape recording that gradient (a persistent tape its own, or an outer tape an inner one's) reaches
    # maximum, which read the unwatched constant c, from the gradient; maximum's recorded VJP reads c too
    **{f"unheld_target_read_through_a_recorded_gradient/{via}/{tapes}/{unconnected}": (
        "c = tf.constant([[3.0, 0.5]]); v = tf.Variable([[1.0, 1.0]]); w = tf.Variable([[1.0, 2.0]])\n"
        + (f"with tf.GradientTape(persistent=True) as t0:\n    y = {target}\n    t1 = t0\n"
           if tapes == "persistent_itself" else
           f"with tf.GradientTape() as t0:\n    with tf.GradientTape() as t1:\n        y = {target}\n")
        + f"    seed = tf.zeros(y.shape); t0.watch(seed)\n    g = t1.gradient(y, {source}, output_gradients=seed)\n"
        f"r = t0.gradient({{'c': g, 'a': c}}, {{'b': c}}, unconnected_gradients='{unconnected}')")
       for via, target, source in [
           ("sum_last_axis", "tf.reduce_sum(tf.maximum(c, v) + w, axis=-1)", "w"),
           ("sum_last_axis_kept", "tf.reduce_sum(tf.maximum(c, v) + w, axis=1, keepdims=True)", "w"),
           ("sum_axes_out_of_order", "tf.reduce_sum(tf.maximum(c, v) + w, axis=[1, 0])", "w"),
           ("sum_every_axis_in_order", "tf.reduce_sum(tf.maximum(c, v) + w, axis=[0, 1])", "w"),
           ("sum_of_everything", "tf.reduce_sum(tf.maximum(c, v) + w)", "w"),
           ("mean_last_axis", "tf.reduce_mean(tf.maximum(c, v) + w, axis=1)", "w"),
           ("mean_of_everything", "tf.reduce_mean(tf.maximum(c, v) + w)", "w"),
           ("broadcast_to", "tf.broadcast_to(tf.maximum(c, v) + w, [3, 2])", "w"),
           ("elementwise", "(tf.maximum(c, v) + w) * 2.0", "w"),
           ("maximums_vjp", "(tf.maximum(c, v) + w) * 2.0", "v")]
       for tapes in ("persistent_itself", "outer_records_inner") for unconnected in ("none", "zero")},
    # a vectorized jacobian's loop body returns its gradient before an outer tape needs the loop's own gradient:
    # where that fails (an op without a gradient inside), the one-shot tape is already spent; a gradient call that
    # fails inside the loop body leaves it usable (found by the uniform campaign)
    **{f"one_shot_tape_after_a_failed_vectorized_jacobian/{label}/{method}/outer_persistent={persistent}": (
        "@tf.custom_gradient\ndef broken(x):\n    def grad(u):\n        raise ValueError('broken')\n"
        "    return tf.identity(x), grad\n"
        "x = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])\nr = []\n"
        f"with tf.GradientTape(persistent={persistent}) as t0:\n    t0.watch(x)\n"
        "    with tf.GradientTape() as t1:\n        t1.watch(x)\n"
        f"        y = tf.reshape(tf.sin({op}), [3, -1])\n"
        f"    try:\n        r.append(t1.{method}(y, x))\n"
        "    except Exception as error:\n"
        "        r.append(type(error).__name__)\n"
        "    for tape in (t1, t0):\n"
        "        try:\n            r.append(tape.gradient(tf.reduce_sum(x * x), x))\n"
        "        except RuntimeError as error:\n            r.append(str(error))")
       for label, op in [("sparse_segment_sqrt_n", "tf.sparse.segment_sqrt_n(x, indices=[1, 1, 0], segment_ids=[0, 1, 2])"),
                         ("lrn", "tf.nn.local_response_normalization(tf.reshape(x, [1, 1, 3, 2]))"),
                         ("failing_gradient", "broken(x)")]
       for method in ("jacobian", "batch_jacobian") for persistent in (False, True)},
    # ops without a gradient that TF records take numbers on the tape, which order the parts of an
    # IndexedSlices gradient of several targets (tf.size and tf.rank are constants in eager mode)
    **{f"ops_without_gradient_take_tape_numbers/{read}":
       "x = tf.constant(np.arange(40.0, dtype=np.float32))\nwith tf.GradientTape() as t:\n"
       f"    t.watch(x)\n    ys = [tf.gather(x, [0])]\n    for _ in range(8):\n        {read}\n"
       "    ys += [tf.gather(x, [i]) for i in range(1, 6)]\nr = t.gradient(ys, x)"
       for read in ("tf.greater(x, 0.0)", "tf.equal(x, 1.0)", "tf.math.argmax(x)", "tf.shape(x)",
                    "tf.shape(x, out_type=tf.int64)", "tf.size(x); tf.rank(x)", "tf.ones_like(x)",
                    "tf.clip_by_norm(x, 1.0)")},  # clip_by_norm: a comparison, and a Shape for v1 ones_like
}


@pytest.mark.parametrize("name", snippets(TAPE_SNIPPETS))
def test_tape_snippet_matches_tensorflow(name, tf, candidate):
    from reftape_properties.judge.compare import compare_values
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        found = compare_values(reference_outcomes.statements_outcome(TAPE_SNIPPETS[name], tf),
                               run_statements(TAPE_SNIPPETS[name], candidate))
    assert not found, "\n".join(d.summary() for d in found)


def test_the_reference_runs_every_tape_snippet(tf):
    assert not reference_outcomes.reference_faults(TAPE_SNIPPETS, tf)


# Planted tape snippets the harness must refuse: each is a harness error, never an agreement.
BROKEN_TAPE_SNIPPETS = {
    "does not compile": "x = tf.constant(1.0)\nwith tf.GradientTape() as t:\nt.watch(x)\nr = 1",
    "a name the snippet lacks": "x = tf.constant(1.0)\nwith tf.GradientTape() as t:\n    t.watch(x)\n"
                                "    y = x * undefined_name\nr = t.gradient(y, x)",
    "no result r": "x = tf.constant(1.0)\nwith tf.GradientTape() as t:\n    t.watch(x)\n    y = x * x",
}


@pytest.mark.parametrize("code", BROKEN_TAPE_SNIPPETS.values(), ids=BROKEN_TAPE_SNIPPETS.keys())
def test_a_broken_tape_snippet_is_a_harness_error(code, tf, rt):
    from reftape_properties.judge.compare import compare_values

    found = compare_values(run_statements(code, tf), run_statements(code, rt))
    assert [d.kind for d in found] == ["harness"], [d.summary() for d in found]


def test_the_reference_run_check_names_each_broken_snippet(tf):
    """`reference_faults`, which every snippet suite asks of its reference, fires on each planted broken one
    (and with a TF name the reference lacks), and passes a snippet that runs."""
    planted = {**BROKEN_TAPE_SNIPPETS, "a name tf lacks": "r = tf.no_such_function(1.0)", "runs": "r = tf.constant(1.0)"}
    assert set(reference_faults(planted, tf)) == set(planted) - {"runs"}
    # the memoized check the suites use, computing and then reading back: the same names both times
    assert set(reference_outcomes.reference_faults(planted, tf)) == set(planted) - {"runs"}
    assert set(reference_outcomes.reference_faults(planted, tf)) == set(planted) - {"runs"}
    # and the memoized comparison still finds a broken snippet a harness error
    assert [d.kind for d in reference_outcomes.snippet_discrepancies(planted["no result r"], tf, tf)] == ["harness"]


def test_a_program_the_reference_did_not_run_is_never_an_agreement():
    """Outcomes of programs: an error of kind "harness" on either side, a reference that lacks a name
    or raised NameError/SyntaxError (outside the code under test) is one harness discrepancy, even where
    both sides ended the same way; a candidate's NameError where the reference ran is its outcome."""
    from reftape_oracle.outcome import Outcome
    from reftape_properties.judge.compare import compare

    name_error = {"kind": "exception", "class": "NameError", "message": "name 'x' is not defined"}
    harness = {"kind": "harness", "message": "generated code does not compile: invalid syntax"}
    for expected, actual in ((name_error, name_error), (harness, harness), (None, harness),
                             ({"kind": "missing", "names": ["sin"]}, {"kind": "missing", "names": ["sin"]}),
                             ({**name_error, "class": "IndentationError"}, {**name_error, "class": "IndentationError"})):
        found = compare(Outcome("tensorflow", error=expected), Outcome("reftape", error=actual))
        assert [d.kind for d in found] == ["harness"], (expected, actual)
    found = compare(Outcome("tensorflow"), Outcome("reftape", error=name_error))
    assert [d.kind for d in found] == ["exception"]


def test_evaluate_refuses_a_reference_that_raises_outside_the_code_under_test():
    """A planted reference whose sin raises NameError: `evaluate` raises HarnessError, never agrees."""
    import types

    import reftape
    from reftape_oracle.outcome import HarnessError

    reference = types.ModuleType("name_error_reference")
    reference.__dict__.update({k: v for k, v in vars(reftape).items() if not k.startswith("__")})
    reference.sin = lambda x, name=None: undefined_name  # noqa: F821 - the planted fault
    candidate = types.ModuleType("name_error_candidate")
    candidate.__dict__.update(vars(reference))
    program = Program([constant("x", [0.5, 1.0]), Tape("t", [Watch("t", ["x"]), Op("y", "sin", ["x"])]),
                       Call("g", "t", "gradient", "y", "x")], ["y"])
    with pytest.raises(HarnessError, match="raised NameError"):
        evaluate(program, candidate, reference, judge=False)


def test_a_program_reading_the_name_of_a_call_that_raised_runs_on_both_sides():
    """In a program, a call that raised leaves its name unbound and a later op reading it raises
    UnboundLocalError on both sides: the program's own outcome, which agrees, never a harness error (a
    NameError still is one: a validated program defines every name it reads)."""
    program = Program([constant("x", [0.5, 1.0]), Tape("t", [Watch("t", ["x"]), Op("y", "sin", ["x"])]),
                       Call("g", "t", "gradient", "y", "y", output_gradients="x"),  # a shape TF refuses
                       Call("h", "t", "gradient", "y", "x"), Op("z", "multiply", ["h", "x"])], ["y"])
    outcome = run(program, "tensorflow")
    assert outcome.error["class"] == "UnboundLocalError" and "h" in outcome.error["message"]
    assert evaluate(program, CANDIDATE, judge=False) is None


# KNOWN_DIVERGENCES.md, "Outside the program language": TF's outcome, and reftape's different one
KNOWN_OUTSIDE_PROGRAMS = {
    "none_output_gradient_through_identity": (
        "x = tf.constant([1.0, 2.0])\nwith tf.GradientTape() as t:\n    t.watch(x)\n    z, w = x * 3.0, tf.identity(x)\n"
        "r = t.gradient([z, w], x, output_gradients=[tf.ones(2), None])"),
    "bias_add_nchw_under_a_vectorized_jacobian": (
        "x, b = tf.ones([2, 3]), tf.constant([1.0, 2.0, 3.0])\nwith tf.GradientTape() as t:\n    t.watch(b)\n"
        "    y = tf.nn.bias_add(x, b, data_format='NCHW')\nr = t.jacobian(y, b)"),
    # Decompositions (issue 24): LAPACK's vectors, not Eigen's (the catalog draws only sign-invariant targets)
    "eigh_eigenvector_signs": "r = tf.linalg.eigh(tf.constant([[2.0, 1.0, 0.5], [1.0, -1.0, 0.25], [0.5, 0.25, 3.0]]))[1]",
    "tridiagonal_solve_perturb_singular": "r = tf.linalg.tridiagonal_solve(tf.constant([[0.0, 0.0], [0.0, 3.0], [0.0, 0.0]]), "
                                          "tf.ones([2, 1]), perturb_singular=True)",
    "svd_singular_vector_signs": "r = tf.linalg.svd(tf.constant([[2.0, 1.0, 0.5], [1.0, -1.0, 0.25], [0.5, 0.25, 3.0]]))[1:]",
}
KNOWN_OUTSIDE_PROGRAMS["roll_negative_axis_under_a_vectorized_jacobian"] = (  # issue 24
    "x = tf.constant([[1.0, 2.0], [3.0, 4.0]])\nwith tf.GradientTape() as t:\n    t.watch(x)\n"
    "    y = tf.roll(x, 1, -1)\nr = t.jacobian(y, x)")


@pytest.mark.parametrize("name", KNOWN_OUTSIDE_PROGRAMS)
def test_known_divergence_outside_programs_still_reproduces(name, tf):
    import reftape
    from reftape_properties.judge.compare import compare_values

    code = KNOWN_OUTSIDE_PROGRAMS[name]
    expected, actual = run_statements(code, tf), run_statements(code, reftape)
    assert "exception" not in (expected["kind"], actual["kind"]) or expected["kind"] != actual["kind"], (expected, actual)
    assert compare_values(expected, actual), f"{name} no longer diverges: remove it from KNOWN_DIVERGENCES.md"

