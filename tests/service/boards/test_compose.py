"""compose_board: every parameter, the receipt, refusals and request keys."""

from __future__ import annotations

import json
from typing import Any

import pytest

from layoutkit import Principal, Workspace
from tests.service.helpers import assert_tidy, board_cards, err, rect

RECEIPT_KEYS = {"id", "kind", "x", "y", "w", "h", "placedAs", "container"}


def text(md: str, ref: str | None = None, **extra: Any) -> dict[str, Any]:
    card: dict[str, Any] = {"kind": "text", "payload": {"md": md}}
    if ref:
        card["ref"] = ref
    return {**card, **extra}


def note(md: str, ref: str | None = None) -> dict[str, Any]:
    card: dict[str, Any] = {"kind": "note", "payload": {"md": md}}
    if ref:
        card["ref"] = ref
    return card


@pytest.fixture
def board(ws: Workspace) -> str:
    ws.call("create", {"kind": "board", "slug": "plan"})
    return "plan"


def compose(ws: Workspace, principal: Principal | None = None, **params: Any) -> dict[str, Any]:
    return ws.call("compose_board", {"board": "plan", **params}, principal)


# --------------------------------------------------------------------- receipt


def test_receipt_lists_every_entry_in_batch_order(ws: Workspace, board: str) -> None:
    out = compose(ws, cards=[text("one", "a"), note("two"), text("three", "c")])
    assert out["board"] == "plan"
    assert [c["kind"] for c in out["cards"]] == ["text", "note", "text"]
    for entry in out["cards"]:
        assert RECEIPT_KEYS <= set(entry) <= RECEIPT_KEYS | {"ref"}
        assert entry["placedAs"] == "free"
        assert entry["container"] is None
        assert entry["w"] > 0 and entry["h"] > 0
    assert [c.get("ref") for c in out["cards"]] == ["a", None, "c"]
    assert len({c["id"] for c in out["cards"]}) == 3
    assert set(out) >= {"cards", "edges", "questions", "warnings"}
    assert out["edges"] == [] and out["questions"] == [] and out["warnings"] == []


def test_receipt_boxes_are_what_the_board_stores(ws: Workspace, board: str) -> None:
    out = compose(ws, cards=[text("one"), note("two"), text("x " * 60)])
    stored = {c["id"]: c for c in board_cards(ws, board)}
    for entry in out["cards"]:
        card = stored[entry["id"]]
        assert (card["x"], card["y"], card["w"], card["h"]) == (
            entry["x"],
            entry["y"],
            entry["w"],
            entry["h"],
        )
        assert card["version"] == 1


def test_children_nest_under_their_frame_in_listed_order(ws: Workspace, board: str) -> None:
    out = compose(
        ws,
        cards=[
            {
                "kind": "cluster",
                "ref": "group",
                "payload": {"title": "Options", "layout": {"mode": "row"}},
                "children": ["b", "a"],  # overrides array order
            },
            text("first in the array", "a"),
            text("second in the array", "b"),
        ],
    )
    frame, a, b = out["cards"]
    assert (a["placedAs"], b["placedAs"]) == ("child", "child")
    assert a["container"] == b["container"] == frame["id"]
    assert b["x"] < a["x"]  # children order wins over array order
    assert rect(frame).contains(rect(a)) and rect(frame).contains(rect(b))
    scraped = {c["id"]: c for c in board_cards(ws, board)}
    assert scraped[a["id"]]["parent"] == frame["id"]
    assert scraped[frame["id"]]["parent"] is None


def test_nested_frames_up_to_depth_five(ws: Workspace, board: str) -> None:
    def chain(depth: int) -> list[dict[str, Any]]:
        cards = [
            {
                "kind": "cluster",
                "ref": f"f{i}",
                "payload": {"title": f"L{i}"},
                "children": [f"f{i + 1}"],
            }
            for i in range(depth - 1)
        ]
        cards.append(
            {
                "kind": "cluster",
                "ref": f"f{depth - 1}",
                "payload": {"title": "leaf"},
                "children": ["t"],
            }
        )
        return [*cards, text("deep", "t")]

    out = compose(ws, cards=chain(5))
    assert out["cards"][-1]["container"] == out["cards"][-2]["id"]
    assert_tidy(ws, board)
    e = err(ws, "compose_board", {"board": board, "cards": chain(6)})
    assert (e.status, e.code) == (400, "nesting_too_deep")
    assert "index" in e.body


# --------------------------------------------------------------------- refusals


def test_unknown_kind_fails_the_whole_batch_with_allowed_kinds(ws: Workspace, board: str) -> None:
    e = err(
        ws,
        "compose_board",
        {"board": board, "cards": [text("fine"), {"kind": "txt", "payload": {}}]},
    )
    assert (e.status, e.code, e.body["index"]) == (400, "unknown_kind", 1)
    assert "text" in e.body["allowed"] and "note" in e.body["allowed"]
    assert board_cards(ws, board) == []


