"""reftape-bench: what the differential harness costs, measured against TensorFlow eager on fixed programs.

Every figure is a ratio or a rate measured in this one run, so the machine's speed cancels out:

- harness_overhead_ratio: the full differential step (drawing a program through Hypothesis, evaluating it:
  both runs and the comparison) over running the same programs on TensorFlow alone.
- generation_share: drawing those programs through Hypothesis, over running them on TensorFlow.
- small_graph_ratio: reftape over TensorFlow eager on graphs of 10 to 50 float32 4x4 ops (16 elements
  per tensor) and a gradient, each graph run as plain Python code calling the library directly
  (`small_graph_function`: Variables, constants, the ops under a GradientTape, `tape.gradient`, the
  results' `.numpy()`), measured identically on both sides. The same graphs through the interpreter, as
  the harness runs them, are reported beside it (`small_graph_interpreted_*`): there, validating the
  program, printing its source and describing the outcome cost the same on both sides and are most of
  what reftape's side spends, so that ratio measures the harness more than reftape.
- large_tensor_ratio: reftape over TensorFlow on a chain of 512x512 matmuls and elementwise ops with a
  gradient (the library called directly: the interpreter would print 512x512 leaves as literals),
  each side in a fresh process with one thread, as the harness pins TensorFlow to one thread.
- deep_chain_seconds: reftape's time for a 100,000-op chain and its gradient.
- deep_chain_peak_memory_ratio: reftape's peak memory for that chain over TensorFlow's.
- examples_per_second_1_worker, examples_per_second_2_workers, scaling_2_workers: `reftape-fuzz
  --max-examples N` on reftape with one worker and with two (one BLAS thread per process), at the rate
  the campaign reports: from the first worker ready (TensorFlow loaded) to the last example.

Peak memory. Each side runs the chain in a fresh interpreter, after importing its library and running
a small warm-up chain, so that import and first-call costs are outside the measurement. Just before
the chain, the kernel's high-water mark of resident memory is reset to the current resident size
(writing 5 to /proc/self/clear_refs); after the gradient, VmHWM in /proc/self/status minus the
resident size at the reset is the chain's peak. Resident memory is the one measure that sees both
sides alike: tracemalloc sees NumPy's buffers but not TensorFlow's C++ allocator, and TensorFlow's
allocator statistics are not kept for the CPU device. Where clear_refs cannot be written, the
growth of getrusage's ru_maxrss over the chain is used instead (a lower bound when the import's
peak was higher than the chain's).

Time to detection (`--detection`, measured alone: 10 to 35 minutes). How soon a one-minute campaign finds a bug
is the speed a user feels: for a fixed subset of the planted-bug catalogue (`DETECTION_MUTANTS`, one of each
kind), each planted in a copy of reftape, a `reftape-fuzz` campaign of 60 seconds (seed 1) with each schedule
(swarm, uniform, coverage), side by side; the kill rate within 15, 30 and 60 seconds and the median time to
detection of each (`reftape-sensitivity --detectors campaign-coverage:60,campaign-swarm:60,campaign-uniform:60`
measures any mutants).

Targets are printed beside the figures and never asserted (the machine is shared). `--quick` shrinks
every workload for a smoke run; its figures are not comparable with a full run's. `--instructions`
measures nothing else: it counts reftape's instructions per small graph under callgrind
(`small_graph_instructions`), a figure the machine's load does not move.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np

from reftape_oracle.catalog import resolve
from reftape_oracle.program import Call, Leaf, Op, Program, Tape

from reftape_properties.cli import EXIT_FINDINGS, EXIT_OK, parser, run_command, writable_directory
from reftape_oracle.outcome import HarnessError

SEED = 20260101

# figure -> (how it compares with its target, target, unit)
TARGETS: dict[str, tuple[str, float | None, str]] = {
    "harness_overhead_ratio": ("<=", 1.3, "x TF"),
    "generation_share": ("<=", 0.2, "of TF"),
    "small_graph_ratio": ("<=", 0.2, "x TF"),
    "large_tensor_ratio": ("<=", 1.5, "x TF"),
    "deep_chain_seconds": ("", None, "s"),
    "deep_chain_peak_memory_ratio": ("<=", 1.0, "x TF"),
    "examples_per_second_1_worker": ("", None, "/s"),
    "examples_per_second_2_workers": ("", None, "/s"),
    "scaling_2_workers": (">=", 1.7, "x"),
}


@dataclass(frozen=True)
class Workload:
    programs: int              # generated programs for the harness figures
    small_graphs: int
    matrix_side: int
    matmuls: int               # in the large-tensor chain
    deep_ops: int
    worker_examples: int       # examples of each reftape-fuzz campaign
    repeats: int               # timings taken in turn; the best counts


FULL = Workload(programs=200, small_graphs=40, matrix_side=512, matmuls=8, deep_ops=100_000, worker_examples=200,
                repeats=2)
QUICK = Workload(programs=12, small_graphs=4, matrix_side=64, matmuls=2, deep_ops=2_000, worker_examples=6, repeats=1)


# -- Generated programs --------------------------------------------------------------------------

def _hypothesis_run(count: int, seed: int, body: Callable[[Program], None]) -> int:
    """Runs `body` on `count` programs drawn from `generate.programs()` with a fixed seed; returns
    how many Hypothesis drew. The same seed draws the same programs whatever the body does."""
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as fixed_seed

    from reftape_properties.generate import programs

    calls = 0

    @fixed_seed(seed)
    @settings(max_examples=count, database=None, deadline=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(programs())
    def step(program: Program) -> None:
        nonlocal calls
        calls += 1
        body(program)

    step()
    return calls


def draw_programs(count: int, seed: int = SEED) -> list[Program]:
    """The fixed, seeded programs the harness figures are measured on."""
    drawn: list[Program] = []
    _hypothesis_run(count, seed, drawn.append)
    return drawn


def _seconds(action: Callable[[], Any]) -> float:
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def _best_of_interleaved(passes: dict[str, Callable[[], float]], repeats: int) -> dict[str, float]:
    """The shortest of `repeats` timings of each pass, the passes taking turns: on a shared machine the
    shortest is the least disturbed, and taking turns exposes every pass to the same disturbances."""
    timings: dict[str, list[float]] = {name: [] for name in passes}
    for _ in range(repeats):
        for name, timed in passes.items():
            timings[name].append(timed())
    return {name: min(seconds) for name, seconds in timings.items()}


def _uncompiled_seconds(action: Callable[[], Any]) -> float:
    """Seconds for `action` with the interpreter's compile cache emptied first: each program pays for
    compiling its source once, as in a campaign, however often the benchmark has run it before."""
    from reftape_oracle.interpreter import compile_program

    compile_program.cache_clear()
    return _seconds(action)


def _run_all(programs: list[Program], backend: str) -> None:
    from reftape_oracle.interpreter import run

    for program in programs:
        run(program, backend)


def _evaluate_all(programs: list[Program]) -> None:
    from reftape_properties.pipeline import evaluate

    for program in programs:
        evaluate(program, "reftape", "tensorflow", judge=False)


def harness_figures(work: Workload) -> dict[str, float]:
    """Generation, TF alone, reftape alone and the full differential step on the same programs.

    The full step is timed as drawing the programs plus evaluating each (both runs, comparison,
    known divergences): a Hypothesis run whose test evaluates draws other programs than one whose
    test does nothing (measured: 6 of 60 programs in common), so the two could not be compared."""
    from reftape_oracle.tensorflow import load_tensorflow

    load_tensorflow()
    programs = draw_programs(work.programs)
    _run_all(programs, "tensorflow")  # warm: first calls of each TF kernel are not what a campaign pays
    _run_all(programs, "reftape")
    passes = {"generation": lambda: _seconds(lambda: _hypothesis_run(work.programs, SEED, lambda p: None)),
              "tensorflow": lambda: _uncompiled_seconds(lambda: _run_all(programs, "tensorflow")),
              "reftape": lambda: _uncompiled_seconds(lambda: _run_all(programs, "reftape")),
              "evaluate": lambda: _uncompiled_seconds(lambda: _evaluate_all(programs))}
    generation, tensorflow, reftape, evaluate = _best_of_interleaved(passes, work.repeats).values()
    count = len(programs)
    return {"programs": count, "ops_per_program": sum(len(p.ops()) for p in programs) / count,
            "generation_ms": 1000 * generation / count, "tensorflow_ms": 1000 * tensorflow / count,
            "reftape_ms": 1000 * reftape / count, "evaluate_ms": 1000 * evaluate / count,
            "harness_overhead_ratio": (generation + evaluate) / tensorflow, "generation_share": generation / tensorflow}


# -- Small graphs ---------------------------------------------------------------------------------

_UNARY = ("sin", "cos", "tanh", "sigmoid", "math.softplus", "square", "nn.relu", "abs")
_BINARY = ("add", "multiply", "subtract", "maximum", "matmul")


def small_graph(rng: np.random.Generator, ops: int) -> Program:
    """`ops` float32 4x4 ops (16 elements each) over three leaves, differentiated with respect to two."""
    leaves = [Leaf(f"x{i}", "variable" if i < 2 else "constant", rng.uniform(-1, 1, (4, 4)).astype(np.float32),
                   "float32") for i in range(3)]
    names = [leaf.name for leaf in leaves]
    body: list = []
    for i in range(ops):
        name = f"v{i}"
        if rng.random() < 0.5:
            body.append(Op(name, str(rng.choice(_UNARY)), [names[-1]]))
        else:
            other = names[int(rng.integers(len(names)))]
            body.append(Op(name, str(rng.choice(_BINARY)), [names[-1], other]))
        names.append(name)
    gradient = Call("g", "t0", "gradient", names[-1], {"list": ["x0", "x1"]})
    return Program([*leaves, Tape("t0", body), gradient], outputs=[names[-1]])


def small_graph_function(tf: Any, program: Program) -> Callable[[], tuple]:
    """A graph made by `small_graph`, as plain Python on library `tf`: the statements the interpreter
    would print, without validation, source generation or outcome descriptions. The ops are looked up
    once; each call creates the leaves, runs the ops under a tape and takes the gradient."""
    leaves = [s for s in program.statements if isinstance(s, Leaf)]
    (tape_statement,) = [s for s in program.statements if isinstance(s, Tape)]
    (call,) = [s for s in program.statements if isinstance(s, Call)]
    position = {leaf.name: i for i, leaf in enumerate(leaves)}
    steps = []
    for op in tape_statement.body:
        steps.append((resolve(tf, op.path), [position[name] for name in op.inputs]))
        position[op.name] = len(position)
    sources = [position[name] for name in call.sources["list"]]
    target = position[call.target]

    def run() -> tuple:
        values = [tf.Variable(leaf.value, dtype=getattr(tf, leaf.dtype), trainable=leaf.trainable)
                  if leaf.kind == "variable" else tf.constant(leaf.value, dtype=getattr(tf, leaf.dtype))
                  for leaf in leaves]
        with tf.GradientTape() as tape:
            for op, arguments in steps:
                values.append(op(*[values[i] for i in arguments]))
        gradients = tape.gradient(values[target], [values[i] for i in sources])
        return values[-1].numpy(), [None if g is None else g.numpy() for g in gradients]

    return run


def small_graphs(work: Workload) -> list[Program]:
    rng = np.random.default_rng(SEED)
    return [small_graph(rng, int(rng.integers(10, 51))) for _ in range(work.small_graphs)]


def small_graph_figures(work: Workload) -> dict[str, float]:
    """Each library called directly on the small graphs, and the same graphs through the interpreter."""
    graphs = small_graphs(work)
    direct = {name: [small_graph_function(_library(name), graph) for graph in graphs]
              for name in ("tensorflow", "reftape")}

    def run_direct(name: str) -> None:
        for run in direct[name]:
            run()

    passes = {"tensorflow": lambda: _seconds(lambda: run_direct("tensorflow")),
              "reftape": lambda: _seconds(lambda: run_direct("reftape")),
              "interpreted_tensorflow": lambda: _seconds(lambda: _run_all(graphs, "tensorflow")),
              "interpreted_reftape": lambda: _seconds(lambda: _run_all(graphs, "reftape"))}
    for timed in passes.values():  # warm: first calls of each kernel and compiling each source
        timed()
    seconds = _best_of_interleaved(passes, work.repeats + 1)
    figures = {f"small_graph_{name}_ms": 1000 * value / len(graphs) for name, value in seconds.items()}
    figures["small_graph_ratio"] = seconds["reftape"] / seconds["tensorflow"]
    figures["small_graph_interpreted_ratio"] = seconds["interpreted_reftape"] / seconds["interpreted_tensorflow"]
    return figures


# -- Large tensors and deep chains (the libraries called directly) --------------------------------

def _library(name: str) -> Any:
    from reftape_properties.cli import import_backend

    return import_backend(name)


def matmul_chain(tf: Any, start: np.ndarray, weight: np.ndarray, matmuls: int) -> np.ndarray:
    """y <- tanh(y @ w) * 0.5 + y, `matmuls` times; the gradient of sum(y) with respect to the start."""
    x = tf.Variable(start)
    w = tf.constant(weight)
    with tf.GradientTape() as tape:
        y = x
        for _ in range(matmuls):
            y = tf.tanh(tf.matmul(y, w)) * 0.5 + y
        total = tf.reduce_sum(y)
    return tape.gradient(total, x).numpy()


def _minor_page_faults() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt


def _matmul_chain_child(name: str, side: int, matmuls: int) -> dict:
    """The best of three timed chains, and the page faults of one (each costs a first touch of 4 KiB:
    an allocator that returns freed arrays to the kernel pays for every large array again)."""
    tf = _library(name)
    rng = np.random.default_rng(SEED)
    start = rng.standard_normal((side, side)).astype(np.float32)
    weight = (rng.standard_normal((side, side)) / np.sqrt(side)).astype(np.float32)
    matmul_chain(tf, start, weight, 1)
    faults = _minor_page_faults()
    seconds = [_seconds(lambda: matmul_chain(tf, start, weight, matmuls)) for _ in range(3)]
    return {"seconds": min(seconds), "page_faults": (_minor_page_faults() - faults) / len(seconds)}


def large_tensor_figures(work: Workload) -> dict[str, float]:
    measured = {name: _in_fresh_process("matmul_chain", name, work.matrix_side, work.matmuls)
                for name in ("tensorflow", "reftape")}
    figures = {}
    for name, child in measured.items():
        figures[f"large_tensor_{name}_ms"] = 1000 * child["seconds"]
        figures[f"large_tensor_{name}_page_faults"] = child["page_faults"]
    figures["large_tensor_ratio"] = measured["reftape"]["seconds"] / measured["tensorflow"]["seconds"]
    return figures


def blas_note() -> str:
    """Which BLAS NumPy runs, with which kernel: the large-tensor figure is mostly NumPy's matmul."""
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        return "NumPy's BLAS: unknown (install reftape[bench] for threadpoolctl)"
    libraries = [f"{i['internal_api']} {i['version']}, {i.get('architecture') or 'unknown'} kernel"
                 for i in threadpool_info() if i["user_api"] == "blas"]
    note = f"NumPy's BLAS: {'; '.join(libraries) or 'none found'}"
    forced = os.environ.get("OPENBLAS_CORETYPE")
    if forced:
        note += (f" (forced by OPENBLAS_CORETYPE={forced}: unset it, and OPENBLAS_L2_SIZE, to measure "
                 "this processor's own kernel)")
    return note


