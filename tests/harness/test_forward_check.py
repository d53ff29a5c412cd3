"""The forward check (`reftape-fuzz --check forward`, judge/forward.py): a backend's forward mode (jvp) against
its own reverse mode, a numerical derivative deciding which is wrong. It fires on a planted wrong JVP
(tests/backends/wrong_jvp_backend.py: Sin's tangent doubled) with the exact tangent, on a planted wrong
reverse mode (doubled_gradients_backend: every gradient doubled, forward mode right) through the numeric check
of the program's reverse twin, minimises keeping the accumulator; and it stays silent on reftape and on
TensorFlow where they are right.

Exact values are shown by hand: d/dt sin(x + t v) = cos(x) v."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, seed, settings

from reftape_oracle.program import Accumulator, Call, Jvp, Leaf, Op, Program, Tape, Watch, walk
from reftape_properties.explain.clusters import cluster
from reftape_properties.explain.divergence import first_divergence
from reftape_properties.explain.minimize import minimize
from reftape_properties.findings.store import read_findings
from reftape_properties.generate import programs
from reftape_properties.judge.forward import FORWARD
from reftape_properties.judge.numeric import NUMERIC
from reftape_properties.pipeline import evaluate

BACKENDS = Path(__file__).parent.parent / "backends"
X, V = [0.5, -1.0, 2.0], [1.0, 0.25, -2.0]


@pytest.fixture(autouse=True)
def planted_backends_importable(monkeypatch):
    monkeypatch.syspath_prepend(str(BACKENDS))


def sine_program(dtype: str = "float32") -> Program:
    """y = sin(x) * 3 under an accumulator with tangent v, a tape around it; j = jvp(y)."""
    return Program([
        Leaf("x", "constant", np.array(X, dtype), dtype), Leaf("v", "constant", np.array(V, dtype), dtype),
        Leaf("k", "constant", np.array(3.0, dtype), dtype),
        Accumulator("a", ["x"], ["v"], [
            Tape("t", [Watch("t", ["x"]), Op("s", "math.sin", ["x"]), Op("y", "multiply", ["s", "k"])]),
            Call("g", "t", "gradient", "y", "x")]),
        Jvp("j", "a", "y")], ["y"])


def test_a_planted_wrong_jvp_is_found_with_the_exact_tangent():
    finding = evaluate(sine_program(), "wrong_jvp_backend", FORWARD)
    assert finding is not None and finding.reference == FORWARD and finding.signature_parts()["check"] == FORWARD
    (d,) = finding.discrepancies
    assert d.where == "calls/j" and d.verdict == "candidate-wrong"
    np.testing.assert_allclose(np.array(d.estimate, float), 3 * np.cos(X) * np.array(V), rtol=1e-6)


def test_a_wrong_reverse_mode_is_judged_by_the_numeric_check_of_the_reverse_twin():
    """Forward mode right, every gradient doubled: the twin's gradient call (named after the jvp) is wrong."""
    finding = evaluate(sine_program("float64"), "doubled_gradients_backend", FORWARD)
    assert finding is not None and finding.reference == NUMERIC
    assert any(isinstance(s, Call) and s.name == "j" for s in walk(finding.program.statements))
    assert {d.where for d in finding.discrepancies} == {"calls/j[0]", "calls/g"}   # the twin's call and the program's own
    assert all(d.verdict == "candidate-wrong" for d in finding.discrepancies)


@pytest.mark.parametrize("backend", ["reftape", "tensorflow"])
def test_the_forward_check_is_silent_where_forward_and_reverse_agree(backend):
    assert evaluate(sine_program(), backend, FORWARD) is None


def test_a_forward_finding_is_minimised_keeping_its_accumulator():
    program = sine_program()
    statements = program.statements[:3] + [Leaf("w", "constant", np.array(X, "float32"), "float32")]
    accumulator = program.statements[3]
    accumulator.body[0].body += [Op("e", "math.exp", ["w"]), Op("z", "add", ["y", "e"])]
    bigger = Program(statements + [accumulator, Jvp("j", "a", "z")], ["z"])
    finding = evaluate(bigger, "wrong_jvp_backend", FORWARD)
    assert finding is not None
    smallest = minimize(finding)
    assert smallest.reference == FORWARD and len(smallest.program.ops()) < len(bigger.ops())
    assert any(isinstance(s, Accumulator) for s in walk(smallest.program.statements))
    assert "math.sin" in {op.path for op in smallest.program.ops()}


def accumulated_programs(count: int, ops: tuple | None, at: int) -> list[Program]:
    drawn: list[Program] = []

    @settings(max_examples=count, database=None, deadline=None, suppress_health_check=list(HealthCheck))
    @seed(at)
    @given(programs(ops=ops, accumulators=1.0, swarm=True))
    def collect(program):
        drawn.append(program)

    collect()
    return drawn


