"""The numeric check (`reftape-fuzz --check numeric`, judge/numeric.py): one backend's gradients against the
referee's numerical derivative. It fires on TensorFlow's own wrong gradient and on a planted one (a TF
re-export with one wrong VJP, tests/backends/tf_wrong_tanh_backend.py), names the op at fault, minimises,
reports TF's bugs in a section of their own; and it stays silent where TF is right: kinks, TF's
conventions (a Hermitian input's gradient, batch_jacobian's batch sum) and float32 rounding.

Expected values are TensorFlow's own (run live) and exact derivatives shown by hand."""

import subprocess
import sys
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from reftape_oracle.outcome import HarnessError
from reftape_oracle.program import Accumulator, Call, Cond, Jvp, Leaf, Op, Program, StopRecording, Tape, Watch, WhileLoop, walk
from reftape_properties.explain.clusters import cluster
from reftape_properties.explain.divergence import first_divergence
from reftape_properties.explain.minimize import minimize
from reftape_properties.findings.store import read_findings
from reftape_properties.judge.forward import FORWARD
from reftape_properties.judge.numeric import NUMERIC
from reftape_properties.pipeline import evaluate
from reftape_reports.render import render

BACKENDS = Path(__file__).parent.parent / "backends"
PLANTED = "tf_wrong_tanh_backend"


def gradient_program(ops: list, value, dtype: str = "float32", method: str = "gradient") -> Program:
    """`g = t.<method>(y, x)` for a Variable x and ops computing y from it (the last op's name is y)."""
    return Program([Leaf("x", "variable", np.array(value, dtype), dtype), Tape("t", body=ops),
                    Call("g", "t", method, "y", "x")], ["y"])


def sum_of(path: str, **attrs) -> list:
    return [Op("a", path, ["x"], attrs), Op("y", "reduce_sum", ["a"])]


def estimate_of(finding) -> np.ndarray:
    return np.array(finding.discrepancies[0].estimate, dtype=float)


def test_tensorflows_own_wrong_gradient_is_found_with_the_exact_one():
    """d/dx sum(cumprod(x)) = [1 + x2 + x2 x3, x1 + x1 x3, x1 x2] = [1, 10, 0] at x = [2, 0, 4]; TF's
    cumprod gradient divides by x and gives [1, 0, 0] there (TF_ANOMALIES.md)."""
    finding = evaluate(gradient_program(sum_of("math.cumprod"), [2, 0, 4]), "tensorflow", NUMERIC)
    assert finding is not None and finding.reference == NUMERIC and finding.candidate == "tensorflow"
    (d,) = finding.discrepancies
    assert d.where == "calls/g" and d.verdict == "tensorflow-wrong"
    np.testing.assert_allclose(estimate_of(finding), [1, 10, 0], atol=1e-6)
    assert finding.signature_parts()["check"] == NUMERIC


def test_reftape_mirroring_the_same_gradient_is_blamed_as_the_candidate():
    finding = evaluate(gradient_program(sum_of("math.cumprod"), [2, 0, 4]), "reftape", NUMERIC)
    assert finding is not None and finding.discrepancies[0].verdict == "candidate-wrong"


def test_a_planted_wrong_vjp_is_found_blamed_on_its_op_and_minimised():
    """tanh' = 1 - tanh² (sech²); the planted VJP drops the square."""
    ops = [Op("s", "sin", ["x"]), Op("a", "tanh", ["s"]), Op("m", "multiply", ["a", "s"]), Op("y", "reduce_sum", ["m"])]
    finding = evaluate(gradient_program(ops, [0.5, -1.0, 2.0]), PLANTED, NUMERIC)
    assert finding is not None and finding.discrepancies[0].verdict == "candidate-wrong"
    assert first_divergence(finding).suspect == "tanh"
    minimal = minimize(finding)
    assert minimal.minimized and minimal.minimized["ops_after"] <= 2 and minimal.suspect == "tanh"
    assert evaluate(gradient_program(ops, [0.5, -1.0, 2.0]), "tensorflow", NUMERIC) is None   # TF's own tanh is right


def test_a_candidate_lacking_a_name_the_program_uses_is_never_a_silent_pass():
    """The numeric check's candidate is its only side: a program it cannot run judges nothing, and says so."""
    program = gradient_program(sum_of("math.cumprod"), [2, 0, 4])
    with pytest.raises(HarnessError, match="partial_tape lacks math.cumprod: the numeric check has nothing to judge"):
        evaluate(program, "partial_tape", NUMERIC)


