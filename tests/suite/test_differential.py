"""Differential properties: reftape's outcome equals TensorFlow's on generated programs.

Split by op family (all real float dtypes) and by option axis (half precision, complex, deep
nesting), so that a failing test's name says where the problem is. The programs use only what the
candidate has (the probe of oracle/surface.py, and --reftape-surface). Each draws EXAMPLES_FACTOR times
the Hypothesis profile's examples (200 programs per test under `ci`). Findings are appended to
discrepancies.jsonl in the report directory; coverage is printed at the end of the run.
"""

import numpy as np
import pytest
from hypothesis import given, settings

from reftape_oracle.catalog import CATALOG, COMPLEX, DTYPES, FAMILIES, FLOATS
from reftape_oracle.program import (Apply, Assign, Call, CustomGradient, Leaf, Op, Program, Tape, Watch,
                                    WatchedVariables)
from reftape_properties.conformance.differential import CANDIDATE, EXAMPLES_FACTOR, check_program
from reftape_properties.pipeline import evaluate
from reftape_properties.conformance.support import candidate_lacking, drawable
from reftape_properties.generate import programs

from .marks import needs, program

pytestmark = pytest.mark.runs_long   # each property draws 200 programs under the ci profile


def differential(**strategy_options):
    """A property over generated programs drawing only what the candidate has; where it has none of the
    ops in the options' dtypes, the test needs them (and is deselected)."""
    @settings(max_examples=EXAMPLES_FACTOR * settings.default.max_examples)
    @given(programs(lacking=candidate_lacking(), **strategy_options))
    def test(program):
        check_program(program)
    ops, dtypes = strategy_options.get("ops") or tuple(CATALOG), strategy_options.get("dtypes", DTYPES)
    if not any(d in CATALOG[p].dtypes for p in drawable(ops) for d in dtypes):
        test = needs(*ops)(test)
    return test


test_elementwise_unary = differential(ops=FAMILIES["elementwise_unary"], dtypes=("float32", "float64"))
test_elementwise_binary = differential(ops=FAMILIES["elementwise_binary"], dtypes=("float32", "float64"))
test_reductions = differential(ops=FAMILIES["reductions"], dtypes=("float32", "float64"))
test_structure = differential(ops=FAMILIES["structure"], dtypes=("float32", "float64"))
test_linalg = differential(ops=FAMILIES["linalg"], dtypes=("float32", "float64"))
test_nn = differential(ops=FAMILIES["nn"], dtypes=("float32", "float64"))
test_non_differentiable = differential(ops=FAMILIES["non_differentiable"] + FAMILIES["elementwise_unary"],
                                       dtypes=("float32", "float64"))
test_half_precision = differential(dtypes=("float16", "bfloat16"))
test_complex = differential(ops=tuple(p for p, s in CATALOG.items() if set(COMPLEX) & set(s.dtypes)), dtypes=COMPLEX)
test_deep_nesting = differential(max_depth=3, max_ops=8, dtypes=FLOATS)


