"""Runs a TF snippet against a namespace (real TensorFlow or reftape) and records what it showed.

Snippets are written once, as TF code using the global `tf`; the runner binds `tf` to the namespace
under test. What a snippet shows (the catalog's `show(label, value)`, or printed text for the seed
notes) is recorded as observations that compare across namespaces: tensors by dtype, shape and
values under the tolerance model; exceptions by class (and message, outside TF's op errors).
"""

from __future__ import annotations

import ast
import contextlib
import io
import sys
import textwrap
import types
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from reftape_properties.tolerance import Tolerance, compare_arrays, is_floating

CORPUS = Path(__file__).parent / "corpus"


class Raised:
    def __init__(self, exc: BaseException) -> None:
        self.exc = exc


def catch(fn: Any) -> Any:
    try:
        return fn()
    except Exception as exc:  # noqa: BLE001 - recording the exception is the point
        return Raised(exc)


def error_name(exc: BaseException, ns: Any) -> str:
    if isinstance(exc, ns.errors.OpError):
        return "tf.errors." + type(exc).__name__
    return type(exc).__name__


def observe(value: Any, ns: Any) -> Any:
    """A namespace-independent description of a value a snippet showed."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, Raised):
        op_error = isinstance(value.exc, ns.errors.OpError)
        return ("raised", error_name(value.exc, ns), None if op_error else str(value.exc))
    if isinstance(value, ns.IndexedSlices):
        return ("IndexedSlices", observe(value.indices, ns), observe(value.values, ns), observe(value.dense_shape, ns))
    if isinstance(value, ns.Variable):
        return ("Variable", value.name, tuple(value.shape), value.dtype.name, value.trainable, np.asarray(value.numpy()))
    if isinstance(value, ns.Tensor):
        return ("Tensor", value.dtype.name, tuple(value.shape), np.asarray(value.numpy()))
    if isinstance(value, dict):
        return ("dict", [(k, observe(v, ns)) for k, v in value.items()])
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return (type(value).__name__, [observe(v, ns) for v in value])
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, [observe(v, ns) for v in value])
    if isinstance(value, np.ndarray):
        return ("ndarray", value.dtype.name, value)
    return ("repr", repr(value))


def _gradient_tolerance(dtype: np.dtype) -> Tolerance:
    return Tolerance.for_dtype(dtype, gradient=True)


def differences(expected: Any, actual: Any, path: str = "", tolerance_for: Any = _gradient_tolerance,
                signed_zeros: bool = False) -> list[str]:
    """How `actual` (reftape's observation) departs from `expected` (TensorFlow's). Floating arrays
    compare under `tolerance_for(dtype)`; with `signed_zeros`, -0.0 and 0.0 also differ."""
    if isinstance(expected, np.ndarray) or isinstance(actual, np.ndarray):
        if not (isinstance(expected, np.ndarray) and isinstance(actual, np.ndarray)):
            return [f"{path}: {actual!r} != {expected!r}"]
        if expected.dtype != actual.dtype and not (expected.dtype.kind == actual.dtype.kind == "O"):
            return [f"{path}: dtype {actual.dtype} != {expected.dtype}"]
        if not is_floating(expected.dtype):
            return [] if np.array_equal(expected, actual) else [f"{path}: {actual!r} != {expected!r}"]
        mismatch = compare_arrays(expected, actual, tolerance_for(expected.dtype))
        if mismatch is None and signed_zeros and not _same_zero_signs(expected, actual):
            return [f"{path}: signs of zeros differ: {actual!r} vs TF {expected!r}"]
        return [] if mismatch is None else [f"{path}: {mismatch.reason}: {actual!r} vs TF {expected!r}"]
    if isinstance(expected, (tuple, list)) and isinstance(actual, (tuple, list)):
        if len(expected) != len(actual):
            return [f"{path}: {actual!r} != {expected!r}"]
        found: list[str] = []
        for i, (e, a) in enumerate(zip(expected, actual)):
            found += differences(e, a, f"{path}[{i}]", tolerance_for, signed_zeros)
        return found
    if type(expected) is not type(actual) or expected != actual:
        return [f"{path}: {actual!r} != {expected!r}"]
    return []


def _same_zero_signs(expected: np.ndarray, actual: np.ndarray) -> bool:
    e, a = expected.astype(np.complex128).ravel(), actual.astype(np.complex128).ravel()
    zeros = (e.real == 0) & (a.real == 0)
    return bool(np.array_equal(np.signbit(e.real[zeros]), np.signbit(a.real[zeros])))


# ---------------------------------------------------------------------------------------------
# The catalog's snippets (tf_semantics_probe.py), parsed rather than imported: the probe imports
# TensorFlow at module level, and each entry must run against either namespace.


# Catalog entries whose snippets use API outside reftape's scope, with the reason (none today).
OUT_OF_SCOPE: dict[int, str] = {}


@dataclass(frozen=True)
class CatalogEntry:
    number: int
    title: str
    source: str


def catalog_entries() -> list[CatalogEntry]:
    tree = ast.parse((CORPUS / "tf_semantics_probe.py").read_text())
    source = (CORPUS / "tf_semantics_probe.py").read_text()
    entries = []
    for node in tree.body:
        decorators = [d for d in getattr(node, "decorator_list", [])
                      if isinstance(d, ast.Call) and getattr(d.func, "id", None) == "entry"]
        if decorators:
            body = "\n".join(ast.get_source_segment(source, stmt, padded=True) for stmt in node.body)
            entries.append(CatalogEntry(len(entries) + 1, ast.literal_eval(decorators[0].args[1]), textwrap.dedent(body)))
    return entries


def _probe_helper(name: str) -> str:
    source = (CORPUS / "tf_semantics_probe.py").read_text()
    node = next(n for n in ast.parse(source).body if isinstance(n, ast.FunctionDef) and n.name == name)
    return ast.get_source_segment(source, node)


def run_catalog_entry(entry: CatalogEntry, ns: Any) -> list:
    """Runs one catalog snippet with `tf` bound to `ns`; returns [(label, observation), ...]."""
    shown: list = []
    scope: dict[str, Any] = {"tf": ns, "np": np, "catch": catch,
                             "show": lambda label, value: shown.append((label, observe(value, ns)))}
    exec(compile(_probe_helper("_grad"), "<probe _grad>", "exec"), scope)
    try:
        exec(compile(entry.source, f"<catalog entry {entry.number}>", "exec"), scope)
    except Exception as exc:  # noqa: BLE001
        shown.append(("UNCAUGHT", observe(Raised(exc), ns)))
    return shown


# ---------------------------------------------------------------------------------------------
# The seed notes: ```python fences, and notebook cells indexed by line range (a cell's output is
# printed right after its code, and some outputs, like `tf.Tensor(6.0, ...)`, parse as Python).

NOTEBOOK_CELLS = {
    "001_f1d0e1b2cd039907.txt": [(5, 5), (8, 20), (30, 39), (44, 51), (54, 54), (63, 74)],
    "004_41862438ecad9d2e.txt": [(15, 40), (53, 62), (74, 92)],
}


def seed_names() -> list[str]:
    return sorted(p.name for p in (CORPUS / "seeds").iterdir())


def seed_snippets(name: str) -> list[str]:
    lines = (CORPUS / "seeds" / name).read_text().splitlines()
    if name in NOTEBOOK_CELLS:
        return ["\n".join(lines[start - 1:end]) for start, end in NOTEBOOK_CELLS[name]]
    snippets, current = [], None
    for line in lines:
        if line.strip() == "```python":
            current = []
        elif line.strip() == "```" and current is not None:
            snippets.append("\n".join(current))
            current = None
        elif current is not None:
            current.append(line)
    return snippets


class _PlotRecorder(types.ModuleType):
    """Stands in for matplotlib.pyplot: records the data each plotting call receives."""

    def __init__(self, calls: list) -> None:
        super().__init__("matplotlib.pyplot")
        self._calls = calls

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)

        def call(*args: Any, **kwargs: Any) -> Any:
            self._calls.append((name, [np.asarray(a) if hasattr(a, "shape") else a for a in args]))
            if name == "subplots":
                count = args[0] if args else 1
                return self, (self if count == 1 else [self] * count)
            return self
        return call


@contextlib.contextmanager
def fixed_randomness(ns: Any):
    """Both namespaces draw the same numbers: the snippet's random data is fixed by the harness."""
    generator = np.random.default_rng(1234)
    original = ns.random.normal

    def normal(shape: Any, mean: float = 0.0, stddev: float = 1.0, dtype: Any = ns.float32, **_: Any) -> Any:
        return ns.constant(generator.normal(mean, stddev, tuple(shape)), dtype=dtype)

    ns.random.normal = normal
    try:
        yield
    finally:
        ns.random.normal = original


