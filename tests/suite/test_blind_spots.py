"""Classes of programs the generator never produced (issue 7 §3), against live TensorFlow.

Each class is written as program data and runs on TensorFlow and reftape through the one pipeline
(`evaluate` must find nothing); hand-written checks then pin what TensorFlow 2.21 was observed to
do on that class (values, Nones, dtypes, exception classes), on TensorFlow and on the backend under
test (--reftape-backend, default reftape).
"""

from __future__ import annotations

import numpy as np
import pytest

from reftape_oracle import run
from reftape_oracle.outcome import decode_array
from reftape_oracle.program import (Apply, Assign, Call, CustomGradient, Leaf, Op, Program, ReadValue, Reset,
                                    StopRecording, Tape, Watch)
from reftape_properties.conformance.differential import CANDIDATE
from reftape_properties.pipeline import evaluate

from .marks import each_side, program as program_needing

BACKENDS = ["tensorflow", CANDIDATE]


def variable(name: str, value, dtype: str = "float32", trainable: bool = True) -> Leaf:
    return Leaf(name, "variable", np.asarray(value, np.float32 if dtype == "bfloat16" else dtype), dtype, trainable)


def constant(name: str, value, dtype: str = "float32") -> Leaf:
    return Leaf(name, "constant", np.asarray(value, np.float32 if dtype == "bfloat16" else dtype), dtype)


def listed(*names: str) -> dict:
    return {"list": list(names)}


PROGRAMS: dict[str, Program] = {}


def program(name: str, statements: list, outputs: tuple = ()) -> Program:
    PROGRAMS[name] = Program(statements, list(outputs))
    return PROGRAMS[name]


# -- A Variable as a target; a target that is also a source ------------------------------------

for _watch_accessed in (True, False):
    program(f"variable_target/watch_accessed={_watch_accessed}", [
        variable("v", [1.0, 2.0]),
        Tape("t", [Op("y", "multiply", ["v", "v"])], True, _watch_accessed),
        Call("g1", "t", "gradient", "v", "v"), Call("g2", "t", "gradient", listed("v", "y"), "v"),
        Call("g3", "t", "gradient", "y", listed("v", "y")), Call("g4", "t", "gradient", listed("y", "v"), listed("y", "v"))])
for _watched in (True, False):
    program(f"target_is_source/watched={_watched}", [
        constant("x", [0.5, -1.0]),
        Tape("t", ([Watch("t", ["x"])] if _watched else []) + [Op("y", "sin", ["x"])], True),
        Call("g1", "t", "gradient", listed("x", "y"), "x"), Call("g2", "t", "gradient", "y", listed("x", "y")),
        Call("g3", "t", "gradient", listed("y", "x"), listed("y", "x"), output_gradients=listed("x", "x"))])
for _dtype, _value in (("bfloat16", [1.0, 2.0]), ("complex64", np.array([1 + 1j, 2 - 1j]))):
    program(f"variable_target/{_dtype}", [
        variable("v", _value, _dtype), Tape("t", [Op("y", "square", ["v"])]), Call("g", "t", "gradient", listed("v", "y"), "v")])
program("variable_target/jacobian", [
    variable("v", [1.0, 2.0]), Tape("t", [Op("y", "exp", ["v"])], True),
    Call("j1", "t", "jacobian", "v", "v"), Call("j2", "t", "jacobian", "v", "v", use_pfor=False),
    Call("j3", "t", "jacobian", "y", "v")])

# -- Outputs of recorded ops without a gradient, and of ops never recorded ---------------------

for _path in ("zeros_like", "ones_like", "sign", "floor", "round", "stop_gradient"):
    program(f"no_gradient/{_path}", [
        constant("x", [0.5, -1.5, 2.0]),
        Tape("t", [Watch("t", ["x"]), Op("a", "multiply", ["x", "x"]), Op("z", _path, ["a"]),
                   Op("w", "multiply", ["z", "x"])], True),
        Call("g1", "t", "gradient", "w", "z"), Call("g2", "t", "gradient", "z", "x"), Call("g3", "t", "gradient", "z", "z"),
        Call("g4", "t", "gradient", listed("z", "w"), listed("x", "z"), unconnected="zero", unconnected_form="string")],
        ("z", "w"))
program("no_gradient/comparison", [
    constant("x", [0.5, -1.5, 2.0]),
    Tape("t", [Watch("t", ["x"]), Op("c", "greater", ["x", "x"]), Op("w", "where", ["x", "x"])], True),
    Call("g1", "t", "gradient", "c", "c"), Call("g2", "t", "gradient", "c", "x"), Call("g3", "t", "gradient", "w", "x")],
    ("c",))


# -- tf.custom_gradient -----------------------------------------------------------------------

