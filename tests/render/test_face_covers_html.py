"""Every element kind, drawn on a card, shows the words its document HTML shows.

Each element of the gallery is put alone in a doc card sized by the engine; the words of
three letters or more in its HTML (page chrome left out) must be in the card's SVG text.
Words a face does not show yet are listed per element in ``KNOWN_GAPS``; the test holds
that list exact, so a face that loses a word fails and a face that gains one asks for
its entry to go.
"""

from __future__ import annotations

import html
import re

import pytest

from layoutkit import render
from layoutkit.layout.sizing import size_card
from tests.render.gallery import EVERY_ELEMENT

#: (index in EVERY_ELEMENT, kind) -> words the face does not show yet
KNOWN_GAPS: dict[tuple[int, str], set[str]] = {}


def _words(text: str) -> set[str]:
    return {w.lower() for w in re.findall(r"[A-Za-z][A-Za-z0-9']{2,}", text)}


def _html_words(doc: dict) -> set[str]:
    page = render.render_doc(doc)
    page = re.sub(r"<(script|style|title|desc)\b.*?</\1>", " ", page, flags=re.S)
    return _words(html.unescape(re.sub(r"<[^>]+>", " ", page)))


def _svg_words(svg: str) -> set[str]:
    return _words(html.unescape(" ".join(re.findall(r"<tspan[^>]*>([^<]*)</tspan>", svg))))


CHROME = _html_words({"title": "", "elements": []})


@pytest.mark.parametrize(
    ("index", "element"),
    list(enumerate(EVERY_ELEMENT)),
    ids=[f"{i}-{e['kind']}" for i, e in enumerate(EVERY_ELEMENT)],
)
def test_card_face_shows_what_the_html_shows(index: int, element: dict) -> None:
    doc = {"title": "", "elements": [element]}
    w, h = size_card("doc", doc)
    svg = render.render_card({"id": 1, "kind": "doc", "payload": doc, "w": w, "h": h})
    assert isinstance(svg, str)
    missing = _html_words(doc) - CHROME - _svg_words(svg)
    assert missing == KNOWN_GAPS.get((index, element["kind"]), set())
