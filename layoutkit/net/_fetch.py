"""A GET that reaches public internet addresses only, pinned to the address it checked.

Every hop of a fetch goes through the same steps:

1. :func:`~layoutkit.net._address.parse_target` reads the URL strictly;
2. the name is resolved once (an injectable resolver; the default asks the
   system with ``getaddrinfo``) and *every* answer must be public, so a name
   with one private A or AAAA record is refused even if another is public;
3. the connection goes to that checked address and to no other: the HTTP
   client's network backend ignores names and dials the pinned address, while
   the request still carries the name in its Host header and, for https, in
   the TLS SNI, where the certificate is verified for the name. Nothing
   resolves the name a second time, so DNS rebinding has nothing to rebind.

Redirects are followed here, never by the client, so each hop is checked
again; there are at most :data:`MAX_REDIRECTS`. The whole fetch, resolution
included, has :data:`TIME_LIMIT` seconds; the body is read as a stream and
reading stops at :data:`MAX_BYTES` (the response is then marked truncated).
Proxy settings from the environment are ignored (``trust_env=False``): a
proxy would do its own resolution of the name.
"""

from __future__ import annotations

import ipaddress
import socket
import ssl
import threading
import time
import zlib
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any
from urllib.parse import urljoin

import attrs

from layoutkit.net._address import (
    IPAddress,
    Target,
    allowed_target,
    dial_address,
    parse_target,
    refusal,
)
from layoutkit.net._errors import FetchError

if TYPE_CHECKING:
    import httpx

# httpx (and httpcore, which imports trio where it is installed) is imported by
# the fetch that needs it: a server that never unfurls a link starts without it.

MAX_BYTES = 2 * 1024 * 1024
TIME_LIMIT = 5.0
MAX_REDIRECTS = 5
USER_AGENT = "layoutkit-unfurl/0.1 (link preview)"
_REDIRECTS = frozenset({301, 302, 303, 307, 308})

#: ``(host, port) -> addresses``: the name's A and AAAA answers as strings.
Resolver = Callable[[str, int], Sequence[str]]
#: ``(checked address, port) -> (host, port)`` the socket connects to. The
#: default dials the checked address itself; tests map a public test address to
#: a loopback server. It is called only with addresses that passed the check.
Dial = Callable[[IPAddress, int], tuple[str, int]]


