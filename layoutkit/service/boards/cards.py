"""``update_cards`` and ``arrange``: changing what is already on a board."""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from typing import Any

from layoutkit import layout
from layoutkit.errors import ServiceError
from layoutkit.layout.place import changes_from_journal
from layoutkit.layout.reading import reading_order
from layoutkit.limits import ARRANGE_CARDS
from layoutkit.principal import Principal
from layoutkit.service.boards import links, outputs
from layoutkit.service.boards.board_model import BoardModels, layout_card, write_changes
from layoutkit.service.boards.content_prep import (
    Outcome,
    Prepared,
    attempt,
    authored_patch,
    check_portals,
    prepare_card,
    store_spilled,
    truncated_warning,
)
from layoutkit.service.boards.ownership import may_patch
from layoutkit.service.boards.ref_targets import card_title, refresh_ref_targets, stamp_ref_targets
from layoutkit.service.road.registry import REGISTRY
from layoutkit.service.road.workspace import Call
from layoutkit.service.shared.common import ID, SLUG
from layoutkit.storage import BoardRecord, CardRecord, Tx

#: Removals at or past either limit, or of anyone else's card, need the confirm handshake.
MAX_QUIET_REMOVALS = 25
MAX_QUIET_SHARE = 0.30
REASON_LENGTH = (20, 1000)
#: How long a removal token stays good: long enough to read the preview and ask
#: a person, short enough that a token found later in a log is useless.
CONFIRM_TTL = 600

_ID_LIST = {"type": "array", "items": ID, "maxItems": 10000}


def _cards_on_one_board(
    tx: Tx, call: Call, ids: list[int], *, deleted: bool = False
) -> BoardRecord:
    records = tx.cards_by_id(ids)
    boards = {b: tx.board(b) for b in {r.board_id for r in records}}
    # A card of another workspace is as unknown as one that never was: it is left out
    # before anything else is said of it (that it sits on another board, say).
    found = {
        r.id: r
        for r in records
        if (board := boards[r.board_id]) is not None and board.workspace_id == call.workspace_id
    }
    missing = [i for i in ids if i not in found or found[i].deleted != deleted]
    if missing:
        state = "trashed " if deleted else ""
        raise ServiceError(404, "unknown_card", f"no {state}card {missing[0]}", id=missing[0])
    on = {r.board_id for r in found.values()}
    if len(on) > 1:
        raise ServiceError(400, "mixed_boards", "one update_cards call changes one board")
    board = boards[on.pop()]
    assert board is not None
    return board


def _confirm_basis(call: Call, what: str, ids: list[int], expires: int, nonce: str) -> bytes:
    # ``what`` keeps a token for removing cards from removing the wires of the same ids.
    return (
        f"{call.workspace_id}|{call.principal.label}|{what}|{sorted(set(ids))}|{expires}|{nonce}"
    ).encode()


def _confirm_token(call: Call, what: str, ids: list[int]) -> str:
    """A removal token: random, valid for CONFIRM_TTL seconds, for these ids and this caller.

    It is signed with the store's ``confirm`` key (not kept per token: the 409
    that hands it out rolls its transaction back), so any process of the
    deployment checks it, and nobody computes one without being shown it.
    """
    expires = int(time.time()) + CONFIRM_TTL
    nonce = secrets.token_hex(8)
    mac = hmac.new(
        call.workspace.confirm_key, _confirm_basis(call, what, ids, expires, nonce), hashlib.sha256
    )
    return f"rm_{expires:x}_{nonce}_{mac.hexdigest()[:32]}"


def _confirmed(call: Call, what: str, ids: list[int], token: Any) -> bool:
    """Whether ``token`` was handed out for removing ``ids`` by this caller and is still fresh."""
    parts = token.split("_") if isinstance(token, str) else []
    if len(parts) != 4 or parts[0] != "rm":
        return False
    _, expires_hex, nonce, sent = parts
    try:
        expires = int(expires_hex, 16)
    except ValueError:
        return False
    if expires < time.time():
        return False
    mac = hmac.new(
        call.workspace.confirm_key, _confirm_basis(call, what, ids, expires, nonce), hashlib.sha256
    )
    return hmac.compare_digest(mac.hexdigest()[:32], sent)