def deep_chain(tf: Any, ops: int) -> float:
    """`ops` ops alternating sin and a product, under one tape; the gradient at the start."""
    x = tf.Variable(0.5)
    with tf.GradientTape() as tape:
        y = x
        for _ in range(ops // 2):
            y = tf.sin(y) * 1.5
    return float(tape.gradient(y, x).numpy())


def _resident_kib() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise OSError("no VmRSS in /proc/self/status")


def _peak_kib() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    raise OSError("no VmHWM in /proc/self/status")


def _deep_chain_child(name: str, ops: int) -> dict:
    """Warm up, then time the chain and measure its peak resident memory (see the module's docstring)."""
    tf = _library(name)
    deep_chain(tf, 100)
    try:
        Path("/proc/self/clear_refs").write_text("5")  # the high-water mark restarts from here
        before, method = _resident_kib(), "VmHWM"
    except OSError:
        before, method = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, "ru_maxrss"
    seconds = _seconds(lambda: deep_chain(tf, ops))
    after = _peak_kib() if method == "VmHWM" else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return {"seconds": seconds, "peak_kib": after - before, "method": method}


_CHILD_MEASUREMENTS: dict[str, Callable[..., dict]] = {"matmul_chain": _matmul_chain_child,
                                                       "deep_chain": _deep_chain_child}

# One thread per process on both sides: the harness pins TensorFlow to one intra-op thread, and a
# multi-threaded BLAS on a shared 2-core machine collapses (a 512x512 matmul measured 1.8 ms on one
# OpenBLAS thread and 72 ms on two while other work ran).
_SINGLE_THREADED = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
                    "TF_CPP_MIN_LOG_LEVEL": "3"}


