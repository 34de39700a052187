"""One link in, the link card's server-owned fields out."""

from __future__ import annotations

import base64
import io
from typing import Any, Protocol

import attrs
from PIL import Image

from layoutkit import imaging
from layoutkit.errors import EngineError
from layoutkit.net._capture import Shot
from layoutkit.net._errors import FetchError
from layoutkit.net._fetch import Fetcher
from layoutkit.net._unfurl import framable, read_page

#: Why a card has no screenshots when no capture sidecar is configured.
NO_CAPTURE = "no capture sidecar is configured"
#: Pixel sizes of the pictures kept inline: the icon, and the page's own image
#: (``og:image``) as a preview. Pictures are fetched under the same address rules
#: and kept as small data URLs, so a board's picture never makes its viewers'
#: browsers call the site (nor breaks when it cannot).
ICON_PX = 32
PREVIEW_PX = (480, 300)
#: A picture whose header states more pixels than this is not decoded.
PICTURE_PIXELS = 25_000_000


def picture_data_url(data: bytes, box: tuple[int, int], fmt: str) -> str | None:
    """``data`` (any raster Pillow reads) fitted into ``box`` as a PNG or JPEG data URL.

    None for what is not a picture, or one larger than :data:`PICTURE_PIXELS`
    (read from its header, before decoding: a decompression bomb costs nothing).
    """
    try:
        head = imaging.header(data)
        if head.pixels > PICTURE_PIXELS:
            return None
        scale = min(1.0, box[0] / head.width, box[1] / head.height)
        size = (max(1, round(head.width * scale)), max(1, round(head.height * scale)))
        # Decoded at the size kept (a JPEG by DCT scaling), within the decode cap.
        small = imaging.decode(
            data, size=size, resample=Image.Resampling.BICUBIC, reducing_gap=2.0
        ).image
    except EngineError:
        return None
    small = small.convert("RGBA" if fmt == "PNG" else "RGB")
    out = io.BytesIO()
    small.save(out, format=fmt, **({"quality": 75} if fmt == "JPEG" else {}))
    mime = "image/png" if fmt == "PNG" else "image/jpeg"
    return f"data:{mime};base64," + base64.b64encode(out.getvalue()).decode("ascii")


class Capture(Protocol):
    """A capture sidecar: screenshots of a page already checked and fetched.

    ``shoot`` gets the final URL and the public address it was fetched from and
    must load the page from that address only; it returns a :class:`Shot` by
    view (``desktop`` at 16:10, ``phone``) or raises :class:`FetchError`
    (``capture_failed``).
    """

    def shoot(self, url: str, address: str) -> dict[str, Shot]: ...


@attrs.frozen(slots=True)
class Unfurled:
    """The card fields an unfurl wrote (``meta``, ``icon``, ``framable``, ``shots``
    or ``error``) and the screenshots to store, by view."""

    fields: dict[str, Any]
    shots: dict[str, Shot] = attrs.field(factory=dict)


class Unfurler:
    """Fetch a link under the address rules, read its metadata and frameability,
    and take its screenshots when a capture sidecar is given."""

    def __init__(self, fetcher: Fetcher | None = None, capture: Capture | None = None) -> None:
        self.fetcher = fetcher or Fetcher()
        self.capture = capture

    def unfurl(self, url: str) -> Unfurled:
        """Never raises for a bad link: a refusal becomes ``fields["error"]``, the reason."""
        try:
            page = self.fetcher.get(url)
        except FetchError as err:
            return Unfurled({"error": err.message})
        if page.status >= 400:
            return Unfurled({"error": f"the site answered HTTP {page.status}"})
        read = read_page(page)
        fields: dict[str, Any] = {"meta": read["meta"], "framable": framable(page)}
        icon = self._picture(read["icon"], (ICON_PX, ICON_PX), "PNG") if read["icon"] else None
        if icon is not None:
            fields["icon"] = icon
        image = read["meta"].get("image")
        if isinstance(image, str):
            preview = self._picture(image, PREVIEW_PX, "JPEG")
            if preview is not None:
                fields["meta"] = {**read["meta"], "imageData": preview}
        if self.capture is None:
            fields["shots"] = {"reason": NO_CAPTURE}
            return Unfurled(fields)
        try:
            shots = self.capture.shoot(page.url, page.address)
        except FetchError as err:
            fields["shots"] = {"reason": f"the capture failed: {err.message}"}
            return Unfurled(fields)
        return Unfurled(fields, shots)

    def _picture(self, url: str, box: tuple[int, int], fmt: str) -> str | None:
        """The picture at ``url`` as a small data URL, or None when it cannot be had."""
        try:
            got = self.fetcher.get(url)
        except FetchError:
            return None
        if got.status >= 400 or got.truncated:
            return None
        return picture_data_url(got.body, box, fmt)


def unfurler_for(fetch: bool, capture: str | None = None) -> Unfurler | None:
    """The unfurler a server runs with: None when fetching is off (an air-gapped
    install), else one with the capture sidecar ``capture`` names (``chromium`` or a
    URL; see :func:`~layoutkit.net.capture_from`). Raises FetchError for a bad one."""
    if not fetch:
        return None
    from layoutkit.net._capture import capture_from

    return Unfurler(capture=capture_from(capture) if capture else None)
