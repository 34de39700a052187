"""Loopback web servers that stand in for public sites, and a fetcher wired to them.

Two servers listen on 127.0.0.1: ``site`` plays a public web site, ``inside``
plays a service on a private network. The fetcher under test resolves names
with a stub and connects through a dial hook that sends the public test
addresses to ``site`` and *every other address* to ``inside``, as a real
network would route them. The address check sits before the dial hook and is
not replaced: a vector that slipped past it would show up as a connection
accepted by ``inside``.
"""

from __future__ import annotations

import gzip
import io
import ipaddress
import queue
import threading
import time
from collections.abc import Iterator
from http.server import ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from PIL import Image

from layoutkit.net import Fetcher
from tests.loopback import QuietHandler

#: Public addresses the stub resolver hands out for the test site.
PUBLIC = "93.184.216.34"
PUBLIC6 = "2606:2800:220:1:248:1893:25c8:1946"
SITE = "site.example.net"

PAGE = b"""<!doctype html>
<html><head>
<meta charset="utf-8">
<title>  Plain   title </title>
<meta property="og:title" content="The OG title">
<meta property="og:description" content="What the page is about.">
<meta property="og:site_name" content="Example Site">
<meta property="og:image" content="/img/card.png">
<meta name="twitter:card" content="summary">
<meta name="description" content="plain description">
<link rel="apple-touch-icon" href="/touch.png">
<link rel="icon" href="/favicon-32.png" sizes="32x32">
</head><body><p>Hello</p></body></html>
"""
TWITTER_PAGE = b"""<html><head>
<meta name="twitter:title" content="Twitter title">
<meta name="twitter:description" content="Twitter description">
<link rel="shortcut icon" href="javascript:alert(1)">
<link rel="apple-touch-icon" href="https://cdn.example.org/t.png">
</head><body></body></html>
"""
TITLE_PAGE = (
    b"<html><head><title>Only a title</title>"
    b'<meta name="description" content="A plain meta description."></head></html>'
)


PRIVATE_PICTURES_PAGE = b"""<html><head><title>Pictures elsewhere</title>
<meta property="og:image" content="http://10.0.0.7/card.png">
<link rel="icon" href="http://localhost/favicon.png">
</head></html>
"""


def _png(width: int, height: int, color: str) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (width, height), color).save(out, format="PNG")
    return out.getvalue()


#: The test site's pictures: its icon and the page's og:image.
PICTURES = {"/favicon-32.png": _png(32, 32, "#c0392b"), "/img/card.png": _png(1200, 630, "#2e86c1")}


class LoopbackServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.accepted = 0
        self.paths: list[str] = []
        self.hosts: list[str] = []
        self._count = threading.Lock()
        #: How many pieces each ``/slow`` answer wrote before it ended (100: all).
        self.drips: queue.Queue[int] = queue.Queue()

    def get_request(self) -> Any:
        request = super().get_request()
        with self._count:
            self.accepted += 1
        return request

    @property
    def port(self) -> int:
        return self.server_address[1]


