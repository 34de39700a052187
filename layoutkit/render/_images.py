"""Pictures on faces: which image a face shows, its address in an SVG, its pixels in a PNG.

A face names an image either by URL (``src``: ``https:``, a relative path, or
a raster ``data:`` URL) or by a stored blob (``ref``: ``sha256:<hex>``). A
face is drawn at the origin and kept by a key of its kind, payload and size,
never of the card it belongs to, so a blob cannot be linked by the card's
own address while the face is drawn. The face writes :data:`BLOB_MARK` in its
place and the SVG writer puts the card's id into it when it places the face
(:func:`card_blob_base`): the blob route checks access by that card.

A PNG has no browser to fetch anything: the caller hands the blob bytes in
(``images``, blob key → bytes: the picture's rendition when it has one) and
:class:`Pixels` decodes each once into a bounded cache, through
:func:`layoutkit.imaging.decode` at :data:`DECODE_MAX`. An image that is missing,
cannot be decoded or is one the decode cap refuses is drawn as a placeholder that
says so; drawing never fails on one.

A picture named by its address on a site (``https:``, ``http:`` or ``//host``) is
never drawn from there, by the server or by a viewer's browser: the board would call
the site from every browser that opens it. Its face shows the alt text and the
address instead (:func:`remote_source`, :func:`address_text`).
"""

from __future__ import annotations

import base64
import hashlib
import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping
from typing import Any, Literal

from PIL import Image as PILImage

from layoutkit import imaging
from layoutkit.render._safe import esc, safe_url, scheme_of

#: Where a face's blob image will be served: the writer replaces ``{card}``.
BLOB_MARK = "/api/v1/cards/{card}/blobs/"
_KEY = re.compile(r"^sha256:[0-9a-f]{64}$")
#: Decoded pictures are kept at most this long on their longest side: a board
#: picture draws a card at its board size (cards are at most a few thousand
#: pixels), and a 40-megapixel photo would otherwise hold 160 MB.
DECODE_MAX = 2048

Fit = Literal["cover", "contain"]


def is_blob_key(value: Any) -> bool:
    return isinstance(value, str) and bool(_KEY.match(value))


def blob_href(key: str) -> str:
    """The address a face writes for blob ``key`` (completed when the face is placed)."""
    return BLOB_MARK + key


def card_blob_base(card_id: Any) -> str:
    """The blob route of card ``card_id``: what :data:`BLOB_MARK` becomes."""
    return BLOB_MARK.replace("{card}", str(card_id))


def place_blobs(svg: str, card_id: Any) -> str:
    """``svg`` (a face's text) with its blob addresses made the card's own."""
    return svg.replace(BLOB_MARK, card_blob_base(card_id)) if BLOB_MARK in svg else svg


def image_href(item: Mapping[str, Any]) -> str | None:
    """The address of the picture a figure, gallery item or media card shows: its blob
    (``ref``) or its safe ``src``; None when it names neither (a ``shot`` outside its
    set, an unresolved upload name, an unsafe URL) or names a site (:func:`remote_source`)."""
    ref = item.get("ref")
    if is_blob_key(ref):
        return blob_href(ref)
    src = item.get("src")
    if remote_source(item) is not None:
        return None
    return src if isinstance(src, str) and safe_url(src, image=True) else None


def remote_source(item: Mapping[str, Any]) -> str | None:
    """The site address a picture names in ``src`` (``http:``, ``https:``, ``//host``)
    when it has no stored blob, else None."""
    if is_blob_key(item.get("ref")):
        return None
    src = item.get("src")
    return site_address(src) if isinstance(src, str) else None


def site_address(src: str) -> str | None:
    """``src`` when it is a safe address on another site (``http:``, ``https:``,
    ``//host``): a picture layoutkit never makes a reader's browser fetch."""
    if not safe_url(src, image=True):
        return None
    cleaned = src.strip()
    # A browser reads a leading pair of slashes, either way round, as "same scheme, this host".
    if cleaned[:2].replace("\\", "/") == "//" or scheme_of(cleaned) in ("http", "https"):
        return cleaned
    return None


def site_picture_html(address: str, alt: str) -> str:
    """What an HTML page shows for a picture on another site: its alt text and a link
    to it, so the reader's browser fetches nothing until the reader follows it."""
    label = esc(alt) if alt else "image"
    return (
        f'<span class="site-picture" role="img" aria-label="{esc(alt or "image")}">'
        f'{label} <a href="{esc(address)}" rel="noopener noreferrer nofollow">'
        f"{esc(address_text(address))}</a></span>"
    )


