"""The authorization table: who may call each operation, and on what.

It is read off the registry, never written by hand: each operation declares
the principal kinds it admits (``principals``), the share-link modes
(``share``), the least role it needs (``role``), whether it names a board and
whether it takes task ids; the road (``Workspace.call``) enforces exactly
those declarations. ``tests/service/road/test_authorization.py`` walks every row
with real principals, and ``docs/authorization.md`` is this table rendered
(``python -m layoutkit.service.road.authorization > docs/authorization.md``; a test
keeps the two equal).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Literal, get_args

import attrs

from layoutkit.principal import ROLES, PrincipalKind, Role
from layoutkit.service.road.registry import REGISTRY, Operation, Registry

#: The callers of the table, in its column order. ``owner``, ``admin`` and
#: ``member`` are people's tokens (an owner token, user tokens with that role);
#: ``agent`` and ``service`` are those tokens with the member role; the last
#: three are refused before any operation is looked up (401 over HTTP).
Caller = Literal[
    "owner",
    "admin",
    "member",
    "agent",
    "service",
    "share:view",
    "share:annotate",
    "non-member",
    "revoked",
    "nobody",
]
CALLERS: tuple[Caller, ...] = get_args(Caller)
#: Each token caller as ``(token kind, role in the workspace)``.
TOKEN_CALLERS: dict[Caller, tuple[PrincipalKind, Role]] = {
    "owner": ("owner", "owner"),
    "admin": ("user", "admin"),
    "member": ("user", "member"),
    "agent": ("agent", "member"),
    "service": ("service", "member"),
}
#: Callers that authenticate as nobody: no operation runs for them.
UNAUTHENTICATED: tuple[Caller, ...] = ("non-member", "revoked", "nobody")


#: Rows whose reach into another workspace is their purpose, in the words the table
#: shows (the others answer 404 for every id of another workspace).
SPANS: dict[str, str] = {
    "transfer_project": "`to` names it: as an owner there too, in a multi-workspace "
    "deployment; else 404 `unknown_workspace`",
    "accept_invitation": "joins the workspace whose invitation secret it presents",
}


@attrs.frozen(slots=True)
class Row:
    """One operation (a generic verb's kind is a row of its own, ``get:task``)."""

    operation: str
    writes: bool
    callers: frozenset[Caller]
    #: The least role a token caller needs where the call works.
    role: Role
    #: Names a board (by slug, or through a card, annotation or question id).
    board: bool
    #: Takes task ids, which may name another workspace the caller belongs to.
    task_ids: bool
    #: Params only people may send (an agent or service sending one hears 403 ``people_only``).
    people_params: tuple[str, ...] = ()

    def admits(self, caller: Caller) -> bool:
        return caller in self.callers

    @property
    def other_workspace(self) -> str:
        """What ids of another workspace answer."""
        if self.operation in SPANS:
            return SPANS[self.operation]
        if self.task_ids:
            return "task ids: as a member there (with that role); else 404"
        return "404"


def rows(registry: Registry = REGISTRY) -> list[Row]:
    """Every row of the table, in registration order."""
    return [_row(name, op) for name, op in _operations(registry)]


def _operations(registry: Registry) -> Iterator[tuple[str, Operation]]:
    for op in registry:
        if op.kinds:
            for kind, chosen in op.kinds.items():
                yield f"{op.name}:{kind}", chosen
        else:
            yield op.name, op


def _row(name: str, op: Operation) -> Row:
    callers: set[Caller] = set()
    for caller, (kind, role) in TOKEN_CALLERS.items():
        if kind in op.principals and ROLES.index(role) <= ROLES.index(op.role):
            callers.add(caller)
    callers.update(f"share:{mode}" for mode in op.share)  # type: ignore[misc]
    return Row(
        operation=name,
        writes=op.writes,
        callers=frozenset(callers),
        role=op.role,
        board=op.board is not None,
        task_ids=bool(op.task_ids),
        people_params=tuple(sorted(op.people_params)),
    )


def render(table: Iterable[Row]) -> str:
    """The table as the markdown page ``docs/authorization.md``."""
    out = [
        "# Authorization",
        "",
        "Who may call each operation, and on what. This page is generated from the",
        "operation registry by `python -m layoutkit.service.road.authorization`; the road",
        "(`Workspace.call`) enforces the same declarations, and",
        "`tests/service/road/test_authorization.py` calls every row as every caller;",
        "`tests/service/road/test_authorization_targets.py` calls every row with another",
        "workspace's ids (in every form a task id takes), a share link with another",
        "board's, and people with someone else's personal board, on SQLite and",
        "PostgreSQL. Do not edit this page by hand: a test fails when it differs from",
        "the registry.",
        "",
        "## Callers",
        "",
        "- **owner, admin, member**: people's tokens (an owner token, or a user token with",
        "  that role in the workspace; the role is the membership's, see",
        "  [workspaces.md](workspaces.md)).",
        "- **agent, service**: those tokens, with the member role. A role never widens",
        "  what a token's kind may call.",
        "- **share:view, share:annotate**: a share link; it reaches only the board it",
        "  was minted for (403 `forbidden` for any other board).",
        "- **non-member, revoked, nobody**: a token of another workspace only, a revoked",
        "  token, no credentials. They authenticate as nobody: HTTP answers 401 and no",
        "  operation runs. Every row refuses them.",
        "- Embedding code that calls `Workspace.call` without a principal is the",
        "  deployment itself and acts as owner of every workspace of its database.",
        "",
        "## Targets",
        "",
        "- **Own workspace**: what the row's callers may call, on any record of it, but:",
        "- **Personal board**: only the principal that made it reads or writes it (403",
        "  `personal_board`); personal boards never mint share links.",
        "- **Other workspace**: every id (board slug, card, annotation, question, ask,",
        "  share link, blob, run, task) of another workspace answers 404, the same answer",
        "  as for an id that does not exist, so other workspaces cannot be probed. Task",
        "  ids may name another workspace (`<workspace>/<n>`, a task URL with the",
        "  workspace in its path): the road moves the call there only for a member of",
        "  that workspace in a multi-workspace deployment, with its role there; for",
        "  anyone else it answers 404 `unknown_task` before any handler runs.",
        "",
        "## Operations",
        "",
        "`yes` admits the caller; `-` refuses it (403 `forbidden`); `401`: no operation",
        "runs for a caller that authenticates as nobody. `role` is the least",
        "role a token caller needs. `board` says whether the row names a board (by slug",
        "or through a card, annotation or question id), to which the target rules apply.",
        "",
        "| operation | writes | role | " + " | ".join(CALLERS) + " | board | other workspace |",
        "|---|---|---|" + "---|" * len(CALLERS) + "---|---|",
    ]
    table = list(table)
    for row in table:
        cells = [
            "401" if c in UNAUTHENTICATED else "yes" if row.admits(c) else "-" for c in CALLERS
        ]
        out.append(
            f"| `{row.operation}` | {'yes' if row.writes else '-'} | {row.role} | "
            + " | ".join(cells)
            + f" | {'yes' if row.board else '-'} | {row.other_workspace} |"
        )
    kept = [row for row in table if row.people_params]
    if kept:
        out += [
            "",
            "## Params for people only",
            "",
            "A row that admits agents and services may still keep a param for people",
            "(owner, admin, member): an agent or service that sends it hears 403",
            "`people_only`, with the param in `field`.",
            "",
        ]
        out += [
            f"- `{row.operation}`: " + ", ".join(f"`{p}`" for p in row.people_params)
            for row in kept
        ]
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    # Run as ``python -m``, the parent packages are imported first: every family
    # has registered its operations by now.
    print(render(rows()), end="")
