"""update_cards: patches, soft removal with the confirm handshake, restore."""

from __future__ import annotations

import hashlib
import os
import time
import uuid
from pathlib import Path
from typing import Any

import pytest

from layoutkit import Principal, Workspace
from layoutkit.service.boards import cards as cards_module
from layoutkit.service.boards.cards import CONFIRM_TTL
from tests.service.helpers import assert_tidy, board_cards, err

AGENT = Principal.agent("claude")
OTHER_AGENT = Principal.agent("gemini")
USER = Principal.user("ana")
REASON = "cleaning up the duplicated ideas"


def text(md: str, ref: str | None = None) -> dict[str, Any]:
    return {"kind": "text", "payload": {"md": md}, **({"ref": ref} if ref else {})}


@pytest.fixture
def board(ws: Workspace) -> str:
    ws.call("create", {"kind": "board", "slug": "b"})
    return "b"


def compose(
    ws: Workspace, cards: list[dict[str, Any]], who: Principal | None = None, **kw: Any
) -> list[dict[str, Any]]:
    return ws.call("compose_board", {"board": "b", "cards": cards, **kw}, who)["cards"]


def by_id(ws: Workspace) -> dict[int, dict[str, Any]]:
    return {c["id"]: c for c in board_cards(ws, "b")}


# --------------------------------------------------------------------- patch


def test_patch_geometry_and_version(ws: Workspace, board: str) -> None:
    (a,) = compose(ws, [text("a")], AGENT)
    out = ws.call("update_cards", {"patch": [{"id": a["id"], "x": 500, "y": 300, "w": 200}]}, AGENT)
    (box,) = out["cards"]
    assert (box["x"], box["y"], box["w"], box["version"]) == (500, 300, 200, 2)
    assert by_id(ws)[a["id"]]["version"] == 2


def test_payload_patch_is_a_merge_and_resizes_content_sized_cards(
    ws: Workspace, board: str
) -> None:
    (a,) = compose(ws, [{"kind": "text", "payload": {"md": "short", "role": "idea"}}], AGENT)
    long_md = "A much longer idea that wraps over several lines of the card. " * 6
    (box,) = ws.call(
        "update_cards", {"patch": [{"id": a["id"], "payload": {"md": long_md}}]}, AGENT
    )["cards"]
    assert box["h"] > a["h"]
    card = by_id(ws)[a["id"]]
    assert card["payload"] == {"md": long_md, "role": "idea"}
    ws.call("update_cards", {"patch": [{"id": a["id"], "payload": {"role": None}}]}, AGENT)
    assert "role" not in by_id(ws)[a["id"]]["payload"]


def test_payload_patch_with_h_keeps_that_height(ws: Workspace, board: str) -> None:
    (a,) = compose(ws, [text("short")], AGENT)
    long_md = "grows " * 80
    (box,) = ws.call(
        "update_cards", {"patch": [{"id": a["id"], "payload": {"md": long_md}, "h": 70}]}, AGENT
    )["cards"]
    assert box["h"] == 70


def test_person_sized_cards_keep_their_size_on_payload_patches(ws: Workspace, board: str) -> None:
    (a,) = compose(ws, [text("short")], USER)
    ws.call("update_cards", {"patch": [{"id": a["id"], "w": 300, "h": 90}]}, USER)
    (box,) = ws.call(
        "update_cards", {"patch": [{"id": a["id"], "payload": {"md": "grows " * 80}}]}, USER
    )["cards"]
    assert (box["w"], box["h"]) == (300, 90)


def test_invalid_payload_patch_is_refused_and_changes_nothing(ws: Workspace, board: str) -> None:
    (a,) = compose(ws, [text("keep")], AGENT)
    e = err(ws, "update_cards", {"patch": [{"id": a["id"], "payload": {"md": None}}]}, AGENT)
    assert e.status == 400 and e.body["index"] == 0
    assert by_id(ws)[a["id"]]["payload"] == {"md": "keep"}


