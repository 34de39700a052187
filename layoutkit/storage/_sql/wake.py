"""Wake-ups of waiting ``wait_for_work`` calls, one :class:`Waker` per store and process.

``generation`` moves on each time work may have appeared anywhere; a waiter
notes it before looking and then sleeps until it moves. The watcher is one
daemon thread per store, started by the first waiter: a ``LISTEN`` connection
on PostgreSQL (woken by the ``NOTIFY`` of :meth:`WorkRows.signal_work`), a
poll of the ``work_signals`` counters on SQLite while anyone waits. This
process's own writes fire it directly when they commit.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
from typing import Any

from sqlalchemy.engine import make_url

from layoutkit.storage._sql.work import CHANNEL

log = logging.getLogger(__name__)

#: How often the SQLite watcher reads the change counters while anyone waits.
POLL_S = 0.01
#: Pause before the PostgreSQL listener reconnects after losing its connection.
RECONNECT_S = 1.0


class Waker:
    """Wake-ups of one store in this process, shared by every waiting call."""

    def __init__(self, store: Any) -> None:
        self.store = store
        self.generation = 0
        self._cond = threading.Condition()
        self._loops: set[tuple[asyncio.AbstractEventLoop, asyncio.Event]] = set()
        self._waiting = 0
        self._thread: threading.Thread | None = None
        self._closed = False

    def fire(self) -> None:
        with self._cond:
            self.generation += 1
            self._cond.notify_all()
            loops = list(self._loops)
        for loop, event in loops:
            # A closed loop's waiter is gone already.
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(event.set)

    def _start(self) -> None:
        with self._cond:
            self._waiting += 1
            self._cond.notify_all()  # the SQLite poller sleeps while nobody waits
            if self._thread is None and not self.store.memory:
                target = self._listen if self.store.dialect == "postgresql" else self._poll
                self._thread = threading.Thread(target=target, name="work-waker", daemon=True)
                self._thread.start()

    def _stop(self) -> None:
        with self._cond:
            self._waiting -= 1

    def wait(self, generation: int, timeout: float) -> None:
        """Block until the generation moves past ``generation`` or ``timeout`` passes."""
        self._start()
        try:
            with self._cond:
                self._cond.wait_for(lambda: self.generation != generation, timeout)
        finally:
            self._stop()

    async def wait_async(self, generation: int, timeout: float) -> None:
        """:meth:`wait` on the event loop: no thread and no connection is held."""
        event = asyncio.Event()
        entry = (asyncio.get_running_loop(), event)
        self._start()
        with self._cond:
            self._loops.add(entry)
            moved = self.generation != generation
        try:
            if not moved:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(event.wait(), timeout)
        finally:
            with self._cond:
                self._loops.discard(entry)
            self._stop()

    def _poll(self) -> None:
        seen: dict[int, int] | None = None
        while not self._closed:
            with self._cond:
                # Nobody waiting: read nothing until someone does.
                self._cond.wait_for(lambda: self._waiting > 0 or self._closed, 5.0)
            try:
                with self.store.read(snapshot=False) as tx:
                    now = tx.work_counters()
            except Exception:
                log.exception("reading the work counters failed")
                time.sleep(RECONNECT_S)
                continue
            if seen is not None and now != seen:
                self.fire()
            seen = now
            time.sleep(POLL_S)

    def _listen(self) -> None:
        import psycopg

        url = make_url(str(self.store.engine.url.render_as_string(hide_password=False)))
        dsn = url.set(drivername="postgresql").render_as_string(hide_password=False)
        while not self._closed:
            try:
                with psycopg.connect(dsn, autocommit=True) as conn:
                    conn.execute(f"LISTEN {CHANNEL}")
                    # Anything written while the connection was down is re-checked now.
                    self.fire()
                    while not self._closed:
                        for _ in conn.notifies(timeout=5.0):
                            self.fire()
            except Exception:
                log.warning("the work listener lost its connection; reconnecting", exc_info=True)
                time.sleep(RECONNECT_S)
