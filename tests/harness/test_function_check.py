"""The function check (`reftape-fuzz --check function`, judge/function.py): a backend's eager run of a program
against the same program traced in one tf.function (oracle/traced.py). It fires on a planted gradient that is
wrong only inside a function (a TF re-export, tests/backends/tf_traced_wrong_tanh_backend.py), names the op,
and stays silent where TF's two modes agree or differ by design (exceptions). A backend whose `function` does
not trace (runs its body on every call) is refused: its two runs would be the same computation.

Expected values are TensorFlow's own, run live, and exact derivatives shown by hand."""

import json
import subprocess
import sys
import types

import numpy as np
import pytest

from reftape_oracle.interpreter import load_backend, run
from reftape_oracle.outcome import HarnessError
from reftape_oracle.program import Call, Leaf, Op, Program, Tape, Watch, WatchedVariables, WhileLoop
from reftape_properties.explain.divergence import first_divergence
from reftape_properties.findings.store import read_findings
from reftape_properties.judge.function import FUNCTION, traces_functions
from reftape_properties.pipeline import evaluate
from test_checks import BACKENDS, fuzz, planted_campaign

PLANTED = "tf_traced_wrong_tanh_backend"
UNTRACED = "untraced_function_backend"


@pytest.fixture(autouse=True)
def backends_importable(monkeypatch):
    monkeypatch.syspath_prepend(str(BACKENDS))


def tanh_program(value=(0.5, -1.0, 2.0)) -> Program:
    """g = d/dx sum(tanh(x)) = 1 - tanh(x)**2, for a Variable x."""
    return Program([Leaf("x", "variable", np.array(value, "float32"), "float32"),
                    Tape("t", body=[Op("a", "tanh", ["x"]), Op("y", "reduce_sum", ["a"])]),
                    Call("g", "t", "gradient", "y", "x")], ["y"])


def test_a_gradient_wrong_only_inside_a_function_is_found_with_the_exact_one():
    finding = evaluate(tanh_program(), PLANTED, FUNCTION)
    assert finding is not None and finding.reference == FUNCTION and finding.candidate == PLANTED
    (wrong,) = finding.discrepancies
    assert wrong.where == "calls/g" and wrong.verdict == "candidate-wrong"
    exact = 1 - np.tanh(np.array([0.5, -1.0, 2.0])) ** 2
    np.testing.assert_allclose(np.array(wrong.estimate, float), exact, rtol=1e-6)
    assert finding.signature_parts()["check"] == FUNCTION


def test_tensorflows_own_tanh_agrees_with_itself_traced():
    assert evaluate(tanh_program(), "tensorflow", FUNCTION) is None


def test_a_traced_run_reports_what_an_eager_one_does():
    """Variables (name, trainability, value when reported), watched_variables, IndexedSlices, a while loop's
    gradient through TF's While op, None for an unconnected source: TF's traced outcome is its eager one."""
    program = Program([
        Leaf("v", "variable", np.array([[0.5, -1.0], [2.0, 3.0]], "float32"), "float32"),
        Leaf("u", "constant", np.array([1.0, 2.0], "float32"), "float32"),
        Tape("t", persistent=True, body=[
            Op("r", "gather", ["v"], {"indices": (1, 1, 0), "axis": 0}),
            WhileLoop("w", "u", "p", [Op("p_sin", "sin", ["p"])], "p_sin", trips=3),
            Op("y", "reduce_sum", ["r"]), Op("z", "reduce_sum", ["w"]),
            WatchedVariables("wv", "t")]),
        Call("g", "t", "gradient", "y", {"list": ["v", "u"]}),
        Call("h", "t", "gradient", "z", "u"),
    ], ["y", "z", "v"])
    eager, traced = run(program, "tensorflow"), run(program, "tensorflow", traced=True)
    assert eager.error is None and eager.observed() == traced.observed()
    assert eager.calls["g"]["items"][0]["kind"] == "indexed_slices" and eager.calls["g"]["items"][1]["kind"] == "none"
    assert eager.values["v"]["variable"] == {"name": "v:0", "trainable": True}
    assert evaluate(program, "tensorflow", FUNCTION) is None


def test_where_the_modes_raise_differently_by_design_nothing_is_found():
    """A non-persistent tape's jacobian without pfor raises RuntimeError eagerly and is computed inside a
    function (TF's rule): exceptions are never compared."""
    program = Program([Leaf("x", "variable", np.array([0.5, -1.0], "float32"), "float32"),
                       Tape("t", body=[Op("a", "sin", ["x"])]),
                       Call("j", "t", "jacobian", "a", "x", use_pfor=False)], ["a"])
    eager, traced = run(program, "tensorflow"), run(program, "tensorflow", traced=True)
    assert eager.calls["j"]["kind"] == "exception" and traced.calls["j"]["kind"] == "tensor"
    assert evaluate(program, "tensorflow", FUNCTION) is None


@pytest.mark.parametrize("traced_value, found", [("-3.16e38", False), ("-1e30", True), ("3.3e38", True)])
def test_an_infinity_against_a_value_that_rounds_to_it_is_rounding_at_overflow(traced_value, found):
    """Seed 309: a bfloat16 variance's jvp is -inf eagerly and -3.16e38 traced (bfloat16's largest is 3.39e38, the
    tolerance 1.04 relative): rounding at overflow, no finding. A finite value far below the largest, or of the
    other sign, is still one."""
    from reftape_oracle.outcome import Outcome
    from reftape_properties.judge.compare import Discrepancy
    from reftape_properties.judge.function import mode_discrepancies

    def tensor(*data):
        return {"dtype": "bfloat16", "kind": "tensor", "shape": [len(data)], "data": list(data)}
    pattern = Discrepancy("nan-inf-pattern", "calls/j0[1]", tensor("1.0", "-inf"), tensor("1.0", traced_value),
                          tolerance={"relative": 1.04, "absolute_scale": 1.04}, dtype="bfloat16")
    kept = mode_discrepancies(Program([], []), [pattern], Outcome("eager"), Outcome("traced"), "tensorflow")
    assert (kept == [pattern]) is found


