"""Metamorphic properties of gradient tapes, checked on each backend separately (the
candidate, --reftape-backend, and TensorFlow): relations any correct tape satisfies, whatever the function."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from reftape_oracle.catalog import CATALOG, FAMILIES, apply
from reftape_properties.conformance.support import drawable
from reftape_properties.generate import shapes, values
from reftape_properties.judge.tolerance import Tolerance, compare_arrays

from .marks import candidate_and_tensorflow

# Elementwise in the strict sense: one input, no attributes (segment ids, shifts, axes), float32 among the dtypes
ALL_SMOOTH_UNARY = tuple(p for p in FAMILIES["elementwise_unary"] if CATALOG[p].domains == ("any",)
                         and CATALOG[p].gradient == "gradient" and "exp" not in p and "cosh" not in p and "sinh" not in p
                         and CATALOG[p].shape_rule == "unary" and not CATALOG[p].attrs and "float32" in CATALOG[p].dtypes)
ALL_SMOOTH_BINARY = ("add", "subtract", "multiply", "math.add", "math.multiply", "math.squared_difference")
# The chains draw only the ops the candidate has; with none of either kind, the tests need them all.
SMOOTH_UNARY, SMOOTH_BINARY = drawable(ALL_SMOOTH_UNARY), drawable(ALL_SMOOTH_BINARY)
_CHAIN_NEEDS = (() if SMOOTH_UNARY else ALL_SMOOTH_UNARY) + (() if SMOOTH_BINARY else ALL_SMOOTH_BINARY)


def on_each_backend(*names: str) -> pytest.MarkDecorator:
    """Parametrises `backend` with TensorFlow and the candidate, which needs `names` (and the chains' ops)."""
    return pytest.mark.parametrize("backend", candidate_and_tensorflow(*names, *_CHAIN_NEEDS))


@st.composite
def chains(draw, min_rank=1):
    """An elementwise function y = f(x, w) as a list of (op, uses w) steps, plus x, w and a weight.
    Shrinks toward one op, rank 1, float32."""
    dtype = draw(st.sampled_from(("float32", "float64")))
    shape = draw(shapes(min_rank=min_rank, max_rank=2, max_side=3))
    steps = draw(st.lists(st.one_of(st.sampled_from(SMOOTH_UNARY).map(lambda p: (p, False)),
                                    st.sampled_from(SMOOTH_BINARY).map(lambda p: (p, True))), min_size=1, max_size=4))
    x, w, u, v = (draw(values(dtype, shape, domain="unit")) for _ in range(4))
    return steps, x, w, u, v


def _namespace(name):
    from reftape_oracle import load_backend

    return load_backend(name)


def _apply_chain(ns, steps, x, w):
    y = x
    for path, binary in steps:
        y = apply(ns, path, [y, w] if binary else [y], {})
    return y


def _recorded(backend, steps, x0, w0):
    """(namespace, persistent tape, x, y = f(x, w)) with x watched."""
    ns = _namespace(backend)
    x, w = ns.constant(x0), ns.constant(w0)
    with ns.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = _apply_chain(ns, steps, x, w)
    return ns, tape, x, y


def _close(a, b, terms=2):
    a, b = np.asarray(a), np.asarray(b)
    assert compare_arrays(a, b, Tolerance.for_dtype(a.dtype, gradient=True, summed_terms=terms)) is None, (a, b)


@on_each_backend("GradientTape.gradient(output_gradients=)")
@given(chains())
def test_gradient_is_linear_in_output_gradients(backend, chain):
    steps, x0, w0, u, v = chain
    ns, tape, x, y = _recorded(backend, steps, x0, w0)
    gu = tape.gradient(y, x, output_gradients=ns.constant(u)).numpy()
    gv = tape.gradient(y, x, output_gradients=ns.constant(v)).numpy()
    both = tape.gradient(y, x, output_gradients=ns.constant(u) + ns.constant(v)).numpy()
    _close(both, gu + gv)


@on_each_backend()
@given(chains(), chains())
def test_gradient_of_a_list_of_targets_is_the_sum(backend, first, second):
    ns = _namespace(backend)
    (steps1, x0, w0, _, _), (steps2, _, _, _, _) = first, second
    x, w = ns.constant(x0), ns.constant(w0)
    with ns.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y1, y2 = _apply_chain(ns, steps1, x, w), _apply_chain(ns, steps2, x, w)
    together = tape.gradient([y1, y2], x).numpy()
    _close(together, tape.gradient(y1, x).numpy() + tape.gradient(y2, x).numpy())


@on_each_backend("GradientTape.gradient(output_gradients=)")
@given(chains())
def test_persistent_tape_repeats_identically(backend, chain):
    steps, x0, w0, u, _ = chain
    ns, tape, x, y = _recorded(backend, steps, x0, w0)
    first = tape.gradient(y, x, output_gradients=ns.constant(u)).numpy()
    again = tape.gradient(y, x, output_gradients=ns.constant(u)).numpy()
    assert first.tobytes() == again.tobytes()


@on_each_backend("GradientTape.gradient(unconnected_gradients=)")
@given(chains())
def test_zero_and_none_agree_where_connected(backend, chain):
    ns, (steps, x0, w0, _, _) = _namespace(backend), chain
    x, w, unrelated = ns.constant(x0), ns.constant(w0), ns.constant(x0)
    with ns.GradientTape(persistent=True) as tape:
        tape.watch([x, unrelated])
        y = _apply_chain(ns, steps, x, w)
    g_none = tape.gradient(y, [x, unrelated])
    g_zero = tape.gradient(y, [x, unrelated], unconnected_gradients=ns.UnconnectedGradients.ZERO)
    assert g_none[0].numpy().tobytes() == g_zero[0].numpy().tobytes()
    assert g_none[1] is None and not np.any(g_zero[1].numpy())


@on_each_backend("Variable")
@given(chains())
def test_unwatched_variables_get_none_without_automatic_watching(backend, chain):
    ns, (steps, x0, w0, _, _) = _namespace(backend), chain
    x, v = ns.constant(x0), ns.Variable(w0)
    with ns.GradientTape(watch_accessed_variables=False) as tape:
        tape.watch(x)
        y = _apply_chain(ns, steps, x, v * 1.0)
    g_x, g_v = tape.gradient(y, [x, v])
    assert g_v is None and g_x is not None


@on_each_backend("GradientTape.jacobian", "GradientTape.gradient(output_gradients=)")
@given(chains())
def test_jacobian_rows_are_gradients_of_each_element(backend, chain):
    steps, x0, w0, _, _ = chain
    ns, tape, x, y = _recorded(backend, steps, x0, w0)
    jacobian = tape.jacobian(y, x).numpy()
    for index in np.ndindex(x0.shape):
        one_hot = np.zeros(x0.shape, x0.dtype)
        one_hot[index] = 1
        _close(jacobian[index], tape.gradient(y, x, output_gradients=ns.constant(one_hot)).numpy(), terms=1)


@on_each_backend("GradientTape.jacobian", "GradientTape.batch_jacobian")
@given(chains(min_rank=2))
def test_batch_jacobian_is_the_block_diagonal_of_jacobian(backend, chain):
    steps, x0, w0, _, _ = chain
    ns, tape, x, y = _recorded(backend, steps, x0, w0)
    full, batched = tape.jacobian(y, x).numpy(), tape.batch_jacobian(y, x).numpy()
    for b in range(x0.shape[0]):
        _close(batched[b], full[b, :, b, :], terms=1)
