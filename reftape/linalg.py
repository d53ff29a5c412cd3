"""`tf.linalg`."""

from .functions import einsum, eye, global_norm, l2_normalize, matmul, matvec, norm

__all__ = [name for name in dir() if not name.startswith("_")]