@pytest.mark.runs_long(seconds=60)
def test_the_forward_check_finds_the_planted_jvp_in_generated_programs_and_nothing_on_reftape():
    """Programs of sines and products (seeded): the planted Sin tangent shows wherever a jvp's target is computed
    through a sine of a primal the check can judge (4 of these 20); reftape itself, on the same programs, in none."""
    drawn = accumulated_programs(20, ("math.sin", "multiply", "add"), 3)
    found = [evaluate(p, "wrong_jvp_backend", FORWARD) for p in drawn]
    assert sum(f is not None for f in found) >= 3, [f and f.signature() for f in found]
    assert all(f.reference in (FORWARD, NUMERIC) and f.primary.verdict == "candidate-wrong" for f in found if f)
    assert [evaluate(p, "reftape", FORWARD) for p in drawn] == [None] * len(drawn)


@pytest.mark.runs_long(seconds=90)
def test_a_forward_campaign_on_correct_tensorflow_ops_finds_nothing(tmp_path):
    report = tmp_path / "report"
    ran = subprocess.run([sys.executable, "-m", "reftape_reports.commands.reftape_fuzz", "--backend", "tensorflow",
                          "--check", FORWARD, "--ops", "tanh,sin,exp,multiply,add,reduce_sum,matmul",
                          "--max-examples", "30", "--workers", "1", "--seed", "2", "--report", str(report)],
                         capture_output=True, text=True, timeout=900)
    assert ran.returncode == 0, ran.stdout[-2000:] + ran.stderr[-2000:]
    assert not (report / "discrepancies.jsonl").exists() or read_findings(report / "discrepancies.jsonl") == []


@pytest.mark.runs_long(seconds=90)
def test_a_forward_campaign_finds_the_planted_jvp_and_reports_it(tmp_path):
    report = tmp_path / "report"
    ran = subprocess.run([sys.executable, "-m", "reftape_reports.commands.reftape_fuzz", "--backend", "wrong_jvp_backend",
                          "--check", FORWARD, "--ops", "math.sin,add,multiply", "--dtypes", "float32,float64",
                          "--max-examples", "30", "--workers", "1", "--seed", "1", "--report", str(report)],
                         capture_output=True, text=True, timeout=900, cwd=BACKENDS)
    assert ran.returncode == 1, ran.stdout[-2000:] + ran.stderr[-2000:]
    clusters = cluster(read_findings(report / "discrepancies.jsonl"))
    assert clusters and all(c.smallest.reference == FORWARD for c in clusters), [c.signature for c in clusters]
    assert (report / "index.html").exists()


def test_a_forward_finding_blames_the_op_whose_tangent_is_wrong_first():
    """exp(sin(x)) * 3: the sine's tangent is the first wrong one (the planted Sin), exp and multiply only carry it."""
    program = sine_program()
    program.statements[3].body[0].body[1:] = [Op("s", "math.sin", ["x"]), Op("e", "math.exp", ["s"]),
                                             Op("y", "multiply", ["e", "k"])]
    finding = first_divergence(evaluate(program, "wrong_jvp_backend", FORWARD))
    assert finding.first_divergence["stage"] == "tangent" and finding.suspect == "math.sin"
    assert finding.first_divergence["node"] == "s"


def test_a_forward_campaign_on_a_backend_without_forward_mode_is_refused_in_one_line(tmp_path):
    ran = subprocess.run([sys.executable, "-m", "reftape_reports.commands.reftape_fuzz", "--backend", "partial_tape",
                          "--check", FORWARD, "--max-examples", "1", "--report", str(tmp_path / "report")],
                         capture_output=True, text=True, timeout=300, cwd=BACKENDS)
    assert ran.returncode == 4 and len(ran.stderr.strip().splitlines()) == 1, ran.stderr
    assert "lacks tf.autodiff.ForwardAccumulator" in ran.stderr and not (tmp_path / "report" / "run.json").exists()


def test_a_jvp_whose_target_changes_size_along_the_tangent_is_not_judged():
    """boolean_mask(x, x > 0) at x = [1, 0, -1] along v = [1, 1, 1]: a step keeps one more element on one side
    only, so the target has no directional derivative (the referee once crashed a campaign's worker here)."""
    program = Program([
        Leaf("x", "constant", np.array([1.0, 0.0, -1.0]), "float64"), Leaf("v", "constant", np.ones(3), "float64"),
        Accumulator("a", ["x"], ["v"], [Op("y", "boolean_mask", ["x", "x"])]), Jvp("j", "a", "y")], ["y"])
    assert evaluate(program, "tensorflow", FORWARD) is None


def test_a_jvp_where_the_target_is_not_defined_is_not_judged():
    """betainc(2, 1, x) = x² on [0, 1] and NaN past 1: at x = 1.5 TF's tangent is a number (2 x v = 5.16 for
    v = 1.72) where the function is not defined, which no derivative can judge; at x = 0.5 it is right. (The
    referee's difference of NaN and NaN is 0: taken for a derivative, a campaign of seed 301 made this a false
    finding.)"""
    def program(x: float) -> Program:
        return Program([
            Leaf("x", "constant", np.array([x, 0.5], "float32"), "float32"),
            Leaf("v", "constant", np.array([1.72, -0.39], "float32"), "float32"),
            Accumulator("acc", ["x"], ["v"], [Op("y", "math.betainc", ["x"], {"a": 2.0, "b": 1.0})]),
            Jvp("j", "acc", "y")], ["y"])

    assert evaluate(program(1.5), "tensorflow", FORWARD) is None
    assert evaluate(program(0.25), "tensorflow", FORWARD) is None


