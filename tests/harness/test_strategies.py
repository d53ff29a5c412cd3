"""The strategies themselves: they produce valid programs aimed at gradient paths, reach every
catalog op, dtype and tape option value, keep filtering negligible, and reject invalid arguments
with clear errors. Fractions are measured over a fixed sample and asserted with bounds below what
the sample shows, so that they guard the generator's aim without pinning its exact draws."""

import json
from collections import Counter

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reftape_oracle import run
from reftape_oracle.catalog import BOUNDED, CATALOG, ELLIPSIS, einsum_subscripts, index_rows
from reftape_oracle.program import (Accumulator, Apply, Assign, Call, Cond, CustomGradient, Jvp, Leaf, ListLiteral, Op,
                                    Program, ReadValue, StopRecording, Tape, Watch, WatchedVariables, flat_references,
                                    structure_references, walk, WhileLoop)
from reftape_properties.campaign.schedule import RUN_UNFAVOURED, CoverageTally, runs_anyway
from reftape_properties.findings.store import coverage_summary, features, record_coverage
from reftape_properties.generate import (DTYPES, METHODS, UNCONNECTED, broadcastable_shapes, build_program, dtypes, programs, shapes, values)

# Outcome errors that mean the generator built an invalid program (not TF-level behaviour under test).
GENERATOR_BUGS = ("NameError", "UnboundLocalError", "SyntaxError", "KeyError", "IndexError")


def _independent_programs(count):
    """`count` programs drawn independently (`build_program` from seeds 0, 1, ..., its dtype, size and
    order drawn as `programs()` draws them): the number of them with a feature is binomial, so a bound
    a few standard deviations below its mean holds. A Hypothesis sample's is not (it mutates its
    earlier examples), which makes a rare feature's count there swing from 7 to 0 with any change."""
    drawn = []
    for seed in range(count):
        rng = np.random.default_rng((seed, 7))
        dtype = DTYPES[int(rng.integers(len(DTYPES)))]
        ops = tuple(p for p in CATALOG if dtype in CATALOG[p].dtypes)
        order = (1, 1, 1, 2, 2, 3)[int(rng.integers(6))]
        drawn.append(build_program(seed, dtype, ops, int(rng.integers(6, 13)), order))
    return drawn


def _sample(strategy, count, seed=0):
    """`count` examples of `strategy`, reproducibly (`seed` picks another reproducible sample)."""
    drawn = []

    @settings(max_examples=count, derandomize=True, database=None, deadline=None,
              suppress_health_check=list(HealthCheck), phases=["generate"])
    @given(strategy, st.just(seed))
    def collect(example, _):
        drawn.append(example)

    collect()
    return drawn


def test_programs_are_valid_by_construction():
    invalid = 0
    drawn = _sample(programs(), 60)
    for program in drawn:
        outcome = run(program, "reftape")
        errors = [outcome.error] + [c for c in outcome.calls.values() if c.get("kind") == "exception"]
        invalid += any(e and (e.get("class") in GENERATOR_BUGS or e.get("kind") == "harness") for e in errors)
    rate = invalid / len(drawn)
    print(f"invalid programs: {invalid}/{len(drawn)} = {rate:.1%}")
    assert rate < 0.05


def test_filtering_stays_below_five_percent():
    statistics = {"calls": 0}

    @settings(max_examples=200, derandomize=True, database=None, deadline=None,
              suppress_health_check=list(HealthCheck), phases=["generate"])
    @given(st.data())
    def count(data):
        statistics["calls"] += 1
        data.draw(programs())

    count()
    # programs() never calls assume() or filter(): every draw that starts yields a program.
    print(f"programs drawn: {statistics['calls']} of 200 attempts (filtered: {200 - statistics['calls']})")
    assert statistics["calls"] >= 190


def _base(name: str) -> str:
    return name.split("[")[0]


def _top_level_ops(program) -> list:
    """The program's ops, without those inside custom gradient definitions, loop bodies and cond branches."""
    inside = {op.name for s in walk(program.statements) if isinstance(s, CustomGradient) for op in s.forward + s.backward}
    inside |= {op.name for s in walk(program.statements) if isinstance(s, WhileLoop) for op in s.body}
    inside |= {op.name for s in walk(program.statements) if isinstance(s, Cond) for op in s.true_body + s.false_body}
    return [op for op in program.ops() if op.name not in inside]


def _floating_ops(program) -> list:
    """The program's own ops whose output is a floating tensor (not a comparison's or an index), but
    those on a leaf with an empty dimension: the generator sets them aside (generate.tapes.EMPTY_OP_CHANCE)."""
    empty = {name for name, leaf in program.leaves().items() if 0 in np.shape(leaf.value)}
    return [op for op in _top_level_ops(program) if CATALOG[op.path].output not in ("bool", "int32", "int64")
            and not empty & set(op.inputs)]


def _flow(program):
    """Who consumes what: edges from each name to the ops and call results computed from it."""
    consumers: dict[str, set] = {}
    for s in walk(program.statements):
        if isinstance(s, (Op, Apply)):
            for name in s.inputs:
                consumers.setdefault(_base(name), set()).add(s.name)
        elif isinstance(s, ReadValue):
            consumers.setdefault(s.variable, set()).add(s.name)
        elif isinstance(s, WhileLoop):   # the loop variable and what the body reads from outside
            for name in [s.loop_var] + [n for op in s.body for n in op.inputs]:
                consumers.setdefault(_base(name), set()).add(s.name)
        elif isinstance(s, Cond):   # what the branch it takes reads from outside: eagerly, nothing else runs
            body, result = s.branch()
            for name in [n for op in body for n in op.inputs] + [result]:
                consumers.setdefault(_base(name), set()).add(s.name)
        elif isinstance(s, Call):
            for name in structure_references(s.target):
                consumers.setdefault(_base(name), set()).add(s.name)
    return consumers


def _reaches(start: str, goals: set, consumers: dict) -> bool:
    seen, stack = set(), [start]
    while stack:
        name = stack.pop()
        if name in goals:
            return True
        if name not in seen:
            seen.add(name)
            stack.extend(consumers.get(name, ()))
    return False


def _all_ops_on_gradient_paths(program) -> bool:
    """Every op with a floating output reaches the target of some gradient/jacobian call."""
    consumers = _flow(program)
    targets = {_base(n) for s in walk(program.statements) if isinstance(s, Call) for n in structure_references(s.target)}
    floating = _floating_ops(program)
    return all(_reaches(op.name, targets, consumers) for op in floating)


def _higher_order(program) -> bool:
    """A call's result reaches (directly or through ops) the target of a call on another tape."""
    consumers = _flow(program)
    calls = [s for s in walk(program.statements) if isinstance(s, Call)]
    return any(_reaches(inner.name, {_base(n) for n in structure_references(outer.target)}, consumers)
               for inner in calls for outer in calls if outer.tape != inner.tape)


def _some_gradient(description) -> bool:
    kind = description.get("kind")
    if kind in ("tensor", "indexed_slices"):
        return True
    return any(_some_gradient(item) for item in description.get("items", ()))


@pytest.fixture(scope="module")
def sample():
    return _sample(programs(), 150, seed=1)


@pytest.fixture(scope="module")
def independent():
    return _independent_programs(600)


# The two shares below, over three independent samples of 300 programs (2026-11-26): every op on a
# gradient path 0.73, 0.70, 0.71; ops whose VJP runs 0.54, 0.56, 0.56 (the Hypothesis sample of 150 the
# tests read before gave 0.76 and 0.63 and moved by several points with any change of the generator).
# Bounds about four standard errors below.
def test_every_op_lies_on_a_gradient_path(independent):
    share = np.mean([_all_ops_on_gradient_paths(p) for p in independent])
    print(f"programs whose every floating op reaches a gradient target: {share:.0%}")
    assert share >= 0.64


