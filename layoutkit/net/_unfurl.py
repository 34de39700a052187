"""Read a fetched page: its preview metadata and whether a site lets others frame it.

The HTML is parsed by selectolax (the Lexbor HTML5 parser): it builds the
same tree a browser would from broken markup, and it is fast enough to read a
2 MiB page in milliseconds. Only ``<head>``-level facts are taken: Open Graph
(``og:*``), Twitter cards (``twitter:*``), ``<title>``, ``meta description``,
the site name and icon links. Every URL taken from the page is resolved
against the page's final URL and kept only when it is http or https.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urljoin, urlsplit

from selectolax.lexbor import LexborHTMLParser as HTMLParser

from layoutkit.net._fetch import Fetched

#: Lengths kept from the page; a preview needs no more.
TITLE_CHARS = 300
DESCRIPTION_CHARS = 1000
NAME_CHARS = 200
URL_CHARS = 2048
_HTML_TYPES = ("text/html", "application/xhtml+xml")
_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?([A-Za-z0-9_.:-]+)""", re.I)
_SPACE = re.compile(r"\s+")
_ICON_RELS = ("icon", "shortcut icon", "apple-touch-icon", "apple-touch-icon-precomposed")


def _clean(value: Any, limit: int) -> str | None:
    if not isinstance(value, str):
        return None
    text = _SPACE.sub(" ", value).strip()
    if not text:
        return None
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _http_url(value: str | None, base: str) -> str | None:
    """``value`` resolved against ``base`` when it is an http(s) URL, else None."""
    if not value:
        return None
    try:
        url = urljoin(base, value.strip())
        scheme = urlsplit(url).scheme.lower()
    except ValueError:
        return None
    if scheme not in ("http", "https") or len(url) > URL_CHARS:
        return None
    if any(c in url for c in "\x00\r\n\t \\"):
        return None
    return url


def _decode(page: Fetched) -> str:
    charset = page.charset()
    if charset is None:
        sniff = _META_CHARSET.search(page.body[:4096])
        charset = sniff.group(1).decode("ascii") if sniff else "utf-8"
    try:
        return page.body.decode(charset, errors="replace")
    except LookupError:
        return page.body.decode("utf-8", errors="replace")


def _metas(tree: HTMLParser) -> dict[str, str]:
    """``<meta property|name=... content=...>`` by lower-cased key, the first of each."""
    out: dict[str, str] = {}
    for node in tree.css("meta"):
        attrs = node.attributes
        key = attrs.get("property") or attrs.get("name") or attrs.get("itemprop")
        content = attrs.get("content")
        if key and content is not None:
            out.setdefault(key.strip().lower(), content)
    return out


def _icon(tree: HTMLParser, base: str) -> str | None:
    """The page's icon: the first ``rel=icon`` link, then Apple's touch icon."""
    found: dict[str, str] = {}
    for node in tree.css("link[rel][href]"):
        rel = " ".join((node.attributes.get("rel") or "").lower().split())
        url = _http_url(node.attributes.get("href"), base)
        if rel in _ICON_RELS and url:
            found.setdefault("icon" if rel in ("icon", "shortcut icon") else "touch", url)
    return found.get("icon") or found.get("touch")


def read_page(page: Fetched) -> dict[str, Any]:
    """The preview metadata of a fetched page (``meta``) and its ``icon`` URL.

    ``meta`` always names the final ``url`` and the ``contentType``; for HTML it
    adds ``title``, ``description``, ``siteName``, ``image`` and ``type`` where
    the page declares them (Open Graph first, then Twitter cards, then plain
    HTML). ``icon`` is None when the page names none.
    """
    meta: dict[str, Any] = {"url": page.url, "contentType": page.content_type or None}
    if page.truncated:
        meta["truncated"] = True
    if page.content_type not in _HTML_TYPES:
        return {"meta": {k: v for k, v in meta.items() if v is not None}, "icon": None}
    tree = HTMLParser(_decode(page))
    base = page.url
    base_node = tree.css_first("base[href]")
    if base_node is not None:
        base = _http_url(base_node.attributes.get("href"), page.url) or page.url
    m = _metas(tree)
    title_node = tree.css_first("title")
    title_text = title_node.text() if title_node is not None else None
    meta["title"] = _clean(m.get("og:title") or m.get("twitter:title") or title_text, TITLE_CHARS)
    meta["description"] = _clean(
        m.get("og:description") or m.get("twitter:description") or m.get("description"),
        DESCRIPTION_CHARS,
    )
    meta["siteName"] = _clean(
        m.get("og:site_name") or m.get("application-name") or m.get("twitter:site"), NAME_CHARS
    )
    meta["image"] = _http_url(
        m.get("og:image:secure_url") or m.get("og:image") or m.get("twitter:image"), base
    )
    meta["type"] = _clean(m.get("og:type"), NAME_CHARS)
    return {
        "meta": {k: v for k, v in meta.items() if v is not None},
        "icon": _icon(tree, base),
    }


def framable(page: Fetched) -> bool:
    """Whether a browser would show the page inside another site's frame.

    CSP ``frame-ancestors`` wins when any enforced policy names it (report-only
    policies do not count): only ``*`` alone allows every embedder, anything
    else (``'none'``, ``'self'``, a host list) is treated as "not for us". Without
    it, ``X-Frame-Options`` ``DENY`` or ``SAMEORIGIN`` (in any of several
    headers or comma-joined values) forbids framing.
    """
    ancestors: list[list[str]] = []
    for policy in page.headers.get_list("content-security-policy"):
        for directive in policy.split(";"):
            words = directive.strip().split()
            if words and words[0].lower() == "frame-ancestors":
                ancestors.append([w.lower() for w in words[1:]])
    if ancestors:
        return all(sources == ["*"] for sources in ancestors)
    options = {
        v.strip().lower()
        for value in page.headers.get_list("x-frame-options")
        for v in value.split(",")
    }
    return not options & {"deny", "sameorigin"}
