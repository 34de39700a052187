"""Worker processes of ``layoutkit serve --workers N``, each with a listening socket of its own.

uvicorn's own supervisor hands every worker the same listening socket, and
the kernel then wakes whichever worker waited last: measured on 8 kept-alive
client connections, one worker served every request and the other none. Here
each worker gets its own socket on the same port (``SO_REUSEPORT``), and the
kernel spreads new connections over them evenly. The parent restarts a worker
that dies, with the same socket, and stops them all on SIGINT or SIGTERM.
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import signal
import socket
import threading
import time
from typing import Any

log = logging.getLogger(__name__)

#: A worker that dies this soon after it started is broken, not unlucky:
#: restarting it would only loop.
STARTUP_GRACE_S = 5.0


def can_share_port() -> bool:
    """Whether this system spreads connections over sockets bound to one port."""
    return hasattr(socket, "SO_REUSEPORT")


def listening_sockets(host: str, port: int, count: int) -> list[socket.socket]:
    """``count`` sockets listening on ``host:port`` (port 0: one free port for all)."""
    family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
    out: list[socket.socket] = []
    try:
        for _ in range(count):
            sock = socket.socket(family, kind, proto)
            out.append(sock)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
            # Accepted connections inherit it; asyncio sets it only on sockets
            # it made itself, and without it an answer waits for the client's
            # delayed ACK (about 45 ms).
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            sock.bind(address)
            address = sock.getsockname()  # port 0 became a real port: the others share it
            sock.listen(2048)
            sock.set_inheritable(True)
    except BaseException:
        for sock in out:
            sock.close()
        raise
    return out


def _worker(sock: socket.socket, settings: dict[str, Any]) -> None:  # pragma: no cover
    # Runs in a fresh (spawned) process; its coverage is the end-to-end test's.
    import uvicorn

    config = uvicorn.Config(**settings)
    uvicorn.Server(config).run(sockets=[sock])


def supervise(sockets: list[socket.socket], settings: dict[str, Any]) -> int:
    """Run one uvicorn worker per socket until SIGINT or SIGTERM; the exit status.

    ``settings`` are :class:`uvicorn.Config` keyword arguments (an app import
    string, so each spawned worker builds its own app).
    """
    context = multiprocessing.get_context("spawn")
    stop = threading.Event()
    workers: list[Any] = [None] * len(sockets)
    started = [0.0] * len(sockets)

    def start(i: int) -> None:
        process = context.Process(
            target=_worker, args=(sockets[i], settings), name=f"layoutkit-worker-{i}"
        )
        process.start()
        workers[i], started[i] = process, time.monotonic()

    previous = {
        sig: signal.signal(sig, lambda *_: stop.set()) for sig in (signal.SIGINT, signal.SIGTERM)
    }
    status = 0
    try:
        for i in range(len(sockets)):
            start(i)
        while not stop.wait(0.5):
            for i, process in enumerate(workers):
                if process.is_alive():
                    continue
                if time.monotonic() - started[i] < STARTUP_GRACE_S:
                    log.error("worker %s exited at start (code %s); stopping", i, process.exitcode)
                    status = 1
                    stop.set()
                    break
                log.warning("worker %s died (code %s); starting it again", i, process.exitcode)
                start(i)
    finally:
        for process in workers:
            if process is not None and process.is_alive():
                process.terminate()
        for process in workers:
            if process is not None:
                process.join(15)
                if process.is_alive():
                    process.kill()
                    process.join()
        for sig, handler in previous.items():
            with contextlib.suppress(ValueError, TypeError):
                signal.signal(sig, handler)
        for sock in sockets:
            sock.close()
    return status
