"""Retention runs when a workspace opens: 30 days for trashed cards, 24 h for request keys."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from layoutkit import Principal, Workspace
from layoutkit.storage import open_store


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 1, 1, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


def test_trashed_cards_and_old_request_keys_are_purged_on_open() -> None:
    clock = Clock()
    store = open_store(None, clock=clock)
    ws = Workspace(store)
    agent = Principal.agent("bot")
    ws.call("create", {"kind": "board", "slug": "r"})
    first = ws.call(
        "compose_board",
        {"board": "r", "requestKey": "k1", "cards": [{"kind": "note", "payload": {"md": "a"}}] * 4},
        agent,
    )
    doomed = first["cards"][0]["id"]
    ws.call("update_cards", {"remove": [doomed]}, agent)

    clock.now += timedelta(hours=23)
    ws = Workspace(store)
    replay = ws.call(
        "compose_board",
        {"board": "r", "requestKey": "k1", "cards": [{"kind": "note", "payload": {"md": "a"}}] * 4},
        agent,
    )
    assert replay == first  # keys are kept for at least a day

    clock.now += timedelta(days=28)
    ws = Workspace(store)
    ws.call("update_cards", {"restore": [doomed]}, agent)  # still inside the window
    ws.call("update_cards", {"remove": [doomed]}, agent)

    clock.now += timedelta(days=31)
    ws = Workspace(store)
    with store.read() as tx:
        assert tx.card(doomed) is None
        assert tx.request_key(f"{ws.workspace_id}:{agent.label}", "k1") is None
    # The key is free again: the same key with other input is a fresh compose, not a 409.
    again = ws.call(
        "compose_board",
        {"board": "r", "requestKey": "k1", "cards": [{"kind": "note", "payload": {"md": "b"}}]},
        agent,
    )
    assert again["cards"][0]["id"] != doomed
