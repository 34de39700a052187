"""Background jobs of a workspace: work that lands after the receipt went back.

A small bounded thread pool owned by the :class:`~layoutkit.service.road.workspace.Workspace`
and shut down with it. Jobs are plain callables; each lands its result in its
own short transaction through the workspace. Tests and one-shot commands wait
for the queue to empty with :meth:`JobRunner.drain`.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor

log = logging.getLogger("layoutkit.jobs")

#: Threads that run jobs: link fetches wait on the network, not the CPU.
WORKERS = 4
#: Jobs waiting or running at most; past it a job is refused (``submit`` answers False).
QUEUE_LIMIT = 1000


class JobRunner:
    """A bounded pool of background jobs with a way to wait until all are done."""

    def __init__(self, workers: int = WORKERS, limit: int = QUEUE_LIMIT) -> None:
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="layoutkit-job")
        self._limit = limit
        self._pending = 0
        self._idle = threading.Condition()
        self._closed = False
        self._drops: dict[Future[None], Callable[[], None]] = {}
        self._dropped: list[Callable[[], None]] = []

    @property
    def pending(self) -> int:
        """Jobs queued or running."""
        with self._idle:
            return self._pending

    def submit(self, job: Callable[[], object], on_drop: Callable[[], None] | None = None) -> bool:
        """Queue ``job``; False when the runner is shut down or already holds ``limit`` jobs.

        ``on_drop`` runs instead of ``job`` when the runner shuts down before the
        job started, so the job can leave word that it never ran.
        """
        with self._idle:
            if self._closed or self._pending >= self._limit:
                return False
            self._pending += 1
        try:
            future = self._pool.submit(self._run, job)
        except RuntimeError:  # the pool shut down between the check and the submit
            self._done()
            return False
        if on_drop is not None:
            with self._idle:
                self._drops[future] = on_drop
        future.add_done_callback(self._cancelled)
        return True

    def _run(self, job: Callable[[], object]) -> None:
        try:
            job()
        except Exception:
            # A job's failure must not kill the worker nor reach a caller that
            # has long had its receipt; it is logged and the next job runs.
            log.exception("background job failed")
        finally:
            self._done()

    def _cancelled(self, future: Future[None]) -> None:
        with self._idle:
            on_drop = self._drops.pop(future, None)
        if future.cancelled():
            if on_drop is not None:
                self._dropped.append(on_drop)
            self._done()

    def _done(self) -> None:
        with self._idle:
            self._pending -= 1
            if self._pending == 0:
                self._idle.notify_all()

    def drain(self, timeout: float | None = None) -> bool:
        """Wait until no job is queued or running; False if ``timeout`` passed first."""
        with self._idle:
            return self._idle.wait_for(lambda: self._pending == 0, timeout)

    def shutdown(self) -> None:
        """Refuse new jobs, drop those not started (running their ``on_drop``), and
        wait for the running ones."""
        with self._idle:
            self._closed = True
        self._pool.shutdown(wait=True, cancel_futures=True)
        dropped, self._dropped = self._dropped, []
        for on_drop in dropped:
            try:
                on_drop()
            except Exception:
                log.exception("a dropped job's note failed")
