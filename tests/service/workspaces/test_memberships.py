"""Several workspaces in one database: tokens reach only their workspaces, with a role."""

from __future__ import annotations

import threading
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from layoutkit import Principal, ServiceError, Workspace
from layoutkit.service.road import tokens as api_tokens
from layoutkit.storage import _schema as s
from tests.service.helpers import err, join
from tests.service.transfer_fixtures import BACKENDS, two_workspaces

RULE = """---
id: tone
family: copy
check: judgment
severity: medium
---
Buttons say what they do.

Verify:
- every button label is a verb
"""


@pytest.fixture(params=BACKENDS)
def pair(request: pytest.FixtureRequest, tmp_path: Path):  # type: ignore[no-untyped-def]
    with two_workspaces(request.param, tmp_path) as both:
        yield both


def test_a_token_of_one_workspace_is_refused_by_another(pair) -> None:  # type: ignore[no-untyped-def]
    src, dst = pair
    token = src.create_token("user", "ana")
    signed = src.authenticate(token)
    assert signed is not None and (signed.kind, signed.role) == ("user", "member")
    assert dst.authenticate(token) is None
    assert [t["name"] for t in dst.call("list_tokens", {})["tokens"]] == []


def test_a_principal_lists_only_the_workspaces_it_belongs_to(pair) -> None:  # type: ignore[no-untyped-def]
    src, dst = pair
    token = src.create_token("owner", "bo")
    bo = src.authenticate(token)
    assert bo is not None
    seen = src.call("list_workspaces", {}, bo)["workspaces"]
    assert seen == [{"name": src.name, "role": "owner", "current": True, "archived": None}]
    join(dst, bo, "admin", via=src)
    seen = src.call("list_workspaces", {}, bo)["workspaces"]
    assert {(w["name"], w["role"]) for w in seen} == {(src.name, "owner"), (dst.name, "admin")}
    admin_of = src.call("list_workspaces", {"role": "admin"}, bo)["workspaces"]
    assert [w["name"] for w in admin_of] == [dst.name]
    there = dst.authenticate(token)
    assert there is not None and there.role == "admin"


def test_members_are_listed_with_their_roles(pair) -> None:  # type: ignore[no-untyped-def]
    src, _ = pair
    src.create_token("owner", "bo")
    src.create_token("user", "ana", role="admin")
    member = src.authenticate(src.create_token("agent", "claude"))
    rows = src.call("list_members", {})["members"]
    assert [(m["kind"], m["name"], m["role"]) for m in rows] == [
        ("owner", "bo", "owner"),
        ("user", "ana", "admin"),
        ("agent", "claude", "member"),
    ]
    admins = src.call("list_members", {"role": "admin"})["members"]
    assert [m["name"] for m in admins] == ["ana"]
    assert member is not None
    own = src.call("list_members", {}, member)["members"]
    assert [m["name"] for m in own] == ["claude"]


def test_only_owners_change_members_and_removal_ends_access(pair) -> None:  # type: ignore[no-untyped-def]
    src, _ = pair
    admin = src.authenticate(src.create_token("user", "ana", role="admin"))
    token = src.create_token("user", "cy")
    cy = src.authenticate(token)
    assert admin is not None and cy is not None
    e = err(src, "set_member", {"token": cy.token, "role": "owner"}, admin)
    assert (e.status, e.code) == (403, "forbidden")
    assert src.call("set_member", {"token": cy.token, "remove": True})["removed"]
    assert src.authenticate(token) is None
    assert err(src, "set_member", {"token": 999999, "role": "member"}).code == "unknown_token"


def test_review_rule_writes_need_admin_or_higher(pair) -> None:  # type: ignore[no-untyped-def]
    src, _ = pair
    src.call("create", {"kind": "board", "slug": "home", "project": "shop"})
    member = src.authenticate(src.create_token("user", "ana"))
    admin = src.authenticate(src.create_token("user", "bo", role="admin"))
    assert member is not None and admin is not None
    e = err(src, "put_review_rule", {"project": "shop", "source": RULE}, member)
    assert (e.status, e.code, e.body["required"]) == (403, "forbidden", "admin")
    put = src.call("put_review_rule", {"project": "shop", "source": RULE}, admin)
    assert put["rule"]["id"] == "tone"
    e = err(src, "delete_review_rule", {"project": "shop", "id": "tone"}, member)
    assert e.status == 403
    agent = Principal("agent", "claude", role="admin")
    assert err(src, "put_review_rule", {"source": RULE}, agent).code == "forbidden"


# ---------------------------------------------------------------- a token has a home


