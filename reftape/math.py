"""`tf.math`."""

from .functions import (abs, acos, acosh, add, add_n, argmax, argmin, asin, asinh, atan, atan2, atanh, ceil, conj, cos, cosh, cumprod, cumsum, cumulative_logsumexp, digamma,
                        divide, divide_no_nan, equal, erf, erfc, exp, expm1, floor, floordiv, floormod, greater,
                        greater_equal, imag, is_finite, is_nan, l2_normalize, less, less_equal, lgamma, log, log1p, log_sigmoid,
                        logical_and, logical_not, logical_or, logical_xor, maximum, minimum, multiply, multiply_no_nan, negative, not_equal,
                        polygamma, pow, real, reciprocal, reduce_all, reduce_any, reduce_logsumexp, reduce_max, reduce_mean, reduce_min, reduce_prod,
                        reduce_euclidean_norm, reduce_std, reduce_sum, reduce_variance, rint, round, rsqrt, segment_sum, sigmoid, sign,
                        sin, sinh, softplus, sqrt, square, squared_difference, subtract, tan, tanh, top_k, truediv,
                        unsorted_segment_sum, xdivy, xlog1py, xlogy, zeta)
from .functions import (angle, bessel_i0, bessel_i0e, betainc, bessel_i1, bessel_i1e, erfinv, igamma, igammac,  # issue 24
                        lbeta, ndtri, nextafter)
from . import math_special as special  # noqa: E402  tf.math.special (issue 24)

# Segments (issue 24)
from .functions import (segment_max, segment_mean, segment_min, segment_prod, unsorted_segment_max,  # noqa: E402
                        unsorted_segment_mean, unsorted_segment_min, unsorted_segment_prod, unsorted_segment_sqrt_n)

__all__ = [name for name in dir() if not name.startswith("_")]