def custom(variables: str = "none", capture: str | None = None, params: tuple = ("a",)) -> CustomGradient:
    """f(a, ...) = a * (capture or a); its gradient is sin(upstream * a) for a (None for the rest)
    and, when it takes `variables`, the same for the captured variable."""
    forward = [Op("f_y", "multiply", [params[0], capture or params[0]])]
    backward = [Op("f_ga", "multiply", ["upstream", params[0]]), Op("f_gb", "math.sin", ["f_ga"])]
    return CustomGradient("f", list(params), forward, "f_y", backward, ["f_gb"] + [None] * (len(params) - 1),
                          variables, ["f_gb"] if variables != "none" else [])


program("custom_gradient/tensor", [
    constant("x", [0.5, -1.5]), custom(),
    Tape("t", [Watch("t", ["x"]), Apply("r", "f", ["x"])]), Call("g", "t", "gradient", "r", "x")], ("r",))
program("custom_gradient/variable_argument", [
    variable("v", [0.5, -1.5]), custom(), Tape("t", [Apply("r", "f", ["v"])]), Call("g", "t", "gradient", "r", "v")], ("r",))
program("custom_gradient/variable_argument_also_read", [
    variable("v", [0.5, -1.5]), custom("positional", capture="v"),
    Tape("t", [Apply("r", "f", ["v"])]), Call("g", "t", "gradient", "r", "v")])
for _mode in ("positional", "keyword"):
    for _watch_accessed in (True, False):
        program(f"custom_gradient/captures_{_mode}/watch_accessed={_watch_accessed}", [
            variable("v", [0.5, -1.5]), constant("x", [2.0, 3.0]), custom(_mode, capture="v"),
            Tape("t", [Watch("t", ["x"]), Apply("r", "f", ["x"])], False, _watch_accessed),
            Call("g", "t", "gradient", "r", listed("x", "v"))], ("r",))
program("custom_gradient/captures_without_variables_keyword", [
    variable("v", [0.5, -1.5]), constant("x", [2.0, 3.0]), custom(capture="v"),
    Tape("t", [Watch("t", ["x"]), Apply("r", "f", ["x"])]), Call("g", "t", "gradient", "r", listed("x", "v"))], ("r",))
for _mode in ("none", "positional"):
    program(f"custom_gradient/assign_captures/variables={_mode}", [
        variable("v", [0.5, -1.5]), constant("x", [2.0, 3.0]),
        CustomGradient("h", ["a"], [Assign("v", "a", "assign_add"), Op("h_y", "multiply", ["a", "a"])], "h_y",
                       [Op("h_g", "multiply", ["upstream", "a"])], ["h_g"], _mode, ["h_g"] if _mode != "none" else []),
        Tape("t", [Watch("t", ["x"]), Apply("r", "h", ["x"])]), Call("g", "t", "gradient", "r", listed("x", "v"))])


def captured(name: str, variables: str) -> CustomGradient:
    """name(a) = sin(a * v) with the hand-written gradient upstream * v for a and upstream * a for v."""
    return CustomGradient(name, ["a"], [Op(f"{name}_y", "multiply", ["a", "v"]), Op(f"{name}_z", "math.sin", [f"{name}_y"])],
                          f"{name}_z", [Op(f"{name}_ga", "multiply", ["upstream", "v"]),
                                        Op(f"{name}_gv", "multiply", ["upstream", "a"])],
                          [f"{name}_ga"], variables, [f"{name}_gv"])


program("custom_gradient/captured_second_order", [
    variable("v", [0.5, -1.5]), constant("x", [2.0, 3.0]), captured("k", "keyword"),
    Tape("outer", [Watch("outer", ["x"]), Tape("inner", [Watch("inner", ["x"]), Apply("r", "k", ["x"])]),
                   Call("g", "inner", "gradient", "r", listed("x", "v"))]),
    Call("gg", "outer", "gradient", "g", listed("x", "v"))])
program("custom_gradient/captured_jacobians", [
    variable("v", [0.5, -1.5]), constant("x", [2.0, 3.0]), captured("k", "positional"),
    Tape("t", [Watch("t", ["x"]), Apply("r", "k", ["x"])], True),
    Call("j", "t", "jacobian", "r", listed("x", "v")), Call("j2", "t", "jacobian", "r", listed("x", "v"), use_pfor=False)])
program("custom_gradient/applied_twice", [
    variable("v", [0.5, -1.5]), constant("x", [2.0, 3.0]), captured("k", "keyword"),
    Tape("t", [Watch("t", ["x"]), Apply("r", "k", ["x"]), Apply("r2", "k", ["r"]), Op("s", "add", ["r", "r2"])], True),
    Call("g", "t", "gradient", "s", listed("x", "v")), Call("g2", "t", "gradient", "s", "r", output_gradients="x")])
