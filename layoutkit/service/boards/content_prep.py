"""Write-time preparation of authored payloads: contract check, diagram import and layout.

Shared by every operation that stores content (compose_board, update_cards),
so a payload is checked and completed the same way whatever road it came by.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import attrs

from layoutkit import diagram, elements, render
from layoutkit.errors import EngineError, ServiceError
from layoutkit.limits import check_limit
from layoutkit.principal import Principal
from layoutkit.service.boards.guidance import contract_guidance
from layoutkit.service.road import offload
from layoutkit.service.road.reach import may_reach
from layoutkit.service.shared.merge_patch import merge_patch
from layoutkit.storage import BoardRecord, Tx

#: Rows a table keeps in its payload; past them the rows move behind a dataRef. A page
#: editing a table in place reads it here (adapters reach the contract through the service).
INLINE_TABLE_ROWS = elements.SPILL_THRESHOLD_ROWS

_DIAGRAM_CONTENT = ("nodes", "groups", "lanes")


@attrs.frozen
class Prepared:
    """A card ready to place: its normalized kind and payload, warnings and spilled data."""

    kind: str
    payload: dict[str, Any]
    warnings: list[dict[str, Any]]
    spilled: dict[str, Any]


@attrs.frozen
class Outcome:
    """Engine work done before the transaction: its result, or the refusal it met."""

    value: Any = None
    error: Exception | None = None

    def get(self) -> Any:
        if self.error is not None:
            raise self.error
        return self.value


def attempt(work: Callable[[], Any]) -> Outcome:
    """Run engine work before the transaction, keeping a refusal for the handler.

    Work done before the road checks access must not answer for a card the
    caller may not see, so its refusals wait until the handler, after the
    checks, asks for the result.
    """
    try:
        return Outcome(work())
    except (ServiceError, EngineError) as err:
        return Outcome(error=err)


def _lift_data_ref(card: dict[str, Any]) -> dict[str, Any]:
    payload = card.get("payload")
    if isinstance(payload, dict) and "dataRef" in payload and "dataRef" not in card:
        inner = dict(payload)
        return {**card, "payload": inner, "dataRef": inner.pop("dataRef")}
    return card


def store_spilled(tx: Tx, prepared: Prepared) -> None:
    """Keep the bulk data the normalizer moved out, as blobs under their dataRef keys."""
    for key, data in prepared.spilled.items():
        stored = tx.blobs.put(elements.canonical_json(data))
        if stored != key:  # both sides hash the same canonical bytes
            raise RuntimeError(f"blob key mismatch for {key}")


def _refuse(index: int | None, findings: list[dict[str, Any]], card: Any = None) -> ServiceError:
    first = next(f for f in findings if f["severity"] == "error")
    extra: dict[str, Any] = {"findings": findings}
    if index is not None:
        extra["index"] = index
    if first["code"] == "unknown_kind":
        extra["allowed"] = list(elements.BOARD_VOCABULARY)
    if first["code"] == "retired_kind":
        extra["replacement"] = first.get("fix", "").removeprefix("use kind ").strip("'")
    where = f"cards[{index}]." if index is not None else ""
    # Where the refused value sits in the call, and its expected shape and docs topic.
    guide = contract_guidance(card, first["path"], code=first["code"], message=first["message"])
    extra["path"] = where + guide.pop("at", first["path"])
    extra.update(guide)
    return ServiceError(400, first["code"], f"{where}{first['path']}: {first['message']}", **extra)


def _check_diagram_size(payload: dict[str, Any]) -> None:
    """Refuse a diagram over the node or edge cap before checking it node by node."""
    nodes = 0
    stack: list[Any] = [payload]
    while stack:
        holder = stack.pop()
        if not isinstance(holder, dict):
            continue
        members = holder.get("nodes")
        nodes += len(members) if isinstance(members, list) else 0
        for key in ("groups", "lanes"):
            inner = holder.get(key)
            if isinstance(inner, list):
                stack.extend(inner)
    edges = payload.get("edges")
    check_limit("diagramNodes", nodes, field="payload.nodes")
    check_limit("diagramEdges", len(edges) if isinstance(edges, list) else 0, field="payload.edges")


def prepare_card(
    card: dict[str, Any],
    index: int | None = None,
    *,
    authored: bool = True,
    stored: dict[str, Any] | None = None,
    editor: bool = False,
) -> Prepared:
    """Check one card against the contract and complete its server-owned fields.

    An ``authored`` card (what a client sent: compose, push, a payload patch)
    loses every server-owned field it carries, at any depth, with a
    ``server_owned`` warning; only a server-made card (an upload's) keeps them.
    ``stored`` is the payload a patch applies to: its top-level server-owned
    fields are kept. ``editor`` is the editor's write path, which may set the
    fields the editor writes (a page's ``pm``, a diagram's ``overrides``).

    Diagram text is imported when the payload carries no nodes, groups or
    lanes; every diagram (a diagram card, or a diagram element inside a doc)
    gets its geometry. Raises 400 with the first error's code, the batch
    ``index`` and every finding.
    """
    card = _lift_data_ref(card)
    try:
        if card.get("kind") == "diagram" and isinstance(card.get("payload"), dict):
            _check_diagram_size(card["payload"])
        result = elements.validate_card(card, authored=authored, editor=editor)
    except EngineError as err:  # a limit of layoutkit.limits, met while checking
        if index is not None:
            err.fields.setdefault("index", index)
        raise
    findings = [f.as_dict() for f in result.findings]
    if not result.ok:
        raise _refuse(index, findings, card)
    normalized = result.normalized
    kind = normalized["kind"]
    payload = normalized["payload"]
    if stored is not None:
        _keep_stamps(kind, payload, stored, editor)
    if "dataRef" in normalized:
        # A card has no envelope of its own in storage: its dataRef travels in
        # the payload and is lifted back out when the payload is written again.
        payload["dataRef"] = normalized["dataRef"]
    warnings = [f for f in findings if f["severity"] == "warning"]
    try:
        raw = card.get("payload") if isinstance(card.get("payload"), dict) else {}
        if kind == "diagram":
            payload, more = _diagram(payload, index, raw=raw)
            warnings += more
        elif kind in ("doc", "section", "columns", "compare"):
            warnings += _diagrams_inside(payload, raw, index)
    except ServiceError as err:
        if index is not None:
            err.body.setdefault("index", index)
        raise
    except EngineError as err:
        if index is not None:
            err.fields.setdefault("index", index)
        raise
    return Prepared(kind, payload, warnings, dict(result.spilled))


#: A truncated warning names this many of a card's cuts, then counts the rest.
MAX_CUTS_SAID = 4


def truncated_warning(kind: str, ref: Any, w: float, h: float, payload: Any) -> dict | None:
    """The ``truncated`` warning of a ``kind`` card ``w`` × ``h`` whose face leaves
    content out, naming the card, what was left out and the face's marker; None
    when the face shows everything. The faces report their cuts
    (:func:`layoutkit.render.face_cuts`); this is the one place that words them."""
    cuts = render.face_cuts(kind, payload, w, h)
    if not cuts:
        return None
    card = ref if isinstance(ref, str) and ref else None
    name = f"{kind} card {card!r}" if card else f"the {kind} card"
    what = "; ".join(f"{c.what} (the face says {c.marker!r})" for c in cuts[:MAX_CUTS_SAID])
    if len(cuts) > MAX_CUTS_SAID:
        what += f"; and {len(cuts) - MAX_CUTS_SAID} more cuts"
    return {
        "path": "payload",
        "severity": "warning",
        "code": "truncated",
        "card": card,
        "message": f"{name} leaves out {what}",
        "fix": "give the card more room, or split its content",
    }


def _diagram(
    payload: dict[str, Any],
    index: int | None,
    path: str = "payload",
    raw: dict[str, Any] | None = None,
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Import, check and lay out one diagram payload.

    ``raw`` is what the author wrote: only its fields override an import
    (defaults the normalizer filled in, such as dir TD, must not mask what
    the text declares), and its ``quality`` tier, which the normalizer never
    keeps, decides how strict the layout is.
    """
    raw = raw if raw is not None else payload
    quality = raw.get("quality")
    warnings: list[dict[str, Any]] = []
    text = payload.get("diagram_text")
    if isinstance(text, str) and not any(payload.get(k) for k in _DIAGRAM_CONTENT):
        imported = diagram.import_text(text)
        # The imported semantics replace the text: the stored payload is what a
        # person would have written, and the title rule applies to it as usual.
        merged = {**imported, **{k: v for k, v in payload.items() if k in raw and v is not None}}
        for key in (*_DIAGRAM_CONTENT, "edges"):
            if key in imported:
                merged[key] = imported[key]
        merged.pop("diagram_text", None)
        # Imported text brings no card chrome of its own: the counts band is the
        # author's choice, off unless the payload asks for it.
        merged.setdefault("band", False)
        if not merged.get("title"):
            # The contract requires a title unless the import supplies one: text
            # without a title of its own is named after its diagram type.
            merged["title"] = diagram.type_title(text)
            # A generic "Flowchart" says nothing the picture does not: kept, not drawn.
            merged.setdefault("showTitle", False)
            warnings.append(
                {
                    "path": f"{path}.title",
                    "severity": "warning",
                    "code": "derived_title",
                    "message": f"the diagram text names no title; it is called {merged['title']!r}",
                    "fix": "give title, or a title in the text's front matter",
                }
            )
        again = elements.validate_card({"kind": "diagram", "payload": merged})
        findings = [f.as_dict() for f in again.findings]
        if not again.ok:
            raise _refuse(index, findings, {"kind": "diagram", "payload": merged})
        payload = again.normalized["payload"]
        warnings += [f for f in findings if f["severity"] == "warning"]
    elif not payload.get("title"):
        raise ServiceError(
            400,
            "missing_field",
            f"{path}.title: a diagram needs a title unless diagram_text supplies one",
            findings=[
                {
                    "path": f"{path}.title",
                    "severity": "error",
                    "code": "missing_field",
                    "message": "a diagram needs a title",
                }
            ],
        )
    laid = offload.run(diagram.lay_out, {**payload, "quality": quality} if quality else payload)
    for item in laid.get("diagnostics") or []:
        if isinstance(item, dict) and item.get("severity") == "warning":
            warnings.append({"path": f"{path}.{item.get('path', '')}".rstrip("."), **item})
    return laid, warnings


def _diagrams_inside(payload: dict[str, Any], raw: Any, index: int | None) -> list[dict[str, Any]]:
    """Lay out every diagram element nested in a container payload, in place.

    The authored payload is walked alongside (normalization keeps element
    positions), so each nested diagram sees what its author wrote.
    """
    warnings: list[dict[str, Any]] = []
    stack: list[tuple[Any, Any, str]] = [(payload, raw, "payload")]
    while stack:
        node, src, path = stack.pop()
        if isinstance(node, dict):
            src = src if isinstance(src, dict) else {}
            if node.get("kind") == "diagram" and isinstance(node.get("payload"), dict):
                authored = src.get("payload") if isinstance(src.get("payload"), dict) else {}
                node["payload"], more = _diagram(
                    node["payload"], index, f"{path}.payload", authored
                )
                warnings += more
                continue
            for key, value in node.items():
                if isinstance(value, dict | list):
                    stack.append((value, src.get(key), f"{path}.{key}"))
        elif isinstance(node, list):
            src = src if isinstance(src, list) else []
            for i, value in enumerate(node):
                if isinstance(value, dict | list):
                    stack.append((value, src[i] if i < len(src) else None, f"{path}[{i}]"))
    return warnings


def _keep_stamps(kind: str, payload: dict[str, Any], stored: dict[str, Any], editor: bool) -> None:
    """Carry the stored server-owned fields over to a patched payload, in place.

    A page's ``pmStale`` is the server's to keep: a new mirror from the editor
    is fresh, and a new ``md`` under an unchanged mirror makes it stale.
    """
    for key in elements.server_fields(kind):
        if key in stored and key not in payload:
            payload[key] = stored[key]
    if kind == "page" and "pm" in payload:
        if editor and payload["pm"] != stored.get("pm"):
            payload["pmStale"] = False
        elif payload.get("md") != stored.get("md"):
            payload["pmStale"] = True
    elif kind == "page":
        payload.pop("pmStale", None)


def authored_patch(
    kind: str, stored: dict[str, Any], patch: dict[str, Any], *, editor: bool = False
) -> dict[str, Any]:
    """What a payload patch asks for, merged over ``stored`` without its server-owned fields.

    Server-owned fields sent back unchanged (a payload read back and written
    again) are left out of the patch, so only a changed value draws a warning;
    the stored ones come back in :func:`prepare_card` (its ``stored``). On the
    editor's path a diagram's ``overrides`` are a merge patch too: a node named
    gets its entry patched (null drops a part or the entry), the others stay, so
    moving one node never loses another's place or label.
    """
    owned = elements.server_fields(kind)
    base = {k: v for k, v in stored.items() if k not in owned}
    sent = {k: v for k, v in patch.items() if not (k in owned and stored.get(k) == v)}
    if editor and kind == "diagram" and isinstance(sent.get("overrides"), dict):
        kept = stored.get("overrides") if isinstance(stored.get("overrides"), dict) else {}
        merged = dict(kept)
        for nid, entry in sent["overrides"].items():
            was = kept.get(nid)
            if entry is None:
                merged.pop(nid, None)
            elif isinstance(entry, dict):
                merged[nid] = merge_patch(was if isinstance(was, dict) else {}, entry)
            else:
                merged[nid] = entry
        sent["overrides"] = {n: e for n, e in merged.items() if e != {}}
    return merge_patch(base, sent)


def check_portals(
    tx: Tx,
    board: BoardRecord,
    principal: Principal,
    cards: Iterable[tuple[int, str, dict[str, Any]]],
) -> None:
    """The portal rule, for every write that stores a card (compose and payload patches).

    ``cards`` are (index, kind, payload) triples. A board card must show an existing
    board other than its own: 400 ``portal_to_self`` or ``unknown_portal_board``
    with the index otherwise. Someone else's personal board answers as one that
    does not exist, so a portal cannot tell whether it is there.
    """
    for i, kind, payload in cards:
        if kind != "board":
            continue
        target = payload.get("board")
        if target == board.slug:
            raise ServiceError(400, "portal_to_self", "a portal cannot show its own board", index=i)
        found = tx.board_by_slug(board.workspace_id, target)
        if found is None or not may_reach(principal, found):
            raise ServiceError(
                400,
                "unknown_portal_board",
                f"portal target board {target!r} does not exist",
                index=i,
            )
