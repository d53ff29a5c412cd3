"""Updates of part of a Variable, against live TensorFlow: sliced assigns (`v[i].assign(x)`), the scatter
methods (`scatter_nd_update`, `scatter_nd_add`, `scatter_nd_sub`, `scatter_update`) and reads of `v[key]`.

Each snippet runs on TensorFlow and on the backend under test and the outcomes are compared (values,
dtypes, shapes, None gradients, returned objects, exception classes and, outside TF's op errors,
messages). What TF 2.21 was observed to do, the comparison finds; nothing here restates it.
"""

from __future__ import annotations

import warnings

import pytest

from reftape_properties.conformance.snippet_outcomes import reference_faults, run_statements
from .marks import snippets

V4 = "v = tf.Variable([1.0, 2.0, 3.0, 4.0])\n"
M34 = "w = tf.Variable(np.arange(12.0, dtype=np.float32).reshape(3, 4))\n"
M32 = "v = tf.Variable([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])\n"


def attempt(statement: str) -> str:
    """A statement whose exception class (None when it returns) is the result."""
    return f"try:\n    {statement}\n    r = None\nexcept Exception as error:\n    r = type(error).__name__\n"


SLICED_ASSIGNS = {
    # the returned object (TF's lazy read of the handle), its name, and the variable after
    "index": V4 + "r = v[1].assign(10.0)\nr = (r, r.name, type(r).__name__, r is v, v)",
    "range": V4 + "r = (v[1:3].assign([5.0, 6.0]), v)",
    "negative_index": V4 + "v[-1].assign(0.0)\nr = v",
    "negative_step": V4 + "v[::-2].assign([7.0, 8.0])\nr = v",
    "broadcast": V4 + "v[1:3].assign(1.0)\nr = v",
    "python_int_converts": V4 + "v[0].assign(3)\nr = v",
    "int_variable": "v = tf.Variable([1, 2], dtype=tf.int32)\nv[0].assign(5)\nr = v",
    "bool_variable": "v = tf.Variable([True, False])\nv[0].assign(False)\nr = v",
    "row_and_range": M34 + "w[1, 0:2].assign([9.0, 9.0])\nr = w",
    "negative_row_with_step": M34 + "w[-1, ::2].assign([100.0, 100.0])\nr = w",
    "ellipsis": M34 + "w[..., 1].assign([0.0, 0.0, 0.0])\nr = w",
    "newaxis": M34 + "w[1:, tf.newaxis, -1].assign([[50.0], [60.0]])\nr = w",
    "slice_taken_earlier": V4 + "s = v[0]\nv.assign([9.0, 9.0, 9.0, 9.0])\ns.assign(1.0)\nr = (s, v)",
    "chained_assign_add": V4 + "r = v[0:2].assign([1.0, 2.0]).assign_add([1.0, 1.0, 1.0, 1.0])\nr = (r, v)",
    "variable_value": V4 + "u = tf.Variable(7.0)\nv[2].assign(u)\nr = v",
    # what a slice has and lacks
    "slice_attributes": V4 + "r = (hasattr(v[1], 'assign'), hasattr(v[1], 'assign_add'), hasattr(v[1], 'assign_sub'), "
                             "hasattr(tf.constant(1.0), 'assign'), type(v[1:2]).__name__)",
    "mask_has_no_assign": M32 + "r = (hasattr(v[tf.constant([True, False, True])], 'assign'), "
                                "v[tf.constant([True, False, True])])",
    # errors
    "too_many_values": V4 + attempt("v[1:3].assign([1.0, 2.0, 3.0])") + "r = (r, v)",
    "int_tensor_into_float": V4 + attempt("v[1].assign(tf.constant(1, tf.int32))") + "r = (r, v)",
    "float64_tensor_into_float": V4 + attempt("v[1].assign(tf.constant([1.0], tf.float64))"),
    "string_into_float": V4 + attempt("v[1].assign('a')"),
    "index_out_of_range": V4 + attempt("v[5].assign(1.0)"),
    "read_value_keyword": V4 + attempt("v[0].assign(1.0, read_value=False)"),
    "assign_add_on_slice": V4 + attempt("v[0].assign_add(1.0)"),
}

SLICED_ASSIGNS_ON_TAPES = {
    # watched at a sliced assign whose slice was read outside the tape
    "watched_at_sliced_assign": V4 + "s = v[1:3]\nwith tf.GradientTape() as t:\n    s.assign(1.0)\n"
                                      "r = ([x.name for x in t.watched_variables()], v)",
    "not_watched_without_accessed": V4 + "with tf.GradientTape(watch_accessed_variables=False) as t:\n"
                                         "    v[0].assign(1.0)\nr = t.watched_variables()",
    "untrainable_not_watched": "v = tf.Variable([1.0, 2.0], trainable=False)\ns = v[0]\n"
                               "with tf.GradientTape() as t:\n    s.assign(3.0)\nr = t.watched_variables()",
    # reads before the assign keep the old values; none flows to the assigned value; the returned object
    # is the variable for the tape
    "reads_around_assign": V4 + "x = tf.constant([5.0, 6.0])\nwith tf.GradientTape(persistent=True) as t:\n"
                                "    t.watch(x)\n    y0 = v * v\n    r = v[1:3].assign(x)\n    y1 = v * v\n"
                                "    y2 = r * r\n"
                                "r = (t.gradient(y0, v), t.gradient(y1, v), t.gradient(y2, v), t.gradient(y1, x), "
                                "t.gradient(y1, r))",
    "gradient_after_assign": "u = tf.Variable([1.0, 2.0, 3.0])\nwith tf.GradientTape() as t:\n"
                             "    a = u[0] * 3.0\n    u[0].assign(10.0)\n    c = u * u\n"
                             "    loss = a + tf.reduce_sum(c)\nr = t.gradient(loss, u)",
}

