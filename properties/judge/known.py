"""Known, reviewed divergences between reftape and TensorFlow (explained in KNOWN_DIVERGENCES.md).

Each entry has a minimal program that reproduces it and a matcher that recognises the
discrepancies it explains. The differential properties accept a discrepancy only when an entry
explains it; `tests/reftape_only/test_known_divergences.py` re-runs every minimal program and reports entries
that no longer reproduce (then the entry is marked resolved, and any generator restriction it
justified goes); a resolved entry's program must agree on both sides.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from reftape import dispatch
from reftape.kernels.half_sums import MODELLED_TERMS

from reftape_properties.judge.compare import Discrepancy, compare, summed_terms
from reftape_oracle.catalog import (CATALOG, CONTRACTS, CONV2D_KERNEL, CPOW, DETERMINISTIC_COMPOSITE, PRODUCT_ORDER,
                                    has_trait)
from reftape_oracle.outcome import Outcome, decode_array
from reftape_oracle.program import Call, Leaf, Op, Program, Tape, Watch, walk


@dataclass(frozen=True)
class Evidence:
    """What a matcher may consult besides the discrepancy: the program, both outcomes, the candidate, and the
    reference's outcome of the program run again in a fresh process (a call, made once, and only by a matcher
    that needs it; None where the reference already ran in a process of its own)."""

    program: Program
    expected: Outcome
    actual: Outcome
    candidate: Any          # the candidate backend: a module name or a module
    fresh_expected: Callable[[], Outcome] | None = None


@dataclass(frozen=True)
class KnownDivergence:
    """A reviewed divergence; a `resolved` one (how reftape came to match) explains nothing, and its program
    is a regression test both sides must agree on. Numbers stay stable."""

    number: int
    title: str
    program: Program
    explains: Callable[[Discrepancy, Evidence | None], bool]
    resolved: str = ""
    dispatch: str | None = None   # "onednn": holds only where TF runs its oneDNN kernels (None: everywhere)
    reproducible: bool = True     # False: TF's side of `program` differs only now and then (no regression test)


def _never(d: Discrepancy, evidence: Evidence | None) -> bool:
    """For entries the generator avoids, or that no tolerance can see: nothing is explained."""
    return False


def _complex_overflow(d: Discrepancy, evidence: Evidence | None) -> bool:
    """Entry 2: inf/NaN patterns of complex results where TF's side is not finite. Not the value of a
    `pow` op: its forward follows TF's cpow at every element (zero bases, integral exponents, infinities
    included), so a pattern there is a bug; its gradient's complex products still part (entry 2)."""
    if d.kind != "nan-inf-pattern" or not (d.dtype or "").startswith("complex"):
        return False
    if evidence is not None and d.where.startswith("values/"):
        name = d.where[len("values/"):]
        op = next((s for s in walk(evidence.program.statements) if isinstance(s, Op) and s.name == name), None)
        if op is not None and has_trait(op.path, CPOW):
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
        _never,  # the generator draws labels on the simplex, the op's contract, and never differentiates
                 # a gradient computation with respect to them
    ),
    KnownDivergence(
        2, "complex elementary functions at overflow and underflow",
        Program([Leaf("tiny", "constant", np.full(4, 1e-39 + 0j, np.complex64), "complex64"),
                 Op("a", "math.log", ["tiny"])],
                ["a"]),
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
    _never,  # below every tolerance: only a bit-exact comparison sees it
))


def _half_accumulation_overflow(d: Discrepancy, evidence: Evidence | None) -> bool:
    """Entry 4: a float16 result that TF's float16 accumulation overflowed to inf where reftape's is
    finite, in a program that sums more terms than reftape models TF's order for."""
    if d.kind != "nan-inf-pattern" or d.dtype != "float16" or evidence is None:
        return False
    if summed_terms(evidence.program) <= MODELLED_TERMS:
        return False
    expected, actual = decode_array(d.expected), decode_array(d.actual)
    return bool(np.any(np.isinf(expected) & np.isfinite(actual)))


