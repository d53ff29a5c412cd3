"""The planted-bug catalogue (properties/sensitivity/mutants.py) and the sensitivity command (reports/commands/reftape_sensitivity.py).

The catalogue must follow reftape: every mutant applies to the current reftape (its original text
occurs exactly once), changes it, and still compiles. The command is tested the way a detector is:
it reports planted bugs killed, and it reports the equivalent mutant (a non-bug) surviving.
"""

import ast
import builtins
import dataclasses
import json
import re
import shutil
from collections import Counter
from dataclasses import asdict
from pathlib import Path

import pytest

import reftape
from reftape_oracle import interpreter
from reftape_oracle.program import Program
from reftape_properties.sensitivity.mutants import MUTANTS, TAPE_CLASSES, VJP_CLASSES, select
from reftape_properties.sensitivity.measure import (DETECTORS, QUICK, TESTS, detection_figures, memoize_reference,
                                                    module_name, run_campaign_detector)
from reftape_reports.commands.reftape_sensitivity import main

ROOT = Path(__file__).resolve().parents[2]

PACKAGE = Path(reftape.__file__).parent


@pytest.mark.parametrize("mutant", MUTANTS, ids=lambda m: m.id)
def test_mutant_applies_to_the_current_reftape(mutant):
    source = (PACKAGE / mutant.file).read_text()
    assert source.count(mutant.original) == 1, f"{mutant.id} no longer applies to reftape/{mutant.file}: update it"
    planted = mutant.apply(source)
    assert planted != source
    compile(planted, mutant.file, "exec")


def _undefined_names(planted: str, replacement: str) -> list[str]:
    """Names the planted text reads that nothing in its module binds (nor a builtin): such a mutant fails
    with NameError where it runs instead of planting its bug, and would count as killed for that."""
    tree = ast.parse(planted)
    bound = set(dir(builtins))
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            bound.add(node.id)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            bound |= {(a.asname or a.name).split(".")[0] for a in node.names}
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
    first = planted[:planted.index(replacement)].count("\n") + 1
    last = first + replacement.count("\n")
    return sorted({n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
                   and first <= n.lineno <= last and n.id not in bound})


@pytest.mark.parametrize("mutant", MUTANTS, ids=lambda m: m.id)
def test_a_planted_mutant_reads_only_names_its_module_binds(mutant):
    planted = mutant.apply((PACKAGE / mutant.file).read_text())
    assert _undefined_names(planted, mutant.replacement) == []


def test_the_name_check_sees_a_mutant_reading_a_name_nobody_binds():
    stale = dataclasses.replace(MUTANTS[0], replacement=f"suspended_everything() or {MUTANTS[0].replacement}")
    planted = stale.apply((PACKAGE / stale.file).read_text())
    assert _undefined_names(planted, stale.replacement) == ["suspended_everything"]


def test_catalogue_covers_both_families_and_every_class():
    assert len({m.id for m in MUTANTS}) == len(MUTANTS)
    assert {m.cls for m in MUTANTS if m.family == "vjp"} == set(VJP_CLASSES)
    assert {m.cls for m in MUTANTS if m.family == "tape"} == set(TAPE_CLASSES)
    assert min(Counter(m.family for m in MUTANTS).values()) >= 25
    assert all(module_name(m).isidentifier() for m in MUTANTS)


def test_the_suite_detector_runs_every_file_of_the_backend_agnostic_suite():
    """A suite file the detector leaves out kills nothing in `reftape-sensitivity` (control flow once did)."""
    assert sorted(DETECTORS["suite"]) == sorted(p.name for p in TESTS.glob("test_*.py"))


def test_select_matches_id_family_or_class():
    assert [m.id for m in select("cos-sign")] == ["cos-sign"]
    assert {m.family for m in select("tape")} == {"tape"}
    assert {m.cls for m in select("tie-rule,jacobian")} == {"tie-rule", "jacobian"}
    assert select("no-such-*") == []


def test_applying_a_mutant_that_no_longer_matches_fails_loudly():
    with pytest.raises(ValueError, match="occurs 0 times"):
        MUTANTS[0].apply("")


