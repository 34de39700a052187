"""Capture sidecars: a 16:10 desktop and a phone-viewport screenshot of a checked page.

Two kinds, chosen with :func:`capture_from`:

- ``chromium`` (or ``chromium:/path/to/binary``): a local headless Chromium,
  started fresh for every view with its own empty profile. The page may only
  come from the address the fetcher checked: ``--host-resolver-rules`` maps
  the page's host to that address and every other name to "not found"
  (rules apply in order, first match wins, so the host's rule comes first),
  and every request for another host, including IP literals that no
  resolver sees, is sent to a proxy address that refuses connections (a
  port bound on loopback and never listened on). Loopback is taken off the
  proxy bypass list (``<-loopback>``), so ``127.0.0.1`` goes there too.
- an ``http(s)://`` URL of a screenshot service the operator runs: it gets a
  JSON POST ``{url, address, views}`` and answers ``{desktop, phone}`` as
  base64 PNGs. It must load the page from ``address`` only; layoutkit sends
  it nothing else to fetch.

Both give :class:`Shot` values: the PNG, its size, and a small JPEG thumbnail
that board pictures inline.
"""

from __future__ import annotations

import base64
import io
import ipaddress
import shutil
import socket
import subprocess
import tempfile
import threading
from pathlib import Path
from typing import Any

import attrs
from PIL import Image

from layoutkit import imaging
from layoutkit.errors import EngineError
from layoutkit.net._address import parse_target, refusal
from layoutkit.net._errors import FetchError
from layoutkit.net._fetch import Dial, direct_dial

#: How every headless Chromium of layoutkit starts (the capture sidecar, and the
#: test suite's browser checks): no sandbox for root, no GPU, and none of the
#: background traffic a closed network refuses.
HEADLESS_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-quic",
    "--no-first-run",
    "--force-device-scale-factor=1",
)

#: The views taken: name -> (width, height, mobile). Desktop is 16:10.
VIEWS: dict[str, tuple[int, int, bool]] = {"desktop": (1280, 800, False), "phone": (390, 844, True)}
PHONE_AGENT = (
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 "
    "(KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1"
)
#: Seconds one view may take, browser start included.
VIEW_SECONDS = 15.0
MAX_SHOT_BYTES = 16 * 1024 * 1024
THUMB_WIDTH = 480
_PNG = b"\x89PNG\r\n\x1a\n"


@attrs.frozen(slots=True)
class Shot:
    """One screenshot: the PNG, its pixel size, and a JPEG thumbnail THUMB_WIDTH wide."""

    png: bytes
    width: int
    height: int
    thumb: bytes


def make_shot(png: bytes) -> Shot:
    """Check ``png`` is a PNG of sane size and make its thumbnail; FetchError if not."""
    if not png.startswith(_PNG) or len(png) > MAX_SHOT_BYTES:
        raise FetchError("capture_failed", "the capture did not return a PNG of at most 16 MiB")
    try:
        width, height = imaging.header(png).size
        if width * height > 40_000_000:
            raise FetchError("capture_failed", f"the screenshot is {width}x{height} pixels")
        # Decoded at the thumbnail's size, within the decode cap: a full-page capture
        # of 40 megapixels is never held whole.
        scale = min(1.0, THUMB_WIDTH / width, THUMB_WIDTH * 4 / height)
        size = (max(1, round(width * scale)), max(1, round(height * scale)))
        small = imaging.decode(png, size=size, resample=Image.Resampling.BICUBIC).image
        out = io.BytesIO()
        small.convert("RGB").save(out, format="JPEG", quality=80)
    except EngineError as exc:
        raise FetchError("capture_failed", f"the screenshot cannot be read: {exc}") from exc
    return Shot(png, width, height, out.getvalue())


def _checked(url: str, address: str) -> tuple[Any, ipaddress.IPv4Address | ipaddress.IPv6Address]:
    """The capture re-reads what it is given: a sidecar is never pointed anywhere private."""
    target = parse_target(url)
    ip = ipaddress.ip_address(address)
    why = refusal(ip)
    if why is not None:
        raise FetchError("not_public", f"{ip} is {why}")
    if target.ip is not None and target.ip != ip:
        raise FetchError("capture_failed", "the address is not the URL's own")
    return target, ip


