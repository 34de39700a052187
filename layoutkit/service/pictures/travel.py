"""``export_board`` and ``import_board``: a board as a JSON Canvas or Excalidraw file, and
such a file onto a board. The mapping is the pure ``layoutkit.travel``; here the board is
read, blobs are fetched and stored, and the batch is placed and written in one transaction."""

from __future__ import annotations

import base64
import binascii
import json
import re
from typing import Any

import attrs

from layoutkit import layout, render, travel
from layoutkit.errors import EngineError, ServiceError
from layoutkit.files import guess_mime
from layoutkit.limits import check_limit
from layoutkit.service.boards import links
from layoutkit.service.boards.board_model import BoardModels
from layoutkit.service.boards.compose import MAX_BODY, MAX_CARDS, fetch_links
from layoutkit.service.boards.content_prep import Outcome, Prepared, attempt, prepare_card
from layoutkit.service.boards.placing import store_batch
from layoutkit.service.pictures import pictures, views
from layoutkit.service.pictures.pictures import IMAGE_BYTES
from layoutkit.service.road import offload
from layoutkit.service.road.errors import parse_request_json, to_service_error
from layoutkit.service.road.registry import REGISTRY
from layoutkit.service.road.workspace import Call
from layoutkit.service.shared.common import ID, SLUG, card_view, edge_view
from layoutkit.service.shared.sections import find_section, members
from layoutkit.service.uploads.files import sniff_mime
from layoutkit.service.uploads.uploads import Decoded, card_for, inspect_files
from layoutkit.storage import CardRecord, blob_key
from layoutkit.travel.bundle import unzip_bundle, zip_bundle

#: The board meta key holding what imports kept of each card and wire that no field of
#: theirs holds (``card:<id>`` / ``edge:<id>``), for the next export. Only the server writes it.
TRAVEL_META = "travel"
#: Longest wire label (as compose_board takes them).
LABEL_CHARS = 500
_FORMAT = {"enum": list(travel.FORMATS)}
#: Pictures of the board: render_board's SVG and PNG, and PDF pages.
PICTURE_FORMATS = ("svg", "png", "pdf")
#: What an export writes: a board file, one diagram card as Mermaid text, or a picture.
_EXPORT_FORMAT = {"enum": [*travel.FORMATS, "mermaid", *PICTURE_FORMATS]}
#: Mermaid has no registered media type; plain text is what every browser and tool opens.
MERMAID_MIME = "text/plain; charset=utf-8"
PICTURE_MIMES = {"svg": "image/svg+xml", "png": "image/png", "pdf": "application/pdf"}
#: A picture's blob as a board SVG links it (a stored face holds ``{card}`` for the id).
_BLOB_LINK = re.compile(r'href="/api/v1/cards/(?:\d+|\{card\})/blobs/(sha256:[0-9a-f]{64})"')