def run_seed(name: str, ns: Any) -> list:
    """Runs a seed's snippets in order in one scope (like a notebook); records printed text,
    the display of a cell's final expression, plotted data and any exception per snippet."""
    calls: list = []
    plot = _PlotRecorder(calls)
    matplotlib = types.ModuleType("matplotlib")
    matplotlib.pyplot = plot
    scope: dict[str, Any] = {"__name__": "__seed__", "tf": ns}
    records = []
    saved = {k: sys.modules.get(k) for k in ("tensorflow", "matplotlib", "matplotlib.pyplot")}
    sys.modules.update({"tensorflow": ns, "matplotlib": matplotlib, "matplotlib.pyplot": plot})
    try:
        with fixed_randomness(ns):
            for snippet in seed_snippets(name):
                calls.clear()
                out = io.StringIO()
                with contextlib.redirect_stdout(out):
                    outcome = _run_cell(snippet, scope, ns)
                records.append((out.getvalue(), outcome, [(n, [observe(a, ns) for a in args]) for n, args in calls]))
    finally:
        for key, module in saved.items():
            if module is None:
                sys.modules.pop(key, None)
            else:
                sys.modules[key] = module
    return records


def _run_cell(snippet: str, scope: dict, ns: Any) -> Any:
    try:
        tree = ast.parse(snippet)
        tail = tree.body[-1] if tree.body and isinstance(tree.body[-1], ast.Expr) else None
        if tail is not None:
            tree.body.pop()
        exec(compile(tree, "<seed>", "exec"), scope)
        if tail is not None:
            value = eval(compile(ast.Expression(tail.value), "<seed>", "eval"), scope)
            if value is not None:
                print(repr(value))
    except Exception as exc:  # noqa: BLE001
        return observe(Raised(exc), ns)
    return None