SCATTERS = {
    "scatter_nd_update": M32 + "r = v.scatter_nd_update([[0], [2]], [[9.0, 9.0], [8.0, 8.0]])\n"
                               "r = (r, r.name, type(r).__name__, v)",
    "scatter_nd_update_repeated": M32 + "r = v.scatter_nd_update([[0], [0]], [[1.0, 1.0], [2.0, 2.0]])",
    "scatter_nd_update_python_ints": M32 + "r = v.scatter_nd_update([[0]], [[1, 1]])",
    "scatter_nd_add": M32 + "r = (v.scatter_nd_add([[0, 1], [0, 1]], [10.0, 5.0]), v)",
    "scatter_nd_add_int": "v = tf.Variable([1, 2])\nr = v.scatter_nd_add([[0], [0]], [5, 6])",
    "scatter_nd_sub": M32 + "r = (v.scatter_nd_sub([[1, 1]], [1.0]), v)",
    "scatter_nd_sub_rows": M32 + "r = v.scatter_nd_sub([[2], [0]], [[1.0, 1.0], [0.5, 0.5]])",
    "scatter_update": M32 + "r = v.scatter_update(tf.IndexedSlices(tf.constant([[0.0, 0.0]]), tf.constant([1])))\n"
                            "r = (r, type(r).__name__, v)",
    "scatter_update_int64_rows": M32 + "r = v.scatter_update(tf.IndexedSlices(tf.constant([[7.0, 7.0], [8.0, 8.0]]), "
                                       "tf.constant([2, 0], tf.int64)))",
    "scatter_update_needs_indexed_slices": M32 + attempt("v.scatter_update(tf.constant([1.0]))") + "r = (r, v)",
    "scatter_update_row_out_of_range": M32 + attempt(
        "v.scatter_update(tf.IndexedSlices(tf.constant([[0.0, 0.0]]), tf.constant([7])))") + "r = (r, v)",
    "scatter_nd_update_out_of_range": M32 + attempt("v.scatter_nd_update([[5]], [[1.0, 1.0]])") + "r = (r, v)",
    "scatter_nd_update_bad_updates": M32 + attempt("v.scatter_nd_update([[0]], [[1.0, 1.0, 1.0]])"),
    "scatter_nd_update_int_tensor": M32 + attempt("v.scatter_nd_update([[0]], tf.constant([[1, 1]]))"),
    "scatter_nd_update_float_indices": M32 + attempt("v.scatter_nd_update([[0.0]], [[1.0, 1.0]])"),
    **{f"{method}_watched": M32 + "with tf.GradientTape() as t:\n"
                                  f"    v.{method}({args})\nr = ([x.name for x in t.watched_variables()], v)"
       for method, args in (("scatter_nd_update", "[[0]], [[3.0, 3.0]]"), ("scatter_nd_add", "[[0, 0]], [3.0]"),
                            ("scatter_nd_sub", "[[0, 0]], [3.0]"),
                            ("scatter_update", "tf.IndexedSlices(tf.constant([[3.0, 3.0]]), tf.constant([0]))"))},
    "scatter_then_gradient": M32 + "with tf.GradientTape() as t:\n    y0 = tf.reduce_sum(v * v)\n"
                                   "    v.scatter_nd_update([[1]], [[10.0, 10.0]])\n    y1 = tf.reduce_sum(v * v)\n"
                                   "r = t.gradient([y0, y1], v)",
}

READS = {
    # v[key] is a read then a strided slice: dense gradients; a gather's is IndexedSlices
    "index_gradient": V4 + "with tf.GradientTape() as t:\n    y = v[1]\nr = t.gradient(y, v)",
    "range_gradient": V4 + "with tf.GradientTape() as t:\n    y = v[1:3] * 2.0\nr = t.gradient(y, v)",
    "newaxis_gradient": M34 + "with tf.GradientTape() as t:\n    y = w[tf.newaxis, ..., ::-2] * 3.0\n"
                              "r = (y, t.gradient(y, w))",
    "gather_gradient": V4 + "with tf.GradientTape() as t:\n    y = tf.gather(v, [0, 2])\nr = t.gradient(y, v)",
    "read_is_an_access": V4 + "with tf.GradientTape() as t:\n    y = v[0:2]\nr = [x.name for x in t.watched_variables()]",
    "read_of_unread_variable": V4 + "u = v[0].assign(2.0)\nwith tf.GradientTape() as t:\n    y = u[0:2] * u[3]\n"
                                    "r = (y, t.gradient(y, v))",
}

SNIPPETS = {**{f"sliced_assign/{k}": s for k, s in SLICED_ASSIGNS.items()},
            **{f"sliced_assign_on_tape/{k}": s for k, s in SLICED_ASSIGNS_ON_TAPES.items()},
            **{f"scatter/{k}": s for k, s in SCATTERS.items()},
            **{f"read/{k}": s for k, s in READS.items()}}


def outcomes(code: str, tf, candidate) -> list:
    from reftape_properties.judge.compare import compare_values
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return compare_values(run_statements(code, tf), run_statements(code, candidate))


@pytest.mark.parametrize("name", snippets(SNIPPETS))
def test_variable_update_matches_tensorflow(name, tf, candidate):
    found = outcomes(SNIPPETS[name], tf, candidate)
    assert not found, "\n".join(d.summary() for d in found)


def test_the_reference_runs_every_variable_update_snippet(tf):
    assert not reference_faults(SNIPPETS, tf)
