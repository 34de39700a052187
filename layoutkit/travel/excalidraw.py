"""Excalidraw scenes: a board as rectangles, bound text, frames, images and bound arrows,
and a scene as cards to place."""

from __future__ import annotations

import base64
import binascii
import hashlib
from collections.abc import Mapping, Sequence
from typing import Any

from layoutkit.layout.model import FRAME_KINDS
from layoutkit.render import DASHED_RELS
from layoutkit.travel import _kinds as k
from layoutkit.travel._model import (
    OWN_KEY,
    Box,
    Drawn,
    DrawnCard,
    DrawnWire,
    Exported,
    TravelError,
    card_box,
)

SOURCE = "https://github.com/layoutkit"
#: Element types that become cards; arrows become wires; anything else is left out.
SHAPES = ("rectangle", "diamond", "ellipse", "embeddable", "iframe")
FRAMES = ("frame", "magicframe")
#: Style attributes an import keeps for the next export (what no card field holds).
KEPT_STYLE = (
    "strokeColor",
    "backgroundColor",
    "fillStyle",
    "strokeWidth",
    "strokeStyle",
    "roughness",
    "opacity",
    "roundness",
    "angle",
    "groupIds",
    "locked",
)
KEPT_TEXT = ("fontSize", "fontFamily", "textAlign", "verticalAlign", "strokeColor")
FONT_SIZE = 16
PAD = 8.0
_SHAPE_OF = {"rectangle": "rect", "diamond": "diamond", "ellipse": "circle"}
_FIXED = {"top": [0.5, 0.0], "bottom": [0.5, 1.0], "left": [0.0, 0.5], "right": [1.0, 0.5]}


def _seed(text: str) -> int:
    # Deterministic, so one board exports to the same bytes every time.
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:4], "big") % 2_000_000_000


def _base(ident: str, kind: str, box: Box) -> dict[str, Any]:
    x, y, w, h = box
    return {
        "id": ident,
        "type": kind,
        "x": x,
        "y": y,
        "width": w,
        "height": h,
        "angle": 0,
        "strokeColor": "#1e1e1e",
        "backgroundColor": "transparent",
        "fillStyle": "solid",
        "strokeWidth": 1,
        "strokeStyle": "solid",
        "roughness": 0,
        "opacity": 100,
        "groupIds": [],
        "frameId": None,
        "roundness": None,
        "seed": _seed(ident),
        "version": 1,
        "versionNonce": _seed(ident + "/nonce"),
        "isDeleted": False,
        "boundElements": None,
        "updated": 1,
        "link": None,
        "locked": False,
    }


def _text(ident: str, container: str, box: Box, text: str, style: Mapping[str, Any]) -> dict:
    x, y, w, h = box
    inner = (x + PAD, y + PAD, max(1.0, w - 2 * PAD), max(1.0, h - 2 * PAD))
    el = _base(ident, "text", inner)
    el.update(
        text=text,
        originalText=text,
        fontSize=FONT_SIZE,
        fontFamily=2,
        textAlign="left",
        verticalAlign="top",
        containerId=container,
        lineHeight=1.25,
        autoResize=False,
    )
    el.update({key: style[key] for key in KEPT_TEXT if key in style})
    return el


def to_excalidraw(
    cards: Sequence[Mapping[str, Any]],
    edges: Sequence[Mapping[str, Any]],
    foreign: Mapping[str, Mapping[str, Any]] | None = None,
    blobs: Mapping[str, bytes] | None = None,
) -> Exported:
    """The Excalidraw scene of ``cards`` and ``edges`` (card and edge views).

    ``blobs`` holds the bytes of image blobs by key: each picture rides in the
    scene's ``files`` as a data URL; an image whose bytes are absent becomes a
    rectangle with its text and is listed in ``missing``.
    """
    scene = _Scene(cards, foreign or {}, blobs or {})
    for card in sorted(cards, key=lambda c: (c["y"], c["x"])):
        scene.add_card(card)
    for e in edges:
        if e["from"] in scene.by_id and e["to"] in scene.by_id:
            scene.add_wire(e)
    return Exported(scene.document(), (), tuple(scene.missing))


