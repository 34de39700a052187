"""Who else has a board open now: their cursors, selections and the card they are dragging.

A page showing a board reports where its pointer is (``board_presence``), a few
times a second while it moves and every few seconds as a heartbeat; every
reader of the board (``board_changes``, the event stream, this operation's own
answer) sees the others' reports. Nothing here is part of the board: a report
changes no rev, wakes no webhook and is forgotten :data:`PRESENCE_TTL_S`
seconds after its page stopped reporting (or at once, when the page says it is
leaving).

Reports live in the store (``board_presence``), not in a process's memory: a
server may run as several processes on one PostgreSQL database, and the two
people on a board may each be served by a different one.
"""

from __future__ import annotations

import hashlib
from datetime import timedelta
from typing import Any

from layoutkit.errors import ServiceError
from layoutkit.principal import Principal
from layoutkit.service.road.registry import REGISTRY
from layoutkit.service.road.workspace import Call
from layoutkit.service.shared.common import ID, SLUG
from layoutkit.storage import PresenceRecord, Tx

#: Seconds a report counts after its page last reported: a page that closed without
#: saying so (a crash, a lost network) disappears from the others' view after this.
PRESENCE_TTL_S = 30
#: How often a page that does nothing reports anyway, in seconds: well inside the TTL,
#: so one lost heartbeat never makes a person blink out.
HEARTBEAT_S = 10
#: Cards one report may name as selected (a bigger selection is shown by its first ones).
MAX_SELECTION = 200
#: Board coordinates a cursor or a dragged card may have: the range cards are placed in.
COORD = 1e7
#: Colours a person is drawn in, picked by who they are: white text reads on each.
COLOURS = (
    "#d1495b",
    "#2f7fc1",
    "#2a9d5b",
    "#8e5bd8",
    "#d9771e",
    "#0f8b8d",
    "#c2418e",
    "#6a7a1f",
)

#: A page's own name for itself, made up by the page (two tabs of one person differ).
PAGE = {"type": "string", "pattern": "^[A-Za-z0-9_-]{1,40}$"}
_NUMBER = {"type": "number", "minimum": -COORD, "maximum": COORD}
# An object or null (no cursor): one schema, not anyOf, so a finding names the field.
_POINT = {
    "type": ["object", "null"],
    "required": ["x", "y"],
    "properties": {"x": _NUMBER, "y": _NUMBER},
    "additionalProperties": False,
}


def _key(principal: Principal, page: str) -> tuple[str, str]:
    """The row a caller's page writes: people and agents by who they are and page;
    share links are one principal per board, so only the page tells two guests apart."""
    return principal.label, page


def _is_self(row: PresenceRecord, principal: Principal, page: str) -> bool:
    """Whether ``row`` is the caller's own: a person's other tabs are theirs too (not
    drawn back to them); a guest is only their own page."""
    if principal.kind == "share":
        return row.who == principal.label and row.page == page
    return row.who == principal.label


def _shown_name(principal: Principal) -> str:
    # A share link names its board, not a person: every link visitor is a guest.
    return "Guest" if principal.kind == "share" else principal.name


def _colours(rows: list[PresenceRecord]) -> list[str]:
    """Each row's colour: picked by who it is (so it stays put from one answer to the
    next), moved on to a free one where two people on the board would share it. Every
    reader gets the same colours, since the caller's own row takes part too."""
    taken: set[int] = set()
    out = []
    for row in rows:
        basis = f"{row.who}\n{row.page}" if row.kind == "share" else row.who
        pick = hashlib.sha256(basis.encode()).digest()[0] % len(COLOURS)
        free = [i for i in range(len(COLOURS)) if (pick + i) % len(COLOURS) not in taken]
        if free:
            pick = (pick + free[0]) % len(COLOURS)
        taken.add(pick)
        out.append(COLOURS[pick])
    return out


