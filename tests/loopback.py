"""Pieces of the loopback HTTP servers tests start (always on 127.0.0.1)."""

from __future__ import annotations

from http.server import BaseHTTPRequestHandler
from typing import Any


class QuietHandler(BaseHTTPRequestHandler):
    """A request handler that writes no access log: the tests assert on what the
    server saw, and a line per request would only bury pytest's own output."""

    def log_message(self, format: str, *args: Any) -> None:
        return None