def test_agents_patch_only_their_own_ai_cards_and_sections(ws: Workspace, board: str) -> None:
    (mine,) = compose(ws, [text("mine")], AGENT)
    (theirs,) = compose(ws, [text("theirs")], OTHER_AGENT)
    (human,) = compose(ws, [text("human")], USER)
    section = compose(ws, [text("in")], USER, section="Shared")[0]["container"]
    ws.call("update_cards", {"patch": [{"id": mine["id"], "x": 900}]}, AGENT)
    for foreign in (theirs, human):
        e = err(ws, "update_cards", {"patch": [{"id": foreign["id"], "x": 900}]}, AGENT)
        assert (e.status, e.code) == (403, "not_your_card")
    ws.call("update_cards", {"patch": [{"id": section, "payload": {"title": "Renamed"}}]}, AGENT)
    assert by_id(ws)[section]["payload"]["title"] == "Renamed"
    # One refused patch refuses the call: nothing of it is applied.
    before = by_id(ws)[mine["id"]]
    err(
        ws,
        "update_cards",
        {"patch": [{"id": mine["id"], "x": 1}, {"id": human["id"], "x": 1}]},
        AGENT,
    )
    assert by_id(ws)[mine["id"]] == before


def test_users_patch_their_own_cards(ws: Workspace, board: str) -> None:
    (mine,) = compose(ws, [text("mine")], USER)
    (agents,) = compose(ws, [text("agent's")], AGENT)
    ws.call("update_cards", {"patch": [{"id": mine["id"], "x": 700}]}, USER)
    bo = Principal.user("bo")
    e = err(ws, "update_cards", {"patch": [{"id": agents["id"], "payload": {"md": "x"}}]}, bo)
    assert (e.status, e.code) == (403, "not_your_card")
    # Moving and resizing by hand is open to every person, on any card.
    ws.call("update_cards", {"patch": [{"id": agents["id"], "x": 700, "w": 260}]}, bo)
    card = by_id(ws)[agents["id"]]
    assert (card["x"], card["w"], card["payload"]) == (700, 260, {"md": "agent's"})
    e = err(ws, "update_cards", {"patch": [{"id": agents["id"], "x": 1, "payload": {}}]}, bo)
    assert e.status == 403
    ws.call(
        "update_cards", {"patch": [{"id": agents["id"], "payload": {"md": "y"}}]}
    )  # the owner may


def test_a_persons_resize_makes_an_agents_card_user_sized(ws: Workspace, board: str) -> None:
    (a,) = compose(ws, [text("short")], AGENT)
    ws.call("update_cards", {"patch": [{"id": a["id"], "w": 320, "h": 150}]}, USER)
    with ws.store.read() as tx:
        (record,) = tx.cards_by_id([a["id"]])
    assert (record.sized_by, record.w, record.h) == ("person", 320, 150)
    (box,) = ws.call(
        "update_cards", {"patch": [{"id": a["id"], "payload": {"md": "grows " * 80}}]}, AGENT
    )["cards"]
    assert (box["w"], box["h"]) == (320, 150)


def test_a_patch_naming_a_stale_version_writes_nothing_and_answers_the_card(
    ws: Workspace, board: str
) -> None:
    (a,) = compose(ws, [text("a")], AGENT)
    start = a["version"] if "version" in a else by_id(ws)[a["id"]]["version"]
    ws.call("update_cards", {"patch": [{"id": a["id"], "x": 400, "version": start}]}, USER)
    moved = by_id(ws)[a["id"]]
    # A second person still holding the first version loses: nothing is written.
    e = err(
        ws,
        "update_cards",
        {"patch": [{"id": a["id"], "x": 10, "y": 10, "version": start}]},
        Principal.user("bo"),
    )
    assert (e.status, e.code) == (409, "stale_card")
    assert e.body["card"] == {
        "id": a["id"],
        "kind": "text",
        "x": 400,
        "y": moved["y"],
        "w": moved["w"],
        "h": moved["h"],
        "version": moved["version"],
    }
    assert by_id(ws)[a["id"]] == moved


def test_patching_an_unknown_card_is_404(ws: Workspace, board: str) -> None:
    e = err(ws, "update_cards", {"patch": [{"id": 4242, "x": 1}]})
    assert (e.status, e.code) == (404, "unknown_card")


def test_empty_update_is_refused(ws: Workspace, board: str) -> None:
    e = err(ws, "update_cards", {})
    assert (e.status, e.code) == (400, "empty_update")


def test_patches_must_stay_on_one_board(ws: Workspace, board: str) -> None:
    ws.call("create", {"kind": "board", "slug": "c"})
    (a,) = compose(ws, [text("a")])
    (c,) = ws.call("compose_board", {"board": "c", "cards": [text("c")]})["cards"]
    e = err(ws, "update_cards", {"patch": [{"id": a["id"], "x": 1}, {"id": c["id"], "x": 1}]})
    assert (e.status, e.code) == (400, "mixed_boards")