@pytest.mark.parametrize("case", ["smooth", "kink", "rounding", "hermitian", "batch sum", "integer path", "adjoint", "pole",
                                  "list element source", "unspecified order", "watched while not recording",
                                  "beyond the dtype's range", "infinite derivative in bfloat16", "float32 whatever the input",
                                  "a change float64 cannot hold", "a loop of no iteration", "a branch returning what it read"])
def test_the_numeric_check_stays_silent_where_tensorflow_is_right(case):
    programs = {
        "smooth": gradient_program([Op("e", "exp", ["x"]), Op("s", "sin", ["e"]), Op("y", "reduce_sum", ["s"])],
                                   [0.3, -1.2, 2.0], "float64"),
        "kink": gradient_program(sum_of("abs"), [0.0, -1.5, 2.0]),                       # |x| at 0: a subgradient
        "rounding": Program([Leaf("x", "variable", np.array([1.3, -0.7, 2.9], "float32"), "float32"),
                             Leaf("k", "constant", np.array(3000.0, "float32"), "float32"),
                             Tape("t", body=[Op("a", "multiply", ["x", "k"]), Op("s", "sin", ["a"]),
                                             Op("y", "reduce_sum", ["s"])]),
                             Call("g", "t", "gradient", "y", "x")], ["y"]),               # sin of a product in float32
        "hermitian": gradient_program([Op("y", "linalg.logdet", ["x"])], [[2.0, 0.5], [0.5, 3.0]], "float64"),
        "batch sum": gradient_program([Op("y", "square", ["x"])], [[1.0, 2.0], [3.0, -1.0]], "float64",
                                      "batch_jacobian"),
        "integer path": gradient_program([Op("r", "round", ["x"]), Op("y", "reduce_sum", ["r"])], [0.2, 1.7, -3.4]),
        # an adjoint conjugates: no complex step through it (the estimate's sign flipped once)
        "adjoint": Program([Leaf("x", "variable", np.array([[2.0, -1.5], [0.5, 1.25]], "float32"), "float32"),
                            Leaf("b", "constant", np.array([[-2.5], [0.75]], "float32"), "float32"),
                            Tape("t", body=[Op("y", "matmul", ["x", "b"], {"adjoint_a": True})]),
                            Call("g", "t", "gradient", "y", "x")], ["y"]),
        # divide_no_nan(c, x) is 0 at x = 0 and c/x beside it: an infinite derivative, which a step sweep shows
        "pole": Program([Leaf("c", "constant", np.array([0.5, 0.75]), "float64"),
                         Leaf("x", "variable", np.array([0.0, 0.85]), "float64"),
                         Tape("t", body=[Op("y", "math.divide_no_nan", ["c", "x"])]),
                         Call("g", "t", "gradient", "y", "x")], ["y"]),
        # a source that is an element of a recorded op's list result is tracked (the referee once froze it)
        "list element source": Program([Leaf("x", "constant", np.array([[1.5], [2.5]]), "float64"),
                                        Tape("t", body=[Watch("t", ["x"]),
                                                        Op("s", "split", ["x"], {"axis": -2, "num_or_size_splits": [1, 1]}),
                                                        Op("y", "split", ["s[0]"], {"axis": -2, "num_or_size_splits": [1]})],
                                             persistent=True),
                                        Call("g", "t", "gradient", "y[0]", "s[0]")], []),
        # rows 0 twice: which update stays is unspecified in TF, so no derivative says which one counts
        "unspecified order": Program([Leaf("t0", "constant", np.zeros((3, 2)), "float64"),
                                      Leaf("x", "variable", np.arange(6.0).reshape(3, 2), "float64"),
                                      Tape("t", body=[Op("y", "tensor_scatter_nd_update", ["t0", "x"],
                                                         {"indices": (1, 0, 1, 0)})]),
                                      Call("g", "t", "gradient", "y", "x")], ["y"]),
        # `watch` inside the tape's stop_recording still watches (the referee once skipped it: a zero estimate)
        "watched while not recording": Program([Tape("t", body=[
            StopRecording("t", body=[Leaf("x", "constant", np.array([-1.5, 0.0, 2.0]), "float64"), Watch("t", ["x"])]),
            Op("y", "nn.softplus", ["x"])]), Call("g", "t", "gradient", "y", "x")], ["y"]),
        # the norm of [65504, 60000] is beyond float16's range: infinite in float16, no finite function to judge
        "beyond the dtype's range": gradient_program([Op("y", "linalg.norm", ["x"])], [65504.0, 60000.0], "float16"),
        # sqrt'(0) is infinite: the step sweep holds the estimate to the referee's resolution, not bfloat16's
        # tolerance (which a norm's sum widens to 90%)
        "infinite derivative in bfloat16": Program([
            Leaf("x", "constant", np.array([4.0, 0.0, 1.609375], ml_dtypes.bfloat16), "bfloat16"),
            Leaf("v", "variable", np.array([1.875, -1.375, 2.5], ml_dtypes.bfloat16), "bfloat16"),
            Tape("t", body=[Watch("t", ["x"]), Op("y", "sqrt", ["x"])]), Call("g", "t", "gradient", "y", "x"),
            Op("n", "linalg.l2_normalize", ["v"], {"axis": -1})], ["y", "n"]),
        # bilinear resize computes in float32 for a float64 image: a numerical derivative of its float32 rounding
        # is off by percents (the numeric check once reported TF and reftape wrong here: a campaign's finding)
        "float32 whatever the input": Program([
            Leaf("x", "variable", np.array([2.75, -0.0, 2.381, 0.4257, 1.5456, -0.2226, 2.5936, 1.1823, -1.0, -1.5305,
                                            0.7905, -1.5754, 1.7572, -1.7506, -0.0, 0.7031]).reshape(1, 2, 2, 4), "float64"),
            Tape("t", body=[Op("y", "image.resize", ["x"], {"size": (3, 5), "method": "bilinear",
                                                           "preserve_aspect_ratio": False})]),
            Call("g", "t", "gradient", "y", "x")], ["y"]),
        # the L1 norm of 3.4e38 and small elements: in float64 too a step of a small element changes nothing the
        # sum can hold, so the difference is rounding, not a zero derivative (a false finding of seed 308)
        "a change float64 cannot hold": gradient_program(
            [Op("y", "norm", ["x"], {"ord": 1, "axis": None, "keepdims": True})],
            [[3.0, 4.0, 3.3895313892515355e+38], [-2.765625, -1.21875, 1.2109375]], "bfloat16"),
        # eager TF's loop of no iteration, and a branch returning what it read, return that very tensor: the
        # gradient by an unwatched constant is the source's own, ones (seed 309 judged a copy of it: 0)
        "a loop of no iteration": Program([
            Leaf("c", "constant", np.array([1.24, 0.95, -2.06]), "float64"),
            Tape("t", body=[WhileLoop("w", "c", "p", [Op("y", "tanh", ["p"])], "y", trips=0)]),
            Call("g", "t", "gradient", "w", "c")], ["w"]),
        "a branch returning what it read": Program([
            Leaf("c", "constant", np.array([1.24, 0.95, -2.06]), "float64"),
            Tape("t", body=[Cond("k", True, [], "c", [Op("y", "sin", ["c"])], "y", tensor_predicate=True)]),
            Call("g", "t", "gradient", "k", "c")], ["k"]),
    }
    assert evaluate(programs[case], "tensorflow", NUMERIC) is None