def test_the_printed_script_runs_both_modes_and_shows_the_difference():
    script = tanh_program().to_source(PLANTED, traced=True)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=BACKENDS, timeout=300)
    printed = json.loads(done.stdout.strip().splitlines()[-1])
    assert set(printed) == {"eager", "tf.function"}
    eager, traced = (np.array([float.fromhex(x) for x in printed[m]["calls"]["g"]["data"]]) for m in printed)
    np.testing.assert_allclose(eager, 1 - np.tanh([0.5, -1.0, 2.0]) ** 2, rtol=1e-6)
    np.testing.assert_allclose(traced, 1 - np.tanh([0.5, -1.0, 2.0]), rtol=1e-6)


def test_only_a_function_that_traces_is_checked():
    assert traces_functions(load_backend("tensorflow")) and traces_functions(load_backend("reftape"))
    assert not traces_functions(load_backend(UNTRACED))


def test_a_backend_whose_function_does_not_trace_is_refused_in_one_line(tmp_path):
    ran = fuzz("--backend", UNTRACED, "--check", FUNCTION, "--max-examples", "1", "--report", str(tmp_path / "r"),
               timeout=300)
    assert ran.returncode == 4 and len(ran.stderr.strip().splitlines()) == 1, ran.stderr
    assert "--check function" in ran.stderr and "does not trace" in ran.stderr


@pytest.mark.runs_long
def test_a_function_campaign_finds_the_planted_gradient_and_reports_it(tmp_path):
    clusters, report = planted_campaign(tmp_path, PLANTED, FUNCTION, 30)
    assert {c.smallest.suspect for c in clusters} == {"tanh"}, [c.signature for c in clusters]
    assert all(c.smallest.reference == FUNCTION and c.verdict == "candidate-wrong" for c in clusters)
    assert "run_traced(globals())" in (report / "index.html").read_text()


@pytest.mark.runs_long
def test_a_function_campaign_on_tensorflows_correct_ops_finds_nothing(tmp_path):
    report = tmp_path / "report"
    ran = fuzz("--backend", "tensorflow", "--check", FUNCTION, "--ops", "tanh,sin,exp,multiply,add,reduce_sum,matmul",
               "--dtypes", "float32,float64", "--max-examples", "40", "--workers", "1", "--seed", "2",
               "--report", str(report))
    assert ran.returncode == 0, ran.stdout[-2000:] + ran.stderr[-2000:]
    assert not (report / "discrepancies.jsonl").exists() or read_findings(report / "discrepancies.jsonl") == []


def tensorflow_but(**replaced) -> types.ModuleType:
    """TensorFlow's names, with some replaced (None: absent)."""
    import tensorflow as tf

    def names(name: str):
        if name in replaced and replaced[name] is None:
            raise AttributeError(name)
        return replaced[name] if name in replaced else getattr(tf, name)

    module = types.ModuleType("tensorflow_but")
    module.__getattr__ = names
    return module


@pytest.mark.parametrize("broken", ["no init_scope", "a function without autograph="])
def test_a_backend_that_cannot_run_the_traced_program_is_a_harness_error_never_an_agreement(broken):
    """The traced run fails before the program begins, for what the backend lacks: were that the program's
    exception, the check (which skips what raised) would call it an agreement."""
    import tensorflow as tf

    backend = (tensorflow_but(init_scope=None) if broken == "no init_scope"
               else tensorflow_but(function=lambda f: tf.function(f)))
    with pytest.raises(HarnessError):
        evaluate(tanh_program(), backend, FUNCTION)


def test_a_difference_the_modes_have_by_design_does_not_name_the_suspect():
    """Eager TF's loop jacobian of an empty target is float32 (TF_ANOMALIES 29), traced TF's float64: that is the
    finding. Beside it, a gradient by a tensor no tape watches, through `repeat` of a gradient taken with
    unconnected zeros, is None in one mode and zeros in the other, which the check does not count; the first
    divergence once stopped there and named `repeat` (seed 309)."""
    x = np.array([[0.85, 0.85], [-1.85, 0.0]])
    program = Program([
        Leaf("c", "constant", x, "float64"), Leaf("u", "constant", np.ones((2, 2)), "float64"),
        Leaf("e", "constant", np.zeros((3, 0, 2)), "float64"),
        Tape("t", body=[Watch("t", ["c"]), Call("g", "t", "gradient", "c", "c"),
                        Call("h", "t", "gradient", "g", "c", unconnected="zero", unconnected_form="string"),
                        Op("r", "repeat", ["h"], {"axis": None, "repeats": [0, 2, 2, 1]})], persistent=True),
        Call("k", "t", "gradient", "r", "u"),
        Call("j", "t", "batch_jacobian", "e", "e", use_pfor=False)], ["r"])
    finding = first_divergence(evaluate(program, "tensorflow", FUNCTION))
    assert [d.where for d in finding.discrepancies] == ["calls/j"] and finding.discrepancies[0].kind == "dtype"
    assert finding.suspect is None