def test_moving_a_card_into_a_frame_makes_it_a_member(ws: Workspace, board: str) -> None:
    inner = compose(ws, [text("inside")], AGENT, section="Box")[0]
    (loose,) = compose(ws, [text("loose")], AGENT)
    frame = by_id(ws)[inner["container"]]
    ws.call(
        "update_cards",
        {"patch": [{"id": loose["id"], "x": frame["x"] + 30, "y": frame["y"] + frame["h"] - 40}]},
        AGENT,
    )
    assert by_id(ws)[loose["id"]]["parent"] == frame["id"]
    assert_tidy(ws, board)


def test_patches_leave_the_board_tidy(ws: Workspace, board: str) -> None:
    cards = compose(ws, [text(f"card {i}") for i in range(6)], AGENT, layout="row")
    ws.call("update_cards", {"patch": [{"id": cards[0]["id"], "w": 600, "h": 300}]}, AGENT)
    ws.call(
        "update_cards",
        {"patch": [{"id": cards[3]["id"], "x": cards[1]["x"], "y": cards[1]["y"]}]},
        AGENT,
    )
    assert_tidy(ws, board)


def test_shrinking_a_frame_keeps_its_children_inside(ws: Workspace, board: str) -> None:
    out = ws.call(
        "compose_board",
        {
            "board": board,
            "cards": [
                {"kind": "cluster", "ref": "f", "payload": {"title": "C"}, "children": ["a", "b"]},
                text("a", "a"),
                text("b", "b"),
            ],
        },
    )["cards"]
    ws.call("update_cards", {"patch": [{"id": out[0]["id"], "w": 100, "h": 50}]})
    assert_tidy(ws, board)


# --------------------------------------------------------------------- remove


def test_remove_is_a_soft_delete(ws: Workspace, board: str) -> None:
    cards = compose(ws, [text(f"c{i}") for i in range(5)], AGENT)
    out = ws.call("update_cards", {"remove": [cards[0]["id"]]}, AGENT)
    assert out["removed"] == [cards[0]["id"]]
    assert cards[0]["id"] not in by_id(ws)
    with ws.store.read() as tx:
        trashed = tx.trash(tx.board_by_slug(ws.workspace_id, board).id)
    assert [c.id for c in trashed] == [cards[0]["id"]]
    assert trashed[0].deleted_by == AGENT.label


def test_removing_someone_elses_card_needs_confirm(ws: Workspace, board: str) -> None:
    compose(ws, [text(f"filler {i}") for i in range(8)], AGENT)
    (theirs,) = compose(ws, [text("human idea")], USER)
    e = err(ws, "update_cards", {"remove": [theirs["id"]]}, AGENT)
    assert (e.status, e.code) == (409, "needs_confirm")
    token = e.body["token"]
    assert token.startswith("rm_")
    assert e.body["preview"] == [
        {
            "id": theirs["id"],
            "kind": "text",
            "title": "human idea",
            "author": "user:ana",
            "layer": "human",
        }
    ]
    assert theirs["id"] in by_id(ws)
    # A wrong token is asked again; a short reason is refused.
    again = err(
        ws,
        "update_cards",
        {"remove": [theirs["id"]], "confirm": "rm_nope", "reason": REASON},
        AGENT,
    )
    # Each refusal hands out a fresh random token; the first one stays good.
    assert again.code == "needs_confirm" and again.body["token"] != token
    short = err(
        ws,
        "update_cards",
        {"remove": [theirs["id"]], "confirm": token, "reason": "too short"},
        AGENT,
    )
    assert (short.status, short.code) == (400, "invalid_reason")
    ws.call("update_cards", {"remove": [theirs["id"]], "confirm": token, "reason": REASON}, AGENT)
    assert theirs["id"] not in by_id(ws)


def test_confirm_token_is_bound_to_the_ids(ws: Workspace, board: str) -> None:
    compose(ws, [text(f"filler {i}") for i in range(8)], AGENT)
    a, b = compose(ws, [text("a"), text("b")], USER)
    token = err(ws, "update_cards", {"remove": [a["id"]]}, AGENT).body["token"]
    e = err(ws, "update_cards", {"remove": [b["id"]], "confirm": token, "reason": REASON}, AGENT)
    assert e.code == "needs_confirm"
    assert b["id"] in by_id(ws)