def _signed(ws: Workspace, kind: str, name: str, role: str | None = None) -> tuple[str, Principal]:
    plain = ws.create_token(kind, name, role=role)
    who = ws.authenticate(plain)
    assert who is not None
    return plain, who


def _same_refusal(a: ServiceError, b: ServiceError, a_id: int, b_id: int) -> None:
    """Two refusals that differ in nothing but the token id each names."""
    assert (a.status, a.code) == (b.status, b.code)
    assert a.message.replace(str(a_id), "<id>") == b.message.replace(str(b_id), "<id>")
    assert {k: v for k, v in a.body.items() if k != "message"} == {
        k: v for k, v in b.body.items() if k != "message"
    }


def test_another_workspaces_owner_token_cannot_be_pulled_in_nor_revoked(pair) -> None:  # type: ignore[no-untyped-def]
    a, b = pair
    _, al = _signed(a, "owner", "al")
    bea_plain, bea = _signed(b, "owner", "bea")
    assert bea.token is not None
    nowhere = 10**9
    for caller in (al, None):
        never = err(a, "set_member", {"token": nowhere, "role": "owner"}, caller)
        pulled = err(a, "set_member", {"token": bea.token, "role": "owner"}, caller)
        _same_refusal(pulled, never, bea.token, nowhere)
        assert (pulled.status, pulled.code) == (404, "unknown_token")
        never = err(a, "set_member", {"token": nowhere, "remove": True}, caller)
        removed = err(a, "set_member", {"token": bea.token, "remove": True}, caller)
        _same_refusal(removed, never, bea.token, nowhere)
        never = err(a, "revoke_token", {"token": str(nowhere)}, caller)
        revoked = err(a, "revoke_token", {"token": str(bea.token)}, caller)
        _same_refusal(revoked, never, bea.token, nowhere)
        assert (revoked.status, revoked.code) == (404, "unknown_token")
        assert err(a, "revoke_token", {"token": "bea"}, caller).code == "unknown_token"
    # B's owner is untouched: it still works in B, and A never became its workspace.
    assert b.authenticate(bea_plain) == bea
    assert a.authenticate(bea_plain) is None
    assert [m["name"] for m in a.call("list_members", {})["members"]] == ["al"]


def test_a_token_joins_another_workspace_by_invitation(pair) -> None:  # type: ignore[no-untyped-def]
    a, b = pair
    _, al = _signed(a, "owner", "al")
    bea_plain, bea = _signed(b, "user", "bea")
    invited = a.call("invite_member", {"role": "admin"}, al)
    secret = invited["invitation"]
    assert secret.startswith("lki_")
    assert (invited["workspace"], invited["role"]) == (a.name, "admin")
    accepted = b.call("accept_invitation", {"invitation": secret}, bea)
    assert accepted == {"workspace": a.name, "token": bea.token, "role": "admin"}
    there = a.authenticate(bea_plain)
    assert there is not None and (there.name, there.role) == ("bea", "admin")
    # Its home is still B: A lists it as a member from B.
    homes = {t["name"]: t["home"] for t in a.call("list_tokens", {}, al)["tokens"]}
    assert homes == {"al": a.name, "bea": b.name}
    members = {m["name"]: (m["role"], m["home"]) for m in a.call("list_members", {})["members"]}
    assert members == {"al": ("owner", a.name), "bea": ("admin", b.name)}
    # An invitation works once; a used one answers as one that never was.
    again = err(b, "accept_invitation", {"invitation": secret}, bea)
    bogus = err(b, "accept_invitation", {"invitation": "lki_" + "x" * 43}, bea)
    assert (again.status, again.code) == (404, "unknown_invitation")
    assert again.body == bogus.body
    _, cy = _signed(b, "agent", "cy")
    assert err(b, "accept_invitation", {"invitation": secret}, cy).body == bogus.body
    # Only the hash is kept; the events say who invited and who accepted.
    with a.store.read() as tx:
        rows = [dict(r._mapping) for r in tx.conn.execute(select(s.invitations))]
        # This invitation's events only: the store is shared, and a test running
        # beside this one on it may invite and accept too.
        events = {
            e.action: e
            for e in tx.events()
            if e.detail.get("invitation") == invited["id"] or e.detail.get("workspace") == a.name
        }
    assert rows and secret not in repr(rows)
    assert events["member.invite"].principal == "owner:al"
    assert events["member.accept"].principal == "user:bea"
    assert events["member.accept"].detail["workspace"] == a.name


