"""TensorFlow's outcome of each snippet, computed once per process and shared by the test comparing the snippet
with the candidate and the test checking that the reference runs every snippet of its suite.

The outcome is a function of the snippet's code (TensorFlow runs with op determinism), which the memo is keyed
by. A snippet whose reference side did not run fails its comparison too (a harness fault never agrees), so the
reference-runs-every test checks something more only where the comparisons were deselected (the candidate
lacks what they need), and there it computes the outcomes itself.
"""

from __future__ import annotations

import copy
from typing import Any

from reftape_properties.conformance.snippet_outcomes import run_statements
from reftape_properties.conformance.snippets import CORPUS, run_seed
from reftape_properties.judge.compare import compare_values, harness_faults

_OUTCOMES: dict[tuple, dict] = {}


def _memoized(key: tuple, compute) -> dict:
    if key not in _OUTCOMES:
        _OUTCOMES[key] = compute()
    return copy.deepcopy(_OUTCOMES[key])


def statements_outcome(source: str, tf: Any) -> dict:
    """`run_statements(source, tf)`, its Python warnings (TF's own deprecations) kept quiet, as
    snippet_outcomes.both_outcomes runs it."""
    import warnings

    def run() -> dict:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return run_statements(source, tf)
    return _memoized(("statements", tf.__name__, source), run)


def snippet_discrepancies(source: str, tf: Any, candidate: Any) -> list:
    """snippet_outcomes.snippet_discrepancies with TensorFlow's side memoized."""
    import warnings

    expected = statements_outcome(source, tf)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        actual = run_statements(source, candidate)
    return compare_values(expected, actual)


def reference_faults(snippets: dict[str, str], tf: Any) -> dict[str, list[str]]:
    """snippet_outcomes.reference_faults over the memoized outcomes."""
    faults = {name: harness_faults(statements_outcome(code, tf), None) for name, code in snippets.items()}
    return {name: found for name, found in faults.items() if found}


def seed_outcome(name: str, tf: Any) -> dict:
    """`run_seed(name, tf)`, keyed by the note's text as well."""
    return _memoized(("seed", tf.__name__, name, (CORPUS / "seeds" / name).read_text()), lambda: run_seed(name, tf))