class _Scene:
    """The elements of a scene as they are written, and what binds them."""

    def __init__(
        self,
        cards: Sequence[Mapping[str, Any]],
        kept: Mapping[str, Mapping[str, Any]],
        pictures: Mapping[str, bytes],
    ) -> None:
        self.by_id = {c["id"]: c for c in cards}
        self.kept = kept
        self.pictures = pictures
        self.elements: dict[str, dict[str, Any]] = {}
        self.order: list[str] = []
        self.frames: list[str] = []
        self.files: dict[str, Any] = {}
        self.missing: list[int] = []
        self.bound: dict[str, list[dict[str, str]]] = {}

    def add_card(self, card: Mapping[str, Any]) -> None:
        kind, payload = card["kind"], card["payload"]
        ident = f"card-{card['id']}"
        box = card_box(card)
        style = dict(self.kept.get(f"card:{card['id']}", {}))
        text_style = style.pop("text", {})
        blob = k.blob_of(kind, payload)
        text = None
        image = blob is not None and blob[1].startswith("image/")
        if kind in FRAME_KINDS:
            el = _base(ident, "frame", box)
            el["name"] = k.frame_label(payload)
            self.frames.append(ident)
        elif image and blob is not None and blob[0] in self.pictures:
            el = self._image(ident, box, blob[0], blob[1])
        else:
            if image:
                self.missing.append(card["id"])
            el = _base(ident, "rectangle", box)
            el.update(backgroundColor=k.fill_of(kind, payload), roundness={"type": 3})
            if kind == "link" and k.is_http(payload.get("url")):
                el["link"] = payload["url"]
            text_id = f"{ident}-text"
            text = k.readable_text(kind, payload, (box[2], box[3]))
            self.elements[text_id] = _text(text_id, ident, box, text, text_style)
            self.bound.setdefault(ident, []).append({"id": text_id, "type": "text"})
            self.order += [ident, text_id]
        el.update({key: style[key] for key in KEPT_STYLE if key in style})
        el["customData"] = {
            **(style.get("customData") or {}),
            OWN_KEY: k.own_value(kind, payload, text),
        }
        frame = self._frame_of(card)
        if frame is not None and kind not in FRAME_KINDS:
            el["frameId"] = f"card-{frame}"
        self.elements[ident] = el

    def _image(self, ident: str, box: Box, key: str, mime: str) -> dict[str, Any]:
        file_id = key.split(":", 1)[-1][:40]
        el = _base(ident, "image", box)
        el.update({"fileId": file_id, "status": "saved", "scale": [1, 1], "crop": None})
        data = base64.b64encode(self.pictures[key]).decode("ascii")
        self.files[file_id] = {
            "mimeType": mime,
            "id": file_id,
            "dataURL": f"data:{mime};base64,{data}",
            "created": 1,
        }
        self.order.append(ident)
        return el

    def _frame_of(self, card: Mapping[str, Any]) -> int | None:
        """The nearest frame holding ``card`` (Excalidraw knows no other parent)."""
        parent = card.get("parent")
        while parent is not None and parent in self.by_id:
            if self.by_id[parent]["kind"] in FRAME_KINDS:
                return int(parent)
            parent = self.by_id[parent].get("parent")
        return None

    def add_wire(self, e: Mapping[str, Any]) -> None:
        arrow, label = _arrow(e, self.by_id, self.kept.get(f"edge:{e['id']}", {}))
        self.elements[arrow["id"]] = arrow
        self.order.append(arrow["id"])
        for end in (e["from"], e["to"]):
            self.bound.setdefault(f"card-{end}", []).append({"id": arrow["id"], "type": "arrow"})
        if label is not None:
            self.elements[label["id"]] = label
            self.order.append(label["id"])

    def document(self) -> dict[str, Any]:
        for ident, refs in self.bound.items():
            el = self.elements[ident]
            el["boundElements"] = [*(el["boundElements"] or []), *refs]
        return {
            "type": "excalidraw",
            "version": 2,
            "source": SOURCE,
            # Frames after what they hold: Excalidraw keeps a frame above its children.
            "elements": [self.elements[i] for i in self.order + self.frames],
            "appState": {"viewBackgroundColor": "#ffffff", "gridSize": None},
            "files": self.files,
        }


