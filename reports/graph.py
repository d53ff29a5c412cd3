"""A program's graph laid out for SVG: nodes are leaves, ops and gradient calls; edges are inputs.

Layers from left to right: leaves first, then each node one layer right of its deepest input.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from reftape_oracle.program import Call, Cond, Jvp, Leaf, ListLiteral, Op, Program, WhileLoop, structure_references, walk

NODE_WIDTH, NODE_HEIGHT, COLUMN_GAP, ROW_GAP, MARGIN = 150, 38, 60, 16, 10


@dataclass
class Node:
    name: str
    label: str
    kind: str                 # "leaf" | "op" | "call"
    inputs: list[str]
    divergent: bool = False
    layer: int = 0
    x: int = 0
    y: int = 0


@dataclass
class Graph:
    nodes: list[Node]
    edges: list[tuple[Node, Node]] = field(default_factory=list)
    width: int = 0
    height: int = 0
    node_width: int = NODE_WIDTH
    node_height: int = NODE_HEIGHT


def _names(references: list[str]) -> list[str]:
    """The names references read ("y3[0]" reads y3)."""
    return [match.group(0) for match in (re.match(r"[A-Za-z_]\w*", r) for r in references) if match]


def _node(statement: Any) -> Node | None:
    if isinstance(statement, Leaf):
        return Node(statement.name, f"{statement.name}: {statement.kind} {statement.dtype}", "leaf", [])
    if isinstance(statement, (Op, ListLiteral)):
        shown = statement.path if isinstance(statement, Op) else f"[{', '.join(statement.items)}]"
        return Node(statement.name, f"{statement.name} = {shown}", "op", _names(statement.reads))
    if isinstance(statement, Call):
        reads = _names(structure_references(statement.target) + structure_references(statement.sources)
                       + structure_references(statement.output_gradients))
        return Node(statement.name, f"{statement.name} = {statement.tape}.{statement.method}", "call", reads)
    if isinstance(statement, WhileLoop):
        return Node(statement.name, f"{statement.name} = while_loop x{statement.trips}", "op", _names(statement.reads))
    if isinstance(statement, Cond):
        return Node(statement.name, f"{statement.name} = cond {statement.predicate}", "op", _names(statement.reads))
    if isinstance(statement, Jvp):
        return Node(statement.name, f"{statement.name} = {statement.accumulator}.jvp",
                    "call", _names(structure_references(statement.target)))
    return None


def _outer(statements: list) -> list:
    """The program's statements but a loop body's and a cond's branches, whose ops are drawn as its node."""
    inner = {id(s) for block in walk(statements) if isinstance(block, (WhileLoop, Cond))
             for s in walk([block]) if s is not block}
    return [s for s in walk(statements) if id(s) not in inner]


def layout(program: Program, divergent: str | None = None) -> Graph:
    """The program's nodes placed in layers, edges between them, and the divergent node marked."""
    nodes = [n for n in (_node(s) for s in _outer(program.statements)) if n is not None]
    by_name = {n.name: n for n in nodes}
    graph = Graph(nodes)
    for node in nodes:
        sources = [by_name[name] for name in dict.fromkeys(node.inputs) if name in by_name]
        node.layer = 1 + max((s.layer for s in sources), default=-1)
        node.divergent = node.name == divergent
        graph.edges += [(source, node) for source in sources]
    rows: dict[int, int] = {}
    for node in nodes:
        row = rows.get(node.layer, 0)
        rows[node.layer] = row + 1
        node.x = MARGIN + node.layer * (NODE_WIDTH + COLUMN_GAP)
        node.y = MARGIN + row * (NODE_HEIGHT + ROW_GAP)
    graph.width = MARGIN * 2 + (max(rows, default=0) + 1) * (NODE_WIDTH + COLUMN_GAP) - COLUMN_GAP
    graph.height = MARGIN * 2 + max(rows.values(), default=1) * (NODE_HEIGHT + ROW_GAP) - ROW_GAP
    return graph