@pytest.mark.parametrize(("retired", "replacement"), [("viz", "chart"), ("wireframe", "mockup")])
def test_retired_kind_names_its_replacement(
    ws: Workspace, board: str, retired: str, replacement: str
) -> None:
    e = err(ws, "compose_board", {"board": board, "cards": [{"kind": retired, "payload": {}}]})
    assert (e.status, e.code, e.body["index"]) == (400, "retired_kind", 0)
    assert e.body["replacement"] == replacement


def test_payload_mismatch_names_index_and_findings(ws: Workspace, board: str) -> None:
    e = err(
        ws,
        "compose_board",
        {"board": board, "cards": [text("ok"), note("ok"), {"kind": "text", "payload": {}}]},
    )
    assert e.status == 400 and e.body["index"] == 2
    assert any(f["severity"] == "error" for f in e.body["findings"])
    assert board_cards(ws, board) == []


def test_portal_to_missing_board_or_itself_is_refused(ws: Workspace, board: str) -> None:
    e = err(
        ws,
        "compose_board",
        {"board": board, "cards": [text("x"), {"kind": "board", "payload": {"board": "nowhere"}}]},
    )
    assert (e.status, e.code, e.body["index"]) == (400, "unknown_portal_board", 1)
    e = err(
        ws,
        "compose_board",
        {"board": board, "cards": [{"kind": "board", "payload": {"board": board}}]},
    )
    assert (e.status, e.code, e.body["index"]) == (400, "portal_to_self", 0)
    ws.call("create", {"kind": "board", "slug": "other"})
    out = compose(ws, cards=[{"kind": "board", "payload": {"board": "other"}}])
    assert out["cards"][0]["kind"] == "board"
    assert len(board_cards(ws, board)) == 1


def test_body_over_eight_mib_is_413(ws: Workspace, board: str) -> None:
    big = "x" * (8 * 1024 * 1024 + 16)
    e = err(ws, "compose_board", {"board": board, "cards": [text(big)]})
    assert (e.status, e.code) == (413, "payload_too_large")
    assert board_cards(ws, board) == []


def test_body_limit_counts_utf8_bytes_not_json_escapes(ws: Workspace, board: str) -> None:
    """Regression: the size was measured on ASCII-escaped JSON, so about 2.9 MB of
    accented text (8.7 MB once escaped as \\u00e9) was refused with 413."""
    # Eight cards, each under the markdownChars limit, 2.9 MB of UTF-8 in all.
    md = "\u00e9" * 181_250
    out = compose(ws, cards=[{"kind": "page", "payload": {"md": md}} for _ in range(8)])
    assert [c["kind"] for c in out["cards"]] == ["page"] * 8


def test_unknown_board_is_404_with_did_you_mean(ws: Workspace, board: str) -> None:
    e = err(ws, "compose_board", {"board": "plna", "cards": [text("x")]})
    assert (e.status, e.code) == (404, "unknown_board")
    assert e.body["didYouMean"] == ["plan"]


def test_empty_batch_is_refused(ws: Workspace, board: str) -> None:
    e = err(ws, "compose_board", {"board": board})
    assert (e.status, e.code) == (400, "empty_batch")


@pytest.mark.parametrize(
    ("cards", "code"),
    [
        ([text("a", "x"), text("b", "x")], "duplicate_ref"),
        ([{"kind": "cluster", "payload": {}, "children": ["nope"]}], "unknown_ref"),
        ([{"kind": "text", "payload": {"md": "a"}, "children": []}], "children_on_non_frame"),
        (
            [
                {"kind": "cluster", "ref": "f", "payload": {}, "children": ["t"]},
                text("t", "t", anchor={"ref": "f", "relation": "after"}),
            ],
            "anchor_on_child",
        ),
    ],
)
def test_malformed_batches_fail_with_code_and_index(
    ws: Workspace, board: str, cards: list[dict[str, Any]], code: str
) -> None:
    e = err(ws, "compose_board", {"board": board, "cards": cards})
    assert (e.status, e.code) == (400, code)
    assert isinstance(e.body["index"], int)
    assert board_cards(ws, board) == []


def test_into_a_non_frame_and_anchor_cycles_are_relation_unsupported(
    ws: Workspace, board: str
) -> None:
    (first,) = compose(ws, cards=[text("anchor")])["cards"]
    e = err(
        ws,
        "compose_board",
        {
            "board": board,
            "cards": [text("x")],
            "anchor": {"cardId": first["id"], "relation": "into"},
        },
    )
    assert (e.status, e.code) == (400, "relation_unsupported")
    cycle = [
        text("a", "a", anchor={"ref": "b", "relation": "after"}),
        text("b", "b", anchor={"ref": "a", "relation": "after"}),
    ]
    e = err(ws, "compose_board", {"board": board, "cards": cycle})
    assert (e.status, e.code) == (400, "relation_unsupported")
    assert len(board_cards(ws, board)) == 1


