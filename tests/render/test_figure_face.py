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
