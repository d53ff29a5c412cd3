"""Known, reviewed divergences between reftape and TensorFlow (explained in KNOWN_DIVERGENCES.md).

Each entry has a minimal program that reproduces it and a matcher that recognises the
discrepancies it explains. The differential properties accept a discrepancy only when an entry
explains it; `tests/test_known_divergences.py` re-runs every minimal program and reports entries
that no longer reproduce (then the entry, or the generator restriction it justifies, should go).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from .compare import Discrepancy
from reftape_oracle.outcome import decode_array
from reftape_oracle.program import Call, Leaf, Op, Program, Tape, Watch


@dataclass(frozen=True)
class KnownDivergence:
    number: int
    title: str
    program: Program
    explains: Callable[[Discrepancy], bool]


def _complex_overflow(d: Discrepancy) -> bool:
    """Entry 2: inf/NaN patterns of complex results where TF's side is not finite."""
    if d.kind != "nan-inf-pattern" or not (d.dtype or "").startswith("complex"):
        return False
    return bool(np.any(~np.isfinite(decode_array(d.expected))))


def _softmax_xent_program() -> Program:
    rng = np.random.default_rng(0)
    return Program([
        Leaf("labels", "constant", rng.uniform(0, 1, (3, 4)), "float64"),
        Leaf("logits", "constant", rng.uniform(-2, 2, (3, 4)), "float64"),
        Tape("t", [Watch("t", ["labels", "logits"]),
                   Op("loss", "nn.softmax_cross_entropy_with_logits", ["labels", "logits"])]),
        Call("g", "t", "gradient", "loss", "logits"),
    ], ["loss"])


KNOWN = [
    KnownDivergence(
        1, "softmax_cross_entropy_with_logits: logits gradient for label rows not summing to 1 "
           "(TF's answer depends on op determinism)",
        _softmax_xent_program(),
        lambda d: False,  # the generator draws labels on the simplex, the op's contract
    ),
    KnownDivergence(
        2, "complex elementary functions at overflow and underflow",
        Program([Leaf("z", "constant", np.array([1e20 + 1e20j, 100 + 3j, -1e30 + 1e-30j], np.complex64), "complex64"),
                 Leaf("tiny", "constant", np.array([1.1754944e-38j], np.complex64), "complex64"),
                 Op("a", "math.log", ["z"]), Op("b", "math.expm1", ["z"]), Op("c", "sigmoid", ["z"]),
                 Op("d", "math.rsqrt", ["tiny"])],
                ["a", "b", "c", "d"]),
        _complex_overflow,
    ),
]


def _relu6_remainder_program() -> Program:
    tiny = np.finfo(np.float32).tiny / 4
    return Program([Leaf("x", "constant", np.array([tiny, -tiny, 1.0], np.float32), "float32"),
                    Op("y", "nn.relu6", ["x"])], ["y"])


KNOWN.append(KnownDivergence(
    3, "signed zeros and subnormals in the scalar remainder loop of TF's max-style kernels",
    _relu6_remainder_program(),
    lambda d: False,  # below every tolerance: only a bit-exact comparison sees it
))


def _half_accumulation_overflow(d: Discrepancy) -> bool:
    """Entry 4: a float16 result that TF's float16 accumulation overflowed to inf where reftape's is finite."""
    if d.kind != "nan-inf-pattern" or d.dtype != "float16":
        return False
    expected, actual = decode_array(d.expected), decode_array(d.actual)
    return bool(np.any(np.isinf(expected) & np.isfinite(actual)))


KNOWN.append(KnownDivergence(
    4, "float16 sums accumulate in float16 in TF, in an order that depends on the shape",
    Program([Leaf("x", "constant", np.array([40000.0, 40000.0, -40000.0], np.float16), "float16"),
             Leaf("ones", "constant", np.ones((3000, 2), np.float16), "float16"),
             Op("total", "reduce_sum", ["x"]), Op("columns", "reduce_sum", ["ones"], {"axis": 0})],
            ["total", "columns"]),
    _half_accumulation_overflow,
))


def _vectorized_rsqrt_program() -> Program:
    rows = np.array([[1.0]] * 8 + [[1e-6]], np.float32)
    return Program([Leaf("v", "variable", rows, "float32"), Leaf("w", "constant", np.array([[1.0]] * 8 + [[1.9]], np.float32), "float32"),
                    Tape("t", [Op("y", "linalg.l2_normalize", ["v"], {"axis": 1})]),
                    Call("g", "t", "gradient", "y", "v", output_gradients="w")])


KNOWN.append(KnownDivergence(
    5, "float32 rsqrt in TF's vectorized loop is not correctly rounded",
    _vectorized_rsqrt_program(),
    lambda d: False,  # one ulp, below every tolerance unless a gradient cancels to zero (then ill-conditioned)
))


KNOWN.append(KnownDivergence(
    6, "float32 reciprocal in TF's vectorized loop is not correctly rounded",
    Program([Leaf("x", "constant", np.full(9, -1.0, np.float32), "float32"),
             Leaf("bound", "constant", np.array(-1.0, np.float32), "float32"),
             Op("r", "math.reciprocal", ["x"]), Op("below", "math.less_equal", ["r", "bound"])], ["below"]),
    lambda d: False,  # one ulp, below every tolerance: only discontinuous ops downstream show it
))


def _unheld_seed_program() -> Program:
    def f32(*values: float) -> np.ndarray:
        return np.array(values, np.float32)

    return Program([
        Leaf("x", "variable", f32(1.0, -2.0054588317871094), "float32"),
        Tape("outer", [
            Tape("inner", [
                Leaf("u", "constant", f32(-1.097326397895813, -2.7807629108428955), "float32"),
                Leaf("c", "constant", f32(1.8980865478515625, 2.4705657958984375), "float32"),
                Watch("outer", ["c"]),
                Op("q", "truediv", ["u", "c"]), Op("d", "subtract", ["x", "q"]),
                Leaf("m", "variable", f32(0.7369644641876221, 0.7369644641876221), "float32"),
                Op("y", "minimum", ["d", "m"])]),
            Leaf("w", "constant", f32(-0.2202199548482895, -0.2202199548482895), "float32"),
            Watch("outer", ["w"]),
            Call("g", "inner", "gradient", "y", "x", output_gradients="w")]),
        Call("h", "outer", "gradient", {"list": ["g", "u"]}, "u", unconnected="zero", unconnected_form="string")])


KNOWN.append(KnownDivergence(
    7, "an unheld target's seed survives in reftape where TF's outer tape reaches its consumer through a recorded VJP",
    _unheld_seed_program(),
    lambda d: False,  # the generator offers unheld targets only to tapes that recorded no gradient computation
))


def explained_by(discrepancy: Discrepancy) -> KnownDivergence | None:
    return next((k for k in KNOWN if k.explains(discrepancy)), None)