def test_unknown_anchor_card_is_refused(ws: Workspace, board: str) -> None:
    e = err(ws, "compose_board", {"board": board, "cards": [text("x")], "anchorCardId": 999})
    assert e.status == 404 and e.code == "unknown_anchor"


# --------------------------------------------------------------------- placement intent


@pytest.mark.parametrize(
    ("layout", "rows", "cols"), [("column", 4, 1), ("row", 1, 4), ("grid", 2, 3)]
)
def test_layout_modes(ws: Workspace, board: str, layout: str, rows: int, cols: int) -> None:
    out = compose(ws, layout=layout, cards=[text(f"card {i}") for i in range(4)])
    xs = {c["x"] for c in out["cards"]}
    ys = {c["y"] for c in out["cards"]}
    assert (len(ys), len(xs)) == (rows, cols)
    assert_tidy(ws, board)


def test_shelf_packing_follows_aspect(ws: Workspace) -> None:
    def spread(aspect: float | None) -> float:
        ws.call("create", {"kind": "board", "slug": f"a{int((aspect or 0) * 10)}"})
        params: dict[str, Any] = {
            "board": f"a{int((aspect or 0) * 10)}",
            "cards": [note(f"n{i}") for i in range(12)],
        }
        if aspect is not None:
            params["aspect"] = aspect
        cards = ws.call("compose_board", params)["cards"]
        width = max(c["x"] + c["w"] for c in cards) - min(c["x"] for c in cards)
        height = max(c["y"] + c["h"] for c in cards) - min(c["y"] for c in cards)
        return width / height

    wide, default, narrow = spread(3.2), spread(None), spread(1.0)
    assert wide > default > narrow
    assert spread(0) == pytest.approx(default)  # 0 means the default 1.6
    assert spread(9.0) == pytest.approx(wide)  # clamped to 3.2
    assert spread(0.2) == pytest.approx(narrow)  # clamped to 1
    # Far outside the range is clamped too, never refused.
    assert spread(5000) == pytest.approx(wide)
    assert spread(-3) == pytest.approx(narrow)


def test_flow_document_persists_and_stacks_later_batches(ws: Workspace, board: str) -> None:
    first = compose(ws, flow="document", cards=[text("Intro"), text("Body")])["cards"]
    assert [c["placedAs"] for c in first] == ["flow", "flow"]
    assert first[0]["x"] == first[1]["x"] and first[1]["y"] > first[0]["y"]
    assert ws.call("get", {"kind": "board", "board": board})["board"]["flow"] == "document"
    later = compose(ws, cards=[text("Appendix"), text("More")])["cards"]
    bottom = max(c["y"] + c["h"] for c in first)
    assert all(c["y"] >= bottom for c in later)
    assert later[0]["x"] == first[0]["x"]
    assert_tidy(ws, board)


def test_anchor_relations(ws: Workspace, board: str) -> None:
    row = compose(ws, layout="row", cards=[text("A"), text("B")])["cards"]
    a, b = row
    after = compose(ws, cards=[note("after A")], anchor={"cardId": a["id"], "relation": "after"})[
        "cards"
    ][0]
    assert after["placedAs"] == "after"
    assert after["y"] == a["y"] and after["x"] > a["x"] + a["w"] - 1
    moved_b = {c["id"]: c for c in board_cards(ws, board)}[b["id"]]
    assert moved_b["x"] > after["x"]  # the row made room after A
    before = compose(
        ws, cards=[note("before A")], anchor={"cardId": a["id"], "relation": "before"}
    )["cards"][0]
    assert before["placedAs"] == "before"
    assert (before["x"], before["y"]) == (a["x"], a["y"])  # takes the anchor's spot
    under = compose(ws, cards=[note("under B")], anchor={"cardId": b["id"], "relation": "under"})[
        "cards"
    ][0]
    assert under["placedAs"] == "under"
    now_b = {c["id"]: c for c in board_cards(ws, board)}[b["id"]]
    assert under["x"] == now_b["x"] and under["y"] >= now_b["y"] + now_b["h"]
    beside = compose(ws, cards=[note("beside")], anchor={"cardId": a["id"]})["cards"][0]
    assert beside["placedAs"] == "beside"
    assert_tidy(ws, board)


def test_anchor_card_id_is_beside(ws: Workspace, board: str) -> None:
    (a,) = compose(ws, cards=[text("A")])["cards"]
    (b,) = compose(ws, cards=[note("B")], anchorCardId=a["id"])["cards"]
    assert b["placedAs"] == "beside"
    assert b["x"] >= a["x"] + a["w"] and b["y"] == a["y"]
    e = err(
        ws,
        "compose_board",
        {
            "board": board,
            "cards": [note("C")],
            "anchorCardId": a["id"],
            "anchor": {"cardId": a["id"]},
        },
    )
    assert (e.status, e.code) == (400, "exclusive_params")


