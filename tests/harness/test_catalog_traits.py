"""What the generator and the judge know about each op lives on its catalog entry (`OpSpec.traits`,
oracle/catalog.py), not in sets of op names beside the code that reads them: such a set silently misses
an op added later, and two sets of one trait drift apart. The op table (reftape/ops_table.py) is the
other place that may name ops."""

import ast
from pathlib import Path

import pytest

from reftape_oracle.catalog import AMPLIFYING, CATALOG, SHAPE_RULES, TRAITS, OpSpec, has_trait

ROOT = Path(__file__).resolve().parents[2]
FOLDERS = ("properties", "reports", "oracle")
EXEMPT = ("oracle/catalog.py",)
# Catalog paths and the last parts of them: generator code matches an op by either ("exp", "math.exp").
OP_NAMES = frozenset(CATALOG) | {path.split(".")[-1] for path in CATALOG}

# Name sets that are no knowledge about ops, by (module, where the literal sits), with the reason.
ALLOWED = {
    ("properties/generate/ops.py", "_UNARY_SHAPES"):
        "dispatch table: the generator's function drawing each shape-changing op's attributes and output shape",
    ("properties/generate/ops.py", "_unary_plan"): "dispatch: unstack's and split's plans, one branch each",
    ("properties/generate/ops.py", "_linalg_plan"): "dispatch: the output shape of each matrix op, one branch each",
    ("properties/generate/tapes.py", "_op_on_empty"):
        "dispatch: the two ops whose drawn attributes (perm, axes) _UNARY_SHAPES redraws for an empty tensor",
    ("properties/generate/tapes.py", "VARIABLE_READERS"):
        "a generator choice: one op TF runs with the tapes paused, one it records (drawn in this order)",
    ("reports/commands/reftape_bench.py", "_UNARY"): "a benchmark's fixed workload: changing it changes the measurements",
    ("reports/commands/reftape_bench.py", "_BINARY"): "a benchmark's fixed workload: changing it changes the measurements",
}


def name_sets(source: str, names: frozenset = OP_NAMES) -> list[tuple[str, int, tuple]]:
    """The set, frozenset, tuple and list literals and dict literals' keys in `source` (at module level or
    in a function) holding two or more strings, all of them op `names`: (where, line, strings), `where`
    naming the assigned module-level name or the enclosing function. Literals of shape rule names only
    (`("matmul", "matvec")`: rules some ops share a name with) are not op names."""
    found = []

    def visit(node: ast.AST, where: str) -> None:
        items = node.keys if isinstance(node, ast.Dict) else node.elts if isinstance(
            node, (ast.Set, ast.Tuple, ast.List)) else None
        if items is not None:
            strings = tuple(i.value for i in items if isinstance(i, ast.Constant) and isinstance(i.value, str))
            if (len(strings) >= 2 and len(strings) == len(items) and set(strings) <= names
                    and not set(strings) <= set(SHAPE_RULES)):
                found.append((where, node.lineno, strings))
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                visit(child, child.name if where == "<module>" else f"{where}.{child.name}")
            elif where == "<module>" and isinstance(child, (ast.Assign, ast.AnnAssign)):
                targets = child.targets if isinstance(child, ast.Assign) else [child.target]
                visit(child, ", ".join(ast.unparse(t) for t in targets))
            else:
                visit(child, where)

    visit(ast.parse(source), "<module>")
    return found


def name_sets_under(root: Path) -> list[tuple[str, str, int, tuple]]:
    """`name_sets` of every module under `root`'s properties/, reports/ and oracle/ but the catalog:
    (module, where, line, strings)."""
    found = []
    for folder in FOLDERS:
        for path in sorted((root / folder).rglob("*.py")):
            module = path.relative_to(root).as_posix()
            if module not in EXEMPT:
                found += [(module, *entry) for entry in name_sets(path.read_text())]
    return found


def test_no_op_name_set_outside_the_catalog():
    found = name_sets_under(ROOT)
    unexplained = [entry for entry in found if entry[:2] not in ALLOWED]
    assert unexplained == [], ("sets of op names outside the catalog: give the ops a trait on their catalog "
                               f"entries (oracle/catalog.py) instead: {unexplained}")
    assert set(ALLOWED) <= {entry[:2] for entry in found}, "an allowed name set no longer exists: drop it from ALLOWED"


def test_name_set_check_fires_on_a_planted_module():
    planted = '''
SMOOTH = frozenset({"exp", "math.log1p"})
RULES = ("matmul", "matvec")           # shape rules
DTYPES = ("float32", "float64")
ONE = {"exp"}
MIXED = ("exp", "not an op")

def draw(spec):
    if spec.path.split(".")[-1] in ("tile", "pad"):
        return {"sin": 1, "cos": 2}
    return [name for name in ["reduce_sum"]]
'''
    assert name_sets(planted) == [("SMOOTH", 2, ("exp", "math.log1p")), ("draw", 9, ("tile", "pad")),
                                  ("draw", 10, ("sin", "cos"))]


def test_name_set_check_reads_every_folder_but_the_catalog(tmp_path):
    for folder in ("properties/generate", "reports", "oracle"):
        (tmp_path / folder).mkdir(parents=True)
    (tmp_path / "properties/generate/ops.py").write_text('BOUNDED = {"sin", "cos"}\n')
    (tmp_path / "reports/bench.py").write_text('def run():\n    for op in ["add", "multiply"]:\n        pass\n')
    (tmp_path / "oracle/catalog.py").write_text('FAMILY = ("reshape", "transpose")\n')
    assert name_sets_under(tmp_path) == [("properties/generate/ops.py", "BOUNDED", 1, ("sin", "cos")),
                                         ("reports/bench.py", "run", 2, ("add", "multiply"))]


def test_an_unknown_trait_is_an_error():
    with pytest.raises(ValueError, match="unknown traits"):
        OpSpec("planted", traits={"amplifyng"})
    with pytest.raises(ValueError, match="unknown traits"):
        OpSpec("planted", traits=AMPLIFYING)  # a string, not a collection of traits
    with pytest.raises(ValueError, match="unknown trait"):
        CATALOG["exp"].has("amplifyng")
    with pytest.raises(ValueError, match="unknown trait"):
        has_trait("exp", "amplifyng")
    assert CATALOG["exp"].has(AMPLIFYING) and has_trait("math.exp", AMPLIFYING)
    assert not has_trait("not an op", AMPLIFYING)


def test_every_trait_is_carried_by_an_op():
    assert {trait for spec in CATALOG.values() for trait in spec.traits} == set(TRAITS)