def watched_while_paused(value: list, outer: bool) -> Program:
    """sum(cumprod(x)) with x watched inside t's stop_recording, inside another tape `o` when `outer`; the
    gradient with unconnected_gradients zero."""
    tape = Tape("t", body=[StopRecording("t", body=[Leaf("x", "constant", np.array(value), "float64"), Watch("t", ["x"])]),
                           *sum_of("math.cumprod")])
    return Program([Tape("o", body=[tape]) if outer else tape,
                    Call("g", "t", "gradient", "y", "x", unconnected="zero", unconnected_form="string")], ["y"])


def test_a_watch_while_no_tape_records_is_not_judged_and_one_while_another_records_is():
    """TF ignores t.watch inside t.stop_recording unless another tape records (tests/harness/test_referee.py):
    alone, TF's zeros are right (the referee once judged x watched: a false finding from seed 101); inside
    tape o, x is watched and TF's wrong cumprod gradient [1, 0, 0] at [2, 0, 4] (exact [1, 10, 0]) is found."""
    assert evaluate(watched_while_paused([2.0, 0.0, 4.0], outer=False), "tensorflow", NUMERIC) is None
    finding = evaluate(watched_while_paused([2.0, 0.0, 4.0], outer=True), "tensorflow", NUMERIC)
    assert finding is not None and finding.discrepancies[0].verdict == "tensorflow-wrong"
    np.testing.assert_allclose(estimate_of(finding), [1, 10, 0], atol=1e-6)

def fuzz(*args: str, timeout: int = 900) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "reftape_reports.commands.reftape_fuzz", *args], cwd=BACKENDS,
                          capture_output=True, text=True, timeout=timeout)