def test_into_appends_to_a_frame(ws: Workspace, board: str) -> None:
    out = compose(
        ws,
        cards=[
            {
                "kind": "cluster",
                "ref": "f",
                "payload": {"title": "Box", "layout": {"mode": "row"}},
                "children": ["a"],
            },
            text("a", "a"),
        ],
    )
    frame = out["cards"][0]
    (added,) = compose(ws, cards=[text("b")], anchor={"cardId": frame["id"], "relation": "into"})[
        "cards"
    ]
    assert (added["placedAs"], added["container"]) == ("into", frame["id"])
    assert added["x"] > out["cards"][1]["x"]  # last child
    assert_tidy(ws, board)


def test_card_anchor_by_batch_ref(ws: Workspace, board: str) -> None:
    compose(ws, cards=[note("something already there")])
    out = compose(
        ws,
        cards=[text("root", "r"), text("kid", anchor={"ref": "r", "relation": "under"})],
    )
    root, kid = out["cards"]
    assert kid["placedAs"] == "under"
    assert kid["x"] == root["x"] and kid["y"] >= root["y"] + root["h"]
    assert_tidy(ws, board)


def test_section_is_created_on_demand_and_grows(ws: Workspace, board: str) -> None:
    first = compose(ws, section="Ideas", cards=[text("one")])
    (sec,) = first["sections"]
    assert sec["title"] == "Ideas"
    entry = first["cards"][0]
    assert (entry["placedAs"], entry["container"]) == ("section", sec["id"])
    second = compose(ws, section="Ideas", cards=[text("two"), text("three")])
    assert second["sections"] == []  # the frame exists now
    assert {c["container"] for c in second["cards"]} == {sec["id"]}
    # A section keeps its default managed grid: new cards follow in reading order.
    assert all((c["y"], c["x"]) > (entry["y"], entry["x"]) for c in second["cards"])
    frame = {c["id"]: c for c in board_cards(ws, board)}[sec["id"]]
    assert frame["h"] > sec["h"]
    assert_tidy(ws, board)


def test_section_without_layout_takes_new_cards_below_its_content(
    ws: Workspace, board: str
) -> None:
    out = compose(
        ws,
        cards=[
            {
                "kind": "section",
                "ref": "s",
                "payload": {"title": "Free", "layout": None},
                "children": ["a", "b"],
            },
            text("a", "a"),
            text("b", "b"),
        ],
    )
    bottom = max(c["y"] + c["h"] for c in out["cards"][1:])
    more = compose(ws, section="Free", cards=[text("c"), text("d")])["cards"]
    assert {c["container"] for c in more} == {out["cards"][0]["id"]}
    assert all(c["y"] >= bottom for c in more)
    assert_tidy(ws, board)


def test_section_near_match_and_create_section(ws: Workspace, board: str) -> None:
    compose(ws, section="Open questions", cards=[text("q")])
    e = err(ws, "compose_board", {"board": board, "section": "Open question", "cards": [text("r")]})
    assert (e.status, e.code) == (409, "section_near_match")
    assert e.body["didYouMean"] == ["Open questions"]
    out = compose(ws, section="Open question", createSection=True, cards=[text("r")])
    assert out["sections"][0]["title"] == "Open question"
    sections = ws.call("list", {"kind": "section", "board": board})["sections"]
    assert [s["title"] for s in sections] == ["Open questions", "Open question"]


def test_section_exclusions(ws: Workspace, board: str) -> None:
    (a,) = compose(ws, cards=[text("a")])["cards"]
    e = err(
        ws, "compose_board", {"board": board, "section": "S", "journey": "j", "cards": [text("x")]}
    )
    assert (e.status, e.code) == (400, "exclusive_params")
    e = err(
        ws,
        "compose_board",
        {
            "board": board,
            "section": "S",
            "anchor": {"cardId": a["id"], "relation": "beside"},
            "cards": [text("x")],
        },
    )
    assert (e.status, e.code) == (400, "exclusive_params")
    e = err(
        ws,
        "compose_board",
        {
            "board": board,
            "section": "S",
            "anchor": {"cardId": a["id"], "relation": "after"},
            "cards": [text("x")],
        },
    )
    assert (e.status, e.code) == (400, "anchor_outside_section")
    e = err(ws, "compose_board", {"board": board, "pass": "next", "cards": [text("x")]})
    assert (e.status, e.code) == (400, "exclusive_params")
    assert len(board_cards(ws, board)) == 1


