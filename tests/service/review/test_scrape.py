"""scrape_board: card shape, sections, isolation, diff, pages, lanes and digests."""

from __future__ import annotations

from typing import Any

import pytest

from layoutkit import Principal, Workspace
from tests.service.helpers import err

CARD_KEYS = {"id", "kind", "payload", "x", "y", "w", "h", "layer", "version", "parent", "section"}


def text(md: str, ref: str | None = None) -> dict[str, Any]:
    return {"kind": "text", "payload": {"md": md}, **({"ref": ref} if ref else {})}


def step(image: str, title: str | None = None) -> dict[str, Any]:
    return {"kind": "step", "payload": {"title": title or image, "image": image}}


@pytest.fixture
def board(ws: Workspace) -> str:
    ws.call("create", {"kind": "board", "slug": "b"})
    return "b"


def compose(ws: Workspace, **params: Any) -> dict[str, Any]:
    return ws.call("compose_board", {"board": "b", **params}, Principal.agent("claude"))


def test_every_card_has_the_documented_shape(ws: Workspace, board: str) -> None:
    compose(ws, cards=[text("free")])
    compose(ws, section="S", cards=[text("in section")])
    out = ws.call("scrape_board", {"board": board})
    assert out["board"]["slug"] == board
    for card in out["cards"]:
        assert set(card) == CARD_KEYS
        assert card["layer"] == "ai" and card["version"] == 1


def test_parent_and_section_of_nested_cards(ws: Workspace, board: str) -> None:
    out = compose(
        ws,
        section="Outer",
        cards=[
            {"kind": "cluster", "ref": "g", "payload": {"title": "Group"}, "children": ["t"]},
            text("deep", "t"),
        ],
    )
    cluster, deep = out["cards"]
    sec = cluster["container"]
    (free,) = compose(ws, cards=[text("free")])["cards"]
    cards = {c["id"]: c for c in ws.call("scrape_board", {"board": board})["cards"]}
    assert (cards[deep["id"]]["parent"], cards[deep["id"]]["section"]) == (cluster["id"], "Outer")
    assert (cards[cluster["id"]]["parent"], cards[cluster["id"]]["section"]) == (sec, "Outer")
    assert (cards[sec]["parent"], cards[sec]["section"]) == (None, None)
    assert (cards[free["id"]]["parent"], cards[free["id"]]["section"]) == (None, None)


def test_removed_cards_are_not_scraped(ws: Workspace, board: str) -> None:
    a, b = compose(ws, cards=[text("a"), text("b")])["cards"]
    compose(ws, cards=[text(f"f{i}") for i in range(6)])
    ws.call("update_cards", {"remove": [a["id"]]}, Principal.agent("claude"))
    ids = {c["id"] for c in ws.call("scrape_board", {"board": board})["cards"]}
    assert a["id"] not in ids and b["id"] in ids


def test_section_isolates_one_section(ws: Workspace, board: str) -> None:
    inside = compose(
        ws, section="Mine", cards=[text("a", "a"), text("b", "b")], edges=[{"from": "a", "to": "b"}]
    )
    outside = compose(
        ws, cards=[text("c", "c")], edges=[{"from": "c", "to": inside["cards"][0]["id"]}]
    )
    out = ws.call("scrape_board", {"board": board, "section": "Mine"})
    sec = inside["cards"][0]["container"]
    assert [c["id"] for c in out["cards"]] == [sec, *(c["id"] for c in inside["cards"])]
    assert [(e["from"], e["to"]) for e in out["edges"]] == [
        (inside["cards"][0]["id"], inside["cards"][1]["id"])
    ]
    assert outside["cards"][0]["id"] not in {c["id"] for c in out["cards"]}
    # A case-insensitive name still finds it; an unknown one is 404 with suggestions.
    assert ws.call("scrape_board", {"board": board, "section": "mine"})["cards"][0]["id"] == sec
    e = err(ws, "scrape_board", {"board": board, "section": "Mien"})
    assert (e.status, e.code) == (404, "unknown_section")
    assert "Mine" in e.body["didYouMean"]


def test_section_isolates_one_journey_pass(ws: Workspace, board: str) -> None:
    compose(ws, journey="login", cards=[step("a.png")])
    second = compose(ws, journey="login", **{"pass": "next"}, cards=[step("b.png"), step("c.png")])
    title = second["sections"][0]["title"]
    out = ws.call("scrape_board", {"board": board, "section": title})
    assert [c["kind"] for c in out["cards"]] == ["section", "step", "step"]


def test_diff_pairs_by_file_then_reading_order(ws: Workspace, board: str) -> None:
    a = compose(
        ws,
        section="Old",
        layout="row",
        cards=[step("home.png"), step("cart.png"), step("pay.png"), step("x.png")],
    )["cards"]
    b = compose(
        ws,
        section="New",
        layout="row",
        cards=[step("cart.png"), step("fresh.png"), step("home.png")],
    )["cards"]
    out = ws.call("scrape_board", {"board": board, "diff": ["Old", "New"]})["diff"]
    assert (out["a"], out["b"]) == ("Old", "New")
    by_file = [(p["a"], p["b"]) for p in out["pairs"] if p["by"] == "file"]
    assert sorted(by_file) == sorted([(a[0]["id"], b[2]["id"]), (a[1]["id"], b[0]["id"])])
    by_order = [(p["a"], p["b"]) for p in out["pairs"] if p["by"] == "order"]
    assert by_order == [(a[2]["id"], b[1]["id"])]  # the first leftovers in reading order
    assert out["unpairedA"] == [a[3]["id"]]
    assert out["unpairedB"] == []


