"""`tf.bitwise`."""

from .functions import bitwise_and, bitwise_or, bitwise_xor, invert

__all__ = ["bitwise_and", "bitwise_or", "bitwise_xor", "invert"]