def planted_campaign(tmp_path: Path, backend: str, check: str, examples: int) -> tuple[list, Path]:
    """A seeded campaign of `check` on a backend with a planted tanh, over tanh and three ops with right gradients:
    its clusters and its report directory (it must have found something)."""
    report = tmp_path / "report"
    ran = fuzz("--backend", backend, "--check", check, "--ops", "tanh,sin,multiply,add", "--dtypes", "float32,float64",
               "--max-examples", str(examples), "--workers", "1", "--seed", "1", "--report", str(report))
    assert ran.returncode == 1, ran.stdout[-2000:] + ran.stderr[-2000:]
    return cluster(read_findings(report / "discrepancies.jsonl")), report


@pytest.mark.runs_long
def test_a_numeric_campaign_finds_the_planted_vjp_and_reports_it(tmp_path):
    clusters, _ = planted_campaign(tmp_path, PLANTED, NUMERIC, 40)
    assert {c.smallest.suspect for c in clusters} == {"tanh"}, [c.signature for c in clusters]
    assert all(c.smallest.reference == NUMERIC and c.verdict == "candidate-wrong" for c in clusters)
    assert len(clusters[0].smallest.program.ops()) <= 3


@pytest.mark.runs_long
def test_a_numeric_campaign_on_correct_tensorflow_ops_finds_nothing(tmp_path):
    report = tmp_path / "report"
    ran = fuzz("--backend", "tensorflow", "--check", NUMERIC, "--ops", "tanh,sin,exp,multiply,add,reduce_sum,matmul",
               "--max-examples", "60", "--workers", "1", "--seed", "2", "--report", str(report))
    assert ran.returncode == 0, ran.stdout[-2000:] + ran.stderr[-2000:]
    assert not (report / "discrepancies.jsonl").exists() or read_findings(report / "discrepancies.jsonl") == []


def test_a_check_the_harness_does_not_know_is_refused_in_one_line(tmp_path):
    ran = fuzz("--check", "nonsense", "--max-examples", "1", "--report", str(tmp_path / "report"), timeout=300)
    assert ran.returncode == 2 and len(ran.stderr.strip().splitlines()) == 1, ran.stderr
    assert "--check nonsense" in ran.stderr and not (tmp_path / "report" / "run.json").exists()


def test_the_report_puts_tensorflows_own_bugs_first(tmp_path):
    from reftape_properties.findings.store import record_finding

    x, y = np.array([0.0, 1.0]), np.array([2.0, 3.0])   # xlogy's gradient in x at x = 0 (TF_ANOMALIES 30)
    by_numeric = Program([Leaf("x", "variable", x, "float64"), Leaf("c", "constant", y, "float64"),
                          Tape("t", [Op("y", "math.xlogy", ["x", "c"])]), Call("g", "t", "gradient", "y", "x")], ["y"])
    by_forward = Program([Leaf("x", "constant", x, "float64"), Leaf("c", "constant", y, "float64"),
                          Leaf("v", "constant", np.ones(2), "float64"),
                          Accumulator("a", ["x"], ["v"], [Op("y", "math.xlogy", ["x", "c"])]), Jvp("j", "a", "y")], ["y"])
    wrong_tf = [evaluate(by_numeric, "tensorflow", NUMERIC), evaluate(by_forward, "tensorflow", FORWARD)]
    planted = evaluate(gradient_program(sum_of("tanh"), [0.5, 1.0]), PLANTED, NUMERIC)
    planted.suspect = "tanh"
    for finding in (planted, *wrong_tf):
        finding.suspect = finding.suspect or "math.xlogy"
        record_finding(finding, tmp_path)
    page = render(tmp_path).read_text()
    section = page.index('<section id="tensorflow-wrong">')
    assert section < page.index('<section id="findings">') < page.index('<section id="clusters">')
    own = page[section:page.index('<section id="findings">')]
    # one gradient function, found by two checks: two clusters, one row
    assert own.count("<code>math.xlogy</code>") == 1 and "numeric, forward" in own and "tanh" not in own
    assert 'href="#cluster-1"' in own and 'href="#cluster-2"' in own
    assert "exact (numerical derivative)" in page


