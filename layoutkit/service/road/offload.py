"""CPU-heavy engine work in worker processes, so one request cannot starve the others.

Diagram layout and board rendering go through :func:`run`. The HTTP server
runs operations in threads, but a diagram layout holds the
interpreter lock for most of its run and, inside the LP solver, for tens of
milliseconds at a stretch: small requests beside it waited up to 160 ms.
With a pool started (:func:`start`, done by ``layoutkit serve``), :func:`run`
sends the work to a worker process and the calling thread waits without the
lock. Without one (embedders, the CLI, tests) the work runs in the caller,
as before. Engine refusals cross the process boundary intact
(:class:`~layoutkit.errors.EngineError` pickles with its code and fields).
"""

from __future__ import annotations

import gc
import multiprocessing.context
import os
import signal
import threading
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

T = TypeVar("T")

_pool: ProcessPoolExecutor | None = None
_lock = threading.Lock()

#: The signals a terminal or a supervisor sends to stop a server.
_STOPPING = {signal.SIGINT, signal.SIGTERM}


class _ShelteredProcess(multiprocessing.context.SpawnProcess):
    """A spawned process that starts with SIGINT and SIGTERM blocked.

    A Ctrl-C reaches every process of the terminal's group, and a new process
    spends its first second importing: one that arrives then would print a
    KeyboardInterrupt trace from the middle of an import. The block is held
    until the process has put its own handling in place (:func:`unshelter`);
    a signal sent meanwhile waits for it.
    """

    def start(self) -> None:
        # The mask of the starting thread is what the new process inherits.
        before = signal.pthread_sigmask(signal.SIG_BLOCK, _STOPPING)
        try:
            super().start()
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, before)


class ShelteredSpawn(multiprocessing.context.SpawnContext):
    """The spawn context, with processes that start sheltered from stop signals."""

    Process = _ShelteredProcess


def unshelter() -> None:
    """Let the stop signals through again, to the handlers now in place."""
    signal.pthread_sigmask(signal.SIG_UNBLOCK, _STOPPING)


def _warm(parent: int) -> None:
    # Import the engines once per worker, not on its first job.
    import highspy  # noqa: F401  (the diagram engine imports it when it first lays out)

    import layoutkit.diagram
    import layoutkit.render  # noqa: F401

    # Ctrl-C reaches every process of the terminal's group: the server stops
    # this pool itself, and a KeyboardInterrupt here would only print a trace.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    unshelter()

    # A server stopped by a signal does not shut its pool down: a worker whose
    # parent is gone exits by itself rather than linger.
    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(0)

    threading.Thread(target=watch, daemon=True).start()
    # What the imports made lives as long as the worker: out of the collector's
    # sight, a full collection (one lands in most board drawings) skips it.
    gc.freeze()


def start(workers: int) -> None:
    """Start the pool of ``workers`` processes (once; later calls keep the first pool)."""
    global _pool
    with _lock:
        if _pool is None and workers > 0:
            # spawn: a fork of a threaded server can inherit a held lock.
            _pool = ProcessPoolExecutor(
                workers, mp_context=ShelteredSpawn(), initializer=_warm, initargs=(os.getpid(),)
            )


def stop() -> None:
    """Shut the pool down (the work goes back to the callers' threads)."""
    global _pool
    with _lock:
        pool, _pool = _pool, None
    if pool is not None:
        pool.shutdown(wait=True, cancel_futures=True)


def running() -> bool:
    return _pool is not None


def run(fn: Callable[..., T], *args: Any) -> T:
    """``fn(*args)`` in a worker process when the pool runs, else here.

    ``fn`` must be a module-level function and ``args`` picklable. A pool whose
    worker died (killed, out of memory) is replaced and the call runs here.
    """
    pool = _pool
    if pool is None:
        return fn(*args)
    try:
        return pool.submit(fn, *args).result()
    except BrokenProcessPool:
        workers = pool._max_workers  # the same size again
        stop()
        start(workers)
        return fn(*args)
