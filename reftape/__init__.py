"""reftape: a NumPy reference implementation of `tf.GradientTape`.

`import reftape as tf` runs TensorFlow gradient-tape code unchanged and gives TensorFlow's answers:
values, Nones, dtypes, shapes, returned structures and exception classes. reftape never imports
TensorFlow.
"""

from . import allocator as _allocator

from . import dtypes, errors, nest
from . import ops_table as _ops_table  # noqa: F401 - populates the primitive registry
from . import operators as _operators  # noqa: F401 - attaches Python operators
from .dtypes import (DType, as_dtype, bfloat16, bool, complex64, complex128, double, float16, float32, float64, half,
                     int8, int16, int32, int64, string, uint8)
from .functions import (abs, acos, acosh, add, add_n, argmax, argmin, argsort, asin, atanh, boolean_mask, broadcast_to, cast, clip_by_global_norm, clip_by_norm, clip_by_value, complex, concat, constant,
                        convert_to_tensor, cos, cosh, cumsum, divide, einsum, equal, exp, expand_dims,
                        eye, fill, floor, gather, gather_nd, get_static_value, greater, greater_equal, identity,
                        identity_n, is_tensor, less,
                        less_equal, linspace, meshgrid, logical_and, logical_not, logical_or, matmul, maximum, minimum, multiply,
                        negative, newaxis, norm, not_equal, one_hot, ones, ones_like, pad, pow, range, rank, reduce_all, reduce_any, reduce_logsumexp, reduce_max,
                        realdiv, reduce_mean, reduce_min, reduce_prod, reduce_sum, reshape, reverse, round, scatter_nd, sequence_mask,
                        shape, sigmoid, sign, sin, sinh, size, slice, sort, split, sqrt, square, squeeze, stack, stop_gradient,
                        subtract, tan, tanh, tensor_scatter_nd_add, tensor_scatter_nd_update, tile, transpose, truediv, truncatediv, truncatemod, unstack, where, zeros, zeros_like)
from .control_flow import case, cond, switch_case, while_loop
from .custom_gradient import custom_gradient
from .functional import foldl, foldr, map_fn, scan, vectorized_map
from .gradient_utils import grad_pass_through, recompute_grad
from .polymorphic_function import function, init_scope
from .tape import GradientTape, UnconnectedGradients
from .tensor import IndexedSlices, Tensor, TensorShape
from .tensor_array import TensorArray
from .tensor_spec import TensorSpec
from .variables import Variable

from . import autodiff, bitwise, linalg, math, nn, random  # noqa: E402  (namespaces, after the names they re-export)
from . import image, sparse  # noqa: E402  (segments and array ops, issue 24)
from .functions import repeat, roll, tensordot  # noqa: E402
from .functions import strided_slice_with_masks as strided_slice  # noqa: E402
from . import signal  # noqa: E402  tf.signal (issue 24)

_allocator.keep_freed_memory()

__version__ = "0.1.0"
