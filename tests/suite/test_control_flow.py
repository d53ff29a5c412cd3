"""Eager control flow and gradient utilities against live TensorFlow: `cond`, `case`, `switch_case`,
`while_loop`, `map_fn`, `scan`, `foldl`, `foldr`, `vectorized_map`, `TensorArray`, `identity_n`,
`get_static_value`, `grad_pass_through` and `recompute_grad`, with gradients of the first and second
order and jacobians (vectorized and not) through them; and the tape's refusal of a second trace of the
vectorized jacobian's loop on a non-persistent tape.

Each snippet runs on TensorFlow and on the backend; the `r` it leaves (or the exception it raises, message
included) must agree. Where TF's message spells TF's own objects (nest's structure errors), the snippet
returns the exception's class name only (`raised`)."""

from __future__ import annotations

import warnings

import pytest

from reftape_properties.conformance.snippet_outcomes import run_statements, snippet_discrepancies
from . import reference_outcomes
from .marks import snippets

RAISED = ("def raised(f):\n    try:\n        f()\n    except Exception as error:\n        return type(error).__name__\n"
          "    return 'no error'\n")


def watched(x: str, computation: str, sources: str = "x", persistent: bool = False) -> str:
    """A gradient of `computation` (which sets y) with `x` watched; `r` is [y, gradient]."""
    return (f"x = {x}\nwith tf.GradientTape(persistent={persistent}) as t:\n    t.watch(x)\n"
            + "".join(f"    {line}\n" for line in computation.split("\n"))
            + f"r = [y, t.gradient(y, {sources})]")


def second_order(x: str, computation: str) -> str:
    """First and second derivatives of `computation` (which sets y) in x."""
    return (f"x = {x}\nwith tf.GradientTape() as outer:\n    outer.watch(x)\n    with tf.GradientTape() as inner:\n"
            "        inner.watch(x)\n" + "".join(f"        {line}\n" for line in computation.split("\n"))
            + "    g = inner.gradient(y, x)\nr = [y, g, outer.gradient(g, x)]")


def jacobians(x: str, computation: str) -> str:
    """Jacobians of `computation` (which sets y) in x, vectorized and by a loop, and batch jacobians."""
    return (f"x = {x}\nwith tf.GradientTape(persistent=True) as t:\n    t.watch(x)\n"
            + "".join(f"    {line}\n" for line in computation.split("\n"))
            + "r = [t.jacobian(y, x), t.jacobian(y, x, experimental_use_pfor=False), t.batch_jacobian(y, x),"
              " t.batch_jacobian(y, x, experimental_use_pfor=False)]")


VECTOR = "tf.constant([0.5, -1.5, 2.0])"
MATRIX = "tf.constant([[0.5, -1.5], [2.0, 0.25], [1.0, -0.75]])"

COND = {
    # the taken branch decides values and gradients; the untaken one runs no op (its source gets None)
    "cond/tensor_predicate/gradient": watched(VECTOR, "z = x * 3.0\ny = tf.cond(tf.reduce_sum(x) > 0.0, "
                                                      "lambda: tf.sin(x) * z, lambda: z * z)", "[x, z]"),
    "cond/false_branch/gradient": watched(VECTOR, "y = tf.cond(tf.constant(False), lambda: tf.sin(x), lambda: x * x)"),
    "cond/python_bool": watched(VECTOR, "y = tf.cond(True, lambda: tf.exp(x), lambda: x)"),
    "cond/branch_ignores_source": "x = tf.constant(2.0); u = tf.constant(3.0)\nwith tf.GradientTape(persistent=True) as t:\n"
                                  "    t.watch([x, u])\n    y = tf.cond(x > 1.0, lambda: x * x, lambda: x * u)\n"
                                  "r = [y, t.gradient(y, [x, u]), t.gradient(y, u, unconnected_gradients='zero')]",
    "cond/untaken_branch_never_runs": "calls = []\nx = tf.constant(2.0)\nwith tf.GradientTape() as t:\n    t.watch(x)\n"
                                      "    y = tf.cond(x < 0.0, lambda: calls.append('true') or x, lambda: x * 2.0)\n"
                                      "r = [y, calls, t.gradient(y, x)]",
    "cond/structures": "x = tf.constant([1.0, 2.0])\nwith tf.GradientTape() as t:\n    t.watch(x)\n"
                       "    y = tf.cond(tf.constant(True), lambda: {'b': x * 2.0, 'a': [x, 3]}, lambda: {'b': x, 'a': [x, 4]})\n"
                       "r = [y, t.gradient(y['b'], x)]",
    "cond/singleton_list_kept": "x = tf.constant(1.0)\nr = tf.cond(True, lambda: [x * 2.0], lambda: [x])",
    "cond/mismatched_structures_not_checked_eagerly": "x = tf.constant(1.0)\nr = tf.cond(True, lambda: (x, x), lambda: x)",
    "cond/returns_none_or_python": "r = [tf.cond(True, lambda: None, lambda: 1.0), tf.cond(False, lambda: None, lambda: 1.0)]",
    "cond/returns_the_same_object": "x = tf.constant(1.0)\nr = tf.cond(True, lambda: x, lambda: x * 2.0) is x",
    "cond/float_and_string_predicates": "x = tf.constant(1.0)\nr = [tf.cond(tf.constant(0.0), lambda: x, lambda: x * 2.0), "
                                        "tf.cond(2, lambda: x, lambda: x * 2.0), tf.cond('', lambda: x, lambda: x * 2.0)]",
    "cond/variable_predicate_and_branch": "v = tf.Variable(3.0); p = tf.Variable(True)\nwith tf.GradientTape() as t:\n"
                                          "    y = tf.cond(p, lambda: v * v, lambda: v)\nr = [y, t.gradient(y, v), t.watched_variables()]",
    "cond/vector_predicate": "r = tf.cond(tf.constant([True, False]), lambda: 1.0, lambda: 2.0)",
    "cond/none_predicate": "r = tf.cond(None, lambda: 1.0, lambda: 2.0)",
    "cond/missing_true_fn": "r = tf.cond(True, false_fn=lambda: 1.0)",
    "cond/missing_false_fn": "r = tf.cond(True, lambda: 1.0)",
    "cond/true_fn_not_callable": "r = tf.cond(True, 1.0, lambda: 1.0)",
    "cond/false_fn_not_callable": "r = tf.cond(True, lambda: 1.0, 2.0)",
    "cond/second_order": second_order(VECTOR, "y = tf.cond(x[0] > 0.0, lambda: tf.sin(x) * x, lambda: x)"),
    "cond/jacobians": jacobians(MATRIX, "y = tf.cond(tf.reduce_max(x) > 1.0, lambda: tf.tanh(x) * x, lambda: x * 2.0)"),
    "cond/nested": watched(VECTOR, "y = tf.cond(x[0] > 0.0, lambda: tf.cond(x[1] > 0.0, lambda: x, lambda: x * x * x), "
                                   "lambda: -x)"),
}

