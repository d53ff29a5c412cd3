"""Runs a TF snippet against a namespace (real TensorFlow or reftape) and describes what it showed.

Snippets are written once, as TF code using the global `tf`; the runner binds `tf` to the namespace
under test. What a snippet shows (the catalog's `show(label, value)`, or printed text, exceptions and
plotted data for the seed notes) is described in the harness's one value model
(`reftape_oracle.outcome.describe`) and compared across namespaces by its one comparator
(`reftape_properties.compare.compare_values`).
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

from reftape_oracle.outcome import describe

CORPUS = Path(__file__).parent / "corpus"


def catch(fn: Any) -> Any:
    """fn()'s value, or the exception it raised (described as an exception)."""
    try:
        return fn()
    except Exception as exc:  # noqa: BLE001 - recording the exception is the point
        return exc


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


def run_catalog_entry(entry: CatalogEntry, ns: Any) -> dict:
    """Runs one catalog snippet with `tf` bound to `ns`; describes what it showed, in order, as a list
    of (label, value) pairs (a snippet that raises shows ("UNCAUGHT", exception) last)."""
    shown: list = []
    scope: dict[str, Any] = {"tf": ns, "np": np, "catch": catch,
                             "show": lambda label, value: shown.append(describe((label, value), ns))}
    exec(compile(_probe_helper("_grad"), "<probe _grad>", "exec"), scope)
    try:
        exec(compile(entry.source, f"<catalog entry {entry.number}>", "exec"), scope)
    except Exception as exc:  # noqa: BLE001
        shown.append(describe(("UNCAUGHT", exc), ns))
    return {"kind": "list", "items": shown}


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


def run_seed(name: str, ns: Any) -> list[tuple[str, dict]]:
    """Runs a seed's snippets in order in one scope (like a notebook); per snippet, the printed text
    (with the display of a cell's final expression) and a description of [the exception it raised
    or None, [(plotting call, its data), ...]]."""
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
                    raised = _run_cell(snippet, scope)
                records.append((out.getvalue(), describe([raised, calls], ns)))
    finally:
        for key, module in saved.items():
            if module is None:
                sys.modules.pop(key, None)
            else:
                sys.modules[key] = module
    return records


def _run_cell(snippet: str, scope: dict) -> Exception | None:
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
        return exc
    return None