def test_diff_and_section_are_exclusive(ws: Workspace, board: str) -> None:
    compose(ws, section="Old", cards=[step("a.png")])
    compose(ws, section="New", cards=[step("a.png")])
    e = err(ws, "scrape_board", {"board": board, "section": "Old", "diff": ["Old", "New"]})
    assert (e.status, e.code) == (400, "exclusive_params")
    e = err(ws, "scrape_board", {"board": board, "diff": ["Old"]})
    assert (e.status, e.code) == (400, "invalid_params")
    e = err(ws, "scrape_board", {"board": board, "diff": ["Old", "Nope"]})
    assert (e.status, e.code) == (404, "unknown_section")


def test_pages_preview_and_full(ws: Workspace, board: str) -> None:
    md = "# Guide\n\n" + "A sentence of the guide. " * 100
    (page,) = compose(ws, cards=[{"kind": "page", "payload": {"md": md}}])["cards"]
    preview = next(
        c for c in ws.call("scrape_board", {"board": board})["cards"] if c["id"] == page["id"]
    )
    assert preview["payload"]["truncated"] is True
    assert len(preview["payload"]["md"]) < len(md) and md.startswith(preview["payload"]["md"])
    full = next(
        c
        for c in ws.call("scrape_board", {"board": board, "pages": "full"})["cards"]
        if c["id"] == page["id"]
    )
    assert full["payload"]["md"] == md


def test_notes_flows_and_questions_digest(ws: Workspace, board: str) -> None:
    compose(
        ws,
        cards=[
            text("a", "a"),
            text("b", "b"),
            text("c", "c"),
            {"kind": "note", "ref": "n", "payload": {"md": "remember this"}},
        ],
        edges=[
            {"from": "a", "to": "b"},
            {"from": "b", "to": "c"},
            {"from": "a", "to": "n", "rel": "see"},
        ],
        questions=[{"prompt": "One?", "options": ["x"]}, {"prompt": "Two?", "kind": "text"}],
    )
    out = ws.call("scrape_board", {"board": board})
    ids = {c["payload"].get("md"): c["id"] for c in out["cards"]}
    assert out["notes"] == [{"id": ids["remember this"], "text": "remember this"}]
    assert out["flows"] == [[ids["a"], ids["b"], ids["c"]]]
    digest = out["questions"]
    assert (digest["staged"], digest["answered"], digest["released"]) == (2, 0, 0)
    assert [q["prompt"] for q in digest["items"]] == ["One?", "Two?"]


def test_sections_and_journeys_map(ws: Workspace, board: str) -> None:
    compose(ws, section="Plain", cards=[text("p")])
    compose(ws, journey="signup", cards=[step("1.png")])
    compose(ws, journey="signup", **{"pass": "next"}, cards=[step("2.png"), step("3.png")])
    out = ws.call("scrape_board", {"board": board})
    assert next((s["title"], s["cards"]) for s in out["sections"]) == ("Plain", 1)
    assert [s.get("pass") for s in out["sections"]] == [None, 1, 2]
    assert [j["pass"] for j in out["journeys"]["signup"]] == [1, 2]
    assert list(out["journeys"]) == ["signup"]


def test_lanes_on_run_boards_and_siblings_on_lanes(ws: Workspace) -> None:
    ws.call(
        "create",
        {
            "kind": "board",
            "slug": "run-1",
            "lanes": [{"key": "web"}, {"key": "ios", "label": "iOS"}],
        },
    )
    run = ws.call("scrape_board", {"board": "run-1"})
    assert [(lane["key"], lane["slug"], lane["openAnnotations"]) for lane in run["lanes"]] == [
        ("web", "run-1-web", 0),
        ("ios", "run-1-ios", 0),
    ]
    lane = ws.call("scrape_board", {"board": "run-1-ios"})
    assert [(s["key"], s["active"]) for s in lane["siblings"]] == [("web", False), ("ios", True)]
    assert "lanes" not in lane


def test_plain_boards_have_no_lanes_or_siblings(ws: Workspace, board: str) -> None:
    out = ws.call("scrape_board", {"board": board})
    assert "lanes" not in out and "siblings" not in out


def test_unknown_board_is_404_with_did_you_mean(ws: Workspace, board: str) -> None:
    ws.call("create", {"kind": "board", "slug": "roadmap"})
    e = err(ws, "scrape_board", {"board": "roadmpa"})
    assert (e.status, e.code) == (404, "unknown_board")
    assert e.body["didYouMean"] == ["roadmap"]


def test_share_links_read_only_their_board(ws: Workspace, board: str) -> None:
    ws.call("create", {"kind": "board", "slug": "other"})
    compose(ws, cards=[text("a")])
    assert ws.call("scrape_board", {"board": board}, Principal.share(board))["cards"]
    e = err(ws, "scrape_board", {"board": "other"}, Principal.share(board))
    assert e.status == 403


def test_scrape_and_list_sections_report_a_section_alike(ws: Workspace, board: str) -> None:
    compose(ws, section="Notes", createSection=True, cards=[text("a"), text("b")])
    compose(ws, journey="signup", cards=[step("s.png", "Start")])
    scraped = ws.call("scrape_board", {"board": board})["sections"]
    listed = ws.call("list", {"kind": "section", "board": board})["sections"]
    assert [s["cards"] for s in scraped] == [2, 1]
    assert [s.pop("children") for s in listed] == [2, 1]
    assert scraped == listed
    assert [s.get("journey") for s in listed] == [None, "signup"]
    assert set(listed[0]) == {"id", "title", "x", "y", "w", "h", "cards"}
    assert listed[1]["title"] and "pass" in listed[1]
