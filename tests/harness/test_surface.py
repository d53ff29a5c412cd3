"""A backend's surface (oracle/surface.py): what it lacks is probed, declared, never drawn, reported as
missing by name when a program needs it anyway, and listed once as unsupported by a campaign."""

import json

import numpy as np
import pytest

import partial_tape
import reftape
from reftape_oracle.catalog import CATALOG
from reftape_oracle.interpreter import run
from reftape_oracle.program import Call, Leaf, Op, Program, Tape, Watch
from reftape_oracle.surface import FEATURES, DeclarationError, Surface, declared, needs, probe
from reftape_properties.generate import programs
from test_cli import BACKENDS, command, one_line_error, write
from test_strategies import _sample

PARTIAL = probe(partial_tape)
PARTIAL_FEATURES = {"GradientTape.jacobian", "GradientTape.batch_jacobian", "GradientTape.stop_recording",
                    "GradientTape.watched_variables", "custom_gradient"}


def test_reftape_and_tensorflow_lack_nothing_programs_use(tf):
    assert probe(reftape).lacking == frozenset()
    assert probe(tf).lacking == frozenset()


def test_the_probe_finds_what_a_partial_tape_lacks():
    assert PARTIAL_FEATURES <= PARTIAL.lacking
    assert not PARTIAL.lacking & {"Variable", "Variable.assign", "GradientTape.reset",
                                  "GradientTape.gradient(output_gradients=)"}
    assert PARTIAL.ops(CATALOG) == ("add", "subtract", "multiply", "divide", "maximum", "negative", "abs", "exp",
                                    "sqrt", "square", "sin", "cos", "tanh", "math.log1p", "reduce_sum",
                                    "reduce_mean", "reduce_max", "matmul", "nn.relu", "nn.softplus")
    assert "cast" in PARTIAL.lacking and "random.normal" not in CATALOG


def test_an_op_without_an_optional_keyword_stays_and_without_a_needed_one_goes():
    optional = Surface(frozenset({"matmul(adjoint_a=)"}))
    needed = Surface(frozenset({"gather(indices=)"}))
    assert optional.has_op("matmul") and not needed.has_op("gather")


def test_the_generator_draws_nothing_a_backend_lacks():
    lacking = PARTIAL.lacking | {"matmul(adjoint_a=)", "matmul(transpose_b=)", "GradientTape.gradient(output_gradients=)"}
    used = set().union(*(needs(p.statements) for p in _sample(programs(lacking=lacking), 300)))
    assert not used & lacking, sorted(used & lacking)
    assert "matmul" in used
    # the same draw without the restriction uses them: the check above can fail
    everything = set().union(*(needs(p.statements) for p in _sample(programs(), 300)))
    assert PARTIAL_FEATURES | {"cast", "matmul(adjoint_a=)", "GradientTape.gradient(output_gradients=)"} <= everything


def test_a_program_needing_what_the_backend_lacks_is_missing_by_name():
    program = Program([Leaf("x", "constant", np.ones(2, "float32"), "float32"),
                       Tape("t", [Watch("t", ["x"]), Op("y", "sin", ["x"])], persistent=True),
                       Call("j", "t", "jacobian", "y", "x")], ["y"])
    outcome = run(program, partial_tape)
    assert outcome.error == {"kind": "missing", "names": ["GradientTape.jacobian"]}
    assert needs(program.statements) >= {"GradientTape.jacobian", "sin"}


def test_a_declaration_adds_features_globs_and_keywords(tmp_path):
    path = write(tmp_path / "surface.json", {"unsupported": ["GradientTape.reset", "linalg.*", "matmul(adjoint_a=)"]})
    names = declared(path)
    assert {"GradientTape.reset", "linalg.matmul", "matmul(adjoint_a=)"} <= names
    assert not any(n.startswith("math.") for n in names)


@pytest.mark.parametrize("content, fragment", [
    ({"unsupported": ["no_such_thing"]}, "'no_such_thing' is no feature"),
    ({"unsupported": ["matmul(nonsense=)"]}, "'matmul(nonsense=)' is no feature"),
    ({"unsupported": "cast"}, "must hold"),
    ([1], "must hold"),
])
def test_a_bad_declaration_is_refused_naming_why(tmp_path, content, fragment):
    with pytest.raises(DeclarationError, match=fragment.replace("(", r"\(").replace(")", r"\)")):
        declared(write(tmp_path / "surface.json", content))


def test_listing_names_the_features_a_backend_lacks():
    listed = command("reftape-fuzz", "--list-ops", "--backend", "partial_tape", cwd=BACKENDS)
    assert listed.returncode == 0, listed.stderr
    lines = listed.stdout.splitlines()
    assert {f"lacks {name}" for name in PARTIAL_FEATURES} <= set(lines) and "lacks cast" in lines
    assert lines[-1] == f"partial_tape has 20 of these {len(CATALOG)} catalog ops"


def test_require_all_refuses_a_partial_tape_before_running(tmp_path):
    report = tmp_path / "report"
    result = command("reftape-fuzz", "--backend", "partial_tape", "--require-all", "--max-examples", "5",
                     "--report", report, cwd=BACKENDS)
    one_line_error(result, 4, "--require-all", "GradientTape.jacobian", "cast")
    assert not report.exists()
    surface = write(tmp_path / "surface.json", {"unsupported": ["sin*"]})
    one_line_error(command("reftape-fuzz", "--backend", "reftape", "--require-all", "--surface", surface,
                           "--max-examples", "5", "--report", report, cwd=tmp_path), 4, "sin, sinh")
    bad = write(tmp_path / "bad.json", {"unsupported": ["nope"]})
    one_line_error(command("reftape-fuzz", "--surface", bad, "--max-examples", "5", "--report", report,
                           cwd=tmp_path), 2, "--surface", "'nope' is no feature")


def test_a_campaign_on_a_correct_partial_tape_is_clean_and_lists_what_it_left_out(tmp_path):
    report = tmp_path / "report"
    result = command("reftape-fuzz", "--backend", "partial_tape", "--max-examples", "150", "--workers", "1",
                     "--seed", "3", "--report", report, cwd=BACKENDS)
    assert result.returncode == 0, (result.stdout[-2000:], result.stderr[-2000:])
    run_record = json.loads((report / "run.json").read_text())
    assert run_record["result"]["unexplained"] == 0
    assert set(run_record["result"]["findings_by_kind"]) <= {"nan-inf-pattern"}  # reftape's known divergences only
    unsupported = run_record["configuration"]["unsupported"]
    assert PARTIAL_FEATURES | {"cast"} <= set(unsupported)
    assert not any(name.startswith("GradientTape.jacobian(") for name in unsupported)  # the method says it all
    assert f"unsupported by partial_tape, not drawn: {len(CATALOG) - 20} catalog ops" in result.stdout
    assert set(FEATURES) >= {n for n in unsupported if n not in CATALOG and "(" not in n}
