"""The subset of `tf.nest` the tape needs: flatten and re-pack nested structures.

Like TF, dicts flatten in sorted-key order and are re-packed in their own insertion order;
lists, tuples and namedtuples keep their type; every other object (including None) is a leaf.
"""

from __future__ import annotations

from typing import Any


def _is_namedtuple(value: Any) -> bool:
    return isinstance(value, tuple) and hasattr(value, "_fields")


def _children(value: Any) -> list | None:
    if isinstance(value, dict):
        return [value[k] for k in sorted(value)]
    if isinstance(value, (list, tuple)):
        return list(value)
    return None


_CONTAINERS = (dict, list, tuple)


def flatten(structure: Any) -> list:
    """Leaves of `structure`, depth first, dict values in sorted-key order."""
    if not isinstance(structure, _CONTAINERS):  # a single leaf, the common case
        return [structure]
    if _is_flat_sequence(structure):  # a list or tuple of leaves, the next most common
        return list(structure)
    leaves, stack = [], [structure]
    while stack:
        item = stack.pop()
        children = _children(item)
        if children is None:
            leaves.append(item)
        else:
            stack.extend(reversed(children))
    return leaves


def _is_flat_sequence(value: Any) -> bool:
    """A plain list or tuple (no namedtuple) that holds no container."""
    if value.__class__ is not list and value.__class__ is not tuple:
        return False
    for item in value:
        if isinstance(item, _CONTAINERS):
            return False
    return True


def pack_sequence_as(structure: Any, flat: list) -> Any:
    """Rebuilds `structure` with its leaves replaced, in order, by `flat`."""
    if not isinstance(structure, _CONTAINERS):
        return flat[0]
    if len(flat) >= len(structure) and _is_flat_sequence(structure):
        return structure.__class__(flat[:len(structure)])
    remaining = iter(flat)

    def rebuild(item: Any) -> Any:
        if isinstance(item, dict):
            packed = {k: rebuild(item[k]) for k in sorted(item)}
            return type(item)((k, packed[k]) for k in item)
        if _is_namedtuple(item):
            return type(item)(*[rebuild(x) for x in item])
        if isinstance(item, (list, tuple)):
            return type(item)(rebuild(x) for x in item)
        return next(remaining)

    return rebuild(structure)


def map_structure(fn, structure: Any) -> Any:
    return pack_sequence_as(structure, [fn(x) for x in flatten(structure)])