CASE = {
    "case/first_true_pair/gradient": watched(VECTOR, "y = tf.case([(x[0] < 0.0, lambda: x), (x[2] > 0.0, lambda: x * x), "
                                                     "(tf.constant(True), lambda: -x)], default=lambda: x * 3.0)"),
    "case/default/gradient": watched(VECTOR, "y = tf.case([(x[0] < 0.0, lambda: x)], default=lambda: tf.exp(x))"),
    "case/no_default_runs_last_pair": watched(VECTOR, "y = tf.case([(x[0] < 0.0, lambda: x), (x[2] > 0.0, lambda: x * x)])"),
    "case/no_default_none_true": "x = tf.constant(1.0)\nr = tf.case([(x < 0.0, lambda: x), (x < -1.0, lambda: x * 2.0)])",
    "case/exclusive_two_true": "x = tf.constant(1.0)\nr = tf.case([(x > 0.0, lambda: x), (x > -1.0, lambda: x * 2.0)], "
                               "default=lambda: x * 3.0, exclusive=True)",
    # without a default the last pair is the default: exclusivity is checked among the others only
    "case/exclusive_two_true_no_default": "x = tf.constant(1.0)\nr = tf.case([(x > 0.0, lambda: x), (x > -1.0, lambda: x * 2.0)], "
                                          "exclusive=True)",
    "case/non_exclusive_two_true": "x = tf.constant(1.0)\nr = tf.case([(x > 0.0, lambda: x), (x > -1.0, lambda: x * 2.0)])",
    "case/singleton_lists_unpacked": "x = tf.constant(1.0)\nr = [tf.case([(x > 0.0, lambda: [x])], default=lambda: [x]), "
                                     "tf.case([(x > 0.0, lambda: [x])], default=lambda: [x], strict=True)]",
    "case/python_bool_predicate": "r = tf.case([(True, lambda: 1.0)], default=lambda: 2.0)",
    "case/float_predicate": "r = tf.case([(tf.constant(1.0), lambda: 1.0)], default=lambda: 2.0)",
    "case/not_a_pair": "r = tf.case([tf.constant(True)], default=lambda: 2.0)",
    "case/not_a_list": "r = tf.case(3, default=lambda: 2.0)",
    "case/fn_not_callable": "r = tf.case([(tf.constant(True), 3)], default=lambda: 2.0)",
    "case/no_pairs": "r = tf.case([], default=lambda: 2.0)",
    "case/second_order": second_order(VECTOR, "y = tf.case([(x[0] > 0.0, lambda: tf.sin(x) * x)], default=lambda: x)"),
}

SWITCH_CASE = {
    "switch_case/list/gradient": watched(VECTOR, "y = tf.switch_case(tf.constant(1), [lambda: x, lambda: tf.sin(x) * x, "
                                                 "lambda: -x])"),
    "switch_case/dict/gradient": watched(VECTOR, "y = tf.switch_case(tf.constant(0, tf.int64), {1: lambda: x, 0: lambda: x * x})"),
    "switch_case/pairs": "x = tf.constant(2.0)\nr = tf.switch_case(tf.constant(0), [(1, lambda: x * 2.0), (0, lambda: x)])",
    # out of range: the last branch, which is the default when one is given
    **{f"switch_case/index_{index}/default_{default}":
       f"x = tf.constant(2.0)\nr = tf.switch_case(tf.constant({index}), [lambda: x, lambda: x * 2.0, lambda: x * 3.0]"
       + (", default=lambda: x * 9.0)" if default else ")")
       for index in (-1, 0, 2, 3, 7) for default in (False, True)},
    "switch_case/uint8_index": "r = tf.switch_case(tf.constant(1, tf.uint8), [lambda: 1.0, lambda: 2.0])",
    "switch_case/singleton_list_kept": "x = tf.constant(2.0)\nr = tf.switch_case(tf.constant(0), [lambda: [x]])",
    "switch_case/python_index": "r = tf.switch_case(1, [lambda: 1.0, lambda: 2.0])",
    "switch_case/float_index": "r = tf.switch_case(tf.constant(1.0), [lambda: 1.0, lambda: 2.0])",
    "switch_case/vector_index": "r = tf.switch_case(tf.constant([1]), [lambda: 1.0, lambda: 2.0])",
    "switch_case/no_branches": "r = tf.switch_case(tf.constant(0), [])",
    "switch_case/not_a_list": "r = tf.switch_case(tf.constant(0), 3)",
    "switch_case/keys_with_a_gap": "r = tf.switch_case(tf.constant(0), {2: lambda: 1.0, 0: lambda: 2.0})",
    "switch_case/float_key": "r = tf.switch_case(tf.constant(0), {1.0: lambda: 1.0})",
    "switch_case/fn_not_callable": "r = tf.switch_case(tf.constant(0), {0: 3})",
    "switch_case/not_a_pair": "r = tf.switch_case(tf.constant(0), [(0, lambda: 1.0), 3])",
    "switch_case/jacobians": jacobians(MATRIX, "y = tf.switch_case(tf.constant(1), [lambda: x, lambda: x * x * x])"),
    "switch_case/second_order": second_order(VECTOR, "y = tf.switch_case(tf.constant(5), [lambda: x, lambda: tf.exp(x) * x])"),
}

SQUARING = "_, y = tf.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a * a), (tf.constant(0), x))"

