"""How the process's C allocator treats the large, short-lived arrays of an eager tape.

Every op returns a new array, and a backward pass frees as many as it makes. With glibc's defaults
an array above the mmap threshold (128 KiB, raised as such blocks are freed) is an mmap of its own,
and a freed block at the top of the heap is soon given back to the kernel, so the next array of that
size costs a page fault per 4 KiB page on first touch: a chain of 512x512 float32 ops took ~10,000
faults and a third of its time in them, where TensorFlow's allocator keeps its memory (2 faults).
reftape sets the three limits explicitly (a threshold left to glibc's dynamic rule depends on what
the process freed before): arrays up to 32 MiB come from the heap, and up to 128 MiB of free heap
top (64 MiB of padding) is kept for reuse; resident memory may then stay that much above what is
live. Set `REFTAPE_SYSTEM_MALLOC=1` to leave the allocator as it is. Elsewhere than glibc, nothing
changes.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os

# mallopt's parameters (glibc's malloc.h) and the values reftape sets
_M_TRIM_THRESHOLD, _M_TOP_PAD, _M_MMAP_THRESHOLD = -1, -2, -3
SETTINGS = {_M_MMAP_THRESHOLD: 32 << 20, _M_TRIM_THRESHOLD: 128 << 20, _M_TOP_PAD: 64 << 20}


def keep_freed_memory() -> bool:
    """Sets glibc's limits to `SETTINGS`; whether glibc took them all."""
    if os.environ.get("REFTAPE_SYSTEM_MALLOC") == "1":
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):  # not glibc
        return False
    return all([mallopt(parameter, value) == 1 for parameter, value in SETTINGS.items()])
