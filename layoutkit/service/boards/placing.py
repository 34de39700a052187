"""The write path that compose, uploads and push share: place a batch and store it.

Operations never call each other's handlers; the steps they have in common
live here as plain functions of a transaction and a principal.
"""

from __future__ import annotations

from typing import Any

from layoutkit import layout
from layoutkit.errors import ServiceError
from layoutkit.principal import Principal
from layoutkit.service.boards.board_model import BoardModels, write_changes
from layoutkit.service.boards.content_prep import Prepared, store_spilled, truncated_warning
from layoutkit.service.boards.layout_params import batch_from_params
from layoutkit.service.boards.ref_targets import stamp_ref_targets
from layoutkit.storage import BoardRecord, NewCard, NewEdge, NewQuestion, Tx


def place_cards(
    principal: Principal,
    tx: Tx,
    board: BoardRecord,
    prepared: list[Prepared],
    placement: dict[str, Any],
    *,
    models: BoardModels,
    sizes: list[tuple[float, float] | None] | None = None,
) -> dict[str, Any]:
    """Place ``prepared`` cards on the locked ``board`` as one compose batch and store them.

    ``placement`` holds compose placement params (``section``,
    ``createSection``, ``anchor``...); ``sizes`` (one per card, ``None`` to
    measure) pins the sizes the caller chose. Returns compose_board's receipt. Raises
    what the layout engine refuses (409 ``section_near_match`` and the like).
    """
    batch = batch_from_params(
        {
            **placement,
            "layer": principal.layer,
            "cards": [
                {"kind": p.kind, "payload": p.payload, "size": size}
                for p, size in zip(prepared, sizes or [None] * len(prepared), strict=True)
            ],
        }
    )
    raw = [{} for _ in prepared]
    return store_batch(principal, tx, board, batch, prepared, raw, [], [], [], models=models)


def new_question(q: dict[str, Any], card_id: int | None, principal: Principal) -> NewQuestion:
    return NewQuestion(
        prompt=q["prompt"],
        options=q["options"],
        stakes=q["stakes"],
        multi_select=q["multiSelect"],
        kind=q["kind"],
        pivot=q["pivot"],
        card_id=card_id,
        author=principal.label,
    )