def _check_removal(
    call: Call, tx: Tx, board: BoardRecord, ids: list[int], records: list[CardRecord]
) -> None:
    foreign = [r for r in records if r.author != call.principal.label]
    total = tx.count_cards(board.id)
    share = len(set(ids)) / total if total else 1.0
    reasons = []
    if foreign and call.principal.kind != "owner":
        reasons.append(f"{len(foreign)} card(s) belong to someone else")
    if len(set(ids)) > MAX_QUIET_REMOVALS:
        reasons.append(f"more than {MAX_QUIET_REMOVALS} cards")
    if share >= MAX_QUIET_SHARE:
        reasons.append(f"{share:.0%} of the board")
    confirm_removal(
        call,
        "cards",
        ids,
        reasons,
        [
            {
                "id": r.id,
                "kind": r.kind,
                "title": card_title(r.payload),
                "author": r.author,
                "layer": r.layer,
            }
            for r in records
        ],
    )


def confirm_removal(
    call: Call, what: str, ids: list[int], reasons: list[str], preview: list[dict[str, Any]]
) -> None:
    """The confirm handshake of a removal (of ``what``: cards or wires) that has
    ``reasons`` to ask first: 409 ``needs_confirm`` with a token and ``preview``,
    unless the call repeats the same ids with that token and a reason."""
    if not reasons:
        return
    confirm = call.params.get("confirm")
    reason = call.params.get("reason")
    if _confirmed(call, what, ids, confirm):
        if not isinstance(reason, str) or not REASON_LENGTH[0] <= len(reason) <= REASON_LENGTH[1]:
            raise ServiceError(
                400,
                "invalid_reason",
                f"a confirmed removal needs a reason of {REASON_LENGTH[0]} to {REASON_LENGTH[1]} characters",
                field="reason",
            )
        return
    stale = f" (the confirm token sent is expired or for other {what})" if confirm else ""
    raise ServiceError(
        409,
        "needs_confirm",
        f"removing these {what} needs confirmation ({'; '.join(reasons)}){stale}; repeat the "
        f"same ids within {CONFIRM_TTL // 60} minutes with confirm set to the token and a reason",
        token=_confirm_token(call, what, ids),
        expiresIn=CONFIRM_TTL,
        preview=preview,
    )


def _check_ownership(
    call: Call,
    records: dict[int, CardRecord],
    patches: list[dict[str, Any]],
    restore: list[int],
) -> None:
    """403 ``not_your_card`` for a patch of a card the caller may not patch, or a
    restore of another author's card by anyone but the owner."""
    for patch in patches:
        if not may_patch(call.principal, records[patch["id"]], patch):
            raise ServiceError(
                403,
                "not_your_card",
                f"card {patch['id']} is not yours to patch; patch your own AI-layer cards and "
                "section frames (people may move and resize any card)",
                id=patch["id"],
            )
    for card_id in restore:
        record = records[card_id]
        if call.principal.kind != "owner" and record.author != call.principal.label:
            raise ServiceError(
                403, "not_your_card", f"card {card_id} is not yours to restore", id=card_id
            )


def _check_versions(records: dict[int, CardRecord], patches: list[dict[str, Any]]) -> None:
    """409 ``stale_card`` when a patch names the version it started from and the card
    has moved on since (someone else wrote it): nothing is written, and the answer
    carries the card as it is now, so the writer's view can take it."""
    for patch in patches:
        record = records[patch["id"]]
        if "version" in patch and patch["version"] != record.version:
            raise ServiceError(
                409,
                "stale_card",
                f"card {record.id} changed since version {patch['version']} (it is at "
                f"version {record.version}); nothing was written, read it again",
                id=record.id,
                card=card_box(record),
            )


def _prepared_patch(
    call: Call,
    record: CardRecord,
    authored: dict[str, Any],
    index: int,
    done: tuple[str, dict[str, Any], Outcome] | None,
) -> Prepared:
    """The patched payload checked before the transaction, when the card is still as the
    snapshot read it; else checked now against the card as it is."""
    if done is not None and done[:2] == (record.kind, record.payload):
        return done[2].get()
    # The card changed since the snapshot: check the patch against it now.
    return _patched(record.kind, record.payload, authored, index, call.principal)


