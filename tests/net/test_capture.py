"""The capture sidecar: screenshots under the same address rules as the fetch."""

from __future__ import annotations

import base64
import io
import json
import threading
from http.server import ThreadingHTTPServer
from typing import Any

import pytest
from PIL import Image

from layoutkit.net import (
    ChromiumCapture,
    FetchError,
    SidecarCapture,
    Unfurler,
    capture_from,
)
from tests.browser import CHROMIUM, SKIP_REASON
from tests.loopback import QuietHandler
from tests.net.conftest import PUBLIC, SITE


def _png(w: int, h: int) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (w, h), "#36c").save(out, format="PNG")
    return out.getvalue()


@pytest.mark.browser
@pytest.mark.skipif(CHROMIUM is None, reason=SKIP_REASON)
def test_chromium_takes_both_views_and_reaches_nothing_but_the_checked_address(
    make_fetcher: Any, router: Any, site: Any, inside: Any
) -> None:
    before = inside.accepted
    capture = ChromiumCapture(CHROMIUM, dial=router)
    unfurled = Unfurler(make_fetcher(), capture).unfurl(f"http://{SITE}/leaky?p={inside.port}")
    assert "error" not in unfurled.fields and "shots" not in unfurled.fields
    desktop, phone = unfurled.shots["desktop"], unfurled.shots["phone"]
    assert (desktop.width, desktop.height) == (1280, 800)
    assert (phone.width, phone.height) == (390, 844)
    # The page loaded (its green background fills the shot)...
    with Image.open(io.BytesIO(desktop.png)) as img:
        assert img.convert("RGB").getpixel((1270, 790)) == (0x22, 0xBB, 0x66)
    # ...and none of its three tries at a private address got through.
    assert inside.accepted == before


def test_a_capture_refuses_an_address_that_is_not_public() -> None:
    with pytest.raises(FetchError) as caught:
        SidecarCapture("http://127.0.0.1:9/").shoot(f"http://{SITE}/", "10.0.0.1")
    assert caught.value.code == "not_public"


class _Service(QuietHandler):
    seen: list[dict[str, Any]] = []  # noqa: RUF012

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["content-length"])))
        self.seen.append(body)
        shots = {
            name: base64.b64encode(_png(v["width"], v["height"])).decode()
            for name, v in body["views"].items()
        }
        data = json.dumps(shots).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def test_a_sidecar_by_url_gets_the_checked_url_and_address(make_fetcher: Any) -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Service)
    threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    ).start()
    try:
        capture = capture_from(f"http://127.0.0.1:{server.server_address[1]}/shoot")
        unfurled = Unfurler(make_fetcher(), capture).unfurl(f"http://{SITE}/hop/1")
    finally:
        server.shutdown()
        server.server_close()
    assert _Service.seen[-1]["url"] == f"http://{SITE}/hop/0"  # the final, checked hop
    assert _Service.seen[-1]["address"] == PUBLIC
    assert (unfurled.shots["desktop"].width, unfurled.shots["phone"].height) == (1280, 844)
    with Image.open(io.BytesIO(unfurled.shots["desktop"].thumb)) as thumb:
        assert thumb.format == "JPEG" and thumb.size == (480, 300)


def test_a_failing_sidecar_leaves_the_unfurl_and_says_why(make_fetcher: Any) -> None:
    unfurled = Unfurler(make_fetcher(), SidecarCapture("http://127.0.0.1:9/")).unfurl(
        f"http://{SITE}/title"
    )
    assert unfurled.fields["meta"]["title"] == "Only a title"
    assert unfurled.fields["shots"]["reason"].startswith("the capture failed: ")
    assert unfurled.shots == {}


def test_capture_specs_are_a_url_or_chromium() -> None:
    with pytest.raises(FetchError) as caught:
        capture_from("ftp://x")
    assert caught.value.code == "bad_capture"
    with pytest.raises(FetchError):
        capture_from("chromium:/nonexistent/chromium")