def test_anchor_inside_a_managed_section_inserts_in_order(ws: Workspace, board: str) -> None:
    out = compose(
        ws,
        cards=[
            {
                "kind": "section",
                "ref": "s",
                "payload": {"title": "Steps", "layout": {"mode": "grid", "cols": 1}},
                "children": ["a", "b"],
            },
            text("a", "a"),
            text("b", "b"),
        ],
    )
    sec, a, b = out["cards"]
    (mid,) = compose(
        ws,
        section="Steps",
        cards=[text("between")],
        anchor={"cardId": a["id"], "relation": "under"},
    )["cards"]
    assert mid["container"] == sec["id"]
    cards = {c["id"]: c for c in board_cards(ws, board)}
    assert cards[a["id"]]["y"] < cards[mid["id"]]["y"] < cards[b["id"]]["y"]
    assert cards[sec["id"]]["h"] > sec["h"]  # the frame grew
    assert_tidy(ws, board)


def test_journey_passes(ws: Workspace, board: str) -> None:
    step = {"kind": "step", "payload": {"title": "Login", "image": "login.png"}}
    first = compose(ws, journey="signup", cards=[step])
    (p1,) = first["sections"]
    assert first["cards"][0]["placedAs"] == "journey"
    latest = compose(ws, journey="signup", cards=[step])
    assert latest["sections"] == [] and latest["cards"][0]["container"] == p1["id"]
    nxt = compose(ws, journey="signup", **{"pass": "next"}, cards=[step])
    (p2,) = nxt["sections"]
    assert p2["x"] > p1["x"]  # beside the previous pass
    numbered = compose(ws, journey="signup", **{"pass": 1}, cards=[step])
    assert numbered["cards"][0]["container"] == p1["id"]
    journeys = ws.call("scrape_board", {"board": board})["journeys"]["signup"]
    assert [(j["pass"], j["section"]) for j in journeys] == [(1, p1["id"]), (2, p2["id"])]
    e = err(ws, "compose_board", {"board": board, "journey": "signup", "pass": 7, "cards": [step]})
    assert (e.status, e.code) == (404, "unknown_pass")
    assert_tidy(ws, board)


def test_journey_adopts_a_plain_section_with_its_title(ws: Workspace, board: str) -> None:
    (sec,) = compose(ws, section="checkout", cards=[text("existing")])["sections"]
    out = compose(ws, journey="checkout", cards=[text("step")])
    assert out["sections"] == []
    assert out["cards"][0]["container"] == sec["id"]
    journeys = ws.call("scrape_board", {"board": board})["journeys"]
    assert journeys["checkout"] == [{"pass": 1, "section": sec["id"], "title": "checkout"}]


def test_next_pass_inherits_the_layout(ws: Workspace, board: str) -> None:
    compose(ws, section="flow", cards=[text("a")])
    ws.call("arrange", {"board": board, "mode": "row", "scope": "section:flow", "save": True})
    compose(ws, journey="flow", cards=[text("b")])
    nxt = compose(ws, journey="flow", **{"pass": "next"}, cards=[text("c"), text("d")])
    c, d = nxt["cards"]
    assert c["y"] == d["y"] and d["x"] > c["x"]  # row layout inherited


# --------------------------------------------------------------------- edges and questions


def test_edges_join_refs_and_existing_ids(ws: Workspace, board: str) -> None:
    (old,) = compose(ws, cards=[text("old")])["cards"]
    out = compose(
        ws,
        cards=[text("a", "a"), text("b", "b")],
        edges=[
            {"from": "a", "to": "b", "label": "then"},
            {
                "from": old["id"],
                "to": "a",
                "rel": "depends",
                "fromRegion": {"x": 0, "y": 0, "w": 10, "h": 10},
            },
        ],
    )
    a, b = out["cards"]
    assert [(e["from"], e["to"]) for e in out["edges"]] == [
        (a["id"], b["id"]),
        (old["id"], a["id"]),
    ]
    wires = ws.call("scrape_board", {"board": board})["edges"]
    assert {"label": "then"}.items() <= wires[0].items()
    assert wires[1]["rel"] == "depends" and wires[1]["fromRegion"] == {
        "x": 0,
        "y": 0,
        "w": 10,
        "h": 10,
    }


@pytest.mark.parametrize(
    ("edge", "code"),
    [({"from": "a", "to": "ghost"}, "unknown_ref"), ({"from": "a", "to": 98765}, "unknown_card")],
)
def test_bad_edge_ends_fail_the_batch(
    ws: Workspace, board: str, edge: dict[str, Any], code: str
) -> None:
    e = err(ws, "compose_board", {"board": board, "cards": [text("a", "a")], "edges": [edge]})
    assert (e.status, e.code, e.body["index"]) == (400, code, 0)
    assert board_cards(ws, board) == []


def test_edge_to_a_card_of_another_board_is_refused(ws: Workspace, board: str) -> None:
    ws.call("create", {"kind": "board", "slug": "elsewhere"})
    (far,) = ws.call("compose_board", {"board": "elsewhere", "cards": [text("far")]})["cards"]
    e = err(
        ws,
        "compose_board",
        {"board": board, "cards": [text("a", "a")], "edges": [{"from": "a", "to": far["id"]}]},
    )
    assert (e.status, e.code) == (400, "unknown_card")