@REGISTRY.operation(
    "update_cards",
    "Patch cards (payload as a merge of top-level keys, x, y, w, h), remove cards (soft "
    "delete, kept 30 days) or restore your own trashed cards, all on one board. Removing "
    "someone else's card, more than 25 cards or 30% of the board answers 409 "
    "needs_confirm with a token and a preview; repeat the same ids within 10 minutes, "
    "as the same caller, with confirm set to that token and a reason of 20-1000 characters. "
    "People may move and resize (x, y, w, h) any card; a person's w or h makes the card "
    "user-sized (never re-sized to its content again). A patch's version, when sent, is "
    "the card version the change started from: if the card moved on since, nothing is "
    "written and the answer is 409 stale_card with the card as it is now. "
    "board, when sent, must be the cards' board.",
    {
        "properties": {
            # As many cards as one arrange moves.
            "patch": {
                "type": "array",
                "maxItems": ARRANGE_CARDS,
                "items": {
                    "type": "object",
                    "required": ["id"],
                    "properties": {
                        "id": ID,
                        "payload": {"type": "object"},
                        # The card version the change started from (optimistic concurrency).
                        "version": {"type": "integer", "minimum": 1},
                        # A board is large but finite: coordinates stay where
                        # float arithmetic is exact to well under a pixel.
                        **{
                            k: {"type": "number", "minimum": -1e7, "maximum": 1e7}
                            for k in ("x", "y")
                        },
                        **{
                            k: {"type": "number", "exclusiveMinimum": 0, "maximum": 1e6}
                            for k in ("w", "h")
                        },
                    },
                    "additionalProperties": False,
                },
            },
            # Optional: the cards' board, checked (every board operation takes one).
            "board": SLUG,
            "remove": _ID_LIST,
            "restore": _ID_LIST,
            "reason": {"type": "string", "maxLength": 1000},
            "confirm": {"type": "string"},
        },
        "additionalProperties": False,
    },
    board=lambda tx, call: _update_board(tx, call),
    writes=True,
    snapshot=lambda tx, call: _patched_payloads(tx, call),
    prepare=lambda call: _prepare_patches(call),
    fetches=True,
    output=outputs.UPDATE_CARDS,
)
def update_cards(call: Call) -> dict[str, Any]:
    p, tx, board = call.params, call.tx, call.board
    patches = p.get("patch") or []
    remove = p.get("remove") or []
    restore = p.get("restore") or []
    ids = [x["id"] for x in patches] + remove
    records = {r.id: r for r in tx.cards_by_id(ids + restore)}
    _check_ownership(call, records, patches, restore)
    _check_versions(records, patches)
    if remove:
        _check_removal(call, tx, board, remove, [records[i] for i in dict.fromkeys(remove)])

    warnings: list[dict[str, Any]] = []
    engine_patches = []
    refetch: list[tuple[int, str]] = []
    early: dict[int, tuple[str, dict[str, Any], Outcome]] = call.prepared
    for i, patch in enumerate(patches):
        payload = None
        if "payload" in patch:
            record = records[patch["id"]]
            authored = patch["payload"]
            prepared = _prepared_patch(call, record, authored, i, early.get(i))
            check_portals(tx, board, call.principal, [(i, prepared.kind, prepared.payload)])
            # A new URL clears what the last unfurl stored (kept above) and fetches again.
            if record.kind == "link" and links.stamp_patch(
                call.workspace, record.payload, authored, prepared.payload
            ):
                refetch.append((record.id, prepared.payload["url"]))
            store_spilled(tx, prepared)
            stamp_ref_targets(
                tx,
                board.workspace_id,
                [(i, record.kind, prepared.payload)],
                "patch",
                call.principal,
            )
            warnings += [{**w, "index": i} for w in prepared.warnings]
            payload = prepared.payload
        engine_patches.append(
            layout.CardPatch(
                patch["id"],
                payload,
                patch.get("x"),
                patch.get("y"),
                patch.get("w"),
                patch.get("h"),
            )
        )
    # Frames' payloads plus the patched cards' (a width-only patch re-wraps their text).
    model = call.workspace.extension(BoardModels).load(tx, board, also=[p["id"] for p in patches])
    if engine_patches:
        write_changes(
            tx,
            layout.apply_patches(model, engine_patches, by_person=call.principal.layer == "human"),
        )
    if remove:
        tx.remove_cards(remove, by=call.principal.label)
        write_changes(tx, layout.remove_cards(model, remove))
    if restore:
        tx.restore_cards(restore)
        _put_back(tx, model, tx.cards_by_id(restore))
    refresh_ref_targets(tx, board, [x["id"] for x in patches if "payload" in x] + remove + restore)
    links.schedule(call, board, refetch)
    tx.record_event(
        "cards.update",
        call.principal.label,
        board_id=board.id,
        detail={
            "patched": len(patches),
            "removed": remove,
            "restored": restore,
            "reason": p.get("reason"),
        },
    )
    final = {r.id: r for r in tx.cards_by_id([x["id"] for x in patches] + restore)}
    for i, patch in enumerate(patches):
        # What a new payload or a smaller box leaves off the face is said, as a
        # compose says it; a move alone changes nothing the face shows.
        if not {"payload", "w", "h"} & patch.keys():
            continue
        r = final[patch["id"]]
        cut = truncated_warning(r.kind, None, r.w, r.h, r.payload)
        if cut is not None:
            warnings.append({**cut, "index": i, "cardId": r.id})
    return {
        "board": board.slug,
        "cards": [card_box(final[x["id"]]) for x in patches],
        "removed": remove,
        "restored": [card_box(final[i]) for i in restore],
        "warnings": warnings,
    }


