"""A test backend: reftape whose `sin` never returns and cannot be interrupted by the interpreter's time
limit (SIGALRM blocked), as a hang in native code."""

import signal as os_signal  # reftape exports tf.signal, which a star import would put here
import time

from reftape import *  # noqa: F401,F403
from reftape import linalg, math, nn  # noqa: F401


def sin(x, name=None):
    os_signal.pthread_sigmask(os_signal.SIG_BLOCK, [os_signal.SIGALRM])
    time.sleep(3600)