program("custom_gradient/under_stop_recording", [
    variable("v", [0.5, -1.5]), constant("x", [2.0, 3.0]), captured("k", "keyword"),
    Tape("t", [Watch("t", ["x"]), StopRecording("t", [Apply("r", "k", ["x"])]), Op("s", "multiply", ["r", "x"])], True),
    Call("g", "t", "gradient", "s", listed("x", "v"))])
program("custom_gradient/second_order", [
    constant("x", [0.5, -1.5]), custom(),
    Tape("outer", [Watch("outer", ["x"]), Tape("inner", [Watch("inner", ["x"]), Apply("r", "f", ["x"])]),
                   Call("g", "inner", "gradient", "r", "x")]),
    Call("gg", "outer", "gradient", "g", "x")])
program("custom_gradient/outer_tape", [
    constant("x", [0.5, -1.5]), custom(),
    Tape("outer", [Watch("outer", ["x"]), Tape("inner", [Watch("inner", ["x"]), Apply("r", "f", ["x"])], True),
                   Call("g", "inner", "gradient", "r", "x")], True),
    Call("go", "outer", "gradient", "r", "x")])
program("custom_gradient/two_parameters", [
    constant("x", [0.5, -1.5]), constant("y", [1.0, 2.0]), custom(params=("a", "b")),
    Tape("t", [Watch("t", ["x", "y"]), Apply("r", "f", ["x", "y"])]),
    Call("g", "t", "gradient", "r", listed("x", "y"), unconnected="zero", unconnected_form="enum")])

# -- Variable.assign, assign_add, assign_sub and read_value inside tapes ----------------------

for _method in ("assign", "assign_add", "assign_sub"):
    program(f"assign/{_method}", [
        variable("v", [1.0, 2.0]), constant("d", [0.5, 4.0]),
        Tape("t", [Op("y", "multiply", ["v", "v"]), Assign("v", "d", _method), Op("z", "multiply", ["v", "v"]),
                   ReadValue("r", "v"), Op("w", "multiply", ["r", "y"])], True),
        Call("g1", "t", "gradient", "y", "v"), Call("g2", "t", "gradient", "z", "v"),
        Call("g3", "t", "gradient", "w", "v"), Call("g4", "t", "gradient", listed("y", "z"), "v")],
        ("y", "z", "w", "r"))
    program(f"assign/{_method}_unwatched", [
        variable("v", [1.0, 2.0]), constant("d", [0.5, 4.0]),
        Tape("t", [Assign("v", "d", _method), ReadValue("r", "v"), Op("z", "exp", ["r"])], False, False),
        Call("g", "t", "gradient", "z", "v")], ("z",))
program("assign/marks_the_variable_accessed", [
    variable("v", [1.0, 2.0]), constant("d", [0.5, 4.0]),
    Tape("t", [Assign("v", "d", "assign_add")]), Call("g", "t", "gradient", "v", "v")])
program("assign/from_a_watched_tensor", [
    variable("v", [1.0, 2.0]), constant("d", [0.5, 4.0]),
    Tape("t", [Watch("t", ["d"]), Op("e", "exp", ["d"]), Assign("v", "e"), ReadValue("r", "v"),
               Op("z", "square", ["r"])], True),
    Call("g1", "t", "gradient", "z", "d"), Call("g2", "t", "gradient", "z", "v")], ("z",))
program("assign/jacobians", [
    variable("v", [1.0, 2.0]), constant("d", [0.5, 4.0]),
    Tape("t", [Op("y", "exp", ["v"]), Assign("v", "d", "assign_sub"), Op("z", "multiply", ["v", "y"])], True),
    Call("j", "t", "jacobian", "z", "v"), Call("j2", "t", "jacobian", "z", "v", use_pfor=False)])
program("assign/after_reset", [
    variable("v", [1.0, 2.0]), constant("d", [0.5, 4.0]),
    Tape("t", [Op("y", "exp", ["v"]), Reset("t"), Assign("v", "d", "assign_add"), Op("z", "multiply", ["v", "v"])], True),
    Call("g", "t", "gradient", listed("y", "z"), "v")])
program("assign/nested_tapes", [
    variable("v", [1.0, 2.0]), constant("d", [0.5, 4.0]),
    Tape("outer", [Tape("inner", [Op("y", "square", ["v"]), Assign("v", "d"), ReadValue("r", "v"),
                                  Op("z", "multiply", ["r", "y"])]),
                   Call("g", "inner", "gradient", "z", "v")]),
    Call("gg", "outer", "gradient", "g", "v")])
program("assign/integer_variable", [
    variable("n", [1, 2], "int32"), variable("v", [1.0, 2.0]), constant("k", [3, 4], "int32"),
    Tape("t", [Assign("n", "k", "assign_add"), ReadValue("r", "n"), Op("y", "multiply", ["v", "v"])]),
    Call("g", "t", "gradient", "y", listed("v", "n"))], ("r",))
