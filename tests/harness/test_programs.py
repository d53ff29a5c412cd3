"""Programs as data: every program feature runs on TensorFlow and reftape and agrees; printed
scripts reproduce the interpreter; JSON round-trips exactly; the comparison behaves (the referee:
test_referee.py)."""

import json
import math
import re
import subprocess
import sys

import numpy as np
import pytest

from reftape_oracle import run
from reftape_oracle.isolated import run_isolated
from reftape_properties.judge.compare import compare
from reftape_oracle.outcome import HarnessError
from reftape_properties.pipeline import evaluate
from reftape_oracle.outcome import Outcome, describe
from reftape_oracle.program import (Accumulator, Call, Cond, Jvp, WhileLoop, Leaf, ListLiteral, Op, Program, Reset, StopRecording, Tape, Watch,
                                    WatchedVariables, walk)
from reftape_properties.judge.tolerance import Tolerance, compare_arrays, epsilon


def f32(*values):
    return np.array(values, np.float32)


def leaves():
    return [Leaf("v", "variable", f32(0.5, -1.5, 2.0), "float32"),
            Leaf("frozen", "variable", f32(1.0, 2.0, 3.0), "float32", trainable=False),
            Leaf("c", "constant", f32(0.25, -0.0, 4.0), "float32"),
            Leaf("d", "constant", np.array([1.5, 2.5], np.float64), "float64"),
            Leaf("i", "constant", np.array([1, 2, 3], np.int32), "int32"),
            Leaf("og", "constant", f32(1.0, -2.0, 0.5), "float32")]