def _child_main(measurement: str, name: str, *arguments: int) -> None:
    print(json.dumps(_CHILD_MEASUREMENTS[measurement](name, *arguments)))


def _in_fresh_process(measurement: str, name: str, *arguments: int) -> dict:
    """Runs a measurement on library `name` in a fresh, single-threaded interpreter; its figures."""
    code = f"from reftape_reports.commands.reftape_bench import _child_main; _child_main({measurement!r}, {name!r}, *{arguments!r})"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={**os.environ, **_SINGLE_THREADED})
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise HarnessError(f"{measurement}{tuple(arguments)} did not complete on {name}: {last}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def deep_chain_figures(work: Workload) -> dict[str, float]:
    tensorflow, reftape = (_in_fresh_process("deep_chain", name, work.deep_ops) for name in ("tensorflow", "reftape"))
    return {"deep_chain_tensorflow_seconds": tensorflow["seconds"], "deep_chain_seconds": reftape["seconds"],
            "deep_chain_tensorflow_peak_mib": tensorflow["peak_kib"] / 1024,
            "deep_chain_reftape_peak_mib": reftape["peak_kib"] / 1024,
            "deep_chain_peak_memory_ratio": max(reftape["peak_kib"], 1) / max(tensorflow["peak_kib"], 1)}


# -- Workers ---------------------------------------------------------------------------------------

def _campaign_rate(workers: int, examples: int, directory: Path) -> float:
    """Examples per second of a `reftape-fuzz` campaign on reftape, as the campaign reports it: from
    the first worker ready (TensorFlow loaded) to the last example."""
    report = directory / f"{workers}-workers-{len(list(directory.iterdir()))}"
    done = subprocess.run([sys.executable, "-m", "reftape_reports.commands.reftape_fuzz", "--max-examples", str(examples),
                           "--workers", str(workers), "--seed", str(SEED), "--report", str(report)],
                          capture_output=True, text=True, env={**os.environ, **_SINGLE_THREADED})
    if done.returncode not in (EXIT_OK, EXIT_FINDINGS):
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise HarnessError(f"reftape-fuzz with {workers} workers exited {done.returncode}: {last}")
    return json.loads((report / "run.json").read_text())["result"]["examples_per_second"]


def worker_figures(work: Workload) -> dict[str, float]:
    """`reftape-fuzz --max-examples N` with one worker and with two, taking turns; the best rate of each."""
    with tempfile.TemporaryDirectory(prefix="reftape-bench-") as directory:
        best = _best_of_interleaved(
            {workers: lambda workers=workers: 1 / _campaign_rate(workers, work.worker_examples, Path(directory))
             for workers in (1, 2)}, work.repeats)
    return {"examples_per_second_1_worker": 1 / best[1], "examples_per_second_2_workers": 1 / best[2],
            "scaling_2_workers": best[1] / best[2]}


# -- Instructions per small graph (callgrind) ------------------------------------------------------

def _small_graph_passes(passes: int) -> None:
    """Builds the small graphs on reftape, runs each once (first calls), then `passes` more times."""
    runs = [small_graph_function(_library("reftape"), graph) for graph in small_graphs(FULL)]
    for _ in range(passes + 1):
        for run in runs:
            run()


def small_graph_instructions() -> float:
    """reftape's instructions per small graph, counted by callgrind (valgrind's deterministic profiler:
    wall-clock timings on a shared machine vary more than most changes gain). Two processes, one that
    builds and warms up the graphs and one that also runs them twice more, with PYTHONHASHSEED=0 and
    one BLAS thread; their difference over twice the graphs excludes imports, building and first calls."""
    totals = []
    with tempfile.TemporaryDirectory(prefix="reftape-callgrind-") as directory:
        for passes in (0, 2):
            out = Path(directory) / f"callgrind.{passes}"
            code = f"from reftape_reports.commands.reftape_bench import _small_graph_passes; _small_graph_passes({passes})"
            try:
                done = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", sys.executable,
                                       "-c", code], capture_output=True, text=True,
                                      env={**os.environ, **_SINGLE_THREADED, "PYTHONHASHSEED": "0"})
            except FileNotFoundError:
                raise HarnessError("valgrind is not installed (Debian: apt-get install valgrind)") from None
            if done.returncode != 0:
                last = (done.stderr.strip().splitlines() or ["no output"])[-1]
                raise HarnessError(f"the small graphs under callgrind exited {done.returncode}: {last}")
            summary = [line for line in out.read_text().splitlines() if line.startswith("summary:")]
            totals.append(int(summary[0].split()[1]))
    return (totals[1] - totals[0]) / (2 * FULL.small_graphs)