@REGISTRY.operation(
    "export_board",
    "Export a board (or one section, or a list of cards) as a JSON Canvas 1.0 document "
    "(format canvas) or an Excalidraw scene (format excalidraw). Returns the file's JSON as "
    "document, its name and mime, and for a canvas the blobs its file nodes name as files "
    "[{path, mime, data (base64)}], to be written beside it (HTTP answers a zip then). Each "
    "node and element carries the card's own kind and payload (canvas: a layoutkit "
    "attribute; Excalidraw: customData.layoutkit), so an import of the file restores them. "
    "Format mermaid writes one diagram card (card: its id) as Mermaid text in document "
    "(a string): a sequence diagram or stateDiagram-v2 when the card was imported from one, "
    "else a flowchart, with node ids, labels, shapes, edge labels and arrows, groups as "
    "subgraphs and the direction. Format pdf draws the board (or a section) as vector "
    "pages, landscape (paper a4 or letter): pages fit puts it on one page, pages tile cuts "
    "it into numbered pages at print size (at most 200); with card (a doc card's id) it "
    "prints that document as portrait pages with its headings as the outline. The PDF "
    "comes back as data (base64) with its mime, size and pages. Formats svg and png draw "
    "the picture render_board draws (png: image, and tiles for a large board).",
    {
        "required": ["board", "format"],
        "properties": {
            "board": SLUG,
            "format": _EXPORT_FORMAT,
            "section": {"type": "string", "minLength": 1, "maxLength": 200},
            "cards": {"type": "array", "items": ID, "minItems": 1, "maxItems": MAX_CARDS},
            "card": {
                **ID,
                "description": "format mermaid: the diagram card to write; format pdf: the "
                "doc card to print as a document",
            },
            "pages": {
                "enum": list(render.PAGINGS),
                "description": "format pdf, a board: fit (one page, the default) or tile "
                "(pages at print size, numbered)",
            },
            "paper": {
                "enum": list(render.PAPERS),
                "description": "format pdf: the page size (default a4); a board prints "
                "landscape, a document portrait",
            },
            "scale": {
                "type": "number",
                "minimum": 0.05,
                "maximum": 4,
                "description": "format png: PNG pixels per board pixel",
            },
        },
        "additionalProperties": False,
    },
    board="board",
    share=("view", "annotate"),
    finish=lambda call, read: _write_file(call, read),
)
def export_board(call: Call) -> dict[str, Any]:
    """Read the cards, wires and blobs the file shows; :func:`_write_file` writes it once
    the transaction is closed (reading each face's text is drawing work)."""
    p, tx, board = call.params, call.tx, call.board
    if "section" in p and "cards" in p:
        raise ServiceError(
            400, "exclusive_params", "send section or cards, not both", field="cards"
        )
    _check_picture_params(p)
    if p["format"] == "mermaid":
        return _read_diagram(tx, board, p)
    if p["format"] in PICTURE_FORMATS:
        return _read_picture(call, p)
    if "card" in p:
        raise ServiceError(
            400,
            "exclusive_params",
            "card names the diagram of a mermaid export; send cards to pick a board's cards",
            field="card",
        )
    stored = {c.id: c for c in tx.cards(board.id)}
    chosen = _chosen(stored, p)
    cards = [card_view(stored[i]) for i in chosen]
    shown = set(chosen)
    for view in cards:
        if view["parent"] not in shown:
            view["parent"] = None
    edges = [
        edge_view(e) for e in tx.edges(board.id) if e.from_card in shown and e.to_card in shown
    ]
    kept = board.meta.get(TRAVEL_META)
    fmt = p["format"]
    keys = []
    for c in cards:
        blob = travel.blob_of(c["kind"], c["payload"])
        # A scene carries pictures only; a canvas writes every blob beside itself.
        if blob is not None and (fmt == "canvas" or blob[1].startswith("image/")):
            keys.append(blob[0])
    return {
        "board": board.slug,
        "format": fmt,
        "cards": cards,
        "edges": edges,
        "kept": kept if isinstance(kept, dict) else {},
        "blobs": _read_blobs(tx, keys),
    }


def _read_diagram(tx: Any, board: Any, p: dict[str, Any]) -> dict[str, Any]:
    """The one diagram card a Mermaid export writes (named by ``card``)."""
    for other in ("section", "cards"):
        if other in p:
            raise ServiceError(
                400,
                "exclusive_params",
                f"a mermaid export writes one diagram card: send card, not {other}",
                field=other,
            )
    if "card" not in p:
        raise ServiceError(
            400, "missing_param", "a mermaid export needs card: the diagram's id", field="card"
        )
    card = tx.card(p["card"])
    if card is None or card.board_id != board.id:
        raise ServiceError(404, "unknown_card", f"no card {p['card']} on this board", field="card")
    if card.kind != "diagram":
        raise ServiceError(
            400,
            "not_a_diagram",
            f"card {card.id} is a {card.kind} card; mermaid writes diagram cards",
            field="card",
            id=card.id,
        )
    return {"board": board.slug, "format": "mermaid", "card": card.id, "payload": card.payload}