def store_batch(
    principal: Principal,
    tx: Tx,
    board: BoardRecord,
    batch: layout.Batch,
    prepared: list[Prepared],
    raw_cards: list[dict[str, Any]],
    raw_edges: list[dict[str, Any]],
    raw_questions: list[dict[str, Any]],
    staged: list[dict[str, Any]],
    *,
    models: BoardModels,
) -> dict[str, Any]:
    """Place ``batch`` on the locked ``board`` and store cards, wires and questions.

    ``prepared`` are the batch's cards after the contract check; the raw
    lists are what the caller sent (refs, wire ends, question card links).
    Returns compose_board's receipt.
    """
    model = models.load(tx, board)
    result = layout.place_batch(model, batch)
    stamp_ref_targets(
        tx,
        board.workspace_id,
        ((i, pl.kind, model.get(pl.key).payload) for i, pl in enumerate(result.placements)),
        "cards",
        principal,
    )
    author = principal.label
    layer = principal.layer

    for p in prepared:
        store_spilled(tx, p)

    # Ids are assigned on insert; parent and children links follow in link_new_cards.
    new_rows: list[tuple[str, NewCard]] = [
        (s.key, NewCard("section", s.payload, s.x, s.y, s.w, s.h, layer, author, sized_by="frame"))
        for s in result.sections
    ]
    for pl in result.placements:
        card = model.get(pl.key)
        sized_by = "frame" if card.is_frame else card.sized_by
        new_rows.append(
            (
                pl.key,
                NewCard(
                    pl.kind,
                    card.payload,
                    pl.x,
                    pl.y,
                    pl.w,
                    pl.h,
                    # A batch may name its layer (an import is drawn by a person).
                    card.layer or layer,
                    author,
                    sized_by=sized_by,
                ),
            )
        )
    records = tx.insert_cards(board.id, [row[1] for row in new_rows])
    ids: dict[Any, int] = {row[0]: rec.id for row, rec in zip(new_rows, records, strict=True)}

    def real(key: Any) -> Any:
        return ids.get(key, key)

    links = []
    for key, _ in new_rows:
        card = model.get(key)
        parent = card.parent
        kids = list(card.children)
        if parent is not None or kids:
            links.append(
                {
                    "id": ids[key],
                    "parent_id": real(parent),
                    "children": [real(k) for k in kids] or None,
                }
            )
    tx.link_new_cards(links)
    write_changes(tx, result.changes, ids)
    if result.flow_changed:
        tx.update_board(board.id, flow=result.flow)

    refs = {
        c["ref"]: ids[pl.key]
        for c, pl in zip(raw_cards, result.placements, strict=True)
        if c.get("ref")
    }
    edge_records = tx.insert_edges(
        board.id, [_edge(tx, board, e, i, refs, author) for i, e in enumerate(raw_edges)]
    )
    question_records = tx.insert_questions(
        board.id,
        [
            new_question(q, _question_card(tx, board, raw, i, refs), principal)
            for i, (q, raw) in enumerate(zip(staged, raw_questions, strict=True))
        ],
    )
    model.rekey(ids)
    tx.record_event(
        "board.compose",
        author,
        board_id=board.id,
        detail={"cards": len(records), "edges": len(edge_records)},
    )
    warnings = [{**w, "index": i} for i, p in enumerate(prepared) for w in p.warnings]
    for i, (pl, raw) in enumerate(zip(result.placements, raw_cards, strict=True)):
        cut = truncated_warning(pl.kind, raw.get("ref"), pl.w, pl.h, model.get(ids[pl.key]).payload)
        if cut is not None:
            warnings.append({**cut, "index": i})
    return {
        "board": board.slug,
        "cards": [
            {
                **({"ref": raw["ref"]} if raw.get("ref") else {}),
                "id": ids[pl.key],
                "kind": pl.kind,
                "x": pl.x,
                "y": pl.y,
                "w": pl.w,
                "h": pl.h,
                "placedAs": pl.placed_as,
                "container": real(pl.container),
            }
            for pl, raw in zip(result.placements, raw_cards, strict=True)
        ],
        "sections": [
            {
                "id": ids[s.key],
                "title": s.payload.get("title"),
                "x": s.x,
                "y": s.y,
                "w": s.w,
                "h": s.h,
            }
            for s in result.sections
        ],
        "moved": sorted(k for k in result.changes.moves if isinstance(k, int)),
        "edges": [{"id": e.id, "from": e.from_card, "to": e.to_card} for e in edge_records],
        "questions": [{"id": q.id, "state": q.state} for q in question_records],
        "warnings": warnings,
    }


def _resolve_end(
    tx: Tx, board: BoardRecord, end: Any, refs: dict[str, int], where: str, index: int
) -> int:
    if isinstance(end, str):
        if end in refs:
            return refs[end]
        raise ServiceError(
            400,
            "unknown_ref",
            f"{where}: no card with ref {end!r} in this batch",
            index=index,
            field=where,
        )
    card = tx.card(end)
    if card is None or card.board_id != board.id or card.deleted:
        raise ServiceError(
            400, "unknown_card", f"{where}: no card {end} on this board", index=index, field=where
        )
    return card.id


def _edge(
    tx: Tx, board: BoardRecord, raw: dict[str, Any], i: int, refs: dict[str, int], author: str
) -> NewEdge:
    return NewEdge(
        _resolve_end(tx, board, raw["from"], refs, f"edges[{i}].from", i),
        _resolve_end(tx, board, raw["to"], refs, f"edges[{i}].to", i),
        rel=raw.get("rel"),
        label=raw.get("label"),
        from_region=raw.get("fromRegion"),
        to_region=raw.get("toRegion"),
        author=author,
    )


def _question_card(
    tx: Tx, board: BoardRecord, raw: dict[str, Any], i: int, refs: dict[str, int]
) -> int | None:
    if "cardRef" in raw:
        return _resolve_end(tx, board, raw["cardRef"], refs, f"questions[{i}].cardRef", i)
    if "cardId" in raw:
        return _resolve_end(tx, board, raw["cardId"], refs, f"questions[{i}].cardId", i)
    return None
