"""What a live board page needs besides pictures: outlines, change feeds, cards by id, ticks.

A page showing a board keeps a light outline of it (every card's box, no
content) for its overview and minimap, follows the board's change counter
(``rev``) to redraw only the places a write touched, reads the content of the
few cards a person acts on, and ticks checklist items. Each is an operation
like any other, so an agent reads the same outline and sees the same ticks.
"""

from __future__ import annotations

import hashlib
import json
import threading
import weakref
from collections import OrderedDict
from typing import Any

from layoutkit.errors import ServiceError
from layoutkit.formatting import an
from layoutkit.principal import Principal
from layoutkit.service.boards.ownership import may_patch
from layoutkit.service.boards.presence import PAGE, others_present
from layoutkit.service.road.generic import kind_handler
from layoutkit.service.road.reach import card_board
from layoutkit.service.road.registry import REGISTRY
from layoutkit.service.road.workspace import Call, admits
from layoutkit.service.shared.common import ID, SLUG, card_view
from layoutkit.storage import BoardRecord, QuestionRecord

#: The columns of one outline row, in order (rows are arrays: a 50,000-card
#: outline stays a couple of megabytes).
OUTLINE_COLUMNS = ("id", "kind", "x", "y", "w", "h", "parent")
#: More changed cards than this since a viewer's rev: it is told to redraw everything,
#: which costs less than reading and sending each changed box.
MAX_CHANGES = 2000
#: Cards one ``get kind cards`` call reads.
MAX_CARD_IDS = 200
#: Operation names one outline call asks about (``may``).
MAX_OPS_ASKED = 40

_WINDOW = {
    "type": "object",
    "required": ["x", "y", "w", "h"],
    "properties": {
        "x": {"type": "number"},
        "y": {"type": "number"},
        "w": {"type": "number", "exclusiveMinimum": 0},
        "h": {"type": "number", "exclusiveMinimum": 0},
    },
    "additionalProperties": False,
}


#: Whole-board outlines kept per workspace, by board: a board's rev moves with every
#: write to its cards, so an outline read at a rev is the outline while the rev holds.
#: A few boards only (a 50,000-card outline is about 10 MB of tuples).
KEPT_OUTLINES = 4
_kept: weakref.WeakKeyDictionary[Any, OrderedDict[int, tuple[Any, list[Any]]]] = (
    weakref.WeakKeyDictionary()
)
_kept_lock = threading.Lock()


def _whole_outline(call: Call, board: BoardRecord) -> list[Any]:
    """Every live card's outline row, read again only when the board's rev moved."""
    stamp = (board.rev, board.created_at)
    with _kept_lock:
        kept = _kept.setdefault(call.workspace, OrderedDict())
        hit = kept.get(board.id)
        if hit is not None and hit[0] == stamp:
            kept.move_to_end(board.id)
            return hit[1]
    rows = call.tx.card_outline(board.id)
    with _kept_lock:
        kept[board.id] = (stamp, rows)
        kept.move_to_end(board.id)
        while len(kept) > KEPT_OUTLINES:
            kept.popitem(last=False)
    return rows


def _extent(board: BoardRecord, call: Call) -> dict[str, float] | None:
    extent = call.tx.card_extent(board.id)
    if extent is None:
        return None
    x0, y0, x1, y1 = extent
    return {"x": x0, "y": y0, "w": x1 - x0, "h": y1 - y0}


def _look(board: BoardRecord) -> str:
    """A short value that changes when what every card is drawn with changes (theme, title);
    not with each write, which stamps the board's meta too."""
    basis = json.dumps([board.theme, board.meta.get("title")], default=str)
    return hashlib.sha256(basis.encode()).hexdigest()[:12]


def _question_stamp(questions: list[QuestionRecord]) -> str:
    """A short value that changes when a question is asked, answered, released or removed."""
    basis = json.dumps([(q.id, q.state, q.answers) for q in questions], default=str)
    return hashlib.sha256(basis.encode()).hexdigest()[:12]


