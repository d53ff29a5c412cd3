"""Values as a reader writes them: the report's spelling of numbers, value descriptions and settings.

One spelling throughout the page: a None the program produced is `None`, nothing recorded at a place
is `absent`, booleans are `true`/`false`, numbers are decimal to 6 significant digits (the exact form
goes in the page's `title` attribute, shown on hover), shapes are `2 × 3`, indices `[0, 1]`.
"""

from __future__ import annotations

import re
from typing import Any

from reftape_oracle.outcome import decode_array

SIGNIFICANT = 6
ABSENT = "absent"
LONG = 300   # characters of a setting shown before it is cut

# The referee's verdicts in words; None is a difference no referee weighs (an exception, a None against a
# value, another dtype or structure: see VERDICT_ORDER in properties/explain/clusters.py).
VERDICT_LABELS = {None: "definite difference", "candidate-wrong": "candidate-wrong", "both-wrong": "both-wrong",
                  "tensorflow-wrong": "tensorflow-wrong", "ill-conditioned": "ill-conditioned",
                  "undecided": "undecided"}

_INTEGER = re.compile(r"[+-]?\d+")


def verdict_label(verdict: str | None) -> str:
    return VERDICT_LABELS.get(verdict, str(verdict))


def decimal(text: str) -> str:
    """A number's text (as NumPy or Python print it: "0.87758255", "(1+2j)", "True") in decimal to
    SIGNIFICANT digits; integers whole, booleans true/false, anything else as it is."""
    text = text.strip()
    if text in ("True", "False"):
        return text.lower()
    if _INTEGER.fullmatch(text):
        return text
    try:
        return f"{float(text):.{SIGNIFICANT}g}"
    except ValueError:
        pass
    try:
        z = complex(text)
    except ValueError:
        return text
    return f"{z.real:.{SIGNIFICANT}g}{z.imag:+.{SIGNIFICANT}g}j"


def index(text: str) -> str:
    """An element's index as NumPy indexing reads it: "(0, 1)" is [0, 1], "()" the scalar itself."""
    inner = text.strip().strip("()").rstrip(",").strip()
    return f"[{inner}]" if inner else "(scalar)"


def shape(dimensions: list | tuple | None) -> str:
    if dimensions is None:
        return ABSENT
    return " × ".join(str(d) for d in dimensions) if dimensions else "scalar"


def setting(value: Any) -> str:
    """A configuration or environment value: None absent, booleans true/false, a list of plain values
    `a, b`, a list of lists `[1, 2], [2, 2]`, a mapping `key: value, ...`."""
    if value is None:
        return ABSENT
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return ", ".join(f"{k}: {setting(v)}" for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return ", ".join(f"[{setting(v)}]" if isinstance(v, (list, tuple)) else setting(v) for v in value)
    return str(value)


def description(value: Any, limit: int = 12) -> str:
    """A value description (oracle/outcome.py) as text: `None`, `absent`, `float32 2 × 3: 0.5, 1, ...`,
    `[a, b]`, `{'k': v}`, `Pair(a=..., b=...)`, `ValueError: message`; tensors show their first `limit`
    elements."""
    if value is None:
        return ABSENT
    if not isinstance(value, dict):
        return str(value)
    kind = value.get("kind")
    if kind == "none":
        return "None"
    if kind in ("tensor", "ndarray"):
        return _tensor(value, limit)
    if kind == "scalar":
        return _scalar(value)
    if kind in ("list", "tuple"):
        items = ", ".join(description(v, limit) for v in value.get("items", []))
        return f"[{items}]" if kind == "list" else f"({items}{',' if len(value.get('items', [])) == 1 else ''})"
    if kind == "dict":
        return "{" + ", ".join(f"{k!r}: {description(v, limit)}" for k, v in zip(value["keys"], value["items"])) + "}"
    if kind == "namedtuple":
        fields = ", ".join(f"{f}={description(v, limit)}" for f, v in zip(value["fields"], value["items"]))
        return f"{value['type']}({fields})"
    if kind == "indexed_slices":
        return (f"IndexedSlices(values={description(value['values'], limit)}, "
                f"indices={description(value['indices'], limit)})")
    if kind == "exception":
        return f"{value['class']}: {value['message']}"
    if kind in ("timeout", "crash"):
        return f"{kind}: {value.get('message', '')}"
    if kind == "object":
        return value.get("repr", "")
    return str(value)


def _tensor(value: dict, limit: int) -> str:
    flat = decode_array(value).reshape(-1)
    shown = ", ".join(decimal(str(x)) for x in flat[:limit])
    more = f", … ({flat.size - limit} more)" if flat.size > limit else ""
    variable = " (Variable)" if value.get("variable") else ""
    return f"{value['dtype']}, shape {shape(value['shape'])}{variable}: {shown}{more}"


def _scalar(value: dict) -> str:
    number = value.get("value")
    if isinstance(number, bool):
        return "true" if number else "false"
    if isinstance(number, str) and "0x" in number:
        return decimal(repr(float.fromhex(number)))
    if isinstance(number, list):
        return decimal(repr(complex(float.fromhex(number[0]), float.fromhex(number[1]))))
    return str(number)