PROGRAMS = {
    "structures-and-unconnected": Program(leaves() + [
        Tape("t", persistent=True, body=[
            Watch("t", ["c", "i"]),
            Op("a", "multiply", ["v", "c"]),
            Op("b", "math.sin", ["a"]),
            Op("e", "add", ["b", "frozen"]),
            Op("s", "reduce_sum", ["e"]),
            Op("k", "multiply", ["i", "i"]),
        ]),
        Call("g_list", "t", "gradient", "s", {"list": ["v", "c", "frozen", "d"]}),
        Call("g_tuple_zero", "t", "gradient", "s", {"tuple": ["v", "d"]}, unconnected="zero", unconnected_form="enum"),
        Call("g_dict_nested", "t", "gradient", {"list": ["s", "e"]},
             {"dict": [["z", "c"], ["a", {"list": ["v", {"tuple": ["i"]}]}]]}, unconnected="zero",
             unconnected_form="string"),
        Call("g_og", "t", "gradient", "e", "v", output_gradients={"list": ["og"]}),
        Call("g_int", "t", "gradient", "k", "i"),
        Call("g_repeat", "t", "gradient", "s", {"list": ["v", "c"]}),
    ], outputs=["s", "e", "k"]),
    "watch-accessed-variables-off": Program(leaves() + [
        Tape("t", persistent=True, watch_accessed_variables=False, body=[
            Watch("t", ["frozen"]),
            Op("a", "multiply", ["v", "frozen"]),
            Op("s", "math.reduce_logsumexp", ["a"]),
        ]),
        Call("g", "t", "gradient", "s", {"list": ["v", "frozen"]}),
    ], outputs=["s"]),
    "stop-recording-and-reset": Program(leaves() + [
        Tape("t", persistent=True, body=[
            Watch("t", ["c"]),
            Op("before", "square", ["c"]),
            Reset("t"),
            Op("a", "exp", ["c"]),
            StopRecording("t", [Op("hidden", "math.log1p", ["v"])]),
            Op("b", "multiply", ["v", "v"]),
        ]),
        Call("g_before", "t", "gradient", "before", "c"),
        Call("g_after_reset", "t", "gradient", {"list": ["a", "b"]}, {"list": ["c", "v"]}),
        Call("g_hidden", "t", "gradient", "hidden", "v", unconnected="zero", unconnected_form="string"),
    ], outputs=["a", "b", "hidden"]),
    "non-persistent-repeated-call": Program(leaves() + [
        Tape("t", body=[Op("a", "nn.softplus", ["v"])]),
        Call("first", "t", "gradient", "a", "v"),
        Call("second", "t", "gradient", "a", "v"),
        Call("jacobian_after", "t", "jacobian", "a", "v"),
    ], outputs=["a"]),
    "higher-order-nested": Program(leaves() + [
        Tape("outer", body=[
            Watch("outer", ["c"]),
            Tape("inner", body=[
                Watch("inner", ["c"]),
                Op("cube", "pow", ["c", "c"]),
                Op("y", "reduce_sum", ["cube"]),
            ]),
            Call("dy", "inner", "gradient", "y", "c"),
            Op("dys", "reduce_sum", ["dy"]),
        ]),
        Call("d2y", "outer", "gradient", "dys", {"list": ["c", "v"]}),
    ], outputs=["y"]),
    "jacobians": Program([
        Leaf("x", "constant", f32(0.3, -0.7, 1.1, 2.0).reshape(2, 2), "float32"),
        Leaf("w", "variable", f32(1.0, -1.0, 0.5, 2.0).reshape(2, 2), "float32"),
        Leaf("i2", "constant", np.array([[1, 2], [3, 4]], np.int32), "int32"),
        Tape("t", persistent=True, body=[
            Watch("t", ["x"]),
            Op("m", "matmul", ["x", "w"]),
            Op("y", "nn.softmax", ["m"]),
            Op("g", "gather", ["y"], {"indices": (1, 0, 1), "axis": 0}),
        ]),
        Call("j", "t", "jacobian", "y", {"list": ["x", "w"]}),
        Call("j_loop", "t", "jacobian", "y", "x", use_pfor=False),
        Call("bj", "t", "batch_jacobian", "y", "x"),
        Call("sparse", "t", "gradient", "g", {"list": ["y", "x"]}),
        Call("j_unconnected", "t", "jacobian", "m", "y", unconnected="zero", unconnected_form="enum"),
        Call("j_variable_partly_connected", "t", "jacobian", "g", {"list": ["w", "x"]}, unconnected="zero",
             unconnected_form="enum"),
        Call("bj_variable_unconnected", "t", "batch_jacobian", "x", "w", unconnected="zero", unconnected_form="string"),
        Call("bj_unconnected_none", "t", "batch_jacobian", "y", "i2"),
        Call("bj_unconnected_zero", "t", "batch_jacobian", "y", "i2", unconnected="zero", unconnected_form="string"),
        Call("bj_unconnected_zero_loop", "t", "batch_jacobian", "y", "i2", unconnected="zero",
             unconnected_form="string", use_pfor=False),
    ], outputs=["y", "g"]),
    "special-values": Program([
        Leaf("x", "constant", np.array([0.0, -0.0, math.inf, -math.inf, math.nan, 1e-30], np.float32), "float32"),
        Leaf("b", "constant", np.array([0.0, 1.5, -2.0, 3.0, 0.5, 7.0], np.float32).astype("float32"), "bfloat16"),
        Tape("t", persistent=True, body=[
            Watch("t", ["x", "b"]),
            Op("r", "math.sqrt", ["x"]),
            Op("q", "nn.relu", ["b"]),
        ]),
        Call("gr", "t", "gradient", "r", "x"),
        Call("gq", "t", "gradient", "q", "b"),
    ], outputs=["r", "q"]),
    "sparse-gradients-pass-through": Program(leaves() + [
        Tape("t", persistent=True, body=[
            Op("s", "math.add_n", ["v", "c"]),
            Op("n", "negative", ["v"]),
            Op("k", "cast", ["v"], {"dtype": "float64"}),
            Op("p", "add", ["v", "og"]),
            Op("gs", "gather", ["s"], {"indices": (0, 2), "axis": 0}),
            Op("gn", "gather", ["n"], {"indices": (1,), "axis": 0}),
            Op("gk", "gather", ["k"], {"indices": (2, 2), "axis": 0}),
            Op("gp", "gather", ["p"], {"indices": (0,), "axis": 0}),
        ]),
        Call("through_add_n", "t", "gradient", "gs", "v"),
        Call("through_neg", "t", "gradient", "gn", "v"),
        Call("through_cast", "t", "gradient", "gk", "v"),
        Call("densified_by_add", "t", "gradient", "gp", "v"),
    ]),
    "jacobian-recorded-through-an-unregistered-gradient": Program(leaves() + [
        Leaf("i2", "constant", np.array([[1, 2, 3]], np.int32), "int32"),
        Tape("outer", body=[
            Watch("outer", ["c"]),
            Tape("inner", persistent=True, body=[Watch("inner", ["c"]), Op("s", "nn.softsign", ["c"]),
                                                 Op("s2", "reshape", ["s"], {"shape": (1, 3)})]),
            Call("vectorized", "inner", "jacobian", "s", "c"),
            Call("looped", "inner", "jacobian", "s", "c", use_pfor=False),
            Call("plain", "inner", "gradient", "s", "c"),
            Call("unconnected", "inner", "batch_jacobian", "s2", "i2", unconnected="zero", unconnected_form="string"),
        ]),
        Call("after", "inner", "jacobian", "s", "c"),
    ]),
    "untracked-target-consumed-by-a-recorded-op": Program(leaves() + [
        Tape("t", persistent=True, body=[
            Watch("t", ["og"]),
            Op("m", "multiply", ["c", "og"]),
            Op("s", "concat", ["c", "og"], {"axis": 0}),
        ]),
        Call("seed_erased", "t", "gradient", {"list": ["c", "m"]}, "c"),
        Call("seed_kept", "t", "gradient", {"list": ["c"]}, "c"),
        Call("seed_erased_concat", "t", "gradient", {"list": ["s", "c"]}, {"list": ["c", "og"]}),
    ]),
    "recorded-with-a-none-gradient-vs-not-recorded": Program(leaves() + [
        Tape("t", persistent=True, body=[
            Watch("t", ["c"]),
            Op("f", "floor", ["c"]), Op("d", "math.floordiv", ["c", "og"]), Op("s", "stop_gradient", ["c"]),
        ]),
        Call("floor_tracked", "t", "jacobian", "f", "f"),
        Call("floordiv_tracked", "t", "jacobian", "d", "d"),
        Call("stop_gradient_untracked", "t", "jacobian", "s", "s"),
        Call("floor_to_source", "t", "gradient", "f", "c", unconnected="zero", unconnected_form="string"),
    ]),
    "mixed-dtype-error": Program(leaves() + [Op("bad", "add", ["c", "d"])], outputs=["bad"]),
    "python-int-first-converted-alone": Program(leaves() + [Leaf("three", "python", np.array(3), "int64"),
                                                            Op("bad", "add", ["three", "c"])], outputs=["bad"]),
    "namedtuples-and-watched-variables": Program(leaves() + [
        Tape("t", persistent=True, body=[
            Watch("t", ["c", "frozen"]),
            Op("a", "multiply", ["v", "c"]),
            WatchedVariables("inside", "t"),
        ]),
        Call("g", "t", "gradient", "a", {"namedtuple": ["Pair", [["first", "c"], ["second", {"list": ["v"]}]]]}),
        Call("h", "t", "gradient", {"namedtuple": ["Targets", [["only", "a"]]]}, {"tuple": ["v"]},
             {"namedtuple": ["Targets", [["only", "og"]]]}),
        WatchedVariables("after", "t"),
    ]),
    "python-and-numpy-operands-and-lists": Program(leaves() + [
        Leaf("half", "python", np.array(0.5), "float64"),
        Leaf("three", "python", np.array(3), "int64"),
        Leaf("row", "python", np.array([1.5, -0.0, 2.0]), "float64"),
        Leaf("wide", "numpy", np.array([0.25, 1e-40, -2.0]), "float64"),
        Leaf("scalar16", "numpy", np.array(1.5, np.float16), "float16"),
        Tape("t", persistent=True, body=[
            Watch("t", ["c"]),
            Op("a", "multiply", ["v", "half"]),
            Op("b", "add", ["c", "row"]),
            Op("p", "pow", ["a", "three"]),
            Op("w", "subtract", ["c", "wide"]),
            Op("h", "multiply", ["d", "scalar16"]),
            Op("first_python", "add", ["half", "c"]),   # converted alone: float32, as c is
            ListLiteral("pair", ["a", "v"]),
            ListLiteral("mixed", ["b", "row"]),
            ListLiteral("nested", ["pair", "mixed"]),
            Op("packed", "math.sin", ["nested"]),
            Op("total", "reduce_sum", ["packed"]),
        ]),
        Call("g", "t", "gradient", "total", {"list": ["v", "c"]}),
        Call("j", "t", "jacobian", "packed", "v"),
        WatchedVariables("watched", "t"),
    ], outputs=["a", "b", "p", "w", "h", "first_python", "packed", "pair", "row", "wide", "scalar16"]),
    # Loops run eagerly: each iteration's ops are recorded (c read inside the body, a closure, is watched);
    # none run at trips=0, whose output is its loop variable itself. An accumulator around them and a tape
    # inside it: the jvps of a loop's output, of the tape's gradient (forward over reverse) and of an
    # unconnected target (None, and zeros).
    "loops-and-forward-mode": Program(leaves() + [
        Accumulator("acc", ["v", "c"], ["og", "c"], [
            Tape("t", persistent=True, body=[
                Watch("t", ["c"]),
                WhileLoop("w3", "v", "p", [Op("p_sin", "math.sin", ["p"]), Op("p_next", "multiply", ["p_sin", "c"])],
                          "p_next", trips=3),
                WhileLoop("w0", "c", "q", [Op("q_tanh", "math.tanh", ["q"])], "q_tanh", trips=0),
                Op("y", "add", ["w3", "w0"]),
                Op("unrelated", "math.exp", ["d"]),
            ]),
            Call("g", "t", "gradient", "y", {"list": ["v", "c"]}),
            Jvp("j_inside", "acc", "w3")]),
        Jvp("j_after", "acc", {"list": ["y", "g[0]"]}),
        Jvp("j_none", "acc", "unrelated"),
        Jvp("j_zero", "acc", "unrelated", unconnected="zero"),
    ], outputs=["w3", "w0", "y"]),
    # A cond runs eagerly the branch its predicate selects, nothing of the other: a source only the other branch
    # reads has no gradient (None, and zeros with "zero"); a branch may return what it reads from outside, a
    # Python bool and a boolean tensor select alike, and a cond sits in a loop body's scope like any op.
    "conds": Program(leaves() + [
        Tape("t", persistent=True, body=[
            Watch("t", ["c", "og"]),
            Cond("k", True, [Op("k_sin", "math.sin", ["v"]), Op("k_mul", "multiply", ["k_sin", "c"])], "k_mul",
                 [Op("k_exp", "math.exp", ["og"])], "k_exp"),
            Cond("m", False, [Op("m_tanh", "math.tanh", ["k"])], "m_tanh", [], "c", tensor_predicate=True),
            Op("y", "add", ["k", "m"]),
        ]),
        Call("g", "t", "gradient", "y", {"list": ["v", "c", "og"]}),
        Call("z", "t", "gradient", "y", {"list": ["v", "og"]}, unconnected="zero", unconnected_form="string"),
        Call("j", "t", "jacobian", "k", "v"),
        WatchedVariables("watched", "t"),
    ], outputs=["k", "m", "y"]),
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_program_agrees_with_tensorflow(name):
    program = PROGRAMS[name]
    expected, actual = run(program, "tensorflow"), run(program, "reftape")
    assert expected.calls or expected.values or expected.error
    assert not any(o.error and o.error["kind"] == "harness" for o in (expected, actual)), expected.error
    found = compare(expected, actual, program)
    assert not found, "\n".join(f"{d.kind} {d.where}: TF {d.expected} vs {d.actual}" for d in found)


@pytest.mark.parametrize("backend", ["tensorflow", "reftape"])
@pytest.mark.parametrize("name", ["structures-and-unconnected", "higher-order-nested", "special-values",
                                  "namedtuples-and-watched-variables", "python-and-numpy-operands-and-lists",
                                  "loops-and-forward-mode", "conds"])
def test_printed_script_reproduces_the_interpreter(name, backend):
    program = PROGRAMS[name]
    script = program.to_source(backend)
    printed = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True,
                             env={"TF_CPP_MIN_LOG_LEVEL": "3", "PATH": "/usr/bin:/bin"}).stdout
    assert json.loads(printed.strip().splitlines()[-1]) == json.loads(json.dumps(run(program, backend).observed()))