def _annotation_stamp(call: Call, board: BoardRecord) -> str:
    """A short value that changes when a finding is filed, accepted, dismissed, retriaged,
    withdrawn or otherwise written, and when a comment thread is opened, replied to,
    resolved, reopened, edited or deleted (comment threads are annotations): counts per
    state and intent catch every move a person makes, the latest write time the rest (a
    reply, an after-shot, an edit)."""
    basis = json.dumps(call.tx.annotation_tally(board.id), default=str)
    return hashlib.sha256(basis.encode()).hexdigest()[:12]


def _may(principal: Principal, names: list[str], call: Call) -> dict[str, bool]:
    """Which of the named operations ``principal`` may call (unknown names: False)."""
    registry = call.workspace.registry
    known = set(registry.names())
    return {n: n in known and admits(registry.get(n), principal) for n in names}


@REGISTRY.operation(
    "board_outline",
    "Every live card of a board as a box without its content: rows of id, kind, x, y, w, h "
    "and parent (columns names them), the extent around the top-level cards, the board's "
    "change counter rev (give it to board_changes as since), the wire counter edgesRev "
    "(update_edges takes it), the questions stamp, the "
    "annotations stamp and the look stamp (theme and title), and without region the "
    "wires as [from, to] card id pairs. region keeps only the cards reaching into that window. ops lists operation names to learn "
    "which of them the caller may call (may). What a viewer's overview, minimap and deep "
    "links read.",
    {
        "required": ["board"],
        "properties": {
            "board": SLUG,
            "region": _WINDOW,
            "ops": {
                "type": "array",
                "items": {"type": "string", "minLength": 1, "maxLength": 80},
                "maxItems": MAX_OPS_ASKED,
            },
        },
        "additionalProperties": False,
    },
    board="board",
    share=("view", "annotate"),
)
def board_outline(call: Call) -> dict[str, Any]:
    p, tx, board = call.params, call.tx, call.board
    region = p.get("region")
    within = (
        None
        if region is None
        else (region["x"], region["y"], region["x"] + region["w"], region["y"] + region["h"])
    )
    rows = (
        _whole_outline(call, board) if within is None else tx.card_outline(board.id, within=within)
    )
    out: dict[str, Any] = {
        "board": board.slug,
        "title": board.meta.get("title") if isinstance(board.meta.get("title"), str) else None,
        "rev": board.rev,
        "edgesRev": board.edges_rev,
        "look": _look(board),
        "questions": _question_stamp(tx.questions(board.id)),
        "annotations": _annotation_stamp(call, board),
        "extent": _extent(board, call),
        "columns": list(OUTLINE_COLUMNS),
        "cards": rows,
    }
    if within is None:
        # Which cards wires join: a viewer redraws a wire where a card it joins moved.
        out["wires"] = [[e.from_card, e.to_card] for e in tx.edges(board.id)]
    if "ops" in p:
        out["may"] = _may(call.principal, p["ops"], call)
    return out


@REGISTRY.operation(
    "board_changes",
    "What changed on a board after its change counter was at since (a rev from "
    "board_outline or an earlier board_changes): the boxes of the cards written since "
    "(removed ones with removed true), whether wires changed (edges) and the wire counter "
    "edgesRev, the questions stamp, the annotations stamp (it changes "
    "when a finding or a comment thread is filed, changes state, intent or thread, or "
    "a comment thread is edited or deleted) and the look "
    "stamp (it changes with the theme or title, when every card looks different). reset true means redraw everything (a purge, or too "
    "many changes to list). The same answer with no cards means nothing changed. "
    "presence lists who else has the board open now (board_presence; page is the "
    "caller's own page, left out of it).",
    {
        "required": ["board", "since"],
        "properties": {
            "board": SLUG,
            "since": {"type": "integer", "minimum": 0},
            "page": PAGE,
        },
        "additionalProperties": False,
    },
    board="board",
    share=("view", "annotate"),
)
def board_changes(call: Call) -> dict[str, Any]:
    tx, board = call.tx, call.board
    since = call.params["since"]
    out: dict[str, Any] = {
        "board": board.slug,
        "since": since,
        "rev": board.rev,
        "look": _look(board),
        "questions": _question_stamp(tx.questions(board.id)),
        "annotations": _annotation_stamp(call, board),
        "edges": board.edges_rev > since,
        "edgesRev": board.edges_rev,
        "reset": board.purged_rev > since or since > board.rev,
        "cards": [],
        "presence": others_present(tx, board.id, call.principal, call.params.get("page", "")),
    }
    if board.rev <= since or out["reset"]:
        return out
    changed = tx.card_changes(board.id, since)
    if len(changed) > MAX_CHANGES:
        out["reset"] = True
        return out
    out["cards"] = [
        {
            "id": c.id,
            "kind": c.kind,
            "x": c.x,
            "y": c.y,
            "w": c.w,
            "h": c.h,
            "parent": c.parent_id,
            "version": c.version,
            **({"removed": True} if c.deleted else {}),
        }
        for c in changed
    ]
    return out


