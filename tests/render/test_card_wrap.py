"""Prose on note and text cards wraps between words: a word moves to the next line whole,
and only a word wider than the whole line is cut (after a ``/``, ``.``, ``-`` or ``_`` where
it has one)."""

from __future__ import annotations

import html
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from layoutkit import render
from layoutkit.layout.sizing import size_card
from layoutkit.layout.text import text_width, wrap

_TEXT = re.compile(r"<text\b[^>]*>(.*?)</text>", re.S)
_SPAN = re.compile(r"<tspan[^>]*>([^<]*)</tspan>")


def _lines(kind: str, payload: dict, width: float | None = None) -> list[list[str]]:
    """The drawn lines of each text element of a card sized (and pinned) as on a board."""
    w, h = size_card(kind, payload, width)
    svg = render.render_card({"id": 1, "kind": kind, "payload": payload, "w": w, "h": h})
    assert isinstance(svg, str)
    return [[html.unescape(s) for s in _SPAN.findall(t)] for t in _TEXT.findall(svg)]


_WORD = st.text(alphabet="abcdefghijklmnopqrstuvwxyzMWil", min_size=1, max_size=12)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(_WORD, min_size=1, max_size=40),
    st.sampled_from(["note", "text"]),
    st.sampled_from([None, 220.0, 260.0, 333.0, 480.0]),
)
def test_no_line_ends_inside_a_word(words: list[str], kind: str, width: float | None) -> None:
    drawn = _lines(kind, {"md": " ".join(words)}, width)
    body = [line for block in drawn for line in block if line.strip()]
    assert " ".join(body).split() == words


def test_the_welcome_note_keeps_its_path_whole() -> None:
    md = "Compose more with `POST /api/v1/boards/welcome/compose`."
    lines = [line for block in _lines("note", {"md": md}) for line in block]
    assert "/api/v1/boards/welcome/compose." in lines


def test_a_word_wider_than_the_line_is_cut_at_its_separators() -> None:
    path = "/srv/releases/2026-11-28/checkout_service/config/production.yaml"
    lines = wrap(path, 120, 14)
    assert "".join(lines) == path
    assert all(text_width(line, 14) <= 120 for line in lines)
    assert all(line[-1] in "/._-" for line in lines[:-1])
    assert wrap("SharedDbInstanceName", 80, 14) == ["SharedDb", "Instance", "Name"]


def test_only_a_word_wider_than_the_line_is_cut_between_letters() -> None:
    lines = wrap("tiny " + "x" * 40 + " end", 100, 14)
    assert lines[0] == "tiny" and lines[-1].split()[-1] == "end"
    assert "".join(lines[1:]).removesuffix("end").strip() == "x" * 40
