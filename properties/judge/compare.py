"""The one comparator: two descriptions (oracle/outcome.py) of what the reference and the candidate
produced, and the typed discrepancies between them.

Kinds: structure (containers, namedtuple types, dict keys, Variable names and trainable flags, a
tensor against a NumPy array), none-vs-value, dtype (also a Python scalar's type), shape, value,
nan-inf-pattern, exception (one side raised, or a different class; where messages are asked for, a
different message outside TF's op errors, whose texts are TF's own), indexed-slices-vs-dense,
missing (a backend lacks a name), timeout, crash (its process died), harness (a side did not run the code
under test: see below). A discrepancy's `expected`/`actual` are the two descriptions at its location (None
where a side has nothing there).

Nothing is an agreement unless both sides ran the code under test. What says they did not is a harness
fault, reported as one "harness" discrepancy in place of any comparison:
  - a description of kind "harness" on either side: the snippet or program does not compile, a helper
    of the harness (describing a value, recording a plot) failed, or a snippet left no result;
  - on the reference side only, a description of kind "missing" (the reference lacks a name the code
    uses: the code is wrong, not the candidate), or an exception of a class the libraries under test never
    raise for how they are used, only code around them does: NameError and UnboundLocalError (a name the
    snippet's scope lacks), SyntaxError, IndentationError and TabError (code that does not compile).
    In a program UnboundLocalError is the program's own outcome: a call that raised leaves its name
    unbound, and a later statement reading it raises on both sides (`PROGRAM_HARNESS_EXCEPTIONS`).
    A candidate raising one of these where the reference ran is compared as usual: it is the candidate's
    outcome (it did run the code), and differs.

Floating values compare under `properties.tolerance`; -0.0 equals 0.0 unless `signed_zeros` is asked
for. Snippets (`compare_values`) compare exception messages; programs (`compare`) by default do not:
reftape words some errors shorter than TF (without TF's advice paragraphs). For outcomes of a
program: forward values with the forward tolerance, call results (gradients, jacobians) with the
gradient tolerance, both widened by the summation factor of the largest reduction or product in the
program, forward values with an absolute floor scaled by the magnitudes they were computed from, as
documented there.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import re
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from reftape_oracle.catalog import CATALOG
from reftape_oracle.outcome import UNFINISHED, Outcome, decode_array
from reftape_oracle.program import ListLiteral, Op, Program, walk
from reftape_properties.judge.tolerance import Tolerance, compare_arrays, is_floating, least_precise

TolerancePolicy = Callable[[np.dtype], Tolerance]
_CONTAINERS = ("list", "tuple", "namedtuple", "dict")
_ARRAYS = ("tensor", "ndarray")
_STOPPED = ("missing",) + UNFINISHED   # a side that did not run the program to its end
NOT_RUN = ("exception",) + _STOPPED    # what an outcome's error holds: the program stopped, or never ran
_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")
HARNESS = "harness"                    # a description's kind: the harness did not run the code (see above)
HARNESS_EXCEPTIONS = ("NameError", "UnboundLocalError", "SyntaxError", "IndentationError", "TabError")
PROGRAM_HARNESS_EXCEPTIONS = tuple(name for name in HARNESS_EXCEPTIONS if name != "UnboundLocalError")


@dataclass
class Discrepancy:
    kind: str
    where: str                      # "values/<name>", "calls/<name>[i]...", "error", or a caller's path
    expected: Any = None            # the reference's description at `where` (the judge)
    actual: Any = None              # the candidate's description at `where`
    relative_error: float | None = None
    ulps: float | None = None
    tolerance: dict | None = None
    dtype: str | None = None        # of the tensors compared, for value discrepancies
    verdict: str | None = None      # filled in by the referee for value mismatches in gradients
    estimate: Any = None            # the referee's numerical estimate (flat floats), where it made one
    known: int | None = None        # the KNOWN_DIVERGENCES.md entry that explains it, if any

    def summary(self, width: int = 300) -> str:
        """One readable line: kind, location, both sides (cut to `width` characters each)."""
        if self.kind == HARNESS:
            return f"harness error at {self.where or 'the top'}: {self.expected}"
        return f"{self.kind} at {self.where}{self.measured()}: expected {readable(self.expected, width)} " \
               f"vs actual {readable(self.actual, width)}"

    def measured(self) -> str:
        return f" (rel. err {self.relative_error:.3g}, {self.ulps:.3g} ulps)" if self.relative_error else ""


def readable(description: Any, width: int = 300) -> str:
    """A side's description as a person reads it: tensors in decimal with their dtype and shape, None,
    exception classes; cut to `width` characters."""
    text = _readable(description)
    return text if len(text) <= width else text[:width - 3] + "..."


def _readable(description: Any) -> str:
    if isinstance(description, list):
        return "[" + ", ".join(_readable(item) for item in description) + "]"
    if not isinstance(description, dict):
        return json.dumps(description)
    if {"dtype", "shape", "data"} <= description.keys():
        return _readable_tensor(description)
    kind = description.get("kind")
    if kind == "none":
        return "None"
    if kind == "exception":
        return f"{description.get('class')}({description.get('message', '')!r})"
    if "items" in description:
        return f"{kind}[" + ", ".join(_readable(item) for item in description["items"]) + "]"
    return json.dumps(description)


def _readable_tensor(description: dict) -> str:
    try:
        array = decode_array(description)
    except (KeyError, TypeError, ValueError):
        return json.dumps(description)
    if array.dtype.kind not in "biufcSUO":  # bfloat16 prints through float32
        array = array.astype(np.float32)
    text = np.array2string(array, precision=8, threshold=12, edgeitems=3, separator=", ", max_line_width=10**6)
    return f"{text.replace(chr(10), '')} {description['dtype']}{tuple(description['shape'])}"


def gradient_tolerance(dtype: np.dtype) -> Tolerance:
    return Tolerance.for_dtype(dtype, gradient=True)


def summed_terms(program: Program) -> int:
    """Elements summed by the program's largest reduction/product (1 when it has none)."""
    if not any(CATALOG[op.path].sums_terms for op in program.ops()):
        return 1
    return max([int(np.size(leaf.value)) for leaf in program.leaves().values()] + [1])