@kind_handler(
    "get",
    "cards",
    {
        "board": SLUG,
        "ids": {"type": "array", "items": ID, "minItems": 1, "maxItems": MAX_CARD_IDS},
    },
    required=("board", "ids"),
    board="board",
    share=("view", "annotate"),
)
def get_cards(call: Call) -> dict[str, Any]:
    """Live cards of one board by id, with their payloads; ids not on it are listed as missing."""
    wanted = list(dict.fromkeys(call.params["ids"]))
    found = {
        c.id: c
        for c in call.tx.cards_by_id(wanted)
        if c.board_id == call.board.id and not c.deleted
    }
    registry = call.workspace.registry
    writer = "update_cards" in registry.names() and admits(
        registry.get("update_cards"), call.principal
    )
    return {
        # Who made each card, whether a person sized it and whether the caller may
        # change its content: what an inspector shows and an editor offers.
        "cards": [
            {
                **card_view(found[i]),
                "author": found[i].author,
                "sizedBy": found[i].sized_by,
                "mayEdit": writer and may_patch(call.principal, found[i], {"payload": {}}),
            }
            for i in wanted
            if i in found
        ],
        "missing": [i for i in wanted if i not in found],
    }


@REGISTRY.operation(
    "tick_checklist",
    "Tick (done true) or untick one item of a checklist card, by its index in items; the "
    "tick is kept in the card's payload, where agents read it. text, when sent, must be the "
    "item's text as the caller saw it (409 checklist_changed otherwise), so a tick never "
    "lands on an item that moved. People, agents and annotate share links may tick.",
    {
        "required": ["id", "item", "done"],
        "properties": {
            "id": ID,
            "item": {"type": "integer", "minimum": 0, "maximum": 9999},
            "done": {"type": "boolean"},
            "text": {"type": "string", "maxLength": 10000},
        },
        "additionalProperties": False,
    },
    board=lambda tx, call: card_board(tx, call.workspace_id, call.params["id"]),
    writes=True,
    share=("annotate",),
)
def tick_checklist(call: Call) -> dict[str, Any]:
    p, tx = call.params, call.tx
    card = tx.card(p["id"])
    assert card is not None  # the road found its board
    if card.kind != "checklist":
        raise ServiceError(
            400, "not_a_checklist", f"card {card.id} is {an(card.kind)} card, not a checklist"
        )
    items = list(card.payload.get("items") or [])
    index = p["item"]
    if index >= len(items):
        raise ServiceError(
            400,
            "unknown_item",
            f"the checklist has {len(items)} items; item {index} is not one of them",
            field="item",
            items=len(items),
        )
    entry = items[index]
    entry = dict(entry) if isinstance(entry, dict) else {"text": str(entry)}
    if "text" in p and p["text"] != entry.get("text"):
        raise ServiceError(
            409,
            "checklist_changed",
            f"item {index} now reads {entry.get('text')!r}; read the card again and retry",
            field="text",
            current=entry.get("text"),
        )
    done = p["done"]
    changed = bool(entry.get("done", False)) != done
    version = card.version
    if changed:
        entry["done"] = done
        items[index] = entry
        (updated,) = tx.update_cards([{"id": card.id, "payload": {**card.payload, "items": items}}])
        version = updated.version
        tx.record_event(
            "checklist.tick",
            call.principal.label,
            board_id=card.board_id,
            detail={"card": card.id, "item": index, "done": done},
        )
    return {
        "id": card.id,
        "item": index,
        "done": done,
        "changed": changed,
        "version": version,
        "items": items,
    }