def _check_update(call: Call) -> None:
    p = call.params
    if not (p.get("patch") or p.get("remove") or p.get("restore")):
        raise ServiceError(400, "empty_update", "send patch, remove or restore", field="patch")


def _patched(
    kind: str, stored: dict[str, Any], authored: dict[str, Any], index: int, who: Principal
) -> Prepared:
    """A payload patch merged onto the stored payload, checked and laid out.

    Server-owned fields (a doc's push set, a ref's target, measured sizes) keep
    their stored values; a person's patch is the editor's write path.
    """
    editor = who.layer == "human"
    merged = authored_patch(kind, stored, authored, editor=editor)
    if "rows" in authored or "data" in authored:
        merged.pop("dataRef", None)  # new inline data replaces the kept blob
    try:
        return prepare_card({"kind": kind, "payload": merged}, index, stored=stored, editor=editor)
    except ServiceError as err:
        # The card sits in the call's patch list: say so where the refusal names it.
        path = err.body.get("path")
        if isinstance(path, str) and path.startswith("cards["):
            err.body["path"] = "patch" + path.removeprefix("cards")
        raise


def _patched_payloads(tx: Tx, call: Call) -> dict[int, tuple[str, dict[str, Any]]]:
    """Kind and stored payload of every card a payload patch names (read before the lock)."""
    ids = [x["id"] for x in call.params.get("patch") or [] if "payload" in x]
    return {r.id: (r.kind, r.payload) for r in tx.cards_by_id(ids)} if ids else {}


def _prepare_patches(call: Call) -> dict[int, tuple[str, dict[str, Any], Outcome]]:
    """Merge, check and lay out payload patches before the write transaction opens.

    A diagram patch lays the diagram out, which can take a while; done here,
    the database's write lock is held only for the write. The handler uses a
    result only if the card's kind and payload are still the ones read here.
    """
    _check_update(call)
    stored = call.snapshot or {}
    out: dict[int, tuple[str, dict[str, Any], Outcome]] = {}
    for i, patch in enumerate(call.params.get("patch") or []):
        found = stored.get(patch["id"])
        if "payload" in patch and found is not None:
            kind, payload = found
            out[i] = (
                kind,
                payload,
                attempt(
                    lambda k=kind, p=payload, a=patch["payload"], n=i: _patched(
                        k, p, a, n, call.principal
                    )
                ),
            )
    return out


def _update_board(tx: Tx, call: Call) -> BoardRecord:
    """The one board every patched, removed and restored card sits on."""
    p = call.params
    ids = [x["id"] for x in p.get("patch") or []] + list(p.get("remove") or [])
    restore = p.get("restore") or []
    board = _cards_on_one_board(tx, call, ids) if ids else None
    if restore:
        restored_board = _cards_on_one_board(tx, call, restore, deleted=True)
        if board is not None and restored_board.id != board.id:
            raise ServiceError(400, "mixed_boards", "one update_cards call changes one board")
        board = restored_board
    assert board is not None  # _check_update saw at least one id
    return board


