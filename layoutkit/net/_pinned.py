"""httpx's transport pinned to the one address a fetch checked (see :mod:`._fetch`)."""

from __future__ import annotations

import ssl
import time
from typing import TYPE_CHECKING, Any

import httpcore
import httpx

from layoutkit.net._address import IPAddress, Target

if TYPE_CHECKING:
    # Only a name for the annotations: _fetch imports this module when it fetches.
    from layoutkit.net._fetch import Dial


class PinnedBackend(httpcore.NetworkBackend):
    """A network backend that knows one host and dials the address checked for it."""

    def __init__(self, target: Target, address: IPAddress, dial: Dial) -> None:
        self._target = target
        self._address = address
        self._dial = dial
        self._sync = httpcore.SyncBackend()

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Any = None,
    ) -> httpcore.NetworkStream:
        asked = host.strip("[]").lower().rstrip(".")
        if asked != self._target.host or port != self._target.port:
            # The client asked for a host this fetch did not check: never dial it.
            raise httpcore.ConnectError(f"{host}:{port} is not the checked host")
        where, to_port = self._dial(self._address, port)
        # The pool is built without a local address, so this is None; it is handed on
        # so the backend keeps httpcore's contract rather than dropping the argument.
        return self._sync.connect_tcp(
            where,
            to_port,
            timeout=timeout,
            local_address=local_address,
            socket_options=socket_options,
        )

    def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Any = None
    ) -> httpcore.NetworkStream:
        raise httpcore.ConnectError("unix sockets are never dialled")

    def sleep(self, seconds: float) -> None:
        time.sleep(seconds)


class PinnedTransport(httpx.HTTPTransport):
    """httpx's transport over a one-connection pool whose backend is pinned."""

    def __init__(self, backend: PinnedBackend, tls: ssl.SSLContext | None) -> None:
        super().__init__(trust_env=False, retries=0)
        # httpx offers no network_backend argument; the pool it built is
        # replaced by one with the same TLS context and the pinned backend.
        self._pool = httpcore.ConnectionPool(
            ssl_context=tls or httpx.create_ssl_context(trust_env=False),
            max_connections=1,
            retries=0,
            network_backend=backend,
        )
