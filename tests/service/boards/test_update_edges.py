"""update_edges and get kind edges: a wire's label and relation changed, wires removed
(someone else's through the confirm handshake), the board's wire counter named for
concurrency, and what agents read afterwards (scrape_board, board_changes)."""

from __future__ import annotations

import itertools
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from layoutkit import Principal, Workspace
from tests.service.helpers import err

AGENT = Principal.agent("claude")
ANA = Principal.user("ana")
BEA = Principal.user("bea")
BOARD = "w"


def note(ref: str) -> dict[str, Any]:
    return {"kind": "note", "ref": ref, "payload": {"md": f"note {ref}"}}


def _wired(ws: Workspace, who: Principal = ANA, board: str = BOARD) -> tuple[int, int, int]:
    """Two cards by an agent and one wire between them drawn by ``who``."""
    ws.call("create", {"kind": "board", "slug": board})
    a, b = ws.call("compose_board", {"board": board, "cards": [note("a"), note("b")]}, AGENT)[
        "cards"
    ]
    (edge,) = ws.call(
        "compose_board", {"board": board, "edges": [{"from": a["id"], "to": b["id"]}]}, who
    )["edges"]
    return a["id"], b["id"], edge["id"]


def _edges(ws: Workspace, board: str = BOARD) -> list[dict[str, Any]]:
    return ws.call("scrape_board", {"board": board})["edges"]


def test_a_person_labels_their_wire_and_gives_it_a_relation(any_ws: Workspace) -> None:
    """On every storage backend; scrape_board and board_changes show it."""
    ws = any_ws
    a, b, edge = _wired(ws)
    rev = ws.call("board_outline", {"board": BOARD})["rev"]
    out = ws.call(
        "update_edges",
        {"board": BOARD, "set": [{"id": edge, "label": "needs", "rel": "depends-on"}]},
        ANA,
    )
    assert out["edges"] == [
        {
            "id": edge,
            "from": a,
            "to": b,
            "label": "needs",
            "rel": "depends-on",
            "author": "user:ana",
        }
    ]
    assert _edges(ws) == [{"id": edge, "from": a, "to": b, "rel": "depends-on", "label": "needs"}]
    changes = ws.call("board_changes", {"board": BOARD, "since": rev})
    assert changes["edges"] is True and changes["edgesRev"] == out["edgesRev"] > rev
    # An empty string clears one; the other stays.
    ws.call("update_edges", {"board": BOARD, "set": [{"id": edge, "label": ""}]}, ANA)
    assert _edges(ws) == [{"id": edge, "from": a, "to": b, "rel": "depends-on"}]
    with ws.store.read() as tx:
        board = tx.board_by_slug(ws.workspace_id, BOARD)
        assert board is not None
        events = [e for e in tx.events(board_id=board.id) if e.action == "edges.update"]
    assert [e.detail["set"] for e in events] == [[edge], [edge]]
    assert events[0].principal == "user:ana"


def test_get_edges_says_who_drew_each_and_who_may_change_it(ws: Workspace) -> None:
    _, _, edge = _wired(ws)
    mine = ws.call("get", {"kind": "edges", "board": BOARD}, ANA)
    assert mine["edgesRev"] == ws.call("board_outline", {"board": BOARD})["edgesRev"]
    assert [(e["id"], e["author"], e["mayChange"]) for e in mine["edges"]] == [
        (edge, "user:ana", True)
    ]
    assert ws.call("get", {"kind": "edges", "board": BOARD}, BEA)["edges"][0]["mayChange"] is False
    assert ws.call("get", {"kind": "edges", "board": BOARD})["edges"][0]["mayChange"] is True
    some = ws.call("get", {"kind": "edges", "board": BOARD, "ids": [edge, 999999]}, ANA)
    assert [e["id"] for e in some["edges"]] == [edge] and some["missing"] == [999999]


def test_removing_my_own_wire_is_quiet_and_board_changes_says_the_wires_changed(
    ws: Workspace,
) -> None:
    _, _, edge = _wired(ws)
    rev = ws.call("board_outline", {"board": BOARD})["rev"]
    out = ws.call("update_edges", {"board": BOARD, "remove": [edge]}, ANA)
    assert out["removed"] == [edge] and _edges(ws) == []
    assert ws.call("board_changes", {"board": BOARD, "since": rev})["edges"] is True
    assert ws.call("board_outline", {"board": BOARD})["wires"] == []


