"""Work buffers for the image diff, kept per thread from one call to the next.

A fresh temporary of a few hundred KB or more is, more often than not, fresh
pages from the kernel (glibc maps large blocks and trims freed ones), and its
page faults cost as much as the arithmetic done in it: a third of the diff's
time on the screenshot corpus before these buffers. The diff's byte-wide
passes, its masks, and the decodes it asks for write into these instead.
"""

from __future__ import annotations

import functools
import math
import threading

import numpy as np
import numpy.typing as npt

#: The largest work buffer a thread keeps (bytes): an RGBA screenshot of 2.5 MP
#: (bigger ones are allocated afresh each time).
KEEP_BYTES = 10_000_000


class Scratch(threading.local):
    """Named work buffers of the current thread. Each name is one buffer, used by one
    function only, and good until that function asks for it again in the same
    thread."""

    def __init__(self) -> None:
        self.buffers: dict[str, np.ndarray] = {}

    def get(self, name: str, shape: tuple[int, ...], dtype: npt.DTypeLike = np.uint8) -> np.ndarray:
        """A buffer of ``shape`` and ``dtype`` (contents undefined), reused by ``name``."""
        # math.prod, not np.prod: this runs a few hundred times per diff, and
        # numpy's reduction machinery costs microseconds per call.
        need = math.prod(shape) * _itemsize(dtype)
        if need > KEEP_BYTES:
            return np.empty(shape, dtype=dtype)
        buf = self.buffers.get(name)
        if buf is None or buf.size < need:
            buf = self.buffers[name] = np.empty(need, dtype=np.uint8)
        return buf[:need].view(dtype).reshape(shape)


@functools.cache
def _itemsize(dtype: npt.DTypeLike) -> int:
    return np.dtype(dtype).itemsize


scratch = Scratch()