def test_who_invites_and_who_accepts(pair) -> None:  # type: ignore[no-untyped-def]
    a, b = pair
    _, admin = _signed(a, "user", "ana", role="admin")
    e = err(a, "invite_member", {"role": "member"}, admin)
    assert (e.status, e.code, e.body["required"]) == (403, "forbidden", "owner")
    _, agent_owner = _signed(a, "agent", "bot", role="owner")
    assert err(a, "invite_member", {"role": "member"}, agent_owner).status == 403
    a.call("create", {"kind": "board", "slug": "home"})
    link = a.call("share_board", {"board": "home", "mode": "annotate"})
    viewer = a.authenticate(link["url"].rsplit("/", 1)[-1])
    assert err(a, "invite_member", {"role": "member"}, viewer).status == 403
    secret = a.call("invite_member", {"role": "member"})["invitation"]
    assert err(b, "accept_invitation", {"invitation": secret}, viewer).status == 403
    # A retry with the same requestKey is the same invitation, not a second one.
    keyed = a.call("invite_member", {"role": "member", "requestKey": "inv-1"})
    assert a.call("invite_member", {"role": "member", "requestKey": "inv-1"}) == keyed
    # A caller in the same process has no token to make a member.
    e = err(b, "accept_invitation", {"invitation": secret})
    assert (e.status, e.code) == (400, "token_required")
    # Any kind of token may be invited: an agent's too.
    agent_plain, agent = _signed(b, "agent", "claude")
    assert b.call("accept_invitation", {"invitation": secret}, agent)["role"] == "member"
    assert a.authenticate(agent_plain) is not None
    # A member already: the invitation is left for someone else.
    other = a.call("invite_member", {"role": "owner"})["invitation"]
    e = err(b, "accept_invitation", {"invitation": other}, agent)
    assert (e.status, e.code, e.body["role"]) == (409, "already_member", "member")
    _, dan = _signed(b, "user", "dan")
    assert b.call("accept_invitation", {"invitation": other}, dan)["role"] == "owner"