def test_removing_someone_elses_wire_runs_the_confirm_handshake(ws: Workspace) -> None:
    _, _, edge = _wired(ws, who=AGENT)
    e = err(ws, "update_edges", {"board": BOARD, "remove": [edge]}, ANA)
    assert (e.status, e.code) == (409, "needs_confirm")
    assert "wire(s) belong to someone else" in e.message
    assert [(p["id"], p["author"]) for p in e.body["preview"]] == [(edge, "agent:claude")]
    token = e.body["token"]
    assert len(_edges(ws)) == 1
    # A reason is needed, the token is for these wires and this caller only.
    e = err(ws, "update_edges", {"board": BOARD, "remove": [edge], "confirm": token}, ANA)
    assert (e.status, e.code, e.body["field"]) == (400, "invalid_reason", "reason")
    e = err(
        ws,
        "update_edges",
        {"board": BOARD, "remove": [edge], "confirm": token, "reason": "x" * 30},
        BEA,
    )
    assert e.code == "needs_confirm"
    ws.call(
        "update_edges",
        {"board": BOARD, "remove": [edge], "confirm": token, "reason": "it pointed the wrong way"},
        ANA,
    )
    assert _edges(ws) == []
    with ws.store.read() as tx:
        board = tx.board_by_slug(ws.workspace_id, BOARD)
        assert board is not None
        (event,) = [x for x in tx.events(board_id=board.id) if x.action == "edges.update"]
    assert event.detail == {"set": [], "removed": [edge], "reason": "it pointed the wrong way"}


def test_a_token_for_removing_cards_does_not_remove_wires(ws: Workspace) -> None:
    _, _, edge = _wired(ws, who=AGENT)
    # A card with the wire's id, so the token names the very same ids.
    with ws.store.read() as tx:
        assert tx.card(edge) is not None
    card_token = err(ws, "update_cards", {"remove": [edge]}, ANA).body["token"]
    e = err(
        ws,
        "update_edges",
        {"board": BOARD, "remove": [edge], "confirm": card_token, "reason": "x" * 30},
        ANA,
    )
    assert e.code == "needs_confirm" and "for other wires" in e.message
    assert len(_edges(ws)) == 1


def test_only_the_author_or_the_owner_changes_a_wires_label(ws: Workspace) -> None:
    _, _, edge = _wired(ws, who=AGENT)
    e = err(ws, "update_edges", {"board": BOARD, "set": [{"id": edge, "label": "x"}]}, ANA)
    assert (e.status, e.code, e.body["field"]) == (403, "not_your_wire", "set[0].id")
    ws.call("update_edges", {"board": BOARD, "set": [{"id": edge, "label": "by agent"}]}, AGENT)
    ws.call("update_edges", {"board": BOARD, "set": [{"id": edge, "rel": "blocks"}]})
    (stored,) = _edges(ws)
    assert (stored["label"], stored["rel"]) == ("by agent", "blocks")


def test_a_write_from_a_stale_wire_counter_changes_nothing(ws: Workspace) -> None:
    a, b, edge = _wired(ws)
    seen = ws.call("get", {"kind": "edges", "board": BOARD}, ANA)["edgesRev"]
    ws.call("update_edges", {"board": BOARD, "set": [{"id": edge, "label": "first"}]}, ANA)
    e = err(
        ws,
        "update_edges",
        {"board": BOARD, "set": [{"id": edge, "label": "second"}], "edgesRev": seen},
        ANA,
    )
    assert (e.status, e.code, e.body["field"]) == (409, "stale_edges", "edgesRev")
    assert e.body["edges"] == [
        {"id": edge, "from": a, "to": b, "label": "first", "author": "user:ana"}
    ]
    assert _edges(ws)[0]["label"] == "first"
    fresh = e.body["edgesRev"]
    ws.call(
        "update_edges",
        {"board": BOARD, "set": [{"id": edge, "label": "second"}], "edgesRev": fresh},
        ANA,
    )
    assert _edges(ws)[0]["label"] == "second"


def test_an_unknown_wire_is_404_with_the_field_path(ws: Workspace) -> None:
    _, _, edge = _wired(ws)
    e = err(ws, "update_edges", {"board": BOARD, "set": [{"id": edge}, {"id": 987654}]}, ANA)
    assert (e.status, e.code, e.body["field"], e.body["id"]) == (
        404,
        "unknown_edge",
        "set[1].id",
        987654,
    )
    e = err(ws, "update_edges", {"board": BOARD, "remove": [987654]}, ANA)
    assert (e.status, e.code, e.body["field"]) == (404, "unknown_edge", "remove[0]")
    # A wire of another board of the workspace is not on this one.
    _, _, elsewhere = _wired(ws, board="other")
    e = err(ws, "update_edges", {"board": BOARD, "remove": [elsewhere]}, ANA)
    assert (e.code, e.body["field"]) == ("unknown_edge", "remove[0]")
    assert len(_edges(ws, "other")) == 1