def test_printed_tensorflow_script_configures_tensorflow_as_the_oracle_does():
    """Known divergence 1's program: TF's softmax cross entropy answers differently with op determinism
    (which the oracle turns on) than without, so a printed script must turn it on too."""
    from reftape_properties.judge.known import KNOWN

    program = KNOWN[0].program
    printed = subprocess.run([sys.executable, "-c", program.to_source("tensorflow")], capture_output=True, text=True,
                             check=True, env={"TF_CPP_MIN_LOG_LEVEL": "3", "PATH": "/usr/bin:/bin"}).stdout
    assert json.loads(printed.strip().splitlines()[-1]) == json.loads(json.dumps(run(program, "tensorflow").observed()))


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_json_round_trip_is_exact(name):
    program = PROGRAMS[name]
    again = Program.from_json(program.to_json())
    assert again.to_json() == program.to_json()
    for old, new in zip(program.statements, again.statements):
        if isinstance(old, Leaf):
            assert new.value.dtype == old.value.dtype
            assert np.array_equal(np.signbit(new.value), np.signbit(old.value))
            assert np.array_equal(new.value, old.value, equal_nan=True)


# -- the comparison ----------------------------------------------------------------------------

def _outcome(value) -> Outcome:
    return Outcome("test", calls={"g": value})