def test_questions_are_staged_and_anchored(ws: Workspace, board: str) -> None:
    out = compose(
        ws,
        cards=[text("Pick a store", "store")],
        questions=[
            {
                "prompt": "Which store?",
                "stakes": "cost",
                "options": ["SQLite", {"label": "PG", "recommended": True}],
                "cardRef": "store",
            },
            {"prompt": "Anything else?", "kind": "text"},
        ],
    )
    assert [q["state"] for q in out["questions"]] == ["staged", "staged"]
    got = ws.call("get", {"kind": "questions", "board": board})["questions"]
    assert got[0]["cardId"] == out["cards"][0]["id"]
    assert [o["label"] for o in got[0]["options"]] == ["SQLite", "PG", "Other"]
    assert got[1]["kind"] == "text" and got[1]["cardId"] is None


def test_questions_alone_are_a_batch(ws: Workspace, board: str) -> None:
    out = compose(ws, questions=[{"prompt": "Go?", "options": ["yes"]}])
    assert out["cards"] == [] and len(out["questions"]) == 1


def test_bad_question_fails_the_batch(ws: Workspace, board: str) -> None:
    e = err(
        ws,
        "compose_board",
        {"board": board, "cards": [text("a")], "questions": [{"prompt": "?", "options": []}]},
    )
    assert (e.status, e.code) == (400, "invalid_question")
    assert board_cards(ws, board) == []


# --------------------------------------------------------------------- warnings, layers, content


def test_warnings_come_back_with_their_index(ws: Workspace, board: str) -> None:
    out = compose(
        ws,
        cards=[text("fine"), {"kind": "shape", "payload": {"label": "x", "tone": "sparkly"}}],
    )
    assert out["warnings"], "an unknown tone is a warning"
    assert {w["index"] for w in out["warnings"]} == {1}


@pytest.mark.parametrize(
    ("principal", "layer"),
    [
        (Principal.agent("claude"), "ai"),
        (Principal.service("ci"), "ai"),
        (Principal.user("ana"), "human"),
        (None, "human"),
    ],
)
def test_layer_follows_the_principal(
    ws: Workspace, board: str, principal: Principal | None, layer: str
) -> None:
    compose(ws, principal, section="S", cards=[text("x")])
    assert {c["layer"] for c in board_cards(ws, board)} == {layer}


def test_share_links_cannot_compose(ws: Workspace, board: str) -> None:
    for mode in ("view", "annotate"):
        e = err(
            ws,
            "compose_board",
            {"board": board, "cards": [text("x")]},
            Principal.share(board, mode),
        )
        assert e.status == 403


def test_diagram_text_is_imported_and_laid_out(ws: Workspace, board: str) -> None:
    out = compose(
        ws,
        cards=[
            {
                "kind": "diagram",
                "payload": {"title": "Flow", "diagram_text": "graph TD\nA --> B\nB --> C"},
            }
        ],
    )
    (card,) = [c for c in board_cards(ws, board) if c["id"] == out["cards"][0]["id"]]
    assert "diagram_text" not in card["payload"]
    assert card["payload"].get("nodes")
    assert card["payload"].get("geo")


@pytest.mark.parametrize(
    ("text_", "title"),
    [
        ("flowchart TD\nA --> B", "Flowchart"),
        ("stateDiagram-v2\n[*] --> Idle", "State diagram"),
        ("---\ntitle: Checkout\n---\ngraph LR\nA --> B", "Checkout"),
    ],
)
def test_a_diagram_with_only_diagram_text_is_taken(
    ws: Workspace, board: str, text_: str, title: str
) -> None:
    # The contract asks for a title unless the text import supplies one: the
    # import names a titleless text after its type (and says so in a warning).
    diagram = {"kind": "diagram", "payload": {"diagram_text": text_}}
    out = compose(ws, cards=[diagram, {"kind": "doc", "payload": {"elements": [diagram]}}])
    cards = {c["id"]: c for c in board_cards(ws, board)}
    card, doc = (cards[c["id"]]["payload"] for c in out["cards"])
    assert card["title"] == title and card["geo"]
    assert doc["elements"][0]["payload"]["title"] == title
    derived = [w for w in out["warnings"] if w["code"] == "derived_title"]
    assert len(derived) == (0 if title == "Checkout" else 2)
    # Imported text draws no counts band, and a title made up from its type is not drawn.
    assert card["band"] is False
    assert card.get("showTitle", True) is (title == "Checkout")