def system_resolver(host: str, port: int) -> list[str]:
    """The system resolver's answers for ``host`` (both families), in its order."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return [str(info[4][0]) for info in infos]


def direct_dial(address: IPAddress, port: int) -> tuple[str, int]:
    """Connect to the checked address itself."""
    return str(dial_address(address)), port


@attrs.frozen(slots=True)
class Fetched:
    """What a fetch brought back: the final URL and address, the status, headers and body."""

    url: str
    address: str
    status: int
    headers: httpx.Headers
    body: bytes
    truncated: bool
    redirects: tuple[str, ...]

    @property
    def content_type(self) -> str:
        return self.headers.get("content-type", "").split(";", 1)[0].strip().lower()

    def charset(self) -> str | None:
        for part in self.headers.get("content-type", "").split(";")[1:]:
            key, _, value = part.partition("=")
            if key.strip().lower() == "charset":
                return value.strip().strip("\"'") or None
        return None


class _Decoder:
    """Undo a content encoding the server applied although it was not asked to,
    never producing more than the body cap (a small gzip can inflate to gigabytes)."""

    def __init__(self, encoding: str) -> None:
        enc = encoding.strip().lower()
        if enc in ("", "identity"):
            self._z = None
        elif enc in ("gzip", "x-gzip", "deflate"):
            # 47: detect a gzip or zlib header; raw deflate is retried below.
            self._z = zlib.decompressobj(47)
        else:
            raise FetchError("bad_response", f"the site sent an unsupported encoding {enc!r}")

    def feed(self, chunk: bytes, room: int) -> bytes:
        if self._z is None:
            return chunk[:room]
        try:
            return self._z.decompress(chunk, room)
        except zlib.error as exc:
            raise FetchError("bad_response", f"the compressed body is corrupt: {exc}") from exc


def _resolve_with_deadline(resolver: Resolver, host: str, port: int, left: float) -> list[str]:
    """Run the resolver on a helper thread so a hung lookup cannot outlive the deadline."""
    box: dict[str, Any] = {}

    def work() -> None:
        try:
            box["answers"] = list(resolver(host, port))
        except Exception as exc:  # any resolver failure means "no answer"
            box["error"] = exc

    worker = threading.Thread(target=work, name="layoutkit-resolve", daemon=True)
    worker.start()
    worker.join(max(left, 0.0))
    if worker.is_alive():
        raise FetchError("timed_out", f"resolving {host} took longer than the time limit")
    if "error" in box:
        raise FetchError("unresolved", f"{host} could not be resolved: {box['error']}")
    return box["answers"]


class Fetcher:
    """Fetches public web pages under the address rules; see the module docstring.

    ``resolver`` and ``dial`` are the two seams (tests stub the first and map
    the second onto loopback servers); the address check between them is not a
    seam and cannot be turned off. ``tls`` replaces the default TLS context
    (the system's CA bundle via certifi, hostname checks on), for a private CA.
    """

    def __init__(
        self,
        *,
        resolver: Resolver = system_resolver,
        dial: Dial = direct_dial,
        tls: ssl.SSLContext | None = None,
        max_bytes: int = MAX_BYTES,
        time_limit: float = TIME_LIMIT,
        max_redirects: int = MAX_REDIRECTS,
    ) -> None:
        self.resolver = resolver
        self.dial = dial
        self.tls = tls
        self.max_bytes = max_bytes
        self.time_limit = time_limit
        self.max_redirects = max_redirects

    def check(self, target: Target, deadline: float, *, public: bool = True) -> IPAddress:
        """The one address to connect to for ``target``: its IP literal, or the first
        answer of the resolver when every answer is public. Raises :class:`FetchError`
        ``unresolved`` or ``not_public`` (naming the first refused address).
        ``public`` False skips the public rule, for a host a deployment allowed."""
        if target.ip is not None:
            return target.ip
        answers = _resolve_with_deadline(
            self.resolver, target.host, target.port, deadline - time.monotonic()
        )
        if not answers:
            raise FetchError("unresolved", f"{target.host} has no address")
        addresses: list[IPAddress] = []
        for text in answers:
            try:
                ip = ipaddress.ip_address(text)
            except ValueError as exc:
                raise FetchError(
                    "unresolved", f"{target.host} resolved to {text!r}, not an address"
                ) from exc
            why = refusal(ip) if public else None
            if why is not None:
                raise FetchError(
                    "not_public", f"{target.host} resolves to {ip}, {why}", address=str(ip)
                )
            addresses.append(ip)
        return addresses[0]

    def get(self, url: str) -> Fetched:
        """GET ``url`` and every redirect after it, checking each hop.

        Returns the final response (any status; the body at most ``max_bytes``).
        Raises :class:`FetchError` with the reason: a refused URL or address
        (the hop it came from is named for redirects), ``too_many_redirects``,
        ``timed_out``, ``unreachable`` or ``bad_response``.
        """
        deadline = time.monotonic() + self.time_limit
        target = parse_target(url)
        chain: list[str] = []
        for hop in range(self.max_redirects + 1):
            try:
                address = self.check(target, deadline)
            except FetchError as err:
                if not chain:
                    raise
                raise FetchError(
                    err.code, f"redirect to {target.url}: {err.message}", **err.fields
                ) from err
            status, headers, body, truncated = self._one(target, address, deadline)
            location = headers.get("location")
            if status in _REDIRECTS and location:
                if hop == self.max_redirects:
                    raise FetchError(
                        "too_many_redirects",
                        f"more than {self.max_redirects} redirects",
                        redirects=[*chain, target.url],
                    )
                chain.append(target.url)
                nxt = urljoin(target.url, location.strip())
                try:
                    target = parse_target(nxt)
                except FetchError as err:
                    raise FetchError(
                        err.code, f"redirect to {nxt[:200]}: {err.message}", **err.fields
                    ) from err
                continue
            return Fetched(target.url, str(address), status, headers, body, truncated, tuple(chain))
        raise AssertionError("unreachable: the loop returns or raises")

    def post(
        self,
        url: str,
        body: bytes,
        headers: Mapping[str, str],
        *,
        allow: Collection[str] = (),
    ) -> Fetched:
        """POST ``body`` to ``url`` once and return the answer, whatever its status;
        a redirect is not followed (a sender of signed events does not re-send
        them elsewhere). The URL and every address its name resolves to pass the
        rules of :meth:`get`, except a host named in ``allow``: a deployment's
        explicit exception, which may be local, private or on any port. Raises
        :class:`FetchError` as :meth:`get` does."""
        deadline = time.monotonic() + self.time_limit
        allowed = allowed_target(url, allow)
        target = allowed or parse_target(url)
        address = self.check(target, deadline, public=allowed is None)
        status, answer, content, truncated = self._one(
            target, address, deadline, method="POST", content=body, headers=headers
        )
        return Fetched(target.url, str(address), status, answer, content, truncated, ())

    def _one(
        self,
        target: Target,
        address: IPAddress,
        deadline: float,
        *,
        method: str = "GET",
        content: bytes | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> tuple[int, httpx.Headers, bytes, bool]:
        left = deadline - time.monotonic()
        if left <= 0:
            raise FetchError("timed_out", f"the fetch took longer than {self.time_limit:g} s")
        import httpx

        from layoutkit.net._pinned import PinnedBackend, PinnedTransport

        backend = PinnedBackend(target, address, self.dial)
        sent = {
            "user-agent": USER_AGENT,
            "accept": "text/html,application/xhtml+xml;q=0.9,*/*;q=0.1",
            "accept-encoding": "identity",
            **(headers or {}),
        }
        try:
            with (
                httpx.Client(
                    transport=PinnedTransport(backend, self.tls),
                    trust_env=False,
                    follow_redirects=False,
                    timeout=httpx.Timeout(left),
                ) as client,
                client.stream(method, target.url, headers=sent, content=content) as response,
            ):
                if response.status_code in _REDIRECTS:
                    return response.status_code, response.headers, b"", False
                body, truncated = self._read(response, deadline)
                return response.status_code, response.headers, body, truncated
        except httpx.TimeoutException as exc:
            raise FetchError(
                "timed_out", f"the fetch took longer than {self.time_limit:g} s"
            ) from exc
        except httpx.HTTPError as exc:
            raise FetchError("unreachable", f"{target.host}: {_short(exc)}") from exc

    def _read(self, response: httpx.Response, deadline: float) -> tuple[bytes, bool]:
        decoder = _Decoder(response.headers.get("content-encoding", ""))
        parts: list[bytes] = []
        size = 0
        # Each network read as it comes: a chunk size would wait for that many bytes,
        # and a page that drips a few bytes at a time would then keep the fetch far
        # past its time limit, checked only between chunks.
        raw: Iterator[bytes] = response.iter_raw()
        for chunk in raw:
            if time.monotonic() > deadline:
                raise FetchError("timed_out", f"the fetch took longer than {self.time_limit:g} s")
            out = decoder.feed(chunk, self.max_bytes - size + 1)
            parts.append(out)
            size += len(out)
            if size > self.max_bytes:
                # Stop reading: the connection closes with the rest unread.
                return b"".join(parts)[: self.max_bytes], True
        return b"".join(parts), False


def _short(exc: Exception) -> str:
    text = str(exc) or type(exc).__name__
    return text if len(text) <= 200 else text[:199] + "…"
