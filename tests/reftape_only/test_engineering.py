"""Engineering guarantees of reftape itself (no TensorFlow involved)."""

import ast
import gc
import os
import subprocess
import sys
import weakref
from pathlib import Path

import numpy as np
import pytest

import reftape as rt


def test_reftape_never_imports_tensorflow():
    code = ("import sys, reftape as tf\n"
            "x = tf.constant([1.0, 2.0])\n"
            "with tf.GradientTape() as t:\n"
            "    t.watch(x)\n"
            "    y = tf.reduce_sum(tf.nn.softmax(x) * tf.math.log1p(x))\n"
            "t.gradient(y, x)\n"
            "assert not any(m == 'tensorflow' or m.startswith('tensorflow.') for m in sys.modules), 'TF imported'\n")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_hundred_thousand_op_chain_has_a_gradient():
    x = rt.constant(1.0, rt.float64)
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = x
        for _ in range(100_000):
            y = y * 1.0
    assert tape.gradient(y, x).numpy() == 1.0  # d/dx of x * 1**100000


def test_non_persistent_tape_releases_its_recording():
    x = rt.constant([1.0, 2.0])
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    recording = weakref.ref(tape._tape)
    tape.gradient(y, x)
    gc.collect()
    assert recording() is None
    with pytest.raises(RuntimeError):
        tape.gradient(y, x)


def test_backward_keeps_gradients_off_the_tensors():
    x = rt.constant([1.0, 2.0])
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = rt.exp(x)
    tape.gradient(y, x)
    # value, dtype, tape identity and whether the value is known to hold no subnormals: no gradient state
    assert not hasattr(y, "grad") and set(type(y).__slots__) == {"_value", "_dtype", "_id", "_flushed"}


# Layers, lowest first: each folder may import only the ones before it (imports anywhere in a module,
# function-level ones included). A folder inside another's is a layer above it.
LAYERS = (("reftape", "reftape"), ("oracle", "reftape_oracle"), ("properties", "reftape_properties"),
          ("reports", "reftape_reports"), ("reports/commands", "reftape_reports.commands"))


def _modules(root: Path) -> dict[str, Path]:
    """Every module of every layer under `root` by dotted name (a package by its own name)."""
    found = {}
    for folder, package in LAYERS[:4]:
        for path in (root / folder).rglob("*.py"):
            parts = path.relative_to(root / folder).with_suffix("").parts
            parts = parts[:-1] if parts[-1] == "__init__" else parts
            found[".".join((package, *parts))] = path
    return found


