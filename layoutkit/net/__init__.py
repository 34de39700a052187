"""Fetching public web pages safely: the address rules, a pinned fetcher, unfurling.

This package does network I/O and nothing else: it imports no service,
storage or adapter module. The service's link-card jobs call :class:`Unfurler`
and store what it returns.
"""

from __future__ import annotations

from layoutkit.net._address import (
    ALLOWED_PORTS,
    Target,
    allowed_target,
    parse_target,
    refusal,
)
from layoutkit.net._capture import (
    VIEWS,
    ChromiumCapture,
    Shot,
    SidecarCapture,
    capture_from,
    make_shot,
)
from layoutkit.net._errors import FetchError
from layoutkit.net._fetch import (
    MAX_BYTES,
    MAX_REDIRECTS,
    TIME_LIMIT,
    Dial,
    Fetched,
    Fetcher,
    Resolver,
    direct_dial,
    system_resolver,
)
from layoutkit.net._unfurl import framable, read_page
from layoutkit.net._unfurler import (
    NO_CAPTURE,
    Capture,
    Unfurled,
    Unfurler,
    picture_data_url,
    unfurler_for,
)

__all__ = [
    "ALLOWED_PORTS",
    "MAX_BYTES",
    "MAX_REDIRECTS",
    "NO_CAPTURE",
    "TIME_LIMIT",
    "VIEWS",
    "Capture",
    "ChromiumCapture",
    "Dial",
    "FetchError",
    "Fetched",
    "Fetcher",
    "Resolver",
    "Shot",
    "SidecarCapture",
    "Target",
    "Unfurled",
    "Unfurler",
    "allowed_target",
    "capture_from",
    "direct_dial",
    "framable",
    "make_shot",
    "parse_target",
    "picture_data_url",
    "read_page",
    "refusal",
    "system_resolver",
    "unfurler_for",
]
