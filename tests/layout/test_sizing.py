from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from layoutkit.layout import blocks as _blocks
from layoutkit.layout import size_card, sizing
from layoutkit.layout.sizing import BODY, PAD, WORD_WIDEN, _word_room
from layoutkit.layout.text import text_width


def test_text_is_measured_with_bundled_metrics_and_shrinks_to_short_text():
    short = size_card("text", {"md": "Hi"})
    long = size_card("text", {"md": "word " * 200})
    assert short[0] == sizing.MIN_TEXT_WIDTH
    assert sizing.TEXT_DEFAULT_WIDTH - 40 <= long[0] <= sizing.TEXT_DEFAULT_WIDTH
    assert long[1] > short[1] * 5
    assert size_card("text", {"md": "word " * 200}) == long  # deterministic


def test_text_width_pin_rewraps():
    w, h = size_card("text", {"md": "word " * 200}, width=720)
    assert w == 720
    assert h < size_card("text", {"md": "word " * 200})[1]


def test_heading_role_uses_larger_type():
    body = size_card("text", {"md": "Quarterly plan"})
    heading = size_card("text", {"md": "Quarterly plan", "role": "heading", "level": 1})
    assert heading[1] > body[1]
    assert heading[0] > body[0]


def test_markdown_blocks_add_height():
    plain = size_card("text", {"md": "one"})
    rich = size_card(
        "text",
        {"md": "# Title\n\n- a\n- b\n\n```\ncode\ncode\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |"},
    )
    assert rich[1] > plain[1] + 100


def test_note_default_width():
    assert sizing.NOTE_WIDTH - 40 <= size_card("note", {"md": "x " * 300})[0] <= sizing.NOTE_WIDTH


def test_doc_height_grows_with_elements():
    one = size_card("doc", {"title": "T", "elements": [{"kind": "prose", "payload": {"md": "p"}}]})
    more = size_card(
        "doc",
        {
            "title": "T",
            "elements": [
                {"kind": "prose", "payload": {"md": "p"}},
                {"kind": "table", "payload": {"cols": [{"key": "a"}], "rows": [{"a": 1}] * 10}},
                {"kind": "chart", "payload": {"viz": "line", "data": {"series": []}}},
            ],
        },
    )
    assert one[0] == more[0] == sizing.DOC_WIDTH
    assert more[1] > one[1] + sizing.table_row_height() * 11


def test_table_height_counts_rows():
    a = size_card("table", {"cols": [{"key": "a"}], "rows": [{"a": 1}] * 2})
    b = size_card("table", {"cols": [{"key": "a"}], "rows": [{"a": 1}] * 12})
    assert abs(b[1] - a[1] - sizing.table_row_height() * 10) <= 1


def test_diagram_from_geo_plus_chrome_and_default():
    w, h = size_card("diagram", {"geo": {"width": 500, "height": 300}})
    # the band holds the top padding; padding on the other three sides
    assert (w, h) == (500 + 2 * sizing.PAD, 300 + sizing.PAD + sizing.DIAGRAM_BAND)
    assert size_card("diagram", {"title": "x"}) == sizing.DIAGRAM_DEFAULT


def test_step_keeps_the_true_aspect():
    w, h = size_card("step", {"image": "a.png", "natW": 1440, "natH": 900})
    assert abs(w / (h - sizing.STEP_BAND) - 1.6) < 0.02
    pw, ph = size_card("step", {"image": "p.png", "natW": 390, "natH": 844})
    assert abs(pw / (ph - sizing.STEP_BAND) - 390 / 844) < 0.02
    assert ph - sizing.STEP_BAND <= sizing.STEP_IMAGE_MAX_HEIGHT + 1
    dw, dh = size_card("step", {"image": "a.png"})
    assert abs(dw / (dh - sizing.STEP_BAND) - 1.6) < 0.02


def test_media_and_figure_at_natural_aspect():
    w, h = size_card("figure", {"src": "a.png", "width": 1000, "height": 500})
    assert abs(w / h - 2.0) < 0.01
    assert size_card("media", {"src": "a.pdf", "mime": "application/pdf"}) == sizing.A4
    assert size_card("media", {"src": "a.zip", "mime": "application/zip"}) == sizing.CHIP


def test_html_is_one_to_one_up_to_1600_then_scaled():
    assert size_card("html", {"src": "<html>", "natW": 1200, "natH": 700}) == (1200, 700)
    assert size_card("html", {"src": "<html>", "natW": 3200, "natH": 1000}) == (1600, 500)
    assert size_card("html", {"src": "<html>", "width": 300, "height": 200}) == (300, 200)


def test_link_display_modes():
    w, h = size_card("link", {"url": "https://a.example"})
    assert w / h == 1.6
    assert size_card("link", {"url": "u", "display": "phone"}) == sizing.LINK_SIZES["phone"]
    assert size_card("link", {"url": "u", "display": "widget"}) == sizing.LINK_SIZES["widget"]


def test_documented_defaults_for_embeds():
    for kind in ("board", "api", "artifact", "chat"):
        assert size_card(kind, {}) == sizing.FIXED[kind]
    assert size_card("file", {"name": "spec.pdf"}) == sizing.A4
    assert size_card("file", {"name": "data.csv"}) == sizing.CHIP


def test_element_kinds_as_cards_and_unknown_kinds_do_not_raise():
    w, h = size_card("chart", {"viz": "bars", "data": {"items": [{"label": "a", "value": 1}] * 5}})
    assert w == sizing.ELEMENT_CARD_WIDTH and h > 100
    assert size_card("no-such-kind", {}) == (sizing.ELEMENT_CARD_WIDTH, 48 + 2 * sizing.PAD)


# Words a card's text may hold: markers of every inline rule, long runs, breaks.
_PIECES = st.sampled_from(
    [
        "word",
        "a",
        "supercalifragilistic_identifier_with_no_break_at_all",
        "**",
        "*",
        "_",
        "`",
        "``",
        "~~",
        "==",
        "[",
        "]",
        "(",
        ")",
        "<",
        ">",
        "\\",
        "$",
        "#",
        "|",
        "-",
        "!",
        "[[",
        "]]",
        "https",
        "//example.com/a/very/long/path/segment",
        " ",
        "  ",
        "\n",
        "\t",
        "\u00a0",
        "W",
        "…",
    ]
)


@settings(max_examples=400, deadline=None)
@given(st.lists(_PIECES, max_size=30).map("".join), st.sampled_from([120.0, 240.0, 360.0]))
def test_an_unparsed_text_gets_the_width_its_read_words_give(md, default):
    # The shortcut that skips reading the markdown must answer as reading it does.
    words = _blocks.plain_inline(md).split()
    longest = max((text_width(w, BODY) for w in words), default=0.0)
    read = max(default, min(default * WORD_WIDEN, longest + 2 * PAD + 1))
    assert _word_room(md, default) == read