def _one_lane_overflow() -> np.ndarray:
    """64 float16 terms (more than reftape models), three of them in the same one of Eigen's eight
    lanes: 40000 + 40000 overflows there before -40000 comes."""
    x = np.zeros(64, np.float16)
    x[[0, 8, 16]] = 40000.0, 40000.0, -40000.0
    return x


KNOWN.append(KnownDivergence(
    4, "float16 sums accumulate in float16 in TF, in an order that depends on the shape",
    Program([Leaf("x", "constant", _one_lane_overflow(), "float16"),
             Leaf("ones", "constant", np.ones((3000, 2), np.float16), "float16"),
             Op("total", "reduce_sum", ["x"]), Op("columns", "reduce_sum", ["ones"], {"axis": 0})],
            ["total", "columns"]),
    _half_accumulation_overflow,
))


def _vectorized_rsqrt_program() -> Program:
    """Reproduces on every processor seen: 1.0 parts from the correctly rounded result on Intel's
    AVX-512 (and makes the l2_normalize gradient nonzero there), 7.3235888 and 1.8389907 on AMD's."""
    rows = np.array([[1.0]] * 8 + [[1e-6]], np.float32)
    inputs = np.array([1.0, 7.323588848114014, 1.8389906883239746] + [1.0] * 6, np.float32)
    return Program([Leaf("v", "variable", rows, "float32"), Leaf("w", "constant", np.array([[1.0]] * 8 + [[1.9]], np.float32), "float32"),
                    Leaf("x", "constant", inputs, "float32"),
                    Tape("t", [Op("y", "linalg.l2_normalize", ["v"], {"axis": 1})]),
                    Op("r", "math.rsqrt", ["x"]),
                    Call("g", "t", "gradient", "y", "v", output_gradients="w")], outputs=["r"])


KNOWN.append(KnownDivergence(
    5, "float32 rsqrt in TF's vectorized loop is not correctly rounded",
    _vectorized_rsqrt_program(),
    _never,  # one ulp, below every tolerance unless a gradient cancels to zero (then ill-conditioned)
))


def _reported_tensor(side: Outcome, name: str) -> dict | None:
    """The tensor `name` as one side reported it (an op's value or a call's result), else None."""
    found = side.values.get(name) or side.calls.get(name)
    return found if found and found.get("kind") == "tensor" and "variable" not in found else None


def _flipped_by_rounding(d: Discrepancy, evidence: Evidence | None) -> bool:
    """Entry 6, and any rounding within tolerance: a discontinuous op (a comparison, an arg-op) gives
    another answer because its inputs agree within tolerance but not bit for bit. Explained only when
    the candidate's own op, run on the reference's inputs, gives the reference's answer exactly; a
    wrong comparison is not excused, nor one whose inputs are identical on both sides."""
    if evidence is None or d.kind != "value" or not d.where.startswith("values/"):
        return False
    name = d.where[len("values/"):]
    op = next((s for s in walk(evidence.program.statements) if isinstance(s, Op) and s.name == name), None)
    if op is None or CATALOG[op.path].output not in ("bool", "int32", "int64"):
        return False
    leaves, inputs, differ = evidence.program.leaves(), [], False
    for input_name in op.inputs:
        leaf = leaves.get(input_name)
        if leaf is not None:  # the same on both sides, unless a Variable was assigned
            if leaf.kind != "constant":
                return False
            inputs.append(leaf)
            continue
        expected, actual = (_reported_tensor(side, input_name) for side in (evidence.expected, evidence.actual))
        if expected is None or actual is None:
            return False
        differ |= expected != actual
        inputs.append(Leaf(input_name, "constant", decode_array(expected), expected["dtype"]))
    if not differ:
        return False
    from reftape_oracle.interpreter import run

    rerun = run(Program([*inputs, Op(op.name, op.path, op.inputs, op.attrs)], [op.name]), evidence.candidate)
    return rerun.values.get(op.name) == evidence.expected.values.get(op.name)