def _ops_whose_vjp_runs(program) -> float:
    """The share of floating ops that lie between a call's source and that call's target, so that
    the call runs their VJP (inputs are consumed by the ops and call results computed from them)."""
    consumers = _flow(program)
    floating = _floating_ops(program)
    calls = [s for s in walk(program.statements) if isinstance(s, Call)]

    def between(op, call) -> bool:
        targets = {_base(n) for n in structure_references(call.target)}
        return (_reaches(op.name, targets, consumers)
                and any(_reaches(_base(source), {op.name}, consumers) for source in structure_references(call.sources)))

    return np.mean([any(between(op, call) for call in calls) for op in floating]) if floating else 1.0


def test_most_ops_run_their_vjp(independent):
    share = np.mean([_ops_whose_vjp_runs(p) for p in independent])
    print(f"floating ops between a call's source and its target: {share:.0%}")
    assert share >= 0.5


def test_higher_order_chains_are_frequent(sample):
    share = np.mean([_higher_order(p) for p in sample])
    print(f"programs differentiating a gradient again: {share:.0%}")
    assert 0.2 <= share <= 0.5


def _labels_sources_of_recorded_gradients(program) -> list:
    """The calls (with the labels) that take softmax cross entropy's labels as a source while their
    targets depend on a gradient computation their tape recorded (a call inside its block before them)."""
    labels = {s.inputs[0] for s in walk(program.statements)
              if isinstance(s, Op) and s.path == "nn.softmax_cross_entropy_with_logits"}
    order = {id(s): i for i, s in enumerate(walk(program.statements))}
    consumers, found = _flow(program), []
    for tape in (s for s in walk(program.statements) if isinstance(s, Tape)):
        recorded = [s for s in walk(tape.body) if isinstance(s, Call)]
        for call in (s for s in walk(program.statements) if isinstance(s, Call) and s.tape == tape.name):
            targets = {_base(n) for n in structure_references(call.target)}
            if any(order[id(r)] < order[id(call)] and _reaches(r.name, targets, consumers) for r in recorded):
                offered = labels & {_base(n) for n in flat_references(call.sources)}
                if offered:
                    found.append((call.name, sorted(offered)))
    return found


def test_softmax_cross_entropy_labels_are_never_sources_of_a_recorded_gradient():
    """KNOWN_DIVERGENCES 1: TF with op determinism differentiates the logits gradient in labels (reftape, as
    TF's default kernel, gives 0), so the generator never offers labels to a tape that may have recorded a
    gradient computation: not as a source that reaches the targets, nor as an input of a target's op, an
    unconnected source, a target listed as a source or a fed source. A random run found labels offered as
    an unconnected source (a Variable, watched by both tapes) to an outer gradient of the inner one."""
    sample = _sample(programs(ops=("nn.softmax_cross_entropy_with_logits",), max_depth=3), 400)
    offending = [found for found in map(_labels_sources_of_recorded_gradients, sample) if found]
    assert not offending, f"{len(offending)} of {len(sample)} programs, e.g. {offending[:3]}"


def test_most_programs_return_a_gradient(independent):
    """Counted over the independent sample (600 programs; 88% of them with the catalog of 2026-11-28): the
    Hypothesis sample's 150 swing by several points with each catalog addition."""
    share = np.mean([any(_some_gradient(c) for c in run(p, "reftape").calls.values()) for p in independent])
    print(f"programs with a non-None gradient: {share:.0%}")
    assert share >= 0.85


def test_programs_are_six_to_twelve_ops_long(sample):
    sizes = [len(_top_level_ops(p)) for p in sample]
    print(f"ops per program: mean {np.mean(sizes):.1f}, min {min(sizes)}, max {max(sizes)}")
    assert 6 <= np.mean(sizes) <= 14


def test_output_gradients_are_random_not_ones(sample):
    leaves = {name: leaf for p in sample for name, leaf in p.leaves().items()}
    weights = [leaves[n].value for p in sample for s in walk(p.statements) if isinstance(s, Call)
               for n in structure_references(s.output_gradients)]
    styles = {"zeros": any(np.all(w == 0) and w.size for w in weights),
              "negative": any(np.all(np.real(w) < 0) for w in weights),
              "mixed signs": any(np.any(np.real(w) < 0) and np.any(np.real(w) > 0) for w in weights)}
    assert len(weights) > 50 and all(styles.values()), styles


def test_structures_the_issue_asks_for_occur(sample):
    """Dict sources in unsorted key order, calls inside a tape's block, integer leaves consumed."""
    def unsorted_dict(structure):
        return isinstance(structure, dict) and "dict" in structure and (
            [k for k, _ in structure["dict"]] != sorted(k for k, _ in structure["dict"]))

    calls = [s for p in sample for s in walk(p.statements) if isinstance(s, Call)]
    inside = [s for p in sample for t in walk(p.statements) if isinstance(t, Tape) for s in t.body
              if isinstance(s, Call) and s.tape == t.name]
    integers = [op for p in sample for op in p.ops()
                if any(p.leaves().get(n) is not None and p.leaves()[n].dtype.startswith("int") for n in op.inputs)]
    assert any(unsorted_dict(c.sources) for c in calls)
    assert len(inside) >= 10 and len(integers) >= 10


def test_blind_spot_classes_occur(sample):
    """Custom gradients (capturing variables too, returning None for an input), assigns and reads, Variable targets, targets that
    are also sources, comparisons as sources, jacobians over empty dimensions, namedtuple sources and
    watched_variables()."""
    statements = [s for p in sample for s in walk(p.statements)]
    calls = [(s, p.leaves()) for p in sample for s in walk(p.statements) if isinstance(s, Call)]  # names are per program
    found = {
        "custom_gradient": sum(isinstance(s, Apply) for s in statements),
        "captured variables": sum(isinstance(s, CustomGradient) and s.variables != "none" for s in statements),
        "custom gradient returning None": sum(isinstance(s, CustomGradient) and None in s.input_grads
                                              for s in statements),
        "assign": sum(isinstance(s, Assign) for s in statements),
        "read_value": sum(isinstance(s, ReadValue) for s in statements),
        "variable target": sum(any(leaves.get(n) is not None and leaves[n].kind == "variable"
                                   for n in structure_references(c.target)) for c, leaves in calls),
        "target also source": sum(bool(set(structure_references(c.target)) & set(structure_references(c.sources)))
                                  for c, _ in calls),
        "empty jacobian": sum(c.method != "gradient" and any(leaves.get(n) is not None and leaves[n].value.size == 0
                                                             for n in structure_references(c.sources))
                              for c, leaves in calls),
        "namedtuple sources": sum(isinstance(c.sources, dict) and "namedtuple" in c.sources for c, _ in calls),
        "watched_variables": sum(isinstance(s, WatchedVariables) for s in statements),
    }
    found.update(_tape_classes(sample))
    print(found)
    assert all(count >= 2 for count in found.values()), found


def _tape_classes(sample) -> dict:
    """Watches of intermediates the tape already recorded; sources of another dtype than the program's
    (reached through a cast); sources that are outputs of ops without a gradient (stop_gradient, round)."""
    found = {"watched intermediate": 0, "source of another dtype": 0, "source without a gradient": 0}
    for p in sample:
        ops, leaves = {op.name: op for op in p.ops()}, p.leaves()
        dtype = next(iter(leaves.values())).dtype
        statements = list(walk(p.statements))
        found["watched intermediate"] += sum(isinstance(s, Watch) and any(_base(n) in ops for n in s.names)
                                             for s in statements)
        for call in (s for s in statements if isinstance(s, Call)):
            sources = [_base(n) for n in structure_references(call.sources)]
            found["source of another dtype"] += any(n in leaves and leaves[n].dtype not in (dtype, "int32")
                                                    for n in sources)
            found["source without a gradient"] += any(n in ops and CATALOG[ops[n].path].gradient != "gradient"
                                                      for n in sources)
    return found


