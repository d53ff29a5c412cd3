"""A test backend: reftape whose `sin` kills its process with SIGSEGV, as native code that crashes does."""

import os
import signal as os_signal  # reftape exports tf.signal, which a star import would put here

from reftape import *  # noqa: F401,F403
from reftape import linalg, math, nn  # noqa: F401


def sin(x, name=None):
    os.kill(os.getpid(), os_signal.SIGSEGV)
