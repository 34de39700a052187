"""Geometry snapshots of representative boards (review changes with --snapshot-update)."""

from __future__ import annotations

from layoutkit.layout import Board, arrange

from .conftest import compose


def geometry(board: Board) -> list[tuple]:
    return sorted(
        ((str(k), c.kind, c.x, c.y, c.w, c.h, str(c.parent)) for k, c in board.cards.items()),
        key=lambda t: (int(t[0].split(":")[1]) if t[0].startswith("new:") else -1, t[0]),
    )


def mixed_cards() -> list[dict]:
    return [
        {"kind": "text", "payload": {"md": "# Plan\n\nWhat we ship this quarter and why."}},
        {"kind": "note", "payload": {"md": "Ask design about the empty state"}},
        {"kind": "step", "payload": {"image": "home.png", "natW": 1440, "natH": 900}},
        {"kind": "step", "payload": {"image": "phone.png", "natW": 390, "natH": 844}},
        {"kind": "link", "payload": {"url": "https://example.com", "display": "widget"}},
        {"kind": "diagram", "payload": {"geo": {"width": 640, "height": 360}}},
    ]


def test_shelf_board(snapshot):
    b = Board()
    compose(b, cards=mixed_cards())
    compose(b, cards=mixed_cards()[:3], aspect=3.2)
    assert geometry(b) == snapshot


def test_sections_and_journey_board(snapshot):
    b = Board()
    compose(b, cards=mixed_cards()[:2], flow="document")
    compose(b, cards=mixed_cards()[2:4], journey="Onboarding")
    compose(b, cards=mixed_cards()[2:4], journey="Onboarding", **{"pass": "next"})
    compose(b, cards=mixed_cards()[:3], section="Decisions")
    assert geometry(b) == snapshot


def test_nested_frames_board(snapshot):
    b = Board()
    compose(
        b,
        cards=[
            {
                "kind": "section",
                "ref": "s",
                "payload": {"title": "Board"},
                "children": ["todo", "done"],
            },
            {
                "kind": "cluster",
                "ref": "todo",
                "payload": {"title": "Todo", "role": "kanban"},
                "children": ["a", "b"],
            },
            {
                "kind": "cluster",
                "ref": "done",
                "payload": {"title": "Done", "role": "kanban"},
                "children": ["c"],
            },
            {"kind": "note", "ref": "a", "payload": {"md": "Write the spec"}},
            {"kind": "note", "ref": "b", "payload": {"md": "Review the layout engine"}},
            {"kind": "note", "ref": "c", "payload": {"md": "Ship fonts"}},
        ],
    )
    assert geometry(b) == snapshot


def test_arranged_masonry_board(snapshot):
    b = Board()
    compose(b, cards=mixed_cards() + mixed_cards())
    arrange(b, "masonry", scope="all", cols=3)
    assert geometry(b) == snapshot
