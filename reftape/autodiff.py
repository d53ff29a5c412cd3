"""The `tf.autodiff` namespace: forward-mode autodiff (`ForwardAccumulator`, in `forwardprop.py`)."""

from .forwardprop import ForwardAccumulator

__all__ = ["ForwardAccumulator"]