def test_a_mutant_reftape_outgrew_is_a_usage_error_before_anything_runs(monkeypatch, capsys):
    import dataclasses

    from reftape_reports.commands import reftape_sensitivity as sensitivity

    stale = dataclasses.replace(MUTANTS[0], id="stale", original="text reftape no longer has")
    monkeypatch.setattr(sensitivity, "select", lambda pattern: [stale])
    assert main(["--mutants", "stale"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err == [f"reftape-sensitivity: error: mutant stale: its original text occurs 0 times in "
                   f"reftape/{stale.file}: update it in properties/sensitivity/mutants.py"]


def test_a_selection_of_no_test_is_an_error_never_a_survival(tmp_path):
    from reftape_properties.sensitivity.measure import Runs, run_detector

    status, _, detail = run_detector("fuzz", "reftape", tmp_path, Runs(select="no_such_test_name"))
    assert status == "error" and detail.startswith("pytest exit 5"), detail


def test_bad_usage_is_one_line_and_exit_2(capsys):
    assert main(["--mutants", "no-such-mutant"]) == 2
    assert main(["--detectors", "nonsense"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err == ["reftape-sensitivity: error: no mutant matches 'no-such-mutant' (see --list)",
                   "reftape-sensitivity: error: unknown detector nonsense: choose among fuzz, suite, "
                   "campaign:SECONDS, campaign-coverage:SECONDS, campaign-swarm:SECONDS, campaign-uniform:SECONDS"]


@pytest.mark.runs_long
def test_a_campaign_detector_stops_at_the_first_finding_and_reports_its_time_to_detection(tmp_path):
    """The planted tape doubles every gradient: the campaign's first examples find it, and the detector stops the
    campaign there (a SIGTERM, recorded in its run.json) instead of spending the budget."""
    shutil.copy(ROOT / "tests" / "backends" / "doubled_gradients_backend.py", tmp_path)
    status, seconds, detail = run_campaign_detector("campaign:900", "doubled_gradients_backend", tmp_path)
    assert status == "killed" and 0 < seconds < 900 and re.fullmatch(r"first unexplained finding after \d+ examples", detail)
    run = json.loads((tmp_path / "report-campaign-900" / "run.json").read_text())
    assert run["configuration"]["schedule"] == "swarm"   # the command's default
    result = run["result"]
    assert result["stopped_by"] == "SIGTERM" and result["first_unexplained"]["seconds"] == seconds


@pytest.mark.runs_long
def test_a_campaign_detector_without_a_finding_in_its_budget_survives(tmp_path):
    status, _, detail = run_campaign_detector("campaign-coverage:2", "reftape", tmp_path)
    assert (status, detail) == ("survived", "")
    configuration = json.loads((tmp_path / "report-campaign-coverage-2" / "run.json").read_text())["configuration"]
    assert configuration["schedule"] == "coverage" and configuration["explain_budget"] == 0


def test_time_to_detection_is_the_earliest_unexplained_finding_whatever_order_workers_wrote_them(tmp_path):
    """Two workers: the second writes its earlier finding after the first's; a known finding and one explained from
    another never count; a line being written ends the read."""
    from reftape_properties.sensitivity.measure import _earliest_unexplained

    def record(seconds, examples, **fields):
        return json.dumps({"context": {"campaign": {"detected": {"seconds": seconds, "examples": examples}}}, **fields})

    records = tmp_path / "discrepancies.jsonl"
    records.write_text("\n".join([record(4.9, 120), record(1.0, 20, known=3), record(0.5, 10, explained_from="x"),
                                  record(4.89, 118), '{"context": {"camp']) + "\n")
    assert _earliest_unexplained(records) == {"seconds": 4.89, "examples": 118}


def test_detection_figures_count_kills_within_each_mark_and_take_the_median():
    figures = detection_figures([40.0, 5.0, 20.0], detectable=4, budget=45)
    assert figures == {"killed_within": {"15": "1/4", "30": "2/4", "45": "3/4"}, "median_seconds": 20.0}
    assert detection_figures([], detectable=2, budget=60)["median_seconds"] is None


def test_memo_returns_the_reference_outcome_it_stored(tmp_path, monkeypatch):
    program = Program.from_json((ROOT / "examples" / "matvec_relu.json").read_text())
    live = interpreter.run(program, "tensorflow")
    monkeypatch.setattr(interpreter, "run", interpreter.run)  # restored after the test
    memoize_reference(tmp_path)
    first = interpreter.run(program, "tensorflow")
    assert len(list(tmp_path.glob("*.json"))) == 1
    again = interpreter.run(program, "tensorflow")
    assert asdict(first) == asdict(again) == asdict(live)
    interpreter.run(program, "reftape")  # the candidate is never memoized
    assert len(list(tmp_path.glob("*.json"))) == 1


@pytest.mark.runs_long(seconds=300)
def test_quick_subset_kills_the_planted_bugs_and_spares_the_equivalent_one(tmp_path, capsys):
    """The real command on the CI subset against the fuzz detector, narrowed to its elementwise tests (the whole
    detector's runs of the unmutated reftape and of the equivalent mutant take minutes): each planted bug is
    killed (the detector fires), the equivalent mutant survives (it does not fire on a non-bug)."""
    output = tmp_path / "sensitivity.json"
    status = main(["--quick", "--detectors", "fuzz", "--select", "elementwise", "--jobs", "2", "--json", str(output)])
    printed = capsys.readouterr().out
    results = {m["id"]: m for m in json.loads(output.read_text())["mutants"]}
    assert set(results) == set(QUICK)
    planted = [id for id in QUICK if not results[id]["equivalent"]]
    equivalent = [id for id in QUICK if results[id]["equivalent"]]
    assert len(planted) >= 2 and len(equivalent) >= 1
    assert {id: results[id]["status"]["fuzz"] for id in planted} == dict.fromkeys(planted, "killed"), printed
    assert {id: results[id]["status"]["fuzz"] for id in equivalent} == dict.fromkeys(equivalent, "survived"), printed
    assert status == 0
    assert "(unmutated reftape)" in printed and "fuzz: survived" in printed
