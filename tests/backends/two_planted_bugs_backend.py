"""A test backend with two planted bugs of different kinds, as a tape author's tape may have: reduce_mean's
gradient over an axis divides by the whole size (an op's VJP), and the tape ignores
`watch_accessed_variables=False` (a tape option). A campaign must show them as two causes, each blamed
on what is wrong, with small programs (tests/harness/test_fuzz.py)."""

from reftape import *  # noqa: F401,F403 - the backend exposes TF's names
from reftape import linalg, math, nn  # noqa: F401

from ignores_watch_accessed_backend import GradientTape  # noqa: F401
from wrong_reduce_mean_backend import reduce_mean  # noqa: F401
