"""Every reviewed divergence (KNOWN_DIVERGENCES.md) still reproduces: its minimal program gives
different outcomes on TensorFlow and reftape. An entry that stops reproducing must be removed
(together with any generator restriction it justifies)."""

import json

import numpy as np
import pytest

from reftape import dispatch
from reftape_oracle import run
from reftape_oracle.outcome import Outcome, decode_array
from reftape_oracle.program import Call, Leaf, Op, Program, Tape, Watch
from reftape_properties.pipeline import evaluate
from reftape_properties.judge.known import KNOWN


def test_known_divergences_are_numbered_like_the_document():
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "KNOWN_DIVERGENCES.md").read_text()
    assert [k.number for k in KNOWN] == list(range(1, len(KNOWN) + 1))
    for known in KNOWN:
        assert f"## {known.number}. " in text


def _reproduction(number: int) -> dict:
    """Entry `number`'s program on TF and reftape in this process: whether the outcomes differ, each
    side's error and each side's oneDNN decision."""
    known = next(k for k in KNOWN if k.number == number)
    expected, actual = run(known.program, "tensorflow"), run(known.program, "reftape")
    same = json.dumps(expected.observed(), sort_keys=True) == json.dumps(actual.observed(), sort_keys=True)
    return {"differs": not same, "errors": [expected.error, actual.error],
            "onednn": [expected.environment["onednn"], actual.environment["onednn"]]}


_REPRODUCE_IN_A_FRESH_PROCESS = ("import json, sys; from test_known_divergences import _reproduction; "
                                 "print(json.dumps(_reproduction(int(sys.argv[1]))))")


