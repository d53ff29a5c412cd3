"""A test backend: reftape whose `sin` kills its process with SIGSEGV in a fuzz campaign's worker
processes only, so that the program agrees when it runs again in a process of its own."""

import multiprocessing
import os
import signal as os_signal  # reftape exports tf.signal, which a star import would put here

import reftape as _reftape
from reftape import *  # noqa: F401,F403
from reftape import linalg, math, nn  # noqa: F401


def sin(x, name=None):
    if multiprocessing.parent_process() is not None:
        os.kill(os.getpid(), os_signal.SIGSEGV)
    return _reftape.sin(x)
