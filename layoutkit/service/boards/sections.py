"""The generic kind ``section``: a board's section frames, made and listed by name.

``create`` kind section is a compose that names a section and brings no cards:
it goes through the compose write path (:func:`place_cards`), so the frame is
placed, named and near-match checked by the same rules as a compose that names
a new section.
"""

from __future__ import annotations

from typing import Any

from layoutkit.errors import EngineError
from layoutkit.service.boards.board_model import BoardModels
from layoutkit.service.boards.placing import place_cards
from layoutkit.service.road.generic import kind_handler
from layoutkit.service.road.workspace import Call
from layoutkit.service.shared.common import SLUG
from layoutkit.service.shared.sections import members, section_summary
from layoutkit.storage import CardRecord, Tx

_TITLE = {
    "type": "string",
    "minLength": 1,
    "maxLength": 200,
    "description": "the section's title, as compose's section names it",
}


def _sections(tx: Tx, board_id: int) -> list[dict[str, Any]]:
    """Every section frame of a board, oldest first, with its layout and counts."""
    cards: dict[int, CardRecord] = {c.id: c for c in tx.cards(board_id)}
    frames = sorted((c for c in cards.values() if c.kind == "section"), key=lambda c: c.ordinal)
    out = []
    for frame in frames:
        # cards counts as scrape_board's sections do: every card inside, nested frames too.
        out.append(
            section_summary(
                frame, cards=len(members(cards, frame.id)), children=len(frame.children or [])
            )
        )
    return out


@kind_handler("list", "section", {"board": SLUG}, required=("board",), board="board")
def list_sections(call: Call) -> dict[str, Any]:
    """The section frames of a board with their saved layout, children and cards."""
    return {"sections": _sections(call.tx, call.board.id)}


@kind_handler(
    "create",
    "section",
    {
        "board": SLUG,
        "title": _TITLE,
        "createSection": {
            "type": "boolean",
            "description": "a new frame even when the title nearly matches another's",
        },
    },
    required=("board", "title"),
    board="board",
    writes=True,
)
def create_section(call: Call) -> dict[str, Any]:
    """A section frame titled ``title``; an existing one of that exact title is answered
    again (created false), as compose would fill it rather than make a second."""
    tx, board, title = call.tx, call.board, call.params["title"]
    existing = _by_title(tx, board.id, title)
    if existing is None:
        placement = {"section": title, "createSection": call.params.get("createSection", False)}
        try:
            place_cards(
                call.principal,
                tx,
                board,
                [],
                placement,
                models=call.workspace.extension(BoardModels),
            )
        except EngineError as refused:
            # The engine names compose's field; here the name came as title.
            if refused.fields.get("field") == "section":
                refused.fields["field"] = "title"
            raise
        tx.record_event(
            "section.create", call.principal.label, board_id=board.id, detail={"title": title}
        )
    made = _by_title(tx, board.id, title)
    assert made is not None  # placed just now, or there before
    return {"section": made, "created": existing is None}


def _by_title(tx: Tx, board_id: int, title: str) -> dict[str, Any] | None:
    return next((s for s in _sections(tx, board_id) if s["title"] == title), None)