program("assign/read_before_the_tape", [
    variable("v", [1.0, 2.0]), ReadValue("r", "v"),
    Tape("t", [Op("z", "multiply", ["r", "v"])]), Call("g", "t", "gradient", "z", listed("v", "r"))])

# -- Large magnitudes for the dtype -----------------------------------------------------------

_LARGEST = {"float16": [65504.0, -65504.0, 60000.0, 300.0], "bfloat16": [3.3895314e38, -3.0e38, 1.0e38, 2.0e19]}
for _dtype, _values in _LARGEST.items():
    for _path in ("math.reduce_std", "math.reduce_variance", "norm", "math.l2_normalize", "math.reduce_logsumexp",
                  "reduce_mean", "math.reduce_euclidean_norm", "nn.softmax", "math.softplus", "math.square"):
        for _kind, _leaf in (("largest", _values), ("mixed", [_values[0] / 4, 1.0, -2.0, _values[2] / 8])):
            program(f"large/{_dtype}/{_path}/{_kind}", [
                variable("x", _leaf, _dtype), Tape("t", [Op("y", _path, ["x"])]), Call("g", "t", "gradient", "y", "x")],
                ("y",))

for _path in ("reduce_mean", "math.reduce_variance", "norm"):
    program(f"large/float16/{_path}/same_sign", [
        variable("x", [65504.0, 65504.0, 30000.0, 300.0], "float16"), Tape("t", [Op("y", _path, ["x"])]),
        Call("g", "t", "gradient", "y", "x")], ("y",))
# Every square is finite in float16, their sum is not: TF's kernel accumulates in float16 too.
program("large/float16/math.reduce_euclidean_norm/sum_past_largest", [
    variable("x", [200.0, 200.0, 150.0, 100.0], "float16"), Tape("t", [Op("y", "math.reduce_euclidean_norm", ["x"])]),
    Call("g", "t", "gradient", "y", "x")], ("y",))
# The run that found it: l2_normalize's gradient cancels to zero along an axis of length 1, so the
# order of RsqrtGrad's products decides the rounding left over (0.25 in TF, 0.125 in another order).
program("large/float32/l2_normalize_cancelling_gradient", [
    variable("v", [[1.0], [1.0], [1e-6]]), constant("w", [[0.3], [0.7], [1.9]]),
    Tape("t", [Op("y", "linalg.l2_normalize", ["v"], {"axis": 1})]),
    Call("g", "t", "gradient", "y", "v", output_gradients="w")])

# -- Complex pow: negative real and zero bases, gradients in both arguments ---------------------

for _dtype in ("complex64", "complex128"):
    program(f"complex_pow/{_dtype}", [
        constant("x", np.array([-2.0, 0.0, -0.5, 3.0, -1 + 1e-30j], _dtype), _dtype),
        constant("e", np.array([3.0, 2.0, 0.5, -1.0, 2.5], _dtype), _dtype),
        Tape("t", [Watch("t", ["x", "e"]), Op("y", "pow", ["x", "e"])], True),
        Call("g", "t", "gradient", "y", listed("x", "e")), Call("gx", "t", "gradient", "y", "x", output_gradients="x")],
        ("y",))

# -- Second order through the cross entropies --------------------------------------------------

_LABELS = {"nn.softmax_cross_entropy_with_logits": [[0.2, 0.3, 0.5], [1.0, 0.0, 0.0]],
           "nn.sigmoid_cross_entropy_with_logits": [[0.2, 0.0, 1.0], [0.5, 0.7, 0.1]]}
_LOGITS = [[0.5, -1.0, 2.0], [0.0, 3.0, -0.5]]
for _path, _labels in _LABELS.items():
    for _dtype in ("float16", "float32", "float64"):
        program(f"second_order/{_path}/{_dtype}", [
            variable("labels", _labels, _dtype), variable("logits", _LOGITS, _dtype),
            Tape("outer", [Tape("inner", [Op("loss", _path, ["labels", "logits"])], True),
                           Call("g", "inner", "gradient", "loss", "logits"),
                           Call("gl", "inner", "gradient", "loss", "labels")], True),
            Call("gg", "outer", "gradient", "g", listed("logits", "labels")),
            Call("ggl", "outer", "gradient", "gl", listed("logits", "labels")),
            Call("h", "outer", "jacobian", "g", "logits"),
            Call("hb", "outer", "batch_jacobian", "g", "logits", use_pfor=False)], ("loss",))

# -- jacobian and batch_jacobian: empty dimensions, Variable sources, both loops ---------------