WHILE_LOOP = {
    # TF's testWhileGrad_Square: every iteration contributes (dropping one changes the power)
    "while_loop/square/gradient": watched(VECTOR, SQUARING),
    "while_loop/square/second_order": second_order(VECTOR, SQUARING),
    "while_loop/square/jacobians": jacobians(MATRIX, SQUARING),
    "while_loop/data_dependent_trip_count": watched("tf.constant(1.5)", "_, y = tf.while_loop(lambda i, a: a < 100.0, "
                                                    "lambda i, a: (i + 1, a * x), (0, x))"),
    "while_loop/captured_variable": "v = tf.Variable(1.5); x = tf.constant(2.0)\nwith tf.GradientTape() as t:\n    t.watch(x)\n"
                                    "    _, y = tf.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a * v + x), (0, x))\n"
                                    "r = [y, t.gradient(y, [x, v]), t.watched_variables()]",
    "while_loop/variable_loop_var_is_read": "v = tf.Variable(2.0)\nwith tf.GradientTape() as t:\n"
                                            "    r1 = tf.while_loop(lambda a: a < 10.0, lambda a: [a * a], [v])\n"
                                            "r = [r1, t.gradient(r1, v), t.watched_variables()]",
    "while_loop/structured_loop_vars": watched(VECTOR, "_, d = tf.while_loop(lambda i, d: i < 2, lambda i, d: (i + 1, "
                                                       "{'b': d['b'] * d['a'], 'a': d['a'] + 1.0}), (0, {'b': x, 'a': x}))\n"
                                                       "y = d"),
    "while_loop/namedtuple_loop_vars": "import collections\nP = collections.namedtuple('P', 'i a')\nx = tf.constant(2.0)\n"
                                       "with tf.GradientTape() as t:\n    t.watch(x)\n"
                                       "    p = tf.while_loop(lambda i, a: i < 2, lambda i, a: P(i + 1, a * x), P(0, x))\n"
                                       "r = [p, t.gradient(p.a, x)]",
    "while_loop/python_numbers_become_tensors": "r = [tf.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a * 2), (0, 1.0)), "
                                                "tf.while_loop(lambda i, a: i < 0, lambda i, a: (i + 1, a * 2), (0, 1.0))]",
    "while_loop/list_in_body_decides": "i0 = tf.constant(0)\nr = [tf.while_loop(lambda i: i < 3, lambda i: [i + 1], (i0,)), "
                                       "tf.while_loop(lambda i: i < 3, lambda i: (i + 1,), [i0]), "
                                       "tf.while_loop(lambda i: i < 0, lambda i: (i + 1,), [i0])]",
    "while_loop/maximum_iterations": watched("tf.constant(1.1)", "_, y = tf.while_loop(lambda i, a: i < 10, "
                                             "lambda i, a: (i + 1, a * x), (0, x), maximum_iterations=2)"),
    **{f"while_loop/maximum_iterations={m}": f"r = tf.while_loop(lambda i, a: i < 10, lambda i, a: (i + 1, a * 2.0), "
                                             f"(0, 1.0), maximum_iterations={m})"
       for m in ("0", "-1", "2.5", "tf.constant(3, tf.int64)", "[2]")},
    # the condition is evaluated beside the counter at every test, even once the counter is exhausted
    "while_loop/maximum_iterations_evaluates_cond": "calls = []\n"
                                                    "def c(a):\n    calls.append(1)\n    return a < 100.0\n"
                                                    "r = [tf.while_loop(c, lambda a: [a * 2.0], [1.0], maximum_iterations=2), len(calls)]",
    "while_loop/back_prop_false_still_differentiates": watched(VECTOR, "_, y = tf.while_loop(lambda i, a: i < 2, "
                                                              "lambda i, a: (i + 1, a * a), (0, x), back_prop=False)"),
    "while_loop/shape_invariants_unchecked": "r = tf.while_loop(lambda i, a: i < 2, lambda i, a: (i + 1, tf.concat([a, a], 0)), "
                                             "(0, tf.constant([1.0])), shape_invariants=(tf.TensorShape([]), tf.TensorShape([5])))",
    "while_loop/dtype_change_unchecked": "r = tf.while_loop(lambda i, a: i < 1, lambda i, a: (i + 1, tf.cast(a, tf.float64)), "
                                         "(0, tf.constant(1.0)))",
    "while_loop/parallel_iterations_ignored": watched(VECTOR, "_, y = tf.while_loop(lambda i, a: i < 2, "
                                                      "lambda i, a: (i + 1, tf.sin(a)), (0, x), parallel_iterations=1)"),
    "while_loop/single_tensor_loop_vars": "r = tf.while_loop(lambda a: a < 10.0, lambda a: a * 2.0, tf.constant(2.0))",
    "while_loop/single_zero_tensor": "r = tf.while_loop(lambda a: a < 10.0, lambda a: a * 2.0, tf.constant(0.0))",
    "while_loop/single_vector_tensor": "r = tf.while_loop(lambda a, b: a < 10.0, lambda a, b: (a * 2.0, b), tf.constant([1.0, 5.0]))",
    "while_loop/body_returns_a_tensor": "r = tf.while_loop(lambda a: a < 10.0, lambda a: a * 2.0, [tf.constant(2.0)])",
    "while_loop/no_loop_vars": "r = tf.while_loop(lambda: False, lambda: (), [])",
    # None has a TypeSpec: the loop runs, and only the final conversion of the results fails
    "while_loop/none_loop_var": "calls = []\ndef body(i, n):\n    calls.append(i)\n    return i + 1, n\n"
                                "try:\n    r = tf.while_loop(lambda i, n: i < 3, body, (0, None))\n"
                                "except ValueError as error:\n    r = [str(error), len(calls)]",
    "while_loop/object_loop_var": RAISED + "r = raised(lambda: tf.while_loop(lambda a: False, lambda a: [a], [object()]))",
    "while_loop/cond_not_callable": "r = tf.while_loop(3, lambda a: [a], [1.0])",
    "while_loop/body_not_callable": "r = tf.while_loop(lambda a: a < 2.0, 3, [1.0])",
    "while_loop/parallel_iterations_zero": "r = tf.while_loop(lambda a: a < 2.0, lambda a: [a * 2.0], [1.0], parallel_iterations=0)",
    "while_loop/vector_condition": "r = tf.while_loop(lambda a: a < 2.0, lambda a: [a * 2.0], [tf.constant([1.0, 3.0])])",
    "while_loop/python_int_body_result": "r = tf.while_loop(lambda i: i < 3, lambda i: i + 1, [0])",
    "while_loop/nested_loops/gradient": watched(VECTOR, "def inner(a):\n    return tf.while_loop(lambda j, b: j < 2, "
                                                "lambda j, b: (j + 1, b * x), (0, a))[1]\n"
                                                "_, y = tf.while_loop(lambda i, a: i < 2, lambda i, a: (i + 1, inner(a) + 1.0), (0, x))"),
    "while_loop/cond_inside_body/gradient": watched(VECTOR, "_, y = tf.while_loop(lambda i, a: i < 3, lambda i, a: "
                                                    "(i + 1, tf.cond(i % 2 == 0, lambda: a * x, lambda: a + x)), (0, x))"),
    "while_loop/tensor_array_jacobians": jacobians("tf.constant([[1.0, 2.0], [3.0, 4.0]])",
                                                   "ta = tf.TensorArray(tf.float32, size=2)\n"
                                                   "_, ta = tf.while_loop(lambda i, ta: i < 2, lambda i, ta: (i + 1, "
                                                   "ta.write(i, tf.sin(x[i]) * x[i])), (0, ta))\ny = ta.stack()"),
    # a gradient taken inside the body, differentiated again through the loop
    "while_loop/gradient_inside_body": "x = tf.constant(1.5)\nwith tf.GradientTape() as outer:\n    outer.watch(x)\n"
                                       "    def body(i, a):\n        with tf.GradientTape() as inner:\n"
                                       "            inner.watch(a)\n            b = tf.sin(a) * a\n"
                                       "        return i + 1, inner.gradient(b, a) * x\n"
                                       "    _, y = tf.while_loop(lambda i, a: i < 2, body, (0, x))\nr = [y, outer.gradient(y, x)]",
    "while_loop/integer_counter_target": watched("tf.constant(3.0)", "i, y = tf.while_loop(lambda i, a: i < 3, lambda i, a: "
                                                 "(i + 1, a + tf.cast(i, tf.float32) * x), (tf.constant(0), x))\n"
                                                 "y = [i, y]"),
    "while_loop/map_fn_in_cond": watched("tf.constant([1.0, -2.0])", "y = tf.cond(tf.reduce_sum(x) < 0.0, "
                                         "lambda: tf.map_fn(lambda e: e * e * e, x), lambda: x)"),
}