def test_a_wire_whose_card_is_in_the_trash_is_not_on_the_board(ws: Workspace) -> None:
    a, _, edge = _wired(ws)
    token = err(ws, "update_cards", {"remove": [a]}).body["token"]  # half the board
    ws.call("update_cards", {"remove": [a], "confirm": token, "reason": "x" * 20})
    e = err(ws, "update_edges", {"board": BOARD, "set": [{"id": edge, "label": "x"}]}, ANA)
    assert e.code == "unknown_edge"


@pytest.mark.parametrize(
    ("params", "code", "field"),
    [
        ({}, "empty_update", "set"),
        ({"set": [{"id": 1, "label": "x" * 501}]}, "invalid_params", "set[0].label"),
        ({"set": [{"id": 1, "rel": "r" * 61}]}, "invalid_params", "set[0].rel"),
        ({"set": [{"id": 1, "from": 2}]}, "invalid_params", "set[0].from"),
        ({"remove": list(range(1, 5003))}, "invalid_params", "remove"),
        ({"edgesRev": -1, "remove": [1]}, "invalid_params", "edgesRev"),
    ],
)
def test_limits_and_shapes(ws: Workspace, params: dict[str, Any], code: str, field: str) -> None:
    _wired(ws)
    e = err(ws, "update_edges", {"board": BOARD, **params}, ANA)
    assert (e.status, e.code, e.body["field"]) == (400, code, field)


def test_a_wire_named_twice_is_refused(ws: Workspace) -> None:
    _, _, edge = _wired(ws)
    e = err(ws, "update_edges", {"board": BOARD, "set": [{"id": edge}], "remove": [edge]}, ANA)
    assert (e.status, e.code, e.body["field"]) == (400, "duplicate_edge", "remove[0]")
    assert len(_edges(ws)) == 1


def test_more_than_25_of_my_own_wires_need_confirmation(ws: Workspace) -> None:
    ws.call("create", {"kind": "board", "slug": BOARD})
    cards = ws.call(
        "compose_board", {"board": BOARD, "cards": [note(str(i)) for i in range(27)]}, ANA
    )["cards"]
    edges = ws.call(
        "compose_board",
        {
            "board": BOARD,
            "edges": [{"from": c["id"], "to": d["id"]} for c, d in itertools.pairwise(cards)],
        },
        ANA,
    )["edges"]
    ids = [e["id"] for e in edges]
    assert len(ids) == 26
    e = err(ws, "update_edges", {"board": BOARD, "remove": ids}, ANA)
    assert e.code == "needs_confirm" and "more than 25 wires" in e.message
    ws.call("update_edges", {"board": BOARD, "remove": ids[:25]}, ANA)
    assert len(_edges(ws)) == 1


@pytest.mark.parametrize("mode", ["view", "annotate"])
def test_share_links_may_read_wires_but_not_change_them(ws: Workspace, mode: str) -> None:
    _, _, edge = _wired(ws)
    link = Principal.share(BOARD, mode)
    got = ws.call("get", {"kind": "edges", "board": BOARD}, link)["edges"]
    assert [(e["id"], e["mayChange"]) for e in got] == [(edge, False)]
    e = err(ws, "update_edges", {"board": BOARD, "remove": [edge]}, link)
    assert e.status == 403
    e = err(ws, "update_edges", {"board": BOARD, "set": [{"id": edge, "label": "x"}]}, link)
    assert e.status == 403
    assert len(_edges(ws)) == 1


@pytest.fixture
def pair(any_ws: Workspace) -> Iterator[tuple[Workspace, Workspace]]:
    """Home and away on one store, a multi-workspace deployment."""
    any_ws.multi_workspace = True
    away = Workspace(any_ws.store, name=f"away-{uuid.uuid4().hex[:8]}", multi_workspace=True)
    try:
        yield any_ws, away
    finally:
        away.jobs.shutdown()
        away.drawing.shutdown()


def test_another_workspaces_board_and_wires_are_not_found(
    pair: tuple[Workspace, Workspace],
) -> None:
    home, away = pair
    _, _, theirs = _wired(away, board="theirs")
    _wired(home, board="mine")
    e = err(home, "update_edges", {"board": "theirs", "remove": [theirs]})
    assert (e.status, e.code) == (404, "unknown_board")
    e = err(home, "update_edges", {"board": "mine", "set": [{"id": theirs, "label": "x"}]})
    assert (e.status, e.code, e.body["field"]) == (404, "unknown_edge", "set[0].id")
    # A stale counter on their wire is 404 too, never 409 with their wire.
    e = err(home, "update_edges", {"board": "mine", "remove": [theirs], "edgesRev": 0})
    assert (e.status, e.code) == (404, "unknown_edge")
    e = err(home, "get", {"kind": "edges", "board": "theirs"})
    assert e.status == 404
    assert len(_edges(away, "theirs")) == 1
