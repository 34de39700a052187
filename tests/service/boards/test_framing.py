"""frame_cards and unframe_cards: a frame drawn around cards in place, taken away again
without the removal handshake (its author's own, nothing but the frame goes), and a
restore that brings it back around them."""

from __future__ import annotations

from typing import Any

import pytest

from layoutkit import Principal, ServiceError, Workspace

ANA = Principal.user("ana")
BOB = Principal.user("bob")


@pytest.fixture
def board(ws: Workspace) -> tuple[Workspace, list[int]]:
    ws.call("create", {"kind": "board", "slug": "f"})
    cards = [{"kind": "note", "payload": {"md": f"note {i}"}} for i in range(3)]
    ids = [c["id"] for c in ws.call("compose_board", {"board": "f", "cards": cards}, ANA)["cards"]]
    return ws, ids


def _rows(ws: Workspace, ids: list[int]) -> dict[int, Any]:
    with ws.store.read() as tx:
        return {r.id: r for r in tx.cards_by_id(ids)}


def _place(r: Any) -> tuple[float, float, float, float]:
    return (r.x, r.y, r.w, r.h)


def test_a_frame_takes_the_cards_in_where_they_are(board: Any) -> None:
    ws, (a, b, c) = board
    before = {i: _place(r) for i, r in _rows(ws, [a, b, c]).items()}
    out = ws.call("frame_cards", {"board": "f", "ids": [b, a], "title": "Ideas"}, ANA)
    frame = out["frame"]
    rows = _rows(ws, [a, b, c, frame["id"]])
    assert {i: _place(rows[i]) for i in (a, b)} == {i: before[i] for i in (a, b)}
    assert rows[a].parent_id == rows[b].parent_id == frame["id"]
    stored = rows[frame["id"]]
    assert stored.kind == "section" and stored.author == ANA.label and stored.layer == "human"
    assert stored.payload["title"] == "Ideas" and stored.payload["layout"] is None
    assert sorted(stored.children) == sorted([a, b])
    # The frame holds both cards, with its padding and its title band above them.
    for i in (a, b):
        r = rows[i]
        assert stored.x < r.x and stored.y + 48 <= r.y
        assert r.x + r.w < stored.x + stored.w and r.y + r.h < stored.y + stored.h
    # The card left out is not inside the frame, pushed out of its way if it had to be.
    assert rows[c].parent_id is None
    box = (stored.x, stored.y, stored.x + stored.w, stored.y + stored.h)
    rc = rows[c]
    assert rc.x >= box[2] or rc.y >= box[3] or rc.x + rc.w <= box[0] or rc.y + rc.h <= box[1]


def test_a_frame_in_a_row_stands_clear_of_the_neighbours_on_both_sides(ws: Workspace) -> None:
    # Four notes a gap apart: framing the middle two at full padding would end the frame
    # flush against the outer ones. It narrows its sides instead, and nothing moves.
    ws.call("create", {"kind": "board", "slug": "row"})
    cards = [{"kind": "note", "payload": {"md": f"idea {i}"}} for i in range(4)]
    made = ws.call("compose_board", {"board": "row", "cards": cards, "layout": "row"}, ANA)
    ids = [c["id"] for c in made["cards"]]
    before = {i: _place(r) for i, r in _rows(ws, ids).items()}
    frame = ws.call("frame_cards", {"board": "row", "ids": ids[1:3]}, ANA)["frame"]
    rows = _rows(ws, ids)
    assert {i: _place(rows[i]) for i in ids} == before
    left, right = rows[ids[0]], rows[ids[3]]
    inner_l, inner_r = rows[ids[1]], rows[ids[2]]
    fx0, fx1 = frame["x"], frame["x"] + frame["w"]
    # Clear of both neighbours, and still padded inside, by the same split of the gap.
    assert left.x + left.w < fx0 < inner_l.x and inner_r.x + inner_r.w < fx1 < right.x
    assert fx0 - (left.x + left.w) == inner_l.x - fx0
    assert right.x - fx1 == fx1 - (inner_r.x + inner_r.w)


