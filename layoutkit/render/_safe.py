"""Escaping, URL vetting, ``sources`` alias expansion and element envelopes shared by every writer.

Every URL that reaches an ``href``/``src`` attribute passes through
:func:`safe_url`. Browsers drop ASCII whitespace and control characters inside
a scheme and decode character references in attributes, so the check looks at
the URL the way a browser will, not the way it was typed.
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping
from typing import Any

from layoutkit.elements import doc_source, slugify, source_url

_CONTROL = re.compile(r"[\x00-\x20\x7f-\x9f\u200b-\u200f\u2028\u2029\ufeff]+")
_SCHEME = re.compile(r"^([a-zA-Z][a-zA-Z0-9+.\-]*):")
_SAFE_LINK_SCHEMES = frozenset({"http", "https", "mailto", "tel"})
_SAFE_IMAGE_SCHEMES = frozenset({"http", "https"})
_SAFE_DATA_IMAGE = re.compile(
    r"^data:image/(png|gif|jpe?g|webp|avif|bmp);base64,[a-z0-9+/=\s]*$", re.I
)


def esc(value: Any) -> str:
    """HTML/XML-escape any value (quotes included) for text and attributes."""
    return html.escape("" if value is None else str(value), quote=True)


def _unwrap(url: str) -> str:
    # Character references may be nested (&amp;#106;); decode until stable.
    for _ in range(4):
        decoded = html.unescape(url)
        if decoded == url:
            break
        url = decoded
    return _CONTROL.sub("", url)


def scheme_of(url: str) -> str | None:
    """The lower-cased scheme a browser would see in ``url``, or None if relative."""
    match = _SCHEME.match(_unwrap(url))
    return match.group(1).lower() if match else None


def safe_url(url: Any, *, image: bool = False) -> str | None:
    """Return ``url`` if following it cannot run script, else None.

    Links may use http, https, mailto, tel and relative targets (paths,
    ``#anchors``, ``?query``). Images may use http, https, relative targets and
    ``data:`` URLs of raster types only (``image/svg+xml`` can carry script).
    """
    if not isinstance(url, str):
        return None
    cleaned = _unwrap(url).strip()
    if not cleaned:
        return None
    # A backslash after the scheme position is read as a slash by browsers;
    # refuse anything that still smuggles a colon before the first slash.
    scheme = scheme_of(cleaned)
    if scheme is None:
        head = re.split(r"[/?#]", cleaned, maxsplit=1)[0]
        if ":" in head:
            return None
        return url.strip()
    if scheme == "data":
        return cleaned if image and _SAFE_DATA_IMAGE.match(cleaned) else None
    allowed = _SAFE_IMAGE_SCHEMES if image else _SAFE_LINK_SCHEMES
    return url.strip() if scheme in allowed else None


_LINES = re.compile(r"^L(\d+)(?:-L?(\d+))?$")


def expand_alias(url: str, sources: Mapping[str, Any] | None) -> str:
    """Expand ``alias:path#L1-L5`` when ``alias`` is a key of the doc's sources."""
    if not sources or not isinstance(url, str):
        return url
    match = _SCHEME.match(url.strip())
    if not match:
        return url
    alias = match.group(1)
    source = doc_source(sources, alias)
    if source is None:
        return url
    return source_url(source, url.strip()[len(alias) + 1 :])


class Slugger:
    """Hands out unique slugs in document order: repeats get -2, -3, ..."""

    def __init__(self) -> None:
        self._seen: dict[str, int] = {}

    def reserve(self, slug: str) -> str:
        if slug not in self._seen:
            self._seen[slug] = 1
            return slug
        n = self._seen[slug]
        while True:
            n += 1
            candidate = f"{slug[:60]}-{n}"
            if candidate not in self._seen:
                self._seen[slug] = n
                self._seen[candidate] = 1
                return candidate

    def slug(self, text: str) -> str:
        return self.reserve(slugify(text))


def element_parts(element: dict) -> tuple[str, dict]:
    """(kind, payload) of an element envelope; a bare payload is read as a doc."""
    if isinstance(element.get("payload"), dict) and isinstance(element.get("kind"), str):
        return element["kind"], element["payload"]
    return "doc", element