def test_confirm_token_cannot_be_computed_and_is_bound_to_the_caller(
    ws: Workspace, board: str
) -> None:
    compose(ws, [text(f"filler {i}") for i in range(8)], AGENT)
    (theirs,) = compose(ws, [text("human idea")], USER)
    ids = [theirs["id"]]
    # What the token used to be: a hash of values anyone knows.
    basis = f"{ws.workspace_id}|{AGENT.label}|{sorted(ids)}"
    guessed = "rm_" + hashlib.sha256(basis.encode()).hexdigest()[:24]
    e = err(ws, "update_cards", {"remove": ids, "confirm": guessed, "reason": REASON}, AGENT)
    assert e.code == "needs_confirm"
    token = e.body["token"]
    assert e.body["expiresIn"] == CONFIRM_TTL
    # Another caller cannot use it, nor can a forged expiry stretch it.
    e = err(ws, "update_cards", {"remove": ids, "confirm": token, "reason": REASON}, OTHER_AGENT)
    assert e.code == "needs_confirm"
    _, expires, nonce, mac = token.split("_")
    later = f"rm_{int(expires, 16) + 3600:x}_{nonce}_{mac}"
    e = err(ws, "update_cards", {"remove": ids, "confirm": later, "reason": REASON}, AGENT)
    assert e.code == "needs_confirm"
    assert theirs["id"] in by_id(ws)


def test_confirm_token_expires(ws: Workspace, board: str, monkeypatch: pytest.MonkeyPatch) -> None:
    compose(ws, [text(f"filler {i}") for i in range(8)], AGENT)
    (theirs,) = compose(ws, [text("human idea")], USER)
    ids = [theirs["id"]]
    token = err(ws, "update_cards", {"remove": ids}, AGENT).body["token"]
    now = time.time()
    monkeypatch.setattr(cards_module.time, "time", lambda: now + CONFIRM_TTL + 1)
    e = err(ws, "update_cards", {"remove": ids, "confirm": token, "reason": REASON}, AGENT)
    assert e.code == "needs_confirm" and "expired" in e.message
    fresh = e.body["token"]
    ws.call("update_cards", {"remove": ids, "confirm": fresh, "reason": REASON}, AGENT)
    assert theirs["id"] not in by_id(ws)


def test_confirm_token_works_in_another_process(tmp_path: Path) -> None:
    url = os.environ.get("LAYOUTKIT_TEST_POSTGRES_URL") or f"sqlite:///{tmp_path / 'ws.db'}"
    name = f"confirm-{uuid.uuid4().hex[:8]}"
    with Workspace.open(url, name=name) as first, Workspace.open(url, name=name) as second:
        first.call("create", {"kind": "board", "slug": "b"})
        first.call("compose_board", {"board": "b", "cards": [text("mine")]}, AGENT)
        (theirs,) = first.call("compose_board", {"board": "b", "cards": [text("t")]}, USER)["cards"]
        token = err(first, "update_cards", {"remove": [theirs["id"]]}, AGENT).body["token"]
        second.call(
            "update_cards", {"remove": [theirs["id"]], "confirm": token, "reason": REASON}, AGENT
        )
        assert theirs["id"] not in {c["id"] for c in board_cards(first, "b")}


def test_more_than_25_cards_needs_confirm(ws: Workspace, board: str) -> None:
    cards = compose(ws, [text(f"c{i}") for i in range(100)], AGENT)
    ids = [c["id"] for c in cards]
    ws.call("update_cards", {"remove": ids[:25]}, AGENT)  # 25 of 100 go quietly
    e = err(ws, "update_cards", {"remove": ids[25:51]}, AGENT)  # 26 do not
    assert (e.status, e.code) == (409, "needs_confirm")
    assert len(e.body["preview"]) == 26
    ws.call(
        "update_cards", {"remove": ids[25:51], "confirm": e.body["token"], "reason": REASON}, AGENT
    )
    assert len(by_id(ws)) == 49


def test_thirty_percent_of_the_board_needs_confirm(ws: Workspace, board: str) -> None:
    cards = compose(ws, [text(f"c{i}") for i in range(10)], AGENT)
    ids = [c["id"] for c in cards]
    ws.call("update_cards", {"remove": ids[:2]}, AGENT)  # 2 of 10: 20%
    e = err(ws, "update_cards", {"remove": ids[2:5]}, AGENT)  # 3 of 8: 37.5%
    assert (e.status, e.code) == (409, "needs_confirm")
    cards8 = compose(ws, [text(f"d{i}") for i in range(2)], AGENT)
    assert cards8
    e = err(ws, "update_cards", {"remove": ids[2:5]}, AGENT)  # 3 of 10: exactly 30%
    assert e.code == "needs_confirm"
    ws.call("update_cards", {"remove": ids[2:4]}, AGENT)  # 2 of 10: 20%