def test_a_diagram_without_title_or_text_is_refused(ws: Workspace, board: str) -> None:
    e = err(
        ws,
        "compose_board",
        {
            "board": board,
            "cards": [
                text("a"),
                {"kind": "diagram", "payload": {"nodes": [{"id": "a", "title": "A"}]}},
            ],
        },
    )
    assert e.status == 400 and e.body["index"] == 1


def test_big_tables_spill_to_blobs(ws: Workspace, board: str) -> None:
    rows = [{"n": i, "name": f"row {i}"} for i in range(250)]
    table = {
        "kind": "doc",
        "payload": {
            "title": "Data",
            "elements": [
                {
                    "kind": "table",
                    "payload": {
                        "cols": [{"key": "n", "type": "number"}, {"key": "name"}],
                        "rows": rows,
                    },
                }
            ],
        },
    }
    out = compose(ws, cards=[table])
    (card,) = [c for c in board_cards(ws, board) if c["id"] == out["cards"][0]["id"]]
    element = card["payload"]["elements"][0]
    assert "rows" not in element["payload"]
    with ws.store.read() as tx:
        stored = tx.blobs.get(element["dataRef"])
    assert stored is not None and b"row 249" in stored


# --------------------------------------------------------------------- templates


def test_decision_map_template(ws: Workspace, board: str) -> None:
    out = compose(
        ws,
        template="decision-map",
        params={
            "title": "Storage choices",
            "context": "We need a store.",
            "decisions": [
                {"key": "db", "title": "Database", "stakes": "cost", "options": ["SQLite", "PG"]},
                {
                    "key": "cache",
                    "title": "Cache",
                    "options": ["none", "redis"],
                    "multiSelect": True,
                    "pivot": True,
                },
            ],
        },
        cards=[note("inline after the template")],
    )
    kinds = [c["kind"] for c in out["cards"]]
    assert kinds == ["section", "text", "text", "text", "note"]
    sec = out["cards"][0]
    column = out["cards"][1:4]
    assert {c["container"] for c in column} == {sec["id"]}
    assert len({c["x"] for c in column}) == 1  # one outline column
    assert [c["y"] for c in column] == sorted(c["y"] for c in column)
    questions = ws.call("get", {"kind": "questions", "board": board})["questions"]
    assert [q["prompt"] for q in questions] == ["Database", "Cache"]
    assert questions[0]["stakes"] == "cost" and questions[1]["multiSelect"] is True
    assert questions[1]["pivot"] is True
    assert questions[0]["cardId"] == out["cards"][2]["id"]
    assert_tidy(ws, board)


def test_decision_map_unfilled_slots_render_literally(ws: Workspace, board: str) -> None:
    out = compose(ws, template="decision-map", params={})
    sec, context = out["cards"]
    cards = {c["id"]: c for c in board_cards(ws, board)}
    assert cards[sec["id"]]["payload"]["title"] == "{title}"
    assert cards[context["id"]]["payload"]["md"] == "{context}"


def test_decision_map_extend(ws: Workspace, board: str) -> None:
    params = {"title": "Map", "decisions": [{"key": "a", "title": "A?", "options": ["x"]}]}
    first = compose(ws, template="decision-map", params=params)
    sec_id = first["cards"][0]["id"]
    more = compose(
        ws,
        template="decision-map",
        params={
            "title": "Map",
            "extend": True,
            "decisions": [{"key": "b", "title": "B?", "options": ["y"]}],
        },
    )
    assert [c["container"] for c in more["cards"]] == [sec_id]
    assert more["sections"] == []
    assert len(ws.call("get", {"kind": "questions", "board": board})["questions"]) == 2
    missing = {"title": "Nope", "extend": True, "decisions": [{"title": "C?", "options": ["z"]}]}
    e = err(ws, "compose_board", {"board": board, "template": "decision-map", "params": missing})
    assert (e.status, e.code) == (404, "unknown_section")
    assert_tidy(ws, board)


def test_unknown_template(ws: Workspace, board: str) -> None:
    e = err(ws, "compose_board", {"board": board, "template": "decision-mpa"})
    assert (e.status, e.code) == (404, "unknown_template")
    assert e.body["didYouMean"] == ["decision-map"]


# --------------------------------------------------------------------- request keys


def _totals(ws: Workspace, slug: str) -> tuple[int, int, int, int]:
    with ws.store.read() as tx:
        b = tx.board_by_slug(ws.workspace_id, slug)
        assert b is not None
        return (
            tx.count_cards(b.id, include_deleted=True),
            len(tx.edges(b.id, include_trashed_ends=True)),
            len(tx.questions(b.id)),
            len(tx.events(board_id=b.id)),
        )