def test_unframing_ones_own_frame_asks_nothing_and_a_restore_brings_it_back(ws: Workspace) -> None:
    ws.call("create", {"kind": "board", "slug": "small"})
    cards = [{"kind": "note", "payload": {"md": f"note {i}"}} for i in range(2)]
    a, b = (
        c["id"] for c in ws.call("compose_board", {"board": "small", "cards": cards}, ANA)["cards"]
    )
    frame = ws.call("frame_cards", {"board": "small", "ids": [a, b]}, ANA)["frame"]["id"]
    placed = {i: _place(r) for i, r in _rows(ws, [a, b]).items()}
    # Removing the frame by update_cards: a third of this small board, which asks first.
    with pytest.raises(ServiceError) as exc:
        ws.call("update_cards", {"remove": [frame]}, ANA)
    assert (exc.value.status, exc.value.code) == (409, "needs_confirm")
    out = ws.call("unframe_cards", {"board": "small", "id": frame}, ANA)
    assert out["removed"] == [frame] and {c["id"] for c in out["cards"]} == {a, b}
    rows = _rows(ws, [a, b, frame])
    assert rows[frame].deleted and rows[frame].deleted_by == ANA.label
    assert {i: _place(rows[i]) for i in (a, b)} == placed
    assert rows[a].parent_id is None and rows[b].parent_id is None
    # A redo: the frame back from the trash takes its cards in again, none moving.
    ws.call("update_cards", {"restore": [frame]}, ANA)
    rows = _rows(ws, [a, b, frame])
    assert not rows[frame].deleted
    assert rows[a].parent_id == rows[b].parent_id == frame
    assert {i: _place(rows[i]) for i in (a, b)} == placed


def test_only_the_frames_author_unframes_it(board: Any) -> None:
    ws, (a, b, c) = board
    frame = ws.call("frame_cards", {"board": "f", "ids": [a, b]}, ANA)["frame"]["id"]
    with pytest.raises(ServiceError) as exc:
        ws.call("unframe_cards", {"board": "f", "id": frame}, BOB)
    assert (exc.value.status, exc.value.code) == (403, "not_your_card")
    assert not _rows(ws, [frame])[frame].deleted
    with pytest.raises(ServiceError) as exc:
        ws.call("unframe_cards", {"board": "f", "id": c}, ANA)
    assert (exc.value.status, exc.value.code) == (400, "not_a_frame")
    # The owner may, as update_cards lets the owner remove anyone's card.
    ws.call("unframe_cards", {"board": "f", "id": frame})
    assert _rows(ws, [frame])[frame].deleted


def test_a_frame_needs_cards_of_one_container(board: Any) -> None:
    ws, (a, b, c) = board
    frame = ws.call("frame_cards", {"board": "f", "ids": [a, b]}, ANA)["frame"]["id"]
    with pytest.raises(ServiceError) as exc:
        ws.call("frame_cards", {"board": "f", "ids": [a, c]}, ANA)
    assert (exc.value.status, exc.value.code, exc.value.body["field"]) == (
        400,
        "mixed_containers",
        "ids",
    )
    # A frame picked with a card inside it: the card comes along inside its frame.
    outer = ws.call("frame_cards", {"board": "f", "ids": [frame, a, c]}, ANA)
    assert {x["id"] for x in outer["cards"]} == {frame, c}
    assert _rows(ws, [a])[a].parent_id == frame
    with pytest.raises(ServiceError) as exc:
        ws.call("frame_cards", {"board": "f", "ids": [999999]}, ANA)
    assert (exc.value.status, exc.value.code) == (404, "unknown_card")


def test_a_view_link_frames_nothing(board: Any) -> None:
    ws, (a, b, _) = board
    link = ws.call("share_board", {"board": "f", "mode": "view"})
    viewer = ws.authenticate(link["url"].rsplit("/", 1)[-1])
    assert viewer is not None
    with pytest.raises(ServiceError) as exc:
        ws.call("frame_cards", {"board": "f", "ids": [a, b]}, viewer)
    assert exc.value.status == 403
    assert _rows(ws, [a])[a].parent_id is None


def test_cards_a_layout_places_are_not_framed_where_they_would_move(ws: Workspace) -> None:
    ws.call("create", {"kind": "board", "slug": "g"})
    notes = [{"kind": "note", "payload": {"md": f"n{i}"}} for i in range(3)]
    out = ws.call("compose_board", {"board": "g", "section": "Grid", "cards": notes}, ANA)
    ids = [c["id"] for c in out["cards"]]
    before = {i: _place(r) for i, r in _rows(ws, ids).items()}
    with pytest.raises(ServiceError) as exc:
        ws.call("frame_cards", {"board": "g", "ids": ids[1:2]}, ANA)
    assert (exc.value.status, exc.value.code, exc.value.body["field"]) == (
        400,
        "managed_container",
        "ids",
    )
    assert {i: _place(r) for i, r in _rows(ws, ids).items()} == before