@pytest.mark.parametrize("length", [20, 1000])
def test_reason_bounds_are_inclusive(ws: Workspace, board: str, length: int) -> None:
    (only,) = compose(ws, [text("only")], AGENT)
    token = err(ws, "update_cards", {"remove": [only["id"]]}, AGENT).body["token"]
    ws.call(
        "update_cards", {"remove": [only["id"]], "confirm": token, "reason": "r" * length}, AGENT
    )
    assert by_id(ws) == {}


def test_reason_over_1000_is_refused(ws: Workspace, board: str) -> None:
    (only,) = compose(ws, [text("only")], AGENT)
    e = err(
        ws, "update_cards", {"remove": [only["id"]], "confirm": "rm_x", "reason": "r" * 1001}, AGENT
    )
    assert e.status == 400


def test_removing_a_frame_lifts_its_children(ws: Workspace, board: str) -> None:
    inner = compose(ws, [text("a"), text("b")], AGENT, section="S")
    compose(ws, [text(f"f{i}") for i in range(8)], AGENT)
    sec = inner[0]["container"]
    ws.call("update_cards", {"remove": [sec]}, AGENT)
    cards = by_id(ws)
    assert sec not in cards
    assert cards[inner[0]["id"]]["parent"] is None
    assert_tidy(ws, board)


# --------------------------------------------------------------------- restore


def test_restore_own_trashed_cards(ws: Workspace, board: str) -> None:
    cards = compose(ws, [text(f"c{i}") for i in range(5)], AGENT)
    ws.call("update_cards", {"remove": [cards[1]["id"]]}, AGENT)
    out = ws.call("update_cards", {"restore": [cards[1]["id"]]}, AGENT)
    assert [c["id"] for c in out["restored"]] == [cards[1]["id"]]
    assert cards[1]["id"] in by_id(ws)
    assert_tidy(ws, board)


def test_restore_someone_elses_card_is_refused(ws: Workspace, board: str) -> None:
    cards = compose(ws, [text(f"c{i}") for i in range(5)], AGENT)
    ws.call("update_cards", {"remove": [cards[0]["id"]]}, AGENT)
    e = err(ws, "update_cards", {"restore": [cards[0]["id"]]}, OTHER_AGENT)
    assert (e.status, e.code) == (403, "not_your_card")
    e = err(ws, "update_cards", {"restore": [cards[1]["id"]]}, AGENT)  # not trashed
    assert (e.status, e.code) == (404, "unknown_card")


def test_restored_card_rejoins_its_managed_section(ws: Workspace, board: str) -> None:
    """Regression: the restored card named its section as parent but the section did not
    list it, so the section's grid laid another card over it."""
    inner = compose(ws, [text(f"s{i}") for i in range(4)], AGENT, section="Grid")
    compose(ws, [text(f"f{i}") for i in range(10)], AGENT)
    sec = inner[0]["container"]
    ws.call("update_cards", {"remove": [inner[1]["id"]]}, AGENT)
    ws.call("update_cards", {"restore": [inner[1]["id"]]}, AGENT)
    cards = by_id(ws)
    assert cards[inner[1]["id"]]["parent"] == sec
    assert_tidy(ws, board)
    # The section lists it again: a later change re-lays it out with the others.
    compose(ws, [text("late")], AGENT, section="Grid")
    assert_tidy(ws, board)


def test_restored_card_grows_its_unmanaged_frame(ws: Workspace, board: str) -> None:
    out = compose(
        ws,
        [
            {
                "kind": "section",
                "ref": "s",
                "payload": {"title": "Free", "layout": None},
                "children": ["a", "b"],
            },
            text("a", "a"),
            text("b " * 40, "b"),
        ],
        AGENT,
    )
    compose(ws, [text(f"f{i}") for i in range(10)], AGENT)
    ws.call("update_cards", {"remove": [out[2]["id"]]}, AGENT)
    ws.call("update_cards", {"restore": [out[2]["id"]]}, AGENT)
    assert by_id(ws)[out[2]["id"]]["parent"] == out[0]["id"]
    assert_tidy(ws, board)


