"""What people do by hand on a board through the service: a card put where the
pointer is (compose_board's ``at``, people only) and a wire drawn between two
cards (compose_board with edges alone), checked in the store."""

from __future__ import annotations

from typing import Any

import pytest

from layoutkit import Principal, Workspace
from tests.service.helpers import board_cards, err

AGENT = Principal.agent("claude")
SERVICE = Principal.service("ci")
ANA = Principal.user("ana")


@pytest.fixture
def board(ws: Workspace) -> str:
    ws.call("create", {"kind": "board", "slug": "b"})
    return "b"


def note(md: str) -> dict[str, Any]:
    return {"kind": "note", "payload": {"md": md}}


def test_a_persons_card_lands_where_they_put_it_over_others(any_ws: Workspace) -> None:
    """On every storage backend."""
    ws, board = any_ws, "b"
    ws.call("create", {"kind": "board", "slug": board})
    (first,) = ws.call("compose_board", {"board": board, "cards": [note("agent's")]}, AGENT)[
        "cards"
    ]
    spot = {"x": first["x"] + 30, "y": first["y"] + 20}
    out = ws.call("compose_board", {"board": board, "cards": [note("mine")], "at": spot}, ANA)
    (mine,) = out["cards"]
    assert (mine["x"], mine["y"]) == (spot["x"], spot["y"])
    assert out["moved"] == []
    stored = {c["id"]: c for c in board_cards(ws, board)}
    # It overlaps the agent's card, which stayed put: the person chose the spot.
    assert (stored[first["id"]]["x"], stored[first["id"]]["y"]) == (first["x"], first["y"])
    assert stored[mine["id"]]["layer"] == "human"
    with ws.store.read() as tx:
        (record,) = tx.cards_by_id([mine["id"]])
    assert (record.author, record.layer) == ("user:ana", "human")


def test_a_batch_put_by_hand_keeps_its_layout_from_that_point(ws: Workspace, board: str) -> None:
    out = ws.call(
        "compose_board",
        {
            "board": board,
            "cards": [note("a"), note("b")],
            "layout": "row",
            "at": {"x": -500, "y": 7},
        },
        ANA,
    )
    a, b = out["cards"]
    assert (a["x"], a["y"]) == (-500, 7)
    assert b["y"] == 7 and b["x"] > a["x"] + a["w"]


@pytest.mark.parametrize("who", [AGENT, SERVICE], ids=["agent", "service"])
def test_agents_and_services_may_not_put_cards_by_hand(
    ws: Workspace, board: str, who: Principal
) -> None:
    e = err(
        ws, "compose_board", {"board": board, "cards": [note("x")], "at": {"x": 0, "y": 0}}, who
    )
    assert (e.status, e.code, e.body["field"]) == (403, "people_only", "at")
    assert board_cards(ws, board) == []


def test_the_owner_may_put_cards_by_hand(ws: Workspace, board: str) -> None:
    out = ws.call("compose_board", {"board": board, "cards": [note("x")], "at": {"x": 3, "y": 4}})
    assert (out["cards"][0]["x"], out["cards"][0]["y"]) == (3, 4)


@pytest.mark.parametrize(
    ("extra", "field"),
    [
        ({"section": "Later"}, "section"),
        ({"journey": "j"}, "journey"),
        ({"flow": "document"}, "flow"),
        ({"anchorCardId": 1}, "anchorCardId"),
        ({"anchor": {"cardId": 1, "relation": "under"}}, "anchor"),
        ({"createSection": True}, "createSection"),
    ],
)
def test_at_with_placement_intent_is_refused(
    ws: Workspace, board: str, extra: dict[str, Any], field: str
) -> None:
    params = {"board": board, "cards": [note("x")], "at": {"x": 0, "y": 0}, **extra}
    e = err(ws, "compose_board", params, ANA)
    assert (e.status, e.code, e.body["field"]) == (400, "exclusive_params", field)
    assert board_cards(ws, board) == []


def test_at_with_a_card_anchor_is_refused(ws: Workspace, board: str) -> None:
    cards = [note("a") | {"ref": "a"}, note("b") | {"anchor": {"ref": "a", "relation": "under"}}]
    e = err(ws, "compose_board", {"board": board, "cards": cards, "at": {"x": 0, "y": 0}}, ANA)
    assert (e.status, e.code, e.body["field"]) == (400, "exclusive_params", "cards[1].anchor")


def test_at_is_checked_as_a_point(ws: Workspace, board: str) -> None:
    for at in ({"x": 0}, {"x": 0, "y": 1e9}, {"x": 0, "y": 0, "z": 1}):
        e = err(ws, "compose_board", {"board": board, "cards": [note("x")], "at": at}, ANA)
        assert (e.status, e.code) == (400, "invalid_params")


def test_a_person_draws_a_wire_between_two_cards_of_the_board(ws: Workspace, board: str) -> None:
    a, b = ws.call("compose_board", {"board": board, "cards": [note("a"), note("b")]}, AGENT)[
        "cards"
    ]
    out = ws.call(
        "compose_board", {"board": board, "edges": [{"from": a["id"], "to": b["id"]}]}, ANA
    )
    assert out["cards"] == [] and out["edges"][0]["from"] == a["id"]
    with ws.store.read() as tx:
        record = tx.board_by_slug(ws.workspace_id, board)
        assert record is not None
        (edge,) = tx.edges(record.id)
    assert (edge.from_card, edge.to_card, edge.author) == (a["id"], b["id"], "user:ana")


