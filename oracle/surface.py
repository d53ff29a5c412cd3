"""A backend's surface: which of the names programs use it has.

A program uses three kinds of names, each spelled as a user would look it up:
- catalog ops by their TF path ("math.log1p", "cast");
- features of the tape API (FEATURES): "GradientTape.jacobian", "Variable.assign_add", "custom_gradient",
  "GradientTape.gradient(output_gradients=)", ...;
- an op's keyword, "matmul(adjoint_a=)": an attribute the catalog passes by name.

`probe` reads a module's surface from its attributes and signatures (running nothing but the making of one
Variable, whose methods it reads); a tape's author
may declare more it lacks (`declared`, a JSON file). `needs` lists the names a program uses, so that a
program needing a name the backend lacks is "missing", never run: the generator leaves such names out,
and the interpreter reports any it meets by name.
"""

from __future__ import annotations

import fnmatch
import inspect
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable

from .catalog import CATALOG, resolve
from .statements import (Accumulator, Apply, Assign, Call, Cond, CustomGradient, Jvp, Leaf, Op, ReadValue, Reset,
                         StopRecording, WatchedVariables, WhileLoop, walk)

# The keywords of a tape's calls that programs pass (TF's jacobians take no output_gradients, gradient no pfor).
CALL_KEYWORDS = (("gradient", "output_gradients"), ("gradient", "unconnected_gradients"),
                 ("jacobian", "unconnected_gradients"), ("jacobian", "experimental_use_pfor"),
                 ("batch_jacobian", "unconnected_gradients"), ("batch_jacobian", "experimental_use_pfor"))


def _method(cls: str, name: str) -> Callable[[Any], bool]:
    return lambda module: hasattr(getattr(module, cls, None), name)


def _variable_method(name: str) -> Callable[[Any], bool]:
    """Read on an instance: a module's `Variable` may be a factory of another class (TF's and reftape's are)."""
    def present(module: Any) -> bool:
        try:
            variable = module.Variable(0.0)
        except Exception:  # noqa: BLE001 - a Variable that cannot be made has no methods to call
            return hasattr(getattr(module, "Variable", None), name)
        return hasattr(variable, name)
    return present


def _keyword(cls: str, method: str, keyword: str) -> Callable[[Any], bool]:
    return lambda module: takes_keyword(getattr(getattr(module, cls, None), method, None), keyword)


# Each feature of the tape API a program may use, with how to tell that a module has it.
FEATURES: dict[str, Callable[[Any], bool]] = {
    "Variable": lambda module: hasattr(module, "Variable"),
    **{f"Variable.{m}": _variable_method(m) for m in ("assign", "assign_add", "assign_sub", "read_value")},
    "custom_gradient": lambda module: hasattr(module, "custom_gradient"),
    **{f"GradientTape.{m}": _method("GradientTape", m)
       for m in ("jacobian", "batch_jacobian", "watched_variables", "stop_recording", "reset")},
    **{f"GradientTape.{m}({k}=)": _keyword("GradientTape", m, k) for m, k in CALL_KEYWORDS},
    "autodiff.ForwardAccumulator": lambda module: hasattr(getattr(module, "autodiff", None), "ForwardAccumulator"),
    "while_loop": lambda module: hasattr(module, "while_loop"),
    "cond": lambda module: hasattr(module, "cond"),
}


def takes_keyword(function: Any, keyword: str) -> bool:
    """Whether `function` accepts `keyword` (True for a function without a signature Python can read, or
    one taking **kwargs; False for None)."""
    if function is None:
        return False
    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):
        return True
    return any(p.kind is p.VAR_KEYWORD or p.name == keyword and p.kind is not p.POSITIONAL_ONLY for p in parameters)


def keyword_name(path: str, attribute: str) -> str:
    return f"{path}({attribute}=)"


def optional_attribute(path: str, attribute: str) -> bool:
    """An attribute the catalog draws among several values, the first its default: a backend without the
    keyword still runs the op, called without it."""
    return len(CATALOG[path].attrs[attribute]) > 1


@dataclass(frozen=True)
class Surface:
    """What a backend lacks of what programs use (names as `needs` spells them)."""

    lacking: frozenset[str] = frozenset()

    def has(self, name: str) -> bool:
        return name not in self.lacking

    def has_op(self, path: str) -> bool:
        """The op is there, with every keyword it cannot be called without."""
        return path not in self.lacking and all(
            optional_attribute(path, a) for a in CATALOG[path].attrs if keyword_name(path, a) in self.lacking)

    def ops(self, paths: Iterable[str]) -> tuple[str, ...]:
        return tuple(p for p in paths if self.has_op(p))

    def unsupported(self, paths: Iterable[str]) -> tuple[str, ...]:
        """What a campaign over ops `paths` leaves out, sorted: their missing ops and keywords, and the features."""
        paths = set(paths)
        return tuple(sorted(name for name in self.lacking if (name in FEATURES or name.split("(")[0] in paths)
                            and not _of_a_missing_method(name, self.lacking)))