KNOWN.append(KnownDivergence(
    6, "float32 reciprocal in TF's vectorized loop is not correctly rounded",
    Program([Leaf("x", "constant", np.full(9, -1.0, np.float32), "float32"),
             Leaf("bound", "constant", np.array(-1.0, np.float32), "float32"),
             Op("r", "math.reciprocal", ["x"]), Op("below", "math.less_equal", ["r", "bound"])], ["r", "below"]),
    _flipped_by_rounding,
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
    _never,
    resolved="comparisons are recorded and a select reads its condition, as in TF",
))


def _zero_or_not_finite(description: Any) -> np.ndarray:
    values = decode_array(description)
    return (values == 0) | ~np.isfinite(values)


def _differing(expected: np.ndarray, actual: np.ndarray) -> np.ndarray:
    """Where two sides' elements differ (a NaN equals a NaN)."""
    return ~((expected == actual) | (np.isnan(expected) & np.isnan(actual)))


def _product_order_under_overflow(d: Discrepancy, evidence: Evidence | None) -> bool:
    """Entry 8: a reduce_prod whose factors overflow and hold a zero: where the two sides differ, each
    is NaN, an infinity or a zero, which only the order of the products decides."""
    if d.kind != "nan-inf-pattern" or evidence is None or not d.where.startswith("values/"):
        return False
    name = d.where[len("values/"):]
    op = next((s for s in walk(evidence.program.statements) if isinstance(s, Op) and s.name == name), None)
    if op is None or not has_trait(op.path, PRODUCT_ORDER):
        return False
    differ = _differing(decode_array(d.expected), decode_array(d.actual))
    return bool(np.all(_zero_or_not_finite(d.expected)[differ] & _zero_or_not_finite(d.actual)[differ]))


KNOWN.append(KnownDivergence(
    8, "products that overflow next to a zero: TF multiplies in another order",
    Program([Leaf("x", "constant", np.array([0.0, 3.0, -3e38, -2.8, 1.4, 2.3, -2.2, 0.94], np.float32), "float32"),
             Leaf("h", "constant", np.array([3.0, -60000.0, 0.0], np.float16), "float16"),
             Op("p", "reduce_prod", ["x"]), Op("q", "reduce_prod", ["h"])], ["p", "q"]),
    _product_order_under_overflow,
))


_SLICES_PART = re.compile(r"(values|calls)/([^\[.]+)((?:\[\d+\])*)\.(?:indices|values)")


def _indexed_slices_at(side: Outcome, where: str) -> dict | None:
    """The IndexedSlices description whose indices or values `where` names on one side, else None."""
    match = _SLICES_PART.fullmatch(where)
    if match is None:
        return None
    node = (side.values if match[1] == "values" else side.calls).get(match[2])
    for position in re.findall(r"\[(\d+)\]", match[3]):
        if not node or "items" not in node or int(position) >= len(node["items"]):
            return None
        node = node["items"][int(position)]
    return node if node and node.get("kind") == "indexed_slices" else None


def _parts(slices: dict) -> list:
    indices = decode_array(slices["indices"]).reshape(-1)
    rows = decode_array(slices["values"]).reshape(len(indices), -1)
    return sorted(zip(indices.tolist(), map(tuple, rows.tolist())))


def _same_parts_in_another_order(d: Discrepancy, evidence: Evidence | None) -> bool:
    """Entry 10: an IndexedSlices gradient made of the reference's parts (index and row, bit for bit) in
    another order; its dense value is the same."""
    if evidence is None or d.kind != "value":
        return False
    expected, actual = (_indexed_slices_at(side, d.where) for side in (evidence.expected, evidence.actual))
    if expected is None or actual is None or expected["dense_shape"] != actual["dense_shape"]:
        return False
    return _parts(expected) == _parts(actual)


def _comparison_numbering_program() -> Program:
    """Six gathers of one watched tensor as targets, eight comparisons of it after the first gather."""
    body = [Watch("t", ["x"]), Op("y0", "gather", ["x"], {"indices": (0,), "axis": 0})]
    body += [Op(f"b{k}", "greater", ["x", "z"]) for k in range(8)]
    body += [Op(f"y{i}", "gather", ["x"], {"indices": (i,), "axis": 0}) for i in range(1, 6)]
    return Program([Leaf("x", "constant", np.arange(40.0, dtype=np.float32), "float32"),
                    Leaf("z", "constant", np.zeros(40, np.float32), "float32"),
                    Tape("t", body), Call("g", "t", "gradient", {"list": [f"y{i}" for i in range(6)]}, "x")], [])


