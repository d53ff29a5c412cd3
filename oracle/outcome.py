"""Outcomes: what running a program (or a snippet) on one backend produced, as JSON-able data.

One value model for the whole harness. A value is described as one of:
  {"kind": "tensor", "dtype": "float32", "shape": [2], "data": [...]}   a backend's tensor: floats as
                                                                         float.hex (exact, NaN, inf and
                                                                         -0.0 kept), complex as [re, im]
  {"kind": "ndarray", ...the tensor fields}      a NumPy array a backend returned (with `tf` None,
                                                 as for a program's own leaf values, arrays are tensors)
  {"kind": "tensor", ..., "variable": {"name": "v:0", "trainable": true}}   a Variable: its value, its
                                                                         name and trainable flag
  {"kind": "scalar", "type": "float" | "int" | "bool" | "str" | "complex" | "numpy.float32" ..., "value": ...}
  {"kind": "none"}
  {"kind": "indexed_slices", "values": tensor, "indices": tensor, "dense_shape": tensor}
  {"kind": "list" | "tuple", "items": [...]}
  {"kind": "namedtuple", "type": "Pair", "fields": ["a", "b"], "items": [...]}
  {"kind": "dict", "keys": [...], "items": [...]}
  {"kind": "exception", "class": "ValueError" | "tf.errors.InvalidArgumentError", "message": "..."}
  {"kind": "object", "repr": "TensorShape([2])"}  anything else, by its repr
  {"kind": "timeout" | "crash", "message": "..."}   an outcome's error: the program did not finish
                                                 (past its time limit; its process died)
`describe` and `describe_error` are self-contained (they use only `np` and the namespace's own
classes) because `Program.to_source()` embeds their source in standalone scripts.
"""

from __future__ import annotations

import functools
import json
import math
import platform
import re
import sys
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

# Errors that say a side never finished the program, rather than what the program raised.
UNFINISHED = ("timeout", "crash")


class HarnessError(Exception):
    """The harness itself could not run a program on one side: never an agreement (exit status 3)."""


def describe(value, tf):
    """A JSON-able description of a value produced by namespace `tf` (see the module docstring)."""
    def number(x):
        if isinstance(x, (bool, np.bool_)):
            return bool(x)
        if isinstance(x, (int, np.integer)):
            return int(x)
        if isinstance(x, (str, bytes, np.str_, np.bytes_)):
            return x.decode() if isinstance(x, bytes) else str(x)
        if isinstance(x, (complex, np.complexfloating)):
            return [float(x.real).hex(), float(x.imag).hex()]
        return float(x).hex()

    def array_fields(array, dtype_name):
        flat = array.reshape(-1)
        if array.dtype.kind not in "c" and array.dtype.kind not in "biuOSU":
            flat = flat.astype(np.float64)  # every real float (bfloat16 included) through float64, exactly
        return {"dtype": dtype_name, "shape": list(array.shape), "data": [number(x) for x in flat]}

    def key(k):
        return k if k is None or type(k) in (str, int, float, bool) else repr(k)

    variable = getattr(tf, "Variable", None)
    if value is None:
        return {"kind": "none"}
    if isinstance(value, BaseException):
        return describe_error(value, tf)
    if type(value) in (bool, int, float, str, complex) or isinstance(value, np.generic):
        kind = type(value).__name__ if type(value) in (bool, int, float, str, complex) else "numpy." + value.dtype.name
        return {"kind": "scalar", "type": kind, "value": number(value)}
    if isinstance(value, dict):
        return {"kind": "dict", "keys": [key(k) for k in value], "items": [describe(v, tf) for v in value.values()]}
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return {"kind": "namedtuple", "type": type(value).__name__, "fields": list(value._fields),
                "items": [describe(v, tf) for v in value]}
    if isinstance(value, (list, tuple)):
        return {"kind": "tuple" if isinstance(value, tuple) else "list", "items": [describe(v, tf) for v in value]}
    if hasattr(value, "indices") and hasattr(value, "dense_shape"):
        return {"kind": "indexed_slices", "values": describe(value.values, tf),
                "indices": describe(value.indices, tf), "dense_shape": describe(value.dense_shape, tf)}
    if isinstance(variable, type) and isinstance(value, variable):
        return {"kind": "tensor", **array_fields(np.asarray(value.numpy()), value.dtype.name),
                "variable": {"name": value.name, "trainable": bool(value.trainable)}}
    if hasattr(value, "numpy") and hasattr(value, "dtype"):
        return {"kind": "tensor", **array_fields(np.asarray(value.numpy()), value.dtype.name)}
    if isinstance(value, np.ndarray):
        return {"kind": "tensor" if tf is None else "ndarray", **array_fields(value, value.dtype.name)}
    return {"kind": "object", "repr": repr(value)}


