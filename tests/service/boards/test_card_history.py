"""card_history: the contents a card has had, newest first, with the patch that brings
each back through update_cards."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from layoutkit import Workspace
from layoutkit.service.shared.merge_patch import merge_patch, patch_between
from tests.service.helpers import err


@pytest.fixture
def card(ws: Workspace) -> int:
    ws.call("create", {"kind": "board", "slug": "b"})
    (made,) = ws.call(
        "compose_board", {"board": "b", "cards": [{"kind": "text", "payload": {"md": "one"}}]}
    )["cards"]
    return made["id"]


def _patch(ws: Workspace, card: int, **patch: Any) -> None:
    ws.call("update_cards", {"board": "b", "patch": [{"id": card, **patch}]})


def test_each_content_is_an_entry_newest_first_and_moves_make_none(
    ws: Workspace, card: int
) -> None:
    _patch(ws, card, x=400)  # v2: a move, the same content
    _patch(ws, card, payload={"md": "two, a longer text"})  # v3
    _patch(ws, card, y=300)  # v4
    h = ws.call("card_history", {"board": "b", "id": card})
    assert h["version"] == 4 and h["more"] is False
    spans = [(v["version"], v["through"], v["text"], v["current"]) for v in h["versions"]]
    assert spans == [(3, 4, "two, a longer text", True), (1, 2, "one", False)]
    assert "restore" not in h["versions"][0]
    assert h["versions"][1]["restore"] == {"md": "one"}


def test_restoring_an_entry_through_update_cards_brings_its_content_back(
    ws: Workspace, card: int
) -> None:
    _patch(ws, card, payload={"md": "two"})
    h = ws.call("card_history", {"board": "b", "id": card})
    old = h["versions"][-1]
    assert old["restore"] == {"md": "one"}
    ws.call(
        "update_cards",
        {"board": "b", "patch": [{"id": card, "payload": old["restore"], "version": h["version"]}]},
    )
    after = ws.call("card_history", {"board": "b", "id": card})
    assert after["versions"][0]["text"] == "one" and after["versions"][0]["current"]
    assert [v["version"] for v in after["versions"]] == [3, 2, 1]


def test_limit_keeps_the_newest_and_says_there_are_more(ws: Workspace, card: int) -> None:
    for i in range(5):
        _patch(ws, card, payload={"md": f"text {i}"})
    h = ws.call("card_history", {"board": "b", "id": card, "limit": 2})
    assert [v["text"] for v in h["versions"]] == ["text 4", "text 3"] and h["more"] is True


def test_every_limit_answers_the_newest_entries_of_the_whole_history(
    ws: Workspace, card: int
) -> None:
    # Moves between contents, a size change and a content brought back: the history read
    # in part (newest rows only) must agree with the whole read, spans included.
    steps: list[dict[str, Any]] = [
        {"payload": {"md": "two"}},
        {"x": 500},
        {"payload": {"md": "three"}},
        {"w": 520},
        {"y": 90},
        {"payload": {"md": "one"}},
        {"x": 20},
    ]
    for step in steps:
        _patch(ws, card, **step)
    whole = ws.call("card_history", {"board": "b", "id": card, "limit": 100})
    assert whole["more"] is False and len(whole["versions"]) == 5
    for limit in range(1, 7):
        part = ws.call("card_history", {"board": "b", "id": card, "limit": limit})
        assert part["versions"] == whole["versions"][:limit]
        assert part["more"] is (limit < len(whole["versions"]))


def test_a_card_of_another_board_or_workspace_is_unknown(ws: Workspace, card: int) -> None:
    ws.call("create", {"kind": "board", "slug": "other"})
    e = err(ws, "card_history", {"board": "other", "id": card})
    assert (e.status, e.code, e.body["field"]) == (404, "unknown_card", "id")
    e = err(ws, "card_history", {"board": "b", "id": 10**9})
    assert (e.status, e.code) == (404, "unknown_card")


_VALUES = st.one_of(
    st.none(), st.integers(), st.text(max_size=5), st.lists(st.integers(), max_size=2)
)
_DICTS = st.dictionaries(st.sampled_from("abcdef"), _VALUES.filter(lambda v: v is not None))


@given(_DICTS, _DICTS)
def test_patch_between_turns_one_payload_into_the_other(now: dict, then: dict) -> None:
    assert merge_patch(now, patch_between(now, then)) == then
