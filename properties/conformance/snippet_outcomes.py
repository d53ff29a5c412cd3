"""Snippets run with `tf` bound to one library and described for comparison with another: an
expression's value, or the `r` a block of statements leaves (an exception is an outcome too). Where
the code under test did not run, the description says why (reftape_properties.conformance.snippets: a snippet that
does not compile or leaves no `r`, a `tf.` name the namespace lacks, a value that cannot be described),
and the comparison never takes it for an agreement."""

import warnings
from typing import Any

import numpy as np

from reftape_properties.conformance.snippets import (HarnessFault, compiled, described_exception, harness_described, missing_names, not_run)


def evaluate_expression(expression: str, ns: Any) -> dict:
    return _run(expression, ns, "eval", lambda value, scope: value)


def run_statements(source: str, ns: Any) -> dict:
    def result(_: Any, scope: dict) -> Any:
        if "r" not in scope:
            raise HarnessFault("the statements left no result `r`")
        return scope["r"]
    return _run(source, ns, "exec", result)


def both_outcomes(source: str, reference: Any, candidate: Any) -> tuple[dict, dict]:
    """The outcomes of the statements `source` with `tf` bound to the reference, then to the candidate (their
    Python warnings, deprecations of TF's own, kept quiet)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return run_statements(source, reference), run_statements(source, candidate)


def snippet_discrepancies(source: str, reference: Any, candidate: Any) -> list:
    """Where the candidate's outcome of the statements `source` differs from the reference's (empty: they agree;
    a side that did not run the code never agrees)."""
    from reftape_properties.judge.compare import compare_values

    return compare_values(*both_outcomes(source, reference, candidate))


def reference_faults(snippets: dict[str, str], reference: Any) -> dict[str, list[str]]:
    """The snippets of `snippets` (name -> statements) that `reference` does not run to their result, with why
    (a snippet that does not compile, a name the reference lacks, ...): a suite proves its reference side ran."""
    from reftape_properties.judge.compare import harness_faults

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        faults = {name: harness_faults(run_statements(code, reference), None) for name, code in snippets.items()}
    return {name: found for name, found in faults.items() if found}


def _run(source: str, ns: Any, mode: str, result: Any) -> dict:
    """Runs `source` (compiled in `mode`) with `tf` bound to `ns`; describes `result(value, scope)`."""
    try:
        code = compiled(source, "<snippet>", mode)
        missing = missing_names([source], ns)
        if missing:
            return {"kind": "missing", "names": missing}
        scope = {"tf": ns, "np": np}
        try:
            value = eval(code, scope)  # noqa: S307 - the tests' own snippets
        except Exception as error:  # noqa: BLE001 - an exception is an outcome to compare
            return described_exception(error, ns)
        return harness_described(result(value, scope), ns)
    except HarnessFault as fault:
        return not_run(str(fault))
