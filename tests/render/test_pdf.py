"""The PDF writer and print layouts on plain dicts (no workspace): characters the
bundled font lacks keep their place, pages break between lines and never through an
element kept whole, tiles draw only what reaches them, bad paper is the engine's refusal."""

from __future__ import annotations

import io

import pypdf
import pytest

from layoutkit import render
from layoutkit.render._print import _Atom, _page_cuts
from layoutkit.render._scene import Text


def _board(*cards: dict) -> dict:
    placed = [
        {"id": i, "x": 40.0 + 400 * i, "y": 40.0, "w": 360.0, "h": 160.0, **c}
        for i, c in enumerate(cards, start=1)
    ]
    return {"board": {"slug": "b", "title": "B"}, "cards": placed, "edges": []}


def _reader(pdf: bytes) -> pypdf.PdfReader:
    assert pdf.startswith(b"%PDF-")
    return pypdf.PdfReader(io.BytesIO(pdf))


def test_characters_the_font_lacks_keep_the_words_around_them_in_place() -> None:
    board = _board({"kind": "text", "payload": {"md": "日本語 and 🎉 stays readable"}})
    printed = render.board_pdf(board)
    text = _reader(printed.pdf).pages[0].extract_text()
    # DejaVu has no CJK or emoji glyphs: they are boxes, and no word after them is lost.
    assert "and" in text and "stays readable" in text


def test_tiles_carry_only_the_cards_that_reach_them() -> None:
    cards = [{"kind": "note", "payload": {"md": f"note number {i}"}} for i in range(8)]
    board = _board(*cards)  # one row, 3,240 px wide: four A4 tiles side by side
    printed = render.board_pdf(board, pages="tile")
    reader = _reader(printed.pdf)
    assert printed.pages == len(reader.pages) == 4
    first = reader.pages[0].extract_text()
    assert "note number 0" in first and "note number 7" not in first
    assert "note number 7" in reader.pages[-1].extract_text()
    assert "page 4 of 4 · row 1 of 1, column 4 of 4" in reader.pages[-1].extract_text()


def test_an_unknown_paper_or_paging_is_the_engines_refusal() -> None:
    with pytest.raises(render.PrintError) as caught:
        render.board_pdf(_board(), paper="a3")
    assert caught.value.fields["field"] == "paper"
    with pytest.raises(render.PrintError):
        render.board_pdf(_board(), pages="poster")
    with pytest.raises(render.PrintError):
        render.doc_pdf({"title": "x"}, paper="tabloid")


def _line(y: float) -> _Atom:
    return _Atom(Text(0, y, ("a line",)), y, y + 20, True)


def test_a_page_ends_between_lines_and_before_an_element_kept_whole() -> None:
    lines = [_line(20.0 * i) for i in range(60)]  # 1,200 rows of text
    # a line crossing the page's end moves to the next page whole
    assert _page_cuts(lines, [], 510.0)[0] == (0.0, 500.0)
    # a chart (kept whole) from 400 to 700 starts the next page
    cuts = _page_cuts(lines, [(400.0, 700.0)], 510.0)
    assert cuts[0] == (0.0, 400.0) and cuts[1][0] == 400.0
    # an element taller than most of a page is cut where the page ends
    cuts = _page_cuts(lines, [(100.0, 1000.0)], 510.0)
    assert cuts[0] == (0.0, 500.0)
    assert cuts[-1][1] == 1200.0


def test_a_doc_without_a_title_starts_its_outline_at_level_0() -> None:
    doc = {"elements": [{"kind": "prose", "payload": {"md": "## Deep first\n\nText.\n\n# Top"}}]}
    printed = render.doc_pdf(doc)
    assert [(t, lv) for t, lv, _ in printed.outline] == [("Deep first", 0), ("Top", 0)]
    assert [o.title for o in _reader(printed.pdf).outline] == ["Deep first", "Top"]


def test_a_board_past_the_page_cap_is_refused_from_its_boxes_alone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from layoutkit.limits import LimitExceeded
    from layoutkit.render import _print

    # 210 cards, each alone on its tile: no face of theirs is drawn before the refusal
    cards = [
        {
            "id": i,
            "kind": "note",
            "payload": {"md": "far"},
            "x": 2000.0 * (i % 15),
            "y": 1500.0 * (i // 15),
            "w": 200.0,
            "h": 100.0,
        }
        for i in range(210)
    ]
    monkeypatch.setattr(_print, "board_scene", lambda *a, **k: pytest.fail("drew the board"))
    with pytest.raises(LimitExceeded) as caught:
        render.board_pdf({"cards": cards}, pages="tile")
    assert caught.value.fields["field"] == "pages" and caught.value.fields["value"] >= 210
