"""Boards and single cards laid out into one scene, written as SVG or PNG."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

import attrs

from layoutkit.elements.vocab import FRAME_KINDS
from layoutkit.formatting import as_number
from layoutkit.layout.routing import Route, WireSpec, route_wires
from layoutkit.layout.text import line_height, text_width
from layoutkit.render._face_diagram import diagram_scene
from layoutkit.render._faces import DEFAULT_SIZES, card_face, frame_items
from layoutkit.render._glance import FACES, GLANCE_SCALE, GLANCES, face_key
from layoutkit.render._palette import BOARD, CARD, FG, LINE, MUTED
from layoutkit.render._scene import (
    Box,
    Group,
    Item,
    Mark,
    Path,
    Placed,
    Scene,
    Text,
    WireMark,
    arrowhead,
    fit_line,
    group_svg,
    to_png,
    to_svg,
    to_svg_fragment,
)

PAD = 40.0
HEADER = 64.0
WIRE = "#6b7a90"
LABEL_SIZE = 11.5
LABEL_MAX = 220.0
MAX_FRAME_DEPTH = 5

Rect = tuple[float, float, float, float]


def card_rect(card: dict) -> Rect:
    """A card's x, y, w, h as drawn: stored floats as they are, defaults for what a
    hand-made card leaves out."""
    return _rect(card)


def _rect(card: dict) -> Rect:
    x, y, w, h = card.get("x"), card.get("y"), card.get("w"), card.get("h")
    # Stored cards hold finite floats: the checks below are for hand-made boards.
    floats = type(x) is type(y) is type(w) is type(h) is float
    if floats and w >= 1.0 and h >= 1.0 and math.isfinite(x + y + w + h):
        return x, y, w, h
    kind = str(card.get("kind") or "")
    dw, dh = DEFAULT_SIZES.get(kind, (320.0, 200.0))
    x = as_number(x) or 0.0
    y = as_number(y) or 0.0
    w = as_number(w) or dw
    h = as_number(h) or dh
    return x, y, max(w, 1.0), max(h, 1.0)


def _depths(cards: list[dict]) -> dict[Any, int]:
    parent = {c.get("id"): c.get("parent") for c in cards}
    depth: dict[Any, int] = {}
    for cid in parent:
        d, cur, seen = 0, parent.get(cid), {cid}
        while cur is not None and cur in parent and cur not in seen and d <= MAX_FRAME_DEPTH + 1:
            seen.add(cur)
            d += 1
            cur = parent.get(cur)
        depth[cid] = d
    return depth


def _label_size(edge: dict) -> tuple[str, tuple[float, float]] | None:
    label = edge.get("label")
    if not label:
        return None
    text = fit_line(str(label), LABEL_MAX, LABEL_SIZE)
    # Two pixels of room over the text line: the box (18 px) then fits, with the
    # router's clearance, on a wire down the middle of the 24 px gap between cards.
    return text, (text_width(text, LABEL_SIZE) + 12, line_height(LABEL_SIZE) + 2)


#: Relations drawn as a dashed wire: a loose tie rather than a flow (exports dash them too).
DASHED_RELS = ("relates", "related", "ref", "see-also")


def _wire(
    edge: dict, route: Route, text: str | None, dx: float, dy: float, *, mark: bool = False
) -> list[Item]:
    """A routed wire moved by (dx, dy): its path, an arrowhead into the target and its
    label where the router put it (tied to the wire by a dotted leader when the wire
    itself had no room for it); with ``mark``, its :class:`WireMark` over it."""
    pts = tuple((x + dx, y + dy) for x, y in route.points)
    if len(pts) < 2:
        return []
    rel = str(edge.get("rel") or "")
    dash = (6.0, 4.0) if rel in DASHED_RELS else None
    items: list[Item] = [
        Path(pts, stroke=WIRE, width=1.8, dash=dash),
        arrowhead(pts[-2], pts[-1], WIRE, 10),
    ]
    if text and route.label is not None:
        if route.leader is not None:
            (ax, ay), (bx, by) = route.leader
            items.append(Path(((ax + dx, ay + dy), (bx + dx, by + dy)), WIRE, 1, (2.0, 3.0)))
        lx, ly, lw, lh = route.label
        lx, ly = lx + dx, ly + dy
        items.append(Box(lx, ly, lw, lh, fill=CARD, stroke=LINE, width=1, radius=lh / 2))
        items.append(Text(lx + lw / 2, ly + 1, (text,), LABEL_SIZE, "sans", FG, 0.0, "middle"))
    if mark and edge.get("id") is not None:
        box = None
        if text and route.label is not None:
            lx, ly, lw, lh = route.label
            box = (lx + dx, ly + dy, lw, lh)
        items.append(WireMark(pts, str(edge["id"]), box))
    return items


def _wires(
    board: dict,
    cards: list[dict],
    rects: dict[Any, Rect],
    dx: float,
    dy: float,
    *,
    marks: bool = False,
) -> list[Item]:
    """Every wire of the board routed around the cards (board coordinates), drawn
    moved by (dx, dy). A board without wires costs nothing here."""
    edges = [
        e
        for e in board.get("edges") or ()
        if isinstance(e, dict)
        and e.get("from") in rects
        and e.get("to") in rects
        and e.get("from") != e.get("to")
    ]
    if not edges:
        return []
    labels = [_label_size(e) for e in edges]
    specs = [
        WireSpec(e["from"], e["to"], None if lab is None else lab[1])
        for e, lab in zip(edges, labels, strict=True)
    ]
    parents = {c.get("id"): c.get("parent") for c in cards}
    routes = route_wires(rects, parents, specs)
    items: list[Item] = []
    for edge, route, lab in zip(edges, routes, labels, strict=True):
        if route is not None:
            items.extend(_wire(edge, route, None if lab is None else lab[0], dx, dy, mark=marks))
    return items


#: A face drawn for a board: the card's id, the face's key and the face.
Fresh = list[tuple[Any, str, Group]]


def board_scene(
    board: dict,
    *,
    max_dim: int | None = None,
    region: Rect | None = None,
    stored: Mapping[str, str] | None = None,
    fresh: Fresh | None = None,
    scale: float | None = None,
) -> Scene:
    """Scene of a whole board as ``scrape_board`` returns it (frames, cards, wires).

    ``max_dim`` is the longest side, in pixels, of the picture the scene is for
    (PNG); drawn smaller than :data:`GLANCE_SCALE` of full size, cards show as
    glances (box and title) instead of their whole faces, and the scene has no
    :class:`Mark` items (only SVG writes them). Faces come from the
    cache of faces, so drawing a board again builds only the changed cards.

    ``scale`` (PNG pixels per board pixel) replaces ``max_dim`` in that choice when
    the picture is drawn at a scale of the caller's.

    ``region`` (x, y, w, h in board coordinates) draws just that window of the
    board at full size, without the title band: what a viewer shows of a board
    too large to draw whole. Whatever reaches past its edges is cut off there.

    ``stored`` maps face keys (:func:`~layoutkit.render._glance.face_key`) to the
    SVG text of faces drawn before, kept by the caller; an SVG scene takes its
    faces from there and appends to ``fresh`` every face it did not get from the
    caller as the card's own ``face``, for the caller to keep (against the card as
    it is now). A card that carries ``face`` (SVG text of its
    face at the origin, drawn for this very card) is taken as it is.
    """
    faces = _Faces(stored or {}, fresh, svg=max_dim is None)
    meta = board.get("board") if isinstance(board.get("board"), dict) else {}
    cards = [c for c in board.get("cards") or [] if isinstance(c, dict)]
    rects = {c.get("id"): _rect(c) for c in cards}
    images = board.get("images") if isinstance(board.get("images"), Mapping) else {}
    if region is not None:
        scene = _region_scene(board, cards, rects, region, faces)
        scene.images = images
        return scene
    (x0, y0), (width, height) = _frame(rects)
    dx, dy = PAD - x0, PAD + HEADER - y0
    scene = Scene(width, height, background=BOARD, images=images)
    shrink = scale if scale is not None else (max_dim or 0) / max(width, height)
    glance = max_dim is not None and shrink < GLANCE_SCALE
    title = str(meta.get("title") or meta.get("slug") or "Board")
    scene.add(
        Text(
            PAD, 20, (fit_line(title, width - 2 * PAD - 160, 22, "sans-bold"),), 22, "sans-bold", FG
        )
    )
    subtitle = " · ".join(
        v
        for v in (
            str(meta.get("slug") or ""),
            f"{len(cards)} cards",
            f"{len(board.get('edges') or [])} wires",
        )
        if v
    )
    scene.add(Text(width - PAD, 26, (subtitle,), 12, "sans", MUTED, 0.0, "end"))
    scene.add(Path(((PAD, HEADER + 8), (width - PAD, HEADER + 8)), stroke=LINE, width=1))

    def moved(cid: Any) -> Rect:
        x, y, w, h = rects[cid]
        return x + dx, y + dy, w, h

    _draw_cards(scene, board, cards, rects, moved, faces, glance=glance)
    return scene


def _frame(rects: dict[Any, Rect]) -> tuple[tuple[float, float], tuple[float, float]]:
    """The top-left corner of the cards and the size of the whole board's picture."""
    if rects:
        x0 = min(r[0] for r in rects.values())
        y0 = min(r[1] for r in rects.values())
        x1 = max(r[0] + r[2] for r in rects.values())
        y1 = max(r[1] + r[3] for r in rects.values())
    else:
        x0 = y0 = 0.0
        x1, y1 = 480.0, 120.0
    return (x0, y0), (max(x1 - x0 + 2 * PAD, 480.0), y1 - y0 + 2 * PAD + HEADER)


