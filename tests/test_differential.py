"""Differential properties: reftape's outcome equals TensorFlow's on generated programs.

Split by op family (all real float dtypes) and by option axis (half precision, complex, deep
nesting), so that a failing test's name says where the problem is. Findings are appended to
discrepancies.jsonl in the report directory; coverage is printed at the end of the run.
"""

from hypothesis import given

from reftape_oracle.catalog import CATALOG, COMPLEX, FAMILIES, FLOATS
from reftape_properties.differential import check_program
from reftape_properties.strategies import programs


def differential(**strategy_options):
    @given(programs(**strategy_options))
    def test(program):
        check_program(program)
    return test


test_elementwise_unary = differential(ops=FAMILIES["elementwise_unary"], dtypes=("float32", "float64"))
test_elementwise_binary = differential(ops=FAMILIES["elementwise_binary"], dtypes=("float32", "float64"))
test_reductions = differential(ops=FAMILIES["reductions"], dtypes=("float32", "float64"))
test_structure = differential(ops=FAMILIES["structure"], dtypes=("float32", "float64"))
test_linalg = differential(ops=FAMILIES["linalg"], dtypes=("float32", "float64"))
test_nn = differential(ops=FAMILIES["nn"], dtypes=("float32", "float64"))
test_non_differentiable = differential(ops=FAMILIES["non_differentiable"] + FAMILIES["elementwise_unary"],
                                       dtypes=("float32", "float64"))
test_half_precision = differential(dtypes=("float16", "bfloat16"))
test_complex = differential(ops=tuple(p for p, s in CATALOG.items() if set(COMPLEX) & set(s.dtypes)), dtypes=COMPLEX)
test_deep_nesting = differential(max_depth=3, max_ops=2, dtypes=FLOATS)
