"""Running programs on backends: the TensorFlow adapter and the one interpreter for every backend."""

from .interpreter import load_backend, run
from .tensorflow import load_tensorflow

__all__ = ["load_backend", "load_tensorflow", "run"]