def test_another_workspaces_ids_are_unknown_by_hand_too(ws: Workspace, board: str) -> None:
    # Another workspace of the same store: its ids differ from ours.
    away = Workspace(ws.store, name="away")
    try:
        (ours,) = ws.call("compose_board", {"board": board, "cards": [note("o")]}, ANA)["cards"]
        away.call("create", {"kind": "board", "slug": "b"})
        (theirs,) = away.call("compose_board", {"board": "b", "cards": [note("t")]})["cards"]
        assert theirs["id"] != ours["id"]
        wire = {"board": board, "edges": [{"from": ours["id"], "to": theirs["id"]}]}
        e = err(ws, "compose_board", wire, ANA)
        assert (e.status, e.code, e.body["field"]) == (400, "unknown_card", "edges[0].to")
        # Their board is not ours to put a card on, whatever its slug.
        away.call("create", {"kind": "board", "slug": "theirs"})
        e = err(
            ws,
            "compose_board",
            {"board": "theirs", "cards": [note("x")], "at": {"x": 0, "y": 0}},
            ANA,
        )
        assert (e.status, e.code) == (404, "unknown_board")
        patch = {"patch": [{"id": theirs["id"], "payload": {"md": "mine now"}, "version": 1}]}
        e = err(ws, "update_cards", patch, ANA)
        assert (e.status, e.code) == (404, "unknown_card")
    finally:
        # The other workspace draws faces in the background: done (or dropped)
        # before the test's store closes under it.
        away.drawing.shutdown()
        away.jobs.shutdown()


def test_an_agents_next_batch_goes_around_a_card_put_by_hand(ws: Workspace, board: str) -> None:
    ws.call("compose_board", {"board": board, "cards": [note("a"), note("b")]}, AGENT)
    spot = {"x": 700, "y": 0}
    (mine,) = ws.call("compose_board", {"board": board, "cards": [note("mine")], "at": spot}, ANA)[
        "cards"
    ]
    later = ws.call(
        "compose_board", {"board": board, "cards": [note(f"n{i}") for i in range(6)]}, AGENT
    )["cards"]
    for c in later:
        apart = (
            c["x"] >= mine["x"] + mine["w"]
            or c["x"] + c["w"] <= mine["x"]
            or c["y"] >= mine["y"] + mine["h"]
            or c["y"] + c["h"] <= mine["y"]
        )
        assert apart, (c, mine)
    stored = {c["id"]: c for c in board_cards(ws, board)}
    assert (stored[mine["id"]]["x"], stored[mine["id"]]["y"]) == (700, 0)


def _png(w: int, h: int) -> str:
    import base64
    import io

    from PIL import Image

    buf = io.BytesIO()
    Image.new("RGB", (w, h), (40, 120, 200)).save(buf, "PNG")
    return base64.b64encode(buf.getvalue()).decode()


def test_files_a_person_drops_land_where_they_dropped_them(ws: Workspace, board: str) -> None:
    (first,) = ws.call("compose_board", {"board": board, "cards": [note("agent's")]}, AGENT)[
        "cards"
    ]
    spot = {"x": first["x"] + 10, "y": first["y"] + 10}
    files = [{"name": "shot.png", "data": _png(64, 48)}, {"name": "notes.txt", "data": "aGk="}]
    out = ws.call("upload_files", {"board": board, "files": files, "at": spot}, ANA)
    shot, doc = out["cards"]
    assert (shot["x"], shot["y"]) == (spot["x"], spot["y"])
    assert out["moved"] == []
    stored = {c["id"]: c for c in board_cards(ws, board)}
    assert stored[shot["id"]]["kind"] == "media" and stored[doc["id"]]["kind"] == "file"
    assert stored[shot["id"]]["layer"] == stored[doc["id"]]["layer"] == "human"
    assert (stored[first["id"]]["x"], stored[first["id"]]["y"]) == (first["x"], first["y"])


@pytest.mark.parametrize("who", [AGENT, SERVICE], ids=["agent", "service"])
def test_agents_may_not_drop_files_by_hand(ws: Workspace, board: str, who: Principal) -> None:
    files = [{"name": "shot.png", "data": _png(8, 8)}]
    e = err(ws, "upload_files", {"board": board, "files": files, "at": {"x": 0, "y": 0}}, who)
    assert (e.status, e.code, e.body["field"]) == (403, "people_only", "at")
    assert board_cards(ws, board) == []


@pytest.mark.parametrize(
    ("extra", "field"),
    [
        ({"section": "S"}, "section"),
        ({"createSection": True}, "createSection"),
        ({"anchor": 1}, "anchor"),
    ],
)
def test_dropped_files_take_no_placement_intent_beside_at(
    ws: Workspace, board: str, extra: dict[str, Any], field: str
) -> None:
    files = [{"name": "shot.png", "data": _png(8, 8)}]
    params = {"board": board, "files": files, "at": {"x": 0, "y": 0}, **extra}
    e = err(ws, "upload_files", params, ANA)
    assert (e.status, e.code, e.body["field"]) == (400, "exclusive_params", field)