# Disagreements the generator found, each reduced to a minimal program (fixed in reftape).
_REGRESSIONS = {
    # TF's float32 tanh is exactly 1 from |x| = 7.9073896 on: TanhGrad is 0 there, not 1.2e-7.
    "tanh_saturates_in_float32": Program([
        Leaf("x", "constant", np.array([7.9073896, 8.5, -8.5], np.float32), "float32"),
        Leaf("upstream", "constant", np.array([1e4, 1e4, -1e4], np.float32), "float32"),
        Tape("t", [Watch("t", ["x"]), Op("y", "tanh", ["x"])]),
        Call("g", "t", "gradient", "y", "x", "upstream")], ["y"]),
    # argmin/argmax never pick a NaN over a number in TF (NumPy returns the first NaN).
    "argmin_argmax_skip_nan": Program([
        Leaf("x", "constant", np.array([[5.0, np.nan, 1.0], [np.nan, 5.0, -np.inf], [np.nan, np.nan, np.inf]]),
             "float64"),
        Op("a", "argmin", ["x"], {"axis": 1}), Op("b", "argmax", ["x"], {"axis": 1}),
        Op("c", "math.argmin", ["x"], {"axis": 0}), Op("d", "math.argmax", ["x"], {"axis": 0})], ["a", "b", "c", "d"]),
    # A tensor used twice accumulates -0 + -0 = -0 (TF's AddN), and reduce_sum over no axes is a copy:
    # the gradient of x * x under a zero upstream is -0 at negative x; atan2 makes the sign visible.
    "signed_zero_gradients_accumulate": Program([
        Leaf("x", "constant", np.array([-0.0, -1.0, 2.0], np.float32), "float32"),
        Leaf("zero", "constant", np.zeros(3, np.float32), "float32"),
        Leaf("left", "constant", np.full(3, -1.0, np.float32), "float32"),
        Tape("t", [Watch("t", ["x"]), Op("y", "multiply", ["x", "x"])]),
        Call("g", "t", "gradient", "y", "x", "zero"),
        Op("angle", "math.atan2", ["g", "left"])], ["angle"]),
    # TF's jacobians read the target's static shape first: a None target (an unconnected gradient)
    # raises AttributeError; batch_jacobian reads a scalar target's batch dimension: IndexError.
    "jacobian_targets_without_a_batch_dimension": Program([
        Leaf("c", "constant", np.array([1.0], np.float32), "float32"),
        Leaf("s", "constant", np.array(0.5, np.float32), "float32"),
        Tape("t", [Watch("t", ["s"]), Call("g", "t", "gradient", "c", "s"),
                   Call("b", "t", "batch_jacobian", "s", "s", use_pfor=False)], persistent=True),
        Call("j", "t", "jacobian", "g", "c"), Call("bv", "t", "batch_jacobian", "s", "s")]),
    # A gradient through gather is IndexedSlices; as a jacobian target it is densified on the tape.
    "jacobian_of_indexed_slices": Program([
        Leaf("c", "constant", np.array([0.6], np.float32), "float32"),
        Leaf("upstream", "constant", np.array([1.5, -2.0, 0.5], np.float32), "float32"),
        Tape("t", [Watch("t", ["c", "upstream"]), Op("y", "gather", ["c"], {"indices": [0, 0, 0], "axis": 0}),
                   Call("g", "t", "gradient", "y", "c", "upstream")], persistent=True),
        Call("j", "t", "jacobian", "g", {"list": ["c", "upstream"]})]),
    # ZERO fills a tensor source with a recorded ZerosLike: an outer tape differentiates through it.
    "unconnected_zeros_are_recorded": Program([
        Leaf("v", "variable", np.array([1.0, 2.0]), "float64", trainable=False),
        Leaf("c", "constant", np.array([0.5, 1.5]), "float64"),
        Tape("outer", [
            Watch("outer", ["v"]),
            Tape("inner", [Op("y", "sigmoid", ["v"]), Op("z", "sin", ["c"])]),
            Call("g", "inner", "gradient", "z", "y", unconnected="zero", unconnected_form="enum"),
            Op("w", "pow", ["c", "g"])], persistent=True),
        Call("h", "outer", "gradient", "w", "g")], ["w"]),
    # The zeros that fill a multi-output op's missing upstream gradients are constants, never on a tape:
    # the gradient of unstack's first output is not connected to anything the tape recorded.
    "filled_zeros_are_not_recorded": Program([
        Tape("t", [Leaf("v", "variable", np.array([0.0, -2.5, -1.8], np.float32), "float32"),
                   Op("y", "unstack", ["v"], {"axis": 0}),
                   Call("g", "t", "gradient", "y[0]", "v"),
                   Leaf("c", "constant", np.array([-2.4, -0.7, 2.7], np.float32), "float32"),
                   Op("z", "maximum", ["g", "c"]),
                   Call("h", "t", "gradient", "z", "g")], persistent=True)], ["z"]),
    # TF's vectorized jacobian loop is pruned to the gradients it returns: softsign's VJP (SoftsignGrad,
    # which has no gradient) runs in the loop, but the jacobian of y with respect to y does not need it.
    "vectorized_loop_pruned_to_returned_gradients": Program([
        Tape("t", [Leaf("c", "constant", np.array([[-2.7, 6.0], [-1.0, -1.7]], np.float32), "float32"),
                   Watch("t", ["c"]), Op("y", "nn.softsign", ["c"]),
                   Call("j", "t", "batch_jacobian", "y", "y", use_pfor=True),
                   Call("k", "t", "jacobian", "y", "y", use_pfor=True)], persistent=True)], ["y"]),
    # ... and an empty target's loop body is traced once: the gradient it returns needs SoftsignGrad's.
    "vectorized_loop_of_an_empty_target_is_traced": Program([
        Tape("t", [Leaf("c", "constant", np.zeros((3, 0, 2), np.float32), "float32"), Watch("t", ["c"]),
                   Op("y", "nn.softsign", ["c"]), Call("j", "t", "jacobian", "y", "c", use_pfor=True)],
             persistent=True)], ["y"]),
    # A custom gradient records reads of the variables it captures, not their handles: an unwatched
    # captured variable that is also a target and a source keeps its seed.
    "captured_variables_are_read_for_the_record": Program([
        Leaf("v", "variable", np.array([2.4, -2.6], np.float32), "float32"),
        Tape("t", [Leaf("w", "variable", np.array([-2.7, -2.7], np.float32), "float32"), Watch("t", ["w"]),
                   CustomGradient("f", ["f_a"], [Op("f_s", "sin", ["f_a"]), Op("f_y", "multiply", ["f_s", "v"])],
                                  "f_y", [Op("f_cos", "cos", ["f_a"]), Op("f_da", "multiply", ["f_upstream", "f_cos"]),
                                          Op("f_ga", "multiply", ["f_da", "v"]),
                                          Op("f_gc", "multiply", ["f_upstream", "f_s"])],
                                  ["f_ga"], "keyword", ["f_gc"], "f_upstream"),
                   Apply("y", "f", ["w"]),
                   Call("g", "t", "gradient", {"list": ["v", "y"]}, "v")], watch_accessed_variables=False)], ["y"]),
    # clip_by_value clips the values of IndexedSlices (a gradient through gather) and keeps them sparse.
    "clip_by_value_keeps_indexed_slices": Program([
        Tape("t", [Leaf("v", "variable", np.array([0.0, -0.0, -2.7], np.float32), "float32"),
                   Op("y", "gather", ["v"], {"axis": 0, "indices": [1]}),
                   Call("g", "t", "gradient", "y", "v")]),
        Leaf("low", "constant", np.array(-0.1, np.float32), "float32"),
        Leaf("high", "variable", np.array(1.9, np.float32), "float32"),
        Op("clipped", "clip_by_value", ["g", "low", "high"])], ["clipped"]),
    # Gradients with respect to a namedtuple come back as that namedtuple (typename and fields), not a tuple.
    "namedtuple_sources_keep_their_type": Program([
        Leaf("x", "constant", np.array([1.0, 2.0], np.float32), "float32"),
        Leaf("w", "variable", np.array([0.5, -1.0], np.float32), "float32"),
        Tape("t", [Watch("t", ["x"]), Op("y", "multiply", ["x", "w"])]),
        Call("g", "t", "gradient", "y", {"namedtuple": ["Pair", [["z", "x"], ["a", "w"]]]})]),
    # watched_variables() lists Variables in creation order, whatever the order they were watched in; an
    # assign is an access, and assigning a Variable's value reads that Variable too (reftape missed it).
    "watched_variables_in_creation_order": Program([
        Leaf("a", "variable", np.array([1.0, 2.0], np.float32), "float32"),
        Leaf("b", "variable", np.array([3.0, 4.0], np.float32), "float32"),
        Leaf("c", "variable", np.array([5.0, 6.0], np.float32), "float32"),
        Leaf("d", "variable", np.array([7.0, 8.0], np.float32), "float32"),
        Leaf("one", "constant", np.array([1.0, 1.0], np.float32), "float32"),
        Tape("t", [Watch("t", ["c"]), Assign("b", "one"), WatchedVariables("inside", "t"), Assign("a", "d", "assign_sub")]),
        WatchedVariables("after", "t")]),
    # A target the tape does not hold, listed twice among the sources and consumed by a recorded op:
    # its seed is dropped once (TF: None for both).
    "unheld_target_listed_twice_as_source": Program([
        Leaf("u", "constant", np.array([1.0, 2.0], np.float32), "float32"),
        Leaf("x", "constant", np.array([3.0, 4.0], np.float32), "float32"),
        Tape("t", [Watch("t", ["x"]), Op("y", "multiply", ["u", "x"])]),
        Call("g", "t", "gradient", {"list": ["u", "y"]}, {"list": ["u", "x", "u"]})]),
    # An exclusive scan along an empty axis is empty (reftape's shift failed on it), and so is the
    # gradient of reduce_prod of an empty tensor (its VJP scans with exclusive cumprods).
    "exclusive_scans_and_reduce_prod_of_empty_tensors": Program([
        Leaf("x", "variable", np.zeros((2, 0), np.float32), "float32"),
        Tape("t", [Op("s", "math.cumsum", ["x"], {"axis": 1, "exclusive": True, "reverse": True}),
                   Op("p", "math.cumprod", ["x"], {"axis": -1, "exclusive": True, "reverse": False}),
                   Op("q", "reduce_prod", ["x"], {"axis": 1, "keepdims": False})], persistent=True),
        Call("g", "t", "gradient", {"list": ["s", "p", "q"]}, "x"),
        Call("j", "t", "jacobian", "q", "x", use_pfor=False)], ["s", "p", "q"]),
}


@pytest.mark.parametrize("name", [program(name, _REGRESSIONS[name].statements) for name in sorted(_REGRESSIONS)])
def test_regressions(name):
    finding = evaluate(_REGRESSIONS[name], CANDIDATE, "tensorflow", judge=False)
    assert finding is None, [(d.kind, d.where, d.expected, d.actual) for d in finding.discrepancies]
