"""CLI commands that administer workspaces and their members: ``layoutkit workspace``
and ``layoutkit member`` (docs/workspaces.md), and the ``--workspace`` option the
token commands share with them.

Every command runs a registry operation (``create_workspace``, ``list_members``,
...) through the road, so the CLI holds no rule of its own. Only click and the
standard library are imported here at start-up; the engine is imported inside the
commands that run. cli.py imports this module and hands it its helpers with
:func:`attach` (opening the database, printing refusals and tables), so the two
share them without importing each other.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NoReturn

import click

from layoutkit.adapters import cli_remote

#: The environment variable that names the workspace a command works in.
WORKSPACE_ENV = "LAYOUTKIT_WORKSPACE"
ROLES = ("owner", "admin", "member")


def workspace_option(func: Callable[..., Any]) -> Callable[..., Any]:
    """``--workspace NAME``: the workspace a command works in (default: the deployment's
    own; another one only in a multi-workspace deployment)."""
    return click.option(
        "--workspace",
        "workspace",
        envvar=WORKSPACE_ENV,
        metavar="NAME",
        help="The workspace to work in (env LAYOUTKIT_WORKSPACE; default: the deployment's "
        "own). Another one needs LAYOUTKIT_MULTI_WORKSPACE=1.",
    )(func)


@dataclass(frozen=True)
class Helpers:
    """What the commands here use of cli.py: its ``_run``, ``_open``, ``_fail``,
    ``_emit_json``, ``_table``, default database and drain time."""

    run: Callable[[str, str, dict[str, Any], bool, str | None], dict[str, Any]]
    open: Callable[[str], Any]
    fail: Callable[[Any, bool], NoReturn]
    emit_json: Callable[[Any], None]
    table: Callable[[list[dict[str, Any]], list[tuple[str, str]]], None]
    default_db: str
    drain_s: float


_HELPERS: list[Helpers] = []


def attach(main: click.Group, helpers: Helpers) -> None:
    """Add ``workspace`` and ``member`` to the CLI's ``main`` group, with its helpers."""
    _HELPERS[:] = [helpers]
    main.add_command(workspace)
    main.add_command(member)


def _cli() -> Helpers:
    return _HELPERS[0]


def run_in(
    db: str,
    workspace: str | None,
    op: str,
    params: dict[str, Any],
    as_json: bool,
    *,
    token: str | None = None,
) -> dict[str, Any]:
    """Run ``op`` in workspace ``workspace`` (the deployment's own for None), on the
    server of --url or the database at ``db``: as the deployment (or the --url token),
    or as the holder of API token ``token`` when one is given; a refusal prints and
    exits 1."""
    from layoutkit.errors import ServiceError

    cli = _cli()
    if token is None:
        return cli.run(db, op, params, as_json, workspace)
    remote = cli_remote.target()
    try:
        if remote is not None:
            with cli_remote.client(remote[0], token, workspace=workspace) as client:
                return client.call(op, params)
        return _as_token(db, workspace, token, op, params)
    except ServiceError as err:
        cli.fail(err, as_json)


def _as_token(
    db: str, workspace: str | None, token: str, op: str, params: dict[str, Any]
) -> dict[str, Any]:
    """``op`` on the local database as the holder of ``token``."""
    from layoutkit.errors import ServiceError

    cli = _cli()
    ws = cli.open(db)
    try:
        target = ws if workspace is None else ws.at(workspace)
        if target is None:
            raise ServiceError(
                404, "unknown_workspace", f"no workspace {workspace!r}", field="workspace"
            )
        principal = target.authenticate(token)
        if principal is None:
            raise ServiceError(401, "unauthenticated", f"the token is no member of {target.name!r}")
        result: dict[str, Any] = target.call(op, params, principal)
        return result
    finally:
        ws.jobs.drain(cli.drain_s)
        ws.close()


def _default_db() -> str:
    return _cli().default_db


def _db_json(func: Callable[..., Any]) -> Callable[..., Any]:
    """cli.py's ``--db`` (and ``--url``/``--token``) and ``--json``, whose default is read
    from it when a command runs."""
    func = click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")(func)
    func = cli_remote.remote_options(func)
    return click.option(
        "--db",
        envvar="LAYOUTKIT_DB",
        default=_default_db,
        show_default="./layoutkit.db",
        metavar="URL",
        help="Workspace store: sqlite:///file.db or postgresql://... (env LAYOUTKIT_DB).",
    )(func)


def _emit(result: Any) -> None:
    _cli().emit_json(result)


def _table(rows: list[dict[str, Any]], columns: list[tuple[str, str]]) -> None:
    _cli().table(rows, columns)


# ---------------------------------------------------------------- workspaces


@click.group()
def workspace() -> None:
    """Workspaces of a multi-workspace deployment: make, list, rename, archive."""


@workspace.command("create")
@click.argument("name")
@workspace_option
@_db_json
def workspace_create(name: str, workspace: str | None, db: str, as_json: bool) -> None:
    """Make workspace NAME. Made from here (as the deployment) it has no owner token yet:
    mint one with 'layoutkit token create --workspace NAME --kind owner ...'."""
    result = run_in(db, workspace, "create_workspace", {"name": name}, as_json)
    if as_json:
        _emit(result)
    else:
        click.echo(f"created workspace {result['workspace']['name']}")


