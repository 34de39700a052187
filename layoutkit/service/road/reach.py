"""What a caller may reach: workspaces by name, boards by slug, cards by id.

The road places every call with these rules before a handler runs; handlers use
them for the boards and cards they name themselves.
"""

from __future__ import annotations

from layoutkit.errors import ServiceError, did_you_mean
from layoutkit.principal import Principal, Role
from layoutkit.storage import BoardRecord, CardRecord, Tx, WorkspaceRecord


def reachable_workspace(
    tx: Tx, here: int, principal: Principal, name: str, *, multi_workspace: bool
) -> tuple[WorkspaceRecord, Role] | None:
    """The workspace called ``name`` and the caller's role there, when the caller may
    work in it; None otherwise, whether it exists or not (so names cannot be probed).

    The call's own workspace (``here``) is always reachable. Another one is only in a
    multi-workspace deployment, and only for a token that is a member there (or the
    deployment itself: the owner in the same process, which has no token). A share
    link is bound to one board of its own workspace and reaches no other.
    """
    space = tx.workspace_by_name(name)
    if space is None:
        return None
    if space.id == here:
        return space, principal.workspace_role
    if not multi_workspace or principal.kind == "share":
        return None
    if principal.token is None:
        return (space, "owner") if principal.kind == "owner" else None
    role = tx.membership(space.id, principal.token)
    return None if role is None else (space, role)  # type: ignore[return-value]


def owns_board(principal: Principal, board: BoardRecord) -> bool:
    """Whether ``principal`` is the board's owner: the one who created it (the
    workspace owner for a board of unknown origin). Share links own nothing."""
    if principal.kind == "share":
        return False
    if board.created_by is None:
        return principal.kind == "owner"
    return principal.label == board.created_by


def may_reach(principal: Principal, board: BoardRecord) -> bool:
    """A personal board is its owner's alone (to read and to write); others are open."""
    return not board.meta.get("personal") or owns_board(principal, board)


def find_board(tx: Tx, workspace_id: int, slug: str, *, lock: bool = False) -> BoardRecord:
    """The board called ``slug`` (locked for the write transaction ``tx`` with
    ``lock``); 404 ``unknown_board`` with close slugs otherwise."""
    board = tx.board_by_slug(workspace_id, slug, lock=lock)
    if board is None:
        raise ServiceError(
            404,
            "unknown_board",
            f"no board {slug!r}; create it first (create kind board)",
            didYouMean=did_you_mean(slug, tx.board_slugs(workspace_id)),
        )
    return board


def personal_board(board: BoardRecord) -> ServiceError:
    """The refusal for a board personal to someone other than the caller."""
    return ServiceError(
        403,
        "personal_board",
        f"board {board.slug!r} is personal to its owner",
        board=board.slug,
    )


def reachable_board(
    tx: Tx, workspace_id: int, slug: str, principal: Principal, *, lock: bool = False
) -> BoardRecord:
    """The board called ``slug`` that ``principal`` may reach: :func:`find_board`'s 404
    for none, 403 ``personal_board`` for one personal to someone else. For boards a
    handler names itself (a scope, a parent, a set): the road checks the one an
    operation declares."""
    board = find_board(tx, workspace_id, slug, lock=lock)
    if not may_reach(principal, board):
        raise personal_board(board)
    return board


def card_board(tx: Tx, workspace_id: int, card_id: int) -> BoardRecord:
    """The board a live card sits on; 404 ``unknown_card`` for another workspace's card."""
    card = tx.card(card_id)
    board = tx.board(card.board_id) if card is not None and not card.deleted else None
    if board is None or board.workspace_id != workspace_id:
        raise ServiceError(404, "unknown_card", f"no card {card_id}")
    return board


def workspace_card(tx: Tx, workspace_id: int, card_id: int) -> CardRecord | None:
    """The live card ``card_id`` when it sits on a board of the workspace, else None: for
    a snapshot, which reads before the road's checks and must not read (nor hand work
    on) another workspace's card."""
    card = tx.card(card_id)
    board = tx.board(card.board_id) if card is not None and not card.deleted else None
    return card if board is not None and board.workspace_id == workspace_id else None
