"""Several workspaces in one database: tokens reach only their workspaces, with a role."""

from __future__ import annotations

from pathlib import Path

import pytest

from layoutkit import Principal
from tests.service.helpers import err
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
    assert seen == [{"name": src.name, "role": "owner", "current": True}]
    dst.call("set_member", {"token": bo.token, "role": "admin"})
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