def describe_error(error, tf):
    """The class (TF's op errors as `tf.errors.X`) and message of an exception."""
    op_error = getattr(getattr(tf, "errors", None), "OpError", None)
    name = type(error).__name__
    if op_error is not None and isinstance(error, op_error):
        name = "tf.errors." + name
    return {"kind": "exception", "class": name, "message": str(error)}


_HEX_FLOAT = re.compile(r"-?0x[0-9a-f]\.[0-9a-f]+p[+-][0-9]+")            # float.hex's form: 0x1.8p-1
_DECIMAL = re.compile(r"-?[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?")
_SPECIAL = {"inf": math.inf, "-inf": -math.inf, "nan": math.nan}


def parse_float(element: Any) -> float:
    """The one grammar of numbers in tensor data: a JSON number or a decimal string ("0.5") means
    decimal; an exact hexadecimal float is recognised by float.hex's form ("0x1.8p-1"); "inf",
    "-inf" and "nan" are the only spellings of those. ValueError for anything else."""
    if type(element) in (int, float):
        value = float(element) if abs(element) <= sys.float_info.max else math.inf
        if math.isfinite(value):
            return value
    elif isinstance(element, str):
        if element in _SPECIAL:
            return _SPECIAL[element]
        if _HEX_FLOAT.fullmatch(element):
            return float.fromhex(element)
        if _DECIMAL.fullmatch(element) and math.isfinite(float(element)):
            return float(element)
    raise ValueError(f"{element!r} is not a number: write a finite JSON number, a decimal string ('0.5'), an exact "
                     "hexadecimal float in float.hex form ('0x1.8p-1'), 'inf', '-inf' or 'nan'")


def decode_array(description: dict) -> np.ndarray:
    """The NumPy array of a tensor description, dtype-exact (bfloat16 via ml_dtypes)."""
    import ml_dtypes

    dtype = np.dtype(ml_dtypes.bfloat16) if description["dtype"] == "bfloat16" else np.dtype(description["dtype"])
    data = description["data"]
    if dtype.kind == "c":
        values = [complex(parse_float(re), parse_float(im)) for re, im in data]
    elif dtype.kind == "f" or dtype == np.dtype(ml_dtypes.bfloat16):
        values = [parse_float(x) for x in data]
    else:
        values = data
    return np.array(values, dtype=np.float64 if dtype == np.dtype(ml_dtypes.bfloat16) else dtype).astype(dtype).reshape(
        description["shape"])


def environment_fingerprint(tf: Any) -> dict:
    """Versions and CPU settings that can change a backend's numbers."""
    import os

    from reftape.dispatch import ENV_VAR

    fingerprint = {"backend": getattr(tf, "__name__", str(tf)), "backend_version": getattr(tf, "__version__", "?"),
                   "numpy": np.__version__, "python": platform.python_version(), "machine": platform.machine(),
                   "onednn": onednn_decision(tf), "onednn_opts": os.environ.get(ENV_VAR, "unset")}
    fingerprint["cpu_flags"] = list(_cpu_flags())
    return fingerprint


def onednn_decision(backend: Any) -> str:
    """"on" or "off": whether the backend runs TF's oneDNN kernels in this process, as it decided itself
    (TF's IsMklEnabled; reftape's dispatch, for reftape and backends built on it); "unknown" for others."""
    if getattr(backend, "__name__", None) == "tensorflow":
        from .tensorflow import onednn_enabled
    elif getattr(getattr(backend, "constant", None), "__module__", "").startswith("reftape."):
        from reftape.dispatch import onednn_enabled
    else:
        return "unknown"
    return "on" if onednn_enabled() else "off"


@functools.cache
def _cpu_flags() -> tuple:
    """The vector and matrix instruction sets of this machine's CPU (read once: every run reports them);
    the ones oneDNN's dtype support depends on among them."""
    try:
        flags = open("/proc/cpuinfo").read().split("flags\t\t:", 1)[1].split("\n", 1)[0].split()
    except (OSError, IndexError):
        return ()
    return tuple(sorted(f for f in flags if f.startswith(("avx", "amx", "fma", "sse4"))))


@dataclass
class Outcome:
    """Everything one backend produced for one program."""

    backend: str
    values: dict = field(default_factory=dict)     # forward value of each reported name
    calls: dict = field(default_factory=dict)      # result (or exception) of each gradient/jacobian call
    error: dict | None = None                      # the exception that stopped the program, if any
    environment: dict = field(default_factory=dict)

    def observed(self) -> dict:
        """The part a standalone script prints: everything but backend and environment."""
        return {"values": self.values, "calls": self.calls, "error": self.error}

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> Outcome:
        return cls(**json.loads(text))