class _Handler(QuietHandler):
    server: LoopbackServer
    protocol_version = "HTTP/1.1"

    def _send(self, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        head = {"content-type": "text/html; charset=utf-8", **(headers or {})}
        for key, value in head.items():
            self.send_header(key, value)
        self.send_header("content-length", str(len(body)))
        self.send_header("connection", "close")
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        self.server.paths.append(self.path)
        self.server.hosts.append(self.headers.get("host", ""))
        url = urlsplit(self.path)
        q = {k: v[0] for k, v in parse_qs(url.query).items()}
        path = url.path
        if path == "/":
            self._send(200, PAGE)
        elif path in PICTURES:
            self._send(200, PICTURES[path], {"content-type": "image/png"})
        elif path == "/private-pictures":
            self._send(200, PRIVATE_PICTURES_PAGE)
        elif path == "/twitter":
            self._send(200, TWITTER_PAGE)
        elif path == "/title":
            self._send(200, TITLE_PAGE)
        elif path == "/to":
            self._send(int(q.get("s", "302")), b"", {"location": q["u"]})
        elif path.startswith("/hop/"):
            n = int(path.rsplit("/", 1)[1])
            if n == 0:
                self._send(200, TITLE_PAGE)
            else:
                self._send(302, b"", {"location": f"/hop/{n - 1}"})
        elif path == "/headers":
            headers = {k: v for k, v in q.items() if k in ("x-frame-options",)}
            self.send_response(200)
            self.send_header("content-type", "text/html")
            for value in q.get("csp", "").split("|"):
                if value:
                    self.send_header("content-security-policy", value)
            for key, value in headers.items():
                self.send_header(key, value)
            if "csp_ro" in q:
                self.send_header("content-security-policy-report-only", q["csp_ro"])
            self.send_header("content-length", str(len(TITLE_PAGE)))
            self.send_header("connection", "close")
            self.end_headers()
            self.wfile.write(TITLE_PAGE)
        elif path == "/big":
            self._stream(b"<html><head><title>Big</title></head><body>", 64 * 1024, 200)
        elif path == "/bomb":
            body = gzip.compress(b"<html><head><title>Bomb</title></head>" + b" " * (20 << 20))
            self._send(200, body, {"content-encoding": "gzip"})
        elif path == "/slow":
            self._drip()
        elif path == "/missing":
            self._send(404, b"<title>Not here</title>")
        elif path == "/leaky":
            # A page that tries to reach a private service three ways while it is captured.
            inner = f"http://127.0.0.1:{q['p']}"
            body = (
                f'<html><body style="background:#2b6"><h1>Leaky</h1>'
                f'<img src="{inner}/img.png"><img src="http://other.example.net/x.png">'
                f'<iframe src="http://[::1]:{q["p"]}/frame"></iframe>'
                f'<script>fetch("{inner}/fetch").catch(() => 0)</script></body></html>'
            )
            self._send(200, body.encode())
        elif path == "/pdf":
            self._send(200, b"%PDF-1.4 ...", {"content-type": "application/pdf"})
        else:
            self._send(404, b"no such page")

    def _stream(self, head: bytes, chunk: int, chunks: int) -> None:
        self.send_response(200)
        self.send_header("content-type", "text/html")
        self.send_header("connection", "close")
        self.end_headers()
        try:
            self.wfile.write(head)
            for _ in range(chunks):
                self.wfile.write(b"x" * chunk)
        except OSError:
            return  # the fetcher stopped reading at its cap and hung up

    def _drip(self) -> None:
        self.send_response(200)
        self.send_header("content-type", "text/html")
        self.send_header("connection", "close")
        self.end_headers()
        sent = 0
        try:
            for _ in range(100):
                self.wfile.write(b"<!-- . -->")
                self.wfile.flush()
                sent += 1
                time.sleep(0.1)
        except OSError:
            pass  # the fetcher gave up at its time limit and hung up
        self.server.drips.put(sent)  # type: ignore[attr-defined]


def _serve() -> Iterator[LoopbackServer]:
    server = LoopbackServer()
    thread = threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    )
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
def site() -> Iterator[LoopbackServer]:
    yield from _serve()


@pytest.fixture(scope="module")
def inside() -> Iterator[LoopbackServer]:
    yield from _serve()


class StubResolver:
    """Answers from a table; a list of answer lists is handed out one per lookup."""

    def __init__(self, table: dict[str, Any]) -> None:
        self.table = table
        self.lookups: list[str] = []

    def __call__(self, host: str, port: int) -> list[str]:
        self.lookups.append(host)
        answer = self.table.get(host)
        if answer is None:
            raise OSError(f"no such name {host}")
        if answer and isinstance(answer[0], list):
            return answer.pop(0) if len(answer) > 1 else answer[0]
        return list(answer)


class Router:
    """The dial hook: public test addresses reach ``site``, anything else ``inside``."""

    def __init__(self, site: LoopbackServer, inside: LoopbackServer) -> None:
        self.site = site
        self.inside = inside
        self.dialled: list[str] = []

    def __call__(self, address: Any, port: int) -> tuple[str, int]:
        self.dialled.append(str(address))
        public = {ipaddress.ip_address(PUBLIC), ipaddress.ip_address(PUBLIC6)}
        target = self.site if address in public else self.inside
        return "127.0.0.1", target.port


def base_table() -> dict[str, Any]:
    return {SITE: [PUBLIC], "v6site.example.net": [PUBLIC6]}


@pytest.fixture
def router(site: LoopbackServer, inside: LoopbackServer) -> Router:
    return Router(site, inside)


@pytest.fixture
def make_fetcher(router: Router) -> Any:
    def make(table: dict[str, Any] | None = None, **options: Any) -> Fetcher:
        resolver = StubResolver({**base_table(), **(table or {})})
        fetcher = Fetcher(resolver=resolver, dial=router, **options)
        fetcher.stub = resolver  # type: ignore[attr-defined]
        return fetcher

    return make
