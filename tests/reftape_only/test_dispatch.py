"""reftape follows TF's kernel dispatch: oneDNN on or off, decided as TF decides it (reftape/dispatch.py).

TF reads TF_ENABLE_ONEDNN_OPTS once per process, so every check that needs a setting runs in a fresh
process (this module, imported from its folder, with the variable set). The cases are those where TF's two
dispatches were measured to differ (TF 2.21, TF_ENABLE_ONEDNN_OPTS=0 against =1, every test_ops case,
second-order case, special point and edge snippet): softmax's ranks, scalars and non-finite rows, and the
rounding of float32 softmax and of matmul-based forwards and gradients (matvec, inv, cholesky, logdet).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from reftape import dispatch
from reftape_oracle.program import Call, Leaf, Op, Program, Tape, Watch

SOFTMAX_DTYPES = ("float16", "bfloat16", "float32", "float64")
NO_ID = ("", "")
SETTINGS = ("unset", "0", "1", "TRUE", "False", "yes")   # "yes" is neither: TF keeps its default


def _fresh_process(code: str, setting: str, *args: str) -> dict:
    """Runs `code` (which prints one JSON line last) in a new interpreter with TF_ENABLE_ONEDNN_OPTS set
    to `setting` ("unset": removed), from its folder so that it can import this module."""
    env = {k: v for k, v in os.environ.items() if k != dispatch.ENV_VAR}
    if setting != "unset":
        env[dispatch.ENV_VAR] = setting
    env["TF_CPP_MIN_LOG_LEVEL"] = "3"
    done = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=900,
                          cwd=Path(__file__).parent, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.splitlines()[-1])


# --- the rule, from TF's source (tensorflow/core/util/port.cc, util.cc, env_var.cc) -------------------

@pytest.mark.parametrize("value,expected", [(None, "default"), ("0", False), ("false", False), ("FALSE", False),
                                            ("1", True), ("true", True), ("True", True), ("", "default"),
                                            ("yes", "default"), ("2", "default"), (" 1", "default")])
@pytest.mark.parametrize("default", [False, True])
def test_the_variable_is_read_as_tf_reads_a_bool(value, expected, default):
    assert dispatch.parse_bool_env(value, default) is (default if expected == "default" else expected)


@pytest.mark.parametrize("features,expected", [
    ({"avx", "avx2", "fma"}, False), ({"avx512f", "avx512bw", "avx512vl"}, False), ({"avx512_vnni"}, True),
    ({"avx512_bf16"}, True), ({"avx_vnni"}, True), ({"amx_tile"}, True), ({"amx_int8"}, True), ({"amx_bf16"}, True)])
def test_linux_x86_defaults_to_onednn_only_with_neural_network_features(features, expected):
    assert dispatch.decide("linux", "x86_64", frozenset(features), NO_ID, None) is expected
    assert dispatch.decide("linux", "x86_64", frozenset(features), NO_ID, "0") is False
    assert dispatch.decide("linux", "x86_64", frozenset(features), NO_ID, "1") is True


def test_other_platforms_follow_their_builds():
    assert dispatch.decide("linux", "aarch64", frozenset(), ("0x41", "0xd40"), None) is True    # Neoverse V1
    assert dispatch.decide("linux", "aarch64", frozenset(), ("0x41", "0xd0c"), None) is False   # Neoverse N1
    assert dispatch.decide("win32", "AMD64", frozenset(), NO_ID, None) is True
    assert dispatch.decide("win32", "AMD64", frozenset(), NO_ID, "false") is False
    assert dispatch.decide("linux", "aarch64", frozenset(), ("0x41", "0xd0c"), "1") is True
    assert dispatch.decide("darwin", "arm64", frozenset({"avx512_vnni"}), NO_ID, "1") is False  # built without oneDNN
    assert dispatch.decide("linux", "ppc64le", frozenset(), NO_ID, "true") is False


@pytest.mark.parametrize("dtype,features,expected", [
    ("float32", set(), True), ("float64", {"avx512f", "avx512bw", "avx512_fp16"}, False),
    ("bfloat16", {"avx2"}, False), ("bfloat16", {"avx512f"}, True), ("bfloat16", {"avx_ne_convert"}, True),
    ("float16", {"avx512f", "avx512bw"}, False), ("float16", {"avx512bw", "avx512_fp16"}, True),
    ("float16", {"avx512_fp16"}, False), ("float16", {"avx512bw", "amx_fp16"}, True),
    ("float16", {"avx512bw", "avx_ne_convert"}, True)])
def test_onednn_runs_a_dtype_only_with_the_cpu_features_it_needs(dtype, features, expected):
    assert dispatch.supports_dtype(dtype, frozenset(features)) is expected


def test_cpuinfo_is_read_for_the_first_processor():
    text = ("processor\t: 0\nflags\t\t: fpu avx2 avx512_vnni\n\nprocessor\t: 1\nflags\t\t: fpu\n")
    assert dispatch._cpuinfo_fields(text)["flags"].split() == ["fpu", "avx2", "avx512_vnni"]
    arm = "processor\t: 0\nFeatures\t: fp asimd\nCPU implementer\t: 0x41\nCPU part\t: 0xd40\n"
    assert (dispatch._cpuinfo_fields(arm)["CPU implementer"], dispatch._cpuinfo_fields(arm)["CPU part"]) == \
        ("0x41", "0xd40")


# --- (a) the decision is TF's on this machine -----------------------------------------------------------

_DECISIONS = ("import json; from tensorflow.python.util import _pywrap_util_port; from reftape import dispatch; "
              "print(json.dumps([bool(_pywrap_util_port.IsMklEnabled()), dispatch.onednn_enabled()]))")


@pytest.mark.parametrize("setting", SETTINGS)
def test_reftapes_decision_is_tensorflows(setting):
    tensorflows, reftapes = _fresh_process(_DECISIONS, setting)
    assert reftapes == tensorflows


def test_the_decision_is_taken_once_per_process():
    code = ("import json, os; from reftape import dispatch; first = dispatch.onednn_enabled(); "
            "os.environ[dispatch.ENV_VAR] = str(int(not first)); print(json.dumps([first, dispatch.onednn_enabled()]))")
    first, later = _fresh_process(code, "0")
    assert first is False and later is False


# --- (b) the cases where TF's dispatches differ agree under both -----------------------------------------

def _leaf(name: str, values: np.ndarray, dtype: str) -> Leaf:
    return Leaf(name, "constant", np.asarray(values, np.float64 if dtype == "float64" else np.float32), dtype)


def _forward(path: str, values: np.ndarray, dtype: str) -> Program:
    return Program([_leaf("x", values, dtype), Op("y", path, ["x"])], ["y"])


def _with_gradient(path: str, inputs: list, output_shape: tuple, dtype: str, attrs: dict | None = None) -> Program:
    """y = path(inputs), and the gradient of y * w (w fixed, random) with respect to every input."""
    rng = np.random.default_rng(sum(output_shape) + len(path))
    names = [f"x{i}" for i in range(len(inputs))]
    leaves = [_leaf(name, values, dtype) for name, values in zip(names, inputs)]
    weights = _leaf("w", rng.uniform(-2.0, 2.0, output_shape), dtype)
    body = [Watch("t", names), Op("y", path, names, attrs or {}), Op("z", "multiply", ["y", "w"])]
    return Program([*leaves, weights, Tape("t", body), Call("g", "t", "gradient", "z", {"list": names})], ["y"])


def _spd(rng, batch: int, n: int) -> np.ndarray:
    a = rng.uniform(-1.0, 1.0, (batch, n, n))
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


def dispatch_cases() -> dict[str, Program]:
    """Every case where TF's oneDNN and Eigen dispatches were measured to differ, by name."""
    rng = np.random.default_rng(20)
    cases: dict[str, Program] = {}
    for dtype in SOFTMAX_DTYPES:
        for path in ("nn.softmax", "nn.log_softmax"):
            cases[f"{path} scalar {dtype}"] = _forward(path, np.float32(2.0), dtype)
            for rank in (5, 6):
                shape = (1,) * (rank - 2) + (2, 3)
                cases[f"{path} rank {rank} {dtype}"] = _with_gradient(path, [rng.uniform(-3, 3, shape)], shape, dtype)
            for row in ([1.0, np.nan, 2.0], [np.inf, 1.0, 2.0], [1.0, np.inf, np.inf, 0.5] * 2 + [np.nan]):
                cases[f"{path} of {row} {dtype}"] = _forward(path, np.array(row), dtype)
            cases[f"{path} with -inf {dtype}"] = _with_gradient(path, [np.array([[1.0, -np.inf, 2.0]])], (1, 3), dtype)
            cases[f"{path} rows {dtype}"] = _with_gradient(path, [rng.uniform(-3, 3, (3, 17))], (3, 17), dtype)
    large = rng.uniform(-3, 3, (4, 8, 8, 40))   # oneDNN's softmax gradient parts from Eigen's by 1041 ulps here
    cases["nn.softmax large float32"] = _with_gradient("nn.softmax", [large], large.shape, "float32")
    cases["linalg.matvec large float32"] = _with_gradient(   # 112 ulps apart
        "linalg.matvec", [rng.uniform(-2, 2, (33, 70)), rng.uniform(-2, 2, 70)], (33,), "float32")
    cases["matmul float32"] = _with_gradient("matmul", [rng.uniform(-2, 2, (3, 4)), rng.uniform(-2, 2, (4, 5))], (3, 5),
                                             "float32")
    cases["linalg.matvec float32"] = _with_gradient("linalg.matvec", [rng.uniform(-2, 2, (3, 4)), rng.uniform(-2, 2, 4)],
                                                    (3,), "float32")
    for adjoint in (False, True):
        cases[f"linalg.inv adjoint={adjoint} float32"] = _with_gradient(
            "linalg.inv", [_spd(rng, 3, 4) - 2.5 * np.eye(4)], (3, 4, 4), "float32", {"adjoint": adjoint})
    cases["linalg.cholesky float32"] = _with_gradient("linalg.cholesky", [_spd(rng, 3, 4)], (3, 4, 4), "float32")
    cases["linalg.logdet float32"] = _with_gradient("linalg.logdet", [_spd(rng, 3, 4)], (3,), "float32")
    return cases


