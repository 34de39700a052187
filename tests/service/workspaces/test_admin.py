"""Workspace administration as operations: create, rename and archive workspaces, mint
tokens; and ``Workspace.at``, the one object per workspace a request or a command
chooses by name."""

from __future__ import annotations

from pathlib import Path

import pytest

from layoutkit import Principal, ServiceError, Workspace
from tests.service.helpers import err, join
from tests.service.transfer_fixtures import BACKENDS, two_workspaces


@pytest.fixture(params=BACKENDS)
def pair(request: pytest.FixtureRequest, tmp_path: Path):  # type: ignore[no-untyped-def]
    with two_workspaces(request.param, tmp_path) as both:
        yield both


@pytest.fixture(params=BACKENDS)
def single(request: pytest.FixtureRequest, tmp_path: Path):  # type: ignore[no-untyped-def]
    with two_workspaces(request.param, tmp_path, multi=False) as both:
        yield both


def signed(ws: Workspace, kind: str, name: str, role: str | None = None) -> Principal:
    who = ws.authenticate(ws.create_token(kind, name, role=role))
    assert who is not None
    return who


def fresh(tag: str) -> str:
    return f"made-{tag}"


# ------------------------------------------------------------------ create_workspace


def test_the_maker_token_owns_the_new_workspace(pair) -> None:  # type: ignore[no-untyped-def]
    src, _ = pair
    ana = signed(src, "user", "ana", "owner")
    name = fresh(src.name)
    made = src.call("create_workspace", {"name": name}, ana)
    assert made["workspace"] == {"name": name, "role": "owner", "current": False, "archived": None}
    assert made["owner"] == ana.token
    there = src.at(name)
    assert there is not None and there.name == name
    members = there.call("list_members", {})["members"]
    assert [(m["name"], m["role"], m["home"]) for m in members] == [("ana", "owner", src.name)]
    listed = src.call("list_workspaces", {}, ana)["workspaces"]
    assert (name, "owner") in {(w["name"], w["role"]) for w in listed}
    # Its home keeps the token: the new workspace cannot revoke it, only end the membership
    # (and not while it is the last owner there).
    assert err(there, "revoke_token", {"token": str(ana.token)}).code == "last_owner"


def test_a_workspace_made_in_process_has_no_owner_token_yet(pair) -> None:  # type: ignore[no-untyped-def]
    src, _ = pair
    name = fresh(src.name)
    assert src.call("create_workspace", {"name": name})["owner"] is None
    there = src.at(name)
    assert there is not None
    assert there.call("list_members", {})["members"] == []
    bo = there.create_token("owner", "bo")
    assert there.authenticate(bo) is not None
    assert src.authenticate(bo) is None


def test_creating_a_workspace_is_for_owners_and_people(pair) -> None:  # type: ignore[no-untyped-def]
    src, dst = pair
    admin = signed(src, "user", "al", "admin")
    agent = signed(src, "agent", "claude", "owner")
    for who in (admin, agent):
        assert err(src, "create_workspace", {"name": "nope"}, who).code == "forbidden"
    taken = err(src, "create_workspace", {"name": dst.name})
    assert (taken.status, taken.code, taken.body["field"]) == (409, "workspace_exists", "name")
    bad = err(src, "create_workspace", {"name": "Has Spaces"})
    assert (bad.status, bad.code) == (400, "invalid_params")
    assert src.at("nope") is None


def test_a_single_tenant_deployment_keeps_its_one_workspace(single) -> None:  # type: ignore[no-untyped-def]
    src, dst = single
    for op, params in (
        ("create_workspace", {"name": "other"}),
        ("rename_workspace", {"name": "other"}),
        ("archive_workspace", {}),
    ):
        refused = err(src, op, params)
        assert (refused.status, refused.code) == (400, "single_tenant"), op
    assert src.at(src.name) is src
    with pytest.raises(ServiceError) as named:
        src.at(dst.name)
    assert (named.value.status, named.value.code) == (400, "single_tenant")


# ------------------------------------------------------------------ rename_workspace


def test_rename_keeps_names_unique_and_the_object_follows(pair) -> None:  # type: ignore[no-untyped-def]
    src, dst = pair
    bo = signed(src, "owner", "bo")
    old = src.name
    taken = err(src, "rename_workspace", {"name": dst.name}, bo)
    assert (taken.status, taken.code) == (409, "workspace_exists")
    member = signed(src, "user", "mo")
    assert err(src, "rename_workspace", {"name": "x1"}, member).code == "forbidden"
    new = f"{old}-renamed"
    done = src.call("rename_workspace", {"name": new}, bo)
    assert (done["was"], done["workspace"]["name"]) == (old, new)
    assert src.name == new
    assert src.at(new) is src
    assert src.at(old) is None
    assert src.call("rename_workspace", {"name": new}, bo)["was"] == new


def test_a_sibling_object_answers_to_a_new_name(pair) -> None:  # type: ignore[no-untyped-def]
    src, dst = pair
    sibling = src.at(dst.name)
    assert sibling is not None and src.at(dst.name) is sibling
    new = f"{dst.name}-b"
    dst.call("rename_workspace", {"name": new})
    assert src.at(new) is sibling and sibling.name == new


