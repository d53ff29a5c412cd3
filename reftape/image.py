"""`tf.image`: the flips, resize and the crops and pads (issue 24)."""

from .functions import (ResizeMethod, central_crop, crop_to_bounding_box, flip_left_right, flip_up_down,
                        pad_to_bounding_box, resize, resize_with_crop_or_pad)

__all__ = ["ResizeMethod", "central_crop", "crop_to_bounding_box", "flip_left_right", "flip_up_down",
           "pad_to_bounding_box", "resize", "resize_with_crop_or_pad"]