for _pfor in (True, False):
    for _shape in ((0,), (2, 0), (0, 3), (3, 0, 2)):
        program(f"jacobian/empty{list(_shape)}/pfor={_pfor}", [
            variable("v", np.full(_shape, 0.5)), constant("c", np.ones(_shape)),
            Tape("t", [Watch("t", ["c"]), Op("y", "multiply", ["v", "c"]), Op("z", "exp", ["y"])], True),
            Call("j", "t", "jacobian", "z", listed("v", "c"), use_pfor=_pfor),
            Call("jz", "t", "jacobian", "z", "v", unconnected="zero", unconnected_form="string", use_pfor=_pfor)]
            + ([Call("b", "t", "batch_jacobian", "z", "v", use_pfor=_pfor),
                Call("bc", "t", "batch_jacobian", "z", "c", unconnected="zero", unconnected_form="enum", use_pfor=_pfor)]
               if len(_shape) >= 2 else []))
    program(f"jacobian/empty_target_scalar_source/pfor={_pfor}", [
        variable("s", 2.0), constant("c", np.zeros((0,))),
        Tape("t", [Watch("t", ["c"]), Op("e", "multiply", ["c", "s"])], True),
        Call("j", "t", "jacobian", "e", "s", use_pfor=_pfor), Call("jc", "t", "jacobian", "e", "c", use_pfor=_pfor)])
    program(f"jacobian/variable_sources/pfor={_pfor}", [
        variable("v", [[1.0, 2.0], [3.0, 4.0]]), variable("w", [[0.5, 1.0], [2.0, 1.5]], trainable=False),
        Tape("t", [Op("y", "multiply", ["v", "w"]), Op("z", "math.sin", ["y"])], True),
        Call("j", "t", "jacobian", "z", listed("v", "w"), use_pfor=_pfor),
        Call("b", "t", "batch_jacobian", "z", "v", use_pfor=_pfor),
        Call("bw", "t", "batch_jacobian", "z", "w", unconnected="zero", unconnected_form="string", use_pfor=_pfor),
        Call("jv", "t", "jacobian", "v", "v", use_pfor=_pfor)])

# -- elu and selu of half-precision subnormals -------------------------------------------------

for _dtype in ("float16", "bfloat16"):
    for _path in ("nn.elu", "nn.selu"):
        program(f"subnormal/{_dtype}/{_path}", [
            variable("x", [-6e-8, -1e-5, -0.01, -0.3, -3.0, 2.0], _dtype), Tape("t", [Op("y", _path, ["x"])]),
            Call("g", "t", "gradient", "y", "x")], ("y",))

# -- float32 and float64 subnormals in short tensors (TF's scalar loop reads them through glibc) --

for _dtype, _tiny in (("float32", [1e-39, 1.4e-45, -1e-39, 2.0]), ("float64", [1e-310, 5e-324, -1e-310, 2.0])):
    for _path in ("math.log", "math.sin", "math.expm1", "nn.elu", "math.atan"):
        program(f"subnormal/{_dtype}/{_path}", [
            variable("x", _tiny, _dtype), Tape("t", [Op("y", _path, ["x"])]), Call("g", "t", "gradient", "y", "x")],
            ("y",))

    for _path, _other in (("pow", [-0.75, 1.5, -0.75, 2.0]), ("math.atan2", [-0.75, 0.0, -2.0, 1.5]),
                          ("math.xlogy", [1.5, -0.75, 2.0, 1.0])):
        _inputs = ["c", "x"] if _path == "math.xlogy" else ["x", "c"]
        program(f"subnormal/{_dtype}/{_path}", [
            variable("x", _tiny, _dtype), constant("c", _other, _dtype),
            Tape("t", [Watch("t", ["c"]), Op("y", _path, _inputs)]), Call("g", "t", "gradient", "y", listed("x", "c"))],
            ("y",))

# -- A persistent tape records its own gradient computation; watches while no tape records --------

program("persistent/gradient_inside_the_block_is_recorded", [
    constant("x", [0.5, 2.0], "float64"),
    Tape("t", [Watch("t", ["x"]), Op("y", "sin", ["x"]), Call("g", "t", "gradient", "y", "x"),
               Op("z", "multiply", ["g", "g"]), Call("inside", "t", "gradient", "z", "x")], persistent=True),
    Call("after", "t", "gradient", "z", "x")], ("y", "z"))
program("stop_recording/watch_while_paused_is_dropped", [
    constant("x", [0.5, 2.0], "float64"), variable("v", [1.5, -1.0], "float64"),
    Tape("t", [StopRecording("t", [Watch("t", ["x", "v"])]), Op("y", "sin", ["x"]), Op("w", "multiply", ["y", "v"])],
         watch_accessed_variables=False),
    Call("g", "t", "gradient", "w", listed("x", "v"))], ("y", "w"))