STRUCTURE_ERRORS = {
    f"while_loop/structure_error/{name}": RAISED + f"r = raised(lambda: tf.while_loop({loop}))"
    for name, loop in {
        "element_count": "lambda i, a: i < 3, lambda i, a: (i + 1, (a, a)), (tf.constant(0), tf.constant(2.0))",
        "list_for_tuple": "lambda i, d: i < 3, lambda i, d: (i + 1, (d[0] * 2,)), (tf.constant(0), [tf.constant(2.0)])",
        "namedtuple_flattened": "lambda p: p.a < 3, lambda p: type(p)(p.a + 1, p.b * 2), "
                                "[__import__('collections').namedtuple('P', 'a b')(tf.constant(0), tf.constant(2.0))]",
        "body_returns_fewer": "lambda i, a: i < 3, lambda i, a: (i + 1,), (tf.constant(0), tf.constant(2.0))",
        "maximum_iterations_body_returns_a_tensor": "lambda a: a < 100.0, lambda a: a * 2.0, [tf.constant(2.0)], "
                                                    "maximum_iterations=2",
        "dict_keys": "lambda i, d: i < 2, lambda i, d: (i + 1, {'c': d['a']}), (0, {'a': tf.constant(1.0)})",
    }.items()
} | {
    # TF 2's functions have no such keywords (TF's dispatch wrapper words the TypeError its own way)
    "while_loop/no_return_same_structure": RAISED + "r = raised(lambda: tf.while_loop(lambda i: i < 2, lambda i: [i + 1], [0], "
                                                    "return_same_structure=True))",
    "cond/no_fn1": RAISED + "r = raised(lambda: tf.cond(True, fn1=lambda: 1.0, false_fn=lambda: 2.0))",
    "map_fn/structure_error/tuple_elems_tensor_result": RAISED + "x = tf.constant([1.0, 2.0])\n"
                                                        "r = raised(lambda: tf.map_fn(lambda p: p[0] + p[1], (x, x)))",
    "scan/structure_error/tuple_for_tensor": RAISED + "r = raised(lambda: tf.scan(lambda a, e: (a, a), tf.constant([1.0, 2.0]), "
                                                      "initializer=tf.constant(0.0)))",
    "foldl/structure_error/list_for_tuple": RAISED + "r = raised(lambda: tf.foldl(lambda a, e: [a[0] + e, a[1]], "
                                                     "tf.constant([1.0, 2.0]), initializer=(0.0, 1.0)))",
}

ELEMS = "tf.constant([[1.0, 2.0], [-0.5, 3.0], [0.25, -1.0]])"

