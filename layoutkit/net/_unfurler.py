"""One link in, the link card's server-owned fields out."""

from __future__ import annotations

from typing import Any, Protocol

import attrs

from layoutkit.net._capture import Shot
from layoutkit.net._errors import FetchError
from layoutkit.net._fetch import Fetcher
from layoutkit.net._unfurl import framable, read_page

#: Why a card has no screenshots when no capture sidecar is configured.
NO_CAPTURE = "no capture sidecar is configured"


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
        if read["icon"]:
            fields["icon"] = read["icon"]
        if self.capture is None:
            fields["shots"] = {"reason": NO_CAPTURE}
            return Unfurled(fields)
        try:
            shots = self.capture.shoot(page.url, page.address)
        except FetchError as err:
            fields["shots"] = {"reason": f"the capture failed: {err.message}"}
            return Unfurled(fields)
        return Unfurled(fields, shots)
