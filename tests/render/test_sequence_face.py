"""How the sequence face draws what the layout placed: heads, lines, symbols."""

from __future__ import annotations

import pytest

from layoutkit.diagram import lay_out
from layoutkit.render._face_diagram import _Frame, diagram_scene
from layoutkit.render._face_sequence import INK, LIFELINE, _tip, css_colour, sequence_items
from layoutkit.render._scene import Ellipse, Path, Text, to_png, to_svg


@pytest.mark.parametrize(
    ("tail", "tip"), [((0.0, 50.0), (100.0, 50.0)), ((100.0, 50.0), (0.0, 50.0))]
)
def test_half_heads_keep_their_side_whichever_way_the_message_runs(tail, tip) -> None:
    for kind, above in (
        ("half-top", True),
        ("stick-top", True),
        ("half-bottom", False),
        ("stick-bottom", False),
    ):
        (head,) = _tip(kind, tail, tip, 1.0)
        ys = [p[1] for p in head.points]
        assert (min(ys) < 50.0) is above and (max(ys) > 50.0) is not above
        assert head.closed is kind.startswith("half")


def test_the_other_heads() -> None:
    tail, tip = (0.0, 10.0), (100.0, 10.0)
    (arrow,) = _tip("arrow", tail, tip, 1.0)
    assert arrow.closed and arrow.points[0] == tip
    assert len(_tip("cross", tail, tip, 1.0)) == 2
    (chevron,) = _tip("async", tail, tip, 1.0)
    assert not chevron.closed and chevron.points[1] == tip
    assert _tip("none", tail, tip, 1.0) == []


def test_css_colours_of_rect_and_box() -> None:
    assert css_colour("rgb(191, 223, 255)") == ("#bfdfff", 1.0)
    assert css_colour("rgba(0, 0, 255, .1)") == ("#0000ff", 0.1)
    assert css_colour("hsl(0, 100%, 50%)") == ("#ff0000", 1.0)
    assert css_colour("aqua") == ("#00ffff", 1.0)
    assert css_colour("transparent") is None and css_colour("not a colour") is None


def test_items_of_a_sequence_drawing() -> None:
    payload = lay_out(
        {
            "diagram_text": "sequenceDiagram\nactor U\nparticipant S\nU->>S: ask\nS-->>U: answer\n"
            "loop again\nU-)S: ping\nend"
        }
    )
    items = sequence_items(payload["geo"], {"U": "U", "S": "S"}, _Frame(0, 0, 1.0))
    lifelines = [i for i in items if isinstance(i, Path) and i.stroke == LIFELINE]
    assert len(lifelines) == 2
    lines = [i for i in items if isinstance(i, Path) and i.stroke == INK and len(i.points) == 2]
    dashed = [i for i in lines if i.dash]
    assert any(abs(i.points[0][1] - i.points[1][1]) < 1e-9 for i in dashed)
    # The actor is a stick figure: a head circle at the top and at the bottom.
    assert sum(isinstance(i, Ellipse) for i in items) >= 2
    texts = [line for i in items if isinstance(i, Text) for line in i.lines]
    assert texts.count("ask") == 1 and texts.count("loop") == 1 and "[again]" in texts
    scene = diagram_scene(payload)
    assert to_png(scene)[:4] == b"\x89PNG"
    assert "ask" in to_svg(scene)


def test_an_unlabelled_and_branch_draws_no_empty_brackets() -> None:
    text = "sequenceDiagram\nA->>B: one\npar first\nA->>B: two\nand\nB->>A: three\nend"
    payload = lay_out({"diagram_text": text})
    svg = to_svg(diagram_scene(payload))
    assert "[]" not in svg
    assert "[first]" in svg


def test_an_else_label_never_sits_on_an_activation_bar() -> None:
    text = (
        "sequenceDiagram\nparticipant A\nparticipant B\nA->>+B: ask\n"
        "alt found it\nB-->>A: yes\nelse a rather long condition here\nB-->>A: no\nend\n"
        "B-->>-A: done"
    )
    payload = lay_out({"diagram_text": text})
    seq = payload["geo"]["sequence"]
    bars = seq["activations"]
    assert bars
    (frame,) = [f for f in seq["frames"] if f.get("dividers")]
    (divider,) = frame["dividers"]
    from layoutkit.layout.text import text_width

    half = text_width(divider["label"], 11.0, "sans-bold") / 2
    cx = divider.get("x", frame["x"] + frame["w"] / 2)
    for bar in bars:
        if bar["y"] < divider["y"] + 20 and bar["y"] + bar["h"] > divider["y"]:
            assert cx + half <= bar["x"] or cx - half >= bar["x"] + bar["w"]
    assert frame["x"] <= cx - half and cx + half <= frame["x"] + frame["w"]
