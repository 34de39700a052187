"""Worker processes of ``layoutkit serve --workers N``, each with a listening socket of its own.

uvicorn's own supervisor hands every worker the same listening socket, and
the kernel then wakes whichever worker waited last: measured on 8 kept-alive
client connections, one worker served every request and the other none. Here
each worker gets its own socket on the same port (``SO_REUSEPORT``), and the
kernel spreads new connections over them evenly. The parent restarts a worker
that dies, with the same socket, and stops them all when it stops.

The parent serves the first socket itself, with the app it already built, so
the first answer does not wait for a worker to start (a spawned worker imports
the whole engine again). The workers' sockets are bound but listen only once
their worker serves them (asyncio listens on a socket it is handed): until
then the kernel sends every connection to the parent.

``SO_REUSEPORT`` would as gladly spread connections over a second server that
binds the port the same way (another ``layoutkit serve`` on another database:
its clients then meet random 401s), so a server first takes the port alone
(:func:`owned_sockets`): a bind without ``SO_REUSEPORT`` fails while any other
socket listens there, with or without it.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import signal
import socket
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

#: A worker that dies this soon after it started is broken, not unlucky:
#: restarting it would only loop.
STARTUP_GRACE_S = 5.0


def can_share_port() -> bool:
    """Whether this system spreads connections over sockets bound to one port."""
    return hasattr(socket, "SO_REUSEPORT")


class CannotListen(Exception):
    """``host:port`` cannot be served: another process listens there (``in_use``), or
    the bind failed otherwise (an address not of this machine, a port kept for root)."""

    def __init__(self, message: str, *, in_use: bool) -> None:
        super().__init__(message)
        self.in_use = in_use


def _address(host: str, port: int) -> tuple[int, int, int, Any]:
    family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
    return family, kind, proto, address


def _refusal(host: str, port: int, err: OSError) -> CannotListen:
    if err.errno == errno.EADDRINUSE:
        return CannotListen(f"port {port} on {host} is in use by another process", in_use=True)
    return CannotListen(f"cannot listen on {host}:{port}: {err.strerror or err}", in_use=False)


def _listening(
    family: int, kind: int, proto: int, address: Any, *, share: bool, listen: bool = True
) -> socket.socket:
    sock = socket.socket(family, kind, proto)
    try:
        # A port left in TIME_WAIT by a server that stopped is free to take again.
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if share:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        # Accepted connections inherit it; asyncio sets it only on sockets
        # it made itself, and without it an answer waits for the client's
        # delayed ACK (about 45 ms).
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.bind(address)
        if listen:
            sock.listen(2048)
        sock.set_inheritable(True)
    except BaseException:
        sock.close()
        raise
    return sock


@contextlib.contextmanager
def _starting_on(port: int) -> Iterator[None]:
    """Held from the check of ``port`` until its shared sockets listen, so two
    servers starting together cannot both find it free before either binds.

    Only processes of one user may share a port through ``SO_REUSEPORT``, so a
    lock of that user's is enough; the kernel drops it when its holder dies.
    """
    try:
        import fcntl
    except ImportError:  # pragma: no cover - no flock where there is no SO_REUSEPORT
        yield
        return
    folder = Path(tempfile.gettempdir()) / f"layoutkit-{os.getuid()}"
    try:
        folder.mkdir(mode=0o700, exist_ok=True)
        if folder.stat().st_uid != os.getuid():
            raise PermissionError(f"{folder} belongs to another user")
        lock = open(folder / f"port-{port}.lock", "a")  # noqa: SIM115 - held across the yield
    except OSError:
        # No lock to be had: the check still stands, only the moment between it
        # and the bind is left open.
        yield
        return
    with lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def owned_sockets(
    host: str, port: int, count: int, *, deferred: bool = False
) -> list[socket.socket]:
    """``count`` sockets listening on ``host:port`` that no other process shares.

    One socket is bound without ``SO_REUSEPORT``, so no later bind can join it.
    Several share the port with ``SO_REUSEPORT`` (:func:`listening_sockets`),
    after a plain bind, closed at once, showed that nothing else listens
    there; a lock held from that check until they listen keeps another
    layoutkit server from slipping in between. Port 0 takes a free port, which
    the kernel never picks from a group that shares one. Raises
    :class:`CannotListen` naming the port when it is taken.
    """
    family, kind, proto, address = _address(host, port)
    try:
        if count == 1:
            return [_listening(family, kind, proto, address, share=False)]
        if port == 0:
            return listening_sockets(host, port, count, deferred=deferred)
        with _starting_on(port):
            with socket.socket(family, kind, proto) as probe:
                probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                probe.bind(address)
            return listening_sockets(host, port, count, deferred=deferred)
    except OSError as err:
        raise _refusal(host, port, err) from err


def listening_sockets(
    host: str, port: int, count: int, *, deferred: bool = False
) -> list[socket.socket]:
    """``count`` sockets listening on ``host:port`` (port 0: one free port for all);
    with ``deferred`` all but the first are only bound."""
    family, kind, proto, address = _address(host, port)
    out: list[socket.socket] = []
    try:
        for i in range(count):
            listen = i == 0 or not deferred
            sock = _listening(family, kind, proto, address, share=True, listen=listen)
            out.append(sock)
            address = sock.getsockname()  # port 0 became a real port: the others share it
    except BaseException:
        for sock in out:
            sock.close()
        raise
    return out


def stopping_on_sigterm() -> Any:
    """Make SIGTERM stop this process as SIGINT does (``KeyboardInterrupt``); the
    handler it replaces, to put back.

    uvicorn stops gracefully on either signal and then raises it again, to
    end the way the signal would have: under the default SIGTERM action that
    kills the process before its ``finally`` blocks and exit handlers run, and
    the engine pool's semaphores are left to the resource tracker's warning.
    Outside the main thread (embedding code serving from a thread) nothing
    changes, and None is returned.
    """
    if threading.current_thread() is not threading.main_thread():
        return None
    return signal.signal(signal.SIGTERM, signal.default_int_handler)


def _worker(sock: socket.socket, settings: dict[str, Any]) -> None:  # pragma: no cover
    # Runs in a fresh (spawned) process; its coverage is the end-to-end test's.
    stopping_on_sigterm()
    # A stop signal (SIGINT, or SIGTERM turned into one) is how a worker is told to
    # end, whether it arrives while importing or while serving: end quietly.
    with contextlib.suppress(KeyboardInterrupt):
        from layoutkit.service.road import offload

        # Started with the stop signals blocked (offload.ShelteredSpawn): one
        # sent while this process imported is raised here, as KeyboardInterrupt.
        offload.unshelter()
        import uvicorn

        from layoutkit.adapters._serving import uvicorn_server

        config = uvicorn.Config(**settings)
        try:
            # The project's server: a stop ends its event streams and long polls at once.
            uvicorn_server(config, None).run(sockets=[sock])
        finally:
            offload.stop()


class Supervisor:
    """Runs one uvicorn worker process per socket, from a thread of the serving
    parent, restarting a worker that dies until :meth:`stop`.

    ``settings`` are :class:`uvicorn.Config` keyword arguments (an app import
    string, so each spawned worker builds its own app). A worker that exits
    right after it started is broken, not unlucky: restarting it would only
    loop, so the supervisor sets :attr:`broken` and tells the server to stop.
    """

    def __init__(self, sockets: list[socket.socket], settings: dict[str, Any]) -> None:
        self.sockets, self.settings = sockets, settings
        self.broken = False
        self._failed: Callable[[], None] = lambda: None
        from layoutkit.service.road.offload import ShelteredSpawn

        self._context = ShelteredSpawn()
        self._stop = threading.Event()
        self._workers: list[Any] = [None] * len(sockets)
        self._started = [0.0] * len(sockets)
        self._thread: threading.Thread | None = None

    def start(self, failed: Callable[[], None]) -> None:
        """Spawn the workers and watch them, in a thread of their own; ``failed`` is
        called from that thread when a worker cannot start."""
        self._failed = failed
        if self._thread is None and not self._stop.is_set():
            self._thread = threading.Thread(
                target=self._run, name="layoutkit-supervisor", daemon=True
            )
            self._thread.start()

    def _spawn(self, i: int) -> None:
        process = self._context.Process(
            target=_worker, args=(self.sockets[i], self.settings), name=f"layoutkit-worker-{i}"
        )
        process.start()
        self._workers[i], self._started[i] = process, time.monotonic()

    def _run(self) -> None:
        for i in range(len(self.sockets)):
            if self._stop.is_set():
                return
            self._spawn(i)
        while not self._stop.wait(0.5):
            for i, process in enumerate(self._workers):
                if process.is_alive() or self._stop.is_set():
                    continue
                if time.monotonic() - self._started[i] < STARTUP_GRACE_S:
                    log.error("worker %s exited at start (code %s); stopping", i, process.exitcode)
                    self.broken = True
                    self._stop.set()
                    self._failed()
                    return
                log.warning("worker %s died (code %s); starting it again", i, process.exitcode)
                self._spawn(i)

    def stop(self) -> None:
        """Stop watching, then ask every live worker to stop and wait for each;
        one that does not stop in 15 seconds is killed."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        for process in self._workers:
            if process is not None and process.is_alive():
                process.terminate()
        for process in self._workers:
            if process is not None:
                process.join(15)
                if process.is_alive():
                    process.kill()
                    process.join()