# -- Command ---------------------------------------------------------------------------------------

SECTIONS = (harness_figures, small_graph_figures, large_tensor_figures, deep_chain_figures, worker_figures)


def measure(work: Workload, progress: Callable[[str], None] = lambda line: None) -> dict[str, float]:
    """Every figure; the load average (1 minute) before and after says how shared the machine was."""
    figures: dict[str, float] = {"cores": float(os.cpu_count() or 1), "load_before": os.getloadavg()[0]}
    for section in SECTIONS:
        progress(f"measuring {section.__name__.removesuffix('_figures').replace('_', ' ')} ...")
        figures.update(section(work))
    figures["load_after"] = os.getloadavg()[0]
    return figures


def _verdict(key: str, value: float) -> str:
    sense, target, _ = TARGETS[key]
    if target is None:
        return ""
    met = value <= target if sense == "<=" else value >= target
    return "met" if met else "MISSED"


def table(figures: dict[str, float]) -> str:
    rows = [("figure", "value", "target", "")]
    for key, (sense, target, unit) in TARGETS.items():
        shown = f"{figures[key]:.3g} {unit}"
        rows.append((key, shown, f"{sense} {target:g}" if target is not None else "", _verdict(key, figures[key])))
    width = [max(len(row[i]) for row in rows) for i in range(4)]
    lines = ["  ".join(cell.ljust(width[i]) for i, cell in enumerate(row)).rstrip() for row in rows]
    details = ", ".join(f"{k} {v:.3g}" for k, v in figures.items() if k not in TARGETS)
    return "\n".join(lines[:1] + ["  ".join("-" * w for w in width)] + lines[1:]
                     + ["", f"measured: {details}", blas_note()])


