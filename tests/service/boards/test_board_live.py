"""board_outline, board_changes, get kind cards and tick_checklist: what a live board page reads
and the ticks it writes, checked the way an agent would see them."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from layoutkit import ServiceError, Workspace
from layoutkit.principal import Principal

AGENT = Principal.agent("claude")
ANA = Principal.user("ana")
LAUNCH = {
    "kind": "checklist",
    "payload": {"title": "Launch", "items": [{"text": "Docs"}, {"text": "Bench", "done": True}]},
}


def _err(
    ws: Workspace, op: str, params: dict[str, Any], who: Principal | None = None
) -> ServiceError:
    with pytest.raises(ServiceError) as info:
        ws.call(op, params, who)
    return info.value


def _board(ws: Workspace, slug: str = "b") -> list[int]:
    ws.call("create", {"kind": "board", "slug": slug})
    out = ws.call(
        "compose_board",
        {"board": slug, "cards": [LAUNCH, *[{"kind": "note", "payload": {"md": "hi"}}] * 4]},
        AGENT,
    )
    return [c["id"] for c in out["cards"]][:2]


def _remove(ws: Workspace, card: int) -> None:
    """Remove one card, through the confirm handshake when the board is small."""
    try:
        ws.call("update_cards", {"remove": [card]})
    except ServiceError as err:
        assert err.code == "needs_confirm"
        reason = "the test empties the board"
        ws.call("update_cards", {"remove": [card], "confirm": err.body["token"], "reason": reason})


def _rows(out: dict[str, Any]) -> dict[int, dict[str, Any]]:
    return {r[0]: dict(zip(out["columns"], r, strict=True)) for r in out["cards"]}


# --------------------------------------------------------------------------- board_outline


def test_the_outline_is_every_live_box_without_content(any_ws: Workspace) -> None:
    checklist, note = _board(any_ws)
    out = any_ws.call("board_outline", {"board": "b"})
    scraped = {c["id"]: c for c in any_ws.call("scrape_board", {"board": "b"})["cards"]}
    rows = _rows(out)
    assert set(rows) == set(scraped) and {checklist, note} < set(rows)
    for cid, row in rows.items():
        card = scraped[cid]
        assert (row["kind"], row["x"], row["y"], row["w"], row["h"]) == (
            card["kind"],
            card["x"],
            card["y"],
            card["w"],
            card["h"],
        )
    assert "payload" not in str(out["columns"])
    extent = out["extent"]
    assert extent["x"] == min(c["x"] for c in scraped.values())
    assert extent["x"] + extent["w"] == max(c["x"] + c["w"] for c in scraped.values())
    # A region keeps the cards reaching into it.
    note_box = scraped[note]
    inside = any_ws.call(
        "board_outline",
        {"board": "b", "region": {"x": note_box["x"] + 1, "y": note_box["y"] + 1, "w": 2, "h": 2}},
    )
    assert [r[0] for r in inside["cards"]] == [note]
    # Removed cards leave the outline.
    any_ws.call("update_cards", {"remove": [note]}, AGENT)
    assert set(_rows(any_ws.call("board_outline", {"board": "b"}))) == set(scraped) - {note}


@pytest.mark.parametrize(
    ("who", "may"),
    [
        (
            Principal.owner(),
            {"tick_checklist": True, "answer_question": True, "send_answers": True},
        ),
        (ANA, {"tick_checklist": True, "answer_question": True, "send_answers": True}),
        (AGENT, {"tick_checklist": True, "answer_question": False, "send_answers": False}),
        (
            Principal.share("b", "annotate"),
            {"tick_checklist": True, "answer_question": False, "send_answers": False},
        ),
        (
            Principal.share("b", "view"),
            {"tick_checklist": False, "answer_question": False, "send_answers": False},
        ),
    ],
)
def test_the_outline_says_which_actions_the_caller_may_take(
    ws: Workspace, who: Principal, may: dict[str, bool]
) -> None:
    _board(ws)
    out = ws.call("board_outline", {"board": "b", "ops": [*may, "no_such_op"]}, who)
    assert out["may"] == {**may, "no_such_op": False}
    # What may says is what the road does.
    for name, allowed in may.items():
        if not allowed:
            assert _err(ws, name, {"board": "b", "id": 1}, who).status == 403


def test_a_share_link_reads_only_its_own_board(ws: Workspace) -> None:
    _board(ws)
    _board(ws, "other")
    for op, params in (
        ("board_outline", {"board": "other"}),
        ("board_changes", {"board": "other", "since": 0}),
        ("get", {"kind": "cards", "board": "other", "ids": [1]}),
    ):
        assert _err(ws, op, params, Principal.share("b")).status == 403


# --------------------------------------------------------------------------- board_changes


def test_changes_name_the_cards_written_since_a_rev(any_ws: Workspace) -> None:
    checklist, note = _board(any_ws)
    start = any_ws.call("board_outline", {"board": "b"})
    quiet = any_ws.call("board_changes", {"board": "b", "since": start["rev"]})
    assert (quiet["rev"], quiet["cards"], quiet["reset"], quiet["edges"]) == (
        start["rev"],
        [],
        False,
        False,
    )
    assert (quiet["questions"], quiet["look"]) == (start["questions"], start["look"])

    any_ws.call("update_cards", {"patch": [{"id": note, "x": 900, "y": 40}]}, AGENT)
    moved = any_ws.call("board_changes", {"board": "b", "since": start["rev"]})
    assert moved["rev"] > start["rev"]
    assert [(c["id"], c["x"], c["y"]) for c in moved["cards"]] == [(note, 900, 40)]
    assert "removed" not in moved["cards"][0]

    any_ws.call("update_cards", {"remove": [note]}, AGENT)
    gone = any_ws.call("board_changes", {"board": "b", "since": moved["rev"]})
    assert [(c["id"], c.get("removed")) for c in gone["cards"]] == [(note, True)]

    wired = any_ws.call(
        "compose_board",
        {
            "board": "b",
            "cards": [{"kind": "note", "ref": "n", "payload": {"md": "x"}}],
            "edges": [{"from": "n", "to": checklist}],
        },
        AGENT,
    )
    after = any_ws.call("board_changes", {"board": "b", "since": gone["rev"]})
    assert after["edges"] is True
    assert wired["cards"][0]["id"] in {c["id"] for c in after["cards"]}
    # A rev from the future (another board's, a restored database) asks for a redraw.
    assert any_ws.call("board_changes", {"board": "b", "since": after["rev"] + 5})["reset"]


def test_the_stamps_follow_questions_and_the_boards_look(ws: Workspace) -> None:
    _board(ws)
    first = ws.call("board_outline", {"board": "b"})
    q = ws.call("ask_board", {"board": "b", "prompt": "Ship?", "options": ["yes"]}, AGENT)
    asked = ws.call("board_changes", {"board": "b", "since": first["rev"]})
    assert asked["questions"] != first["questions"] and asked["cards"] == []
    ws.call("answer_question", {"id": q["question"]["id"], "answer": "yes"}, ANA)
    answered = ws.call("board_changes", {"board": "b", "since": first["rev"]})
    assert answered["questions"] != asked["questions"]
    # A compose stamps the board's meta but keeps its look; a theme changes it.
    ws.call("compose_board", {"board": "b", "cards": [{"kind": "note", "payload": {"md": "y"}}]})
    assert ws.call("board_changes", {"board": "b", "since": 0})["look"] == first["look"]
    ws.call("set_board_meta", {"board": "b", "theme": "sketch"})
    assert ws.call("board_changes", {"board": "b", "since": 0})["look"] != first["look"]


_STEPS = st.lists(
    st.one_of(
        st.tuples(st.just("add"), st.integers(0, 3)),
        st.tuples(
            st.just("move"), st.integers(0, 50), st.integers(-400, 2000), st.integers(-400, 2000)
        ),
        st.tuples(st.just("remove"), st.integers(0, 50)),
        st.tuples(st.just("restore"), st.integers(0, 50)),
    ),
    min_size=1,
    max_size=8,
)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(steps=_STEPS, every=st.integers(1, 3))
def test_applying_the_changes_to_an_outline_gives_the_board_outline(
    steps: list[tuple[Any, ...]], every: int
) -> None:
    """What a viewer does: keep an outline and fold each change in. It never drifts."""
    with Workspace.open() as ws:
        _board(ws)
        seen = ws.call("board_outline", {"board": "b"})
        kept = _rows(seen)
        rev = seen["rev"]
        removed: list[int] = []
        for n, step in enumerate(steps):
            live = sorted(_rows(ws.call("board_outline", {"board": "b"})))
            if step[0] == "add":
                ws.call(
                    "compose_board",
                    {
                        "board": "b",
                        "cards": [{"kind": "note", "payload": {"md": "n"}}] * (step[1] + 1),
                    },
                    AGENT,
                )
            elif step[0] == "move" and live:
                card = live[step[1] % len(live)]
                ws.call("update_cards", {"patch": [{"id": card, "x": step[2], "y": step[3]}]})
            elif step[0] == "remove" and live:
                card = live[step[1] % len(live)]
                _remove(ws, card)
                removed.append(card)
            elif step[0] == "restore" and removed:
                ws.call("update_cards", {"restore": [removed.pop(step[1] % len(removed))]})
            if n % every == 0 or n == len(steps) - 1:
                changes = ws.call("board_changes", {"board": "b", "since": rev})
                assert not changes["reset"]
                for c in changes["cards"]:
                    if c.get("removed"):
                        kept.pop(c["id"], None)
                    else:
                        kept[c["id"]] = {k: c[k] for k in seen["columns"]}
                rev = changes["rev"]
        assert kept == _rows(ws.call("board_outline", {"board": "b"}))


# --------------------------------------------------------------------------- get kind cards


def test_get_cards_reads_payloads_of_one_board_by_id(ws: Workspace) -> None:
    checklist, note = _board(ws)
    (elsewhere,) = _board(ws, "other")[:1]
    ws.call("update_cards", {"remove": [note]}, AGENT)
    out = ws.call(
        "get",
        {"kind": "cards", "board": "b", "ids": [checklist, note, elsewhere, 10**6]},
        Principal.share("b"),
    )
    assert [c["id"] for c in out["cards"]] == [checklist]
    assert out["cards"][0]["payload"]["items"][1] == {"text": "Bench", "done": True}
    assert out["missing"] == [note, elsewhere, 10**6]
    too_many = _err(ws, "get", {"kind": "cards", "board": "b", "ids": list(range(1, 202))})
    assert (too_many.status, too_many.code) == (400, "invalid_params")


# --------------------------------------------------------------------------- tick_checklist


def _done(ws: Workspace, card: int) -> list[bool]:
    got = ws.call("get", {"kind": "cards", "board": "b", "ids": [card]}, AGENT)["cards"][0]
    return [i["done"] for i in got["payload"]["items"]]


def test_a_tick_persists_where_agents_read_it(any_ws: Workspace) -> None:
    checklist, _ = _board(any_ws)
    before = any_ws.call("get", {"kind": "cards", "board": "b", "ids": [checklist]})["cards"][0]
    out = any_ws.call(
        "tick_checklist", {"id": checklist, "item": 0, "done": True, "text": "Docs"}, ANA
    )
    assert (out["changed"], out["done"], out["version"]) == (True, True, before["version"] + 1)
    assert _done(any_ws, checklist) == [True, True]
    scraped = any_ws.call("scrape_board", {"board": "b"}, AGENT)["cards"]
    assert [i["done"] for i in scraped[0]["payload"]["items"]] == [True, True]
    # Unticking, by an agent this time; the card stays the agent's own, on its layer.
    any_ws.call("tick_checklist", {"id": checklist, "item": 1, "done": False}, AGENT)
    assert _done(any_ws, checklist) == [True, False]
    with any_ws.store.read() as tx:
        card = tx.card(checklist)
        assert card is not None and (card.author, card.layer) == ("agent:claude", "ai")
        events = tx.events(board_id=card.board_id, action="checklist.tick")
    assert [(e.principal, e.detail) for e in events] == [
        ("user:ana", {"card": checklist, "item": 0, "done": True}),
        ("agent:claude", {"card": checklist, "item": 1, "done": False}),
    ]


def test_ticking_what_is_already_ticked_writes_nothing(ws: Workspace) -> None:
    checklist, _ = _board(ws)
    rev = ws.call("board_outline", {"board": "b"})["rev"]
    out = ws.call("tick_checklist", {"id": checklist, "item": 1, "done": True}, ANA)
    assert out["changed"] is False
    assert ws.call("board_changes", {"board": "b", "since": rev})["cards"] == []


def test_a_tick_with_a_request_key_lands_once(ws: Workspace) -> None:
    checklist, _ = _board(ws)
    params = {"id": checklist, "item": 0, "done": True, "requestKey": "tick-1"}
    first = ws.call("tick_checklist", params, ANA)
    assert ws.call("tick_checklist", params, ANA) == first
    with ws.store.read() as tx:
        assert len(tx.events(action="checklist.tick")) == 1


@pytest.mark.parametrize(
    ("params", "status", "code"),
    [
        ({"item": 2, "done": True}, 400, "unknown_item"),
        ({"item": 0, "done": True, "text": "Docs v2"}, 409, "checklist_changed"),
        ({"item": 0, "done": "yes"}, 400, "invalid_params"),
        ({"item": -1, "done": True}, 400, "invalid_params"),
    ],
)
def test_tick_refusals(ws: Workspace, params: dict[str, Any], status: int, code: str) -> None:
    checklist, _ = _board(ws)
    err = _err(ws, "tick_checklist", {"id": checklist, **params}, ANA)
    assert (err.status, err.code) == (status, code)
    assert _done(ws, checklist) == [False, True]


def test_only_checklists_of_this_workspace_are_ticked(ws: Workspace) -> None:
    checklist, note = _board(ws)
    err = _err(ws, "tick_checklist", {"id": note, "item": 0, "done": True})
    assert (err.status, err.code) == (400, "not_a_checklist")
    err = _err(ws, "tick_checklist", {"id": 10**6, "item": 0, "done": True})
    assert (err.status, err.code) == (404, "unknown_card")
    ws.call("update_cards", {"remove": [checklist]}, AGENT)
    assert _err(ws, "tick_checklist", {"id": checklist, "item": 0, "done": True}).status == 404


def test_share_links_tick_by_mode(ws: Workspace) -> None:
    checklist, _ = _board(ws)
    _board(ws, "other")
    view = _err(
        ws, "tick_checklist", {"id": checklist, "item": 0, "done": True}, Principal.share("b")
    )
    assert (view.status, view.code) == (403, "forbidden")
    elsewhere = Principal.share("other", "annotate")
    assert (
        _err(ws, "tick_checklist", {"id": checklist, "item": 0, "done": True}, elsewhere).status
        == 403
    )
    ws.call(
        "tick_checklist",
        {"id": checklist, "item": 0, "done": True},
        Principal.share("b", "annotate"),
    )
    assert _done(ws, checklist) == [True, True]


# --------------------------------------------------------------------------- people and links


def test_people_see_the_answers_they_staged_agents_only_after_send(ws: Workspace) -> None:
    _board(ws)
    q = ws.call("ask_board", {"board": "b", "prompt": "Ship?", "options": ["yes", "no"]}, AGENT)
    answered = ws.call("answer_question", {"id": q["question"]["id"], "answer": "no"}, ANA)
    assert answered["question"]["answers"] == ["no"]
    read = {
        who.kind: ws.call("get", {"kind": "questions", "board": "b"}, who)["questions"][0]
        for who in (ANA, AGENT, Principal.share("b"))
    }
    assert read["user"]["answers"] == ["no"]
    assert read["agent"]["answers"] is None and read["share"]["answers"] is None


def test_a_share_link_remembers_the_card_it_opens_on(ws: Workspace) -> None:
    checklist, _ = _board(ws)
    url = ws.call("share_board", {"board": "b", "cardId": checklist})["url"]
    who = ws.authenticate(url.rsplit("/", 1)[-1])
    assert who is not None and (who.kind, who.board, who.card) == ("share", "b", checklist)
    plain = ws.authenticate(ws.call("share_board", {"board": "b"})["url"].rsplit("/", 1)[-1])
    assert plain is not None and plain.card is None
