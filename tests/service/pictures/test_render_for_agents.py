"""render_board for agents: PNG as image content, a scale that keeps text readable, and a
large board as an overview plus readable tiles (1200 px each, at most 12 drawn, only
where cards are, the rest listed by region)."""

from __future__ import annotations

import base64
import io
import itertools
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from layoutkit import Principal, ServiceError, Workspace
from layoutkit.service.pictures import views
from layoutkit.storage import NewCard

AGENT = Principal.agent("claude")


@pytest.fixture
def ws() -> Iterator[Workspace]:
    with Workspace.open() as ws:
        yield ws


def grid(ws: Workspace, slug: str, cols: int, rows: int, *, gap: float = 40.0) -> None:
    """A board of ``cols`` x ``rows`` notes of 300 x 180, stored as they are."""
    ws.call("create", {"kind": "board", "slug": slug}, AGENT)
    with ws.store.transaction() as tx:
        board = tx.board_by_slug(ws.workspace_id, slug)
        assert board is not None
        tx.insert_cards(
            board.id,
            [
                NewCard(
                    "note",
                    {"md": f"Note {r}-{c}: the words an agent must read"},
                    c * (300 + gap),
                    r * (180 + gap),
                    300.0,
                    180.0,
                    "ai",
                    "agent:seed",
                    sized_by="content",
                )
                for r in range(rows)
                for c in range(cols)
            ],
        )


def size(b64: str) -> tuple[int, int]:
    return Image.open(io.BytesIO(base64.b64decode(b64))).size


def test_a_small_board_comes_back_whole_as_one_image(ws: Workspace) -> None:
    grid(ws, "small", 3, 2)
    out = ws.call("render_board", {"board": "small", "format": "png"}, AGENT)
    image = out["image"]
    assert image["mime"] == "image/png" and "tiles" not in out
    assert size(image["data"]) == (image["width"], image["height"])
    assert image["scale"] == 1.0  # it fits at full size


def test_a_large_board_comes_back_as_an_overview_and_readable_tiles(ws: Workspace) -> None:
    grid(ws, "large", 12, 8)  # about 4,000 x 1,800 board pixels: fitting would be scale 0.4
    out = ws.call("render_board", {"board": "large", "format": "png"}, AGENT)
    overview = out["image"]
    assert max(overview["width"], overview["height"]) == 1600 and overview["scale"] < 0.5
    tiles = out["tiles"]
    assert 1 < len(tiles) <= views.MAX_TILES and out["tilesTotal"] == len(tiles)
    for tile in tiles:
        assert tile["scale"] == 1.0
        assert size(tile["data"]) == (round(tile["region"]["w"]), round(tile["region"]["h"]))
        assert max(tile["width"], tile["height"]) <= views.TILE_PX
    # Every card is in some tile, and a tile is the board drawn at full size there.
    notes = ws.call("scrape_board", {"board": "large"}, AGENT)["cards"]
    for card in notes:
        cx, cy = card["x"] + card["w"] / 2, card["y"] + card["h"] / 2
        assert any(
            t["region"]["x"] <= cx < t["region"]["x"] + t["region"]["w"]
            and t["region"]["y"] <= cy < t["region"]["y"] + t["region"]["h"]
            for t in tiles
        )
    assert "image 2: x" in out["text"] and "reading order" in out["text"]


def test_more_tiles_than_twelve_are_listed_for_later_calls(ws: Workspace) -> None:
    grid(ws, "huge", 12, 8)
    out = ws.call("render_board", {"board": "huge", "format": "png", "scale": 2}, AGENT)
    assert len(out["tiles"]) == views.MAX_TILES
    assert out["tilesTotal"] == views.MAX_TILES + len(out["moreTiles"]) > views.MAX_TILES
    assert all(t["width"] <= 1200 and t["scale"] == 2 for t in out["tiles"])
    # A listed region, asked for, comes back whole at the scale named.
    region = out["moreTiles"][0]
    one = ws.call(
        "render_board", {"board": "huge", "format": "png", "region": region, "scale": 2}, AGENT
    )
    assert "tiles" not in one
    assert (one["image"]["width"], one["image"]["height"]) == (
        round(region["w"] * 2),
        round(region["h"] * 2),
    )