def _kinds(expected, actual):
    return [d.kind for d in compare(_outcome(expected), _outcome(actual))]


def t(values, dtype="float32"):
    return describe(np.array(values, dtype), None)


def test_values_computed_through_half_precision_get_its_tolerance():
    program = Program([Leaf("h", "constant", np.array([0.0, 0.0, 0.0], np.float16), "float16"),
                       Op("s", "nn.softmax", ["h"]), Op("w", "cast", ["s"], {"dtype": "float64"})], ["w"])
    third = np.float64(np.float16(1 / 3))
    expected = Outcome("tf", values={"w": describe(np.full(3, third), None)})
    one_ulp_off = Outcome("rt", values={"w": describe(np.full(3, third + 2.0 ** -12), None)})  # float16 ulp at 1/3
    assert compare(expected, one_ulp_off, program) == []
    assert [d.kind for d in compare(expected, one_ulp_off)] == ["value"]  # without the program: float64


def test_cancellation_keeps_the_absolute_error_of_what_it_computed_from():
    """floormod(x, 1) of an x near -8.3 keeps x's absolute rounding error (2 ulps of 8.3, from valid
    float32 log/pow kernels of either library) in a result near 0.7: within tolerance once the floor is
    scaled by x's magnitude, and only where the result was computed from x. A real error still fails."""
    x, result = np.float32(-8.295334), np.float32(0.70454)
    program = Program([Leaf("x", "constant", np.array([x]), "float32"), Leaf("one", "constant", f32(1.0), "float32"),
                       Leaf("r", "constant", np.array([result]), "float32"),
                       Op("m", "math.floormod", ["x", "one"])], ["m"])
    two_ulps_of_x = 2 * float(np.spacing(x))
    off = np.float32(result + np.float32(two_ulps_of_x))
    def kinds(name: str, actual: float) -> list[str]:
        return [d.kind for d in compare(Outcome("tf", values={name: t([result])}),
                                        Outcome("rt", values={name: t([actual])}), program)]

    assert kinds("m", off) == []  # m was computed from x
    assert kinds("r", off) == ["value"]  # r was not
    assert kinds("m", np.float32(result + np.float32(1e-4))) == ["value"]


