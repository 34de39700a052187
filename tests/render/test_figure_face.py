"""A figure's alt text names its picture; it is never drawn underneath it.

A transparent picture (a logo, a diagram exported with no background) would show a
label drawn under it. The label is drawn only when there is no picture to show; a
picture carries it as its own label (the PNG's broken-picture frame, the SVG title).
"""

from __future__ import annotations

import base64
import io

from PIL import Image as PILImage

from layoutkit import render
from layoutkit.layout.sizing import size_card
from layoutkit.render._faces import card_face
from layoutkit.render._scene import Image, Text


def _transparent_png() -> str:
    out = io.BytesIO()
    PILImage.new("RGBA", (64, 40), (0, 0, 0, 0)).save(out, "PNG")
    return "data:image/png;base64," + base64.b64encode(out.getvalue()).decode()


def _texts(items: list) -> list[str]:
    return [line for i in items if isinstance(i, Text) for line in i.lines]


def test_a_figure_card_with_a_picture_draws_no_label_under_it() -> None:
    p = {"src": _transparent_png(), "alt": "Company logo", "caption": "Our mark"}
    w, h = size_card("figure", p)
    items = card_face("figure", p, (0.0, 0.0, w, h))
    assert "Company logo" not in _texts(items)
    assert [i.label for i in items if isinstance(i, Image)] == ["Company logo"]
    svg = render.render_card({"id": 1, "kind": "figure", "payload": p, "w": w, "h": h})
    assert "<title>Company logo</title></image>" in str(svg)


def test_a_figure_without_a_picture_shows_its_alt_text() -> None:
    p = {"alt": "Company logo"}
    w, h = size_card("figure", p)
    items = card_face("figure", p, (0.0, 0.0, w, h))
    assert "Company logo" in _texts(items)
    assert not [i for i in items if isinstance(i, Image)]


def test_a_figure_element_in_a_doc_draws_no_label_under_its_picture() -> None:
    fig = {"kind": "figure", "payload": {"src": _transparent_png(), "alt": "Flow chart"}}
    doc = {"title": "Doc", "elements": [fig]}
    w, h = size_card("doc", doc)
    items = card_face("doc", doc, (0.0, 0.0, w, h))
    assert "Flow chart" not in _texts(items)
    assert [i.label for i in items if isinstance(i, Image)] == ["Flow chart"]
    bare = {"title": "Doc", "elements": [{"kind": "figure", "payload": {"alt": "Flow chart"}}]}
    assert "Flow chart" in _texts(card_face("doc", bare, (0.0, 0.0, w, h)))


def test_a_broken_picture_says_which_it_was_in_the_png() -> None:
    p = {"src": "data:image/png;base64,bm90IGEgcGljdHVyZQ==", "alt": "Broken chart"}
    w, h = size_card("figure", p)
    png = render.render_card(
        {"id": 1, "kind": "figure", "payload": p, "w": w, "h": h}, format="png"
    )
    assert isinstance(png, bytes)
    # the broken-picture frame: a crossed red frame with two red lines of text
    pixels = PILImage.open(io.BytesIO(png)).convert("RGB").tobytes()
    red = sum(
        1
        for i in range(0, len(pixels), 3)
        if pixels[i] > 150 and pixels[i] - pixels[i + 1] > 60 and pixels[i] - pixels[i + 2] > 60
    )
    assert red > 500


REMOTE = "https://cdn.vendor.example.com/media/screens/checkout.png?v=3"


def _inside(item: Text, box: tuple[float, float, float, float]) -> bool:
    from layoutkit.layout.text import line_height, text_width

    x, y, w, h = box
    for i, line in enumerate(item.lines):
        half = text_width(line, item.size, item.font) / 2
        top = item.y + i * line_height(item.size)
        if item.x - half < x or item.x + half > x + w or top < y or top + item.lh > y + h:
            return False
    return True


def test_a_picture_on_a_site_shows_its_alt_and_address_instead_of_being_fetched() -> None:
    doc = {
        "elements": [
            {"kind": "figure", "payload": {"src": REMOTE, "alt": "The new checkout"}},
        ]
    }
    w, h = size_card("doc", doc)
    for kind, payload, box in (
        ("doc", doc, (0.0, 0.0, float(w), float(h))),
        ("figure", {"src": REMOTE, "alt": "The new checkout"}, (0.0, 0.0, 480.0, 300.0)),
        ("media", {"src": REMOTE, "alt": "The new checkout"}, (0.0, 0.0, 480.0, 300.0)),
    ):
        items = card_face(kind, payload, box)
        assert not [i for i in items if isinstance(i, Image)], kind
        texts = [i for i in items if isinstance(i, Text)]
        shown = " ".join(line for t in texts for line in t.lines)
        assert "The new checkout" in shown, kind
        # Host and path, without the scheme or the query.
        assert "cdn.vendor.example.com/media/screens/checkout.png" in shown, kind
        assert "https:" not in shown and "v=3" not in shown, kind
        assert all(_inside(t, box) for t in texts), kind
    svg = render.render_card({"kind": "doc", "w": w, "h": h, "payload": doc})
    assert "<image" not in svg and "cdn.vendor" in svg


def test_a_relative_or_inline_picture_is_still_drawn() -> None:
    for src in ("img/a.png", _transparent_png()):
        items = card_face("figure", {"src": src, "alt": "a"}, (0.0, 0.0, 480.0, 300.0))
        assert [i for i in items if isinstance(i, Image)], src