def _reproduction_with_onednn(number: int, setting: str) -> dict:
    """`_reproduction` in a fresh process with TF_ENABLE_ONEDNN_OPTS=`setting` (TF reads it once, at start)."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    done = subprocess.run([sys.executable, "-c", _REPRODUCE_IN_A_FRESH_PROCESS, str(number)], capture_output=True,
                          text=True, timeout=600, cwd=Path(__file__).parent,
                          env={**os.environ, "TF_ENABLE_ONEDNN_OPTS": setting, "TF_CPP_MIN_LOG_LEVEL": "3"})
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.splitlines()[-1])


@pytest.mark.parametrize("known", [k for k in KNOWN if k.dispatch is None and not k.resolved], ids=lambda k: f"{k.number}")
def test_known_divergence_still_reproduces(known):
    found = _reproduction(known.number)
    assert found["errors"] == [None, None]
    assert found["differs"], f"known divergence {known.number} ({known.title}) no longer reproduces: mark it resolved"


@pytest.mark.parametrize("known", [k for k in KNOWN if k.resolved], ids=lambda k: f"{k.number}")
def test_resolved_divergence_stays_resolved(known):
    found = _reproduction(known.number)
    assert found["errors"] == [None, None]
    assert not found["differs"], f"resolved divergence {known.number} ({known.title}) is back"


def test_resolved_entries_are_marked_in_the_document():
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "KNOWN_DIVERGENCES.md").read_text()
    for known in KNOWN:
        assert (f"## {known.number}. (resolved) " in text) == bool(known.resolved), known.number


@pytest.mark.parametrize("known", [k for k in KNOWN if k.dispatch == "onednn" and k.reproducible],
                         ids=lambda k: f"{k.number}")
def test_onednn_divergence_reproduces_with_onednn_only(known):
    """An entry that holds under oneDNN reproduces where both sides decided oneDNN is on, and not where
    both decided it off (there reftape follows TF's Eigen kernels)."""
    with_onednn, without = _reproduction_with_onednn(known.number, "1"), _reproduction_with_onednn(known.number, "0")
    assert without["onednn"] == ["off", "off"] and without["errors"] == [None, None]
    assert not without["differs"], f"known divergence {known.number} reproduces without oneDNN: widen its dispatch"
    if with_onednn["onednn"] == ["off", "off"]:
        pytest.skip("TF on this platform has no oneDNN to turn on")
    dtypes = {s.dtype for s in known.program.statements if isinstance(s, Leaf)}
    if not all(dispatch.supports_dtype(dtype, dispatch.cpu_features()) for dtype in dtypes):
        pytest.skip(f"oneDNN runs none of {sorted(dtypes)} on this CPU")
    assert with_onednn["onednn"] == ["on", "on"] and with_onednn["errors"] == [None, None]
    assert with_onednn["differs"], f"known divergence {known.number} ({known.title}) no longer reproduces: mark it resolved"


def test_softmax_cross_entropy_second_order_in_labels_still_reproduces():
    """Entry 1's second order: an outer tape differentiates the inner logits gradient with respect to
    labels on the simplex (the op's contract, where the first orders agree). TF with op determinism (the
    oracle) gives the exact derivative of its composite, sum(w * softmax) - w per element; reftape gives
    0, as TF's default kernel does. Found by a random run where the generator offered labels (a Variable
    both tapes watched) as an unconnected source to the outer tape (test_strategies now guards that)."""
    labels, logits = np.array([[0.1, 0.7, 0.2]]), np.array([[0.6, 0.3, 0.1]])
    w = np.array([[0.0, 1.0, -2.0]])
    program = Program([
        Leaf("labels", "variable", labels, "float64"),
        Leaf("logits", "constant", logits, "float64"),
        Leaf("w", "constant", w, "float64"),
        Tape("outer", [Tape("inner", [Watch("inner", ["logits"]),
                                      Op("loss", "nn.softmax_cross_entropy_with_logits", ["labels", "logits"])]),
                       Call("g", "inner", "gradient", "loss", "logits")]),
        Call("gg", "outer", "gradient", "g", "labels", "w"),
    ], [])
    expected, actual = run(program, "tensorflow"), run(program, "reftape")
    assert expected.error is None and actual.error is None
    softmax = np.exp(logits) / np.exp(logits).sum()
    assert np.array_equal(decode_array(expected.calls["g"]), decode_array(actual.calls["g"]))  # first order agrees
    assert np.allclose(decode_array(expected.calls["gg"]), (w * softmax).sum() - w, rtol=1e-12)
    assert np.array_equal(decode_array(actual.calls["gg"]), np.zeros_like(w))


def test_half_accumulation_entry_explains_only_float16_infinities_of_tensorflow():
    from reftape_properties.judge.compare import Discrepancy
    from reftape_properties.judge.known import Evidence, explained_by

    def one(value, dtype="float16"):  # a discrepancy holds the two sides' descriptions
        return {"kind": "tensor", "dtype": dtype, "shape": [1], "data": [float(value).hex()]}

    inf, finite = float("inf"), 40000.0
    long_sum = Evidence(next(k for k in KNOWN if k.number == 4).program, None, None, "reftape")
    short = Program([Leaf("x", "constant", np.array([40000.0, 40000.0, -40000.0], np.float16), "float16"),
                     Op("total", "reduce_sum", ["x"])], ["total"])
    overflow = Discrepancy("nan-inf-pattern", "values/y", one(inf), one(finite), dtype="float16")
    assert explained_by(overflow, long_sum).number == 4
    # sums of at most 63 terms reftape adds in TF's order: an overflow there is a bug, not this entry
    assert explained_by(overflow, Evidence(short, None, None, "reftape")) is None
    assert explained_by(overflow) is None
    assert explained_by(Discrepancy("nan-inf-pattern", "values/y", one(finite), one(inf), dtype="float16"),
                        long_sum) is None
    assert explained_by(Discrepancy("nan-inf-pattern", "values/y", one(inf, "float32"), one(finite, "float32"),
                                    dtype="float32"), long_sum) is None
    assert explained_by(Discrepancy("value", "values/y", one(finite), one(1.0), dtype="float16"), long_sum) is None



def test_product_order_entry_explains_only_zeros_infinities_and_nans_of_reduce_prod():
    from reftape_properties.judge.compare import Discrepancy
    from reftape_properties.judge.known import Evidence, explained_by

    def values(*data):
        return {"kind": "tensor", "dtype": "float32", "shape": [len(data)], "data": [float(v).hex() for v in data]}

    program = next(k for k in KNOWN if k.number == 8).program
    prod = Evidence(program, None, None, "reftape")
    nan, inf = float("nan"), float("inf")
    assert explained_by(Discrepancy("nan-inf-pattern", "values/p", values(nan), values(-0.0), dtype="float32"),
                        prod).number == 8
    assert explained_by(Discrepancy("nan-inf-pattern", "values/p", values(-inf), values(nan), dtype="float32"),
                        prod).number == 8
    # a NaN where TF's product is an ordinary number is a bug, as is the same pattern in another op
    assert explained_by(Discrepancy("nan-inf-pattern", "values/p", values(2.5), values(nan), dtype="float32"),
                        prod) is None
    renamed = Program([*program.statements[:2], Op("p", "reduce_sum", ["x"]), program.statements[3]], ["p", "q"])
    assert explained_by(Discrepancy("nan-inf-pattern", "values/p", values(nan), values(-0.0), dtype="float32"),
                        Evidence(renamed, None, None, "reftape")) is None


def test_softmax_entry_explains_only_zeros_of_tensorflow_against_nans_of_reftape():
    from reftape_properties.judge.compare import Discrepancy
    from reftape_properties.judge.known import Evidence, explained_by

    def values(*data, dtype="float32"):
        return {"kind": "tensor", "dtype": dtype, "shape": [len(data)], "data": [float(v).hex() for v in data]}

    program = next(k for k in KNOWN if k.number == 11).program
    softmax = Evidence(program, Outcome("tensorflow", environment={"onednn": "on", "cpu_flags": []}), None, "reftape")
    nan = float("nan")
    assert explained_by(Discrepancy("nan-inf-pattern", "values/s", values(0.0, nan, 0.0), values(nan, nan, nan),
                                    dtype="float32"), softmax).number == 11
    # only where TF ran the dtype on oneDNN: not with oneDNN off, nor bfloat16 on a CPU without AVX512F
    eigen = Evidence(program, Outcome("tensorflow", environment={"onednn": "off", "cpu_flags": ["avx512f"]}), None,
                     "reftape")
    assert explained_by(Discrepancy("nan-inf-pattern", "values/s", values(0.0, nan, 0.0), values(nan, nan, nan),
                                    dtype="float32"), eigen) is None
    bfloat16 = Discrepancy("nan-inf-pattern", "values/t", values(nan, 0.0, 0.0, dtype="bfloat16"),
                           values(nan, nan, nan, dtype="bfloat16"), dtype="bfloat16")
    assert explained_by(bfloat16, softmax) is None
    avx512 = Evidence(program, Outcome("tensorflow", environment={"onednn": "on", "cpu_flags": ["avx2", "avx512f"]}),
                      None, "reftape")
    assert explained_by(bfloat16, avx512).number == 11
    # a NaN where TF's softmax is positive is a bug, as are the same zeros in float64 or in another op
    assert explained_by(Discrepancy("nan-inf-pattern", "values/s", values(0.25, nan, 0.0), values(nan, nan, nan),
                                    dtype="float32"), softmax) is None
    assert explained_by(Discrepancy("nan-inf-pattern", "values/s", values(0.0, nan, dtype="float64"),
                                    values(nan, nan, dtype="float64"), dtype="float64"), softmax) is None
    renamed = Program([*program.statements[:2], Op("s", "nn.log_softmax", ["x"]), program.statements[3]], ["s", "t"])
    assert explained_by(Discrepancy("nan-inf-pattern", "values/s", values(0.0, nan, 0.0), values(nan, nan, nan),
                                    dtype="float32"), Evidence(renamed, None, None, "reftape")) is None


def test_matrix_product_entry_explains_only_infinities_of_tensorflow_against_nans_of_reftape():
    from reftape_properties.judge.compare import Discrepancy
    from reftape_properties.judge.known import Evidence, explained_by

    def values(*data):
        return {"kind": "tensor", "dtype": "float32", "shape": [len(data)], "data": [float(v).hex() for v in data]}

    program = next(k for k in KNOWN if k.number == 16).program
    on = Evidence(program, Outcome("tensorflow", environment={"onednn": "on", "cpu_flags": []}), None, "reftape")
    off = Evidence(program, Outcome("tensorflow", environment={"onednn": "off", "cpu_flags": []}), None, "reftape")
    inf, nan = float("inf"), float("nan")
    assert explained_by(Discrepancy("nan-inf-pattern", "values/y", values(inf, 1.0), values(nan, 1.0),
                                    dtype="float32"), on).number == 16
    assert explained_by(Discrepancy("nan-inf-pattern", "values/y", values(-inf), values(nan), dtype="float32"),
                        off) is None   # only where TF ran oneDNN
    # reftape's infinity against TF's NaN, a finite value of either, or no matrix product in the program: bugs
    for expected, actual in ((nan, inf), (1.0, nan), (inf, 1.0)):
        assert explained_by(Discrepancy("nan-inf-pattern", "values/y", values(expected), values(actual),
                                        dtype="float32"), on) is None
    without = Program([*program.statements[:2], Op("y", "add", ["a", "a"])], ["y"])
    assert explained_by(Discrepancy("nan-inf-pattern", "values/y", values(inf), values(nan), dtype="float32"),
                        Evidence(without, on.expected, None, "reftape")) is None


def test_a_wrong_comparison_is_not_excused_as_rounding():
    """Planted: a strict less_equal. On entry 6's program (explained on reftape: test_findings) the flip
    is then not the reciprocal's rounding: run on TF's inputs, the candidate's comparison still differs."""
    program = next(k for k in KNOWN if k.number == 6).program
    finding = evaluate(program, "wrong_comparison_backend", judge=False)
    assert finding is not None and [d.where for d in finding.unexplained] == ["values/below"]

def test_a_comparison_of_identical_inputs_is_never_excused():
    """Planted: a strict less_equal on inputs both sides hold bit for bit (leaves): nothing to excuse."""
    program = Program([Leaf("x", "constant", np.array([1.0, 2.0], np.float32), "float32"),
                       Op("below", "math.less_equal", ["x", "x"])], ["below"])
    finding = evaluate(program, "wrong_comparison_backend", judge=False)
    assert finding is not None and [d.known for d in finding.discrepancies] == [None]


def test_complex_parts_read_as_zero_are_explained_by_entry_2():
    """tf.complex of subnormal floats builds a pole like 0j, which TF's kernels and reftape treat
    differently (KNOWN_DIVERGENCES 2): the log's inf/NaN pattern differs and only entry 2 explains it."""
    program = Program([Leaf("re", "constant", np.full(4, 1e-39, np.float32), "float32"),
                       Leaf("im", "constant", np.zeros(4, np.float32), "float32"),
                       Op("z", "complex", ["re", "im"]), Op("y", "math.log", ["z"])], ["y"])
    finding = evaluate(program, "reftape", judge=False)
    assert finding is not None and [(d.kind, d.known) for d in finding.discrepancies] == [("nan-inf-pattern", 2)]


def test_a_complex_pow_pattern_is_not_excused_but_its_gradient_is():
    """Complex pow's forward is TF's cpow in reftape (entry 2 no longer covers it): a planted pow that
    gives NumPy's 1 for 0j ** 0j is not explained, while the gradient at a zero base, which parts through
    TF's scalar-loop complex multiplication, still is."""
    from reftape_properties.judge.compare import Discrepancy
    from reftape_properties.judge.known import Evidence, explained_by

    def one(value):
        return {"kind": "tensor", "dtype": "complex64", "shape": [1], "data": [[value.real.hex(), value.imag.hex()]]}

    program = Program([Leaf("x", "constant", np.zeros(1, np.complex64), "complex64"), Op("y", "pow", ["x", "x"])], ["y"])
    outcome = run(program, "tensorflow")
    evidence = Evidence(program, outcome, outcome, "reftape")
    nan = complex(float("nan"), float("nan"))
    forward = Discrepancy("nan-inf-pattern", "values/y", one(nan), one(1 + 0j), dtype="complex64")
    assert explained_by(forward, evidence) is None
    assert explained_by(Discrepancy("nan-inf-pattern", "calls/g[0]", one(complex(float("inf"), float("nan"))), one(nan),
                                    dtype="complex64"), evidence).number == 2


def test_indexed_slices_in_another_order_are_excused_only_with_the_same_parts():
    """Entry 10: reftape's IndexedSlices gradient holds TF's parts in another order. A part changed (a row
    off by one ulp, or another index) is not excused."""
    import copy

    from reftape_properties.judge.known import Evidence, explained_by

    program = next(k for k in KNOWN if k.number == 10).program
    finding = evaluate(program, "reftape", judge=False)
    assert finding is not None and {d.known for d in finding.discrepancies} == {10}

    def next_float32(text: str) -> str:
        return float(np.nextafter(np.float32(float.fromhex(text)), np.float32(np.inf))).hex()

    for part, change in (("values", lambda data: [next_float32(data[0])] + data[1:]),
                         ("indices", lambda data: [data[1], data[1]])):
        altered = copy.deepcopy(finding.actual)
        altered.calls["g"][part]["data"] = change(altered.calls["g"][part]["data"])
        evidence = Evidence(program, finding.expected, altered, "reftape")
        assert all(explained_by(d, evidence) is None for d in finding.discrepancies if d.where == f"calls/g.{part}")


def test_default_kernel_entry_is_checked_by_rerunning_tensorflow_without_determinism():
    """Entry 12 explains the pattern only where TF's default kernels (a fresh process without op
    determinism) give the candidate's answer: reftape's -inf is explained, a planted +inf is not."""
    from reftape_properties.judge.compare import compare
    from reftape_properties.judge.known import Evidence, explained_by

    program = KNOWN[11].program
    expected, actual = run(program, "tensorflow"), run(program, "reftape")
    (found,) = compare(expected, actual, program)
    assert found.kind == "nan-inf-pattern" and explained_by(found, Evidence(program, expected, actual, "reftape")).number == 12
    planted = json.loads(json.dumps(actual.observed()))
    planted["calls"]["g"]["data"][4] = "inf"    # TF's default kernel gives -inf there
    wrong = type(actual)("reftape", values=planted["values"], calls=planted["calls"], error=planted["error"])
    (found,) = compare(expected, wrong, program)
    assert explained_by(found, Evidence(program, expected, wrong, "reftape")) is None


def test_vectorized_jacobian_of_an_explicitly_padded_conv2d_filter_still_fails_in_tensorflow():
    """KNOWN_DIVERGENCES.md ("Outside the program language"): TF's pfor rebuilds Conv2DBackpropFilter without its
    explicit paddings, so a vectorized jacobian that needs a conv2d filter's gradient fails; reftape computes it
    (the generator draws no explicit conv2d padding). Once TF computes it, the entry and that restriction go."""
    import reftape
    import tensorflow as tf

    outcomes = []
    for ns in (tf, reftape):
        x = ns.reshape(ns.sin(ns.range(12.0)), [1, 3, 2, 2])
        w = ns.reshape(ns.cos(ns.range(8.0)), [2, 1, 2, 2])
        with ns.GradientTape() as t:
            t.watch(w)
            y = ns.nn.conv2d(x, w, 1, [[0, 0], [1, 0], [0, 1], [0, 0]])
        try:
            outcomes.append(t.jacobian(y, w).numpy())
        except Exception as error:  # noqa: BLE001 - TF's failure is the divergence
            outcomes.append(type(error).__name__)
    assert outcomes[0] == "InvalidArgumentError", "TF computes it now: retire the entry and the generator's restriction"
    assert outcomes[1].shape == (1, 3, 3, 2, 2, 1, 2, 2)
    with tf.GradientTape(persistent=True) as t:  # the same jacobian unvectorized: TF's values, which reftape's vectorized one matches
        w = tf.reshape(tf.cos(tf.range(8.0)), [2, 1, 2, 2])
        t.watch(w)
        y = tf.nn.conv2d(tf.reshape(tf.sin(tf.range(12.0)), [1, 3, 2, 2]), w, 1, [[0, 0], [1, 0], [0, 1], [0, 0]])
    from reftape_properties.judge.tolerance import Tolerance, compare_arrays

    unvectorized = t.jacobian(y, w, experimental_use_pfor=False).numpy()
    assert compare_arrays(unvectorized, outcomes[1], Tolerance.for_dtype(np.float32, gradient=True)) is None


@pytest.mark.parametrize("method,antialias", [("bicubic", False), ("area", False), ("lanczos3", False),
                                              ("lanczos5", False), ("gaussian", False), ("mitchellcubic", False),
                                              ("bilinear", True)])
def test_resize_by_a_method_reftape_lacks_still_computes_in_tensorflow(method, antialias):
    """KNOWN_DIVERGENCES.md ("Outside the program language"): TF resizes by these methods, reftape refuses them
    (NotImplementedError). Once reftape computes one, it leaves this list for the catalog's methods."""
    import reftape
    import tensorflow as tf

    image = np.linspace(-1.0, 2.0, 8).reshape(1, 2, 2, 2)
    assert tf.image.resize(tf.constant(image), [3, 3], method=method, antialias=antialias).shape == (1, 3, 3, 2)
    with pytest.raises(NotImplementedError):
        reftape.image.resize(reftape.constant(image), [3, 3], method=method, antialias=antialias)


def test_bfloat16_convolution_entry_explains_only_unequal_strides_that_tensorflow_ran_on_onednn():
    from reftape_properties.judge.compare import Discrepancy
    from reftape_properties.judge.known import Evidence, explained_by

    program = next(k for k in KNOWN if k.number == 17).program
    x, w, convolution = program.statements
    on = Outcome("tensorflow", environment={"onednn": "on", "cpu_flags": ["avx512_bf16", "avx512f", "avx512bw",
                                                                           "avx512vl", "avx512dq", "avx2"]})
    off = Outcome("tensorflow", environment={"onednn": "off", "cpu_flags": on.environment["cpu_flags"]})
    value = {"kind": "tensor", "dtype": "bfloat16", "shape": [1], "data": [float(1.5).hex()]}

    def explained(strides, dtype="bfloat16", expected=on, path="nn.conv2d", data_format="NHWC"):
        attrs = {"strides": strides, "padding": "VALID", "data_format": data_format}
        changed = Program([x, w, Op("y", path, ["x", "w"], attrs)], ["y"])
        d = Discrepancy("value", "values/y", value, value, dtype=dtype)
        known = explained_by(d, Evidence(changed, expected, None, "reftape"))
        return known is not None and known.number == 17

    assert explained([1, 2]) and explained([1, 1, 3, 1]) and explained([1, 1, 1, 2], data_format="NCHW")
    assert explained([1, 2], path="nn.convolution")
    assert not explained([1, 2], expected=off)          # TF ran Eigen: a bug
    assert not explained([1, 2], dtype="float32")       # oneDNN's float32 kernel reads the right windows
    for strides in ([2, 1], [2, 2], 2, [1, 1, 1, 1]):
        assert not explained(strides)
    assert not explained([1, 2], path="nn.conv1d")
    assert convolution.attrs["strides"] == [1, 2]


def test_a_non_finite_tensorflow_result_is_excused_only_where_a_fresh_process_computes_another():
    """Entry 18 with real TF in fresh processes: TF's recorded NaNs where the fresh run is finite (the oneDNN
    state the entry describes, planted in the recorded outcome of a program TF computes the same every time) are
    excused; a NaN TF computes every time (log of a negative number, against a planted finite candidate) is not."""
    import dataclasses

    from reftape_properties.pipeline import _in_a_fresh_process
    from reftape_properties.judge.compare import compare
    from reftape_properties.judge.known import Evidence, explained_by

    bfloat16_on_onednn = {"onednn": "on", "cpu_flags": ["avx512_bf16", "avx512f", "avx512bw", "avx512vl", "avx512dq"]}

    def planted(outcome, where, value):
        observed = json.loads(json.dumps(outcome.observed()))
        section, name = where.split("/")
        observed[section][name]["data"] = [value]
        return dataclasses.replace(outcome, values=observed["values"], calls=observed["calls"],
                                   environment={**outcome.environment, **bfloat16_on_onednn})

    # a program whose outcome TF repeats (entry 18's own program does not, so it cannot stand for a first run here)
    flaky = Program([Leaf("x", "constant", np.array([0.5, 2.0]), "bfloat16"), Op("y", "math.sin", ["x"])], ["y"])
    recorded = planted(run(flaky, "tensorflow"), "values/y", "nan")
    recorded.values["y"]["data"] = ["nan", "nan"]
    candidate = run(flaky, "reftape")
    (d,) = compare(recorded, candidate, flaky)
    evidence = Evidence(flaky, recorded, candidate, "reftape", _in_a_fresh_process(flaky, "tensorflow", None))
    assert explained_by(d, evidence).number == 18
    crashed = Outcome("tensorflow", error={"kind": "crash", "message": "killed by SIGSEGV"})
    assert explained_by(d, dataclasses.replace(evidence, fresh_expected=lambda: crashed)) is None   # no second outcome

    steady = Program([Leaf("x", "constant", np.array([-1.0]), "bfloat16"), Op("y", "math.log", ["x"])], ["y"])
    recorded = planted(run(steady, "tensorflow"), "values/y", "nan")   # TF's own NaN, with the oneDNN environment
    candidate = planted(run(steady, "reftape"), "values/y", float(0.5).hex())
    (d,) = compare(recorded, candidate, steady)
    assert explained_by(d, Evidence(steady, recorded, candidate, "reftape",
                                    _in_a_fresh_process(steady, "tensorflow", None))) is None
    assert explained_by(d, Evidence(flaky, recorded, candidate, "reftape")) is None   # no fresh run: never excused
