"""Both sides' values at a discrepancy, side by side in decimal, with the worst element and the difference.

`value_at` and `side_by_side` use only the standard library and NumPy, because the repro scripts
embed their source to show the very same comparison on plain TensorFlow (with a decoder of their own).
"""

from __future__ import annotations


def value_at(observed, where):
    """The description at `where` ("values/y1", "calls/g2[0][1].values", "error") of an observed outcome
    ({"values": ..., "calls": ..., "error": ...}); None when the outcome has nothing there."""
    import re

    if where == "error":
        return observed.get("error")
    section, rest = where.split("/", 1)
    name = re.match(r"[A-Za-z_]\w*", rest).group(0)
    value = (observed.get(section) or {}).get(name)
    for index, part in re.findall(r"\[(\d+)\]|\.(\w+)", rest[len(name):]):
        if not isinstance(value, dict):
            return None
        items = value.get("items") or []
        value = (items[int(index)] if int(index) < len(items) else None) if index else value.get(part)
    return value


def side_by_side(expected, actual, decode, limit=40):
    """Rows comparing two value descriptions element by element, in decimal; `decode` turns a tensor
    description into its NumPy array.

    Returns {"rows": [(index, expected, actual, difference, worst)], "worst": index or None,
    "difference": text or None, "dtype", "shape", "omitted": rows left out, "text": (expected, actual)
    for anything that is not two tensors of one dtype and shape}."""
    import json

    import numpy as np

    def is_tensor(description):
        return isinstance(description, dict) and description.get("kind") in ("tensor", "ndarray", "variable")

    def text(description):
        if is_tensor(description):
            return f"{description['dtype']} {description['shape']}\n{decode(description)}"
        return json.dumps(description, indent=1)[:2000]

    if not (is_tensor(expected) and is_tensor(actual)) or expected["dtype"] != actual["dtype"] \
            or expected["shape"] != actual["shape"]:
        return {"rows": [], "worst": None, "difference": None, "omitted": 0, "dtype": None, "shape": None,
                "text": (text(expected), text(actual))}
    e, a = decode(expected), decode(actual)
    shape = e.shape
    e_flat, a_flat = e.reshape(-1), a.reshape(-1)
    if e.dtype.kind in "fc" or e.dtype.name == "bfloat16":
        wide_e, wide_a = e_flat.astype(np.complex128), a_flat.astype(np.complex128)
        with np.errstate(invalid="ignore", over="ignore"):
            gap = np.abs(wide_e - wide_a)
        same = (wide_e == wide_a) | (np.isnan(wide_e) & np.isnan(wide_a))
        gap = np.where(same, 0.0, np.where(np.isnan(gap), np.inf, gap))
    else:
        gap = np.abs(e_flat.astype(np.float64) - a_flat.astype(np.float64))
    worst = int(np.argmax(gap)) if gap.size and gap.max() > 0 else None
    shown = list(range(min(limit, gap.size)))
    if worst is not None and worst not in shown:
        shown.append(worst)
    rows = [(str(tuple(int(i) for i in np.unravel_index(k, shape))) if shape else "()", str(e_flat[k]),
             str(a_flat[k]), str(gap[k]) if gap[k] else "", k == worst) for k in shown]
    where = rows[shown.index(worst)][0] if worst is not None else None
    return {"rows": rows, "worst": where, "difference": str(gap[worst]) if worst is not None else None,
            "omitted": gap.size - len(shown), "dtype": expected["dtype"], "shape": list(shape), "text": None}