def _kinds(structure) -> set:
    """The container kinds in a structure, at any depth."""
    if structure is None or isinstance(structure, str):
        return set()
    (kind, items), = structure.items()
    children = [c for _, c in items[1]] if kind == "namedtuple" else [c for _, c in items] if kind == "dict" else items
    return {kind}.union(*map(_kinds, children))


def _unsorted_dicts(structure) -> bool:
    """A dict or namedtuple in the structure whose keys are not in sorted order (TF flattens dicts by key)."""
    if structure is None or isinstance(structure, str):
        return False
    (kind, items), = structure.items()
    entries = items[1] if kind == "namedtuple" else items if kind == "dict" else [(None, c) for c in items]
    keys = [k for k, _ in entries if k is not None]
    return keys != sorted(keys) or any(_unsorted_dicts(c) for _, c in entries)


def test_structured_targets_and_output_gradients_occur(sample):
    """Targets of every structure (unsorted dicts and namedtuples, nested inside a list too) with output
    gradients TF pairs with them: as many as the targets, in their structure or another (a dict in
    another insertion order, a flat list); a target or a source listed twice; jacobians with dict and
    namedtuple sources."""
    calls = [s for p in sample for s in walk(p.statements) if isinstance(s, Call)]
    weighted = [c for c in calls if c.output_gradients is not None and not isinstance(c.target, str)]
    assert all(len(flat_references(c.output_gradients)) == len(flat_references(c.target)) for c in weighted)
    found = {
        "unsorted dict or namedtuple target with weights": sum(_unsorted_dicts(c.target) for c in weighted),
        "dict weights": sum("dict" in _kinds(c.output_gradients) for c in weighted),
        "namedtuple weights": sum("namedtuple" in _kinds(c.output_gradients) for c in weighted),
        "flat weights for a dict target": sum(_kinds(c.output_gradients) == {"list"} and "dict" in _kinds(c.target)
                                              for c in weighted),
        "dict weights in unsorted key order": sum("dict" in _kinds(c.output_gradients)
                                                  and _unsorted_dicts(c.output_gradients) for c in weighted),
        "container nested in a list target": sum(isinstance(c.target, dict) and "list" in c.target
                                                 and any(not isinstance(x, str) for x in c.target["list"])
                                                 for c in calls),
        "target listed twice": sum(len(set(flat_references(c.target))) < len(flat_references(c.target))
                                   for c in calls),
        "source listed twice": sum(len(set(structure_references(c.sources))) < len(structure_references(c.sources))
                                   for c in calls),
        "jacobian with dict or namedtuple sources": sum(c.method == "jacobian" and bool({"dict", "namedtuple"}
                                                                                        & _kinds(c.sources))
                                                        for c in calls),
    }
    print(found)
    assert all(count >= 3 for count in found.values()), found


def _continued_on_the_same_tape(program) -> bool:
    """A gradient computed inside a persistent tape's block reaches the target of a later call on that tape."""
    consumers = _flow(program)
    tapes = [t for t in walk(program.statements) if isinstance(t, Tape) and t.persistent]
    for tape in tapes:
        inside = [s for s in walk(tape.body) if isinstance(s, Call) and s.tape == tape.name and s.method == "gradient"]
        later = [s for s in walk(program.statements) if isinstance(s, Call) and s.tape == tape.name]
        if any(_reaches(first.name, {_base(n) for n in structure_references(second.target)}, consumers)
               for first in inside for second in later if second is not first):
            return True
    return False


def _watched_while_paused(program) -> bool:
    """A watch inside a stop_recording span of the tape it names, of a leaf an op after the span consumes."""
    consumers = _flow(program)
    spans = [span for span in walk(program.statements) if isinstance(span, StopRecording)]
    paused = {s.name for span in spans for s in walk(span.body) if isinstance(s, Op)}
    watched = {n for span in spans for s in span.body if isinstance(s, Watch) and s.tape == span.tape for n in s.names}
    return any(consumers.get(n, set()) - paused for n in watched)


def _unheld_target_sources(program) -> int:
    """Calls whose targets and sources share a constant leaf that no statement watches."""
    leaves = program.leaves()
    watched = {n for s in walk(program.statements) if isinstance(s, Watch) for n in s.names}
    return sum(any(leaves.get(n) is not None and leaves[n].kind == "constant" and n not in watched
                   for n in set(structure_references(c.target)) & set(structure_references(c.sources)))
               for c in walk(program.statements) if isinstance(c, Call))


def _adjacent_sources(program) -> int:
    """Calls differentiating with respect to the inputs of a target's op (its VJP undiluted)."""
    inputs = {op.name: set(op.inputs) for op in program.ops()}
    return sum(any(inputs.get(_base(t), set()) & set(structure_references(c.sources)) for t in structure_references(c.target))
               for c in walk(program.statements) if isinstance(c, Call))


def test_gradient_path_structures_occur(sample):
    """Sparse zeros in output gradients, a fed gradient continuing on the same persistent tape,
    watches while paused, targets the tape does not hold (also sources), sources adjacent to a target."""
    leaves = {name: leaf for p in sample for name, leaf in p.leaves().items()}
    weights = [leaves[n].value for p in sample for s in walk(p.statements) if isinstance(s, Call)
               for n in structure_references(s.output_gradients)]
    found = {
        "sparse zeros": sum(bool(np.any(w == 0) and np.any(w != 0)) for w in weights),
        "continued on the same tape": sum(_continued_on_the_same_tape(p) for p in sample),
        "watched while paused": sum(_watched_while_paused(p) for p in sample),
        "unheld target": sum(_unheld_target_sources(p) for p in sample),
        "adjacent sources": sum(_adjacent_sources(p) for p in sample),
    }
    print(found)
    assert found["sparse zeros"] >= 20 and found["continued on the same tape"] >= 10, found  # about 1 in 7 programs
    assert found["watched while paused"] >= 3 and found["unheld target"] >= 5 and found["adjacent sources"] >= 20, found


def test_half_precision_composites_see_large_inputs():
    """reduce_euclidean_norm, reduce_std and friends consume half-precision leaves near the dtype's
    largest values, whose squares or sums overflow in TF's kernels."""
    composites = tuple(p for p in CATALOG if p.split(".")[-1] in ("reduce_euclidean_norm", "reduce_std", "norm"))
    sample = _sample(programs(ops=composites, dtypes=("float16", "bfloat16")), 40)
    large = 0
    for p in sample:
        leaves = p.leaves()
        large += any(np.any(np.abs(np.asarray(leaves[n].value, np.float64)) >= 256)
                     for op in p.ops() if op.path in composites for n in op.inputs if n in leaves)
    print(f"programs with a large half-precision leaf under a composite: {large}/40")
    assert large >= 8


def test_float32_and_float64_leaves_hold_subnormals():
    """Subnormals of both signs (the smallest too) reach ops in float32 and float64 programs: TF reads
    them as zero in its vector loops and as they are in its scalar loops."""
    # 200 programs: the rarest kind (float64's smallest subnormal) was in 33 of 600 on 2026-11-26, so 60 programs
    # expected 3 of it and missed a kind by chance about once in five catalog changes; 200 expect 11
    sample = _sample(programs(dtypes=("float32", "float64")), 200)
    found = set()
    for p in sample:
        for leaf in p.leaves().values():
            value = np.asarray(leaf.value)
            if value.dtype.kind == "f" and value.dtype.itemsize >= 4:
                below = value[(value != 0) & (np.abs(value) < np.finfo(value.dtype).tiny)]
                found |= {(value.dtype.name, "smallest" if abs(v) == np.finfo(value.dtype).smallest_subnormal
                           else "negative" if v < 0 else "positive") for v in below}
    print(f"subnormal kinds drawn: {sorted(found)}")
    assert found == {(d, k) for d in ("float32", "float64") for k in ("positive", "negative", "smallest")}