def address_text(url: str) -> str:
    """A site address as a person reads it: host and path, without scheme, query or
    fragment (a face fits it to its width)."""
    rest = re.sub(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", "", url.strip()).lstrip("/\\")
    return re.split(r"[?#]", rest, maxsplit=1)[0].rstrip("/") or url


def missing_label(item: Mapping[str, Any]) -> str:
    """What stands in for a picture that cannot be shown: its ref, its site address,
    its shot, or "image"."""
    if item.get("ref"):
        return str(item["ref"])
    remote = remote_source(item)
    if remote is not None:
        return address_text(remote)
    return f"shot {item['shot']}" if item.get("shot") is not None else "image"


def page_image_key(payload: Mapping[str, Any]) -> str | None:
    """The blob key of a PDF card's first rasterised page, if it has one."""
    pages = payload.get("pageImages")
    first = pages[0] if isinstance(pages, list) and pages else None
    ref = first.get("ref") if isinstance(first, dict) else first
    return ref if is_blob_key(ref) else None


def image_keys(kind: str, payload: Any) -> set[str]:
    """The blob keys a face of ``kind`` with ``payload`` draws as pictures: what a
    caller hands a PNG in ``images``. A PDF's own bytes are never among them."""
    p = payload if isinstance(payload, dict) else {}
    found: set[str] = set()
    first_page = page_image_key(p)
    if first_page:
        found.add(first_page)
    stack: list[Any] = [p]
    while stack:
        node = stack.pop()
        if isinstance(node, list):
            stack.extend(node)
            continue
        if not isinstance(node, dict):
            continue
        mime = node.get("mime")
        if is_blob_key(node.get("ref")) and (
            not isinstance(mime, str) or not mime or mime.startswith("image/")
        ):
            found.add(node["ref"])
        stack.extend(v for k, v in node.items() if k not in ("pageImages", "shots"))
    if (
        kind == "file"
        and p.get("ref") in found
        and not str(p.get("mime") or "").startswith("image/")
    ):
        found.discard(p["ref"])
    return found


def source_key(href: str) -> str | None:
    """The cache key of the pixels behind ``href``: the blob key, or a digest of a
    ``data:`` URL; None for an address a PNG cannot read (no I/O here)."""
    if href.startswith(BLOB_MARK):
        key = href[len(BLOB_MARK) :]
        return key if is_blob_key(key) else None
    if href.startswith("data:image/"):
        return "data:" + hashlib.blake2b(href.encode(), digest_size=16).hexdigest()
    return None


def _decode(data: bytes) -> PILImage.Image | None:
    try:
        head = imaging.header(data)
        size = imaging.fit(head.width, head.height, DECODE_MAX)
        return imaging.decode(
            data, size=size, resample=PILImage.Resampling.BICUBIC, reducing_gap=2.0
        ).image
    # Blob bytes are untrusted: a refusal, or Pillow's many types for a broken file.
    except Exception:
        return None


class Pixels:
    """Decoded pictures by source (blob key or ``data:`` digest), least recently used
    dropped past ``budget`` bytes of pixels; safe across threads.

    A failure is remembered as well, so a broken image costs one decode attempt.
    Fitted copies (a picture resized to one box) are kept beside the originals,
    in the same budget: a board drawn again pastes them as they are.
    """

    def __init__(self, budget: int = 128 * 1024 * 1024) -> None:
        self.budget = budget
        self._kept: OrderedDict[tuple, PILImage.Image | None] = OrderedDict()
        self._weight = 0
        self._lock = threading.Lock()
        self.decodes = 0

    @staticmethod
    def _size(img: PILImage.Image | None) -> int:
        return 64 if img is None else img.width * img.height * len(img.getbands())

    def _get(self, key: tuple) -> tuple[bool, PILImage.Image | None]:
        with self._lock:
            if key in self._kept:
                self._kept.move_to_end(key)
                return True, self._kept[key]
        return False, None

    def _put(self, key: tuple, img: PILImage.Image | None) -> None:
        with self._lock:
            if key in self._kept:
                return
            self._kept[key] = img
            self._weight += self._size(img)
            while self._weight > self.budget and len(self._kept) > 1:
                _, gone = self._kept.popitem(last=False)
                self._weight -= self._size(gone)

    def picture(self, source: str, load: Callable[[], bytes | None]) -> PILImage.Image | None:
        """The decoded picture of ``source`` (``load()`` decoded on a miss; None when
        there is nothing to decode or it does not decode)."""
        found, img = self._get((source,))
        if found:
            return img
        data = load()
        if data is None:
            return None  # not handed in this time: no failure to remember
        self.decodes += 1
        img = _decode(data)
        self._put((source,), img)
        return img

    def fitted(
        self, source: str, load: Callable[[], bytes | None], w: int, h: int, fit: Fit
    ) -> PILImage.Image | None:
        """The picture resized for a ``w`` x ``h`` box: ``cover`` fills it (cropping the
        overflow at the centre), ``contain`` fits inside it (its own size)."""
        key = (source, w, h, fit)
        found, img = self._get(key)
        if found:
            return img
        base = self.picture(source, load)
        if base is None:
            return None
        scale = (max if fit == "cover" else min)(w / base.width, h / base.height)
        size = (max(1, round(base.width * scale)), max(1, round(base.height * scale)))
        out = base.resize(size, PILImage.Resampling.LANCZOS)
        if fit == "cover" and (out.width > w or out.height > h):
            left, top = (out.width - w) // 2, (out.height - h) // 2
            out = out.crop((left, top, left + min(w, out.width), top + min(h, out.height)))
        self._put(key, out)
        return out

    def clear(self) -> None:
        with self._lock:
            self._kept.clear()
            self._weight = 0
            self.decodes = 0

    def __len__(self) -> int:
        return len(self._kept)


PIXELS = Pixels()


def data_of(href: str, images: Mapping[str, bytes]) -> bytes | None:
    """The encoded bytes behind ``href``: a handed-in blob or a ``data:`` URL's payload."""
    if href.startswith(BLOB_MARK):
        return images.get(href[len(BLOB_MARK) :])
    if href.startswith("data:image/") and ";base64," in href:
        try:
            return base64.b64decode(href.split(",", 1)[1], validate=False)
        except ValueError:
            return None
    return None
