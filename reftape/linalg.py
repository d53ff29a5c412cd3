"""`tf.linalg`."""

from .functions import einsum, eye, matmul, matvec

__all__ = [name for name in dir() if not name.startswith("_")]