def test_tiles_are_only_where_cards_are(ws: Workspace) -> None:
    ws.call("create", {"kind": "board", "slug": "far"}, AGENT)
    with ws.store.transaction() as tx:
        board = tx.board_by_slug(ws.workspace_id, "far")
        assert board is not None
        tx.insert_cards(
            board.id,
            [
                NewCard("note", {"md": "top left"}, 0.0, 0.0, 300.0, 180.0, "ai", "agent:seed"),
                NewCard("note", {"md": "far"}, 6000.0, 6000.0, 300.0, 180.0, "ai", "agent:seed"),
            ],
        )
    out = ws.call("render_board", {"board": "far", "format": "png"}, AGENT)
    assert len(out["tiles"]) == 2  # not the 36 an even cut of 6,300 px would make


def test_a_section_and_a_region_take_a_scale(ws: Workspace) -> None:
    ws.call("create", {"kind": "board", "slug": "parts"}, AGENT)
    notes = [{"kind": "note", "payload": {"md": f"part {i}"}} for i in range(4)]
    ws.call("compose_board", {"board": "parts", "section": "Plan", "cards": notes}, AGENT)
    ws.call("compose_board", {"board": "parts", "cards": notes}, AGENT)
    part = ws.call(
        "render_board", {"board": "parts", "format": "png", "section": "Plan", "scale": 0.5}
    )
    assert part["cards"] == 5  # the frame and its four notes
    assert part["image"]["scale"] == 0.5
    region = {"x": 0, "y": 0, "w": 500, "h": 300}
    small = ws.call(
        "render_board", {"board": "parts", "format": "png", "region": region, "scale": 1.5}
    )
    assert (small["image"]["width"], small["image"]["height"]) == (750, 450)
    assert small["image"]["region"] == {"x": 0, "y": 0, "w": 500, "h": 300}


def test_scale_is_for_png_only(ws: Workspace) -> None:
    grid(ws, "svg", 1, 1)
    with pytest.raises(ServiceError) as exc:
        ws.call("render_board", {"board": "svg", "scale": 1}, AGENT)
    assert (exc.value.status, exc.value.code) == (400, "scale_needs_png")


def test_a_tile_reads_where_the_overview_greys_text_out(ws: Workspace) -> None:
    """At the overview's scale a note's 14 px text is under 7 px; in a tile it is drawn
    as glyphs: many more distinct ink colours (anti-aliased letters) than grey bars."""
    grid(ws, "read", 12, 8)
    out = ws.call("render_board", {"board": "read", "format": "png"}, AGENT)
    tile = Image.open(io.BytesIO(base64.b64decode(out["tiles"][0]["data"]))).convert("RGB")
    note = tile.crop((30, 30, 320, 200))
    assert len(note.getcolors(1 << 16) or []) > 40


@settings(max_examples=80, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.floats(-5000, 5000),
            st.floats(-5000, 5000),
            st.floats(10, 3000),
            st.floats(10, 3000),
        ),
        min_size=1,
        max_size=25,
    ),
    st.sampled_from([0.25, 0.5, 1.0, 2.0]),
)
def test_tiles_cover_every_card_without_overlap(boxes: list, scale: float) -> None:
    cards = [
        {"id": i, "kind": "note", "x": x, "y": y, "w": w, "h": h}
        for i, (x, y, w, h) in enumerate(boxes)
    ]
    tiles = views._tile_regions({"cards": cards}, None, scale)
    side = views.TILE_PX / scale
    assert all(0 < t[2] <= side + 1e-6 and 0 < t[3] <= side + 1e-6 for t in tiles)
    assert tiles == sorted(tiles, key=lambda t: (t[1], t[0]))  # reading order
    for a, b in itertools.combinations(tiles, 2):
        overlap_w = min(a[0] + a[2], b[0] + b[2]) - max(a[0], b[0])
        overlap_h = min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1])
        assert overlap_w <= 1e-6 or overlap_h <= 1e-6
    for c in cards:  # every corner of every card lies in some tile
        for px, py in ((c["x"], c["y"]), (c["x"] + c["w"] - 1e-3, c["y"] + c["h"] - 1e-3)):
            assert any(t[0] <= px <= t[0] + t[2] and t[1] <= py <= t[1] + t[3] for t in tiles)
