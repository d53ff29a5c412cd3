"""`tf.math.special` (the functions reftape has of it)."""

from .functions import (bessel_i0, bessel_i0e, bessel_i1, bessel_i1e, bessel_j0, bessel_j1, bessel_k0,  # noqa: F401
                        bessel_k0e, bessel_k1, bessel_k1e, bessel_y0, bessel_y1, dawsn, expint, fresnel_cos, fresnel_sin, spence)

__all__ = [name for name in dir() if not name.startswith("_")]
