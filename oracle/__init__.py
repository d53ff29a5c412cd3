"""The TensorFlow side of the differential harness."""

from .tensorflow import load_tensorflow

__all__ = ["load_tensorflow"]
