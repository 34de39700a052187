"""A page card's md and its editor mirror, as the board's editor writes them.

The contract keeps md as the page's truth; pm is the editor's mirror and pmStale
says whether it lags md. The server never converts one into the other: the viewer's
editor sends md and its mirror together in one person's payload patch, and the
server keeps pmStale. These are the rules that editor relies on, on every backend.
"""

from __future__ import annotations

from typing import Any

import pytest

from layoutkit import Principal, Workspace
from layoutkit.errors import ServiceError

AGENT = Principal.agent("claude")
ANA = Principal.user("ana")
OWNER = Principal.owner()


def _mirror(text: str) -> dict[str, Any]:
    return {
        "type": "doc",
        "content": [{"type": "paragraph", "content": [{"type": "text", "text": text}]}],
    }


@pytest.fixture
def ws(any_ws: Workspace) -> Workspace:
    any_ws.call("create", {"kind": "board", "slug": "b"})
    return any_ws


def _page(ws: Workspace, md: str, who: Principal = ANA) -> int:
    out = ws.call(
        "compose_board", {"board": "b", "cards": [{"kind": "page", "payload": {"md": md}}]}, who
    )
    return out["cards"][0]["id"]


def _stored(ws: Workspace, card: int) -> tuple[dict[str, Any], int]:
    with ws.store.read() as tx:
        record = tx.card(card)
        assert record is not None
        return record.payload, record.version


def _patch(
    ws: Workspace, card: int, payload: dict[str, Any], who: Principal = ANA, **extra: Any
) -> dict[str, Any]:
    return ws.call(
        "update_cards", {"board": "b", "patch": [{"id": card, "payload": payload, **extra}]}, who
    )


def test_md_and_its_mirror_written_together_make_a_fresh_mirror(ws: Workspace) -> None:
    card = _page(ws, "one")
    out = _patch(ws, card, {"md": "two", "pm": _mirror("two")}, version=1)
    assert out["warnings"] == []
    assert _stored(ws, card) == ({"md": "two", "pm": _mirror("two"), "pmStale": False}, 2)
    # md alone (a script, another client) leaves the mirror behind: it is stale.
    _patch(ws, card, {"md": "three"})
    assert _stored(ws, card)[0] == {"md": "three", "pm": _mirror("two"), "pmStale": True}
    # The editor's next write brings both back in step.
    _patch(ws, card, {"md": "four", "pm": _mirror("four")})
    assert _stored(ws, card)[0] == {"md": "four", "pm": _mirror("four"), "pmStale": False}


def test_a_new_md_with_the_mirror_sent_back_unchanged_is_stale(ws: Workspace) -> None:
    card = _page(ws, "one")
    _patch(ws, card, {"md": "one", "pm": _mirror("one")})
    # The mirror did not follow md: an editor that sends the old one gets a stale flag.
    _patch(ws, card, {"md": "two", "pm": _mirror("one")})
    assert _stored(ws, card)[0] == {"md": "two", "pm": _mirror("one"), "pmStale": True}


def test_a_page_without_a_mirror_has_no_stale_flag(ws: Workspace) -> None:
    card = _page(ws, "one")
    _patch(ws, card, {"md": "two"})
    assert _stored(ws, card)[0] == {"md": "two"}


def test_an_agents_md_under_the_owners_mirror_makes_it_stale(ws: Workspace) -> None:
    card = _page(ws, "drafted", AGENT)
    # The workspace owner edits the agent's page in the viewer: md and mirror together.
    _patch(ws, card, {"md": "edited", "pm": _mirror("edited")}, OWNER)
    assert _stored(ws, card)[0]["pmStale"] is False
    # The agent rewrites md; it cannot write the mirror, which is now stale.
    out = _patch(ws, card, {"md": "redrafted", "pm": _mirror("redrafted")}, AGENT)
    assert [w["path"] for w in out["warnings"] if w["code"] == "server_owned"] == ["payload.pm"]
    assert _stored(ws, card)[0] == {"md": "redrafted", "pm": _mirror("edited"), "pmStale": True}
    # What a reader of the board gets back says so.
    got = ws.call("get", {"kind": "cards", "board": "b", "ids": [card]}, AGENT)["cards"][0]
    assert got["payload"]["pmStale"] is True


def test_an_edit_from_an_old_version_writes_neither_md_nor_mirror(ws: Workspace) -> None:
    card = _page(ws, "one")
    _patch(ws, card, {"md": "theirs", "pm": _mirror("theirs")})
    with pytest.raises(ServiceError) as refused:
        _patch(ws, card, {"md": "ours", "pm": _mirror("ours")}, version=1)
    assert refused.value.status == 409 and refused.value.body["code"] == "stale_card"
    assert refused.value.body["card"]["version"] == 2
    assert _stored(ws, card) == ({"md": "theirs", "pm": _mirror("theirs"), "pmStale": False}, 2)