def test_the_numeric_check_judges_gradients_through_a_while_loop():
    """The referee runs a loop as the ops eager TF runs (statements.unrolled): the planted tanh VJP inside a loop
    body of three iterations is found; TF's own tanh there is right."""
    from reftape_oracle.program import WhileLoop

    loop = [WhileLoop("w", "x", "p", [Op("p_tanh", "tanh", ["p"]), Op("p_next", "multiply", ["p_tanh", "x"])],
                      "p_next", trips=3), Op("y", "reduce_sum", ["w"])]
    program = Program([Leaf("x", "variable", np.array([0.5, -1.0, 2.0], "float32"), "float32"), Tape("t", body=loop),
                       Call("g", "t", "gradient", "y", "x")], ["y"])
    finding = evaluate(program, PLANTED, NUMERIC)
    assert finding is not None and finding.discrepancies[0].verdict == "candidate-wrong"
    assert evaluate(program, "tensorflow", NUMERIC) is None


@pytest.mark.parametrize("predicate", [True, False])
def test_the_numeric_check_judges_gradients_through_the_branch_a_cond_takes_and_minimising_removes_the_cond(predicate):
    """The referee runs a cond as the ops of the branch eager TF runs (statements.unrolled): the planted tanh VJP in
    the branch taken is found, whichever the predicate selects; the other branch (exp of x) is never judged. Minimised,
    the cond gives way to the taken branch's ops. TF's own tanh there is right."""
    from reftape_oracle.program import Cond

    taken, untaken = ([Op("k_tanh", "tanh", ["x"])], "k_tanh"), ([Op("k_exp", "math.exp", ["x"])], "k_exp")
    (true_body, true_result), (false_body, false_result) = (taken, untaken) if predicate else (untaken, taken)
    ops = [Op("s", "sin", ["x"]), Cond("k", predicate, true_body, true_result, false_body, false_result,
                                        tensor_predicate=True), Op("m", "multiply", ["k", "s"]), Op("y", "reduce_sum", ["m"])]
    finding = evaluate(gradient_program(ops, [0.5, -1.0, 2.0]), PLANTED, NUMERIC)
    assert finding is not None and finding.discrepancies[0].verdict == "candidate-wrong"
    minimal = minimize(finding)
    assert minimal.suspect == "tanh" and not any(isinstance(s, Cond) for s in walk(minimal.program.statements))
    assert evaluate(gradient_program(ops, [0.5, -1.0, 2.0]), "tensorflow", NUMERIC) is None


def test_a_cond_that_is_itself_wrong_is_the_suspect():
    """A backend whose cond doubles the gradient through the branch it runs: the sides part at the cond, and the same
    program with the cond replaced by its branch's ops agrees, so the suspect is the cond, not an op in it."""
    from reftape_oracle.program import Cond

    ops = [Cond("k", False, [Op("k_exp", "math.exp", ["x"])], "k_exp", [Op("k_tanh", "tanh", ["x"])], "k_tanh"),
           Op("y", "reduce_sum", ["k"])]
    finding = evaluate(gradient_program(ops, [0.5, -1.0, 2.0]), "cond_doubled_gradient_backend", "tensorflow")
    assert finding is not None and first_divergence(finding).suspect == "cond"


def test_a_half_type_overflowing_inside_a_right_gradient_is_not_tensorflows_bug():
    """The gradient of the gradient of tanh(tanh(x)) at x = 1 with output gradient -65504 (the float16 maximum) is
    about 33352 and fits float16, but TF's float16 intermediates overflow and it returns inf (the kind of a false
    finding of the seed-303 campaign). The same program in float32 gives TF the estimate: the half type's range, no gradient
    function, made it wrong. A gradient function's own bug still shows in float32: bessel_i1's at 0 (entry 15)."""
    def second_order(path: str, value: float, upstream: float) -> Program:
        return Program([Leaf("x", "variable", np.array([value], "float16"), "float16"),
                        Leaf("w", "constant", np.array([upstream], "float16"), "float16"),
                        Tape("t", body=[Tape("u", body=[Op("a", path, ["x"]), Op("y", path, ["a"])]),
                                        Call("g", "u", "gradient", "y", "x", output_gradients="w")]),
                        Call("h", "t", "gradient", "g", "x")], ["y"])

    assert evaluate(second_order("math.tanh", 1.0, -65504.0), "tensorflow", NUMERIC) is None
    norm = [Op("y", "math.reduce_euclidean_norm", ["x"], {"axis": -1, "keepdims": False})]
    assert evaluate(gradient_program(norm, [[1e38]], "bfloat16"), "tensorflow", NUMERIC) is None
    finding = evaluate(gradient_program(sum_of("math.bessel_i1"), [0.0, 1.0], "float16"), "tensorflow", NUMERIC)
    assert finding is not None and finding.discrepancies[0].verdict == "tensorflow-wrong"