def _put_back(tx: Tx, model: layout.Board, records: list[CardRecord]) -> None:
    """Return restored cards to the board model and store the reflow around them.

    A restored card rejoins its old frame when that frame is on the board (listed
    among its children, in reading order, so a managed frame re-lays it out); a
    restored frame takes back those of its old children that were lifted to its
    level on removal and still sit inside its box. Without this the card would
    name a parent that does not list it, and no reflow would ever place it.
    """
    model.begin()
    dirty: list[Any] = []
    for r in records:
        model.add(layout_card(r, r.payload, linked=False))
    for r in records:
        parent = r.parent_id if r.parent_id in model and r.parent_id != r.id else None
        if parent is not None and model.get(parent).is_frame:
            model.set_parent(r.id, parent, _reading_slot(model, parent, r.id))
            dirty.append(parent)
        if r.kind in layout.FRAME_KINDS:
            box = model.get(r.id).rect
            level = model.get(r.id).parent
            for kid in r.children or []:
                if (
                    kid in model
                    and kid != r.id
                    and model.get(kid).parent == level
                    and kid not in model.ancestors(r.id)
                    and box.contains(model.get(kid).rect)
                ):
                    model.set_parent(kid, r.id, _reading_slot(model, r.id, kid))
            dirty.append(r.id)
    journal, added = model.commit()
    links = changes_from_journal(model, journal, added)
    write_changes(tx, links)
    # The stored rows of the restored cards still name their old parent.
    tx.update_cards([{"id": r.id, "parent_id": model.get(r.id).parent} for r in records])
    ids = [r.id for r in records]
    write_changes(tx, layout.reflow(model, ids, frames_to_relayout=dirty))


def _reading_slot(model: layout.Board, frame: Any, key: Any) -> int:
    siblings = [model.get(k) for k in model.get(frame).children if k != key]
    return reading_order([*siblings, model.get(key)], tie=_created).index(model.get(key))


def _created(card: layout.Card) -> int:
    return card.created


def card_box(r: CardRecord) -> dict[str, Any]:
    """A written card as an answer names it: id, kind, box and version."""
    return {
        "id": r.id,
        "kind": r.kind,
        "x": r.x,
        "y": r.y,
        "w": r.w,
        "h": r.h,
        "version": r.version,
    }


@REGISTRY.operation(
    "arrange",
    "Re-arrange cards of a board by mode (column, row, grid, flow, lanes, masonry, timeline, "
    "timeaxis, compare, journey, graph, align-left, align-top, distribute-h, distribute-v) "
    "with gap, padding, scope (ai, all, section:<Name> or ids), cols (number or auto) and "
    "sort (reading or oldest). save with a section scope keeps the layout on the section.",
    {
        "required": ["board", "mode"],
        "properties": {
            "board": SLUG,
            "mode": {"type": "string"},
            "gap": {"type": "number", "minimum": 0, "maximum": 2000},
            "padding": {"type": "number", "minimum": 0, "maximum": 2000},
            "scope": {
                "anyOf": [
                    {"type": "string", "pattern": "^(ai|all|section:.+)$"},
                    # Over arrangeCards the arrange answers 413 naming that limit.
                    {"type": "array", "items": ID, "minItems": 1, "maxItems": 10000},
                ]
            },
            "save": {"type": "boolean"},
            # One section, or two to compare.
            "sections": {
                "type": "array",
                "items": {"type": "string", "maxLength": 200},
                "minItems": 1,
                "maxItems": 2,
            },
            "cols": {
                "anyOf": [{"type": "integer", "minimum": 1, "maximum": 100}, {"const": "auto"}]
            },
            "sort": {"type": "string"},
        },
        "additionalProperties": False,
    },
    board="board",
    writes=True,
)
def arrange(call: Call) -> dict[str, Any]:
    p, tx, board = call.params, call.tx, call.board
    scope = p.get("scope", "ai")
    # Payloads only of the cards arranged (lanes, dates and trees read content).
    model = call.workspace.extension(BoardModels).load(
        tx,
        board,
        also_of=lambda m: layout.arrange_reads(m, p["mode"], scope, p.get("sections")),
    )
    result = layout.arrange(
        model,
        p["mode"],
        gap=p.get("gap"),
        padding=p.get("padding"),
        scope=scope,
        save=p.get("save", False),
        sections_=p.get("sections"),
        cols=p.get("cols"),
        sort=p.get("sort", "reading"),
    )
    touched = write_changes(tx, result.changes)
    tx.record_event(
        "board.arrange",
        call.principal.label,
        board_id=board.id,
        detail={"mode": p["mode"], "cards": touched},
    )
    moved = {r.id: r for r in tx.cards_by_id(list(result.arranged))} if result.arranged else {}
    return {
        "board": board.slug,
        "mode": p["mode"],
        "cards": [card_box(moved[i]) for i in result.arranged if i in moved],
        "moved": sorted(k for k in result.changes.moves if isinstance(k, int)),
        "saved": list(result.saved),
    }
