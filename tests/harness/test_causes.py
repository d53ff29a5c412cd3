"""One cluster per cause: a tape option the candidate mishandles is blamed on the option, not on an innocent
op; what the candidate lacks is one cause whatever program met it, and is neither localised nor minimised;
the same cause in programs of other dtypes and options has one signature (properties/findings/record.py)."""

import dataclasses

import numpy as np

import partial_tape
from reftape_oracle.outcome import Outcome
from reftape_oracle.program import Call, Leaf, Op, Program, Tape, Watch, WatchedVariables
from reftape_properties.explain.clusters import cluster
from reftape_properties.explain.divergence import first_divergence
from reftape_properties.explain.minimize import minimize
from reftape_properties.findings.record import Finding
from reftape_properties.judge.compare import Discrepancy
from reftape_properties.pipeline import evaluate

IGNORED = "GradientTape(watch_accessed_variables=False) ignored"


def variable_program(dtype: str = "float32", path: str = "math.digamma", outer: bool = False,
                     unconnected: str = "none") -> Program:
    """v (a Variable) through `path` and sin under a tape that does not watch accessed variables (inside a
    tape that does, when `outer`); the gradient with respect to v (TF: None, v is not watched)."""
    value = np.array([0.6, 1.3, 2.2], dtype)
    body = [Op("a", path, ["v"]), Op("b", "sin", ["a"])]
    inner = Tape("t1", body, watch_accessed_variables=False)
    call = Call("g", "t1", "gradient", "b", "v", unconnected=unconnected,
                unconnected_form="default" if unconnected == "none" else "string")
    statements = [Leaf("v", "variable", value, dtype), Leaf("c", "constant", value, dtype)]
    if outer:
        statements += [Tape("t0", [Watch("t0", ["c"]), inner, Op("d", "multiply", ["b", "c"])]), call,
                       Call("h", "t0", "gradient", "d", "c")]
    else:
        statements += [inner, call]
    return Program(statements, ["b"])


def explained(program: Program, backend: str) -> Finding:
    finding = evaluate(program, backend)
    assert finding is not None, "the planted fault must show"
    return first_divergence(finding)


def test_an_ignored_tape_option_is_blamed_on_the_option_not_on_an_op():
    finding = explained(variable_program(), "ignores_watch_accessed_backend")
    assert finding.suspect == IGNORED and finding.first_divergence["stage"] == "option"
    assert finding.first_divergence["option"] == "watch_accessed_variables"


def test_an_inner_tapes_ignored_option_is_blamed_when_an_outer_call_shows_it():
    finding = explained(variable_program(outer=True), "ignores_watch_accessed_backend")
    assert finding.suspect == IGNORED


def test_the_option_is_one_cause_across_dtypes_ops_and_shapes_of_program():
    findings = [explained(variable_program("float64", "exp"), "ignores_watch_accessed_backend"),
                explained(variable_program("float32", "math.digamma", outer=True), "ignores_watch_accessed_backend"),
                explained(variable_program("float32", "math.reciprocal", unconnected="zero"),
                          "ignores_watch_accessed_backend")]
    assert len({f.signature() for f in findings}) == 1
    (only,) = cluster(findings)
    assert only.count == 3


def test_a_wrong_vjp_under_the_same_option_stays_blamed_on_its_op():
    program = variable_program()
    tape = program.statements[2]
    tape.body.insert(0, Watch("t1", ["v"]))  # watched explicitly: TF differentiates through sin too
    finding = explained(program, "wrong_vjp_backend")  # doubles sin's gradient
    assert finding.suspect == "sin" and finding.first_divergence["stage"] == "adjoint"


def test_watched_variables_of_a_tape_ignoring_the_option_blame_the_option():
    program = variable_program()
    program.statements.append(WatchedVariables("w", "t1"))
    finding = explained(program, "ignores_watch_accessed_backend")
    assert finding.suspect == IGNORED


def test_minimising_an_option_finding_keeps_the_option_in_one_tape():
    finding = explained(variable_program(outer=True), "ignores_watch_accessed_backend")
    minimal = minimize(finding)
    tapes = [s for s in minimal.program.statements if isinstance(s, Tape)]
    assert minimal.suspect == IGNORED and len(tapes) == 1 and not tapes[0].watch_accessed_variables
    assert len(minimal.program.ops()) <= 1


def jacobian_program(dtype: str) -> Program:
    x = np.array([0.5, -1.0], dtype)
    return Program([Leaf("x", "constant", x, dtype),
                    Tape("t", [Watch("t", ["x"]), Op("y", "sin", ["x"])], persistent=True),
                    Call("j", "t", "jacobian", "y", "x")], ["y"])


def test_what_the_candidate_lacks_is_one_cause_never_localised_or_minimised():
    findings = [evaluate(jacobian_program(dtype), partial_tape) for dtype in ("float32", "float64")]
    assert all(f is not None and f.kind == "missing" for f in findings)
    assert {f.missing_name for f in findings} == {"GradientTape.jacobian"}
    assert len({first_divergence(f).signature() for f in findings}) == 1
    assert findings[0].first_divergence is None
    assert minimize(findings[0]) is findings[0]  # nothing searched


def raising_finding(message: str, klass: str = "AttributeError", reference_raises: bool = False) -> Finding:
    """A finding whose candidate alone raised `klass` at call g (the reference returned a value, or raised too)."""
    program = jacobian_program("float32")
    raised = {"kind": "exception", "class": klass, "message": message}
    expected = raised if reference_raises else {"kind": "none"}
    return Finding(program, Outcome("tensorflow", calls={"j": expected}), Outcome("mytape", calls={"j": raised}),
                   [Discrepancy("exception", "calls/j", expected, raised)], candidate="mytape")


def test_an_exception_naming_a_missing_attribute_or_keyword_is_clustered_by_that_name():
    attribute = raising_finding("'GradientTape' object has no attribute 'jacobian'")
    keyword = raising_finding("matmul() got an unexpected keyword argument 'adjoint_a'", "TypeError")
    assert (attribute.missing_name, keyword.missing_name) == ("jacobian", "adjoint_a=")
    other = dataclasses.replace(attribute, id="", program=variable_program())
    assert attribute.signature() == other.signature() != keyword.signature()
    # the check can fail: another message, or the reference raising too, is no missing name
    assert raising_finding("shapes do not match").missing_name is None
    assert raising_finding("'X' object has no attribute 'y'", reference_raises=True).missing_name is None


def test_a_difference_outside_the_calls_blames_no_option():
    """A finding whose sides part at the program's error (no call to take options from): no option stage."""
    program = variable_program()
    program.statements[2].persistent = True
    raised = {"kind": "exception", "class": "RuntimeError", "message": "planted"}
    finding = Finding(program, Outcome("tensorflow"), Outcome("reftape", error=raised),
                      [Discrepancy("exception", "error", None, raised)])
    assert first_divergence(finding).first_divergence is None or finding.first_divergence["stage"] != "option"