def presence_view(row: PresenceRecord, colour: str) -> dict[str, Any]:
    """One report as readers see it: an opaque id for the page, who (kind and name),
    a colour, and what the page last reported."""
    state = row.state
    return {
        "id": hashlib.sha256(f"{row.who}\n{row.page}".encode()).hexdigest()[:12],
        "who": {"kind": row.kind, "name": row.name},
        "colour": colour,
        "cursor": state.get("cursor"),
        "selection": state.get("selection") or [],
        "dragging": state.get("dragging"),
        "seen": row.seen.isoformat(),
    }


def others_present(tx: Tx, board_id: int, principal: Principal, page: str = "") -> list[Any]:
    """Every live report on the board except the caller's own, as readers see them."""
    since = tx.now() - timedelta(seconds=PRESENCE_TTL_S)
    rows = tx.presence(board_id, since)
    return [
        presence_view(r, colour)
        for r, colour in zip(rows, _colours(rows), strict=True)
        if not _is_self(r, principal, page)
    ]


def _on_board(tx: Tx, board_id: int, ids: list[int], fields: list[str]) -> None:
    """404 ``unknown_card`` (with the path of the first id) for an id not live on the board:
    another workspace's or another board's card is never named in a report."""
    found = {c.id for c in tx.cards_by_id(ids) if c.board_id == board_id and not c.deleted}
    for card_id, field in zip(ids, fields, strict=True):
        if card_id not in found:
            raise ServiceError(404, "unknown_card", f"no card {card_id} on this board", field=field)


def _record(call: Call, result: dict[str, Any]) -> dict[str, Any]:
    """The report itself, written after the read transaction closed: it takes no board
    lock (a long write to the board never holds a cursor back) and moves no rev."""
    p, board, who = call.params, call.board, call.principal
    assert board is not None  # the road found it
    label, page = _key(who, p.get("page", ""))

    def write(tx: Tx) -> None:
        if p.get("leave"):
            result["left"] = tx.leave_presence(board.id, label, page)
            return
        state = {
            "cursor": p.get("cursor"),
            "selection": p.get("selection") or [],
            "dragging": p.get("dragging"),
        }
        expired = tx.now() - timedelta(seconds=PRESENCE_TTL_S)
        tx.write_presence(
            board.id,
            label,
            page,
            kind=who.kind,
            name=_shown_name(who),
            state=state,
            expired=expired,
        )

    call.workspace.write(write)
    return result


@REGISTRY.operation(
    "board_presence",
    "Say that the caller has a board open, and where: cursor (board coordinates), "
    "selection (card ids, at most 200) and dragging (a card id with the top-left corner "
    "it is being dragged to). Each call replaces the caller's last report; a report "
    "not renewed within 30 seconds is dropped, and leave true drops it at once. page "
    "tells apart two pages of one caller. Answers the others on the board now, as "
    "board_changes lists them under presence (who, colour, cursor, selection, dragging, "
    "seen). Changes nothing on the board; view share links may report too (shown as "
    "Guest).",
    {
        "required": ["board"],
        "properties": {
            "board": SLUG,
            "page": PAGE,
            "cursor": _POINT,
            "selection": {
                "type": "array",
                "items": ID,
                "maxItems": MAX_SELECTION,
                "uniqueItems": True,
            },
            "dragging": {
                "type": ["object", "null"],
                "required": ["id", "x", "y"],
                "properties": {"id": ID, "x": _NUMBER, "y": _NUMBER},
                "additionalProperties": False,
            },
            "leave": {"type": "boolean"},
        },
        "additionalProperties": False,
    },
    board="board",
    share=("view", "annotate"),
    finish=_record,
)
def board_presence(call: Call) -> dict[str, Any]:
    p, tx, board = call.params, call.tx, call.board
    selection = p.get("selection") or []
    named = list(selection)
    fields = [f"selection[{i}]" for i in range(len(selection))]
    dragging = p.get("dragging")
    if dragging is not None and not p.get("leave"):
        named.append(dragging["id"])
        fields.append("dragging.id")
    if named and not p.get("leave"):
        _on_board(tx, board.id, named, fields)
    return {
        "board": board.slug,
        "presence": others_present(tx, board.id, call.principal, p.get("page", "")),
        "ttl": PRESENCE_TTL_S,
        "heartbeat": HEARTBEAT_S,
    }
