"""arrange: every mode and option, persistence on sections, refusals."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from layoutkit import Principal, Workspace
from layoutkit.layout import ARRANGE_MODES
from tests.service.helpers import assert_tidy, board_cards, err

AGENT = Principal.agent("claude")


def text(md: str, ref: str | None = None) -> dict[str, Any]:
    return {"kind": "text", "payload": {"md": md}, **({"ref": ref} if ref else {})}


def step(image: str) -> dict[str, Any]:
    return {"kind": "step", "payload": {"title": image, "image": image}}


def doc(title: str, ref: str) -> dict[str, Any]:
    return {
        "kind": "doc",
        "ref": ref,
        "payload": {"title": title, "elements": [{"kind": "prose", "payload": {"md": title}}]},
    }


@pytest.fixture
def ws_board(ws: Workspace) -> Workspace:
    """A board with free AI cards joined by wires, two sections and two linked docs."""
    ws.call("create", {"kind": "board", "slug": "b"})
    ws.call(
        "compose_board",
        {
            "board": "b",
            "cards": [text(f"card {i} " + "word " * (i * 4), f"c{i}") for i in range(6)],
            "edges": [
                {"from": "c0", "to": "c1"},
                {"from": "c0", "to": "c2"},
                {"from": "c1", "to": "c3"},
            ],
        },
        AGENT,
    )
    ws.call(
        "compose_board",
        {"board": "b", "section": "Before", "cards": [step("a.png"), step("b.png")]},
        AGENT,
    )
    ws.call(
        "compose_board",
        {"board": "b", "section": "After", "cards": [step("b.png"), step("c.png"), text("extra")]},
        AGENT,
    )
    ws.call(
        "compose_board",
        {
            "board": "b",
            "cards": [doc("Spec", "d1"), doc("Plan", "d2")],
            "edges": [{"from": "d1", "to": "d2", "rel": "ref"}],
        },
        AGENT,
    )
    return ws


def cards(ws: Workspace) -> dict[int, dict[str, Any]]:
    return {c["id"]: c for c in board_cards(ws, "b")}


@pytest.mark.parametrize("mode", ARRANGE_MODES)
def test_every_mode_arranges_and_leaves_the_board_tidy(ws_board: Workspace, mode: str) -> None:
    params: dict[str, Any] = {"board": "b", "mode": mode}
    if mode == "compare":
        params["sections"] = ["Before", "After"]
    out = ws_board.call("arrange", params, AGENT)
    assert out["mode"] == mode and out["cards"]
    stored = cards(ws_board)
    for box in out["cards"]:
        assert (box["x"], box["y"]) == (stored[box["id"]]["x"], stored[box["id"]]["y"])
    assert_tidy(ws_board, "b")


def test_column_row_grid_shapes(ws_board: Workspace) -> None:
    col = ws_board.call("arrange", {"board": "b", "mode": "column"}, AGENT)["cards"]
    assert len({c["x"] for c in col}) == 1
    row = ws_board.call("arrange", {"board": "b", "mode": "row"}, AGENT)["cards"]
    assert len({c["y"] for c in row}) == 1
    grid = ws_board.call("arrange", {"board": "b", "mode": "grid", "cols": 2}, AGENT)["cards"]
    assert len({c["x"] for c in grid}) == 2
    auto = ws_board.call("arrange", {"board": "b", "mode": "grid", "cols": "auto"}, AGENT)["cards"]
    assert len({c["x"] for c in auto}) >= 2


def test_gap_spaces_a_column(ws_board: Workspace) -> None:
    col = ws_board.call("arrange", {"board": "b", "mode": "column", "gap": 100}, AGENT)["cards"]
    ordered = sorted(col, key=lambda c: c["y"])
    for a, b in itertools.pairwise(ordered):
        assert b["y"] - (a["y"] + a["h"]) == pytest.approx(100)


def test_align_modes(ws_board: Workspace) -> None:
    left = ws_board.call("arrange", {"board": "b", "mode": "align-left"}, AGENT)["cards"]
    assert len({c["x"] for c in left}) == 1
    ws_board.call("arrange", {"board": "b", "mode": "row"}, AGENT)
    top = ws_board.call("arrange", {"board": "b", "mode": "align-top"}, AGENT)["cards"]
    assert len({c["y"] for c in top}) == 1


def test_distribute_h_spaces_evenly(ws_board: Workspace) -> None:
    ws_board.call("arrange", {"board": "b", "mode": "row", "gap": 10}, AGENT)
    out = ws_board.call("arrange", {"board": "b", "mode": "distribute-h"}, AGENT)["cards"]
    ordered = sorted(out, key=lambda c: c["x"])
    gaps = {round(b["x"] - (a["x"] + a["w"]), 3) for a, b in itertools.pairwise(ordered)}
    assert len(gaps) == 1


def test_scope_ai_leaves_human_cards_in_place(ws_board: Workspace) -> None:
    (human,) = ws_board.call(
        "compose_board", {"board": "b", "cards": [text("mine")]}, Principal.user("ana")
    )["cards"]
    before = cards(ws_board)[human["id"]]
    out = ws_board.call("arrange", {"board": "b", "mode": "column"}, AGENT)
    assert human["id"] not in {c["id"] for c in out["cards"]}
    everything = ws_board.call("arrange", {"board": "b", "mode": "column", "scope": "all"}, AGENT)
    assert human["id"] in {c["id"] for c in everything["cards"]}
    assert before["layer"] == "human"


def test_scope_ids_and_their_container(ws_board: Workspace) -> None:
    some = sorted(cards(ws_board))[:3]
    out = ws_board.call("arrange", {"board": "b", "mode": "row", "scope": some}, AGENT)
    assert {c["id"] for c in out["cards"]} == set(some)
    assert len({c["y"] for c in out["cards"]}) == 1
    section_child = next(c for c in cards(ws_board).values() if c["section"] == "Before")
    e = err(
        ws_board, "arrange", {"board": "b", "mode": "row", "scope": [some[0], section_child["id"]]}
    )
    assert (e.status, e.code) == (400, "invalid_scope")
    e = err(ws_board, "arrange", {"board": "b", "mode": "row", "scope": [99999]})
    assert (e.status, e.code) == (404, "unknown_card")


def test_section_scope_and_save_persist_the_layout(ws_board: Workspace) -> None:
    out = ws_board.call(
        "arrange", {"board": "b", "mode": "column", "scope": "section:After", "save": True}, AGENT
    )
    assert len({c["x"] for c in out["cards"]}) == 1
    assert out["saved"] and out["saved"][0]["layout"]["mode"] == "column"
    sec_id = next(
        s["id"]
        for s in ws_board.call("scrape_board", {"board": "b"})["sections"]
        if s["title"] == "After"
    )
    assert cards(ws_board)[sec_id]["payload"]["layout"]["mode"] == "column"
    # The saved layout reflows later additions.
    added = ws_board.call(
        "compose_board", {"board": "b", "section": "After", "cards": [text("late")]}, AGENT
    )["cards"]
    assert added[0]["x"] == out["cards"][0]["x"]
    assert_tidy(ws_board, "b")


def test_a_saved_auto_grid_stays_patchable_and_passes_on(ws: Workspace) -> None:
    ws.call("create", {"kind": "board", "slug": "j"})
    first = {"board": "j", "journey": "signup", "cards": [text(f"s{i}") for i in range(5)]}
    ws.call("compose_board", first, AGENT)
    out = ws.call(
        "arrange",
        {"board": "j", "mode": "grid", "cols": "auto", "scope": "section:signup", "save": True},
        AGENT,
    )
    assert out["saved"][0]["layout"]["cols"] == "auto"
    section = out["saved"][0]["section"]
    patched = ws.call(
        "update_cards", {"patch": [{"id": section, "payload": {"title": "signup"}}]}, AGENT
    )
    assert patched["cards"][0]["id"] == section
    # The next pass inherits the layout, and is as patchable.
    ws.call("compose_board", {**first, "pass": "next"}, AGENT)
    passes = [s for s in ws.call("scrape_board", {"board": "j"})["sections"] if s["id"] != section]
    (second,) = passes
    on_board = {c["id"]: c for c in board_cards(ws, "j")}
    assert on_board[second["id"]]["payload"]["layout"]["cols"] == "auto"
    ws.call("update_cards", {"patch": [{"id": second["id"], "payload": {"description": "d"}}]})
    assert ws.call(
        "validate", {"card": {"kind": "section", "payload": on_board[section]["payload"]}}
    )["ok"]
    assert_tidy(ws, "j")


def test_sections_parameter(ws_board: Workspace) -> None:
    out = ws_board.call("arrange", {"board": "b", "mode": "row", "sections": ["Before"]}, AGENT)
    assert len(out["cards"]) == 2
    e = err(ws_board, "arrange", {"board": "b", "mode": "row", "sections": ["Before", "After"]})
    assert (e.status, e.code) == (400, "invalid_sections")
    e = err(ws_board, "arrange", {"board": "b", "mode": "compare", "sections": ["Before"]})
    assert (e.status, e.code) == (400, "invalid_sections")
    e = err(
        ws_board, "arrange", {"board": "b", "mode": "row", "sections": ["Before"], "scope": [1]}
    )
    assert (e.status, e.code) == (400, "invalid_sections")
    e = err(ws_board, "arrange", {"board": "b", "mode": "row", "sections": ["Befor"]})
    assert (e.status, e.code) == (404, "unknown_section")
    assert e.body["didYouMean"] == ["Before"]


def test_compare_pairs_two_sections_side_by_side(ws_board: Workspace) -> None:
    ws_board.call(
        "arrange", {"board": "b", "mode": "compare", "sections": ["Before", "After"]}, AGENT
    )
    scraped = ws_board.call("scrape_board", {"board": "b"})
    secs = {s["title"]: s for s in scraped["sections"]}
    assert secs["Before"]["x"] + secs["Before"]["w"] <= secs["After"]["x"]
    assert_tidy(ws_board, "b")


def test_sort_oldest_follows_compose_order(ws_board: Workspace) -> None:
    ws_board.call("arrange", {"board": "b", "mode": "row", "scope": "all"}, AGENT)
    reversed_ids = sorted(
        (c["id"] for c in cards(ws_board).values() if c["parent"] is None), reverse=True
    )
    ws_board.call("arrange", {"board": "b", "mode": "column", "scope": reversed_ids}, AGENT)
    out = ws_board.call(
        "arrange", {"board": "b", "mode": "row", "scope": "all", "sort": "oldest"}, AGENT
    )
    by_x = [c["id"] for c in sorted(out["cards"], key=lambda c: c["x"])]
    assert by_x == sorted(by_x)


@pytest.mark.parametrize("mode", ["journey", "graph"])
def test_tree_modes_cannot_be_saved(ws_board: Workspace, mode: str) -> None:
    e = err(
        ws_board, "arrange", {"board": "b", "mode": mode, "scope": "section:Before", "save": True}
    )
    assert (e.status, e.code) == (400, "not_persistable")


def test_journey_mode_follows_wires_left_to_right(ws_board: Workspace) -> None:
    ws_board.call("arrange", {"board": "b", "mode": "journey"}, AGENT)
    wired = {c["id"]: c for c in cards(ws_board).values()}
    for e in ws_board.call("scrape_board", {"board": "b"})["edges"]:
        if e.get("rel") is None:
            assert wired[e["from"]]["x"] < wired[e["to"]]["x"]


def test_graph_mode_stacks_docs_top_down(ws_board: Workspace) -> None:
    ws_board.call("arrange", {"board": "b", "mode": "graph"}, AGENT)
    wires = [
        e for e in ws_board.call("scrape_board", {"board": "b"})["edges"] if e.get("rel") == "ref"
    ]
    stored = cards(ws_board)
    for e in wires:
        assert stored[e["from"]]["y"] < stored[e["to"]]["y"]


def test_unknown_mode_lists_the_valid_ones(ws_board: Workspace) -> None:
    e = err(ws_board, "arrange", {"board": "b", "mode": "spiral"})
    assert (e.status, e.code) == (400, "unknown_mode")
    assert e.body["allowed"] == list(ARRANGE_MODES)


@pytest.mark.parametrize(
    ("extra", "code"),
    [
        ({"sort": "newest"}, "invalid_sort"),
        ({"scope": "mine"}, "invalid_params"),
        ({"cols": 0}, "invalid_params"),
    ],
)
def test_bad_options(ws_board: Workspace, extra: dict[str, Any], code: str) -> None:
    e = err(ws_board, "arrange", {"board": "b", "mode": "grid", **extra})
    assert (e.status, e.code) == (400, code)


def test_a_refused_arrange_changes_nothing(ws_board: Workspace) -> None:
    before = cards(ws_board)
    err(
        ws_board,
        "arrange",
        {"board": "b", "mode": "journey", "save": True, "scope": "section:After"},
    )
    err(ws_board, "arrange", {"board": "b", "mode": "row", "scope": [min(before), 99999]})
    assert cards(ws_board) == before


def test_unknown_board_is_404(ws_board: Workspace) -> None:
    e = err(ws_board, "arrange", {"board": "bb", "mode": "row"})
    assert (e.status, e.code) == (404, "unknown_board")
    assert e.body["didYouMean"] == ["b"]


def test_share_links_cannot_arrange(ws_board: Workspace) -> None:
    e = err(ws_board, "arrange", {"board": "b", "mode": "row"}, Principal.share("b", "annotate"))
    assert e.status == 403