def _arrow(
    e: Mapping[str, Any], by_id: Mapping[int, Mapping[str, Any]], style: Mapping[str, Any]
) -> tuple[dict[str, Any], dict[str, Any] | None]:
    a, b = card_box(by_id[e["from"]]), card_box(by_id[e["to"]])
    from_side, to_side = k.side_pair(a, b)
    (sx, sy), (ex, ey) = k.side_point(a, from_side), k.side_point(b, to_side)
    ident = f"edge-{e['id']}"
    arrow = _base(ident, "arrow", (sx, sy, abs(ex - sx), abs(ey - sy)))
    arrow.update(strokeWidth=2, roundness={"type": 2})
    if e.get("rel") in DASHED_RELS:
        arrow["strokeStyle"] = "dashed"  # drawn dashed on the board too
    arrow.update({key: style[key] for key in KEPT_STYLE if key in style})
    arrow.update(
        points=[[0, 0], [ex - sx, ey - sy]],
        lastCommittedPoint=None,
        startBinding={
            "elementId": f"card-{e['from']}",
            "focus": 0,
            "gap": 1,
            "fixedPoint": _FIXED[from_side],
            "mode": "orbit",
        },
        endBinding={
            "elementId": f"card-{e['to']}",
            "focus": 0,
            "gap": 1,
            "fixedPoint": _FIXED[to_side],
            "mode": "orbit",
        },
        startArrowhead=style.get("startArrowhead"),
        endArrowhead=style.get("endArrowhead", "arrow"),
        elbowed=False,
    )
    own = {key: e[key] for key in ("rel", "fromRegion", "toRegion") if e.get(key) is not None}
    arrow["customData"] = {**(style.get("customData") or {}), **({OWN_KEY: own} if own else {})}
    if not e.get("label"):
        return arrow, None
    label_id = f"{ident}-label"
    arrow["boundElements"] = [{"id": label_id, "type": "text"}]
    mx, my = (sx + ex) / 2, (sy + ey) / 2
    text = str(e["label"])
    width = max(8.0, 0.6 * FONT_SIZE * max(len(line) for line in text.split("\n")))
    height = 1.25 * FONT_SIZE * (text.count("\n") + 1)
    label = _text(
        label_id,
        ident,
        (mx - width / 2 - PAD, my - height / 2 - PAD, width + 2 * PAD, height + 2 * PAD),
        text,
        {},
    )
    label.update(textAlign="center", verticalAlign="middle")
    return arrow, label


# ---------------------------------------------------------------- import


def read_excalidraw(doc: Any) -> Drawn:
    """The cards and wires of an Excalidraw scene, at the scene's coordinates.

    Shapes, free text, images and frames become cards; arrows bound at both
    ends become wires (their bound text is the label); lines, drawings and
    unbound arrows are left out and listed in ``skipped``. Raises
    :class:`TravelError` whose ``field`` is the JSON path of the bad value.
    """
    if not isinstance(doc, dict):
        raise TravelError("invalid_file", "a scene is a JSON object {type, elements}", field="")
    if doc.get("type") != "excalidraw":
        raise TravelError(
            "invalid_file", "type: an Excalidraw scene has type 'excalidraw'", field="type"
        )
    files = doc.get("files") or {}
    if not isinstance(files, dict):
        raise TravelError("invalid_file", "files: expected an object", field="files")
    live, ids = _live(k.object_list(doc, "elements"))
    # Text bound to a container (a shape's label, an arrow's) is read with its container.
    texts = {
        el["containerId"]: (i, el)
        for i, el in live
        if el["type"] == "text" and isinstance(el.get("containerId"), str)
    }
    cards: list[DrawnCard] = []
    skipped: list[str] = []
    arrows: list[tuple[int, dict[str, Any]]] = []
    for i, el in live:
        path = f"elements[{i}]"
        kind = el["type"]
        if kind == "text" and el.get("containerId") in ids:
            continue  # a bound text is read with its container, as that card's text
        if kind == "arrow":
            arrows.append((i, el))
        elif kind in SHAPES or kind in FRAMES or kind in ("text", "image"):
            cards.append(_read_element(el, path, texts.get(el["id"]), files))
        else:
            skipped.append(f"{path}: a {kind} element has no card kind")
    refs = {c.ref for c in cards}
    wires = []
    for i, el in arrows:
        wire = _read_arrow(el, f"elements[{i}]", refs, texts.get(el["id"]))
        if wire is None:
            skipped.append(f"elements[{i}]: an arrow not bound at both ends is no wire")
        else:
            wires.append(wire)
    nested = k.nest(cards, {c.ref: c.path for c in cards})
    return Drawn(tuple(nested), tuple(wires), tuple(skipped))


