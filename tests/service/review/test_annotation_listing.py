"""get {kind: annotations}: a board's findings as the viewer lists them, and the
annotations stamp board_outline and board_changes carry so a page knows to read
them again."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from layoutkit import Principal, ServiceError, Workspace

AGENT = Principal.agent("claude")
ANA = Principal.user("ana")


@pytest.fixture
def ws() -> Iterator[Workspace]:
    with Workspace.open() as workspace:
        workspace.call("create", {"kind": "board", "slug": "rev"})
        yield workspace


def _cards(ws: Workspace, n: int = 2) -> list[int]:
    cards = [{"kind": "note", "payload": {"md": f"Note {i}"}} for i in range(n)]
    out = ws.call("compose_board", {"board": "rev", "cards": cards}, AGENT)
    return [c["id"] for c in out["cards"]]


def _file(ws: Workspace, card: int, key: str, **extra: Any) -> int:
    item = {
        "key": key,
        "cardId": card,
        "cardVersion": 1,
        "region": {"nx": 0.1, "ny": 0.1, "nw": 0.2, "nh": 0.2},
        "prompt": f"finding {key}",
        **extra,
    }
    out = ws.call("annotate", {"board": "rev", "items": [item]}, AGENT)
    assert out["results"][0]["status"] == "created", out
    return int(out["results"][0]["id"])


def _stamp(ws: Workspace) -> str:
    out: str = ws.call("board_changes", {"board": "rev", "since": 0})["annotations"]
    return out


def test_the_open_findings_are_listed_oldest_first_with_what_a_person_needs(
    ws: Workspace,
) -> None:
    a, b = _cards(ws)
    first = _file(ws, a, "k1", severity="high", category="contrast")
    second = _file(ws, b, "k2", intent="investigate")
    third = _file(ws, a, "k3", category="copy")
    ws.call("agent_verdict", {"board": "rev", "action": "dismiss", "ids": [third]}, ANA)
    ws.call("agent_verdict", {"board": "rev", "action": "accept", "ids": [second]}, ANA)
    listed = ws.call("get", {"kind": "annotations", "board": "rev"}, ANA)
    assert listed["board"] == "rev"
    assert [(f["id"], f["state"]) for f in listed["annotations"]] == [
        (first, "staged"),
        (second, "open"),
    ]
    one = listed["annotations"][0]
    assert (one["cardId"], one["severity"], one["category"], one["intent"]) == (
        a,
        "high",
        "contrast",
        "fix",
    )
    assert one["author"] == "agent:claude" and one["via"] == "via claude"
    assert one["prompt"] == {"summary": "finding k1"}
    assert one["region"]["normalized"] == {"nx": 0.1, "ny": 0.1, "nw": 0.2, "nh": 0.2}
    # The same views get_annotation and scrape_board answer with.
    assert one == ws.call("get_annotation", {"id": first}, ANA)
    assert listed["annotations"] == ws.call("scrape_board", {"board": "rev"}, ANA)["annotations"]
    # states names others, cardId narrows to one card.
    gone = ws.call("get", {"kind": "annotations", "board": "rev", "states": ["cancelled"]})
    assert [f["id"] for f in gone["annotations"]] == [third]
    on_a = ws.call(
        "get",
        {"kind": "annotations", "board": "rev", "cardId": a, "states": ["staged", "cancelled"]},
    )
    assert [f["id"] for f in on_a["annotations"]] == [first, third]


def test_bad_params_and_who_may_read(ws: Workspace) -> None:
    (card,) = _cards(ws, 1)
    _file(ws, card, "k1")
    with pytest.raises(ServiceError) as bad:
        ws.call("get", {"kind": "annotations", "board": "rev", "states": ["done"]})
    assert bad.value.status == 400
    with pytest.raises(ServiceError) as missing:
        ws.call("get", {"kind": "annotations", "board": "nope"})
    assert (missing.value.status, missing.value.code) == (404, "unknown_board")
    # Agents and share links of either mode read findings (get_annotation does too).
    assert len(ws.call("get", {"kind": "annotations", "board": "rev"}, AGENT)["annotations"]) == 1
    ws.call("create", {"kind": "board", "slug": "elsewhere"})
    for mode in ("view", "annotate"):
        link = Principal.share("rev", mode)
        assert (
            len(ws.call("get", {"kind": "annotations", "board": "rev"}, link)["annotations"]) == 1
        )
        with pytest.raises(ServiceError) as other:
            ws.call("get", {"kind": "annotations", "board": "elsewhere"}, link)
        assert other.value.status == 403


def test_the_stamp_moves_with_every_write_to_a_finding_and_leaves_the_rev_alone(
    ws: Workspace,
) -> None:
    (card,) = _cards(ws, 1)
    outline = ws.call("board_outline", {"board": "rev"})
    stamps = [outline["annotations"]]
    assert _stamp(ws) == stamps[0]
    rev = outline["rev"]
    fid = _file(ws, card, "k1")
    steps = [
        lambda: ws.call("retriage_annotation", {"id": fid, "intent": "redesign"}, ANA),
        lambda: ws.call("agent_verdict", {"board": "rev", "action": "accept"}, ANA),
        lambda: ws.call("reply", {"id": fid, "text": "On it"}, AGENT),
        lambda: ws.call("set_status", {"id": fid, "status": "working"}, AGENT),
        lambda: ws.call("withdraw_annotation", {"id": fid}, ANA),
    ]
    stamps.append(_stamp(ws))
    for step in steps:
        step()
        stamps.append(_stamp(ws))
    assert len(set(stamps)) == len(stamps), stamps
    # Reading changes nothing; findings do not move the cards' change counter.
    assert _stamp(ws) == stamps[-1]
    assert ws.call("board_changes", {"board": "rev", "since": rev})["cards"] == []


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(["file", "accept", "dismiss", "retriage", "withdraw"]), max_size=8))
def test_the_listing_is_every_open_finding_and_the_stamp_follows_it(moves: list[str]) -> None:
    with Workspace.open() as ws:
        ws.call("create", {"kind": "board", "slug": "rev"})
        (card,) = _cards(ws, 1)
        n = 0
        for move in moves:
            before = _stamp(ws)
            listed = ws.call("get", {"kind": "annotations", "board": "rev"})["annotations"]
            staged = [f["id"] for f in listed if f["state"] == "staged"]
            if move == "file":
                n += 1
                _file(ws, card, f"k{n}", region={"nx": 0.09 * n, "ny": 0, "nw": 0.05, "nh": 0.05})
            elif move in ("accept", "dismiss") and staged:
                ws.call("agent_verdict", {"board": "rev", "action": move, "ids": staged[:1]}, ANA)
            elif move == "retriage" and staged:
                now = next(f["intent"] for f in listed if f["id"] == staged[0])
                intent = "fix" if now == "comment" else "comment"
                ws.call("retriage_annotation", {"id": staged[0], "intent": intent}, ANA)
            elif move == "withdraw" and listed:
                ws.call("withdraw_annotation", {"id": listed[-1]["id"]}, ANA)
            else:
                assert _stamp(ws) == before
                continue
            after = ws.call("get", {"kind": "annotations", "board": "rev"})["annotations"]
            moved = [(f["id"], f["state"], f["intent"]) for f in after] != [
                (f["id"], f["state"], f["intent"]) for f in listed
            ]
            assert moved and _stamp(ws) != before
        with ws.store.read() as tx:
            board = tx.board_by_slug(ws.workspace_id, "rev")
            assert board is not None
            open_ids = [
                a.id for a in tx.annotations(board.id) if a.state not in ("resolved", "cancelled")
            ]
        assert [
            f["id"] for f in ws.call("get", {"kind": "annotations", "board": "rev"})["annotations"]
        ] == open_ids
