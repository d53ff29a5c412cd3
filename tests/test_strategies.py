"""The strategies themselves: they produce valid programs, reach every catalog op, dtype and tape
option value, keep filtering negligible, and reject invalid arguments with clear errors."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reftape_oracle import run
from reftape_oracle.catalog import CATALOG
from reftape_properties.recording import coverage_summary, features
from reftape_properties.strategies import (DTYPES, METHODS, UNCONNECTED, broadcastable_shapes, dtypes, programs, shapes,
                                   values)

# Outcome errors that mean the generator built an invalid program (not TF-level behaviour under test).
GENERATOR_BUGS = ("NameError", "UnboundLocalError", "SyntaxError", "KeyError", "IndexError")


def _sample(strategy, count, seed=0):
    """`count` examples of `strategy`, reproducibly."""
    drawn = []

    @settings(max_examples=count, derandomize=True, database=None, deadline=None,
              suppress_health_check=list(HealthCheck), phases=["generate"])
    @given(strategy)
    def collect(example):
        drawn.append(example)

    collect()
    return drawn


def test_programs_are_valid_by_construction():
    invalid = 0
    drawn = _sample(programs(), 60)
    for program in drawn:
        outcome = run(program, "reftape")
        errors = [outcome.error] + [c for c in outcome.calls.values() if c.get("kind") == "exception"]
        invalid += any(e and e.get("class") in GENERATOR_BUGS for e in errors)
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
                | {f"output_gradients={b}" for b in (True, False)} | {"stop_recording", "reset"}
                | {f"nesting={n}" for n in (1, 2, 3)} | {f"use_pfor={b}" for b in (True, False)}
                | {f"sources={k}" for k in ("single", "list", "tuple", "dict", "nested")})
    assert expected - options == set()
    # Every op x dtype pair is exercised deterministically by tests/test_ops.py (recorded in coverage).


@given(shapes(min_rank=1, max_rank=3, max_side=3).flatmap(lambda s: st.tuples(st.just(s), broadcastable_shapes(s))))
def test_broadcastable_shapes_broadcast(pair):
    shape, other = pair
    assert np.broadcast_shapes(shape, other) == shape


@given(dtypes(allowed=DTYPES).flatmap(lambda d: st.tuples(st.just(d), values(d, (2, 3), domain="positive"))))
def test_values_honour_dtype_shape_and_domain(pair):
    dtype, array = pair
    assert array.shape == (2, 3) and array.dtype.name == dtype
    assert np.all(np.asarray(array.real if dtype.startswith("complex") else array, np.float64) >= 0)


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