def test_a_tangent_spanning_many_magnitudes_is_estimated_element_by_element():
    """sigmoid_cross_entropy_with_logits(labels=z, logits=x) has the JVP (sigmoid(x) - z) dx - x dz. With dz =
    [1e19, 1.13] at x = [0, 1.914] (a near-overflow tangent the generator draws), one central difference along
    (dx, dz) does not move z[1] at all and misses -x dz there: TF's right JVP was once a false finding."""
    program = Program([
        Leaf("x", "constant", np.array([0.0, 1.914]), "float64"), Leaf("z", "constant", np.array([0.5, 0.254]), "float64"),
        Leaf("dx", "constant", np.array([1.0, 2.156]), "float64"), Leaf("dz", "constant", np.array([1e19, 1.133]), "float64"),
        Accumulator("a", ["x", "z"], ["dx", "dz"], [Op("y", "nn.sigmoid_cross_entropy_with_logits", ["z", "x"])]),
        Jvp("j", "a", "y")], ["y"])
    assert evaluate(program, "tensorflow", FORWARD) is None


def test_a_primal_read_as_hermitian_is_judged_along_the_tangents_hermitian_part():
    """logdet reads one triangle of A: along V = [[0, 1], [0, 0]] the function moves by d/dA[1, 0]-or-[0, 1] alone,
    while TF's JVP, transposing its Hermitian gradient A^-1, is tr(A^-1 V) = (A^-1)[1, 0] = -0.2 for A = [[2, 0.5],
    [0.5, 1.5]]: the same as along V's Hermitian part, the only direction in which a Hermitian input moves."""
    program = Program([
        Leaf("x", "constant", np.array([[2.0, 0.5], [0.5, 1.5]]), "float64"),
        Leaf("v", "constant", np.array([[0.0, 1.0], [0.0, 0.0]]), "float64"),
        Accumulator("a", ["x"], ["v"], [Op("y", "linalg.logdet", ["x"])]), Jvp("j", "a", "y")], ["y"])
    assert evaluate(program, "tensorflow", FORWARD) is None


def test_a_complex_target_of_a_primal_read_as_hermitian_is_judged_along_the_hermitian_part_in_both_parts():
    """cholesky of a Hermitian complex A along a tangent that is not Hermitian: TF's jvp is the derivative along V's
    Hermitian part, in the imaginary parts of L as in the real ones (seed 309 again: the estimate's imaginary parts
    were taken along V itself, and a right jvp was a finding). Exact: L'(0) of cholesky(A + t (V + V^H) / 2)."""
    a = np.array([[4.0, 1.0 - 1.0j], [1.0 + 1.0j, 3.0]])
    v = np.array([[0.5, 2.0 + 1.0j], [-1.0 + 0.5j, 1.0]])
    program = Program([Leaf("x", "constant", a, "complex128"), Leaf("v", "constant", v, "complex128"),
                       Accumulator("a", ["x"], ["v"], [Op("y", "linalg.cholesky", ["x"])]), Jvp("j", "a", "y")], ["y"])
    assert evaluate(program, "tensorflow", FORWARD) is None
    step, hermitian = 1e-7, (v + v.conj().T) / 2
    exact = (np.linalg.cholesky(a + step * hermitian) - np.linalg.cholesky(a - step * hermitian)) / (2 * step)
    assert np.abs(exact.imag[1, 0]) > 0.1   # the tangent moves an imaginary part: the case is not vacuous


@pytest.mark.parametrize("case", ["logdet beside adjoint", "sqrtm"])
def test_only_what_reads_a_primal_as_hermitian_is_judged_along_the_hermitian_part(case):
    """Along a tangent that is not Hermitian, TF's jvp of adjoint(A) is adjoint(V), whatever a logdet beside it
    reads (seed 309's false finding judged both targets along V's Hermitian part), and sqrtm, which reads the whole
    matrix, moves along all of V: S dS + dS S = V (the same seed's float32 sqrtm finding)."""
    x = np.array([[2.0, 0.5], [0.5, 1.5]])
    v = np.array([[-2.0, -0.67], [1.18, 1.74]])
    ops = ([Op("y", "linalg.logdet", ["x"]), Op("z", "linalg.adjoint", ["x"])] if case == "logdet beside adjoint"
           else [Op("y", "linalg.sqrtm", ["x"]), Op("z", "identity", ["y"])])
    program = Program([Leaf("x", "constant", x, "float64"), Leaf("v", "constant", v, "float64"),
                       Accumulator("a", ["x"], ["v"], ops), Jvp("j", "a", {"list": ["y", "z"]})], ["y", "z"])
    assert evaluate(program, "tensorflow", FORWARD) is None