def _imported(module: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The project's modules `module` imports, at any depth of the file: `from a import b` imports the
    module a.b when there is one, else a (or a's closest enclosing package that exists)."""
    def existing(name: str) -> str | None:  # the name itself when no enclosing module of it exists
        found = name
        while found and found not in modules:
            found = found.rpartition(".")[0]
        return found or (name if _layer(name, 1) >= 0 else None)

    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    imported = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            base = ".".join(package.split(".")[:len(package.split(".")) - node.level + 1]) if node.level else ""
            source = ".".join(filter(None, (base, node.module)))
            imported |= {existing(f"{source}.{a.name}" if f"{source}.{a.name}" in modules else source)
                         for a in node.names}
        elif isinstance(node, ast.Import):
            imported |= {existing(a.name) for a in node.names}
    return imported - {None, module}


def _import_graph(root: Path) -> dict[str, set[str]]:
    """Module -> the project's modules it imports, function-level imports too, for every module of every layer."""
    modules = _modules(root)
    return {module: _imported(module, path, modules) for module, path in modules.items()}


def _find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """A cycle of the directed graph as a list of nodes (first == last), or None."""
    state: dict[str, str] = {}

    def visit(node: str, path: list[str]) -> list[str] | None:
        state[node] = "open"
        for successor in sorted(graph[node]):
            if state.get(successor) == "open":
                return path[path.index(successor):] + [successor]
            if successor not in state and (cycle := visit(successor, path + [successor])):
                return cycle
        state[node] = "done"
        return None

    for start in sorted(graph):
        if start not in state and (cycle := visit(start, [start])):
            return cycle
    return None


def test_cycle_finder_finds_a_planted_cycle():
    assert _find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == ["a", "b", "c", "a"]
    assert _find_cycle({"a": {"b"}, "b": set(), "c": {"a", "b"}}) is None


def test_modules_import_without_cycles():
    graph = _import_graph(Path(__file__).resolve().parents[2])
    assert graph["reftape.tape"] >= {"reftape.functions", "reftape.recording"}  # module-level imports are seen
    assert graph["reftape_oracle.validation"] >= {"reftape_oracle.statements"}  # and across the layers' packages
    assert _find_cycle(graph) is None, f"import cycle: {' -> '.join(_find_cycle(graph))}"


def test_kernels_import_nothing_above_the_op_table():
    """reftape/kernels/ holds the op table's NumPy kernels: nothing they import, directly or through other
    modules, reaches the op table, the public functions, the tape or the backward pass."""
    graph = _import_graph(Path(__file__).resolve().parents[2])
    assert graph["reftape.ops_table"] >= {"reftape.kernels.elementwise", "reftape.kernels.subnormal"}
    assert graph["reftape.kernels.reductions"] >= {"reftape.dtypes", "reftape.kernels.half_sums"}
    reached, todo = set(), [m for m in graph if m.startswith("reftape.kernels.")]
    while todo:
        for imported in graph[todo.pop()] - reached:
            reached.add(imported)
            todo.append(imported)
    assert not reached & {"reftape.ops_table", "reftape.functions", "reftape.tape", "reftape.backward", "reftape"}


def test_import_graph_sees_a_planted_function_level_cycle(tmp_path):
    for folder, _ in LAYERS:
        (tmp_path / folder).mkdir()
    (tmp_path / "oracle" / "program.py").write_text("from .validation import check\n")
    (tmp_path / "oracle" / "validation.py").write_text("def check():\n    from reftape_oracle.program import P\n")
    assert _find_cycle(_import_graph(tmp_path)) == ["reftape_oracle.program", "reftape_oracle.validation",
                                                    "reftape_oracle.program"]


def test_reftape_imports_in_a_fresh_interpreter():
    subprocess.run([sys.executable, "-c", "import reftape"], check=True)


def _layer(name: str, column: int) -> int:
    """The index in LAYERS of the deepest layer holding `name` (a dotted module name, column 1, or a
    path, column 0); -1 for a name outside the project."""
    separator = "." if column else "/"
    held = [i for i, layer in enumerate(LAYERS) if name == layer[column] or name.startswith(layer[column] + separator)]
    return max(held, default=-1)


def _upward_imports(root: Path) -> list[str]:
    """`folder/module.py imports higher_module` for every import of a higher layer under `root`."""
    found, modules = [], _modules(root)
    for module, path in sorted(modules.items()):
        where = path.relative_to(root).as_posix()
        found += [f"{where} imports {name}" for name in sorted(_imported(module, path, modules))
                  if _layer(name, 1) > _layer(where, 0)]
    return found


def test_layers_import_downward_only():
    assert _upward_imports(Path(__file__).resolve().parents[2]) == []


def test_upward_import_finder_sees_a_planted_function_level_import(tmp_path):
    for folder, _ in LAYERS:
        (tmp_path / folder).mkdir()
    (tmp_path / "properties" / "fuzz.py").write_text("def run():\n    from reftape_reports import render\n")
    (tmp_path / "oracle" / "program.py").write_text("import reftape_properties.findings\n")
    assert _upward_imports(tmp_path) == ["oracle/program.py imports reftape_properties.findings",
                                         "properties/fuzz.py imports reftape_reports"]



def test_upward_import_finder_sees_the_reports_layer_import_a_command(tmp_path):
    for folder, _ in LAYERS:
        (tmp_path / folder).mkdir()
    (tmp_path / "reports" / "render.py").write_text("from .commands import fuzz\n")
    (tmp_path / "reports" / "commands" / "fuzz.py").write_text("from reftape_reports.render import render\n")
    assert _upward_imports(tmp_path) == ["reports/render.py imports reftape_reports.commands.fuzz"]

_CHAIN_PAGE_FAULTS = """
import resource, numpy as np, reftape as tf
from reftape_reports.commands.reftape_bench import matmul_chain
rng = np.random.default_rng(0)
start, weight = (rng.standard_normal((512, 512)).astype(np.float32) for _ in range(2))
matmul_chain(tf, start, weight, 2)
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
matmul_chain(tf, start, weight, 2)
print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's mallopt and minor fault counts")
def test_large_arrays_reuse_freed_memory_instead_of_page_faulting():
    """reftape/allocator.py: a second chain of 512x512 ops reuses the memory the first freed. With
    glibc's own limits (REFTAPE_SYSTEM_MALLOC=1) every large array faults its pages in again."""
    def faults(**environment: str) -> int:
        done = subprocess.run([sys.executable, "-c", _CHAIN_PAGE_FAULTS], capture_output=True, text=True,
                              env={**os.environ, "OPENBLAS_NUM_THREADS": "1", **environment}, timeout=300)
        assert done.returncode == 0, done.stderr[-2000:]
        return int(done.stdout.split()[-1])

    kept, system = faults(), faults(REFTAPE_SYSTEM_MALLOC="1")
    assert system > 2000, system  # the fault this guards against: ~256 per fresh 1 MiB array
    assert kept < system / 4, (kept, system)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.complex128])
def test_small_array_subnormal_check_agrees_with_numpy(dtype):
    """`flush_subnormals` checks small arrays on their bytes read as one integer (primitives.py): it must
    find exactly the subnormals NumPy finds, in every lane, contiguous or not."""
    from reftape.primitives import _SMALL_BYTES, _small_holds_subnormals

    part = np.finfo(dtype).dtype
    info = np.finfo(part)
    values = np.array([0.0, -0.0, info.tiny, -info.tiny, info.smallest_subnormal, -info.smallest_subnormal,
                       np.nextafter(info.tiny, 0, dtype=part), -info.tiny / 3, np.nan, -np.nan, np.inf, -np.inf,
                       1.0, -1.5, info.max, -info.max], part)
    rng = np.random.default_rng(0)
    lanes = 2 if np.dtype(dtype).kind == "c" else 1
    for _ in range(3000):
        count = int(rng.integers(0, _SMALL_BYTES // np.dtype(dtype).itemsize + 1))
        array = rng.choice(values, count * lanes).astype(part).view(dtype)
        if count > 2 and rng.random() < 0.3:
            array = array[::2]  # not contiguous
        parts = np.ascontiguousarray(array).view(part)
        assert _small_holds_subnormals(array) == bool(np.any((np.abs(parts) < info.tiny) & (parts != 0))), array
