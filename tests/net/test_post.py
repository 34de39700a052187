"""Fetcher.post: one POST under the address rules, and the hosts a deployment allows."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import ThreadingHTTPServer
from typing import Any

import pytest

from layoutkit.net import Fetcher, FetchError, allowed_target
from tests.loopback import QuietHandler
from tests.net.conftest import PUBLIC, SITE


class _Echo(QuietHandler):
    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("content-length", "0")))
        answer = self.headers.get("x-probe", "").encode() + b":" + body
        self.send_response(302 if self.path == "/moved" else 201)
        self.send_header("location", "/elsewhere")
        self.send_header("content-length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)


@pytest.fixture
def echo() -> Iterator[int]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Echo)
    thread = threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    )
    thread.start()
    yield server.server_address[1]
    server.shutdown()
    server.server_close()


def test_a_post_to_a_public_name_goes_to_its_checked_address(
    make_fetcher: Any, router: Any
) -> None:
    got = make_fetcher().post(f"http://{SITE}/hook", b"{}", {"content-type": "application/json"})
    # The loopback site serves GET only: any answer is handed back as it came.
    assert got.status == 501 and got.address == PUBLIC
    assert router.dialled == [PUBLIC]


def test_a_name_resolving_to_a_private_address_is_refused(make_fetcher: Any, router: Any) -> None:
    fetcher = make_fetcher({"hooks.example.net": ["10.0.0.7"]})
    with pytest.raises(FetchError) as exc:
        fetcher.post("http://hooks.example.net/h", b"{}", {})
    assert exc.value.code == "not_public"
    assert router.dialled == []


def test_an_allowed_host_is_reached_on_any_port_and_redirects_stay_answers(echo: int) -> None:
    fetcher = Fetcher()  # dials the address itself: the loopback receiver
    url = f"http://127.0.0.1:{echo}/hook"
    with pytest.raises(FetchError) as exc:
        fetcher.post(url, b"x", {})
    assert exc.value.code == "bad_port"
    got = fetcher.post(url, b"hello", {"x-probe": "p"}, allow={"127.0.0.1"})
    assert (got.status, got.body) == (201, b"p:hello")
    moved = fetcher.post(f"http://127.0.0.1:{echo}/moved", b"", {}, allow={"127.0.0.1"})
    assert moved.status == 302 and moved.redirects == ()


@pytest.mark.parametrize(
    ("url", "allow", "found"),
    [
        ("http://LocalHost:9000/x", {"localhost"}, ("localhost", 9000)),
        ("https://0x7f.1/x", {"127.0.0.1"}, ("127.0.0.1", 443)),
        ("http://[::1]:8000/x", {"::1"}, ("::1", 8000)),
        ("http://localhost/x", {"127.0.0.1"}, None),
        ("http://127.0.0.1/x", set(), None),
    ],
)
def test_allowed_targets_are_named_hosts_only(
    url: str, allow: set[str], found: tuple[str, int] | None
) -> None:
    target = allowed_target(url, allow)
    assert (None if target is None else (target.host, target.port)) == found