# -- Time to detection -----------------------------------------------------------------------------

DETECTION_MUTANTS = ("sin-doubled", "tanh-from-input", "exp-no-conj", "softmax-no-keepdims", "maximum-tie-to-y",
                     "xlogy-zero-x", "cast-grad-keeps-output-dtype", "sigmoid-grad-second-order",
                     "persistent-released", "output-gradients-ignored")
DETECTION_DETECTORS = ("campaign-coverage:60", "campaign-swarm:60", "campaign-uniform:60")


def detection_report(progress: Callable[[str], None]) -> tuple[str, dict]:
    """The kill rates and median time to detection of one-minute campaigns, coverage against swarm and uniform
    scheduling, on DETECTION_MUTANTS, as lines and as reftape-sensitivity's JSON record; each detector first runs
    on the unmutated reftape, where it must find nothing."""
    from reftape_properties.sensitivity.measure import Runs, check_baseline, record
    from reftape_properties.sensitivity.measure import measure as measure_mutant
    from reftape_properties.sensitivity.mutants import select

    detectors, start = list(DETECTION_DETECTORS), time.monotonic()
    check_baseline(detectors, Runs())   # campaigns memoize nothing
    results = []
    for mutant in select(",".join(DETECTION_MUTANTS)):
        results.append(measure_mutant(mutant, detectors, Runs()))
        progress(f"{mutant.id}: " + ", ".join(f"{d} {results[-1].status[d]} ({results[-1].seconds[d]:.1f} s)"
                                              for d in detectors))
    figures = record(results, detectors, time.monotonic() - start, complete=True)
    return detection_lines(figures), figures