def compare(expected: Outcome, actual: Outcome, program: Program | None = None, *,
            signed_zeros: bool = False, messages: bool = False) -> list[Discrepancy]:
    """Discrepancies of `actual` (the candidate's outcome) against `expected` (TensorFlow's)."""
    terms = summed_terms(program) if program is not None else 1
    floor = least_precise_leaf(program) if program is not None else None
    faults = harness_faults(expected.error, actual.error, where="error", exceptions=PROGRAM_HARNESS_EXCEPTIONS)
    if faults:
        return [Discrepancy(HARNESS, "error", "; ".join(faults))]
    found: list[Discrepancy] = []
    if expected.error != actual.error:
        found += _compare(expected.error, actual.error, "error", _Policy(None, signed_zeros, messages))
    if any(o.error and o.error["kind"] in _STOPPED for o in (expected, actual)):
        return found  # what one side never ran is not a further discrepancy
    magnitudes = functools.cache(lambda: input_magnitudes(program, expected) if program is not None else {})
    for section, gradient in (("values", False), ("calls", True)):
        e_items, a_items = getattr(expected, section), getattr(actual, section)

        def tolerance_for(dtype: np.dtype, gradient: bool = gradient) -> Tolerance:
            return Tolerance.for_dtype(dtype, gradient=gradient, summed_terms=terms, computed_through=floor)
        for name in list(e_items) + [n for n in a_items if n not in e_items]:
            where = f"{section}/{name}"
            if name not in a_items or name not in e_items:
                found.append(Discrepancy("structure", where, e_items.get(name), a_items.get(name)))
                continue

            def magnitude(name: str = name) -> float:
                return magnitudes().get(name, max(magnitudes().values(), default=1.0))
            policy = _Policy(tolerance_for, signed_zeros, messages, None if gradient else magnitude)
            found += _compare(e_items[name], a_items[name], where, policy)
    return found


def least_precise_leaf(program: Program) -> np.dtype | None:
    """The least precise floating dtype among the program's leaves: what its results are no more precise than."""
    return least_precise([np.asarray(leaf.value).dtype for leaf in program.leaves().values()])


def input_magnitudes(program: Program, reference: Outcome) -> dict[str, float]:
    """For each leaf and op of `program`, the largest finite magnitude among its value (as the reference
    reported it) and the values it was computed from, through the op inputs the program names (an input
    the program computes otherwise, such as a gradient, counts as the largest value reported)."""
    magnitudes = {name: _largest_magnitude(leaf.value) for name, leaf in program.leaves().items()}
    for name, described in reference.values.items():
        if described.get("kind") in _ARRAYS and _is_floating_name(described["dtype"]):
            magnitudes[name] = max(magnitudes.get(name, 0.0), _largest_magnitude(decode_array(described)))
    unknown = max(magnitudes.values(), default=0.0)  # what an input the program computes otherwise may hold
    for s in walk(program.statements):  # in program order: inputs come first
        if isinstance(s, (Op, ListLiteral)):
            inputs = [magnitudes.get(name.split("[")[0], unknown) for name in s.reads]
            magnitudes[s.name] = max([magnitudes.get(s.name, 0.0)] + inputs)
    return magnitudes