MAP_SCAN_FOLD = {
    "map_fn/gradient": watched(ELEMS, "y = tf.map_fn(lambda e: tf.reduce_sum(tf.sin(e) * e), x)"),
    "map_fn/second_order": second_order(ELEMS, "y = tf.map_fn(lambda e: e * e * e, x)"),
    "map_fn/jacobians": jacobians(ELEMS, "y = tf.map_fn(lambda e: tf.tanh(e) * e[0], x)"),
    "map_fn/tuple_elems/gradient": watched(ELEMS, "y = tf.map_fn(lambda p: (p[0] * p[1], p[0]), (x, x * 2.0))", "x"),
    "map_fn/dict_elems": "x = tf.constant([1.0, 2.0])\nr = tf.map_fn(lambda d: {'b': d['b'] * 2.0, 'a': d['a']}, {'b': x, 'a': x})",
    "map_fn/dtype_changes_need_a_signature": "x = tf.constant([1.0, 2.0])\nr = tf.map_fn(lambda e: tf.cast(e, tf.int32), x)",
    "map_fn/fn_output_signature_dtype": "x = tf.constant([1.5, 2.0])\nr = [tf.map_fn(lambda e: tf.cast(e, tf.int32), x, "
                                        "fn_output_signature=tf.int32), tf.map_fn(lambda e: tf.cast(e, tf.int32), x, dtype=tf.int32)]",
    "map_fn/fn_output_signature_tensor_spec": "x = tf.constant([1.5, 2.0])\nr = tf.map_fn(lambda e: tf.stack([e, e]), x, "
                                              "fn_output_signature=tf.TensorSpec([2], tf.float32))",
    "map_fn/tensor_spec_shape_refused": "x = tf.constant([1.5, 2.0])\nr = tf.map_fn(lambda e: tf.stack([e, e]), x, "
                                        "fn_output_signature=tf.TensorSpec([3], tf.float32))",
    "map_fn/nested_signature": "x = tf.constant([1.0, 2.0])\nr = tf.map_fn(lambda e: (e, tf.cast(e, tf.int64)), x, "
                               "fn_output_signature=(tf.float32, tf.int64))",
    "map_fn/results_of_varying_shapes": "x = tf.constant([1.0, 2.0])\nr = tf.map_fn(lambda e: tf.fill([tf.cast(e, tf.int32)], e), x)",
    "map_fn/python_results": "x = tf.constant([1.0, 2.0])\nr = [tf.map_fn(lambda e: 3.0, x), tf.map_fn(lambda e: 3, x)]",
    "map_fn/none_result": "x = tf.constant([1.0, 2.0])\nr = tf.map_fn(lambda e: None, x)",
    "map_fn/empty_elems": "r = [tf.map_fn(lambda e: e * 2.0, tf.zeros([0, 2])), tf.map_fn(lambda e: e * 2.0, tf.zeros([0, 2]), "
                          "fn_output_signature=tf.TensorSpec([2]))]",
    "map_fn/scalar_elems": "r = tf.map_fn(lambda e: e, tf.constant(1.0))",
    "map_fn/no_tensors": "r = tf.map_fn(lambda e: e, [])",
    "map_fn/mismatched_lengths": "x = tf.constant([1.0, 2.0])\nr = tf.map_fn(lambda p: p[0], (x, tf.constant([1.0])))",
    "map_fn/variable_elems": "v = tf.Variable([1.0, 2.0])\nwith tf.GradientTape() as t:\n    y = tf.map_fn(lambda e: e * e, v)\n"
                             "r = [y, t.gradient(y, v), t.watched_variables()]",
    # TF's testScan_Grad, foldl/foldr gradients: every element and the initializer get theirs
    "scan/gradient": watched(VECTOR, "y = tf.scan(lambda a, e: a * e + tf.sin(e), x)"),
    "scan/initializer/gradient": "x = tf.constant([0.5, -1.5, 2.0]); init = tf.constant(1.5)\nwith tf.GradientTape() as t:\n"
                                 "    t.watch([x, init])\n    y = tf.scan(lambda a, e: a * e, x, initializer=init)\n"
                                 "r = [y, t.gradient(y, [x, init])]",
    "scan/reverse/gradient": watched(VECTOR, "y = tf.scan(lambda a, e: a * 2.0 + e * e, x, reverse=True)"),
    "scan/reverse_initializer": "r = tf.scan(lambda a, e: a + e, tf.constant([1.0, 2.0, 3.0]), initializer=10.0, reverse=True)",
    "scan/structured": watched(VECTOR, "y = tf.scan(lambda a, e: (a[0] + e, a[1] * e), x, "
                                       "initializer=(tf.constant(0.0), tf.constant(1.0)))"),
    "scan/tuple_elems": "x = tf.constant([1.0, 2.0, 3.0])\nr = tf.scan(lambda a, e: (a[0] + e[0], a[1] * e[1]), (x, x))",
    "scan/int_initializer": "r = tf.scan(lambda a, e: a + 1, tf.constant([1.0, 2.0]), initializer=0)",
    "scan/empty_without_initializer": "r = tf.scan(lambda a, e: a + e, tf.zeros([0]))",
    "scan/empty_with_initializer": "r = tf.scan(lambda a, e: a + e, tf.zeros([0, 2]), initializer=tf.zeros([2]))",
    "scan/second_order": second_order(VECTOR, "y = tf.scan(lambda a, e: a * e, x)"),
    "scan/jacobians": jacobians(MATRIX, "y = tf.scan(lambda a, e: a * e + e, x)"),
    "foldl/gradient": watched(VECTOR, "y = tf.foldl(lambda a, e: a * 10.0 + e * e, x)"),
    "foldl/initializer/gradient": watched(VECTOR, "y = tf.foldl(lambda a, e: a * e, x, initializer=tf.constant(2.0))"),
    "foldl/tuple_elems": watched(VECTOR, "y = tf.foldl(lambda a, e: a + e[0] * e[1], (x, x * 3.0), initializer=tf.constant(0.0))"),
    "foldl/structured_accumulator": "x = tf.constant([1.0, 2.0, 3.0])\nr = tf.foldl(lambda a, e: (a[0] + e[0], a[1]), (x, x))",
    "foldl/empty": "r = [tf.foldl(lambda a, e: a + e, tf.zeros([0]), initializer=5.0), "
                   "tf.foldr(lambda a, e: a + e, tf.zeros([0]), initializer=5.0)]",
    "foldl/empty_without_initializer": "r = tf.foldl(lambda a, e: a + e, tf.zeros([0]))",
    "foldl/scalar_elems": "r = tf.foldl(lambda a, e: a + e, tf.constant(1.0))",
    "foldl/not_callable": "r = tf.foldl(3, tf.constant([1.0]))",
    "foldr/gradient": watched(VECTOR, "y = tf.foldr(lambda a, e: a * 10.0 + e * e, x)"),
    "foldr/initializer/gradient": watched(VECTOR, "y = tf.foldr(lambda a, e: a * e + 1.0, x, initializer=tf.constant(0.5))"),
    "foldl/second_order": second_order(VECTOR, "y = tf.foldl(lambda a, e: a * e, x)"),
    "foldr/second_order": second_order(VECTOR, "y = tf.foldr(lambda a, e: a * tf.sin(e), x)"),
    "foldl/jacobians": jacobians(MATRIX, "y = tf.foldl(lambda a, e: a * e, tf.transpose(x))"),
    "vectorized_map/gradient": watched(ELEMS, "y = tf.vectorized_map(lambda e: tf.reduce_sum(e * e), x)"),
    "vectorized_map/tuple": watched(ELEMS, "y = tf.vectorized_map(lambda p: (p[0] * p[1], p[0]), (x, x))"),
    "vectorized_map/constant_result": "r = tf.vectorized_map(lambda e: tf.constant(3.0), tf.constant([1.0, 2.0, 3.0]))",
    "vectorized_map/int": "r = tf.vectorized_map(lambda e: e * 2, tf.constant([1, 2]))",
    "vectorized_map/empty": "r = tf.vectorized_map(lambda e: e * 2.0, tf.zeros([0, 2]))",
    "vectorized_map/scalar": "r = tf.vectorized_map(lambda e: e, tf.constant(1.0))",
    "vectorized_map/jacobians": jacobians(MATRIX, "y = tf.vectorized_map(lambda e: tf.sin(e) * e, x)"),
    # a first dimension of 1 is broadcast by one gather outside the loop: its gradient is IndexedSlices
    "vectorized_map/broadcast_row": "a = tf.constant([[1.0, 2.0]]); b = tf.constant([[1.0, 2.0], [3.0, 4.0]])\n"
                                    "with tf.GradientTape(persistent=True) as t:\n    t.watch([a, b])\n"
                                    "    y = tf.vectorized_map(lambda p: p[0] * p[1], (a, b))\n"
                                    "r = [y, t.gradient(y, [a, b]), t.jacobian(y, a)]",
    "vectorized_map/second_order": second_order(VECTOR, "y = tf.vectorized_map(lambda e: e * e * e, x)"),
}