def _write_mermaid(read: dict[str, Any]) -> dict[str, Any]:
    try:
        out = travel.to_mermaid(read["payload"])
    except EngineError as err:
        # The engine names the payload's field; the caller named the card.
        raise ServiceError(
            400, err.code, err.message, field="card", detail=err.fields.get("field")
        ) from err
    return {
        "board": read["board"],
        "format": "mermaid",
        "name": f"{read['board']}-{read['card']}.mmd",
        "mime": MERMAID_MIME,
        "card": read["card"],
        "family": out.family,
        "document": out.text,
        "files": [],
        "nodes": out.nodes,
        "edges": out.edges,
        "ids": {k: v for k, v in out.ids.items() if k != v and not k.startswith("\x00")},
    }


#: Params only some formats take: the formats each belongs to.
_ONLY_FOR = {"pages": ("pdf",), "paper": ("pdf",), "scale": ("png",)}


def _check_picture_params(p: dict[str, Any]) -> None:
    fmt = p["format"]
    for name, formats in _ONLY_FOR.items():
        if name in p and fmt not in formats:
            raise ServiceError(
                400,
                "exclusive_params",
                f"{name} is for format {' or '.join(formats)}, not {fmt}",
                field=name,
            )
    if fmt in ("svg", "png") and "cards" in p:
        raise ServiceError(
            400,
            "exclusive_params",
            f"an {fmt} shows the board or one section: send section, not cards (a pdf, "
            "canvas or excalidraw export takes cards)",
            field="cards",
        )
    if fmt in PICTURE_FORMATS and "card" in p and fmt != "pdf":
        raise ServiceError(
            400,
            "exclusive_params",
            "card names the doc card a pdf prints; an svg or png shows the board",
            field="card",
        )


def _read_picture(call: Call, p: dict[str, Any]) -> dict[str, Any]:
    """What a picture export reads: render_board's read for svg and png; for pdf the
    board's cards with their payloads and pictures, or the one doc card named."""
    tx, board, fmt = call.tx, call.board, p["format"]
    if fmt != "pdf":
        shown = {k: p[k] for k in ("board", "format", "section", "scale") if k in p}
        read = {"format": fmt, "picture": views.read_board_picture(call, shown)}
        if fmt == "svg":
            read["blobs"] = _linked_pictures(tx, read["picture"]["picture"]["cards"])
        return read
    read: dict[str, Any] = {
        "board": board.slug,
        "format": "pdf",
        "paper": p.get("paper", "a4"),
        "pages": p.get("pages", "fit"),
    }
    if "card" in p:
        if "section" in p or "pages" in p or "cards" in p:
            other = next(k for k in ("section", "pages", "cards") if k in p)
            raise ServiceError(
                400,
                "exclusive_params",
                f"a document prints as its own pages: send card without {other}",
                field=other,
            )
        card = tx.card(p["card"])
        if card is None or card.board_id != board.id:
            raise ServiceError(
                404, "unknown_card", f"no card {p['card']} on this board", field="card"
            )
        if card.kind != "doc":
            raise ServiceError(
                400,
                "not_a_doc",
                f"card {card.id} is a {card.kind} card; a pdf with card prints a doc card "
                "(leave card out to print the board)",
                field="card",
                id=card.id,
            )
        view = {"id": card.id, "kind": card.kind, "payload": card.payload}
        read.update(card=card.id, doc=card.payload, images=pictures.read_images(tx, [view]))
        return read
    picture, _, _ = pictures.read_picture(tx, board, section=p.get("section"), faces=False)
    if "cards" in p:
        _only_chosen(picture, p["cards"])
    picture["images"] = pictures.read_images(tx, picture["cards"])
    read["picture"] = picture
    return read


