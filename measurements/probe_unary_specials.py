"""Sweeps every elementwise unary op of the catalog over special values (+-inf, NaN, +-0, the largest
and smallest normal magnitudes, 1) in every dtype the catalog lists, on tensors of sizes 1..17 in which
every position holds every special value once (so both of TF's loops, the packet loop and the scalar
remainder, see each value), forward and gradient (upstream 0.75, or 0.75-0.5j), on live TF and on
reftape; prints where the NaN/inf patterns or signed zeros differ (and finite values differing by more
than a relative 1e-3).

    .venv/bin/python measurements/probe_unary_specials.py [op ...]
"""

from __future__ import annotations

import itertools
import sys
import warnings

import ml_dtypes
import numpy as np

import reftape as rt
from reftape_oracle.catalog import CATALOG, apply, attribute_variants, family, resolve
from reftape_oracle.tensorflow import load_tensorflow

NOT_ELEMENTWISE = {"cast", "identity", "stop_gradient", "math.conj", "math.real", "math.imag", "zeros_like",
                   "ones_like", "nn.l2_loss", "linalg.norm", "linalg.l2_normalize", "linalg.einsum"}


def unary_paths() -> list[str]:
    return [p for p, s in CATALOG.items() if s.arity == 1 and not s.attrs.keys() - {"alpha", "approximate"}
            and p not in NOT_ELEMENTWISE and family(p) not in ("reductions", "structure")
            and not p.endswith(("softmax", "argmax", "argmin"))]


def specials(dtype: str) -> list:
    real = np.dtype("float32" if dtype in ("bfloat16", "complex64") else "float64" if dtype == "complex128" else dtype)
    big = float(ml_dtypes.finfo(ml_dtypes.bfloat16).max) if dtype == "bfloat16" else float(np.finfo(real).max)
    tiny = float(ml_dtypes.finfo(ml_dtypes.bfloat16).tiny) if dtype == "bfloat16" else float(np.finfo(real).tiny)
    values = [np.inf, -np.inf, np.nan, 0.0, -0.0, big, -big, tiny, -tiny, 1.0, -1.0, 30.0, -30.0]
    if dtype.startswith("complex"):
        parts = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -2.5, big / 4, -big / 4, 60.0, -60.0]
        return [complex(a, b) for a, b in itertools.product(parts, repeat=2)]
    return values


def as_array(values: list, dtype: str) -> np.ndarray:
    if dtype.startswith("complex"):
        out = np.empty(len(values), dtype)
        out.real, out.imag = [v.real for v in values], [v.imag for v in values]
        return out
    with np.errstate(over="ignore"):
        return np.asarray(values, np.float64).astype(ml_dtypes.bfloat16 if dtype == "bfloat16" else dtype)


def run(ns, path: str, attrs: dict, x: np.ndarray):
    t = ns.constant(x)
    try:
        with ns.GradientTape() as tape:
            tape.watch(t)
            y = apply(ns, path, [t], attrs)
        if not (y.dtype.is_floating or y.dtype.is_complex) or CATALOG[path].gradient == "none":
            return y.numpy(), None
        up = np.full(y.shape, 0.75 - 0.5j if y.dtype.is_complex else 0.75, y.dtype.as_numpy_dtype)
        g = tape.gradient(y, t, output_gradients=ns.constant(up))
        return y.numpy(), None if g is None else np.asarray(g)
    except Exception as exc:  # noqa: BLE001
        return type(exc).__name__, None


def classes(v: np.ndarray) -> np.ndarray:
    """Per element: a class code (nan, +-inf, +-0, finite) per real part."""
    v = np.asarray(v)
    if v.dtype.kind == "c":
        return np.stack([classes(v.real), classes(v.imag)], -1)
    if v.dtype.kind == "b":
        return v.astype(int)
    f = v.astype(np.float64)
    return np.select([np.isnan(f), f == np.inf, f == -np.inf, (f == 0) & np.signbit(f), f == 0],
                     [1, 2, 3, 4, 5], 0)


def close(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    a, b = np.asarray(a).astype(np.complex128), np.asarray(b).astype(np.complex128)
    with np.errstate(all="ignore"):
        finite = np.isfinite(a) & np.isfinite(b)
        return ~finite | (np.abs(a - b) <= 1e-3 * np.maximum(np.abs(a), np.abs(b)) + 1e-300)


def main(paths: list[str]) -> None:
    warnings.simplefilter("ignore")
    tf = load_tensorflow()
    done = set()
    for path in paths or unary_paths():
        spec = CATALOG[path]
        if id(resolve(tf, path)) in done:
            continue
        done.add(id(resolve(tf, path)))
        for attrs in attribute_variants(spec):
            for dtype in spec.dtypes:
                points = specials(dtype)
                seen: dict = {}
                for size in range(1, 18):
                    for k in range(len(points)):
                        vals = [points[(i + k) % len(points)] for i in range(size)]
                        x = as_array(vals, dtype)
                        sides = [run(ns, path, attrs, x) for ns in (tf, rt)]
                        for part, name in ((0, "forward"), (1, "gradient")):
                            e, a = sides[0][part], sides[1][part]
                            if isinstance(e, str) or isinstance(a, str) or e is None or a is None:
                                if (e is None) != (a is None) or (isinstance(e, str) and e != a):
                                    key = (name, "kind", str(e)[:40], str(a)[:40])
                                    seen.setdefault(key, (size, k))
                                continue
                            bad = np.any(classes(e) != classes(a), axis=tuple(range(1, classes(e).ndim))) \
                                if classes(e).ndim > 1 else classes(e) != classes(a)
                            bad = bad | ~close(e, a)
                            for i in np.flatnonzero(bad):
                                key = (name, vals[i], i >= size - size % 8, repr(e[i]), repr(a[i]))
                                seen.setdefault(key, (size, i))
                for key, where in seen.items():
                    print(f"{path}{attrs or ''} {dtype} {key} first at size,pos {where}", flush=True)
            print(f"-- {path} done", flush=True)


if __name__ == "__main__":
    unknown = [path for path in sys.argv[1:] if path not in unary_paths()]
    if unknown:
        sys.exit(f"probe_unary_specials: error: not a unary catalog op: {', '.join(unknown)}")
    main(sys.argv[1:])
