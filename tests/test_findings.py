"""Findings that explain themselves: the first divergence names the planted fault; minimisation keeps it
in a program of at most 3 ops; records follow the documented JSON Schema."""

import copy
import json

import jsonschema
import numpy as np
import pytest

from reftape_oracle import run
from reftape_oracle.program import Call, Leaf, Op, Program, StopRecording, Tape, Watch
from reftape_properties.divergence import first_divergence
from reftape_properties.findings import SCHEMA_PATH, Finding, evaluate
from reftape_properties.minimize import minimize


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


# Ten ops in nested tapes with non-default options; sin is on the path of the inner gradient.
NESTED = Program([
    Leaf("x", "variable", f32(0.3, 0.7, -1.1), "float32"),
    Leaf("w", "variable", f32(0.5, -0.2, 0.9), "float32"),
    Leaf("k", "constant", f32(2.0, 3.0, -0.5), "float32"),
    Tape("outer", persistent=True, body=[
        Tape("inner", persistent=True, watch_accessed_variables=False, body=[
            Watch("inner", ["x", "w"]),
            Op("a", "exp", ["x"]), Op("b", "multiply", ["a", "k"]), Op("c", "sin", ["b"]), Op("d", "tanh", ["w"]),
            Op("e", "add", ["c", "d"]), Op("f", "square", ["e"]), Op("s", "reduce_sum", ["f"]),
            StopRecording("inner", [Op("h", "cos", ["w"])]),
        ]),
        Call("g1", "inner", "gradient", "s", {"list": ["x", "w"]}, unconnected="zero", unconnected_form="string"),
        Op("p", "multiply", ["x", "w"]), Op("q", "reduce_mean", ["p"]),
    ]),
    Call("g2", "outer", "gradient", "q", "x"),
], outputs=["s", "h"])


def test_minimisation_keeps_a_wrong_vjp_in_at_most_three_ops():
    finding = evaluate(NESTED, "wrong_vjp_backend")
    minimal = minimize(finding)
    assert len(NESTED.ops()) == 10 and len(minimal.program.ops()) <= 3
    assert minimal.suspect == finding.suspect == "sin"
    assert "sin" in {op.path for op in minimal.program.ops()}
    again = first_divergence(evaluate(minimal.program, "wrong_vjp_backend"))
    assert again.suspect == "sin" and again.primary.verdict == finding.primary.verdict == "candidate-wrong"
    assert minimal.context["minimized"]["from"] == finding.id


@pytest.mark.parametrize("backend", ["wrong_vjp_backend", "wrong_forward_backend"])
@pytest.mark.parametrize("time_budget", [0.0, 0.2, 60.0])
def test_minimisation_only_returns_programs_that_still_fail(backend, time_budget):
    finding = evaluate(NESTED, backend, judge=False)
    minimal = minimize(finding, time_budget=time_budget)
    again = first_divergence(evaluate(minimal.program, backend, judge=False))
    assert (again.kind, again.suspect, again.dtype) == (finding.kind, finding.suspect, finding.dtype)
    if time_budget == 0.0:
        assert minimal is finding
    if time_budget == 60.0:
        assert len(minimal.program.ops()) < len(NESTED.ops())


@pytest.fixture(scope="module")
def records(tmp_path_factory):
    """Records written and read back through recording: a judged wrong-VJP finding before and after
    minimisation, and a forward exception."""
    from reftape_properties.recording import read_findings, record_finding

    directory = tmp_path_factory.mktemp("findings")
    wrong_vjp = first_divergence(evaluate(NESTED, "wrong_vjp_backend"))
    raising = first_divergence(evaluate(chain(("a", "exp"), ("b", "cos")), "wrong_forward_backend"))
    for finding in (wrong_vjp, minimize(wrong_vjp), raising):
        record_finding(finding, directory)
    lines = (directory / "discrepancies.jsonl").read_text().splitlines()
    assert len(read_findings(directory / "discrepancies.jsonl")) == len(lines) == 3
    return [json.loads(line) for line in lines]


def validator():
    schema = json.loads(SCHEMA_PATH.read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)


def test_real_records_follow_the_schema(records):
    for record in records:
        validator().validate(record)
    judged = [d for d in records[0]["discrepancies"] if d["verdict"] == "candidate-wrong"]
    assert judged and all(d["relative_error"] > 0 and d["ulps"] > 0 and d["tolerance"] for d in judged)
    assert records[1]["context"]["minimized"]["ops_after"] <= 3
    assert records[2]["expected"]["error"] is None and records[2]["actual"]["error"]["class"] == "ValueError"


@pytest.mark.parametrize("field", ["id", "signature", "program", "environment", "timestamp", "source"])
def test_a_record_missing_a_required_field_fails_validation(records, field):
    record = copy.deepcopy(records[0])
    del record[field]
    with pytest.raises(jsonschema.ValidationError, match=field):
        validator().validate(record)


def test_a_malformed_record_fails_validation(records):
    record = copy.deepcopy(records[0])
    record["discrepancies"][0]["verdict"] = "probably-fine"
    record["program"]["statements"][0]["statement"] = "Lambda"
    errors = list(validator().iter_errors(record))
    assert {tuple(e.path)[:3] for e in errors} >= {("discrepancies", 0, "verdict"), ("program", "statements", 0)}
