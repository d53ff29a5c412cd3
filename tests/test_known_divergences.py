"""Every reviewed divergence (KNOWN_DIVERGENCES.md) still reproduces: its minimal program gives
different outcomes on TensorFlow and reftape. An entry that stops reproducing must be removed
(together with any generator restriction it justifies)."""

import json

import pytest

from reftape_oracle import run
from reftape_properties.known import KNOWN


def test_known_divergences_are_numbered_like_the_document():
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "KNOWN_DIVERGENCES.md").read_text()
    assert [k.number for k in KNOWN] == list(range(1, len(KNOWN) + 1))
    for known in KNOWN:
        assert f"## {known.number}. " in text


@pytest.mark.parametrize("known", KNOWN, ids=lambda k: f"{k.number}")
def test_known_divergence_still_reproduces(known):
    expected, actual = run(known.program, "tensorflow"), run(known.program, "reftape")
    assert expected.error is None and actual.error is None
    same = json.dumps(expected.observed(), sort_keys=True) == json.dumps(actual.observed(), sort_keys=True)
    assert not same, f"known divergence {known.number} ({known.title}) no longer reproduces: remove it"


def test_half_accumulation_entry_explains_only_float16_infinities_of_tensorflow():
    from reftape_properties.compare import Discrepancy
    from reftape_properties.known import explained_by

    def one(value, dtype="float16"):  # a discrepancy holds the two sides' descriptions
        return {"kind": "tensor", "dtype": dtype, "shape": [1], "data": [float(value).hex()]}

    inf, finite = float("inf"), 40000.0
    assert explained_by(Discrepancy("nan-inf-pattern", "values/y", one(inf), one(finite), dtype="float16")).number == 4
    assert explained_by(Discrepancy("nan-inf-pattern", "values/y", one(finite), one(inf), dtype="float16")) is None
    assert explained_by(Discrepancy("nan-inf-pattern", "values/y", one(inf, "float32"), one(finite, "float32"),
                                    dtype="float32")) is None
    assert explained_by(Discrepancy("value", "values/y", one(finite), one(1.0), dtype="float16")) is None