@workspace.command("list")
@click.option("--archived", is_flag=True, help="List archived workspaces too.")
@workspace_option
@_db_json
def workspace_list(archived: bool, workspace: str | None, db: str, as_json: bool) -> None:
    """List the workspaces: name, role, whether it is the current one, when archived."""
    params = {"archived": True} if archived else {}
    result = run_in(db, workspace, "list_workspaces", params, as_json)
    if as_json:
        _emit(result)
        return
    rows = [
        {**w, "current": "*" if w["current"] else "", "archived": w["archived"] or "-"}
        for w in result["workspaces"]
    ]
    _table(
        rows,
        [("name", "NAME"), ("role", "ROLE"), ("current", "CURRENT"), ("archived", "ARCHIVED")],
    )


@workspace.command("rename")
@click.argument("old")
@click.argument("new")
@_db_json
def workspace_rename(old: str, new: str, db: str, as_json: bool) -> None:
    """Rename workspace OLD to NEW (names are unique)."""
    result = run_in(db, old, "rename_workspace", {"name": new}, as_json)
    if as_json:
        _emit(result)
    else:
        click.echo(f"renamed workspace {result['was']} to {result['workspace']['name']}")


@workspace.command("archive")
@click.argument("name")
@click.option("--undo", is_flag=True, help="Bring an archived workspace back.")
@_db_json
def workspace_archive(name: str, undo: bool, db: str, as_json: bool) -> None:
    """Archive workspace NAME: it keeps answering reads and refuses writes (--undo
    brings it back)."""
    result = run_in(db, name, "archive_workspace", {"archived": not undo}, as_json)
    if as_json:
        _emit(result)
    elif undo:
        click.echo(f"workspace {name} is in use again")
    else:
        click.echo(f"archived workspace {name}")


# ---------------------------------------------------------------- members


@click.group()
def member() -> None:
    """Members of a workspace: list them, add this workspace's own tokens, invite
    tokens of other workspaces, change roles, remove."""


_MEMBER_COLUMNS = [
    ("token", "TOKEN"),
    ("kind", "KIND"),
    ("name", "NAME"),
    ("role", "ROLE"),
    ("revoked", "REVOKED"),
    ("home", "HOME"),
]


def _member_row(row: dict[str, Any]) -> dict[str, Any]:
    return {**row, "revoked": "yes" if row["revoked"] else "-", "home": row["home"] or "-"}


@member.command("list")
@click.option("--role", type=click.Choice(ROLES), help="Only members with this role.")
@workspace_option
@_db_json
def member_list(role: str | None, workspace: str | None, db: str, as_json: bool) -> None:
    """List the workspace's members: token id, kind, name, role, home."""
    params = {} if role is None else {"role": role}
    result = run_in(db, workspace, "list_members", params, as_json)
    if as_json:
        _emit(result)
    elif not result["members"]:
        click.echo("no members")
    else:
        _table([_member_row(m) for m in result["members"]], _MEMBER_COLUMNS)


@member.command("add")
@click.argument("token_id", metavar="TOKEN_ID", type=click.IntRange(1))
@click.option("--role", type=click.Choice(ROLES), default="member", show_default=True)
@workspace_option
@_db_json
def member_add(token_id: int, role: str, workspace: str | None, db: str, as_json: bool) -> None:
    """Make token TOKEN_ID a member with --role, or change the role of a member.

    Only tokens this workspace minted, or members already, are added this way; a token
    of another workspace joins by invitation ('member invite', then 'member accept' by
    its holder)."""
    result = run_in(db, workspace, "set_member", {"token": token_id, "role": role}, as_json)
    if as_json:
        _emit(result)
    else:
        m = result["member"]
        click.echo(f"{m['kind']} token {m['token']} {m['name']!r} is a member as {m['role']}")


@member.command("remove")
@click.argument("token_id", metavar="TOKEN_ID", type=click.IntRange(1))
@workspace_option
@_db_json
def member_remove(token_id: int, workspace: str | None, db: str, as_json: bool) -> None:
    """End token TOKEN_ID's membership (the token itself stays valid in its home)."""
    result = run_in(db, workspace, "set_member", {"token": token_id, "remove": True}, as_json)
    if as_json:
        _emit(result)
    elif result["removed"]:
        click.echo(f"token {token_id} is no longer a member")
    else:
        click.echo(f"token {token_id} was no member")


@member.command("invite")
@click.option("--role", type=click.Choice(ROLES), required=True)
@click.option("--expires-in-days", "days", type=click.IntRange(1, 90), help="Default 7 days.")
@workspace_option
@_db_json
def member_invite(
    role: str, days: int | None, workspace: str | None, db: str, as_json: bool
) -> None:
    """Invite a token of any workspace to join with --role; prints the invitation secret
    once, for the token's holder to pass to 'member accept'."""
    params: dict[str, Any] = {"role": role}
    if days is not None:
        params["expiresInDays"] = days
    result = run_in(db, workspace, "invite_member", params, as_json)
    if as_json:
        _emit(result)
        return
    click.echo(result["invitation"])
    click.echo(
        f"invitation to {result['workspace']} as {result['role']}, until {result['expires']}: "
        "shown once, give it to the token's holder",
        err=True,
    )


@member.command("accept")
@click.argument("invitation")
@click.option(
    "--as-token",
    "token",
    envvar="LAYOUTKIT_MEMBER_TOKEN",
    required=True,
    metavar="TOKEN",
    help="The API token that joins (env LAYOUTKIT_MEMBER_TOKEN); it must work in "
    "--workspace, its home by default.",
)
@workspace_option
@_db_json
def member_accept(
    invitation: str, token: str, workspace: str | None, db: str, as_json: bool
) -> None:
    """Accept INVITATION with an API token: the token becomes a member of the inviting
    workspace."""
    result = run_in(
        db, workspace, "accept_invitation", {"invitation": invitation}, as_json, token=token
    )
    if as_json:
        _emit(result)
    else:
        click.echo(
            f"token {result['token']} is a member of {result['workspace']} as {result['role']}"
        )
