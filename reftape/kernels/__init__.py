"""The NumPy forward kernels of the op table (`reftape/ops_table.py`), one module per family:
`subnormal.py` (Eigen's vector loop and the scalar loop, and every rule for reading subnormal inputs),
`elementwise.py`, `special.py`, `reductions.py` with `half_sums.py`, `indexing.py`, `activations.py`,
`matrices.py`, and `ordering.py` (TopKV2, ArgMin/ArgMax). Each kernel takes and returns NumPy arrays and
computes as TF's CPU kernel does (TF 2.21, Eigen, AVX build, glibc), bit for bit where the tests pin it.
The modules import downward only: NumPy and reftape's lower modules (`dtypes`, `errors`, `primitives`),
and among themselves `subnormal` < `elementwise` < the rest; never `ops_table`, `functions`, `tape` or
`backward`. This package's own import loads none of them.
"""