TENSOR_ARRAY = {
    # TF's testTensorArrayGradientWriteRead and friends: reads return what was written, stack packs it
    "tensor_array/write_read_stack/gradient": "v = tf.Variable([1.0, 2.0])\nwith tf.GradientTape(persistent=True) as t:\n"
                                              "    ta = tf.TensorArray(tf.float32, size=3)\n"
                                              "    ta = ta.write(0, v * 2.0).write(1, v * v)\n    s = ta.stack(); r1 = ta.read(1)\n"
                                              "    y = tf.reduce_sum(s * tf.constant([[1.0], [2.0], [3.0]]))\n"
                                              "r = [s, t.gradient(y, v), t.gradient(r1, v)]",
    "tensor_array/unstack_gather/gradient": watched(ELEMS, "ta = tf.TensorArray(tf.float32, size=3).unstack(x * 2.0)\n"
                                                    "y = ta.gather([2, 0, 2]) * tf.constant([[1.0], [10.0], [100.0]])"),
    "tensor_array/split_concat/gradient": watched("tf.constant([1.0, 2.0, 3.0])",
                                                  "ta = tf.TensorArray(tf.float32, size=2, infer_shape=False).split(x * x, [1, 2])\n"
                                                  "y = ta.concat() * tf.constant([1.0, 2.0, 3.0])"),
    "tensor_array/scatter_read/gradient": watched(ELEMS, "ta = tf.TensorArray(tf.float32, size=4).scatter([3, 1, 0], tf.sin(x))\n"
                                                  "y = ta.read(0) * ta.read(3)"),
    "tensor_array/in_while_loop/gradient": watched(VECTOR, "ta = tf.TensorArray(tf.float32, size=3)\n"
                                                   "_, ta = tf.while_loop(lambda i, ta: i < 3, lambda i, ta: (i + 1, "
                                                   "ta.write(i, x[i] * tf.cast(i + 1, tf.float32) * x[i])), (0, ta))\n"
                                                   "y = ta.stack()"),
    "tensor_array/second_order": second_order(VECTOR, "ta = tf.TensorArray(tf.float32, size=3).unstack(x * x)\n"
                                              "y = ta.read(0) * ta.read(2) * x"),
    "tensor_array/jacobians": jacobians(MATRIX, "ta = tf.TensorArray(tf.float32, size=3).unstack(tf.exp(x))\n"
                                        "y = ta.stack() * x"),
    "tensor_array/read_of_an_unwritten_element_is_unconnected": watched("tf.constant([1.0, 2.0])",
                                                                        "ta = tf.TensorArray(tf.float32, size=2).write(0, x * 2.0)\n"
                                                                        "y = ta.read(1)"),
    "tensor_array/unwritten_elements_are_zeros": "x = tf.constant([1.0, 2.0])\nr = [tf.TensorArray(tf.float32, size=2).write(0, x).stack(), "
                                                 "tf.TensorArray(tf.float32, size=2, element_shape=[3]).read(1)]",
    "tensor_array/unwritten_unknown_shape": "r = tf.TensorArray(tf.float32, size=2).stack()",
    "tensor_array/empty_stacks": "r = [tf.TensorArray(tf.float32, size=0).stack(), tf.TensorArray(tf.float32, size=0, "
                                 "element_shape=[2, 3]).stack(), tf.TensorArray(tf.float32, size=0, element_shape=[None, 3]).stack()]",
    "tensor_array/dynamic_size": "x = tf.constant([1.0, 2.0])\nta = tf.TensorArray(tf.float32, size=0, dynamic_size=True).write(3, x)\n"
                                 "r = [ta.stack(), ta.size(), ta.dynamic_size]",
    "tensor_array/write_past_the_end": "r = tf.TensorArray(tf.float32, size=1).write(1, 1.0)",
    "tensor_array/write_negative": "r = tf.TensorArray(tf.float32, size=1).write(-1, 1.0)",
    "tensor_array/write_another_dtype": "r = tf.TensorArray(tf.float32, size=1).write(0, tf.constant([1, 2]))",
    "tensor_array/write_python_values": "r = [tf.TensorArray(tf.float32, size=1).write(0, 3).stack(), "
                                        "tf.TensorArray(tf.float64, size=1).write(0, [1, 2]).stack()]",
    "tensor_array/inferred_shape_refuses": "r = tf.TensorArray(tf.float32, size=2).write(0, [1.0, 2.0]).write(1, [1.0])",
    "tensor_array/element_shape_refuses": "r = tf.TensorArray(tf.float32, size=2, element_shape=[3]).write(0, [1.0, 2.0])",
    "tensor_array/no_inference": "r = tf.TensorArray(tf.float32, size=2, infer_shape=False).write(0, [1.0, 2.0]).write(1, [1.0]).read(1)",
    "tensor_array/element_shape": "ta = tf.TensorArray(tf.float32, size=2)\nr = [ta.element_shape, ta.write(0, [1.0, 2.0]).element_shape, "
                                  "tf.TensorArray(tf.float32, size=2, element_shape=[None, 3]).element_shape]",
    "tensor_array/read_out_of_range": "r = tf.TensorArray(tf.float32, size=1).read(1)",
    "tensor_array/read_negative": "r = tf.TensorArray(tf.float32, size=1).read(-1)",
    "tensor_array/read_twice_cleared": "ta = tf.TensorArray(tf.float32, size=1).write(0, 1.0)\nr = [ta.read(0), ta.read(0)]",
    "tensor_array/read_twice_kept": "ta = tf.TensorArray(tf.float32, size=1, clear_after_read=False).write(0, 1.0)\n"
                                    "r = [ta.read(0), ta.read(0)]",
    "tensor_array/read_then_stack": "ta = tf.TensorArray(tf.float32, size=2).write(0, [1.0]).write(1, [2.0])\na = ta.read(0)\n"
                                    "r = [a, ta.stack()]",
    "tensor_array/tensor_indices": "r = tf.TensorArray(tf.float32, size=2).write(tf.constant(1), 2.0).read(tf.constant(1))",
    "tensor_array/unstack_too_many": "r = tf.TensorArray(tf.float32, size=1).unstack([[1.0, 2.0], [3.0, 4.0]])",
    "tensor_array/unstack_fewer": "r = tf.TensorArray(tf.float32, size=3).unstack([[1.0, 2.0], [3.0, 4.0]]).size()",
    "tensor_array/gather_out_of_range": "r = tf.TensorArray(tf.float32, size=3).unstack([[1.0], [2.0], [3.0]]).gather([5])",
    "tensor_array/gather_nothing": "r = tf.TensorArray(tf.float32, size=3).unstack([[1.0], [2.0], [3.0]]).gather([])",
    "tensor_array/scatter_out_of_range": "r = tf.TensorArray(tf.float32, size=3).scatter([5], [[1.0]])",
    "tensor_array/concat_of_scalars": "r = tf.TensorArray(tf.float32, size=2).write(0, 1.0).write(1, 2.0).concat()",
    "tensor_array/split_bad_lengths": "r = tf.TensorArray(tf.float32, size=2).split([1.0, 2.0, 3.0], [1, 1])",
    "tensor_array/no_size": "r = tf.TensorArray(tf.float32)",
    "tensor_array/float_size": "r = tf.TensorArray(tf.float32, size=2.0)",
    "tensor_array/properties": "ta = tf.TensorArray('float64', size=tf.constant(2))\n"
                               "r = [ta.dtype, ta.size(), ta.dynamic_size, ta.handle, ta.flow, ta.identity() is ta]",
    "tensor_array/grad_unsupported": "r = tf.TensorArray(tf.float32, size=0).grad('x')",
    "tensor_array/close": "ta = tf.TensorArray(tf.float32, size=2)\nr = [ta.close(), ta.size()]",
}