def _largest_magnitude(value: Any) -> float:
    array = np.asarray(value)
    if array.size == 0 or not (array.dtype.kind in "fc" or is_floating(array.dtype)):
        return 0.0
    finite = np.abs(array.astype(np.complex128 if array.dtype.kind == "c" else np.float64))
    finite = finite[np.isfinite(finite)]
    return float(finite.max()) if finite.size else 0.0


def compare_values(expected: Any, actual: Any, where: str = "", *, tolerance_for: TolerancePolicy | None =
                   gradient_tolerance, signed_zeros: bool = False, messages: bool = True) -> list[Discrepancy]:
    """Discrepancies of one described value against another. Floating arrays compare under
    `tolerance_for(dtype)` (exactly when None); with `signed_zeros`, -0.0 and 0.0 also differ; with
    `messages`, exceptions outside TF's op errors must also have the same message. A harness fault
    (module docstring) is the one discrepancy of kind "harness", whose `expected` says what it was."""
    faults = harness_faults(expected, actual, where)
    if faults:
        return [Discrepancy(HARNESS, where, "; ".join(faults))]
    return _compare(expected, actual, where, _Policy(tolerance_for, signed_zeros, messages))


def harness_faults(expected: Any, actual: Any, where: str = "",
                   exceptions: tuple[str, ...] = HARNESS_EXCEPTIONS) -> list[str]:
    """Why the two descriptions do not show both sides running the code under test (the module
    docstring's harness faults; `exceptions`: the classes a reference never raises in the code under
    test), each as a readable line; empty when both ran it."""
    return ([f"the reference {fault}" for fault in _faults(expected, where, True, exceptions)]
            + [f"the candidate {fault}" for fault in _faults(actual, where, False, exceptions)])


def _faults(description: Any, where: str, reference: bool, exceptions: tuple[str, ...]) -> list[str]:
    if not isinstance(description, dict):
        return []
    kind = description.get("kind")
    at = f" at {where}" if where else ""
    if kind == HARNESS:
        return [f"did not run the code{at}: {description['message']}"]
    if reference and kind == "missing":
        return [f"lacks {', '.join(description['names'])}{at}"]
    if reference and kind == "exception" and description["class"] in exceptions:
        return [f"raised {description['class']}{at}: {description['message']}"]
    return [fault for item, at_item in _parts(description, where)
            for fault in _faults(item, at_item, reference, exceptions)]


def _parts(description: dict, where: str) -> list[tuple[Any, str]]:
    """The descriptions a container (or IndexedSlices) holds, with their locations."""
    if description["kind"] in _CONTAINERS:
        return [(item, f"{where}[{i}]") for i, item in enumerate(description["items"])]
    if description["kind"] == "indexed_slices":
        return [(description[part], f"{where}.{part}") for part in ("indices", "values", "dense_shape")]
    return []


@dataclass(frozen=True)
class _Policy:
    tolerance_for: TolerancePolicy | None
    signed_zeros: bool
    messages: bool
    # The magnitude the compared value was computed from (tolerance.py), asked only of a value that
    # differs by more than the floor at magnitude 1 allows: it reads every reported value.
    magnitude: Callable[[], float] | None = None


def _compare(e: Any, a: Any, where: str, policy: _Policy) -> list[Discrepancy]:
    if e is None or a is None:  # an outcome's error: nothing stopped one side
        other = (e or a)["kind"] if (e or a) else None
        return [] if e == a else [Discrepancy(other if other in _STOPPED else "exception", where, e, a)]
    ek, ak = e["kind"], a["kind"]
    if ek in NOT_RUN or ak in NOT_RUN:
        return [] if _same_exception(e, a, policy.messages) else [
            Discrepancy(next((k for k in _STOPPED if k in (ek, ak)), "exception"), where, e, a)]
    if (ek == "none") != (ak == "none"):
        return [Discrepancy("none-vs-value", where, e, a)]
    if {ek, ak} == {"indexed_slices", "tensor"}:
        return [Discrepancy("indexed-slices-vs-dense", where, e, a)]
    if ek != ak or _labels(e) != _labels(a):
        return [Discrepancy("structure", where, e, a)]
    if ek in _CONTAINERS:
        return [d for i, (x, y) in enumerate(zip(e["items"], a["items"]))
                for d in _compare(x, y, f"{where}[{i}]", policy)]
    if ek == "indexed_slices":
        return [d for part in ("indices", "values", "dense_shape")
                for d in _compare(e[part], a[part], f"{where}.{part}", policy)]
    if ek == "scalar":
        return _compare_scalar(e, a, where, policy.signed_zeros)
    if ek in _ARRAYS:
        return _compare_array(e, a, where, policy)
    return [] if e == a else [Discrepancy("value", where, e, a)]   # none, objects by their repr