KNOWN.append(KnownDivergence(
    9, "TF's tape numbers the ops it records without a gradient (comparisons, shape reads): the parts of an "
       "IndexedSlices gradient from several targets can come in another order",
    _comparison_numbering_program(),
    _never,
    resolved="comparisons, arg-extremes and tf.shape are recorded, as in TF",
))


def _variable_gather_program() -> Program:
    """Gathers of a Variable and of a watched constant, each through identity, four targets."""
    def gathered(name: str, params: str, indices: tuple) -> list:
        return [Op(f"{name}_rows", "gather", [params], {"indices": indices, "axis": 0}),
                Op(name, "identity", [f"{name}_rows"])]
    body = [Watch("t", ["c"]), *gathered("a", "v", (2,)), *gathered("b", "a", (0, 0)), *gathered("e", "c", (2,)),
            *gathered("f", "v", (0,)), *gathered("h", "f", (0, 0)), *gathered("k", "f", (0, 0, 0))]
    return Program([Leaf("c", "constant", np.array([[1.0], [1.6], [1.6]], np.float32), "float32"),
                    Leaf("v", "variable", np.array([[-1.0], [1.3], [-1.0]], np.float32), "float32"),
                    Tape("t", body), Call("g", "t", "gradient", {"list": ["k", "h", "b", "e"]}, "v")], [])


KNOWN.append(KnownDivergence(
    10, "TF gathers from a Variable with one op (ResourceGather), reftape with two (a read, then GatherV2): "
        "the parts of an IndexedSlices gradient from several targets can come in another order",
    _variable_gather_program(),
    _same_parts_in_another_order,
))


def tensorflow_ran_onednn(dtype: str, evidence: Evidence | None) -> bool:
    """Whether TF's side ran `dtype` on oneDNN: the decision its outcome recorded (and the CPU flags it
    recorded, for the dtypes oneDNN runs only with some vector extensions); where the outcome recorded no
    decision (an older record, or no outcome), this process's, which is TF's here (tests/reftape_only/test_dispatch.py)."""
    environment = evidence.expected.environment if evidence is not None and evidence.expected is not None else {}
    if environment.get("onednn") not in ("on", "off"):
        return dispatch.runs_onednn(dtype)
    return environment["onednn"] == "on" and dispatch.supports_dtype(dtype, frozenset(environment.get("cpu_flags", ())))


def _vectorized_softmax_of_non_finite(d: Discrepancy, evidence: Evidence | None) -> bool:
    """Entry 11: a softmax that TF ran on oneDNN whose row held NaN or +inf: where the sides differ, TF's
    element is 0 and reftape's NaN (the whole row of reftape's is NaN, TF's holds only zeros and NaNs)."""
    if d.kind != "nan-inf-pattern" or evidence is None or not d.dtype or not d.where.startswith("values/"):
        return False
    name = d.where[len("values/"):]
    op = next((s for s in walk(evidence.program.statements) if isinstance(s, Op) and s.name == name), None)
    if op is None or op.path != "nn.softmax" or not tensorflow_ran_onednn(d.dtype, evidence):
        return False
    expected, actual = decode_array(d.expected).astype(np.float64), decode_array(d.actual).astype(np.float64)
    differ = _differing(expected, actual)
    return bool(np.all(expected[differ] == 0) and np.all(np.isnan(actual[differ])))


KNOWN.append(KnownDivergence(
    11, "softmax of a row holding NaN or +inf under oneDNN: its vectorised kernel's lanes",
    Program([Leaf("x", "constant", np.array([1.0, np.nan, 2.0], np.float32), "float32"),
             Leaf("b", "constant", np.array([np.inf, 1.0, 2.0], np.float32), "bfloat16"),
             Op("s", "nn.softmax", ["x"]), Op("t", "nn.softmax", ["b"])], ["s", "t"]),
    _vectorized_softmax_of_non_finite,
    dispatch="onednn",
))


