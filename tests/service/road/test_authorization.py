"""The authorization table (service/road/authorization.py) against the road that enforces it.

Every row of the table is called as every caller, with real credentials minted in
a real store on each backend: the caller the row admits gets past authorization
(its probe params answer 400), the caller it refuses hears 403 ``forbidden``
before anything about its params, and the callers that authenticate as nobody
never reach an operation. Targets (ids of another workspace, another board, a
personal board) are walked row by row in ``test_authorization_targets.py``.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from layoutkit import ServiceError, Workspace
from layoutkit.principal import Principal
from layoutkit.service import REGISTRY
from layoutkit.service.road.authorization import (
    CALLERS,
    SPANS,
    TOKEN_CALLERS,
    UNAUTHENTICATED,
    Caller,
    Row,
    render,
    rows,
)
from layoutkit.service.road.ids import TASK_ID
from layoutkit.service.road.registry import Registry, declare
from tests.conftest import POSTGRES_URL
from tests.service.helpers import join

DOCS = Path(__file__).resolve().parents[3] / "docs" / "authorization.md"
#: A param no operation takes: a caller past authorization hears 400 naming it.
PROBE = "authorizationProbe"
ROWS = rows()


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def callers(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Workspace, dict[Caller, Principal | None]]]:
    """A workspace and a principal for every caller of the table, authenticated from
    real credentials (None for those that authenticate as nobody)."""
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path_factory.mktemp('authz') / 'ws.db'}"
        names = ("home", "away")
    else:
        if not POSTGRES_URL:
            pytest.skip("LAYOUTKIT_TEST_POSTGRES_URL is not set; PostgreSQL tests need a server")
        url = POSTGRES_URL
        tag = uuid.uuid4().hex[:10]
        names = (f"home-{tag}", f"away-{tag}")
    home = Workspace.open(url, name=names[0], multi_workspace=True)
    away = Workspace.open(url, name=names[1], multi_workspace=True)
    try:
        home.call("create", {"kind": "board", "slug": "shared"})
        found: dict[Caller, Principal | None] = {}
        for caller, (kind, role) in TOKEN_CALLERS.items():
            found[caller] = home.authenticate(home.create_token(kind, caller, role=role))
        for mode in ("view", "annotate"):
            link = home.call("share_board", {"board": "shared", "mode": mode})
            found[f"share:{mode}"] = home.authenticate(link["url"].rsplit("/", 1)[-1])  # type: ignore[index]
        found["non-member"] = home.authenticate(away.create_token("owner", "stranger"))
        revoked = home.create_token("owner", "gone")
        home.revoke_token("gone")
        found["revoked"] = home.authenticate(revoked)
        found["nobody"] = home.authenticate("")
        yield home, found
    finally:
        away.close()
        home.close()


def _call_row(ws: Workspace, row: Row, who: Principal) -> ServiceError:
    verb, _, kind = row.operation.partition(":")
    params = {PROBE: True, **({"kind": kind} if kind else {})}
    with pytest.raises(ServiceError) as refused:
        ws.call(verb, params, who)
    return refused.value


@pytest.mark.parametrize("caller", CALLERS)
def test_every_row_admits_exactly_the_callers_the_table_names(
    callers: tuple[Workspace, dict[Caller, Principal | None]], caller: Caller
) -> None:
    ws, found = callers
    who = found[caller]
    if caller in UNAUTHENTICATED:
        # No operation runs for them: the adapters answer 401 before the road.
        assert who is None
        return
    assert who is not None
    wrong = []
    for row in ROWS:
        err = _call_row(ws, row, who)
        paths = [f["path"] for f in err.body.get("findings", ())]
        got = "admitted" if err.status == 400 and PROBE in paths else err.code
        expected = "admitted" if row.admits(caller) else "forbidden"
        if got != expected or (got == "forbidden" and err.status != 403):
            wrong.append((row.operation, expected, got, err.status))
    assert wrong == []


def test_the_principals_carry_the_roles_the_columns_name(
    callers: tuple[Workspace, dict[Caller, Principal | None]],
) -> None:
    _, found = callers
    for caller, (kind, role) in TOKEN_CALLERS.items():
        who = found[caller]
        assert who is not None and (who.kind, who.workspace_role) == (kind, role)
    for mode in ("view", "annotate"):
        who = found[f"share:{mode}"]  # type: ignore[index]
        assert who is not None and (who.kind, who.mode, who.board) == ("share", mode, "shared")


def test_the_table_has_one_row_per_registered_operation() -> None:
    expected = []
    for op in REGISTRY:
        expected += [f"{op.name}:{k}" for k in op.kinds] if op.kinds else [op.name]
    assert [r.operation for r in ROWS] == expected
    assert set(SPANS) <= set(expected), "SPANS names an operation that is not registered"
    # Nothing admits everyone by accident: every row refuses someone, and the rows
    # that write refuse share links unless they are the annotate mode's.
    for row in ROWS:
        assert set(CALLERS) - row.callers, row.operation
        if row.writes:
            assert "share:view" not in row.callers, row.operation


def test_the_docs_page_is_the_table_rendered() -> None:
    assert DOCS.read_text(encoding="utf-8") == render(ROWS), (
        "docs/authorization.md is stale: python -m layoutkit.service.road.authorization "
        "> docs/authorization.md"
    )


def test_a_role_counts_where_the_call_works(tmp_path: Path) -> None:
    """Owner at home and member away: an admin-only operation on away's task is
    refused, and admitted once the caller is an admin there."""
    registry = Registry()
    registry.add(
        declare(
            "touch_task",
            "an admin-only operation on a task",
            {"required": ["id"], "properties": {"id": TASK_ID}, "additionalProperties": False},
            lambda call: {"workspace": call.workspace_name, "role": call.principal.role},
            role="admin",
        )
    )
    url = f"sqlite:///{tmp_path / 'ws.db'}"
    with (
        Workspace.open(url, name="home", multi_workspace=True) as home,
        Workspace.open(url, name="away", multi_workspace=True) as away,
    ):
        task = away.call("create", {"kind": "task", "title": "Away task"})["task"]["id"]
        boss = home.authenticate(home.create_token("user", "boss", role="owner"))
        assert boss is not None and boss.token is not None
        road = Workspace(home.store, name="home", registry=registry, multi_workspace=True)
        assert road.call("touch_task", {"id": task + 10_000}, boss)["role"] == "owner"
        join(away, boss, "member", via=home)
        with pytest.raises(ServiceError) as refused:
            road.call("touch_task", {"id": f"away/{task}"}, boss)
        assert (refused.value.status, refused.value.code) == (403, "forbidden")
        assert refused.value.body["required"] == "admin"
        away.call("set_member", {"token": boss.token, "role": "admin"})
        there = road.call("touch_task", {"id": f"away/{task}"}, boss)
        assert there == {"workspace": "away", "role": "admin"}


def test_refusals_read_as_english() -> None:
    ws = Workspace.open()
    ws.call("create", {"kind": "board", "slug": "shared"})
    with pytest.raises(ServiceError) as shared:
        ws.call("create", {"kind": "board", "slug": "x"}, Principal.share("shared", "annotate"))
    assert "an annotate share link cannot call create" in shared.value.message
    with pytest.raises(ServiceError) as agent:
        ws.call("create_token", {"kind": "agent", "name": "b"}, Principal.agent("a"))
    assert "an agent cannot call it" in agent.value.message
