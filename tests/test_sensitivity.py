"""The planted-bug catalogue (properties/mutants.py) and the sensitivity command (properties/sensitivity.py).

The catalogue must follow reftape: every mutant applies to the current reftape (its original text
occurs exactly once), changes it, and still compiles. The command is tested the way a detector is:
it reports planted bugs killed, and it reports the equivalent mutant (a non-bug) surviving.
"""

from collections import Counter
from pathlib import Path

import pytest

import reftape
from reftape_properties.mutants import MUTANTS, TAPE_CLASSES, VJP_CLASSES, select
from reftape_properties.sensitivity import main, module_name

PACKAGE = Path(reftape.__file__).parent


@pytest.mark.parametrize("mutant", MUTANTS, ids=lambda m: m.id)
def test_mutant_applies_to_the_current_reftape(mutant):
    source = (PACKAGE / mutant.file).read_text()
    assert source.count(mutant.original) == 1, f"{mutant.id} no longer applies to reftape/{mutant.file}: update it"
    planted = mutant.apply(source)
    assert planted != source
    compile(planted, mutant.file, "exec")


def test_catalogue_covers_both_families_and_every_class():
    assert len({m.id for m in MUTANTS}) == len(MUTANTS)
    assert {m.cls for m in MUTANTS if m.family == "vjp"} == set(VJP_CLASSES)
    assert {m.cls for m in MUTANTS if m.family == "tape"} == set(TAPE_CLASSES)
    assert min(Counter(m.family for m in MUTANTS).values()) >= 25
    assert all(module_name(m).isidentifier() for m in MUTANTS)


def test_select_matches_id_family_or_class():
    assert [m.id for m in select("cos-sign")] == ["cos-sign"]
    assert {m.family for m in select("tape")} == {"tape"}
    assert {m.cls for m in select("tie-rule,jacobian")} == {"tie-rule", "jacobian"}
    assert select("no-such-*") == []


def test_applying_a_mutant_that_no_longer_matches_fails_loudly():
    with pytest.raises(ValueError, match="occurs 0 times"):
        MUTANTS[0].apply("")


def test_bad_usage_is_one_line_and_exit_2(capsys):
    assert main(["--mutants", "no-such-mutant"]) == 2
    assert main(["--detectors", "nonsense"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err == ["reftape-sensitivity: error: no mutant matches 'no-such-mutant' (see --list)",
                   "reftape-sensitivity: error: unknown detector nonsense: choose among fuzz, suite"]