program("stop_recording/watch_while_an_outer_tape_records_is_kept", [
    constant("x", [0.5, 2.0], "float64"),
    Tape("outer", [Tape("inner", [StopRecording("inner", [Watch("inner", ["x"]), Watch("outer", ["x"])]),
                                  Op("y", "sin", ["x"])], persistent=True),
                   Call("g", "inner", "gradient", "y", "x")], persistent=True),
    Call("h", "outer", "gradient", "y", "x")], ("y",))

for _watch_accessed in (True, False):
    for _watched in (True, False):
        program(f"unconnected_zeros/variable_source/watch_accessed={_watch_accessed}/watched={_watched}", [
            variable("v", [0.5, 2.0], "float64"), constant("c", [1.5, 3.0], "float64"),
            Tape("t0", ([Watch("t0", ["v"])] if _watched else []) + [
                Tape("t1", [Watch("t1", ["c"]), Op("y", "sin", ["c"])]),
                Call("g", "t1", "gradient", "y", "v", unconnected="zero", unconnected_form="enum"),
                Op("z", "multiply", ["g", "c"])], True, _watch_accessed),
            Call("h", "t0", "gradient", "z", listed("g", "v"))], ("z",))

for _pfor in (True, False):
    program(f"jacobian/batch_of_a_low_rank_target/pfor={_pfor}", [
        variable("v", np.ones((2, 3))), variable("e", np.ones((0, 3))),
        Tape("t", [Op("n", "linalg.norm", ["v"]), Op("m", "linalg.norm", ["e"]), Op("r", "reduce_sum", ["v"], {"axis": 1})],
             True),
        Call("scalar", "t", "batch_jacobian", "n", "v", use_pfor=_pfor),
        Call("empty", "t", "batch_jacobian", "m", "e", use_pfor=_pfor),
        Call("vector", "t", "batch_jacobian", "r", "v", use_pfor=_pfor)], ("n", "m", "r"))


@pytest.mark.parametrize("name", [program_needing(name, PROGRAMS[name].statements) for name in sorted(PROGRAMS)])
def test_blind_spot_agrees_with_tensorflow(name):
    finding = evaluate(PROGRAMS[name], CANDIDATE, judge=False)
    assert finding is None, [(d.kind, d.where, d.expected, d.actual) for d in finding.discrepancies]


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_blind_spot_round_trips_through_json(name):
    text = PROGRAMS[name].to_json()
    assert Program.from_json(text).to_json() == text
    compile(PROGRAMS[name].to_source(), name, "exec")


# -- What TensorFlow was observed to do, pinned on both backends -------------------------------

def outcome(name: str, backend: str):
    result = run(PROGRAMS[name], backend)
    assert result.error is None, result.error
    return result


def value(description: dict):
    """A call's or value's description as NumPy arrays, lists of them, None, or an exception class."""
    kind = description["kind"]
    if kind == "none":
        return None
    if kind in ("list", "tuple", "namedtuple"):
        return [value(item) for item in description["items"]]
    if kind == "dict":
        return {key: value(item) for key, item in zip(description["keys"], description["items"])}
    if kind == "exception":
        return description["class"]
    return decode_array(description)


@each_side(PROGRAMS, "variable_target/*")
def test_a_variable_target_seeds_ones_of_its_dtype(backend):
    calls = {k: value(v) for k, v in outcome("variable_target/watch_accessed=True", backend).calls.items()}
    assert calls["g1"].dtype == np.float32 and calls["g1"].tolist() == [1.0, 1.0]
    assert calls["g2"].tolist() == [3.0, 5.0]                      # 1 + d(v*v)/dv
    assert [g.tolist() for g in calls["g3"]] == [[2.0, 4.0], [1.0, 1.0]]
    unwatched = {k: value(v) for k, v in outcome("variable_target/watch_accessed=False", backend).calls.items()}
    assert unwatched["g2"].tolist() == [1.0, 1.0] and unwatched["g3"][0] is None
    jacobians = {k: value(v) for k, v in outcome("variable_target/jacobian", backend).calls.items()}
    assert jacobians["j1"].tolist() == jacobians["j2"].tolist() == [[1.0, 0.0], [0.0, 1.0]]


@each_side(PROGRAMS, "no_gradient/zeros_like", "no_gradient/ones_like")
@pytest.mark.parametrize("path", ["zeros_like", "ones_like"])
def test_zeros_like_and_ones_like_are_recorded_without_a_gradient(backend, path):
    calls = {k: value(v) for k, v in outcome(f"no_gradient/{path}", backend).calls.items()}
    assert calls["g1"].tolist() == [0.5, -1.5, 2.0]               # w = z * x reaches z: z is on the tape
    assert calls["g2"] is None and calls["g3"].tolist() == [1.0, 1.0, 1.0]