def _same_exception(e: dict, a: dict, messages: bool) -> bool:
    """Same class; and with `messages`, outside TF's op errors (whose texts come from TF's kernels),
    the same message."""
    if not e["kind"] == a["kind"] == "exception" or e["class"] != a["class"]:
        return False
    return not messages or e["class"].startswith("tf.errors.") or _unplaced(e["message"]) == _unplaced(a["message"])


def _unplaced(message: str) -> str:
    """A message without the memory addresses of the objects it names (`<function f at 0x7f...>`),
    which differ between any two runs."""
    return _ADDRESS.sub(" at 0x…", message)


def _labels(description: dict) -> tuple:
    """What identifies a value besides its contents: container sizes, types (a namedtuple's typename and
    fields), keys, Variable names."""
    kind = description["kind"]
    if kind in _CONTAINERS:
        return len(description["items"]), description.get("type"), description.get("fields"), description.get("keys")
    return (description.get("variable"),)   # a Variable's name and trainable flag; None for other tensors


def _compare_scalar(e: dict, a: dict, where: str, signed_zeros: bool) -> list[Discrepancy]:
    """Python and NumPy scalars: the same type, and the same value (floats exactly, NaN equal to NaN)."""
    if e["type"] != a["type"]:
        return [Discrepancy("dtype", where, e, a)]
    floating = e["type"] in ("float", "complex") or e["type"].startswith("numpy.") and _is_floating_name(e["type"][6:])
    if floating:
        x, y = (np.array([complex(*map(float.fromhex, v)) if isinstance(v, list) else float.fromhex(v)])
                for v in (e["value"], a["value"]))
        same = np.array_equal(x, y, equal_nan=True) and _zero_signs_agree(x, y, signed_zeros)
    else:
        same = e["value"] == a["value"]
    return [] if same else [Discrepancy("value", where, e, a, dtype=e["type"])]


def _compare_array(e: dict, a: dict, where: str, policy: _Policy) -> list[Discrepancy]:
    tolerance_for, signed_zeros = policy.tolerance_for, policy.signed_zeros
    if e["dtype"] != a["dtype"]:
        return [Discrepancy("dtype", where, e, a)]
    if e["shape"] != a["shape"]:
        return [Discrepancy("shape", where, e, a)]
    floating = _is_floating_name(e["dtype"])
    if not floating:
        return [] if e["data"] == a["data"] else [Discrepancy("value", where, e, a, dtype=e["dtype"])]
    expected, actual = decode_array(e), decode_array(a)
    if tolerance_for is None:
        same = np.array_equal(expected, actual, equal_nan=True)
        return [] if same and _zero_signs_agree(expected, actual, signed_zeros) else [
            Discrepancy("value", where, e, a, dtype=e["dtype"])]
    tolerance = tolerance_for(expected.dtype)
    mismatch = compare_arrays(expected, actual, tolerance)
    if mismatch is not None and mismatch.reason == "values differ" and policy.magnitude is not None:
        tolerance = dataclasses.replace(tolerance, magnitude=max(policy.magnitude(), tolerance.magnitude))
        mismatch = compare_arrays(expected, actual, tolerance)
    if mismatch is None:
        return [] if _zero_signs_agree(expected, actual, signed_zeros) else [
            Discrepancy("value", where, e, a, 0.0, 0.0, _tolerance_fields(tolerance), e["dtype"])]
    kind = "nan-inf-pattern" if "pattern" in mismatch.reason else "value"
    return [Discrepancy(kind, where, e, a, mismatch.max_relative_error, mismatch.max_ulps,
                        _tolerance_fields(tolerance), e["dtype"])]


def _is_floating_name(dtype: str) -> bool:
    try:
        return is_floating(decode_array({"dtype": dtype, "shape": [0], "data": []}).dtype)
    except TypeError:  # a dtype NumPy does not know ("string", "resource"): not floating
        return False


def _tolerance_fields(tolerance: Tolerance) -> dict:
    return {"relative": tolerance.relative, "absolute_scale": tolerance.absolute_scale}


def _zero_signs_agree(expected: np.ndarray, actual: np.ndarray, signed_zeros: bool) -> bool:
    if not signed_zeros:
        return True
    e, a = expected.astype(np.complex128).ravel(), actual.astype(np.complex128).ravel()
    for e_part, a_part in ((e.real, a.real), (e.imag, a.imag)):
        zeros = (e_part == 0) & (a_part == 0)
        if not np.array_equal(np.signbit(e_part[zeros]), np.signbit(a_part[zeros])):
            return False
    return True