def test_request_key_replays_the_original_receipt(any_ws: Workspace) -> None:
    any_ws.call("create", {"kind": "board", "slug": "plan"})
    params = {
        "board": "plan",
        "requestKey": "batch-1",
        "cards": [text("a", "a"), text("b", "b")],
        "edges": [{"from": "a", "to": "b"}],
        "questions": [{"prompt": "?", "options": ["y"]}],
    }
    first = any_ws.call("compose_board", params)
    before = _totals(any_ws, "plan")
    again = any_ws.call("compose_board", params)
    assert again == first
    assert _totals(any_ws, "plan") == before
    changed = {**params, "cards": [text("a", "a"), text("B!", "b")]}
    e = err(any_ws, "compose_board", changed)
    assert (e.status, e.code) == (409, "request_key_conflict")
    assert _totals(any_ws, "plan") == before
    # A fresh key is a fresh operation.
    fresh = any_ws.call("compose_board", {**params, "requestKey": "batch-2"})
    assert {c["id"] for c in fresh["cards"]}.isdisjoint(c["id"] for c in first["cards"])


def test_request_key_compares_numbers_by_value_not_spelling(ws: Workspace, board: str) -> None:
    params = {
        "board": board,
        "requestKey": "nums",
        "aspect": 2,
        "cards": [
            {
                "kind": "chart",
                "payload": {
                    "viz": "bars",
                    "data": {"items": [{"label": "a", "value": 3}, {"label": "b", "value": -0.0}]},
                },
            }
        ],
    }
    first = ws.call("compose_board", params)
    respelled = json.loads(
        json.dumps(params)
        .replace('"aspect": 2', '"aspect": 2.0')
        .replace('"value": 3', '"value": 3.0')
    )
    respelled["cards"][0]["payload"]["data"]["items"][1]["value"] = 0
    assert isinstance(respelled["aspect"], float)
    assert ws.call("compose_board", respelled) == first
    assert len(board_cards(ws, board)) == 1
    changed = {**params, "aspect": 2.5}
    assert err(ws, "compose_board", changed).code == "request_key_conflict"


def test_request_keys_belong_to_their_principal(ws: Workspace, board: str) -> None:
    params = {"board": board, "requestKey": "k", "cards": [text("a")]}
    mine = ws.call("compose_board", params, Principal.agent("a1"))
    theirs = ws.call("compose_board", params, Principal.agent("a2"))
    assert mine["cards"][0]["id"] != theirs["cards"][0]["id"]


def test_a_refused_batch_does_not_burn_its_key(ws: Workspace, board: str) -> None:
    bad = {"board": board, "requestKey": "k", "cards": [{"kind": "txt", "payload": {}}]}
    err(ws, "compose_board", bad)
    ok = ws.call("compose_board", {**bad, "cards": [text("fixed")]})
    assert ok["cards"][0]["kind"] == "text"


def test_request_keys_are_kept_a_day(ws: Workspace, board: str) -> None:
    from datetime import timedelta

    ws.call("compose_board", {"board": board, "requestKey": "old", "cards": [text("a")]})
    with ws.store.transaction() as tx:
        assert tx.purge_request_keys(keep=timedelta(hours=24)) == 0  # nothing is a day old yet
    assert ws.call("compose_board", {"board": board, "requestKey": "old", "cards": [text("a")]})
    assert len(board_cards(ws, board)) == 1


def test_a_subgraph_direction_survives_the_write(ws: Workspace, board: str) -> None:
    text_ = (
        "flowchart TB\nsubgraph one\ndirection RL\na1 --> a2\nend\n"
        "subgraph two\ndirection LR\nb1 --> b2\nend\n"
    )
    out = compose(ws, cards=[{"kind": "diagram", "payload": {"diagram_text": text_}}])
    card = {c["id"]: c for c in board_cards(ws, board)}[out["cards"][0]["id"]]["payload"]
    assert [g.get("dir") for g in card["groups"]] == ["RL", "LR"]
    assert not [w for w in out["warnings"] if w["code"] == "unknown_field"]
    # laid out side by side inside each group, right to left in the RL one
    nodes = card["geo"]["nodes"]
    assert nodes["a1"]["y"] == nodes["a2"]["y"] and nodes["b1"]["y"] == nodes["b2"]["y"]
    assert nodes["a2"]["x"] < nodes["a1"]["x"] and nodes["b1"]["x"] < nodes["b2"]["x"]


def test_a_compose_without_a_component_reads_nothing_before_its_write(
    ws: Workspace, board: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Only a template naming a workspace component is read before the write opens:
    a plain batch goes straight to its one transaction."""
    reads: list[bool] = []
    real = ws.store.read

    def counted(*args: Any, **kwargs: Any) -> Any:
        reads.append(True)
        return real(*args, **kwargs)

    made = compose(ws, board=board, cards=[note("one"), note("two")])
    ids = [c["id"] for c in made["cards"]]
    ws.call("create", {"kind": "component", "board": board, "name": "pair", "cardIds": ids})
    monkeypatch.setattr(ws.store, "read", counted)
    compose(ws, board=board, cards=[note("three")])
    assert reads == []
    compose(ws, board=board, template="pair")
    assert len(reads) == 1