@each_side(PROGRAMS, "no_gradient/stop_gradient", "no_gradient/comparison")
def test_stop_gradient_is_never_recorded(backend):
    calls = {k: value(v) for k, v in outcome("no_gradient/stop_gradient", backend).calls.items()}
    assert calls["g1"] is None and calls["g2"] is None and calls["g3"].tolist() == [1.0, 1.0, 1.0]
    comparison = {k: value(v) for k, v in outcome("no_gradient/comparison", backend).calls.items()}
    assert comparison["g1"].dtype == np.bool_ and comparison["g2"] is None


@each_side(PROGRAMS, "custom_gradient/captures*", "custom_gradient/variable_argument_also_read", "custom_gradient/assign_captures/*")
def test_custom_gradient_captures_only_variables_that_are_not_arguments(backend):
    captured = value(outcome("custom_gradient/captures_keyword/watch_accessed=True", backend).calls["g"])
    expected = np.sin(np.float32([2.0, 3.0]))                     # sin(upstream * a) with upstream 1
    assert np.allclose(captured[0], expected) and np.allclose(captured[1], expected)
    unwatched = value(outcome("custom_gradient/captures_positional/watch_accessed=False", backend).calls["g"])
    assert unwatched[1] is None
    # v is an argument: TF passes no `variables`, so grad's ([..], [..]) is two input gradients
    assert value(outcome("custom_gradient/variable_argument_also_read", backend).calls["g"]) == "ValueError"
    refused = run(PROGRAMS["custom_gradient/captures_without_variables_keyword"], backend)
    assert refused.error["class"] == "TypeError"
    # an assign is an access: the assigned variable is captured too
    assert run(PROGRAMS["custom_gradient/assign_captures/variables=none"], backend).error["class"] == "TypeError"
    assigned = value(outcome("custom_gradient/assign_captures/variables=positional", backend).calls["g"])
    assert [g.tolist() for g in assigned] == [[2.0, 3.0], [2.0, 3.0]]


@each_side(PROGRAMS, "custom_gradient/second_order")
def test_custom_gradient_second_order_differentiates_the_gradient_function(backend):
    calls = {k: value(v) for k, v in outcome("custom_gradient/second_order", backend).calls.items()}
    x = np.float32([0.5, -1.5])
    assert np.allclose(calls["g"], np.sin(x)) and np.allclose(calls["gg"], np.cos(x))


@each_side(PROGRAMS, "assign/*")
def test_assign_add_between_reads(backend):
    calls = {k: value(v) for k, v in outcome("assign/assign_add", backend).calls.items()}
    v0, v1 = np.float32([1.0, 2.0]), np.float32([1.5, 6.0])
    assert calls["g1"].tolist() == (2 * v0).tolist() and calls["g2"].tolist() == (2 * v1).tolist()
    assert calls["g3"].tolist() == (v0 * v0 + 2 * v1 * v0).tolist()   # w = r * y: both reads reach v
    assert value(outcome("assign/assign_add_unwatched", backend).calls["g"]) is None
    assert value(outcome("assign/from_a_watched_tensor", backend).calls["g1"]) is None  # assign is no op on the tape


@each_side(PROGRAMS, "large/*")
def test_float16_overflows_inside_composites(backend):
    norm = value(outcome("large/float16/math.reduce_euclidean_norm/mixed", backend).values["y"])
    assert np.isinf(norm)                                          # 16376**2 overflows float16 in TF's kernel
    summed = outcome("large/float16/math.reduce_euclidean_norm/sum_past_largest", backend)
    assert np.isinf(value(summed.values["y"]))                     # 112500 = 200**2 + 200**2 + 150**2 + 100**2
    assert value(summed.calls["g"]).tolist() == [0.0, 0.0, 0.0, 0.0]  # x / (inf / 1)
    mean = value(outcome("large/float16/reduce_mean/largest", backend).values["y"])
    assert mean.dtype == np.float16 and np.isfinite(mean)          # the partial sums stay in range here
    assert np.isinf(value(outcome("large/float16/reduce_mean/same_sign", backend).values["y"]))  # sum past 65504
    cancelling = value(outcome("large/float32/l2_normalize_cancelling_gradient", backend).calls["g"])
    assert cancelling.ravel().tolist() == [0.0, 0.0, 0.25]


@each_side(PROGRAMS, "complex_pow/complex128")
def test_complex_pow_gradient_at_a_negative_real_base(backend):
    base_gradient, exponent_gradient = value(outcome("complex_pow/complex128", backend).calls["g"])
    # d/dx x**0.5 at x = -0.5 + 0j is 0.5 / sqrt(-0.5) = -0.707j; TF returns its conjugate
    assert np.isclose(base_gradient[2], 0.7071067811865476j)
    assert base_gradient[1] == 0 and exponent_gradient[1] == 0     # zero base: masked log


