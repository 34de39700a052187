"""The cache of drawn faces (a changed card draws anew) and glances (level of detail)
of boards drawn small."""

from __future__ import annotations

import copy
import io
from collections.abc import Iterator
from typing import Any

import pytest
from PIL import Image as PILImage

from layoutkit.render import render_board
from layoutkit.render._board import board_scene
from layoutkit.render._glance import FACES, GLANCES, FaceCache, card_glance, card_title
from layoutkit.render._scene import Group, Placed, Text, to_svg
from tests.render.gallery import EVERY_CARD, EVERY_CARD_BOARD


@pytest.fixture(autouse=True)
def empty_cache() -> Iterator[None]:
    FACES.clear()
    yield
    FACES.clear()


def texts(items: Any) -> list[str]:
    out = []
    for item in items:
        if isinstance(item, Placed):
            out += texts(item.face.items)
        elif isinstance(item, Group):
            out += texts(item.items)
        elif isinstance(item, Text):
            out += [line for line in item.lines if line]
    return out


NOTE = {"md": "Ship the release notes"}


def test_the_same_card_drawn_again_comes_from_the_cache() -> None:
    cache = FaceCache()
    first = cache.face("note", dict(NOTE), 220, 160)
    again = cache.face("note", dict(NOTE), 220, 160)
    assert again is first
    assert (cache.hits, cache.misses) == (1, 1)


def test_a_moved_card_keeps_its_face() -> None:
    board = copy.deepcopy(EVERY_CARD_BOARD)
    render_board(board)
    misses = FACES.misses
    for card in board["cards"]:
        card["x"] = float(card.get("x") or 0) + 37
    render_board(board)
    assert FACES.misses == misses


@pytest.mark.parametrize(
    ("payload", "size"),
    [
        ({"md": "Ship the release notes today"}, (220, 160)),  # text changed
        ({**NOTE, "color": "blue"}, (220, 160)),  # a field added
        (NOTE, (120, 160)),  # narrower
        (NOTE, (220, 60)),  # lower
    ],
)
def test_a_changed_payload_or_size_draws_anew(
    payload: dict[str, Any], size: tuple[float, float]
) -> None:
    cache = FaceCache()
    before = cache.face("note", NOTE, 220, 160)
    after = cache.face("note", payload, *size)
    assert after is not before
    assert cache.misses == 2


def test_a_payload_changed_in_place_draws_anew() -> None:
    cache = FaceCache()
    payload = {"md": "Before"}
    assert texts(cache.face("note", payload, 220, 160).items) == ["Before"]
    payload["md"] = "After"
    assert texts(cache.face("note", payload, 220, 160).items) == ["After"]


def test_the_cache_keeps_at_most_its_size() -> None:
    cache = FaceCache(size=3)
    for i in range(5):
        cache.face("note", {"md": f"n{i}"}, 220, 160)
    assert len(cache) == 3
    cache.face("note", {"md": "n0"}, 220, 160)  # evicted first, so drawn again
    assert cache.misses == 6


def test_a_board_drawn_from_the_cache_is_the_board_drawn_afresh() -> None:
    fresh = render_board(EVERY_CARD_BOARD)
    assert len(FACES) > 0
    assert render_board(EVERY_CARD_BOARD) == fresh
    assert FACES.hits > 0


def test_a_changed_card_shows_on_the_board_drawn_again() -> None:
    board = copy.deepcopy(EVERY_CARD_BOARD)
    render_board(board)
    note = next(c for c in board["cards"] if c["kind"] == "note")
    note["payload"]["md"] = "Rewritten"
    assert ">Rewritten<" in render_board(board)  # type: ignore[operator]


def grid(n: int, cols: int = 40) -> dict[str, Any]:
    faces = [c for c in EVERY_CARD if c["kind"] not in ("section", "cluster", "compare")]
    cards = [
        {
            **copy.deepcopy(faces[i % len(faces)]),
            "id": i + 1,
            "x": (i % cols) * 460.0,
            "y": (i // cols) * 360.0,
            "w": 420.0,
            "h": 320.0,
            "parent": None,
        }
        for i in range(n)
    ]
    return {"board": {"slug": "grid", "title": "Grid"}, "cards": cards, "edges": []}


def test_a_board_drawn_under_a_tenth_of_its_size_shows_glances() -> None:
    board = grid(400)  # 18,400 board px wide: a 1,600 px picture is at 0.087
    FACES.clear()
    scene = board_scene(board, max_dim=1600)
    assert len(FACES) == 0  # no whole face was built
    shown = texts(scene.items)
    for card in board["cards"]:
        assert card_title(card["kind"], card["payload"]) in shown or card["kind"] == "text"
    png = render_board(board, format="png")
    assert PILImage.open(io.BytesIO(png)).width == 1600  # type: ignore[arg-type]


def test_a_board_drawn_at_a_tenth_or_more_shows_whole_faces() -> None:
    board = grid(300, cols=30)  # 13,800 px wide: 1,600 px is 0.116 of it
    scene = board_scene(board, max_dim=1600)
    assert sum(isinstance(i, Placed) for i in scene.items) == 300
    assert to_svg(board_scene(board), title="Grid") == render_board(board)  # SVG never glances


def test_glance_titles() -> None:
    assert card_title("note", {"md": "\n\n# Plan\nmore"}) == "Plan"
    assert card_title("link", {"url": "https://example.com", "title": "Example"}) == "Example"
    assert card_title("table", {"columns": ["a"]}) == "table"
    assert card_title("checklist", "not a payload") == "checklist"


def test_a_glance_title_fits_its_card() -> None:
    long = {"title": "A title far too long to fit on one line of a narrow card " * 3}
    (title,) = [i for i in card_glance("link", long, (0, 0, 200, 120)) if isinstance(i, Text)]
    assert title.lines[0].endswith("…")


def test_the_cache_keeps_about_its_budget_of_bytes() -> None:
    cache = FaceCache(budget=40_000)
    for i in range(3):
        cache.face("note", {"md": f"{i} " + "long text " * 2000}, 220, 160)
    assert len(cache) == 1  # each weighs ~26 KB: only the last one stays
    cache.face("note", {"md": "short"}, 220, 160)
    assert len(cache) == 2


def test_a_glance_drawn_once_is_placed_again_wherever_its_card_moves() -> None:
    GLANCES.clear()
    board = grid(400)
    first = board_scene(board, max_dim=1600)
    board["cards"][1]["x"] += 230.0  # inside the board: its frame stays
    again = board_scene(board, max_dim=1600)
    placed = [i for i in first.items if isinstance(i, Placed)]
    moved = [i for i in again.items if isinstance(i, Placed)]
    assert len(placed) == len(moved) == 400
    # Cards of equal kind, payload and size share one glance, drawn at the origin.
    assert len(GLANCES) == len({(c["kind"], repr(c["payload"])) for c in board["cards"]})
    for i, (a, b) in enumerate(zip(placed, moved, strict=True)):
        assert a.face is b.face
        assert (b.dx, b.dy) == ((a.dx + 230.0) if i == 1 else a.dx, a.dy)