def _only_chosen(picture: dict[str, Any], chosen: list[int]) -> None:
    """Keep the cards a pdf of a selection prints, as a canvas export keeps them: the
    cards named (a frame without the members not named), the wires between them."""
    on_board = {c["id"] for c in picture["cards"]}
    for i, card_id in enumerate(chosen):
        if card_id not in on_board:
            raise ServiceError(
                404, "unknown_card", f"no card {card_id} on this board", field=f"cards[{i}]"
            )
    keep = set(chosen)
    picture["cards"] = [
        c if c.get("parent") in keep else {**c, "parent": None}
        for c in picture["cards"]
        if c["id"] in keep
    ]
    picture["edges"] = [e for e in picture["edges"] if e["from"] in keep and e["to"] in keep]


def _write_picture(call: Call, read: dict[str, Any]) -> dict[str, Any]:
    fmt = read["format"]
    if fmt != "pdf":
        drawn = views.draw_board_picture(call, read["picture"])
        name = f"{drawn['board']}.{fmt}"
        if fmt == "svg":
            # the SVG text is the file: it rides as document, as a canvas's JSON does
            drawn["document"] = _inline_pictures(drawn.pop("svg"), read["blobs"])
        return {**drawn, "name": name, "mime": PICTURE_MIMES[fmt]}
    try:
        if "card" in read:
            printed = offload.run(_print_doc, read["doc"], read["paper"], read["images"])
        else:
            printed = offload.run(_print_board, read["picture"], read["pages"], read["paper"])
    except EngineError as err:
        raise to_service_error(err) from err
    out: dict[str, Any] = {
        "board": read["board"],
        "format": "pdf",
        "name": f"{read['board']}.pdf",
        "mime": PICTURE_MIMES["pdf"],
        "paper": read["paper"],
        "pages": printed.pages,
        "scale": round(printed.scale, 4),
        "size": len(printed.pdf),
        "data": base64.b64encode(printed.pdf).decode("ascii"),
    }
    if "card" in read:
        out["name"] = f"{read['board']}-{read['card']}.pdf"
        out["card"] = read["card"]
        out["outline"] = [{"title": t, "level": lv, "page": pg} for t, lv, pg in printed.outline]
    else:
        out["paging"] = read["pages"]
        out["cards"] = len(read["picture"]["cards"])
    return out


def _linked_pictures(tx: Any, cards: list[dict[str, Any]]) -> dict[str, bytes]:
    """The blobs an SVG's faces show, within one picture's budget: a card drawn afresh
    names them in its payload, a card with a stored face in that face's links."""
    keys: list[str] = []
    for card in cards:
        if isinstance(card.get("face"), str):
            keys += _BLOB_LINK.findall(card["face"])
        else:
            keys += sorted(render.image_keys(str(card.get("kind") or ""), card.get("payload")))
    return pictures.read_keys(tx, keys)


def _inline_pictures(svg: str, blobs: dict[str, bytes]) -> str:
    """``svg`` with each picture it links to a blob it holds as a ``data:`` URL: a file
    that shows its pictures wherever it is opened (one over the budget stays a link)."""

    def inline(found: re.Match[str]) -> str:
        data = blobs.get(found.group(1))
        mime = sniff_mime(data) if data is not None else None
        if data is None or mime is None:
            return found.group(0)
        return f'href="data:{mime};base64,{base64.b64encode(data).decode("ascii")}"'

    return _BLOB_LINK.sub(inline, svg) if blobs else svg


def _print_board(picture: dict[str, Any], pages: str, paper: str) -> render.Printed:
    return render.board_pdf(picture, pages=pages, paper=paper)


def _print_doc(doc: dict[str, Any], paper: str, images: dict[str, bytes]) -> render.Printed:
    return render.doc_pdf(doc, paper=paper, images=images)


