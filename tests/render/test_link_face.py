"""The link card face in each state: unfurled, with screenshots, pending, not fetched.

Every text line must sit inside the card at its sized box, inside the face's
picture or text area, and no two text lines may overlap.
"""

from __future__ import annotations

import itertools

import pytest

from layoutkit.layout.sizing import LINK_SIZES
from layoutkit.layout.text import text_width
from layoutkit.render._faces import card_face
from layoutkit.render._scene import Image, Text

LONG = "A title long enough to run past the edge of any link card face, " * 3
UNFURLED = {
    "url": "https://example.org/a/page",
    "meta": {
        "url": "https://example.org/a/page",
        "title": LONG,
        "description": "What the page is about, in more words than two lines hold. " * 6,
        "siteName": "Example Site with a rather long name that will not fit a widget",
    },
    "icon": "https://example.org/favicon.png",
    "framable": False,
}
SHOTS = {
    "desktop": {"ref": "sha256:" + "1" * 64, "src": "data:image/jpeg;base64,AAAA"},
    "phone": {"ref": "sha256:" + "2" * 64, "src": "data:image/jpeg;base64,BBBB"},
}
STATES = {
    "unfurled": UNFURLED,
    "shots": {**UNFURLED, "shots": SHOTS},
    "no-sidecar": {**UNFURLED, "shots": {"reason": "no capture sidecar is configured"}},
    "pending": {"url": "https://example.org/a/page"},
    "refused": {
        "url": "https://intranet.example.com/" + "deep/" * 40,
        "error": "intranet.example.com resolves to 10.0.0.5, a private address " * 3,
    },
    "titled-refused": {
        "url": "https://intranet.example.com/" + "deep/" * 40,
        "title": LONG,
        "error": "intranet.example.com resolves to 10.0.0.5, a private address " * 3,
    },
}


def _boxes(item: Text) -> list[tuple[float, float, float, float]]:
    out = []
    for i, line in enumerate(item.lines):
        width = text_width(line, item.size, item.font)
        left = item.x - (
            width if item.anchor == "end" else width / 2 if item.anchor == "middle" else 0
        )
        top = item.y + i * item.lh
        out.append((left, top, left + width, top + item.lh))
    return out


@pytest.mark.parametrize("display", sorted(LINK_SIZES))
@pytest.mark.parametrize("state", sorted(STATES))
def test_every_line_fits_and_none_overlap(state: str, display: str) -> None:
    w, h = LINK_SIZES[display]
    items = card_face("link", {**STATES[state], "display": display}, (100.0, 50.0, w, h))
    lines = [
        box for item in items if isinstance(item, Text) for box in _boxes(item) if box[2] > box[0]
    ]
    assert lines, "the face shows some text"
    for left, top, right, bottom in lines:
        assert left >= 100 and right <= 100 + w + 0.5, (state, display, left, right)
        assert top >= 50 and bottom <= 50 + h + 0.5, (state, display, top, bottom)
    for a, b in itertools.combinations(lines, 2):
        overlap_x = min(a[2], b[2]) - max(a[0], b[0])
        overlap_y = min(a[3], b[3]) - max(a[1], b[1])
        assert overlap_x <= 0.5 or overlap_y <= 0.5, (state, display, a, b)


def _texts(payload: dict, display: str = "preview", box: tuple[float, float] | None = None) -> str:
    w, h = box or LINK_SIZES[display]
    items = card_face("link", {**payload, "display": display}, (0.0, 0.0, w, h))
    return " ".join(line for i in items if isinstance(i, Text) for line in i.lines)


def test_an_unfurled_card_shows_site_title_and_description() -> None:
    shown = _texts({**UNFURLED, "meta": {**UNFURLED["meta"], "title": "Short title"}})
    assert "Example Site" in shown and "Short title" in shown and "What the page is about" in shown


def test_an_authored_title_wins_over_the_unfurled_one() -> None:
    assert "Mine" in _texts({**UNFURLED, "title": "Mine"})


def test_a_card_that_was_not_fetched_shows_the_bare_url_and_the_reason() -> None:
    shown = _texts(
        {"url": "https://a.example.org/x", "error": "not fetched: network access is off"}
    )
    assert "https://a.example.org/x" in shown and "network access is off" in shown
    assert "not fetched" in _texts(
        {"url": "https://a.example.org/x", "error": "not fetched: off"}, "widget"
    )


@pytest.mark.parametrize("display", sorted(LINK_SIZES))
def test_a_card_that_was_not_fetched_shows_the_title_the_author_gave(display: str) -> None:
    card = {"url": "https://a.example.org/x", "title": "Pricing page", "error": "network is off"}
    shown = _texts(card, display)
    assert "Pricing page" in shown and "network is off" in shown
    # Without a title, the URL names the card.
    assert "Pricing page" not in _texts({**card, "title": ""}, display)


@pytest.mark.parametrize("box", [(260.0, 120.0), (200.0, 100.0), (480.0, 300.0)])
def test_the_reason_survives_a_long_url_in_a_small_card(box: tuple[float, float]) -> None:
    url = "https://intranet.example.com/" + "segment/" * 60
    shown = _texts({"url": url, "error": "10.0.0.5 is a private address"}, box=box)
    assert "10.0.0.5 is a private" in shown and "https://intranet" in shown


def test_screenshots_are_drawn_from_their_inlined_thumbnails_only() -> None:
    w, h = LINK_SIZES["preview"]
    items = card_face("link", {**UNFURLED, "shots": SHOTS}, (0.0, 0.0, w, h))
    hrefs = [i.href for i in items if isinstance(i, Image)]
    assert SHOTS["desktop"]["src"] in hrefs
    phone = card_face("link", {**UNFURLED, "shots": SHOTS, "display": "phone"}, (0, 0, 300, 620))
    assert SHOTS["phone"]["src"] in [i.href for i in phone if isinstance(i, Image)]
    # A stored blob reference alone is not a URL: nothing is drawn for it.
    bare = {"desktop": {"ref": SHOTS["desktop"]["ref"]}}
    items = card_face(
        "link", {"url": "https://example.org/", "meta": {}, "shots": bare}, (0, 0, w, h)
    )
    assert all("sha256" not in i.href for i in items if isinstance(i, Image))


def test_the_live_display_says_when_the_site_refuses_frames() -> None:
    assert "refuses frames" in _texts({**UNFURLED, "framable": False}, "live")
    assert "live" in _texts({**UNFURLED, "framable": True}, "live").split()
