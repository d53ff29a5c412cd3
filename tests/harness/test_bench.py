"""reftape-bench runs end to end and writes every figure the throughput issue names.

Only the shape of the output is checked: timings on a shared machine are reported, never asserted.
"""

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

from reftape_properties.sensitivity.measure import Result, record
from reftape_properties.sensitivity.mutants import select
from reftape_reports.commands.reftape_bench import DETECTION_DETECTORS, TARGETS, detection_lines

FIGURES = {"harness_overhead_ratio", "generation_share", "small_graph_ratio", "large_tensor_ratio",
           "deep_chain_seconds", "deep_chain_peak_memory_ratio", "examples_per_second_1_worker",
           "examples_per_second_2_workers", "scaling_2_workers"}


@pytest.mark.runs_long(seconds=70)
def test_quick_bench_writes_every_figure_as_a_positive_number(tmp_path):
    output = tmp_path / "bench.json"
    command = Path(sys.executable).parent / "reftape-bench"
    done = subprocess.run([str(command), "--quick", "--json", str(output)], capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    figures = json.loads(output.read_text())
    assert set(figures) == FIGURES == set(TARGETS)
    for key, value in figures.items():
        assert isinstance(value, float) and math.isfinite(value) and value > 0, (key, value)
    for key in FIGURES:  # the table shows every figure too
        assert key in done.stdout


def test_unwritable_json_path_is_a_usage_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    command = Path(sys.executable).parent / "reftape-bench"
    done = subprocess.run([str(command), "--quick", "--json", str(blocker / "sub" / "bench.json")],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr


def test_interpreter_compiles_a_program_once_and_each_run_starts_fresh():
    import numpy as np

    from reftape_oracle.interpreter import compile_program, run
    from reftape_oracle.outcome import decode_array
    from reftape_oracle.program import Leaf, Op, Program

    program = Program([Leaf("x", "constant", np.array([0.5, 2.0], np.float32), "float32"),
                       Op("y", "square", ["x"])], outputs=["y"])
    compile_program.cache_clear()
    first, second = run(program, "reftape"), run(program, "reftape")
    info = compile_program.cache_info()
    assert (info.misses, info.hits) == (1, 1)
    assert first.values == second.values
    assert decode_array(second.values["y"]).tolist() == [0.25, 4.0]  # 0.5 ** 2, 2.0 ** 2


def test_small_graph_run_directly_computes_what_the_interpreter_computes():
    """small_graph_ratio calls each library directly: on TensorFlow, that direct run of a small graph
    gives bit for bit the values and gradients the interpreter gets from the same program."""
    import numpy as np

    from reftape_oracle.interpreter import run
    from reftape_oracle.outcome import decode_array
    from reftape_oracle.tensorflow import load_tensorflow
    from reftape_reports.commands.reftape_bench import small_graph, small_graph_function

    program = small_graph(np.random.default_rng(7), 20)
    value, gradients = small_graph_function(load_tensorflow(), program)()
    outcome = run(program, "tensorflow")
    assert outcome.error is None, outcome.error
    np.testing.assert_array_equal(value, decode_array(outcome.values[program.outputs[0]]))
    described = outcome.calls["g"]["items"]
    assert len(gradients) == len(described) == 2
    for gradient, expected in zip(gradients, described):
        if gradient is None:
            assert expected == {"kind": "none"}
        else:
            np.testing.assert_array_equal(gradient, decode_array(expected))


def test_the_detection_lines_name_every_schedule_and_leave_the_record_whole():
    """`reftape-bench --detection` prints one line per schedule and writes the whole record (an earlier version
    wrote only the last schedule's figures)."""
    mutants = select("sin-doubled,tanh-from-input")
    results = [Result(m, status=dict.fromkeys(DETECTION_DETECTORS, "killed"),
                      seconds={d: 5.0 + i + 20 * j for j, d in enumerate(DETECTION_DETECTORS)})
               for i, m in enumerate(mutants)]
    figures = record(results, list(DETECTION_DETECTORS), 100.0, complete=True)
    lines = detection_lines(figures).splitlines()
    assert [line.split()[0] for line in lines] == list(DETECTION_DETECTORS)
    assert lines[0].endswith("killed 2/2 within 15 s, 2/2 within 30 s, 2/2 within 60 s; median time to detection 5.5 s")
    assert lines[1].endswith("killed 0/2 within 15 s, 2/2 within 30 s, 2/2 within 60 s; median time to detection 25.5 s")
    assert set(figures["kill_rate"]) == set(DETECTION_DETECTORS) and len(figures["mutants"]) == 2