@each_side(PROGRAMS, "second_order/nn.softmax_cross_entropy_with_logits/float64")
def test_softmax_cross_entropy_second_order(backend):
    calls = {k: value(v) for k, v in outcome("second_order/nn.softmax_cross_entropy_with_logits/float64", backend).calls.items()}
    assert np.allclose(calls["gg"][0], 0.0)                        # rows of the Hessian sum to zero
    assert calls["h"].shape == (2, 3, 2, 3) and calls["hb"].shape == (2, 3, 3)


@each_side(PROGRAMS, "jacobian/empty*")
def test_jacobians_of_empty_targets(backend):
    vectorized = {k: value(v) for k, v in outcome("jacobian/empty[2, 0]/pfor=True", backend).calls.items()}
    assert [j.shape for j in vectorized["j"]] == [(2, 0, 2, 0)] * 2 and vectorized["bc"].shape == (2, 0, 0)
    looped = {k: value(v) for k, v in outcome("jacobian/empty[2, 0]/pfor=False", backend).calls.items()}
    assert looped["j"] == looped["jz"] == "ValueError" and looped["bc"].dtype == np.float32
    empty_batch = {k: value(v) for k, v in outcome("jacobian/empty[0, 3]/pfor=True", backend).calls.items()}
    assert empty_batch["b"] == "ZeroDivisionError"


@each_side(PROGRAMS, "subnormal/float16/nn.elu")
def test_elu_of_half_subnormals_is_zero(backend):
    y = value(outcome("subnormal/float16/nn.elu", backend).values["y"])
    assert y[:2].tolist() == [0.0, 0.0] and y.dtype == np.float16  # exp rounds to 1.0 before the minus one


@each_side(PROGRAMS, "subnormal/float32/math.log", "subnormal/float64/math.log", "subnormal/float32/math.sin")
def test_float32_log_of_a_subnormal_in_the_scalar_loop_is_log_of_two_to_the_minus_150(backend):
    y = value(outcome("subnormal/float32/math.log", backend).values["y"])
    assert y[:2].tolist() == [np.float32(-150 * np.log(2))] * 2 and np.isnan(y[2])   # -103.97208, not -inf
    assert np.isneginf(value(outcome("subnormal/float64/math.log", backend).values["y"])[:2]).all()
    kept = value(outcome("subnormal/float32/math.sin", backend).values["y"])
    assert kept[:3].tolist() == np.float32([1e-39, 1.4e-45, -1e-39]).tolist()          # sin(x) is x


@each_side(PROGRAMS, "persistent/gradient_inside_the_block_is_recorded")
def test_a_persistent_tape_records_a_gradient_computed_inside_its_block(backend):
    calls = outcome("persistent/gradient_inside_the_block_is_recorded", backend).calls
    # d/dx cos(x)**2 = -sin(2x), both inside the block and after it
    assert np.allclose(value(calls["inside"]), -np.sin([1.0, 4.0]), rtol=0, atol=1e-15)
    assert np.allclose(value(calls["after"]), -np.sin([1.0, 4.0]), rtol=0, atol=1e-15)


@each_side(PROGRAMS, "stop_recording/*")
def test_a_watch_made_while_no_tape_records_is_dropped(backend):
    assert value(outcome("stop_recording/watch_while_paused_is_dropped", backend).calls["g"]) == [None, None]
    kept = outcome("stop_recording/watch_while_an_outer_tape_records_is_kept", backend).calls
    assert np.allclose(value(kept["g"]), np.cos([0.5, 2.0])) and np.allclose(value(kept["h"]), np.cos([0.5, 2.0]))


@each_side(PROGRAMS, "unconnected_zeros/variable_source/*")
def test_zeros_for_an_unconnected_variable_are_recorded_by_a_tape_that_watches_it(backend):
    """TF reads the variable to fill its zeros: a tape watching it (explicitly or as accessed) records them."""
    for watch_accessed in (True, False):
        for watched in (True, False):
            name = f"unconnected_zeros/variable_source/watch_accessed={watch_accessed}/watched={watched}"
            with_respect_to_zeros, with_respect_to_v = value(outcome(name, backend).calls["h"])
            assert with_respect_to_v is None                               # ZerosLike has no gradient
            if watch_accessed or watched:
                assert with_respect_to_zeros.tolist() == [1.5, 3.0]        # d(zeros * c)/d zeros = c
            else:
                assert with_respect_to_zeros is None


@each_side(PROGRAMS, "jacobian/batch_of_a_low_rank_target/*")
@pytest.mark.parametrize("pfor", [True, False])
def test_batch_jacobian_of_a_scalar_target_raises_index_error(backend, pfor):
    calls = {k: value(v) for k, v in outcome(f"jacobian/batch_of_a_low_rank_target/pfor={pfor}", backend).calls.items()}
    assert calls == {"scalar": "IndexError", "empty": "IndexError", "vector": "ValueError"}
