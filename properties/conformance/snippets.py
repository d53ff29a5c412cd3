"""Runs a TF snippet against a namespace (real TensorFlow or reftape) and describes what it showed.

Snippets are written once, as TF code using the global `tf`; the runner binds `tf` to the namespace
under test. What a snippet shows (the catalog's `show(label, value)`, or printed text, exceptions and
plotted data for the seed notes) is described in the harness's one value model
(`reftape_oracle.outcome.describe`) and compared across namespaces by its one comparator
(`reftape_properties.compare.compare_values`).

Both sides must run the code under test for a comparison to mean anything (compare.py's harness
faults). The runners here say so in the description when they did not: a snippet that does not
compile, or whose run broke in the harness's own code around it (describing a value, recording a
plot), is described as {"kind": "harness", "message": ...} on that side, and is never an agreement. A
namespace that lacks a name the snippet (or the probe helper it calls) spells `tf.a.b` is described as
{"kind": "missing", "names": [...]} before anything runs, and so is a snippet that ends in an
AttributeError saying a module lacks a name (one built at run time): on the candidate this is a snippet
"not run" (a partial tape's author sees what it lacks), on the reference a harness fault (the snippet
is wrong). The reference raising NameError or SyntaxError is a harness fault too (compare.py).
"""

from __future__ import annotations

import ast
import contextlib
import functools
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


class HarnessFault(BaseException):
    """The harness's own code around a snippet failed. A BaseException so that the snippet's
    `except Exception` cannot take it for an exception of the code under test."""


def not_run(message: str) -> dict:
    """The description of a side on which the harness did not run the code under test."""
    return {"kind": "harness", "message": message}


def compiled(source: str, filename: str, mode: str = "exec", flags: int = 0) -> Any:
    """`source` compiled (as `compile` does), or HarnessFault saying why it does not compile."""
    try:
        return compile(source, filename, mode, flags)
    except SyntaxError as error:
        raise HarnessFault(f"{filename} does not compile: {type(error).__name__}: {error}") from error


def harness_described(value: Any, ns: Any) -> dict:
    """`describe(value, ns)`; HarnessFault when describing fails (the harness's failure, not the value's)."""
    try:
        return describe(value, ns)
    except Exception as error:  # noqa: BLE001 - any failure here is the harness's
        raise HarnessFault(f"describing a value failed: {type(error).__name__}: {error}") from error


def described_exception(error: BaseException, ns: Any) -> dict:
    """An exception the code raised, described (HarnessFault where that fails); one that says a module lacks a name (what the static
    `missing_names` cannot see, such as a name built at run time) as {"kind": "missing", ...}."""
    module = getattr(error, "obj", None) if isinstance(error, AttributeError) else None
    if isinstance(module, types.ModuleType):
        return {"kind": "missing", "names": [f"{module.__name__}.{error.name}"]}
    return harness_described(error, ns)


def missing_names(sources: list[str], ns: Any) -> list[str]:
    """The dotted names `tf.a.b...` spelled in `sources` that `ns` lacks (each as "tf.a.b", up to the
    first missing part), sorted."""
    missing = set()
    for source in sources:
        for chain in tf_chains(ast.parse(source)):
            found = ns
            for i, part in enumerate(chain):
                if not hasattr(found, part):
                    missing.add(".".join(["tf"] + chain[:i + 1]))
                    break
                found = getattr(found, part)
    return sorted(missing)


def tf_chains(tree: ast.AST) -> list[list[str]]:
    """The attribute paths after `tf.` in the longest dotted names rooted at the name `tf`."""
    inner = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Attribute)}
    chains = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and id(node) not in inner:
            parts = []
            while isinstance(node, ast.Attribute):
                parts.append(node.attr)
                node = node.value
            if isinstance(node, ast.Name) and node.id == "tf":
                chains.append(parts[::-1])
    return chains


def catch(fn: Any) -> Any:
    """fn()'s value, or the exception it raised (described as an exception)."""
    try:
        return fn()
    except Exception as exc:  # noqa: BLE001 - recording the exception is the point
        return exc


# ---------------------------------------------------------------------------------------------
# The catalog's snippets (tf_semantics_probe.py), parsed rather than imported: the probe imports
# TensorFlow at module level, and each entry must run against either namespace.


# Catalog entries outside reftape's scope, with the reason.
OUT_OF_SCOPE: dict[int, str] = {
    11: "shows nothing but TF's log warnings (how log_first_n rate-limits them): reftape reproduces values, "
        "Nones, dtypes, shapes and exceptions, not TF's log records, so there is nothing to compare",
}


@dataclass(frozen=True)
class CatalogEntry:
    number: int
    title: str
    source: str


def catalog_entries() -> list[CatalogEntry]:
    """The probe's entries in order; each one's snippet is its function's body: the lines from its
    first statement to the end of its last, dedented."""
    source = (CORPUS / "tf_semantics_probe.py").read_text()
    lines = source.splitlines()
    entries = []
    for node in ast.parse(source).body:
        decorators = [d for d in getattr(node, "decorator_list", [])
                      if isinstance(d, ast.Call) and getattr(d.func, "id", None) == "entry"]
        if decorators:
            body = textwrap.dedent("\n".join(lines[node.body[0].lineno - 1:node.body[-1].end_lineno]))
            entries.append(CatalogEntry(len(entries) + 1, ast.literal_eval(decorators[0].args[1]), body))
    return entries


def _probe_helper(name: str) -> str:
    return _helper_in((CORPUS / "tf_semantics_probe.py").read_text(), name)


@functools.lru_cache(maxsize=8)
def _helper_in(source: str, name: str) -> str:
    """The source of the function `name` in `source`: parsed once per text (every entry asks, on each side,
    and parsing the whole probe costs a tenth of a second)."""
    node = next(n for n in ast.parse(source).body if isinstance(n, ast.FunctionDef) and n.name == name)
    return ast.get_source_segment(source, node)