UTILITIES = {
    "identity_n/gradient": "a = tf.constant([1.0, 2.0]); b = tf.constant(3.0)\nwith tf.GradientTape(persistent=True) as t:\n"
                           "    t.watch([a, b])\n    p, q = tf.identity_n([a * 2.0, b])\n    y = p * p\n"
                           "r = [p, q, t.gradient(y, [a, b]), t.gradient(q, [a, b]), t.gradient([y, q], [a, b])]",
    "identity_n/mixed_dtypes": "a = tf.constant([1.0, 2.0])\nwith tf.GradientTape() as t:\n    t.watch(a)\n"
                               "    p, q = tf.identity_n([a, tf.constant(3)])\nr = [p, q, p is a, t.gradient(p, a)]",
    "identity_n/indexed_slices_pass_through": "a = tf.constant([1.0, 2.0])\nwith tf.GradientTape() as t:\n    t.watch(a)\n"
                                              "    p, = tf.identity_n([tf.gather(a, [1])])\nr = t.gradient(p, a)",
    "identity_n/conversions": "x = tf.constant([1.0, 2.0, 3.0])\nr = [tf.identity_n((x, 2.0)), tf.identity_n(x), tf.identity_n([[x]]), "
                              "tf.identity_n([tf.Variable(1.0)])]",
    "identity_n/empty": "r = tf.identity_n([])",
    "identity_n/jacobians": jacobians(MATRIX, "p, q = tf.identity_n([x * x, x])\ny = p * q"),
    "identity_n/second_order": second_order(VECTOR, "p, q = tf.identity_n([x * x, x])\ny = p * tf.sin(q)"),
    "get_static_value/values": "r = [tf.get_static_value(tf.constant([1.0, 2.0])), tf.get_static_value(3.0), "
                               "tf.get_static_value([1, 2]), tf.get_static_value(None), tf.get_static_value(tf.Variable(1.0)), "
                               "tf.get_static_value(np.float32(2)), tf.get_static_value(tf.constant(2.5), partial=True), "
                               "tf.get_static_value(tf.constant('a')), type(tf.get_static_value(tf.constant([1])))]",
    "get_static_value/is_a_writable_copy": "x = tf.constant([1.0, 2.0])\na = tf.get_static_value(x)\na[0] = 5.0\nr = [a, x]",
    "grad_pass_through/rounding": "v = tf.Variable(2.0)\nwith tf.GradientTape() as t:\n"
                                  "    y = tf.grad_pass_through(lambda a: tf.round(a * 1.3))(v)\n    z = y * v\n"
                                  "r = [y, t.gradient(z, v)]",
    "grad_pass_through/stop_gradient_inside": watched("tf.constant([1.0, 2.0])",
                                                      "y = tf.grad_pass_through(lambda a: tf.stop_gradient(a * a))(x)"),
    "grad_pass_through/assign": "v = tf.Variable(2.0)\nwith tf.GradientTape() as t:\n"
                                "    y = tf.grad_pass_through(v.assign)(tf.constant(5.0) * v)\nr = [y, t.gradient(y, v), v]",
    "grad_pass_through/jacobians": jacobians(MATRIX, "y = tf.grad_pass_through(lambda a: tf.round(a * a))(x) * x"),
    "grad_pass_through/structures": "r = tf.grad_pass_through(lambda a, b: (a, [b]))(1.0, 2.0)",
    "grad_pass_through/second_order": second_order("tf.constant(2.0)", "y = tf.grad_pass_through(lambda a: a * a * a)(x) * x"),
    "recompute_grad/variables": "v = tf.Variable([0.5, -1.0]); x = tf.constant([1.0, 2.0])\n"
                                "f = tf.recompute_grad(lambda a: tf.sin(a * v) * a)\n"
                                "with tf.GradientTape(persistent=True) as t:\n    t.watch(x)\n    y = f(x)\n"
                                "r = [y, t.gradient(y, [x, v]), t.watched_variables()]",
    "recompute_grad/equals_plain_gradient": "v = tf.Variable([0.5, -1.0]); x = tf.constant([1.0, 2.0])\n"
                                            "g = lambda a: tf.exp(a * v) * a\nf = tf.recompute_grad(g)\n"
                                            "with tf.GradientTape(persistent=True) as t:\n    t.watch(x)\n    y = f(x); z = g(x)\n"
                                            "r = [t.gradient(y, [x, v]), t.gradient(z, [x, v])]",
    "recompute_grad/second_order": second_order("tf.constant([1.0, 2.0])", "y = tf.recompute_grad(lambda a: tf.sin(a) * a)(x)"),
    "recompute_grad/two_arguments": "x = tf.constant([1.0, 2.0])\nf = tf.recompute_grad(lambda a, b: a * b)\n"
                                    "with tf.GradientTape() as t:\n    t.watch(x)\n    y = f(x, tf.constant(3.0))\nr = t.gradient(y, x)",
    "recompute_grad/tuple_result": "x = tf.constant([1.0, 2.0])\nf = tf.recompute_grad(lambda a: (a * 2.0, a * a))\n"
                                   "with tf.GradientTape() as t:\n    t.watch(x)\n    y = f(x)\nr = [y, t.gradient(y, x)]",
    "recompute_grad/jacobians": jacobians(MATRIX, "y = tf.recompute_grad(lambda a: tf.tanh(a) * a)(x)"),
    "tensor_spec/values": "r = [tf.TensorSpec([2]), tf.TensorSpec(shape=None, dtype=tf.int32, name='a'), tf.TensorSpec([None, 3]).shape, "
                          "tf.TensorSpec([2]) == tf.TensorSpec([2], tf.float32), tf.TensorSpec([2]).dtype, tf.TensorSpec([2]).name, "
                          "tf.TensorSpec([None]).is_compatible_with(tf.constant([1.0, 2.0])), "
                          "tf.TensorSpec([3]).is_compatible_with(tf.constant([1.0, 2.0]))]",
}