def probe(module: Any) -> Surface:
    """The surface of `module`, read from its attributes and signatures (and one Variable's methods)."""
    lacking = {name for name, present in FEATURES.items() if not present(module)}
    for path, spec in CATALOG.items():
        try:
            op = resolve(module, path)
        except AttributeError:
            lacking.add(path)
            continue
        if spec.call is None:  # an adapter passes attributes in its own way
            lacking |= {keyword_name(path, a) for a in spec.attrs if not takes_keyword(op, a)}
    return Surface(frozenset(lacking))


_probed: dict[int, tuple[Any, Surface]] = {}


def surface_of(module: Any) -> Surface:
    """`probe(module)`, once per module and process (the module kept alive with its surface)."""
    if id(module) not in _probed:
        _probed[id(module)] = (module, probe(module))
    return _probed[id(module)][1]


def _of_a_missing_method(name: str, lacking: frozenset[str]) -> bool:
    """A keyword of a method the backend lacks altogether (listing the method says it all)."""
    return "(" in name and name.split("(")[0] in lacking


class DeclarationError(ValueError):
    """A surface declaration that cannot be read, or names what no program uses."""


def declared(path: Path) -> frozenset[str]:
    """The names a declaration file says its backend lacks: JSON `{"unsupported": [NAME, ...]}`, each a
    feature (FEATURES), a catalog path or glob ("linalg.*"), or an op's keyword ("matmul(adjoint_a=)")."""
    try:
        document = json.loads(path.read_text())
    except (OSError, ValueError) as error:
        raise DeclarationError(f"{str(path)!r} is unreadable: {type(error).__name__}: {error}") from None
    names = document.get("unsupported") if isinstance(document, dict) else None
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise DeclarationError(f"{str(path)!r} must hold {{\"unsupported\": [name, ...]}} with names as strings")
    lacking: set[str] = set()
    for name in names:
        matched = _declared_names(name)
        if not matched:
            raise DeclarationError(f"{str(path)!r}: {name!r} is no feature ({', '.join(FEATURES)}), catalog op "
                                   f"or op keyword such as 'matmul(adjoint_a=)'")
        lacking |= matched
    return frozenset(lacking)


def _declared_names(name: str) -> set[str]:
    if name in FEATURES:
        return {name}
    if name.endswith("=)") and "(" in name:
        path, attribute = name[:-2].split("(", 1)
        return {name} if path in CATALOG and attribute in CATALOG[path].attrs else set()
    return {p for p in CATALOG if fnmatch.fnmatchcase(p, name)}


# The feature a statement of each type uses (ops, calls, leaves and assigns name theirs: `needs`).
FEATURE_OF_STATEMENT = {StopRecording: "GradientTape.stop_recording", Reset: "GradientTape.reset",
                        WatchedVariables: "GradientTape.watched_variables", CustomGradient: "custom_gradient",
                        Apply: "custom_gradient", ReadValue: "Variable.read_value",
                        Accumulator: "autodiff.ForwardAccumulator", Jvp: "autodiff.ForwardAccumulator",
                        WhileLoop: "while_loop", Cond: "cond"}


def needs(statements: list) -> set[str]:
    """The surface names `statements` use (ops, features, op keywords)."""
    used: set[str] = set()
    for s in walk(statements):
        if type(s) in FEATURE_OF_STATEMENT:
            used.add(FEATURE_OF_STATEMENT[type(s)])
        elif isinstance(s, Leaf) and s.kind == "variable":
            used.add("Variable")
        elif isinstance(s, Op):
            used |= {s.path, *(keyword_name(s.path, a) for a in s.attrs)}
        elif isinstance(s, Call):
            used |= _call_needs(s)
        elif isinstance(s, Assign):
            used.add(f"Variable.{s.method}")
    return used


def _call_needs(call: Call) -> set[str]:
    method = f"GradientTape.{call.method}"
    used = {method}
    if call.output_gradients is not None:
        used.add(f"{method}(output_gradients=)")
    if call.unconnected_form != "default":
        used.add(f"{method}(unconnected_gradients=)")
    if call.method != "gradient" and not call.use_pfor:
        used.add(f"{method}(experimental_use_pfor=)")
    return used
