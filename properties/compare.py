"""Comparing two outcomes: a list of discrepancies, each with a kind and what it measured.

Kinds: structure, none-vs-value, dtype, shape, value, nan-inf-pattern, exception (one side raised,
or different classes), indexed-slices-vs-dense, missing (a backend lacks a name), timeout.
Floating values compare under `properties.tolerance`: forward values with the forward tolerance,
call results (gradients, jacobians) with the gradient tolerance; both widened by the summation
factor of the largest reduction or product in the program, as documented there.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from reftape_oracle.catalog import CATALOG
from reftape_oracle.outcome import Outcome, decode_array
from reftape_oracle.program import Program
from .tolerance import Tolerance, compare_arrays, is_floating, least_precise


@dataclass
class Discrepancy:
    kind: str
    where: str                      # "values/<name>", "calls/<name>[path]" or "error"
    expected: Any = None            # TensorFlow's side (the judge)
    actual: Any = None              # the candidate's side
    relative_error: float | None = None
    ulps: float | None = None
    tolerance: dict | None = None
    dtype: str | None = None        # of the tensors compared, for value discrepancies
    verdict: str | None = None      # filled in by the referee for value mismatches in gradients
    estimate: Any = None            # the referee's numerical estimate (flat floats), where it made one
    known: int | None = None        # the KNOWN_DIVERGENCES.md entry that explains it, if any


def summed_terms(program: Program) -> int:
    """Elements summed by the program's largest reduction/product (1 when it has none)."""
    if not any(CATALOG[op.path].sums_terms for op in program.ops()):
        return 1
    return max([int(np.size(leaf.value)) for leaf in program.leaves().values()] + [1])


def compare(expected: Outcome, actual: Outcome, program: Program | None = None) -> list[Discrepancy]:
    """Discrepancies of `actual` (the candidate) against `expected` (TensorFlow)."""
    terms = summed_terms(program) if program is not None else 1
    floor = least_precise([np.asarray(leaf.value).dtype for leaf in program.leaves().values()]) if program else None
    found: list[Discrepancy] = []
    if expected.error != actual.error:
        found += _compare_value(expected.error, actual.error, "error", None)
    if any(o.error and o.error["kind"] in ("timeout", "missing") for o in (expected, actual)):
        return found  # what one side never ran is not a further discrepancy
    for section, gradient in (("values", False), ("calls", True)):
        e_items, a_items = getattr(expected, section), getattr(actual, section)
        for name in list(e_items) + [n for n in a_items if n not in e_items]:
            where = f"{section}/{name}"
            if name not in a_items or name not in e_items:
                found.append(Discrepancy("structure", where, e_items.get(name), a_items.get(name)))
                continue
            found += _compare_value(e_items[name], a_items[name], where,
                                    lambda dtype: Tolerance.for_dtype(dtype, gradient=gradient, summed_terms=terms,
                                                                      computed_through=floor))
    return found


def _compare_value(e: Any, a: Any, where: str, tolerance_for: Any) -> list[Discrepancy]:
    if e is None or a is None:
        other = (e or a)["kind"] if (e or a) else None
        return [] if e == a else [Discrepancy(other if other in ("timeout", "missing") else "exception", where, e, a)]
    ek, ak = e["kind"], a["kind"]
    if ek in ("exception", "missing", "timeout") or ak in ("exception", "missing", "timeout"):
        if ek == ak == "exception" and e["class"] == a["class"]:
            return []
        kind = "missing" if "missing" in (ek, ak) else "timeout" if "timeout" in (ek, ak) else "exception"
        return [Discrepancy(kind, where, e, a)]
    if (ek == "none") != (ak == "none"):
        return [Discrepancy("none-vs-value", where, e, a)]
    if {ek, ak} == {"indexed_slices", "tensor"}:
        return [Discrepancy("indexed-slices-vs-dense", where, ek, ak)]
    if ek != ak:
        return [Discrepancy("structure", where, ek, ak)]
    if ek == "none":
        return []
    if ek in ("list", "tuple", "dict"):
        if ek == "dict" and e["keys"] != a["keys"] or len(e["items"]) != len(a["items"]):
            return [Discrepancy("structure", where, e.get("keys", len(e["items"])), a.get("keys", len(a["items"])))]
        found = []
        for i, (x, y) in enumerate(zip(e["items"], a["items"])):
            found += _compare_value(x, y, f"{where}[{i}]", tolerance_for)
        return found
    if ek == "indexed_slices":
        return [d for part in ("indices", "values", "dense_shape")
                for d in _compare_value(e[part], a[part], f"{where}.{part}", tolerance_for)]
    return _compare_tensor(e, a, where, tolerance_for)


def _compare_tensor(e: dict, a: dict, where: str, tolerance_for: Any) -> list[Discrepancy]:
    if e["dtype"] != a["dtype"]:
        return [Discrepancy("dtype", where, e["dtype"], a["dtype"])]
    if e["shape"] != a["shape"]:
        return [Discrepancy("shape", where, e["shape"], a["shape"])]
    expected, actual = decode_array(e), decode_array(a)
    if not is_floating(expected.dtype) or tolerance_for is None:
        same = np.array_equal(expected, actual, equal_nan=is_floating(expected.dtype))
        return [] if same else [Discrepancy("value", where, e["data"], a["data"], dtype=e["dtype"])]
    tolerance = tolerance_for(expected.dtype)
    mismatch = compare_arrays(expected, actual, tolerance)
    if mismatch is None:
        return []
    kind = "nan-inf-pattern" if "pattern" in mismatch.reason else "value"
    return [Discrepancy(kind, where, e["data"], a["data"], mismatch.max_relative_error, mismatch.max_ulps,
                        {"relative": tolerance.relative, "absolute_scale": tolerance.absolute_scale}, e["dtype"])]