def _write_file(call: Call, read: dict[str, Any]) -> dict[str, Any]:
    if read["format"] == "mermaid":
        return _write_mermaid(read)
    if read["format"] in PICTURE_FORMATS:
        return _write_picture(call, read)
    cards, edges, kept, blobs, fmt = (
        read["cards"],
        read["edges"],
        read["kept"],
        read["blobs"],
        read["format"],
    )
    result: dict[str, Any] = {
        "board": read["board"],
        "format": fmt,
        "name": f"{read['board']}.{fmt}",
        "mime": "application/json",
        "cards": len(cards),
        "edges": len(edges),
    }
    if fmt == "excalidraw":
        out = travel.to_excalidraw(cards, edges, kept, blobs)
        result.update(document=out.document, files=[])
    else:
        out = travel.to_canvas(cards, edges, kept)
        result["document"] = out.document
        result["files"] = [
            {"path": f.path, "mime": f.mime, "data": base64.b64encode(blobs[f.key]).decode()}
            for f in out.files
            if f.key in blobs
        ]
        missing = [f.path for f in out.files if f.key not in blobs]
        if missing:
            result["missingFiles"] = missing
    if out.missing:
        result["missingImages"] = list(out.missing)
    return result


def _chosen(stored: dict[int, CardRecord], p: dict[str, Any]) -> list[int]:
    if "section" in p:
        frame = find_section(stored, p["section"])
        return [frame.id, *members(stored, frame.id)]
    if "cards" in p:
        for i, card_id in enumerate(p["cards"]):
            if card_id not in stored:
                raise ServiceError(
                    404, "unknown_card", f"no card {card_id} on this board", field=f"cards[{i}]"
                )
        return list(dict.fromkeys(p["cards"]))
    return list(stored)


def _read_blobs(tx: Any, keys: list[str]) -> dict[str, bytes]:
    """The bytes of ``keys``, within the budget one picture answer reads; past it (or
    gone) a key is left out and the export says which."""
    out: dict[str, bytes] = {}
    total = 0
    for key in dict.fromkeys(keys):
        data = tx.blobs.get(key)
        if data is None or total + len(data) > IMAGE_BYTES:
            continue
        out[key] = data
        total += len(data)
    return out


# ---------------------------------------------------------------- import


@attrs.frozen
class _Import:
    drawn: travel.Drawn
    prepared: list[Prepared]
    blobs: dict[str, bytes]
    fmt: str


def _prepare_import(call: Call) -> Outcome:
    def checked() -> _Import:
        found = _read_import(call.params)
        links.stamp_new(call.workspace, found.prepared)
        return found

    return attempt(checked)


def _read_import(p: dict[str, Any]) -> _Import:
    body = json.dumps(p, separators=(",", ":"), ensure_ascii=False)
    if len(body.encode("utf-8")) > MAX_BODY:
        raise ServiceError(
            413, "payload_too_large", f"import_board bodies are at most {MAX_BODY} bytes"
        )
    doc = p["document"]
    fmt = p.get("format") or travel.sniff(doc)
    try:
        drawn = travel.read_document(fmt, doc)
        if not drawn.cards:
            raise travel.TravelError(
                "invalid_file", "the file holds no node to import", field="nodes"
            )
        check_limit("arrangeCards", len(drawn.cards), field="document")
        check_limit("arrangeCards", len(drawn.wires), field="document")
    except EngineError as err:
        raise _in_document(to_service_error(err)) from err
    supplied = _decode_files(p.get("files") or {})
    blobs: dict[str, bytes] = {}
    prepared = []
    for i, card in enumerate(drawn.cards):
        kind, payload, stamps = _with_blob(card, supplied, blobs)
        try:
            prep = prepare_card({"kind": kind, "payload": payload}, i)
        except ServiceError as err:
            raise _at_node(err, card) from err
        # What the server read off the bytes (an image's natural size) is its own to write.
        prep.payload.update(stamps)
        prepared.append(prep)
    for wire in drawn.wires:
        if wire.label is not None and len(wire.label) > LABEL_CHARS:
            where = f"document.{wire.path}"
            raise ServiceError(
                400,
                "invalid_file",
                f"{where}: labels are at most {LABEL_CHARS} characters",
                field=where,
            )
    return _Import(drawn, prepared, blobs, fmt)