def unexplained_disagreements(planted: bool) -> dict:
    """Every dispatch case on TF and reftape in this process: the decisions of both and, by case, the
    discrepancies no known divergence explains. `planted`: reftape's decision forced to the wrong one."""
    from reftape_oracle.tensorflow import onednn_enabled as tensorflows_decision
    from reftape_properties.pipeline import evaluate

    if planted:
        wrong = not dispatch.onednn_enabled()
        dispatch.onednn_enabled = lambda: wrong
    unexplained = {}
    for name, program in dispatch_cases().items():
        finding = evaluate(program, "reftape", judge=False)
        found = [d.summary() for d in (finding.discrepancies if finding else []) if d.known is None]
        if found:
            unexplained[name] = found
    return {"tensorflow": tensorflows_decision(), "reftape": dispatch.onednn_enabled(), "unexplained": unexplained}


_RUN_CASES = ("import json, sys; from test_dispatch import unexplained_disagreements; "
              "print(json.dumps(unexplained_disagreements(sys.argv[1] == 'planted')))")


@pytest.mark.parametrize("setting", ["0", "1"])
def test_dispatch_dependent_cases_agree_with_tensorflow(setting):
    found = _fresh_process(_RUN_CASES, setting, "faithful")
    assert found["reftape"] == found["tensorflow"]
    assert found["unexplained"] == {}


