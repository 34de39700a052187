"""Text faces draw the block plan the sizer measured (issue 19, faces as good as the documents).

A text, note or page card is sized by :func:`layoutkit.layout.sizing.size_card` and drawn
by :func:`layoutkit.render._faces.card_face` in that box. Both read one block plan
(:mod:`layoutkit.layout.blocks`), so every line the sizer counted is in the face, the last
line drawn sits at the box's bottom, and a box too short for its text says what it left out.
"""

from __future__ import annotations

import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from layoutkit import render
from layoutkit.layout import blocks
from layoutkit.layout.sizing import PAD, size_card
from layoutkit.render._faces import card_face
from layoutkit.render._scene import Box, Path, Text

WORD = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=12)
PHRASE = st.lists(WORD, min_size=1, max_size=24).map(" ".join)


def _block(draw: st.DrawFn) -> str:
    kind = draw(
        st.sampled_from(["p", "h", "ul", "ol", "task", "quote", "code", "table", "hr", "math"])
    )
    if kind == "p":
        return draw(PHRASE)
    if kind == "h":
        return "#" * draw(st.integers(1, 4)) + " " + draw(PHRASE)
    if kind in ("ul", "ol", "task"):
        items = draw(st.lists(PHRASE, min_size=1, max_size=5))
        mark = {"ul": "- ", "ol": "1. ", "task": "- [ ] "}[kind]
        return "\n".join(mark + i for i in items)
    if kind == "quote":
        return "> " + draw(PHRASE)
    if kind == "code":
        return "```\n" + "\n".join(draw(st.lists(PHRASE, min_size=1, max_size=4))) + "\n```"
    if kind == "table":
        cols = draw(st.integers(1, 4))
        rows = draw(st.lists(st.lists(PHRASE, min_size=cols, max_size=cols), max_size=4))
        head = "| " + " | ".join(f"h{i}" for i in range(cols)) + " |"
        rule = "|" + "---|" * cols
        body = ["| " + " | ".join(r) + " |" for r in rows]
        return "\n".join([head, rule, *body])
    if kind == "math":
        return "$$\n" + draw(WORD) + "\n$$"
    return "---"


MARKDOWN = st.lists(st.composite(_block)(), min_size=1, max_size=8).map("\n\n".join)


def _drawn_lines(items: list) -> list[str]:
    return [line for i in items if isinstance(i, Text) for line in i.lines]


def _bottom(items: list, card_h: float = 1e9) -> float:
    """Bottom of the content drawn (the card's own chrome boxes left out)."""
    out = 0.0
    for i in items:
        if isinstance(i, Box) and i.h >= card_h - 8:
            continue
        if isinstance(i, Text):
            out = max(out, i.y + i.height)
        elif isinstance(i, Box):
            out = max(out, i.y + i.h)
        elif isinstance(i, Path):
            out = max(out, max(y for _, y in i.points))
    return out


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(md=MARKDOWN, width=st.sampled_from([None, 240.0, 360.0, 520.0]))
def test_text_face_draws_every_counted_line_and_fills_its_box(md: str, width: float | None) -> None:
    w, h = size_card("text", {"md": md}, width)
    items = card_face("text", {"md": md}, (0.0, 0.0, w, h))
    drawn = _drawn_lines(items)
    laid = blocks.plan(md, w - 2 * PAD)
    for block in laid.blocks:
        for line in block.lines:
            if block.kind in ("text", "marker"):
                assert line in drawn, f"{line!r} counted by the sizer but not drawn"
        for cell in block.cells:
            for line in cell:
                assert line in drawn, f"table cell line {line!r} not drawn"
    assert not any("more" in line and line.startswith("+") for line in drawn)
    # the last thing drawn ends at the box's inner bottom: no band, no overflow (a rule
    # is drawn across the middle of its 16 px band)
    floor = laid.height - max(b.bottom for b in laid.blocks)  # one body line at least
    assert h - PAD - 9 - floor <= _bottom(items, h) <= h - PAD + 1


def test_bullet_after_owner_line_is_drawn() -> None:
    md = (
        "## Onboarding revamp\n\n"
        "- Owner: Growth squad (Ana, Bo, Chen) with design support from the platform team\n"
        "- Next: ship the checklist to 10% of sign-ups\n"
        "- Risk: email deliverability"
    )
    w, h = size_card("text", {"md": md})
    svg = render.render_card({"id": 1, "kind": "text", "payload": {"md": md}, "w": w, "h": h})
    assert isinstance(svg, str)
    text = re.sub(r"<[^>]+>", " ", svg)
    for words in ("Owner: Growth squad", "ship the checklist", "email deliverability"):
        assert words in " ".join(text.split())


def test_a_cut_face_says_how_much_it_left_out() -> None:
    md = "\n\n".join(f"Paragraph {i} with a few words in it." for i in range(12))
    w, h = size_card("text", {"md": md})
    short = h / 2
    drawn = _drawn_lines(card_face("text", {"md": md}, (0.0, 0.0, w, short)))
    more = [line for line in drawn if re.fullmatch(r"\+\d+ more lines", line)]
    assert more, drawn
    shown = sum(1 for line in drawn if line.startswith("Paragraph"))
    assert shown + int(more[0][1:].split()[0]) == 12
    assert _bottom(card_face("text", {"md": md}, (0.0, 0.0, w, short)), short) <= short - PAD + 1


def test_a_long_page_is_capped_and_counts_the_rest() -> None:
    md = "\n\n".join(f"- item {i}" for i in range(200))
    w, h = size_card("page", {"md": md})
    assert h == 1200
    drawn = _drawn_lines(card_face("page", {"md": md}, (0.0, 0.0, w, h)))
    assert any(re.fullmatch(r"\+\d+ more lines", line) for line in drawn)


def test_table_numbers_sit_right_under_their_header() -> None:
    md = "| team | cost |\n|---|---:|\n| core | 1,200 |\n| growth platform and ops | 80 |"
    w, h = size_card("text", {"md": md}, 360.0)
    items = card_face("text", {"md": md}, (0.0, 0.0, w, h))
    cost = [i for i in items if isinstance(i, Text) and i.lines[0] in ("cost", "1,200", "80")]
    assert len(cost) == 3
    assert {i.anchor for i in cost} == {"end"}
    assert len({round(i.x, 3) for i in cost}) == 1


def test_the_more_line_counts_the_lines_left_out_not_the_paragraphs() -> None:
    long = " ".join(["words that wrap onto several lines of a narrow card"] * 4)
    md = "\n\n".join(f"Part {i}: {long}" for i in range(6))
    w, h = size_card("text", {"md": md}, 240.0)
    laid = blocks.plan(md, w - 2 * PAD)
    total = sum(len(b.lines) for b in laid.blocks if b.kind == "text")
    assert total > 12  # several lines a paragraph, so lines and paragraphs differ
    drawn = _drawn_lines(card_face("text", {"md": md}, (0.0, 0.0, w, h / 3)))
    more = [line for line in drawn if re.fullmatch(r"\+\d+ more lines?", line)]
    assert more, drawn
    body = [line for line in drawn if line is not more[0]]
    assert len(body) + int(more[0][1:].split()[0]) == total


def test_a_heading_card_reads_its_inline_markdown() -> None:
    """The decision-map template puts a "**Stakes:**" line under each decision's heading."""
    p = {"md": "### Which provider?\n\n**Stakes:** a year of *lock-in*", "role": "heading"}
    p["level"] = 3
    w, h = size_card("text", p)
    drawn = _drawn_lines(card_face("text", p, (0.0, 0.0, w, h)))
    assert drawn == ["Which provider?", "Stakes: a year of lock-in"]
