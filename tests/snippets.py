"""Snippets run with `tf` bound to one library and described for comparison with another: an
expression's value, or the `r` a block of statements leaves (an exception is an outcome too)."""

from typing import Any

import numpy as np

from reftape_oracle.outcome import describe, describe_error


def evaluate_expression(expression: str, ns: Any) -> dict:
    try:
        return describe(eval(expression, {"tf": ns, "np": np}), ns)  # noqa: S307 - the tests' own snippets
    except Exception as error:  # noqa: BLE001 - an exception is an outcome to compare
        return describe_error(error, ns)


def run_statements(source: str, ns: Any) -> dict:
    scope = {"tf": ns, "np": np}
    try:
        exec(source, scope)  # noqa: S102 - the tests' own snippets
        return describe(scope["r"], ns)
    except Exception as error:  # noqa: BLE001 - an exception is an outcome to compare
        return describe_error(error, ns)