# --- (c) a planted fault: reftape with the decision forced wrong -----------------------------------------

@pytest.mark.parametrize("setting", ["0", "1"])
def test_a_wrong_decision_is_caught(setting):
    found = _fresh_process(_RUN_CASES, setting, "planted")
    if found["tensorflow"] == (setting == "0"):
        pytest.skip("TF ignores TF_ENABLE_ONEDNN_OPTS on this platform")
    assert found["reftape"] != found["tensorflow"]
    # float32 softmax of rank 6 and of a scalar raise one error class under oneDNN, another (or none) under Eigen
    assert {"nn.softmax scalar float32", "nn.softmax rank 6 float32"} <= set(found["unexplained"])


# --- the record: every outcome's environment, and the report ------------------------------------------

def test_outcomes_record_each_sides_own_decision_and_the_report_shows_them(tmp_path):
    """A real finding (TF against tests/backends/wrong_vjp_backend.py, which doubles sin's derivative) records
    TF's IsMklEnabled and reftape's decision; the page shows both and the repro script sets TF's. A planted
    record that is no decision shows as such, and the repro sets nothing."""
    import re

    from reftape_oracle.tensorflow import onednn_enabled as tensorflows_decision
    from reftape_properties.pipeline import evaluate
    from reftape_properties.findings.store import record_finding
    from reftape_reports import render

    program = Program([Leaf("x", "constant", np.array([0.5, 1.0], np.float32), "float32"),
                       Tape("t", [Watch("t", ["x"]), Op("y", "sin", ["x"])]), Call("g", "t", "gradient", "y", "x")],
                      ["y"])
    finding = evaluate(program, "wrong_vjp_backend", judge=False)
    assert finding is not None
    decision = "on" if tensorflows_decision() else "off"
    assert finding.expected.environment["onednn"] == decision
    assert finding.actual.environment["onednn"] == ("on" if dispatch.onednn_enabled() else "off") == decision
    setting = os.environ.get(dispatch.ENV_VAR, "unset")
    assert finding.expected.environment["onednn_opts"] == setting

    def shown(page: str) -> str:
        row = re.search(r'<tr class="onednn"><th>reference oneDNN kernels</th><td>([^<]*)</td>', page)
        assert row is not None
        return row.group(1)

    def repro_setting() -> list[str]:
        return re.findall(r'os\.environ\.setdefault\("TF_ENABLE_ONEDNN_OPTS", "(.)"\)',
                          (tmp_path / "repro" / f"{finding.id}.py").read_text())

    record_finding(finding, tmp_path)
    assert shown(render(tmp_path).read_text()) == f"{decision} (TF_ENABLE_ONEDNN_OPTS {setting})"
    assert repro_setting() == ["1" if decision == "on" else "0"]   # the repro runs TF's recorded dispatch
    finding.expected.environment["onednn"] = "planted"
    (tmp_path / "discrepancies.jsonl").unlink()
    record_finding(finding, tmp_path)
    assert shown(render(tmp_path).read_text()).startswith("planted")
    assert repro_setting() == []
