"""The state of a program being drawn: `_Builder` (its statements, tensors, open tapes and the frontier of
outputs no op consumed yet) and `_Tensor`, what it knows of each tensor (shape, dtype, what the tensor
depends on, whether it may be large)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from reftape_oracle.catalog import AMPLIFYING, BOUNDED, ILL_CONDITIONED, OpSpec, has_trait
from reftape_oracle.program import Leaf, Watch

from .values import _array

MAX_CHAIN = 4  # longer chains amplify rounding beyond any per-op tolerance: they start again from leaves
CONVERTED = ("python", "numpy", "list")  # kinds of what ops convert themselves: never a gradient's source or target


@dataclass(eq=False)
class _Tensor:
    name: str
    shape: tuple
    dtype: str
    serial: int                       # creation order: sorts sets of tensors reproducibly
    reaches: frozenset = frozenset()  # the tensors this one depends on (transitively), by identity
    kind: str = "op"                  # "op", "constant", "variable", "python", "numpy" or "list" (a ListLiteral)
    depth: int = 0                    # ops on the longest path from a leaf
    large: bool = False               # may be large in magnitude (see AMPLIFYING)
    trainable: bool = True
    inputs: tuple = ()                # the tensors the op that made this one consumed
    path: str = ""                    # the catalog op that made this one
    value: Any = None                 # a leaf's value
    watchers: set = field(default_factory=set)  # the tapes told to watch this leaf
    first_order_only: bool = False    # never a source of a gradient of a gradient (KNOWN_DIVERGENCES 1)
    special: bool = False             # a leaf holding a special point of the op it was drawn for
    upstream: bool = False            # a leaf that is a call's output gradient
    fed_source: bool = False          # the source of a gradient fed onward (its second derivative is worth taking)
    gradient: bool = False            # the result of a gradient call

    @property
    def leaf(self) -> bool:
        return self.kind != "op"

    @property
    def size(self) -> int:
        return int(np.prod(self.shape)) if self.shape else 1


@dataclass
class _Builder:
    """The state of a program being drawn: its statements, tensors, open tapes and frontier."""

    rng: np.random.Generator
    dtype: str
    ops: tuple
    base: tuple                                  # the shape of the first leaves
    statements: list = field(default_factory=list)
    body: list = field(default_factory=list)     # where the next statement goes
    tapes: list = field(default_factory=list)    # the open tapes, outermost first
    tensors: list = field(default_factory=list)  # every float tensor of the program dtype
    frontier: list = field(default_factory=list) # outputs no op consumed yet: the next targets
    leaves: list = field(default_factory=list)
    integers: list = field(default_factory=list)
    booleans: list = field(default_factory=list)  # outputs of comparisons: recorded, never differentiable
    counter: int = 0
    higher_order: bool = False                    # the next call's tape may have recorded a gradient computation
    lacking: frozenset = frozenset()              # names the backend lacks (oracle/surface.py): never drawn

    def allows(self, *names: str) -> bool:
        """Whether the backend has every one of `names` (ops, tape features, op keywords)."""
        return not self.lacking.intersection(names)

    def chance(self, probability: float) -> bool:
        return bool(self.rng.random() < probability)

    def pick(self, items: Any) -> Any:
        return items[int(self.rng.integers(len(items)))]

    def fresh(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    def emit(self, statement: Any) -> None:
        self.body.append(statement)

    def leaf(self, shape: tuple, domain: str = "any", specials: tuple = (), patterns: tuple = (),
             dtype: str | None = None, kind: str | None = None, value: np.ndarray | None = None,
             watched: bool = True, tied_rows: bool = False) -> _Tensor:
        """A new leaf, watched by each open tape that needs telling (mostly, when `watched`)."""
        dtype = dtype or self.dtype
        kind = kind or self.pick(("constant", "variable"))
        if kind == "variable" and not self.allows("Variable"):
            kind = "constant"
        name = self.fresh("v" if kind == "variable" else "c")
        if value is None:
            value = _array(self.rng, dtype, shape, domain, specials, patterns, tied_rows=tied_rows)
        trainable = kind == "constant" or self.chance(0.9)
        self.emit(Leaf(name, kind, value, dtype, trainable=trainable))
        large = not dtype.startswith("int") and bool(np.any(np.abs(value.astype(np.complex128)) > 100))
        special = bool(specials) and bool(np.any(np.isin(value, specials)))
        tensor = _Tensor(name, tuple(shape), dtype, self.counter, kind=kind, large=large, trainable=trainable,
                         value=value, special=special)
        for tape in self.tapes if watched else ():
            if kind == "constant" or not tape.watch_accessed_variables:
                if self.chance(0.85):
                    self.emit(Watch(tape.name, [name]))
                    tensor.watchers.add(tape.name)
        if dtype.startswith("int"):
            self.integers.append(tensor)
        else:
            self.leaves.append(tensor)
            if dtype == self.dtype:
                self.tensors.append(tensor)
        return tensor

    def output(self, name: str, shape: tuple, dtype: str, inputs: list, op: str = "", depth: int | None = None,
               large: bool | None = None, path: str = "") -> _Tensor:
        """A tensor computed from `inputs` by catalog op `op` (whose traits say whether it may be large)."""
        reaches = frozenset().union(*[t.reaches | {t} for t in inputs])
        depth = 1 + max(t.depth for t in inputs) if depth is None else depth
        if large is None:
            large = has_trait(op, AMPLIFYING) or any(t.large for t in inputs) and not has_trait(op, BOUNDED)
        self.counter += 1
        return _Tensor(name, tuple(int(d) for d in shape), dtype, self.counter, reaches, depth=depth, large=large,
                       inputs=tuple(inputs), path=path)

    def usable(self, spec: OpSpec) -> list:
        """The tensors `spec` may consume: at the end of a chain not yet too long, and small where
        the op is ill-conditioned for large inputs."""
        careful = spec.has(ILL_CONDITIONED)
        return [t for t in self.tensors if t.depth < MAX_CHAIN and not (careful and t.large)]

    def sorted(self, tensors: Any) -> list:
        return sorted(tensors, key=lambda t: t.serial)


def _last(spec: OpSpec) -> str:
    return spec.path.split(".")[-1]


def _variables(b: _Builder) -> list[_Tensor]:
    return [t for t in b.leaves if t.kind == "variable" and t.dtype == b.dtype]