def run_catalog_entry(entry: CatalogEntry, ns: Any) -> dict:
    """Runs one catalog snippet with `tf` bound to `ns`; describes what it showed, in order, as a list
    of (label, value) pairs (a snippet that raises shows ("UNCAUGHT", exception) last); or, when the
    code under test did not run, why (module docstring)."""
    helper = _probe_helper("_grad")
    shown: list = []
    scope: dict[str, Any] = {"tf": ns, "np": np, "catch": catch,
                             "show": lambda label, value: shown.append(harness_described((label, value), ns))}
    try:
        code = compiled(entry.source, f"<catalog entry {entry.number}>")
        uses_helper = any(isinstance(n, ast.Name) and n.id == "_grad" for n in ast.walk(ast.parse(entry.source)))
        missing = missing_names([entry.source] + ([helper] if uses_helper else []), ns)
        if missing:
            return {"kind": "missing", "names": missing}
        exec(compiled(helper, "<probe _grad>"), scope)
        try:
            exec(code, scope)
        except Exception as exc:  # noqa: BLE001
            shown.append({"kind": "tuple", "items": [describe("UNCAUGHT", ns), described_exception(exc, ns)]})
    except HarnessFault as fault:
        return not_run(str(fault))
    return {"kind": "list", "items": shown} if shown else not_run("the entry shows nothing: nothing to compare")


# ---------------------------------------------------------------------------------------------
# The seed notes: ```python fences, and notebook cells indexed by line range (a cell's output is
# printed right after its code, and some outputs, like `tf.Tensor(6.0, ...)`, parse as Python).

NOTEBOOK_CELLS = {
    "001_f1d0e1b2cd039907.txt": [(5, 5), (8, 20), (30, 39), (44, 51), (54, 54), (63, 74)],
    "004_41862438ecad9d2e.txt": [(15, 40), (53, 62), (74, 92)],
}


# Seed snippets that show a form rather than code: no library can run them (they do not compile, or use
# names the note never defines). tests/suite/test_seeds.py checks that each still fails so on TensorFlow.
ILLUSTRATIONS: dict[str, dict[int, str]] = {
    "003_ed218fa13605fb4b.txt": {
        0: "a lone `with tf.GradientTape() as tape:` header, showing the form of the block",
        1: "the form of a gradient call, on t1 and t2, which only the next snippet defines",
        4: "the form of `optimizer.apply_gradients`; the note defines no optimizer",
    },
}
# What a note assumes its reader has run before its snippets (run first, not compared).
SETUP: dict[str, str] = {
    "003_ed218fa13605fb4b.txt": "import matplotlib.pyplot as plt  # the note plots with plt, never importing it",
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
    """Both namespaces draw the same numbers: the snippet's random data is fixed by the harness (where
    the namespace has `random.normal`; a snippet that uses it where it does not is not run)."""
    random = getattr(ns, "random", None)
    if not hasattr(random, "normal"):
        yield
        return
    generator = np.random.default_rng(1234)
    original = random.normal

    def normal(shape: Any, mean: float = 0.0, stddev: float = 1.0, dtype: Any = ns.float32, **_: Any) -> Any:
        return ns.constant(generator.normal(mean, stddev, tuple(shape)), dtype=dtype)

    random.normal = normal
    try:
        yield
    finally:
        random.normal = original


def run_seed(name: str, ns: Any) -> dict:
    """Runs a seed's snippets in order in one scope (like a notebook); describes, per snippet, a pair:
    the printed text (with the display of a cell's final expression), and [the exception it raised or
    None, [(plotting call, its data), ...]]; or, when the code under test did not run, why (module
    docstring)."""
    numbered = [(i, s) for i, s in enumerate(seed_snippets(name)) if i not in ILLUSTRATIONS.get(name, {})]
    try:
        setup = compiled(SETUP.get(name, ""), f"<seed {name} setup>")
        cells = [_compiled_cell(snippet, f"<seed {name} snippet {i}>") for i, snippet in numbered]
    except HarnessFault as fault:
        return not_run(str(fault))
    missing = missing_names([snippet for _, snippet in numbered], ns)
    if missing:
        return {"kind": "missing", "names": missing}
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
            exec(setup, scope)
            for cell in cells:
                calls.clear()
                out = io.StringIO()
                with contextlib.redirect_stdout(out):
                    raised = _run_cell(cell, scope)
                records.append((out.getvalue(), {"kind": "list", "items": [
                    describe(None, ns) if raised is None else described_exception(raised, ns),
                    harness_described(calls, ns)]}))
    except HarnessFault as fault:
        return not_run(str(fault))
    finally:
        for key, module in saved.items():
            if module is None:
                sys.modules.pop(key, None)
            else:
                sys.modules[key] = module
    return {"kind": "list", "items": [{"kind": "tuple", "items": [describe(text, ns), shown]} for text, shown in records]}


def _compiled_cell(snippet: str, filename: str) -> tuple[Any, Any]:
    """A cell's statements, and its final expression (None when it ends otherwise), compiled."""
    tree = compiled(snippet, filename, flags=ast.PyCF_ONLY_AST)
    tail = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
    return (compile(tree, filename, "exec"),
            None if tail is None else compile(ast.Expression(tail.value), filename, "eval"))


def _run_cell(cell: tuple[Any, Any], scope: dict) -> Exception | None:
    statements, tail = cell
    try:
        exec(statements, scope)
        if tail is not None:
            value = eval(tail, scope)
            if value is not None:
                print(repr(value))
    except Exception as exc:  # noqa: BLE001
        return exc
    return None
