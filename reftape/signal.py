"""`tf.signal` (its complex and real FFTs)."""

from .functions import fft, fft2d, ifft, ifft2d, irfft, irfft2d, rfft, rfft2d  # noqa: F401

__all__ = [name for name in dir() if not name.startswith("_")]
