"""What each test of the suite needs of the backend, as the marker `needs` the plugin reads at collection
(reports/commands/pytest_plugin.py): a test needing what the candidate lacks is deselected and listed,
never run. Names are spelled as oracle/surface.py spells them ("cast", "GradientTape.jacobian",
"matmul(adjoint_a=)"), or as a snippet spells a name of TF's API ("tf.random")."""

from __future__ import annotations

import fnmatch
import inspect
import re
from typing import Any, Iterable

import pytest

from reftape_oracle.surface import keyword_name, needs as program_needs
from reftape_properties.conformance.support import candidate_name, source_needs


def needs(*names: str) -> pytest.MarkDecorator:
    return pytest.mark.needs(*names)


def op_needs(path: str, attrs: Iterable[str] = ()) -> tuple[str, ...]:
    """An op called with keywords `attrs`: the op and each keyword."""
    return (path, *(keyword_name(path, a) for a in attrs))


def with_needs(value: Any, names: Iterable[str], id: str | None = None) -> Any:
    return pytest.param(value, marks=needs(*names), id=id)


def ops(paths: Iterable[str]) -> list:
    """Parameters that are catalog op paths, each needing its op."""
    return [with_needs(p, (p,), id=p) for p in paths]


def program(name: str, statements: list) -> Any:
    """A parameter naming a program, needing what the program uses."""
    return with_needs(name, program_needs(statements), id=name)


def snippets(named: dict[str, str] | list[str]) -> list:
    """Parameters that are snippets (or names of snippets), each needing what its source spells, and what the
    bodies it calls from function_bodies.py spell."""
    if isinstance(named, dict):
        return [with_needs(name, source_needs(_with_bodies(source)), id=name) for name, source in named.items()]
    return [with_needs(source, source_needs(_with_bodies(source)), id=None) for source in named]


def _with_bodies(source: str) -> list[str]:
    """`source` and the source of each function of function_bodies.py it calls as `bodies.NAME`."""
    from . import function_bodies

    called = re.findall(r"\bbodies\.(\w+)", source) if "function_bodies as bodies" in source else []
    return [source, *(inspect.getsource(getattr(function_bodies, name)) for name in called)]


def candidate_and_tensorflow(*names: str) -> list:
    """The `backend` parameter of tests run on each side: the candidate's needs `names`, TensorFlow's nothing."""
    return [pytest.param("tensorflow", id="tensorflow"),
            pytest.param(candidate_name(), marks=needs(*names), id=candidate_name())]


def calls(*paths: str) -> pytest.MarkDecorator:
    """A test calling TF's functions `paths` ("pow", "nn.softmax", "zeros") on the candidate."""
    return needs(*(source_needs([f"tf.{p}"]).pop() for p in paths))


def each_side(programs: dict, *patterns: str) -> pytest.MarkDecorator:
    """Parametrises `backend` with TensorFlow and the candidate, which needs what the programs of `programs`
    named by `patterns` (globs) use."""
    names = [n for n in programs if any(fnmatch.fnmatchcase(n, p) for p in patterns)]
    assert names, patterns
    return pytest.mark.parametrize("backend", candidate_and_tensorflow(
        *set().union(*(program_needs(programs[n].statements) for n in names))))
