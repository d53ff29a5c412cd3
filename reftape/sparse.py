"""`tf.sparse`: the sparse segment reductions (rows picked by indices, summed by sorted segment ids)."""

from .functions import sparse_segment_mean as segment_mean
from .functions import sparse_segment_sqrt_n as segment_sqrt_n
from .functions import sparse_segment_sum as segment_sum

__all__ = ["segment_mean", "segment_sqrt_n", "segment_sum"]