# ------------------------------------------------------------------ archive_workspace


def test_an_archived_workspace_reads_refuses_writes_and_comes_back(pair) -> None:  # type: ignore[no-untyped-def]
    src, dst = pair
    plain = dst.create_token("owner", "bo")
    bo = dst.authenticate(plain)
    assert bo is not None
    join(src, bo, "member", via=dst)
    bo_in_src = src.authenticate(plain)
    dst.call("create", {"kind": "board", "slug": "plan"})
    member = signed(dst, "user", "mo")
    assert err(dst, "archive_workspace", {}, member).code == "forbidden"
    archived = dst.call("archive_workspace", {}, bo)["workspace"]
    assert archived["archived"] is not None
    assert dst.call("get", {"kind": "board", "slug": "plan"})["board"]["slug"] == "plan"
    refused = err(dst, "create", {"kind": "board", "slug": "more"})
    assert (refused.status, refused.code, refused.body["workspace"]) == (
        409,
        "workspace_archived",
        dst.name,
    )
    assert err(dst, "create_token", {"kind": "agent", "name": "x"}).code == "workspace_archived"
    # Left out of a listing made elsewhere, unless asked for; always shown where it is current.
    from_src = src.call("list_workspaces", {}, bo_in_src)["workspaces"]
    assert dst.name not in [w["name"] for w in from_src]
    every = src.call("list_workspaces", {"archived": True}, bo_in_src)
    assert [w["archived"] is not None for w in every["workspaces"] if w["name"] == dst.name] == [
        True
    ]
    here = dst.call("list_workspaces", {}, bo)["workspaces"]
    assert [w["name"] for w in here if w["current"]] == [dst.name]
    back = dst.call("archive_workspace", {"archived": False}, bo)["workspace"]
    assert back["archived"] is None
    dst.call("create", {"kind": "board", "slug": "more"})


# ------------------------------------------------------------------ create_token


def test_owners_mint_any_token_admins_agents_and_services(pair) -> None:  # type: ignore[no-untyped-def]
    src, _ = pair
    bo = signed(src, "owner", "bo")
    made = src.call("create_token", {"kind": "user", "name": "ana", "role": "admin"}, bo)
    assert made["token"].startswith("lkt_") and made["home"] == src.name
    assert (made["kind"], made["name"], made["role"]) == ("user", "ana", "admin")
    ana = src.authenticate(made["token"])
    assert ana is not None and ana.role == "admin"
    # The plain token is never shown again.
    listed = src.call("list_tokens", {}, bo)["tokens"]
    assert all("token" not in t for t in listed)
    agent = src.call("create_token", {"kind": "agent", "name": "claude"}, ana)
    assert agent["role"] == "member"
    for params in (
        {"kind": "user", "name": "x"},
        {"kind": "agent", "name": "x", "role": "admin"},
        {"kind": "owner", "name": "x"},
    ):
        assert err(src, "create_token", params, ana).code == "forbidden", params
    owner_user = signed(src, "user", "ou", "owner")
    assert src.call("create_token", {"kind": "user", "name": "y"}, owner_user)["role"] == "member"
    assert err(src, "create_token", {"kind": "owner", "name": "y"}, owner_user).code == "forbidden"
    member = signed(src, "user", "mo")
    assert err(src, "create_token", {"kind": "agent", "name": "z"}, member).code == "forbidden"
    assert err(src, "create_token", {"kind": "robot", "name": "z"}).code == "invalid_params"


def test_a_minted_token_is_a_member_of_its_home_only(pair) -> None:  # type: ignore[no-untyped-def]
    src, dst = pair
    plain = src.call("create_token", {"kind": "agent", "name": "claude"})["token"]
    assert src.authenticate(plain) is not None
    assert dst.authenticate(plain) is None
    made = src.authenticate(plain)
    assert made is not None
    # Another workspace's token is as unknown there as one that never was.
    missing = err(dst, "set_member", {"token": made.token, "role": "member"})
    assert (missing.status, missing.code) == (404, "unknown_token")
    assert err(dst, "revoke_token", {"token": str(made.token)}).code == "unknown_token"


def test_workspace_create_token_runs_the_operation(pair) -> None:  # type: ignore[no-untyped-def]
    src, _ = pair
    src.create_token("agent", "claude")
    rows = src.call("list_tokens", {})["tokens"]
    assert [(t["kind"], t["name"]) for t in rows] == [("agent", "claude")]
    with pytest.raises(ServiceError) as refused:
        src.create_token("agent", "x", role="boss")
    assert (refused.value.code, refused.value.body["field"]) == ("invalid_params", "role")


def test_closing_closes_the_workspaces_reached_through_it(tmp_path: Path) -> None:
    ws = Workspace.open(f"sqlite:///{tmp_path / 'x.db'}", multi_workspace=True)
    ws.call("create_workspace", {"name": "shop"})
    shop = ws.at("shop")
    assert shop is not None and shop.store is ws.store
    ws.close()
    assert shop.closing