def draws_glances(board: dict, max_dim: int) -> bool:
    """Whether a picture of the whole ``board`` at most ``max_dim`` pixels on its longest
    side shows its cards as glances (their payloads need only the glance keys)."""
    cards = [c for c in board.get("cards") or [] if isinstance(c, dict)]
    _, (width, height) = _frame({c.get("id"): _rect(c) for c in cards})
    return max_dim / max(width, height) < GLANCE_SCALE


@attrs.define
class _Faces:
    """Where a scene's faces come from and where fresh ones go; an SVG scene also
    marks each card (a picture, PNG, has no use for marks)."""

    stored: Mapping[str, str]
    fresh: Fresh | None
    svg: bool

    def face(self, card: dict, kind: str, rect: Rect) -> Placed:
        x, y, w, h = rect
        given = card.get("face")
        cid = card.get("id")
        owner = None if cid is None else str(cid)
        if self.svg and isinstance(given, str):
            return Placed(Group(None, given), x, y, owner)
        payload = card.get("payload")
        key = face_key(kind, payload, w, h)
        group = FACES.face(kind, payload, w, h, key=key, stored=self.stored, items=not self.svg)
        if self.fresh is not None:
            self.fresh.append((cid, key, group))
        return Placed(group, x, y, owner)


def faces_of(cards: list[dict], stored: Mapping[str, str]) -> dict[Any, tuple[str, str]]:
    faces = _Faces(stored, [], svg=True)
    for card in cards:
        kind = str(card.get("kind") or "")
        if kind not in FRAME_KINDS and not isinstance(card.get("face"), str):
            faces.face(card, kind, _rect(card))
    return {cid: (key, group_svg(group)) for cid, key, group in faces.fresh or ()}