class ChromiumCapture:
    """Screenshots from a local headless Chromium pinned to the checked address.

    One browser runs at a time, whatever the number of fetch workers: a
    browser is heavy, and a burst of links should queue, not swap.
    """

    _one_at_a_time = threading.Lock()

    def __init__(self, binary: str | None = None, *, dial: Dial = direct_dial) -> None:
        found = binary or shutil.which("chromium") or shutil.which("chromium-browser")
        if not found or not Path(found).exists():
            raise FetchError("bad_capture", "no Chromium binary found for the capture sidecar")
        self.binary = found
        self.dial = dial

    def shoot(self, url: str, address: str) -> dict[str, Shot]:
        target, ip = _checked(url, address)
        host, port = self.dial(ip, target.port)
        mapped = f"[{host}]" if ":" in host else host
        # The port is named only when the dial moved it (tests); otherwise the
        # host keeps its ports, so a same-host redirect to https still works.
        replacement = mapped if port == target.port else f"{mapped}:{port}"
        rules = ["MAP * ~NOTFOUND"]
        if target.ip is None:
            rules.insert(0, f"MAP {target.host} {replacement}")
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as blackhole:
            # Bound and never listened on: every connection to it is refused.
            blackhole.bind(("127.0.0.1", 0))
            proxy = f"http://127.0.0.1:{blackhole.getsockname()[1]}"
            host_rule = f"[{target.host}]" if ":" in target.host else target.host
            bypass = f"{host_rule};<-loopback>"
            with self._one_at_a_time:
                return {
                    view: make_shot(self._view(target.url, w, h, mobile, rules, proxy, bypass))
                    for view, (w, h, mobile) in VIEWS.items()
                }

    def _view(
        self,
        url: str,
        width: int,
        height: int,
        mobile: bool,
        rules: list[str],
        proxy: str,
        bypass: str,
    ) -> bytes:
        with tempfile.TemporaryDirectory(prefix="layoutkit-capture-") as tmp:
            out = Path(tmp) / "shot.png"
            args = [
                self.binary,
                *HEADLESS_FLAGS,
                "--disable-features=HttpsUpgrades,DnsOverHttps",
                "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
                "--hide-scrollbars",
                "--mute-audio",
                f"--user-data-dir={tmp}/profile",
                f"--host-resolver-rules={' , '.join(rules)}",
                f"--proxy-server={proxy}",
                f"--proxy-bypass-list={bypass}",
                f"--window-size={width},{height}",
                "--virtual-time-budget=3000",
                f"--screenshot={out}",
            ]
            if mobile:
                args.append(f"--user-agent={PHONE_AGENT}")
            args.append(url)
            try:
                subprocess.run(
                    args,
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                    timeout=VIEW_SECONDS,
                    check=False,
                )
            except subprocess.TimeoutExpired as exc:
                raise FetchError("capture_failed", "Chromium took too long") from exc
            if not out.exists():
                raise FetchError("capture_failed", "Chromium wrote no screenshot")
            return out.read_bytes()


class SidecarCapture:
    """Screenshots from a screenshot service the operator runs, by URL."""

    def __init__(self, url: str) -> None:
        if not url.lower().startswith(("http://", "https://")):
            raise FetchError("bad_capture", "the capture sidecar URL must be http or https")
        self.url = url

    def shoot(self, url: str, address: str) -> dict[str, Shot]:
        import httpx

        target, ip = _checked(url, address)
        views = {n: {"width": w, "height": h, "mobile": m} for n, (w, h, m) in VIEWS.items()}
        try:
            with httpx.Client(trust_env=False, timeout=2 * VIEW_SECONDS) as client:
                response = client.post(
                    self.url, json={"url": target.url, "address": str(ip), "views": views}
                )
        except httpx.HTTPError as exc:
            raise FetchError("capture_failed", f"the capture sidecar failed: {exc}") from exc
        if response.status_code != 200 or len(response.content) > 3 * MAX_SHOT_BYTES:
            raise FetchError(
                "capture_failed", f"the capture sidecar answered HTTP {response.status_code}"
            )
        try:
            body = response.json()
            return {name: make_shot(base64.b64decode(body[name], validate=True)) for name in VIEWS}
        except (ValueError, KeyError, TypeError) as exc:
            raise FetchError("capture_failed", "the capture sidecar sent no screenshots") from exc


def capture_from(spec: str) -> ChromiumCapture | SidecarCapture:
    """The capture sidecar ``spec`` names: ``chromium[:binary]`` or a service URL."""
    if spec == "chromium" or spec.startswith("chromium:"):
        return ChromiumCapture(spec.partition(":")[2] or None)
    if spec.lower().startswith(("http://", "https://")):
        return SidecarCapture(spec)
    raise FetchError("bad_capture", f"--capture is a service URL or 'chromium', not {spec!r}")