def tensorflow_without_determinism(program: Program) -> Outcome | None:
    """The program's outcome on TF's default kernels (a fresh process: op determinism cannot be turned
    off once on); None when that run fails."""
    try:
        done = subprocess.run([sys.executable, "-c", program.to_source("tensorflow", deterministic=False)],
                              capture_output=True, text=True, timeout=300,
                              env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"})
        observed = json.loads(done.stdout.strip().splitlines()[-1])
    except (subprocess.TimeoutExpired, ValueError, IndexError):
        return None
    return Outcome("tensorflow", values=observed["values"], calls=observed["calls"], error=observed["error"])


def _default_kernel_at_infinity(d: Discrepancy, evidence: Evidence | None) -> bool:
    """Entry 12: an inf/NaN pattern where TF's side has NaN and the program holds an op that TF computes
    as a composite under op determinism; explained only when TF's default kernels give the candidate's
    answer there (rerun without op determinism)."""
    if d.kind != "nan-inf-pattern" or evidence is None or evidence.actual is None:
        return False
    if not any(has_trait(op.path, DETERMINISTIC_COMPOSITE) for op in evidence.program.ops()):
        return False
    if not np.any(np.isnan(decode_array(d.expected).astype(np.complex128))):
        return False
    default = tensorflow_without_determinism(evidence.program)
    return default is not None and all(other.where != d.where for other in compare(default, evidence.actual,
                                                                                   evidence.program))


def _sparse_xent_at_infinity_program() -> Program:
    """An infinite upstream gradient (sinh of a float16 loss near 28) into a row whose label's logit is far
    below the others."""
    logits = np.array([[2.9, -0.23, -1.0], [-2.2, -30.0, -2.48]], np.float16)
    return Program([Leaf("logits", "variable", logits, "float16"),
                    Tape("t", [Op("loss", "nn.sparse_softmax_cross_entropy_with_logits", ["logits"],
                                  {"labels": (0, 1)}),
                               Op("y", "sinh", ["loss"])]),
                    Call("g", "t", "gradient", "y", "logits")], [])


KNOWN.append(KnownDivergence(
    12, "sparse_softmax_cross_entropy_with_logits under op determinism: TF's composite turns an infinite "
        "upstream gradient into NaN where its default kernel (and reftape) give an infinity",
    _sparse_xent_at_infinity_program(),
    _default_kernel_at_infinity,
))


def _next_after_into_subnormals_program() -> Program:
    """nextafter from normal inputs into the subnormals: TF's result is C's bits, never flushed."""
    return Program([Leaf("x1", "constant", np.array([0.0, np.finfo(np.float32).tiny, -0.0], np.float32), "float32"),
                    Leaf("x2", "constant", np.array([1.0, 0.0, -1.0], np.float32), "float32"),
                    Op("y", "math.nextafter", ["x1", "x2"])], ["y"])


KNOWN.append(KnownDivergence(
    13, "nextafter into the subnormals from normal inputs: TF keeps the subnormal result, reftape flushes it",
    _next_after_into_subnormals_program(),
    _never,  # a subnormal against a zero, below every tolerance; every later kernel reads both as zero
))


def _convolution_filter_target_program() -> Program:
    """A convolution's filter, unwatched by the outer tape, both target and source of its gradient, beside the
    inner tape's filter gradient (which the outer tape recorded through the watched input)."""
    return Program([Leaf("a", "constant", np.ones((1, 2, 2, 1), np.float32), "float32"),
                    Leaf("c", "constant", np.ones((1, 1, 1, 1), np.float32), "float32"),
                    Tape("t0", [Watch("t0", ["a"]),
                                Tape("t1", [Watch("t1", ["c"]), Op("y", "nn.conv2d", ["a", "c"],
                                                                   {"strides": 1, "padding": "VALID"})]),
                                Call("g", "t1", "gradient", "y", "c")]),
                    Call("h", "t0", "gradient", {"list": ["g", "c"]}, "c")], ["y"])


KNOWN.append(KnownDivergence(
    14, "a convolution filter that is both target and source of an outer tape that does not watch it, beside its "
        "inner filter gradient: TF's gradient is None, reftape's the identity (not explained)",
    _convolution_filter_target_program(),
    _never,  # unexplained: the generator met it once (CI profile, half precision); nothing is excused
))


def _indexed_slices_target_program() -> Program:
    """The outer tape t0 watches c11 and c20 only; its gradient of [g19, c15] with respect to c15, which it never
    watched: g19 is a gather's IndexedSlices gradient (of values c20) by g14, itself a gradient computed with
    c15 as output gradient."""
    def leaf(name: str, value: list) -> Leaf:
        return Leaf(name, "constant", np.array(value, np.float32), "float32")

    inner = [Watch("t1", ["c1", "c8"]), Op("y9", "multiply", ["c1", "c8"]), Watch("t0", ["c11"]),
             Op("y12", "multiply", ["y9", "c11"]), Call("g14", "t1", "gradient", "y12", "c8", output_gradients="c15"),
             Op("y17", "gather", ["g14"], {"indices": (0, 0, 0), "axis": 1}), Watch("t0", ["c20"]),
             Call("g19", "t1", "gradient", "y17", "g14", output_gradients="c20")]
    return Program([leaf("c1", [[-2.0]]), leaf("c8", [[0.5]]), leaf("c15", [[0.0]]), leaf("c11", [[1.5]]),
                    leaf("c20", [[1.0, 2.0, 3.0]]),
                    Tape("t0", [Tape("t1", inner, persistent=True)]),
                    Call("h", "t0", "gradient", {"list": ["g19", "c15"]}, "c15")], ["y17"])


KNOWN.append(KnownDivergence(
    15, "an output gradient that is both target and source of an outer tape that does not watch it, beside a "
        "gather's IndexedSlices gradient computed from it: TF's gradient is None, reftape's the identity (not explained)",
    _indexed_slices_target_program(),
    _never,  # unexplained, entry 14's kind: met once in a differential sample of gathers; nothing is excused
))


def explained_by(discrepancy: Discrepancy, evidence: Evidence | None = None) -> KnownDivergence | None:
    return next((k for k in KNOWN if not k.resolved and k.explains(discrepancy, evidence)), None)


def _onednn_product_of_opposite_infinities(d: Discrepancy, evidence: Evidence | None) -> bool:
    """Entry 16: a NaN pattern in a program of matrix products (catalog trait CONTRACTS, forward or gradient) that TF
    ran on oneDNN: at every element where the sides differ, TF's is an infinity and reftape's NaN."""
    if d.kind != "nan-inf-pattern" or evidence is None or not d.dtype or not tensorflow_ran_onednn(d.dtype, evidence):
        return False
    if not any(isinstance(s, Op) and has_trait(s.path, CONTRACTS) for s in walk(evidence.program.statements)):
        return False
    expected, actual = decode_array(d.expected), decode_array(d.actual)
    if expected.shape != actual.shape or expected.dtype.kind == "c":
        return False
    expected, actual = expected.astype(np.float64), actual.astype(np.float64)
    differ = _differing(expected, actual)
    return bool(np.any(differ) and np.all(np.isinf(expected[differ])) and np.all(np.isnan(actual[differ])))


KNOWN.append(KnownDivergence(
    16, "a matrix product of opposite infinite products under oneDNN: an infinity where IEEE gives NaN",
    Program([Leaf("a", "constant", np.array([[3.0e38, 3.0e38]], np.float32), "float32"),
             Leaf("b", "constant", np.array([[3.0e38], [-3.0e38]], np.float32), "float32"),
             Op("y", "matmul", ["a", "b"])], ["y"]),
    _onednn_product_of_opposite_infinities,
    dispatch="onednn",
))


def _row_stride_one_column_stride_more(op: Op) -> bool:
    """Whether a 2-D convolution's (row, column) strides, from its attributes, are (1, s > 1)."""
    strides = op.attrs.get("strides", 1)
    strides = [strides] if isinstance(strides, int) else list(strides)
    if len(strides) == 4:
        strides = strides[2:] if op.attrs.get("data_format", "NHWC") == "NCHW" else strides[1:3]
    return len(strides) == 2 and strides[0] == 1 and strides[1] > 1


def _onednn_bfloat16_convolution_of_unequal_strides(d: Discrepancy, evidence: Evidence | None) -> bool:
    """Entry 17: a bfloat16 value in a program holding a 2-D convolution of row stride 1 and column stride above 1
    that TF ran on oneDNN (its kernel reads other windows for some shapes with one input channel)."""
    if d.kind not in ("value", "nan-inf-pattern") or d.dtype != "bfloat16" or evidence is None:
        return False
    if not tensorflow_ran_onednn("bfloat16", evidence):
        return False
    return any(isinstance(s, Op) and has_trait(s.path, CONV2D_KERNEL) and _row_stride_one_column_stride_more(s)
               for s in walk(evidence.program.statements))


KNOWN.append(KnownDivergence(
    17, "a bfloat16 conv2d of row stride 1 and column stride above 1 under oneDNN: other windows read",
    Program([Leaf("x", "constant", np.array([-2.53125, -0.70703125, -0.18359375, -1.0234375, 2.921875, 2.921875,
                                             -1.6328125, -1.0078125, -0.92578125]).reshape(1, 3, 3, 1), "bfloat16"),
             Leaf("w", "constant", np.array([-0.181640625, -1.2890625, -1.3125, -2.9375, 1.1796875, -0.80078125, 0.0,
                                             -1.3828125]).reshape(2, 2, 1, 2), "bfloat16"),
             Op("y", "nn.conv2d", ["x", "w"], {"strides": [1, 2], "padding": "VALID"})], ["y"]),
    _onednn_bfloat16_convolution_of_unequal_strides,
    dispatch="onednn",
))


def _unreproducible_non_finite_under_onednn(d: Discrepancy, evidence: Evidence | None) -> bool:
    """Entry 18: a NaN pattern where TF, having run the dtype on oneDNN, is NaN or infinite at every element that
    differs and the candidate finite, and TF run again in a fresh process gives another outcome anywhere (its NaNs
    come and go from run to run: a second run may repeat some of them)."""
    if d.kind != "nan-inf-pattern" or evidence is None or evidence.fresh_expected is None or not d.dtype:
        return False
    if not tensorflow_ran_onednn(d.dtype, evidence):
        return False
    expected, actual = decode_array(d.expected), decode_array(d.actual)
    if expected.shape != actual.shape:
        return False
    differ = _differing(expected, actual)
    if not (np.any(differ) and np.all(~np.isfinite(expected[differ])) and np.all(np.isfinite(actual[differ]))):
        return False
    fresh = evidence.fresh_expected()
    if fresh.error != evidence.expected.error:   # the fresh run died or timed out: no evidence of TF's outcome
        return False
    return bool(compare(evidence.expected, fresh, evidence.program))


KNOWN.append(KnownDivergence(
    18, "a NaN of TF's oneDNN kernels that a fresh process does not compute",
    Program([Leaf("x", "constant", np.array([1.53125, -2.59375, 0.40625]).reshape(1, 1, 3, 1), "bfloat16"),
             Leaf("w", "constant", np.array([1.0078125, 1.0, 1.1015625]).reshape(1, 3, 1, 1), "bfloat16"),
             Tape("t", [Watch("t", ["w"]), Op("y", "nn.conv2d", ["x", "w"], {"strides": 2, "padding": "VALID"}),
                        Op("z", "nn.conv2d", ["y", "y"], {"strides": 1, "padding": "VALID"}),
                        Op("u", "nn.conv2d", ["z", "z"], {"strides": 2, "padding": "VALID"})]),
             Call("g", "t", "batch_jacobian", "u", "z")], ["u"]),
    _unreproducible_non_finite_under_onednn,
    dispatch="onednn",
    reproducible=False,
))