def test_nan_and_inf_patterns_must_match():
    assert _kinds(t([math.nan, 1.0]), t([1.0, 1.0])) == ["nan-inf-pattern"]
    assert _kinds(t([math.inf]), t([-math.inf])) == ["nan-inf-pattern"]
    assert _kinds(t([math.nan, math.inf]), t([math.nan, math.inf])) == []


def test_negative_zero_equals_zero_in_value_comparison():
    assert _kinds(t([-0.0]), t([0.0])) == []


def test_structure_none_dtype_shape_and_sparse_kinds():
    assert _kinds(t([1.0]), {"kind": "none"}) == ["none-vs-value"]
    assert _kinds(t([1.0]), t([1.0], "float64")) == ["dtype"]
    assert _kinds(t([1.0]), t([[1.0]])) == ["shape"]
    sparse = {"kind": "indexed_slices", "values": t([1.0]), "indices": t([0], "int32"), "dense_shape": t([2], "int32")}
    assert _kinds(sparse, t([1.0, 0.0])) == ["indexed-slices-vs-dense"]
    assert _kinds({"kind": "list", "items": [t([1.0])]}, {"kind": "tuple", "items": [t([1.0])]}) == ["structure"]


def test_exceptions_compare_by_class():
    error = {"kind": "exception", "class": "ValueError", "message": "a"}
    assert _kinds(error, {**error, "message": "b"}) == []
    assert _kinds(error, {**error, "class": "TypeError"}) == ["exception"]
    assert _kinds(error, t([1.0])) == ["exception"]


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
def test_tolerance_edges_per_dtype(dtype):
    import ml_dtypes

    tolerance = Tolerance.for_dtype(np.dtype(ml_dtypes.bfloat16) if dtype == "bfloat16" else dtype, gradient=True)
    base = 1.0
    inside = base + 0.9 * (tolerance.relative + tolerance.absolute_scale)
    outside = base + 1.5 * (tolerance.relative + tolerance.absolute_scale)
    assert compare_arrays(np.array([base]), np.array([inside]), tolerance) is None
    mismatch = compare_arrays(np.array([base]), np.array([outside]), tolerance)
    assert mismatch is not None and mismatch.max_ulps > 0 and mismatch.max_relative_error > 0
    assert tolerance.relative >= epsilon(np.float64)