def test_an_invitation_lapses_when_it_expires_or_its_inviter_goes(
    pair, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    a, b = pair
    _, al = _signed(a, "owner", "al")
    _, bo = _signed(a, "owner", "bo")
    _, bea = _signed(b, "user", "bea")
    soon = a.call("invite_member", {"role": "member", "expiresInDays": 1}, al)
    by_bo = a.call("invite_member", {"role": "member"}, bo)
    assert err(a, "invite_member", {"role": "member", "expiresInDays": 0}).code == "invalid_params"
    now = a.store.clock()
    monkeypatch.setattr(a.store, "clock", lambda: now + timedelta(days=1, seconds=1))
    e = err(b, "accept_invitation", {"invitation": soon["invitation"]}, bea)
    assert (e.status, e.code) == (404, "unknown_invitation")
    monkeypatch.undo()
    # Bo's invitations go with Bo's token.
    a.call("revoke_token", {"token": str(bo.token)}, al)
    e = err(b, "accept_invitation", {"invitation": by_bo["invitation"]}, bea)
    assert (e.status, e.code) == (404, "unknown_invitation")


def test_revoking_a_member_from_elsewhere_ends_its_membership_only(pair) -> None:  # type: ignore[no-untyped-def]
    a, b = pair
    _, al = _signed(a, "owner", "al")
    bea_plain, bea = _signed(b, "user", "bea")
    join(a, bea, "member", via=b)
    assert a.authenticate(bea_plain) is not None
    ended = a.call("revoke_token", {"token": str(bea.token)}, al)
    assert (ended["id"], ended["revoked"], ended["membershipEnded"]) == (bea.token, None, True)
    assert ended["home"] == b.name
    assert a.authenticate(bea_plain) is None
    assert b.authenticate(bea_plain) is not None
    # No longer a member here, and not A's own: unknown to A.
    assert err(a, "revoke_token", {"token": str(bea.token)}, al).code == "unknown_token"
    # Its member may also end the membership in its own name.
    join(a, bea, "member", via=b)
    own = a.call("revoke_token", {"token": "bea"}, a.authenticate(bea_plain))
    assert own["membershipEnded"] and b.authenticate(bea_plain) is not None
    # A token of A's own is revoked everywhere.
    cy_plain, cy = _signed(a, "user", "cy")
    join(b, cy, "member", via=a)
    gone = a.call("revoke_token", {"token": "cy"}, al)
    assert (gone["membershipEnded"], gone["home"]) == (False, a.name)
    assert gone["revoked"] is not None
    assert a.authenticate(cy_plain) is None and b.authenticate(cy_plain) is None


def test_a_home_token_may_be_made_a_member_again(pair) -> None:  # type: ignore[no-untyped-def]
    a, _ = pair
    cy_plain, cy = _signed(a, "user", "cy")
    assert a.call("set_member", {"token": cy.token, "remove": True})["removed"]
    assert a.authenticate(cy_plain) is None
    # Still A's own: listed, and back with a role.
    assert "cy" in {t["name"] for t in a.call("list_tokens", {})["tokens"]}
    assert a.call("set_member", {"token": cy.token, "role": "admin"})["member"]["role"] == "admin"
    assert a.authenticate(cy_plain).role == "admin"  # type: ignore[union-attr]


def test_the_last_owner_token_stays(pair) -> None:  # type: ignore[no-untyped-def]
    a, b = pair
    _, al = _signed(a, "owner", "al")
    assert al.token is not None
    refusals: list[tuple[str, dict[str, Any], Principal | None]] = [
        ("set_member", {"token": al.token, "remove": True}, al),
        ("set_member", {"token": al.token, "role": "admin"}, al),
        ("revoke_token", {"token": str(al.token)}, al),
        # The deployment itself is no owner member: it cannot leave A without one.
        ("set_member", {"token": al.token, "remove": True}, None),
        ("set_member", {"token": al.token, "role": "member"}, None),
        ("revoke_token", {"token": "al"}, None),
    ]
    for op, params, caller in refusals:
        e = err(a, op, params, caller)
        assert (e.status, e.code, e.body["token"]) == (409, "last_owner", al.token), op
    # With other owners (another owner token, a user made owner) al may go.
    assert a.authenticate(a.create_token("owner", "al-2")) is not None
    _, bo = _signed(a, "user", "bo", role="owner")
    assert a.call("set_member", {"token": al.token, "role": "admin"}, bo)["member"]["role"]
    # A revoked owner token is no owner: it does not count.
    assert a.call("revoke_token", {"token": "al-2"}, bo)["revoked"] is not None
    e = err(a, "set_member", {"token": bo.token, "role": "member"}, bo)
    assert (e.status, e.code) == (409, "last_owner")
    # A token that is the last owner of another workspace is not revoked by its home,
    # which is not told that workspace's name; nor does that workspace let it go.
    _, cy = _signed(a, "user", "cy", role="owner")
    join(b, cy, "owner", via=a)
    e = err(a, "revoke_token", {"token": "cy"}, bo)
    assert (e.status, e.code) == (409, "last_owner")
    assert b.name not in e.message
    e = err(b, "revoke_token", {"token": str(cy.token)})
    assert (e.status, e.code) == (409, "last_owner")
    _signed(b, "owner", "bea")
    assert a.call("revoke_token", {"token": "cy"}, bo)["revoked"] is not None


def test_role_and_remove_together_are_refused(pair) -> None:  # type: ignore[no-untyped-def]
    a, _ = pair
    _, cy = _signed(a, "user", "cy")
    e = err(a, "set_member", {"token": cy.token, "role": "admin", "remove": True})
    assert (e.status, e.code, e.body["field"]) == (400, "invalid_params", "remove")
    e = err(a, "set_member", {"token": cy.token, "remove": False})
    assert (e.status, e.code, e.body["field"]) == (400, "invalid_params", "role")


def test_two_owners_demoting_each_other_at_once_leave_one(pair, request) -> None:  # type: ignore[no-untyped-def]
    if "memory" in request.node.callspec.id:
        pytest.skip("one in-memory connection: nothing runs at once")
    a, _ = pair
    _, al = _signed(a, "owner", "al")
    _, bo = _signed(a, "owner", "bo")
    answers: list[Any] = []

    def demote_bo() -> None:
        try:
            answers.append(a.call("set_member", {"token": bo.token, "role": "admin"}))
        except ServiceError as e:
            answers.append(e)

    # Al's demotion holds the owners' lock while Bo's is asked for: Bo's waits, then
    # counts the owners as they are once Al's has committed.
    with a.store.transaction() as tx:
        api_tokens.keep_an_owner(tx, a.workspace_id, al.token)
        tx.set_membership(a.workspace_id, al.token, "admin")
        other = threading.Thread(target=demote_bo)
        other.start()
        time.sleep(0.5)
    other.join(30)
    (answer,) = answers
    assert isinstance(answer, ServiceError) and answer.code == "last_owner"
    roles = {m["name"]: m["role"] for m in a.call("list_members", {})["members"]}
    assert roles == {"al": "admin", "bo": "owner"}