def test_restored_frame_takes_back_its_children(ws: Workspace, board: str) -> None:
    inner = compose(ws, [text("a"), text("b")], AGENT, section="S")
    compose(ws, [text(f"f{i}") for i in range(8)], AGENT)
    sec = inner[0]["container"]
    ws.call("update_cards", {"remove": [sec]}, AGENT)
    ws.call("update_cards", {"restore": [sec]}, AGENT)
    cards = by_id(ws)
    assert {cards[c["id"]]["parent"] for c in inner} == {sec}
    assert_tidy(ws, board)


def test_restore_with_request_key_replays(ws: Workspace, board: str) -> None:
    cards = compose(ws, [text(f"c{i}") for i in range(5)], AGENT)
    ws.call("update_cards", {"remove": [cards[0]["id"]]}, AGENT)
    params = {"restore": [cards[0]["id"]], "requestKey": "r1"}
    first = ws.call("update_cards", params, AGENT)
    assert ws.call("update_cards", params, AGENT) == first
    e = err(ws, "update_cards", {"restore": [cards[1]["id"]], "requestKey": "r1"}, AGENT)
    assert (e.status, e.code) == (409, "request_key_conflict")


def test_share_links_cannot_update(ws: Workspace, board: str) -> None:
    (a,) = compose(ws, [text("a")])
    e = err(
        ws, "update_cards", {"patch": [{"id": a["id"], "x": 3}]}, Principal.share(board, "annotate")
    )
    assert e.status == 403


def test_a_portal_patch_follows_the_compose_rules(ws: Workspace, board: str) -> None:
    ws.call("create", {"kind": "board", "slug": "elsewhere"})
    portal = {"kind": "board", "payload": {"board": "elsewhere"}}
    (note, card) = compose(ws, [text("n"), portal], AGENT)
    for target, code in (("b", "portal_to_self"), ("nowhere", "unknown_portal_board")):
        patch = [{"id": note["id"], "x": 900}, {"id": card["id"], "payload": {"board": target}}]
        e = err(ws, "update_cards", {"patch": patch}, AGENT)
        assert (e.status, e.code, e.body["index"]) == (400, code, 1)
    stored = by_id(ws)
    assert stored[card["id"]]["payload"]["board"] == "elsewhere"
    assert stored[note["id"]]["x"] == note["x"]  # the batch is all-or-nothing
    ws.call("create", {"kind": "board", "slug": "third"})
    ws.call("update_cards", {"patch": [{"id": card["id"], "payload": {"board": "third"}}]}, AGENT)
    assert by_id(ws)[card["id"]]["payload"]["board"] == "third"


def test_a_board_named_beside_the_ids_is_checked_against_their_board(
    ws: Workspace, board: str
) -> None:
    (card,) = compose(ws, [text("a")], AGENT)
    ws.call("create", {"kind": "board", "slug": "other"})
    moved = ws.call("update_cards", {"board": "b", "patch": [{"id": card["id"], "x": 40}]}, AGENT)
    assert moved["cards"][0]["x"] == 40
    wrong = err(ws, "update_cards", {"board": "other", "remove": [card["id"]]}, AGENT)
    assert (wrong.status, wrong.code, wrong.body["field"]) == (400, "wrong_board", "board")
    assert wrong.body["board"] == "b"
    q = ws.call("ask_board", {"board": "b", "prompt": "Ship?", "options": ["yes"]}, AGENT)
    qid = q["question"]["id"]
    ws.call("answer_question", {"board": "b", "id": qid, "answer": "yes"}, USER)
    refused = err(ws, "answer_question", {"board": "other", "id": qid, "answer": "yes"}, USER)
    assert refused.code == "wrong_board"


def test_a_persons_move_wins_and_the_agents_next_batch_goes_around_it(
    ws: Workspace, board: str
) -> None:
    a, b = compose(ws, [text("first"), text("second")], AGENT)
    # The person drops the agent's card right where the agent's row goes on.
    ws.call(
        "update_cards", {"patch": [{"id": a["id"], "x": b["x"] + b["w"] + 24, "y": b["y"]}]}, USER
    )
    held = by_id(ws)[a["id"]]
    new = compose(ws, [text(f"more {i}") for i in range(3)], AGENT, anchorCardId=b["id"])
    after = by_id(ws)
    assert (after[a["id"]]["x"], after[a["id"]]["y"]) == (held["x"], held["y"])
    box = after[a["id"]]
    for c in new:
        n = after[c["id"]]
        apart = (
            n["x"] + n["w"] <= box["x"]
            or box["x"] + box["w"] <= n["x"]
            or n["y"] + n["h"] <= box["y"]
            or box["y"] + box["h"] <= n["y"]
        )
        assert apart, (n, box)
