"""A test backend: reftape whose `sin` never returns and cannot be interrupted by the interpreter's time
limit (SIGALRM blocked), as a hang in native code."""

import signal
import time

from reftape import *  # noqa: F401,F403
from reftape import linalg, math, nn  # noqa: F401


def sin(x, name=None):
    signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGALRM])
    time.sleep(3600)
