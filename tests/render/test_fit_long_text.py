"""Fitting text to a width is linear: a cut found by bisection, the same cut as before."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from layoutkit.layout.text import fit_prefix, text_width
from layoutkit.render import render_board
from layoutkit.render._scene import fit_line, text_run


def _naive(text: str, max_width: float, size: float, font: str) -> str:
    # The old loop: drop one character and measure the whole string again.
    while text and text_width(text + "…", size, font) > max_width:  # type: ignore[arg-type]
        text = text[:-1]
    return text


@settings(max_examples=300, deadline=None)
@given(
    st.text(alphabet=st.characters(codec="utf-8"), max_size=120),
    st.floats(min_value=0, max_value=900, allow_nan=False),
    st.sampled_from([9.0, 11.5, 14.0, 22.0]),
    st.sampled_from(["sans", "sans-bold", "mono"]),
)
def test_fit_prefix_cuts_where_the_one_character_loop_did(
    text: str, width: float, size: float, font: str
) -> None:
    assert fit_prefix(text, width, size, font, "…") == _naive(text, width, size, font)  # type: ignore[arg-type]


def test_a_title_of_a_million_characters_fits_to_one_line() -> None:
    title = "A long board title " * 55_000
    line = fit_line(title, 700, 22, "sans-bold")
    assert line.endswith("…")
    assert text_width(line, 22, "sans-bold") <= 700
    run = text_run(0, 0, title, 300, size=14, max_lines=2)
    assert len(run.lines) == 2 and run.lines[-1].endswith("…")


def test_a_board_whose_stored_title_is_huge_still_renders() -> None:
    # Boards written before titles were capped may hold one.
    svg = render_board({"board": {"title": "x" * 200_000, "slug": "b"}, "cards": []})
    assert isinstance(svg, str)
    drawn = svg.split("</title>", 1)[1]
    assert "xxxxx…</tspan>" in drawn and "x" * 1_000 not in drawn