def _live(elements: list[dict[str, Any]]) -> tuple[list[tuple[int, dict[str, Any]]], set[str]]:
    """The elements not deleted, with their index, and every element's id (checked unique)."""
    live = []
    seen: dict[str, str] = {}
    for i, el in enumerate(elements):
        path = f"elements[{i}]"
        k.unique_id(el, path, seen)
        k.string_at(el, "type", path)
        if el.get("isDeleted") is not True:
            live.append((i, el))
    return live, set(seen)


def _defaults(kind: str) -> dict[str, Any]:
    """The style an export writes for an element of ``kind`` (what need not be kept)."""
    out = _base("", kind, (0, 0, 0, 0))
    if kind == "arrow":
        out.update(strokeWidth=2, roundness={"type": 2})
    elif kind == "rectangle":
        out["roundness"] = {"type": 3}
    return out


_TEXT_DEFAULTS = {
    "fontSize": FONT_SIZE,
    "fontFamily": 2,
    "textAlign": "left",
    "verticalAlign": "top",
    "strokeColor": "#1e1e1e",
}


def _kept(el: Mapping[str, Any]) -> dict[str, Any]:
    plain = _defaults(str(el.get("type")))
    out = {key: el[key] for key in KEPT_STYLE if key in el and el[key] != plain.get(key)}
    if k.note_color_of_fill(out.get("backgroundColor")) is not None:
        out.pop("backgroundColor")  # a note's own colour, written again from its payload
    custom = el.get("customData")
    if isinstance(custom, dict):
        rest = {key: v for key, v in custom.items() if key != OWN_KEY}
        if rest:
            out["customData"] = rest
    return out


def _kept_text(el: Mapping[str, Any]) -> dict[str, Any]:
    return {key: el[key] for key in KEPT_TEXT if key in el and el[key] != _TEXT_DEFAULTS[key]}


def _read_element(
    el: dict[str, Any],
    path: str,
    bound: tuple[int, dict[str, Any]] | None,
    files: Mapping[str, Any],
) -> DrawnCard:
    box = (
        k.number_at(el, "x", path),
        k.number_at(el, "y", path),
        max(1.0, abs(k.number_at(el, "width", path))),
        max(1.0, abs(k.number_at(el, "height", path))),
    )
    custom = el.get("customData")
    own = k.own_card(
        custom.get(OWN_KEY) if isinstance(custom, dict) else None, f"{path}.customData.{OWN_KEY}"
    )
    foreign = _kept(el)
    kind_of = el["type"]
    text = None
    if kind_of == "text":
        text = k.string_at(el, "text", path)
        foreign["text"] = _kept_text(el)
    elif bound is not None:
        text = k.string_at(bound[1], "text", f"elements[{bound[0]}]")
        foreign["text"] = _kept_text(bound[1])
    if not foreign.get("text"):
        foreign.pop("text", None)
    blob = None
    restored = own is not None
    if kind_of in FRAMES:
        name = el.get("name")
        if own is not None and own[0] in FRAME_KINDS:
            kind, payload = own
            if isinstance(name, str) and name:
                payload["title"] = name
        elif isinstance(name, str) and name:
            kind, payload = "section", {"title": name, "layout": None}
        else:
            kind, payload = "cluster", {"layout": None}
    elif kind_of == "image":
        blob = _image_blob(el, path, files)
        kind, payload = own if own is not None and own[0] in k.BLOB_KINDS else ("media", {})
        restored = own is not None and own[0] in k.BLOB_KINDS
    else:
        shown = k.own_text(custom.get(OWN_KEY) if isinstance(custom, dict) else None)
        kind, payload, restored = _shape_card(el, kind_of, text, own, shown)
    return DrawnCard(
        el["id"], kind, payload, box, path, foreign=foreign, blob=blob, restored=restored
    )


