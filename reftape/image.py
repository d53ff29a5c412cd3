"""`tf.image`: the flips, resize and the crops and pads (issue 24)."""

from .functions import ResizeMethod, flip_left_right, flip_up_down, resize

__all__ = ["ResizeMethod", "flip_left_right", "flip_up_down", "resize"]
