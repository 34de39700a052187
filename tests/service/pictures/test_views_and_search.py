"""render_board, board_stamp, refresh_card, render_pages, search and update kind board."""

from __future__ import annotations

import base64

import pytest

from layoutkit import ServiceError, Workspace


@pytest.fixture
def board(ws: Workspace) -> Workspace:
    ws.call("create", {"kind": "board", "slug": "v", "tags": ["Roadmap"]})
    ws.call(
        "compose_board",
        {
            "board": "v",
            "cards": [
                {"kind": "text", "payload": {"md": "Launch the café menu"}},
                {
                    "kind": "diagram",
                    "payload": {"title": "Flow", "diagram_text": "graph LR\n  A-->B"},
                },
            ],
        },
    )
    return ws


def test_render_board_svg_and_png(board: Workspace) -> None:
    svg = board.call("render_board", {"board": "v"})
    assert svg["format"] == "svg" and svg["svg"].startswith("<svg") and svg["cards"] == 2
    png = base64.b64decode(
        board.call("render_board", {"board": "v", "format": "png"})["image"]["data"]
    )
    assert png.startswith(b"\x89PNG")


def test_board_stamp_changes_with_the_board(board: Workspace) -> None:
    before = board.call("board_stamp", {"board": "v"})["stamp"]
    assert board.call("board_stamp", {"board": "v"})["stamp"] == before
    board.call("compose_board", {"board": "v", "cards": [{"kind": "note", "payload": {"md": "n"}}]})
    assert board.call("board_stamp", {"board": "v"})["stamp"] != before


def test_refresh_card_relays_a_diagram(board: Workspace) -> None:
    diagram = next(
        c for c in board.call("scrape_board", {"board": "v"})["cards"] if c["kind"] == "diagram"
    )
    out = board.call("refresh_card", {"id": diagram["id"]})
    assert out["version"] == diagram["version"] + 1
    text = next(
        c for c in board.call("scrape_board", {"board": "v"})["cards"] if c["kind"] == "text"
    )
    with pytest.raises(ServiceError) as exc:
        board.call("refresh_card", {"id": text["id"]})
    assert (exc.value.status, exc.value.code) == (400, "not_refreshable")
    with pytest.raises(ServiceError) as exc:
        board.call("refresh_card", {"id": 999999})
    assert exc.value.status == 404


def test_render_pages_needs_a_pdf_card(board: Workspace) -> None:
    with pytest.raises(ServiceError) as exc:
        board.call("render_pages", {"id": 1})
    assert (exc.value.status, exc.value.code) == (400, "not_a_pdf")


def _hits(ws: Workspace, params: dict) -> list[dict]:
    groups = ws.call("search", params)["groups"]
    return [hit for rows in groups.values() for hit in rows]


def test_search_folds_case_and_diacritics(board: Workspace) -> None:
    hits = _hits(board, {"q": "CAFE menu"})
    assert [h["kind"] for h in hits] == ["card"]
    assert _hits(board, {"q": "roadmap", "kind": "board"})[0]["board"] == "v"
    assert _hits(board, {"q": "nothing-like-this"}) == []


def test_search_matches_text_in_scripts_without_ascii_letters(board: Workspace) -> None:
    # Folding once dropped every non-ASCII letter, so such a query matched every card.
    board.call(
        "compose_board", {"board": "v", "cards": [{"kind": "note", "payload": {"md": "東京 plan"}}]}
    )
    hits = _hits(board, {"q": "東京", "kind": "card"})
    assert len(hits) == 1
    assert _hits(board, {"q": "大阪", "kind": "card"}) == []


def test_search_resolve_reads_a_task_reference_not_a_board(board: Workspace) -> None:
    # Rule 5: the resolver names tasks (tests/service/tasks/test_resolve.py); a board slug is none.
    task = board.call("create", {"kind": "task", "title": "Launch the menu"})["task"]
    assert board.call("search", {"q": "v", "mode": "resolve"})["verdict"] == "none"
    exact = board.call("search", {"q": "launch the menu", "mode": "resolve"})
    assert (exact["verdict"], exact["candidates"][0]["id"]) == ("exact", task["id"])


def test_update_kind_board_patches_meta(board: Workspace) -> None:
    out = board.call("update", {"kind": "board", "board": "v", "archived": True})
    assert out["board"]["archived"] is True
    with pytest.raises(ServiceError) as exc:
        board.call("update", {"kind": "board", "board": "v", "bogus": 1})
    assert exc.value.body["field"] == "bogus"