# TF's vectorized loop of at least `parallel_iterations` iterations converts its first trace's gradients to
# tensors (a None fails) and traces its body again for the tiles: a non-persistent tape has nothing left then
# (jacobian's second gradients are None, zeros under 'zero'; batch_jacobian refuses), and is spent after
TILED_SOURCES = {"connected": ("[x, u]", "x * x"), "unconnected": ("[x, u]", "u * 2.0"), "untracked": ("x", "u * 2.0")}


def tiled_jacobian(method: str, persistent: bool, kind: str, unconnected: str, parallel_iterations: int) -> str:
    watched_sources, computation = TILED_SOURCES[kind]
    return ("x = tf.constant(np.arange(6, dtype=np.float32).reshape(3, 2) + 1.0); u = tf.ones([3, 2])\n"
            f"with tf.GradientTape(persistent={persistent}) as t:\n    t.watch({watched_sources})\n    y = {computation}\n"
            "def attempt(call):\n    try:\n        return call()\n    except Exception as error:\n"
            "        return [type(error).__name__, str(error), type(error.__cause__).__name__, str(error.__cause__)]\n"
            f"r = [attempt(lambda: t.{method}(y, x, parallel_iterations={parallel_iterations}, "
            f"unconnected_gradients='{unconnected}')), attempt(lambda: t.gradient(y, x))]")


NON_PERSISTENT = {
    f"tiled_loop/{method}/persistent={persistent}/{kind}/{unconnected}/parallel_iterations={p}":
    tiled_jacobian(method, persistent, kind, unconnected, p)
    for method in ("jacobian", "batch_jacobian") for persistent in (False, True) for kind in TILED_SOURCES
    for unconnected in ("none", "zero") for p in (2, 4, 7)
}

SNIPPETS = {**COND, **CASE, **SWITCH_CASE, **WHILE_LOOP, **STRUCTURE_ERRORS, **MAP_SCAN_FOLD, **TENSOR_ARRAY,
            **UTILITIES, **NON_PERSISTENT}


@pytest.mark.parametrize("name", snippets(SNIPPETS))
def test_control_flow_snippet_matches_tensorflow(name, tf, candidate):
    found = reference_outcomes.snippet_discrepancies(SNIPPETS[name], tf, candidate)
    assert not found, "\n".join(d.summary() for d in found)


@pytest.mark.runs_long
def test_the_reference_runs_every_control_flow_snippet(tf):
    assert not reference_outcomes.reference_faults(SNIPPETS, tf)


def test_structure_errors_are_raised_on_both_sides(tf):
    """The class-only snippets would agree vacuously if nothing raised: TF raises in each."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        outcomes = {name: run_statements(code, tf) for name, code in STRUCTURE_ERRORS.items()}
    assert all(o.get("kind") == "scalar" and o["value"] in ("ValueError", "TypeError") for o in outcomes.values()), outcomes


# Planted control-flow snippets the harness must refuse: each is a harness error, never an agreement.
BROKEN_SNIPPETS = {
    "a name the branch lacks": "r = tf.cond(True, lambda: undefined_name, lambda: 1.0)",
    "no result r": "y = tf.while_loop(lambda i: i < 2, lambda i: [i + 1], [0])",
}


@pytest.mark.parametrize("code", BROKEN_SNIPPETS.values(), ids=BROKEN_SNIPPETS.keys())
def test_a_broken_control_flow_snippet_is_a_harness_error(code, tf, rt):
    found = snippet_discrepancies(code, tf, rt)
    assert [d.kind for d in found] == ["harness"], [d.summary() for d in found]
