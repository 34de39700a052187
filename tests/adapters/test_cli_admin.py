"""``layoutkit workspace`` and ``layoutkit member``, and the token commands'
``--workspace``: each runs a registry operation in the workspace it names."""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from layoutkit import Workspace
from layoutkit.adapters.cli import main
from tests.service.transfer_fixtures import POSTGRES_URL


@pytest.fixture(params=["sqlite", "postgres"])
def db(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("LAYOUTKIT_MULTI_WORKSPACE", "1")
    monkeypatch.delenv("LAYOUTKIT_WORKSPACE", raising=False)
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'ws.db'}"
    if not POSTGRES_URL:
        pytest.skip("LAYOUTKIT_TEST_POSTGRES_URL is not set; PostgreSQL tests need a server")
    # The CLI always opens the database's "default" workspace: names made here are
    # unique per test, so the shared database keeps no clash between runs.
    return POSTGRES_URL


def run(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


def as_json(*args: str) -> Any:
    res = run(*args, "--json")
    return json.loads(res.stdout)


def unique(tmp_path: Path, stem: str) -> str:
    return f"{stem}-{uuid.uuid4().hex[:8]}"


def test_workspaces_are_made_listed_renamed_and_archived(db: str, tmp_path: Path) -> None:
    shop, studio = unique(tmp_path, "shop"), unique(tmp_path, "studio")
    made = run("workspace", "create", shop, "--db", db)
    assert (made.exit_code, made.stdout.strip()) == (0, f"created workspace {shop}")
    listed = run("workspace", "list", "--db", db)
    assert listed.stdout.splitlines()[0].split() == ["NAME", "ROLE", "CURRENT", "ARCHIVED"]
    assert [shop, "owner", "-"] in [line.split() for line in listed.stdout.splitlines()]
    again = run("workspace", "create", shop, "--db", db, "--json")
    assert (again.exit_code, json.loads(again.stdout)["code"]) == (1, "workspace_exists")
    renamed = run("workspace", "rename", shop, studio, "--db", db)
    assert renamed.stdout.strip() == f"renamed workspace {shop} to {studio}"
    names = [w["name"] for w in as_json("workspace", "list", "--db", db)["workspaces"]]
    assert studio in names and shop not in names
    assert run("workspace", "archive", studio, "--db", db).exit_code == 0
    names = [w["name"] for w in as_json("workspace", "list", "--db", db)["workspaces"]]
    assert studio not in names
    every = as_json("workspace", "list", "--archived", "--db", db)["workspaces"]
    assert [w["archived"] is not None for w in every if w["name"] == studio] == [True]
    refused = run("token", "create", "--kind", "agent", "x", "--workspace", studio, "--db", db)
    assert refused.exit_code == 1 and "workspace_archived" in refused.stderr
    assert run("workspace", "archive", studio, "--undo", "--db", db).exit_code == 0
    assert (
        run("token", "create", "--kind", "agent", "x", "--workspace", studio, "--db", db).exit_code
        == 0
    )


def test_tokens_and_members_of_the_workspace_named(db: str, tmp_path: Path) -> None:
    shop = unique(tmp_path, "shop")
    run("workspace", "create", shop, "--db", db)
    minted = run("token", "create", "--kind", "owner", "ana", "--workspace", shop, "--db", db)
    assert minted.exit_code == 0 and minted.stdout.startswith("lkt_")
    with Workspace.open(db, multi_workspace=True) as ws:
        there = ws.at(shop)
        assert there is not None and there.authenticate(minted.stdout.strip()) is not None
        assert ws.authenticate(minted.stdout.strip()) is None
    tokens = as_json("token", "list", "--workspace", shop, "--db", db)["tokens"]
    assert [(t["name"], t["home"]) for t in tokens] == [("ana", shop)]
    members = run("member", "list", "--workspace", shop, "--db", db)
    assert members.stdout.splitlines()[0].split() == [
        "TOKEN",
        "KIND",
        "NAME",
        "ROLE",
        "REVOKED",
        "HOME",
    ]
    ana = tokens[0]["id"]
    assert [str(ana), "owner", "ana", "owner", "-", shop] in [
        line.split() for line in members.stdout.splitlines()
    ]
    # A token of another workspace is added by invitation, never by id.
    home = run("token", "create", "--kind", "agent", "bot", "--db", db).stdout.strip()
    bot = [t for t in as_json("token", "list", "--db", db)["tokens"] if t["name"] == "bot"][-1]
    pulled = run("member", "add", str(bot["id"]), "--workspace", shop, "--db", db, "--json")
    assert (pulled.exit_code, json.loads(pulled.stdout)["code"]) == (1, "unknown_token")
    secret = run("member", "invite", "--role", "admin", "--workspace", shop, "--db", db)
    assert secret.exit_code == 0 and secret.stdout.startswith("lki_")
    accepted = run("member", "accept", secret.stdout.strip(), "--as-token", home, "--db", db)
    assert accepted.stdout.strip() == f"token {bot['id']} is a member of {shop} as admin", (
        accepted.output,
        accepted.exception,
    )
    changed = run(
        "member", "add", str(bot["id"]), "--role", "member", "--workspace", shop, "--db", db
    )
    assert changed.stdout.strip() == f"agent token {bot['id']} 'bot' is a member as member"
    removed = run("member", "remove", str(bot["id"]), "--workspace", shop, "--db", db)
    assert removed.stdout.strip() == f"token {bot['id']} is no longer a member"
    last = run("token", "revoke", str(ana), "--workspace", shop, "--db", db, "--json")
    assert (last.exit_code, json.loads(last.stdout)["code"]) == (1, "last_owner")
    unknown = run("member", "list", "--workspace", "no-such", "--db", db, "--json")
    assert (unknown.exit_code, json.loads(unknown.stdout)["code"]) == (1, "unknown_workspace")


def test_a_single_tenant_database_names_no_other_workspace(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("LAYOUTKIT_MULTI_WORKSPACE", raising=False)
    monkeypatch.delenv("LAYOUTKIT_WORKSPACE", raising=False)
    db = f"sqlite:///{tmp_path / 'one.db'}"
    res = run("token", "list", "--workspace", "shop", "--db", db, "--json")
    assert (res.exit_code, json.loads(res.stdout)["code"]) == (1, "single_tenant")
    made = run("workspace", "create", "shop", "--db", db, "--json")
    assert (made.exit_code, json.loads(made.stdout)["code"]) == (1, "single_tenant")
    assert run("token", "list", "--workspace", "default", "--db", db).exit_code == 0
