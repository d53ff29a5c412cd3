"""`tf.image`: the flips (issue 24)."""

from .functions import flip_left_right, flip_up_down

__all__ = ["flip_left_right", "flip_up_down"]