def detection_lines(figures: dict) -> str:
    """One line per campaign detector of a sensitivity record: its kill rate within each mark and its median."""
    lines = []
    for detector, rate in figures["kill_rate"].items():
        detection = rate["time_to_detection"]
        within = ", ".join(f"{n} within {mark} s" for mark, n in detection["killed_within"].items())
        median = "none killed" if detection["median_seconds"] is None else f"{detection['median_seconds']:g} s"
        lines.append(f"{detector:20} killed {within}; median time to detection {median}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    arguments = parser("reftape-bench", "What the differential harness costs, against TensorFlow eager.")
    arguments.add_argument("--quick", action="store_true", help="small workloads: a smoke run, not a measurement")
    arguments.add_argument("--json", type=Path, metavar="FILE", help="also write the figures to FILE as JSON")
    arguments.add_argument("--instructions", action="store_true",
                           help="only count reftape's instructions per small graph with callgrind (needs valgrind; "
                                "about a minute)")
    arguments.add_argument("--detection", action="store_true",
                           help="only measure the time to detection of one-minute campaigns, coverage against "
                                f"swarm and uniform scheduling, on {len(DETECTION_MUTANTS)} planted bugs (10 to 35 "
                                "minutes)")
    options = arguments.parse_args(argv)

    def bench() -> int:
        if options.json is not None:
            writable_directory(options.json.resolve().parent)
        if options.detection:
            text, figures = detection_report(lambda line: print(line, file=sys.stderr, flush=True))
            print(text)
            if options.json is not None:
                options.json.write_text(json.dumps(figures, indent=1) + "\n")
            return EXIT_OK
        if options.instructions:
            print(f"small graphs: {small_graph_instructions() / 1e6:.3f} million instructions per graph (callgrind)")
            return EXIT_OK
        os.environ.update(_SINGLE_THREADED)  # for every process the benchmark starts
        figures = measure(QUICK if options.quick else FULL, lambda line: print(line, file=sys.stderr, flush=True))
        print(table(figures))
        if options.json is not None:
            options.json.write_text(json.dumps({key: figures[key] for key in TARGETS}, indent=1) + "\n")
        return EXIT_OK

    return run_command("reftape-bench", bench)


if __name__ == "__main__":
    sys.exit(main())