def test_special_points_reach_the_ops():
    """Exact ties under max/min, zeros under reduce_prod/cumprod, non-positive bases under pow."""
    wanted = [p for p in CATALOG if p.split(".")[-1] in ("reduce_max", "reduce_prod", "cumprod", "pow")]
    sample = _sample(programs(ops=tuple(wanted), dtypes=("float32", "float64")), 40)

    def leaf_inputs(path):
        for p in sample:
            leaves = p.leaves()
            for op in p.ops():
                if op.path.split(".")[-1] == path:
                    yield [np.asarray(leaves[n].value) for n in op.inputs if n in leaves]

    ties = [v for vs in leaf_inputs("reduce_max") for v in vs if v.size > 1 and len(np.unique(v)) < v.size]
    zeros = [v for vs in list(leaf_inputs("reduce_prod")) + list(leaf_inputs("cumprod")) for v in vs
             if np.any(v == 0)]
    bases = [vs[0] for vs in leaf_inputs("pow") if len(vs) == 2 and np.any(np.real(vs[0]) <= 0)]
    print(f"leaf inputs with ties under reduce_max: {len(ties)}, zeros under reduce_prod/cumprod: {len(zeros)}, "
          f"non-positive bases under pow: {len(bases)}")
    assert len(ties) >= 5 and len(zeros) >= 5 and len(bases) >= 5


def test_op_choice_is_near_uniform():
    """Every catalog op is drawn within a CI-sized sample of default programs. The sample is sized for the
    rarest op, not the average one: an op is drawn only in programs of a dtype it takes and whose tensors
    fit it, so on 2026-11-26 (203 ops) the rarest (math.polygamma) was in 22 of 2,000 programs where the
    mean op was in 86. 1,000 programs expect 11 of the rarest (a miss by chance about 2e-5); 400, which
    sufficed for fewer ops, expected 4 and missed one op or another whenever ops were added."""
    drawn = {op.path for p in _sample(programs(), 1000, seed=2) for op in p.ops()}
    assert set(CATALOG) - drawn == set()


@pytest.mark.parametrize("path", sorted(CATALOG))
def test_reaches_every_op(path):
    drawn = _sample(programs(ops=(path,)), 5)
    assert any(op.path == path for program in drawn for op in program.ops())


def test_reaches_every_dtype_and_option_value():
    summary = coverage_summary(features(p) for p in _sample(programs(), 600))
    assert {d for _, d in summary["op_dtype"]} == set(DTYPES)
    options = set(summary["options"])
    expected = ({f"persistent={b}" for b in (True, False)} | {f"watch_accessed_variables={b}" for b in (True, False)}
                | {f"method={m}" for m in METHODS} | {f"unconnected={u}/{f}" for u, f in UNCONNECTED}
                | {f"output_gradients={b}" for b in (True, False)} | {"stop_recording", "reset", "watched_variables"}
                | {"while_loop", "cond(tensor predicate)", "cond(Python predicate)"}
                | {f"nesting={n}" for n in (1, 2, 3)} | {f"use_pfor={b}" for b in (True, False)}
                | {f"{part}={k}" for part in ("sources", "targets")
                   for k in ("single", "list", "tuple", "dict", "nested", "namedtuple")})
    assert expected - options == set()
    # Every op x dtype pair is exercised deterministically by tests/suite/test_ops.py (recorded in coverage).


@given(shapes(min_rank=1, max_rank=3, max_side=3).flatmap(lambda s: st.tuples(st.just(s), broadcastable_shapes(s))))
def test_broadcastable_shapes_broadcast(pair):
    shape, other = pair
    assert np.broadcast_shapes(shape, other) == shape


@given(dtypes(allowed=DTYPES).flatmap(lambda d: st.tuples(st.just(d), values(d, (2, 3), domain="positive"))))
def test_values_honour_dtype_shape_and_domain(pair):
    dtype, array = pair
    assert array.shape == (2, 3) and array.dtype.name == dtype
    assert np.all(np.asarray(array.real if dtype.startswith("complex") else array, np.float64) >= 0)