def _region_scene(
    board: dict, cards: list[dict], rects: dict[Any, Rect], region: Rect, faces: _Faces
) -> Scene:
    rx, ry, rw, rh = region
    scene = Scene(rw, rh, background=BOARD)

    def moved(cid: Any) -> Rect:
        x, y, w, h = rects[cid]
        return x - rx, y - ry, w, h

    _draw_cards(scene, board, cards, rects, moved, faces, glance=False)
    return scene


def _draw_cards(
    scene: Scene,
    board: dict,
    cards: list[dict],
    rects: dict[Any, Rect],
    moved: Callable[[Any], Rect],
    faces: _Faces,
    *,
    glance: bool,
) -> None:
    """Frames (outermost first), faces, card marks and wires, at ``moved`` boxes."""
    depth = _depths(cards)
    frames = sorted(
        (c for c in cards if c.get("kind") in FRAME_KINDS), key=lambda c: depth.get(c.get("id"), 0)
    )
    for card in frames:
        scene.add(
            *frame_items(
                str(card["kind"]),
                card.get("payload"),
                moved(card.get("id")),
                depth.get(card.get("id"), 0),
            )
        )
    for card in cards:
        kind = str(card.get("kind") or "")
        if kind in FRAME_KINDS:
            continue
        if glance:
            x, y, w, h = moved(card.get("id"))
            scene.add(Placed(GLANCES.glance(kind, card.get("payload"), w, h), x, y))
        else:
            scene.add(faces.face(card, kind, moved(card.get("id"))))
    for card in cards if faces.svg else ():
        x, y, w, h = moved(card.get("id"))
        scene.add(Mark(x, y, w, h, str(card.get("id")), str(card.get("kind") or "")))
    if rects:
        some = next(iter(rects))
        mx, my, _, _ = moved(some)
        scene.add(
            *_wires(board, cards, rects, mx - rects[some][0], my - rects[some][1], marks=faces.svg)
        )


def card_scene(card: dict) -> Scene:
    """Scene of one card at the origin, exactly its w × h."""
    _, _, w, h = _rect(card)
    kind = str(card.get("kind") or "")
    images = card.get("images") if isinstance(card.get("images"), Mapping) else {}
    scene = Scene(w, h, background=BOARD, images=images)
    if kind in FRAME_KINDS:
        scene.add(*frame_items(kind, card.get("payload"), (0.0, 0.0, w, h), 0))
    else:
        scene.add(*card_face(kind, card.get("payload"), (0.0, 0.0, w, h)))
    return scene


def write(
    scene: Scene,
    fmt: str,
    *,
    max_dim: int = 1600,
    title: str | None = None,
    scale: float | None = None,
) -> str | bytes:
    if fmt == "svg":
        return to_svg(scene, title=title)
    if fmt == "png":
        if max_dim < 1:
            raise ValueError("max_dim must be a positive number of pixels")
        return to_png(scene, max_dim=max_dim, scale=scale)
    raise ValueError(f"format must be 'svg' or 'png', got {fmt!r}")


def diagram_svg(payload: dict) -> str:
    """Inline SVG of a diagram payload drawn from its geo (for documents)."""
    # The document shows the caption as a figcaption with inline markup.
    scene = diagram_scene({k: v for k, v in payload.items() if k != "caption"})
    scene.background = ""
    scene.items.insert(0, Box(0, 0, scene.width, scene.height, fill=CARD, stroke=LINE, radius=10))
    return to_svg_fragment(scene, str(payload.get("title") or "diagram"))