def _shape_card(
    el: Mapping[str, Any],
    kind_of: str,
    text: str | None,
    own: tuple[str, dict[str, Any]] | None,
    shown: str | None,
) -> tuple[str, dict[str, Any], bool]:
    link = el.get("link")
    if own is not None:
        kind, payload = own
        if kind in k.MARKDOWN_KINDS and text is not None:
            return kind, {**payload, "md": text}, True
        if text is None or shown == text:
            return kind, payload, True
    if k.is_http(link) and (text is None or text.strip() in ("", link)):
        return "link", {"url": link}, False
    if text is None or not text.strip():
        return "shape", {"shape": _SHAPE_OF.get(kind_of, "rect")}, False
    if kind_of in ("diamond", "ellipse"):
        return "shape", {"shape": _SHAPE_OF[kind_of], "label": text}, False
    note = k.note_color_of_fill(el.get("backgroundColor"))
    if note is not None and kind_of != "text":
        return "note", {"md": text, "color": note}, False
    return "text", {"md": text}, False


def _image_blob(el: Mapping[str, Any], path: str, files: Mapping[str, Any]) -> tuple[bytes, str]:
    file_id = el.get("fileId")
    entry = files.get(file_id) if isinstance(file_id, str) else None
    where = f"files.{file_id}" if isinstance(file_id, str) else f"{path}.fileId"
    if not isinstance(entry, dict):
        raise TravelError(
            "invalid_file", f"{where}: the image's file is not in the scene", field=where
        )
    url = entry.get("dataURL")
    head, sep, data = url.partition(",") if isinstance(url, str) else ("", "", "")
    if not sep or not head.startswith("data:") or not head.endswith(";base64"):
        raise TravelError(
            "invalid_file", f"{where}.dataURL: expected a base64 data URL", field=f"{where}.dataURL"
        )
    try:
        raw = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise TravelError(
            "invalid_file", f"{where}.dataURL: not base64", field=f"{where}.dataURL"
        ) from exc
    mime = head[len("data:") : -len(";base64")] or "application/octet-stream"
    return raw, mime


def _read_arrow(
    el: dict[str, Any], path: str, refs: set[str], bound: tuple[int, dict[str, Any]] | None
) -> DrawnWire | None:
    ends = []
    for key in ("startBinding", "endBinding"):
        binding = el.get(key)
        if binding is None:
            return None
        target = binding.get("elementId") if isinstance(binding, dict) else None
        if not isinstance(target, str):
            where = f"{path}.{key}.elementId"
            raise TravelError("invalid_file", f"{where}: expected a string", field=where)
        if target not in refs:
            return None  # bound to something that is no card (a line, a deleted shape)
        ends.append(target)
    foreign = _kept(el)
    start, end = el.get("startArrowhead"), el.get("endArrowhead")
    if start is not None and end is None:
        ends.reverse()  # a wire points at its end
    elif (start, end) != (None, "arrow"):
        foreign.update(startArrowhead=start, endArrowhead=end)
    label = None
    if bound is not None:
        label = k.string_at(bound[1], "text", f"elements[{bound[0]}]") or None
    custom = el.get("customData")
    own = custom.get(OWN_KEY) if isinstance(custom, dict) else None
    own = own if isinstance(own, dict) else {}
    rel = own.get("rel") if isinstance(own.get("rel"), str) else None
    if rel in DASHED_RELS and foreign.get("strokeStyle") == "dashed":
        del foreign["strokeStyle"]  # the relation's own dash, written again from it
    regions = {
        key: own[key] for key in ("fromRegion", "toRegion") if isinstance(own.get(key), dict)
    }
    return DrawnWire(ends[0], ends[1], path, label, rel, regions, foreign)