def _in_document(err: ServiceError) -> ServiceError:
    """A refusal of the file with its path under the ``document`` param."""
    field = err.body.get("field")
    if not isinstance(field, str):
        return err
    where = f"document.{field}" if field else "document"
    message = err.message
    if field and message.startswith(field):
        message = "document." + message
    extra = {k: v for k, v in err.body.items() if k not in ("code", "message")}
    extra.update(field=where, path=where)
    return ServiceError(err.status, err.code, message, **extra)


def _at_node(err: ServiceError, card: travel.DrawnCard) -> ServiceError:
    """A contract refusal of one imported card, pointed at its node in the file."""
    where = f"document.{card.path}"
    extra = {k: v for k, v in err.body.items() if k not in ("code", "message", "index")}
    extra.update(field=where, path=where, detail=str(err.body.get("path") or ""))
    return ServiceError(
        err.status, err.code, f"{where} (a {card.kind} card): {err.message}", **extra
    )


def _decode_files(files: dict[str, Any]) -> dict[str, bytes]:
    out = {}
    for path, data in files.items():
        try:
            out[path] = base64.b64decode(data, validate=True)
        except (binascii.Error, ValueError) as exc:
            raise ServiceError(
                400, "invalid_base64", f"files.{path}: not base64", field=f"files.{path}"
            ) from exc
    return out


def _with_blob(
    card: travel.DrawnCard, supplied: dict[str, bytes], blobs: dict[str, bytes]
) -> tuple[str, dict[str, Any], dict[str, Any]]:
    """The card's kind and payload, with the attachment the file carried stored as a blob
    (an image becomes a media card and anything else a file card, as an upload does),
    and the server fields read off its bytes."""
    found: tuple[bytes, str, str] | None = None
    if card.blob is not None:
        data, mime = card.blob
        found = (data, mime, card.payload.get("name") or card.ref)
    elif card.file is not None and card.file in supplied:
        name = card.file.rsplit("/", 1)[-1]
        found = (supplied[card.file], guess_mime(name), name)
    if found is None:
        return card.kind, card.payload, {}
    data, mime, name = found
    key = blob_key(data)
    blobs[key] = data
    decoded = Decoded(str(name), data, mime)
    made = card_for(decoded, key, inspect_files([decoded], "document")[0])
    stamps = {k: v for k, v in made["payload"].items() if k in _READ_OFF_BYTES}
    if card.restored:
        return card.kind, {**card.payload, "ref": key}, stamps
    return made["kind"], {k: v for k, v in made["payload"].items() if k not in stamps}, stamps


#: Payload fields the server reads off a file's bytes (server-owned in the contract).
_READ_OFF_BYTES = ("natW", "natH")


