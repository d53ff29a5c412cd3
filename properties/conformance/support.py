"""What the candidate supports of what a test needs: the same probe as `reftape-fuzz` (oracle/surface.py).

A test of the backend-agnostic suite names what it needs of the backend (the marker `needs`, which the
pytest plugin reads at collection): surface names as oracle/surface.py spells them ("cast",
"GradientTape.jacobian", "matmul(adjoint_a=)"), or other names of TF's API a snippet spells ("tf.random").
A test needing what the candidate lacks is deselected, never run; the generated programs draw only what it has.
"""

from __future__ import annotations

import functools
import os
import re
from typing import Any, Iterable

from reftape_oracle.catalog import CATALOG
from reftape_oracle.surface import FEATURES, Surface

from reftape_properties.cli import backend_surface
from reftape_properties.conformance.snippets import tf_chains

CANDIDATE_VARIABLE = "REFTAPE_CANDIDATE"
SURFACE_VARIABLE = "REFTAPE_SURFACE"   # the declaration file (--reftape-surface), for xdist workers too

# Methods a snippet calls on tapes and Variables, as the features they are.
_METHOD_FEATURES = {method: feature for feature in FEATURES if "." in feature and "(" not in feature
                    for method in [feature.split(".", 1)[1]]}
_METHOD_CALL = re.compile(r"\.(" + "|".join(sorted(_METHOD_FEATURES, key=len, reverse=True)) + r")\(")
# Private attributes of TF's tape that the semantics catalog reads (on an instance).
_TAPE_ATTRIBUTE = re.compile(r"\.(_recording)\b")


def candidate_name() -> str:
    return os.environ.get(CANDIDATE_VARIABLE, "reftape")


@functools.lru_cache(maxsize=None)
def candidate_surface(name: str | None = None) -> Surface:
    """What the candidate lacks: probed, plus what `$REFTAPE_SURFACE` declares (UsageError for a bad file)."""
    from reftape_oracle import load_backend

    return backend_surface(load_backend(name or candidate_name()), os.environ.get(SURFACE_VARIABLE))


def candidate_lacking() -> frozenset[str]:
    """What generated programs must not use on this run's candidate."""
    return candidate_surface().lacking


def drawable(paths: Iterable[str]) -> tuple[str, ...]:
    """The catalog ops of `paths` the candidate has."""
    return candidate_surface().ops(paths)


def source_needs(sources: Iterable[str]) -> set[str]:
    """What snippets need: the catalog ops and features they spell ("tf.sin" is "sin", "tf.custom_gradient"
    "custom_gradient", `t.jacobian(` "GradientTape.jacobian", `t._recording` "GradientTape._recording"), and any
    other `tf.` name as it is spelled."""
    used: set[str] = set()
    for source in sources:
        for chain in tf_chains(_parsed(source)):
            path = ".".join(chain)
            op = next((".".join(chain[:i]) for i in range(len(chain), 0, -1) if ".".join(chain[:i]) in CATALOG), None)
            used.add(op or (path if path in FEATURES else "tf." + path))
        used |= {_METHOD_FEATURES[m] for m in _METHOD_CALL.findall(source)}
        used |= {f"GradientTape.{a}" for a in _TAPE_ATTRIBUTE.findall(source)}
    return used


def _parsed(source: str) -> Any:
    import ast

    try:
        return ast.parse(source)
    except SyntaxError:  # a planted broken snippet: the harness reports it, it needs nothing
        return ast.Module(body=[], type_ignores=[])


def lacked(names: Iterable[str], module: Any, surface: Surface) -> list[str]:
    """The names of `names` that `module` (with its `surface`) lacks, sorted."""
    return sorted(name for name in set(names) if _lacks(name, module, surface))


def _lacks(name: str, module: Any, surface: Surface) -> bool:
    if name.startswith("tf."):
        found = module
        for part in name[3:].split("."):
            if not hasattr(found, part):
                return True
            found = getattr(found, part)
        return False
    if name.startswith("GradientTape.") and name not in FEATURES and "(" not in name:
        return not _tape_has(module, name.split(".", 1)[1])
    return not (surface.has_op(name) if name in CATALOG else surface.has(name))


def _tape_has(module: Any, attribute: str) -> bool:
    try:
        return hasattr(module.GradientTape(), attribute)
    except Exception:  # noqa: BLE001 - a tape that cannot be made has nothing
        return False


def listing(names: Iterable[str], limit: int = 12) -> str:
    """`names` in one line: catalog ops counted (listed when few), then the features, keywords and other names;
    the keywords of a method that is missing altogether are left out."""
    names = sorted(n for n in set(names) if "(" not in n or n.split("(")[0] not in names)  # a method says it all
    ops = [n for n in names if n in CATALOG]
    others = [n for n in names if n not in CATALOG]
    shown = ops if len(ops) <= limit else [f"{len(ops)} catalog ops"]
    return ", ".join(shown + others)
