"""Every board card kind given more content than its face can show says so on the
face and in the compose receipt (one ``truncated`` warning naming the card)."""

from __future__ import annotations

import html
import re
from typing import Any

import pytest

from layoutkit import Workspace, render
from layoutkit.elements import BOARD_KINDS

LONG = " ".join(f"word{i}" for i in range(400))
MD = "\n\n".join(f"Paragraph {i}: " + " ".join(f"w{j}" for j in range(40)) for i in range(120))

#: kind -> (an oversized payload, the marker its face draws for what it left out)
OVERSIZED: dict[str, tuple[dict[str, Any], str]] = {
    "page": ({"md": MD}, "more lines"),
    "table": (
        {"cols": [{"key": f"c{i}"} for i in range(60)], "rows": [{"c0": 1}]},
        "columns",
    ),
    "gallery": (
        {"items": [{"src": f"https://example.com/{i}.png", "alt": f"p{i}"} for i in range(20)]},
        "+15 more",
    ),
    "verdict": ({"state": "Ship it", "text": LONG}, "…"),
    "finding": ({"summary": "s", "evidence": [f"e{i}" for i in range(10)]}, "+6 more"),
    "chips": ({"items": [{"k": "k", "v": LONG}]}, "…"),
    "stat": ({"items": [{"label": LONG, "value": i} for i in range(3)]}, "…"),
    "meter": ({"items": [{"label": LONG, "value": 1, "max": 2}]}, "…"),
    "timeline": ({"items": [{"when": "week 1", "title": LONG}]}, "…"),
    "list": ({"items": [LONG]}, "…"),
    "chart": ({"viz": "bars", "data": {"items": [{"label": LONG, "value": 3}]}}, "…"),
    "shape": ({"label": LONG}, "…"),
    "file": ({"name": LONG + ".pdf"}, "…"),
    "artifact": ({"html": "<!doctype html><p>x</p>", "title": LONG}, "…"),
    "epic": ({"title": LONG}, "…"),
    "goal": ({"title": LONG}, "…"),
    "milestone": ({"title": LONG}, "…"),
    "release": ({"title": LONG}, "…"),
}

#: Kinds whose face never leaves content out, and why.
NEVER: dict[str, str] = {
    "text": "the card grows to its whole markdown",
    "note": "the card grows to its whole markdown",
    "callout": "the card grows to its whole markdown",
    "prose": "the card grows to its whole markdown",
    "code": "the card grows to its whole listing, long lines wrap",
    "checklist": "the card grows to every item, long items wrap",
    "doc": "the card grows to every element at its own height",
    "columns": "the card grows to its tallest column",
    "compare": "the card grows to both sides",
    "section": "a frame: its members are cards of their own",
    "cluster": "a frame: its members are cards of their own",
    "diagram": "the card is sized to the laid-out diagram",
    "mockup": "a tile naming the mockup, its frames live in the HTML",
    "html": "a framed page at its natural size",
    "media": "a picture scaled to the card, nothing cut",
    "figure": "a picture scaled to the card",
    "step": "the card is sized to the screen's aspect",
    "link": "the site card shows a fixed summary of the page (title, host, picture)",
    "board": "a minimap of another board, scaled down, nothing cut",
    "api": "a summary of the endpoints; the reference is the HTML",
    "chat": "a preview of the thread; the thread is the HTML",
    "ref": "a chip naming its target",
    "deploy": "a tile with its id, state and count",
}


def test_every_board_kind_is_covered() -> None:
    assert set(OVERSIZED) | set(NEVER) == set(BOARD_KINDS)
    assert not set(OVERSIZED) & set(NEVER)


def _drawn(card: dict[str, Any], payload: dict[str, Any]) -> list[str]:
    svg = render.render_card({**card, "payload": payload})
    assert isinstance(svg, str)
    return [html.unescape(s) for s in re.findall(r"<tspan[^>]*>([^<]*)</tspan>", svg)]


@pytest.mark.parametrize("kind", sorted(OVERSIZED))
def test_an_oversized_card_says_what_it_left_out(ws: Workspace, kind: str) -> None:
    payload, marker = OVERSIZED[kind]
    ws.call("create", {"kind": "board", "slug": "big"})
    cards = [
        {"kind": "text", "ref": "small", "payload": {"md": "Fits."}},
        {"kind": kind, "ref": f"big-{kind}", "payload": payload},
    ]
    out = ws.call("compose_board", {"board": "big", "cards": cards})
    truncated = [w for w in out["warnings"] if w["code"] == "truncated"]
    assert [(w["card"], w["index"]) for w in truncated] == [(f"big-{kind}", 1)]
    assert f"'big-{kind}'" in truncated[0]["message"]
    drawn = _drawn(out["cards"][1], payload)
    assert any(marker in line for line in drawn), (marker, drawn[:20])