@REGISTRY.operation(
    "import_board",
    "Import a JSON Canvas 1.0 file or an Excalidraw scene (document: its parsed JSON; "
    "format is read from it when omitted) onto a board, all or nothing. Nodes and shapes "
    "become cards on the human layer at the file's boxes (onto a board that has cards, the "
    "drawing moves as one block into free space, as a compose does); groups and frames "
    "become frames holding what lies inside them; edges and bound arrows become wires with "
    "their labels; attributes no card holds are kept for the next export. layout auto lets "
    "the engine place everything afresh. A canvas's file nodes take their bytes from files "
    "{path: base64}. Bounded like a compose; a malformed file is refused with the JSON path "
    "of the bad field (field: document.nodes[3].x).",
    {
        "required": ["board", "document"],
        "properties": {
            "board": SLUG,
            "document": {"type": "object", "description": "the file's JSON"},
            "format": _FORMAT,
            "files": {
                "type": "object",
                "additionalProperties": {"type": "string"},
                "description": "attachments a canvas's file nodes name, path -> base64",
            },
            "layout": {"enum": ["auto"]},
        },
        "additionalProperties": False,
    },
    board="board",
    writes=True,
    prepare=_prepare_import,
    fetches=True,
)
def import_board(call: Call) -> dict[str, Any]:
    read: _Import = call.prepared.get()
    tx, board = call.tx, call.board
    drawn = read.drawn
    auto = call.params.get("layout") == "auto"
    batch = layout.Batch(
        cards=tuple(
            layout.BatchCard(
                kind=prep.kind,
                payload=dict(prep.payload),
                ref=card.ref,
                children=card.children or None,
                box=None if auto else card.box,
            )
            for card, prep in zip(drawn.cards, read.prepared, strict=True)
        ),
        layer="human",
        drawn=not auto,
    )
    for data in read.blobs.values():
        tx.blobs.put(data)
    raw_cards = [{"ref": c.ref} for c in drawn.cards]
    raw_edges = [
        {
            "from": w.from_ref,
            "to": w.to_ref,
            **({"label": w.label} if w.label else {}),
            **({"rel": w.rel} if w.rel else {}),
            **w.regions,
        }
        for w in drawn.wires
    ]
    try:
        receipt = store_batch(
            call.principal,
            tx,
            board,
            batch,
            read.prepared,
            raw_cards,
            raw_edges,
            [],
            [],
            models=call.workspace.extension(BoardModels),
        )
    except EngineError as err:
        raise to_service_error(err) from err
    _keep_foreign(call, drawn, receipt)
    fetch_links(call, receipt)
    receipt["format"] = read.fmt
    receipt["skipped"] = list(drawn.skipped)
    return receipt


def _keep_foreign(call: Call, drawn: travel.Drawn, receipt: dict[str, Any]) -> None:
    ids = {c["ref"]: c["id"] for c in receipt["cards"] if "ref" in c}
    kept: dict[str, Any] = {}
    for card in drawn.cards:
        if card.foreign:
            kept[f"card:{ids[card.ref]}"] = card.foreign
    for wire, edge in zip(drawn.wires, receipt["edges"], strict=True):
        if wire.foreign:
            kept[f"edge:{edge['id']}"] = wire.foreign
    if not kept:
        return
    board = call.tx.board(call.board.id)
    assert board is not None
    before = board.meta.get(TRAVEL_META)
    merged = {**(before if isinstance(before, dict) else {}), **kept}
    call.tx.update_board(board.id, meta={**board.meta, TRAVEL_META: merged})


def export_zip(result: dict[str, Any]) -> bytes:
    """An ``export_board`` answer as one zip: the file under its name, and the blobs its
    nodes name at their paths beside it (what an HTTP download of a canvas with files is)."""
    files = [(f["path"], base64.b64decode(f["data"])) for f in result.get("files", ())]
    return zip_bundle(result["name"], result["document"], files)


def read_bundle(data: bytes) -> tuple[Any, dict[str, str]]:
    """A file to import as ``(document, files)``: a zip's one .canvas or .excalidraw entry
    with every other entry as base64 ``files``, else the bytes as JSON.

    Raises 400 ``invalid_file`` for a zip without exactly one such entry, 413
    ``payload_too_large`` for one that unpacks past an import's bytes, and what
    :func:`~layoutkit.service.road.errors.parse_request_json` raises for text that is no JSON.
    """
    try:
        found = unzip_bundle(data, MAX_BODY)
    except travel.TravelError as err:
        if err.code == "zip_too_large":
            raise ServiceError(413, "payload_too_large", err.message, field="file") from err
        raise to_service_error(err) from err
    if found is None:
        return parse_request_json(data), {}
    return parse_request_json(found[0]), found[1]
