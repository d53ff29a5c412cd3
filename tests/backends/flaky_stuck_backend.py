"""A test backend: reftape whose `sin` hangs outside Python (SIGALRM blocked) in a fuzz campaign's worker
processes only, as a program too slow under the campaign's load, so that it finishes when it runs again in
processes of its own."""

import multiprocessing
import signal as os_signal  # reftape exports tf.signal, which a star import would put here
import time

import reftape as _reftape
from reftape import *  # noqa: F401,F403
from reftape import linalg, math, nn  # noqa: F401


def sin(x, name=None):
    if multiprocessing.parent_process() is not None:
        os_signal.pthread_sigmask(os_signal.SIG_BLOCK, [os_signal.SIGALRM])
        time.sleep(3600)
    return _reftape.sin(x)
