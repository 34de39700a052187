"""Revoking credentials: a board's share links and API tokens, through the registry."""

from __future__ import annotations

import uuid

import pytest

from layoutkit import Principal, Workspace
from tests.service.helpers import err

ANA = Principal.user("ana")


@pytest.fixture
def ws(any_ws: Workspace) -> Workspace:
    any_ws.call("create", {"kind": "board", "slug": "b"})
    return any_ws


def test_a_revoked_share_link_stops_granting_the_board(ws: Workspace) -> None:
    kept = ws.call("share_board", {"board": "b"})
    gone = ws.call("share_board", {"board": "b", "mode": "annotate"})
    token = gone["url"].rsplit("/", 1)[-1]
    link = ws.authenticate(token)
    assert link is not None
    ws.call("scrape_board", {"board": "b"}, link)
    out = ws.call("revoke_share_link", {"board": "b", "id": gone["id"]}, ANA)
    assert out["link"]["id"] == gone["id"] and out["link"]["revoked"] is not None
    assert ws.authenticate(token) is None
    assert ws.authenticate(kept["url"].rsplit("/", 1)[-1]) is not None
    listed = ws.call("list_share_links", {"board": "b"})["links"]
    assert [(x["id"], x["revoked"] is None) for x in listed] == [
        (kept["id"], True),
        (gone["id"], False),
    ]
    assert all("url" not in x for x in listed)
    again = err(ws, "revoke_share_link", {"board": "b", "id": gone["id"]})
    assert (again.status, again.code) == (404, "unknown_share_link")


def test_a_share_link_is_revoked_on_its_own_board_only(ws: Workspace) -> None:
    ws.call("create", {"kind": "board", "slug": "other"})
    link = ws.call("share_board", {"board": "b"})
    e = err(ws, "revoke_share_link", {"board": "other", "id": link["id"]})
    assert (e.status, e.code) == (404, "unknown_share_link")
    # A share link cannot revoke links, nor list them.
    viewer = ws.authenticate(link["url"].rsplit("/", 1)[-1])
    assert err(ws, "revoke_share_link", {"board": "b", "id": link["id"]}, viewer).status == 403
    assert err(ws, "list_share_links", {"board": "b"}, viewer).status == 403


def test_tokens_are_revoked_by_the_owner_or_in_their_own_name(ws: Workspace) -> None:
    # Tokens belong to the store, not to one workspace: names unique to this test.
    suffix = uuid.uuid4().hex[:8]
    ana_name, ben_name = f"ana-{suffix}", f"ben-{suffix}"
    as_ana = Principal.user(ana_name)
    ana = ws.create_token("user", ana_name)
    ben = ws.create_token("user", ben_name)
    rows = {t["name"]: t["id"] for t in ws.call("list_tokens", {})["tokens"]}
    ana_id, ben_id = rows[ana_name], rows[ben_name]
    # Others' tokens are neither listed nor revocable.
    assert [t["name"] for t in ws.call("list_tokens", {}, as_ana)["tokens"]] == [ana_name]
    e = err(ws, "revoke_token", {"token": str(ben_id)}, as_ana)
    assert (e.status, e.code) == (404, "unknown_token")
    assert ws.authenticate(ben) is not None
    # Ana revokes her own; the owner revokes Ben's.
    assert ws.call("revoke_token", {"token": ana_name}, as_ana)["id"] == ana_id
    assert ws.authenticate(ana) is None
    assert ws.call("revoke_token", {"token": str(ben_id)})["revoked"] is not None
    assert ws.authenticate(ben) is None
    assert err(ws, "revoke_token", {"token": ben_name}).code == "unknown_token"
    live = {t["name"] for t in ws.call("list_tokens", {"live": True})["tokens"]}
    assert not {ana_name, ben_name} & live
