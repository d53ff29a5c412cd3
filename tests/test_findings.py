"""Findings that explain themselves: the first divergence names the planted fault."""

import numpy as np
import pytest

from reftape_oracle import run
from reftape_oracle.program import Call, Leaf, Op, Program, Tape
from reftape_properties.divergence import first_divergence
from reftape_properties.findings import Finding, evaluate


def f32(*values):
    return np.array(values, np.float32)


def chain(*ops: tuple) -> Program:
    """x (a variable) through `ops` [(name, path, extra inputs)], differentiated at the last one."""
    statements, previous = [], "x"
    for name, path, *extra in ops:
        statements.append(Op(name, path, [previous, *extra]))
        previous = name
    return Program([Leaf("x", "variable", f32(0.3, 0.7, -1.1), "float32"),
                    Leaf("k", "constant", f32(2.0, 3.0, -0.5), "float32"),
                    Tape("t", body=statements), Call("g", "t", "gradient", previous, "x")], outputs=[previous])


EXP_SIN_MULTIPLY_SUM = chain(("a", "exp"), ("b", "sin"), ("c", "multiply", "k"), ("s", "reduce_sum"))


def test_a_wrong_vjp_is_the_first_divergent_adjoint():
    finding = first_divergence(evaluate(EXP_SIN_MULTIPLY_SUM, "wrong_vjp_backend", judge=False))
    divergence = finding.context["first_divergence"]
    assert finding.suspect == "sin"
    assert divergence["stage"] == "adjoint" and divergence["node"] == "b" and divergence["adjoint_of"] == "a"
    expected = np.array([float.fromhex(x) for x in divergence["expected"]["data"]])
    actual = np.array([float.fromhex(x) for x in divergence["actual"]["data"]])
    np.testing.assert_allclose(actual, 2 * expected, rtol=1e-5)  # the planted fault doubles sin's gradient
    assert "sin" in finding.signature()


def test_a_wrong_forward_value_is_named_before_what_it_feeds():
    finding = first_divergence(evaluate(EXP_SIN_MULTIPLY_SUM, "wrong_forward_backend", judge=False))
    divergence = finding.context["first_divergence"]
    assert (finding.suspect, divergence["stage"], divergence["node"]) == ("multiply", "forward", "c")
    assert divergence["expected"]["dtype"] == divergence["actual"]["dtype"] == "float32"


def test_a_forward_exception_is_named_at_the_op_that_raised():
    program = chain(("a", "exp"), ("b", "cos"), ("c", "multiply", "k"), ("s", "reduce_sum"))
    finding = first_divergence(evaluate(program, "wrong_forward_backend", judge=False))
    divergence = finding.context["first_divergence"]
    assert (finding.suspect, divergence["stage"], divergence["node"]) == ("cos", "forward", "b")
    assert divergence["expected"] is None and divergence["actual"]["class"] == "ValueError"


def test_agreeing_sides_have_no_divergence():
    expected, actual = run(EXP_SIN_MULTIPLY_SUM, "tensorflow"), run(EXP_SIN_MULTIPLY_SUM, "reftape")
    finding = first_divergence(Finding(EXP_SIN_MULTIPLY_SUM, expected, actual, []))
    assert finding.context["first_divergence"] is None and finding.suspect is None