# programs() checks its arguments when drawing, which `.example()` does outside a test: its warning is expected
@pytest.mark.filterwarnings("ignore::hypothesis.errors.NonInteractiveExampleWarning")
@pytest.mark.parametrize("build, message", [
    (lambda: shapes(min_rank=3, max_rank=1), "min_rank=3 must not exceed max_rank=1"),
    (lambda: shapes(max_side=0), "max_side=0 must be an integer >= 1"),
    (lambda: dtypes(allowed=("float8",)), "allowed=('float8',)"),
    (lambda: values("float32", (2,), domain="weird"), "domain='weird'"),
    (lambda: broadcastable_shapes([2, 3]), "shape=[2, 3]"),
    (lambda: programs(max_depth=4).example(), "max_depth=4"),
    (lambda: programs(ops=("no.such.op",)).example(), "no.such.op"),
    (lambda: programs(max_ops=0).example(), "max_ops=0"),
])
def test_invalid_arguments_raise_naming_the_argument(build, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)").replace("[", r"\[")):
        build()


def _leaf_inputs(program, paths: tuple) -> list:
    """The values of the leaves that ops among `paths` consume directly."""
    leaves = program.leaves()
    return [np.asarray(leaves[n].value, np.float64) for op in program.ops() if op.path in paths
            for n in op.inputs if n in leaves]


def test_an_ops_own_special_points_are_planted_in_its_leaves():
    """relu6's leaves hold exactly 6 often (not only as one point of many in the domain's pool)."""
    sample = _sample(programs(ops=("nn.relu6",), dtypes=("float32", "float64")), 40)
    inputs = [v for p in sample for v in _leaf_inputs(p, ("nn.relu6",)) if np.size(v)]  # empty ones hold no point
    at_six = sum(bool(np.any(v == 6.0)) for v in inputs)
    print(f"relu6 leaf inputs holding 6: {at_six}/{len(inputs)}")
    assert at_six >= 0.3 * len(inputs)


def _upstream_sources(program) -> int:
    """Calls taking another call's output gradient as a source, where that call's result reaches their target."""
    consumers = _flow(program)
    calls = [s for s in walk(program.statements) if isinstance(s, Call)]
    return sum(any(set(structure_references(first.output_gradients)) & set(structure_references(second.sources))
                   and _reaches(first.name, {_base(n) for n in structure_references(second.target)}, consumers)
                   for first in calls if first is not second) for second in calls)


def test_gradients_are_differentiated_with_respect_to_their_output_gradients(sample):
    """A tape differentiates a gradient it recorded with respect to that gradient's output gradients:
    the VJP of each VJP in its upstream argument (ReluGrad's mask, EluGrad's factor)."""
    found = sum(_upstream_sources(p) > 0 for p in sample)
    print(f"programs differentiating a gradient by its output gradients: {found}/{len(sample)}")
    assert found >= 20  # 4 before output gradients joined the gradient's dependencies


def test_jacobians_take_unconnected_sources_often(independent):
    """A jacobian's source its target does not reach: TF's vectorized loop still checks the ops behind the others."""
    jacobians = unconnected = 0
    for p in independent:
        consumers = _flow(p)
        for call in (s for s in walk(p.statements) if isinstance(s, Call) and s.method == "jacobian"):
            jacobians += 1
            targets = {_base(n) for n in structure_references(call.target)}
            unconnected += any(not _reaches(_base(s), targets, consumers) for s in structure_references(call.sources))
    print(f"jacobians with an unconnected source: {unconnected}/{jacobians}")
    # three independent samples of 600 (2026-11-26): 0.316, 0.337, 0.317 of about 400 jacobians each
    assert unconnected >= 0.22 * jacobians


def test_variables_read_for_stop_gradient_meet_watched_variables():
    """A Variable read only by stop_gradient (TF pauses the tapes: not watched) on a tape whose watched
    variables the program lists."""
    found = 0
    for p in _sample(programs(dtypes=("float32",)), 300, seed=3):
        variables = {n for n, leaf in p.leaves().items() if leaf.kind == "variable"}
        listed = {s.tape for s in walk(p.statements) if isinstance(s, WatchedVariables)}
        tapes = [t for t in walk(p.statements) if isinstance(t, Tape) and t.name in listed]
        found += any(isinstance(s, Op) and s.path == "stop_gradient" and s.inputs[0] in variables
                     for t in tapes for s in walk(t.body))
    print(f"programs listing watched variables after a stop_gradient read: {found}/300")
    assert found >= 2


def test_half_precision_programs_overflow_composites():
    """Among all ops, half-precision programs still put near-overflow leaves under a composite
    (reduce_euclidean_norm and friends overflow in float16 only in TF's kernels)."""
    composites = tuple(p for p in CATALOG if p.split(".")[-1] in ("reduce_euclidean_norm", "reduce_std",
                                                                 "reduce_variance", "norm", "l2_normalize",
                                                                 "reduce_logsumexp", "l2_loss"))
    sample = _sample(programs(dtypes=("float16",)), 100, seed=4)
    found = sum(any(np.any(np.abs(v) >= 256) for v in _leaf_inputs(p, composites)) for p in sample)
    print(f"float16 programs with a near-overflow leaf under a composite: {found}/100")
    assert found >= 25


def test_cross_entropy_logits_come_from_the_chain():
    """Cross entropies take fresh labels and the chain as logits (so a gradient through them runs the
    VJPs before them, and their second order too), not only fresh leaves from the labels' domain."""
    paths = tuple(p for p in CATALOG if "cross_entropy" in p and CATALOG[p].arity == 2)  # labels and logits
    sample = _sample(programs(ops=paths + ("nn.relu", "sin", "multiply"), dtypes=("float32", "float64")), 40)
    logits = [(op.inputs[1], {o.name for o in p.ops()}) for p in sample for op in p.ops() if op.path in paths]
    computed = sum(name in computed_names for name, computed_names in logits)
    print(f"cross entropy logits computed by an op: {computed}/{len(logits)}")
    assert computed >= 0.2 * len(logits)


def _second_derivative_sources(program) -> int:
    """Calls of an outer tape differentiating, with respect to an inner call's source, a target that
    inner call's result reaches."""
    consumers = _flow(program)
    calls = [s for s in walk(program.statements) if isinstance(s, Call)]
    return sum(any(set(structure_references(first.sources)) & set(structure_references(second.sources))
                   and _reaches(first.name, {_base(n) for n in structure_references(second.target)}, consumers)
                   for first in calls if first.tape != second.tape) for second in calls)


def _special_sources(program) -> int:
    """Calls taking as a source a leaf that holds a special point of the op consuming it."""
    leaves = program.leaves()
    special = {n for op in program.ops() for i, n in enumerate(op.inputs) if n in leaves and CATALOG[op.path].specials_for(i)
               and np.any(np.isin(np.asarray(leaves[n].value), CATALOG[op.path].specials_for(i)))}
    return sum(bool(special & set(structure_references(c.sources))) for c in walk(program.statements) if isinstance(c, Call))


def test_second_derivatives_and_special_points_are_differentiated(sample):
    """An outer tape's gradient with respect to an inner gradient's own source; leaves at an op's special point as
    sources (the generator before these were favoured: 19 and 19 of this sample).

    The second-derivative share is measured on 900 programs: over six random samples of 150 (2026-11-26) the
    generator before 9eb641a (its strategies.py change reverted) drew 16 to 28 such programs, 14.1% in all, and
    the generator since 26 to 35, 19.4%: 150 programs cannot tell them apart, and the bound of 24 failed as ops
    were added. On this fixed sample of 900 the generator before draws 143 to 149 and the generator since 176 to
    201 as the catalog grew (same day); the bound, 160, lies midway."""
    second = sum(_second_derivative_sources(p) > 0 for p in _sample(programs(), 900, seed=1))
    special = sum(_special_sources(p) > 0 for p in sample)
    print(f"programs taking a second derivative by the same source: {second}/900, a special leaf as a source: {special}")
    assert second >= 160 and special >= 35


def _double_vjp_products(program) -> int:
    """Calls differentiating another call's result itself by one of that call's output gradients (J·v by double VJP)."""
    calls = {s.name: s for s in walk(program.statements) if isinstance(s, Call)}
    return sum(isinstance(c.target, str) and c.target in calls and isinstance(c.sources, str)
               and c.sources in structure_references(calls[c.target].output_gradients) for c in calls.values())


def test_gradients_are_differentiated_by_their_output_gradients_directly(sample):
    """A persistent tape's gradient, with no op in between, differentiated by its output gradient: every
    VJP the first call ran is differentiated in its upstream argument (ReluGrad's mask shows unmasked)."""
    found = sum(_double_vjp_products(p) > 0 for p in sample)
    print(f"programs with a double-VJP product: {found}/{len(sample)}")
    assert found >= 8


def _ops_with_attrs(program) -> list:
    return [op for op in program.ops() if op.attrs]


def test_axes_are_counted_from_the_end_and_reductions_take_several(independent):
    """Axis attributes in TF's other forms: counted from the end where the catalog lists only non-negative
    ones (concat, stack, gather, the scans, unstack, split), and reductions over several axes, some
    counted from the end (the generator before drew neither). Counted in programs of the independent
    sample (binomial): 113 and 75 of 600 (2026-11-28), 112 and 73 with the decompositions of issue 24;
    the Hypothesis sample's counts (25 and 12 of 150, then 12 and 23) swung with each catalog addition.
    Bounds about four standard deviations below."""
    listed_non_negative = [p for p, spec in CATALOG.items()
                           if all(a is None or isinstance(a, int) and a >= 0 for a in spec.attrs.get("axis", (-1,)))]
    negative = sum(any(op.path in listed_non_negative and isinstance(op.attrs.get("axis"), int) and op.attrs["axis"] < 0
                       for op in _ops_with_attrs(p)) for p in independent)
    several = sum(any(op.path.split(".")[-1].startswith("reduce_") and isinstance(op.attrs.get("axis"), tuple)
                      and len(op.attrs["axis"]) >= 2 for op in _ops_with_attrs(p)) for p in independent)
    print(f"programs with a negative axis where the catalog lists none: {negative}/{len(independent)}, "
          f"with a reduction over several axes: {several}")
    assert negative >= 75 and several >= 40


def test_matmuls_transpose_adjoint_and_batch_their_operands():
    """matmul with an operand transposed or adjoint (complex ones conjugated), and with a stack of matrices as
    second operand, which the first broadcasts over (the generator before drew neither: 0 and 0; now 343 and 98)."""
    sample = _sample(programs(ops=("matmul", "linalg.matmul", "linalg.matvec", "sin"),
                              dtypes=("float64", "complex64")), 100, seed=5)
    flagged = batched = 0
    for p in sample:
        leaves = p.leaves()
        for op in (op for op in p.ops() if "matmul" in op.path or "matvec" in op.path):
            flagged += any(op.attrs.get(flag) for flag in ("transpose_a", "transpose_b", "adjoint_a", "adjoint_b"))
            batched += op.inputs[1] in leaves and np.ndim(leaves[op.inputs[1]].value) == 3
    print(f"matrix products with a transposed or adjoint operand: {flagged}, with a stack of matrices: {batched}")
    assert flagged >= 150 and batched >= 40


def test_complex_programs_reach_structure_ops():
    """Complex programs run the structure ops (their VJPs move complex gradients) and transpose's
    conjugate=True (the generator before: 20 casts of integer leaves, and 0; now 201 and 55)."""
    from reftape_oracle.catalog import FAMILIES

    sample = _sample(programs(dtypes=("complex64", "complex128")), 150, seed=6)
    structure = sum(op.path in FAMILIES["structure"] and op.path not in ("identity", "stop_gradient", "add_n", "pad",
                                                                          "math.segment_sum",
                                                                          "math.unsorted_segment_sum")
                    for p in sample for op in p.ops())
    transposes = _sample(programs(ops=("transpose", "sin", "multiply"), dtypes=("complex128",)), 40, seed=6)
    conjugated = sum(op.path == "transpose" and op.attrs.get("conjugate") is True for p in transposes for op in p.ops())
    print(f"structure ops in complex programs: {structure}, transposes with conjugate=True: {conjugated}")
    assert structure >= 100 and conjugated >= 10


def test_empty_tensors_reach_ops_with_attributes():
    """Ops on a tensor with an empty dimension beyond elementwise ones: reductions (to -inf, 1, NaN or empty),
    softmax, scans, transpose (the generator before took elementwise ops without attributes only: 0; now 29)."""
    sample = _sample(programs(dtypes=("float32", "float64")), 300, seed=7)
    found = 0
    for p in sample:
        leaves = p.leaves()
        found += sum(bool(op.attrs) and any(n in leaves and np.size(leaves[n].value) == 0 for n in op.inputs)
                     for op in p.ops())
    print(f"ops with attributes on empty tensors: {found}/300 programs")
    assert found >= 15


def test_enclosing_tapes_list_their_watched_variables_after_inner_calls(sample):
    """watched_variables() of a tape after a call made on a tape inside it: what the call read (a jacobian's
    unconnected Variable source filled by zeros_like, ZERO's fill) is watched by the enclosing tape
    (the generator before: 11 of this sample; now 27)."""
    found = 0
    for p in sample:
        order = list(walk(p.statements))
        inner = {t.name: {s.name for s in walk(t.body) if isinstance(s, Tape)} for t in order if isinstance(t, Tape)}
        calls = [(i, s) for i, s in enumerate(order) if isinstance(s, Call)]
        found += any(isinstance(s, WatchedVariables) and any(i < j and c.tape in inner[s.tape] for i, c in calls)
                     for j, s in enumerate(order))
    print(f"programs listing an enclosing tape's watched variables after an inner call: {found}/{len(sample)}")
    assert found >= 20


def test_ops_take_python_and_numpy_operands_and_lists_of_tensors(independent):
    """Ops receive what TF converts itself: Python numbers and nested lists, NumPy scalars and arrays
    (of the program's dtype and of float64, which TF casts), and Python lists holding tensors (packed
    by a recorded Pack, through which gradients reach a list's tensors and Variables), sometimes with
    a Python literal beside them."""
    found = Counter()
    for p in independent:
        statements = list(walk(p.statements))
        leaves = p.leaves()
        literals = {s.name: s for s in statements if isinstance(s, Leaf) and s.converted}
        lists = [s for s in statements if isinstance(s, ListLiteral)]
        differentiated = {n for s in statements if isinstance(s, Call) for n in flat_references(s.sources)}
        found["python"] += any(s.kind == "python" for s in literals.values())
        found["python int"] += any(s.kind == "python" and s.dtype == "int64" for s in literals.values())
        found["numpy"] += any(s.kind == "numpy" for s in literals.values())
        found["numpy float64 elsewhere"] += any(s.kind == "numpy" and s.dtype == "float64" != _dtype(p)
                                                for s in literals.values())
        found["first operand"] += any(op.inputs[0] in literals for op in p.ops() if len(op.inputs) > 1)
        found["list"] += bool(lists)
        found["list with a literal"] += any(any(i in literals for i in s.items) for s in lists)
        found["list item differentiated"] += any(i in differentiated for s in lists for i in s.items)
        found["list of variables"] += any(getattr(leaves.get(i), "kind", "") == "variable" for s in lists
                                          for i in s.items)
    print(f"programs of 600 with: {dict(found)}")
    # Three independent samples of 600 (2026-11-26): python 78-95, python int 7-16, numpy 28-35, numpy
    # float64 elsewhere 8-10, first operand 5-7, list 143-157, list with a literal 45-52, list of
    # variables 61-76; the generator before: none. Bounds about four standard deviations below the means;
    # the rarest forms are asserted to occur.
    assert found["python"] >= 50 and found["numpy"] >= 12 and found["list"] >= 100, found
    assert found["python int"] >= 1 and found["numpy float64 elsewhere"] >= 1 and found["first operand"] >= 1, found
    assert found["list with a literal"] >= 22 and found["list item differentiated"] >= 15, found
    assert found["list of variables"] >= 35, found


def _dtype(program) -> str:
    """The program's dtype: that of its first floating tensor leaf."""
    return next(leaf.dtype for leaf in program.leaves().values() if not leaf.converted
                and leaf.dtype.startswith(("float", "bfloat", "complex")))


def _ellipsis_dims(shape: tuple, labels: list) -> tuple:
    start = labels.index(ELLIPSIS)
    return tuple(shape[start:len(shape) - (len(labels) - start - 1)])


def test_einsum_draws_traces_ellipses_and_implicit_outputs():
    """einsum over TF's grammar (issue 24): equations with a label repeated inside an operand (traces,
    diagonals), an ellipsis (broadcast between operands whose dimensions differ), an implicit output, the
    chain's tensor as first operand where it fits; neither traces nor ellipses crowd out plain products (the
    generator before drew none of the first three: 0, 0, 0; this sample of 261 einsums holds 104 traces, 79
    ellipses, 5 broadcasts between fresh operands, 36 implicit outputs, 89 chained first operands)."""
    sample = _sample(programs(ops=("einsum", "linalg.einsum", "sin"), dtypes=("float64", "complex128")), 80, seed=8)
    found = Counter()
    for p in sample:
        leaves = p.leaves()
        for op in (op for op in p.ops() if "einsum" in op.path):
            specs, _ = einsum_subscripts(op.attrs["equation"])
            found["ops"] += 1
            found["traces"] += any(len(set(labels)) < len(labels) for labels in specs)
            found["ellipses"] += ELLIPSIS in op.attrs["equation"]
            found["implicit"] += "->" not in op.attrs["equation"]
            found["chained"] += op.inputs[0] not in leaves
            dims = {_ellipsis_dims(np.shape(leaves[n].value), labels) for n, labels in zip(op.inputs, specs)
                    if ELLIPSIS in labels and n in leaves}
            found["broadcast"] += len(dims) > 1
    print(dict(found))
    assert found["traces"] >= 60 and found["ellipses"] >= 45 and found["implicit"] >= 18 and found["chained"] >= 50
    assert found["broadcast"] >= 2
    assert found["traces"] <= 0.6 * found["ops"] and found["ellipses"] <= 0.6 * found["ops"]


def test_swarm_programs_are_small_and_each_draws_from_a_part_of_the_ops():
    """A campaign's swarm (properties/generate/tapes.py `_swarms`): programs of at most 3, 6 or 12 ops, each
    over a random part of the catalog, so that most programs use few distinct ops, and every op is still
    reached. Against the uniform schedule on the same seeds: smaller programs, fewer distinct ops each."""
    swarm, uniform = _sample(programs(swarm=True), 300, seed=4), _sample(programs(), 300, seed=4)

    def distinct(program):
        return len({op.path for op in program.ops()})

    sizes = {name: [len(_top_level_ops(p)) for p in drawn] for name, drawn in (("swarm", swarm), ("uniform", uniform))}
    print({name: (np.median(s), max(s)) for name, s in sizes.items()})
    assert np.median(sizes["swarm"]) < np.median(sizes["uniform"]) and max(sizes["swarm"]) <= max(sizes["uniform"])
    assert np.median([distinct(p) for p in swarm]) < np.median([distinct(p) for p in uniform])
    assert sum(distinct(p) == 1 for p in swarm) >= 30   # an op met alone, over its attributes and dtypes
    many = {op.path for p in _sample(programs(swarm=True), 1500, seed=5) for op in p.ops()}
    assert len(many) >= 0.95 * len(CATALOG), sorted(set(CATALOG) - many)


def test_the_coverage_schedule_runs_what_the_campaign_has_exercised_least_first(tmp_path, monkeypatch):
    """`--schedule coverage` (properties/campaign/schedule.py) as a campaign's worker applies it to the swarm's
    programs: a program runs when it exercises a rare feature (or wins its draw), and its coverage line is
    written. Its first 300 programs run reach more op x dtype pairs, attribute values and special points
    than the swarm's first 300; it passes over some programs, few of the first."""
    monkeypatch.setenv("REFTAPE_REPORT_DIR", str(tmp_path))
    drawn = [features(p) for p in _sample(programs(swarm=True), 700, seed=7)]
    tally, ran = CoverageTally(tmp_path / "coverage.jsonl"), {}
    for index, exercised in enumerate(drawn):
        if tally.admits(exercised, str(index), batch_seed=0):
            record_coverage(None, exercised)
            ran[index] = exercised

    def reached(lines):
        summary = coverage_summary(lines)
        return {kind: len(summary[kind]) for kind in ("op_dtype", "attributes", "specials")}

    scheduled, swarm = reached(list(ran.values())[:300]), reached(drawn[:300])
    print(scheduled, swarm, sorted(set(range(100)) - set(ran)))
    assert 300 <= len(ran) < len(drawn) and len(set(range(100)) & set(ran)) >= 70   # 80 here: early, most are new
    assert scheduled["op_dtype"] >= 1.15 * swarm["op_dtype"]
    assert scheduled["attributes"] > swarm["attributes"] and scheduled["specials"] >= swarm["specials"]


def test_features_name_categorical_attribute_values_and_inputs_at_special_points():
    """maximum's special points (2, 2) and (NaN, 1): an input holding 2 or NaN is at one; an index list is no
    categorical attribute."""
    leaves = [Leaf("a", "variable", np.array([np.nan, 0.5], np.float32), "float32"),
              Leaf("b", "constant", np.array([2.0, 0.5], np.float32), "float32"),
              Leaf("c", "constant", np.array([0.25, 0.5], np.float32), "float32")]
    ops = [Op("m", "maximum", ["a", "c"]), Op("n", "maximum", ["c", "b"]),
           Op("s", "math.reduce_sum", ["m"], {"axis": -1, "keepdims": False}),
           Op("g", "gather", ["n"], {"indices": (1, 0), "axis": 0})]
    exercised = features(Program(leaves + ops, ["s", "g"]))
    assert exercised["specials"] == ["maximum@0", "maximum@1"]
    assert exercised["attributes"] == ["gather:axis=0", "math.reduce_sum:axis=-1", "math.reduce_sum:keepdims=False"]


def test_a_coverage_tally_counts_whole_lines_and_calls_rare_what_is_below_half_its_kinds_median(tmp_path):
    common = {"ops": ["sin"], "dtypes": ["float32"], "options": ["nesting=1"], "attributes": [], "specials": []}
    lines = tmp_path / "coverage.jsonl"
    lines.write_text("\n".join(json.dumps(common) for _ in range(20)) + "\n"
                     + json.dumps({**common, "ops": ["cos"]}) + "\n" + '{"ops": ["tan"], "dty')
    tally = CoverageTally(lines)
    assert not tally.favours(common)                      # sin/float32 20 times: the median
    assert tally.favours({**common, "ops": ["cos"]})       # once: below half the median
    assert tally.favours({**common, "ops": ["tan"]})       # the line being written is not counted yet
    assert tally.favours({**common, "specials": ["sin@0"]})  # never exercised
    with lines.open("a") as more:
        more.write('pes": ["float32"], "options": []}\n')
    tally.catch_up()
    assert tally.counts["op_dtype"][("tan", "float32")] == 1 and tally.counts["op_dtype"][("sin", "float32")] == 20


def test_an_unfavoured_program_runs_at_its_rate_decided_by_its_text_and_batch():
    draws = [runs_anyway(str(n), 5) for n in range(4000)]
    assert abs(sum(draws) / len(draws) - RUN_UNFAVOURED) < 0.02   # about 4 standard deviations
    assert draws == [runs_anyway(str(n), 5) for n in range(4000)] != [runs_anyway(str(n), 6) for n in range(4000)]


def test_accumulated_programs_run_inside_a_forward_accumulator_with_jvps_of_what_depends_on_its_primals():
    """`programs(accumulators=1.0)` (the forward check's): every program's leaves come first, then one
    accumulator around the rest whose primals are leaves the ops read; most programs take a jvp of an op
    output computed from a primal (measured: 96 of 100 on this sample); `programs()` draws none. Each
    round-trips through JSON and prints."""
    drawn = _sample(programs(accumulators=1.0, swarm=True), 100, seed=6)
    with_jvps = 0
    for program in drawn:
        blocks = [s for s in walk(program.statements) if isinstance(s, Accumulator)]
        assert len(blocks) <= 1
        if not blocks:   # no leaf an op reads could be a primal
            continue
        accumulator = blocks[0]
        top = program.statements
        assert all(isinstance(s, Leaf) for s in top[:top.index(accumulator)])
        assert not any(isinstance(s, Leaf) for s in walk(accumulator.body))
        jvps = [s for s in walk(program.statements) if isinstance(s, Jvp)]
        with_jvps += bool(jvps)
        assert Program.from_json(program.to_json()).to_json() == program.to_json()
        compile(program.to_source("tensorflow"), "<program>", "exec")
    print("with jvps:", with_jvps)
    assert with_jvps >= 0.75 * len(drawn)
    assert not any(isinstance(s, Accumulator) for p in _sample(programs(), 50, seed=6) for s in walk(p.statements))


@pytest.mark.parametrize("options, message", [
    ({"accumulators": 1.5}, "must be a share between 0 and 1"),
    ({"accumulators": 0.5, "lacking": frozenset({"autodiff.ForwardAccumulator"})}, "which the backend lacks"),
])
def test_accumulator_options_are_validated(options, message):
    with pytest.raises(ValueError, match=message):
        _sample(programs(**options), 1)


def test_while_loops_are_drawn_over_bounded_elementwise_ops_at_a_measured_rate():
    """About one program in five holds a `tf.while_loop` (WHILE_LOOP_SHARE of the ops drawn; measured: 56
    of 300 on this sample), trip counts 0 to 3 all drawn, bodies of bounded elementwise ops (a closure times
    a constant now and then), never in a backend that lacks while_loop."""
    drawn = _sample(programs(), 300, seed=7)
    loops = [s for p in drawn for s in walk(p.statements) if isinstance(s, WhileLoop)]
    with_loops = sum(any(isinstance(s, WhileLoop) for s in walk(p.statements)) for p in drawn)
    print("programs with loops:", with_loops)
    assert 0.07 * len(drawn) <= with_loops <= 0.25 * len(drawn)
    assert {loop.trips for loop in loops} == {0, 1, 2, 3}
    assert all(CATALOG[op.path].has(BOUNDED) or op.path == "multiply" for loop in loops for op in loop.body)
    assert any(op.path == "multiply" for loop in loops for op in loop.body)
    lacking = _sample(programs(lacking=frozenset({"while_loop"})), 100, seed=7)
    assert not any(isinstance(s, WhileLoop) for p in lacking for s in walk(p.statements))


def test_conds_are_drawn_with_both_predicates_and_branches_of_bounded_elementwise_ops_at_a_measured_rate():
    """About one program in seven holds a `tf.cond` (COND_SHARE of the ops drawn; measured: 45 of 300 on this
    sample): predicates True and False, Python bools and tensors, a taken branch of no op now and then, an untaken
    one reading another tensor (a source only it reads has no gradient), never in a backend that lacks cond."""
    drawn = _sample(programs(), 300, seed=7)
    conds = [s for p in drawn for s in walk(p.statements) if isinstance(s, Cond)]
    with_conds = sum(any(isinstance(s, Cond) for s in walk(p.statements)) for p in drawn)
    print("programs with conds:", with_conds)
    assert 0.07 * len(drawn) <= with_conds <= 0.25 * len(drawn)
    assert {(c.predicate, c.tensor_predicate) for c in conds} == {(True, True), (True, False), (False, True), (False, False)}
    assert any(not c.branch()[0] for c in conds) and any(c.branch()[0] for c in conds)

    def outside_reads(cond: Cond, taken: bool) -> set:
        body, result = cond.branch(taken)
        return {name for name in [*(n for op in body for n in op.inputs), result]} - {op.name for op in body}

    assert any(outside_reads(c, False) - outside_reads(c, True) for c in conds)
    assert all(CATALOG[op.path].has(BOUNDED) for c in conds for op in c.true_body + c.false_body)
    lacking = _sample(programs(lacking=frozenset({"cond"})), 100, seed=7)
    assert not any(isinstance(s, Cond) for p in lacking for s in walk(p.statements))


_INDEX_OPS = ("gather", "gather_nd", "scatter_nd", "tensor_scatter_nd_add", "tensor_scatter_nd_update",
              "nn.embedding_lookup", "sparse.segment_sum", "sparse.segment_mean", "sparse.segment_sqrt_n")


def _index_rows_of(op) -> tuple[int | str, list]:
    """An index op's index depth ("batched" for a gather with batch_dims) and its index rows (tuples for N-d
    indices, (member, index) pairs for a batched gather)."""
    if op.path == "gather" and op.attrs.get("batch_dims"):
        return "batched", [(member, i) for member, row in enumerate(index_rows(op.attrs["indices"])) for i in row]
    if op.path in ("gather_nd", "scatter_nd", "tensor_scatter_nd_add", "tensor_scatter_nd_update"):
        return op.attrs["indices"][0], [tuple(row) for row in index_rows(op.attrs["indices"])]
    return 1, list(op.attrs["ids"] if "ids" in op.attrs else op.attrs["indices"])


def test_gathers_and_scatters_repeat_indices_at_every_depth():
    """Every gather and scatter family op reads or writes an index twice in a good share of its draws, at every
    index depth it draws (1 and 2 for gather_nd, scatter_nd and the tensor scatters; gather with and without a
    batch dimension), and distinct indices in the others. This sample (2026-11-28, 200 programs): 41%
    (tensor_scatter_nd_update at depth 2, 24 of 58) to 77% (sparse.segment_sqrt_n, 82 of 106) with a repeat, a
    batched gather in 24 of 172; before the generator repeated a row on purpose (REPEATED_INDEX_CHANCE), by
    chance alone 33% to 65%."""
    found = Counter()
    for p in _sample(programs(ops=_INDEX_OPS + ("sin",), dtypes=("float64", "complex128")), 200, seed=9):
        for op in (op for op in p.ops() if op.path in _INDEX_OPS):
            depth, rows = _index_rows_of(op)
            found[op.path, depth] += 1
            found[op.path, depth, "repeated"] += len(set(rows)) < len(rows)
    drawn = {key: found[key] for key in found if len(key) == 2}
    print({f"{path} depth {depth}": f"{found[path, depth, 'repeated']}/{n}" for (path, depth), n in sorted(drawn.items(), key=str)})
    assert {path for path, _ in drawn} == set(_INDEX_OPS)
    assert {("gather_nd", 2), ("scatter_nd", 2), ("tensor_scatter_nd_add", 2), ("tensor_scatter_nd_update", 2),
            ("gather", "batched")} <= set(drawn)
    for key, n in drawn.items():
        assert n >= 20 and 0.2 * n <= found[key + ("repeated",)] <= 0.85 * n, (key, found[key + ("repeated",)], n)


_SEGMENT_EXTREMES = ("math.segment_max", "math.segment_min", "math.unsorted_segment_max", "math.unsorted_segment_min")


def test_segment_extremes_draw_rows_tied_in_a_segment():
    """A segment min or max shares its gradient among the rows tied at its extreme: a fresh leaf drawn for an op
    with an integer per row has two equal rows at ROW_TIE_CHANCE, so a share of the segment extremes read two
    equal rows of one segment. This sample (2026-11-28, 120 programs, inputs that are leaves of two or more rows):
    11 of 78 (unsorted_segment_max) to 22 of 99 (unsorted_segment_min); without ROW_TIE_CHANCE, by the random
    element ties alone, 2 of 78 to 13 of 104."""
    tied, drawn = Counter(), Counter()
    for p in _sample(programs(ops=_SEGMENT_EXTREMES, dtypes=("float32", "float64")), 120, seed=11):
        leaves = {s.name: np.asarray(s.value) for s in walk(p.statements) if isinstance(s, Leaf)}
        for op in (op for op in p.ops() if op.path in _SEGMENT_EXTREMES and op.inputs[0] in leaves):
            x, ids = leaves[op.inputs[0]], op.attrs["segment_ids"]
            if x.ndim == 0 or len(x) < 2:
                continue
            drawn[op.path] += 1
            tied[op.path] += any(ids[a] == ids[b] >= 0 and np.array_equal(x[a], x[b])
                                 for a in range(len(ids)) for b in range(a + 1, len(ids)))
    print({path: f"{tied[path]}/{n}" for path, n in drawn.items()})
    assert set(drawn) == set(_SEGMENT_EXTREMES)
    for path, n in drawn.items():
        assert n >= 20 and 0.1 * n <= tied[path] <= 0.6 * n, (path, tied[path], n)


def test_inverse_real_ffts_draw_spectra_with_interior_bins():
    """irfft's gradient doubles the bins between the first and the last (they stand for their mirror images too):
    half the spectra of 2 bins are replaced by 3 (generate.ops.INTERIOR_BINS_CHANCE). This sample (2026-11-28,
    200 complex programs): 164 of 357 irfft and 182 of 479 irfft2d inputs with 3 bins or more; before, 91 of 311
    and 92 of 461."""
    found = Counter()
    for p in _sample(programs(ops=("signal.irfft", "signal.irfft2d", "sin"), dtypes=("complex64", "complex128")), 200,
                     seed=12):
        shapes = {s.name: np.shape(s.value) for s in walk(p.statements) if isinstance(s, Leaf)}
        for op in (op for op in p.ops() if op.path.startswith("signal.irfft") and op.inputs[0] in shapes):
            found[op.path] += 1
            found[op.path, "interior"] += shapes[op.inputs[0]][-1] >= 3
    print(dict(found))
    for path in ("signal.irfft", "signal.irfft2d"):
        assert found[path] >= 20 and 0.3 * found[path] <= found[path, "interior"] <= 0.9 * found[path], dict(found)