# -- backends that misbehave ----------------------------------------------------------------

SIN_PROGRAM = Program([
    Leaf("x", "constant", f32(0.3, -1.2, 2.0), "float32"),
    Tape("t", body=[Watch("t", ["x"]), Op("y", "sin", ["x"]), Op("s", "reduce_sum", ["y"])]),
    Call("g", "t", "gradient", "s", {"list": ["x"]}),
], outputs=["s"])


def test_missing_names_are_reported_not_raised():
    outcome = run(SIN_PROGRAM, "incomplete_backend")
    assert outcome.error == {"kind": "missing", "names": ["reduce_sum", "sin"]}


def test_unimportable_backend_is_a_harness_failure():
    error = run(SIN_PROGRAM, "no_such_backend_module").error
    assert error["kind"] == "harness" and "no_such_backend_module" in error["message"]
    with pytest.raises(HarnessError, match="no_such_backend_module"):
        evaluate(SIN_PROGRAM, "no_such_backend_module")


def test_a_hang_becomes_a_timeout():
    outcome = run(SIN_PROGRAM, "slow_backend", time_limit=0.5)
    assert outcome.error["kind"] == "timeout"
    discrepancies = compare(run(SIN_PROGRAM, "reftape"), outcome, SIN_PROGRAM)
    assert [d.kind for d in discrepancies] == ["timeout"]


def test_a_program_run_in_a_process_of_its_own_gives_the_outcome_it_gives_here():
    alone = run_isolated(SIN_PROGRAM, "tensorflow")
    here = run(SIN_PROGRAM, "tensorflow")
    assert alone.error is None and (alone.values, alone.calls) == (here.values, here.calls)
    assert alone.values["s"]["data"] and alone.calls["g"]["items"]


@pytest.mark.parametrize("backend, kind, message", [
    ("crashing_backend", "crash", "the process running crashing_backend died of SIGSEGV"),
    ("stuck_backend", "timeout", "the process running stuck_backend was killed 5.5 s after it began the program "
                                 "(its time limit is 0.5 s)"),
], ids=["dies", "stuck-outside-python"])
def test_a_process_that_dies_or_hangs_outside_python_is_described_not_lost(backend, kind, message):
    outcome = run_isolated(SIN_PROGRAM, backend, time_limit=0.5)
    assert outcome.error == {"kind": kind, "message": message}
    assert [d.kind for d in compare(run(SIN_PROGRAM, "reftape"), outcome, SIN_PROGRAM)] == [kind]


@pytest.mark.parametrize("name", ["structures-and-unconnected", "stop-recording-and-reset", "higher-order-nested",
                                  "watch-accessed-variables-off", "namedtuples-and-watched-variables"])
def test_the_readable_listing_is_the_program_without_the_harness_scaffolding(name):
    """`readable_source` (what reports show) drops `_program()`, `_outcome` and the try/except around
    calls, and run as it is on TensorFlow its calls give what the interpreter recorded."""
    import collections

    from reftape_oracle.script import readable_source
    from reftape_oracle.tensorflow import load_tensorflow

    program = PROGRAMS[name]
    listing = readable_source(program.statements)
    assert not re.search(r"_outcome|_program|describe|\btry:|\bexcept\b", listing)
    calls = [s for s in walk(program.statements) if isinstance(s, (Call, WatchedVariables))]
    assert all(re.search(rf"^\s*{c.name} = {c.tape}\.", listing, re.MULTILINE) for c in calls)
    tf = load_tensorflow()
    recorded = run(program, "tensorflow")
    assert recorded.error is None and not any(c.get("kind") == "exception" for c in recorded.calls.values())
    namespace = {"tf": tf, "np": np, "collections": collections}
    exec(compile(listing, name, "exec"), namespace)
    assert {c.name: describe(namespace[c.name], tf) for c in calls} == json.loads(json.dumps(recorded.calls))


def test_the_readable_listing_leaves_the_interpreters_script_as_it_was():
    program = PROGRAMS["structures-and-unconnected"]
    assert program.body_source().count("_outcome['calls']") == 2 * 6 and "try:" in program.body_source()
