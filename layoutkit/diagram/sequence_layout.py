"""A sequence diagram laid out as one: heads across the top, lifelines, messages in time order.

:func:`lay_out_sequence` places what the Mermaid import recorded in the
payload's ``sequence`` field. Columns come first: each participant gets a
lifeline, spaced so that every message label, self-message and note fits
between the lifelines it spans. Rows follow the recorded event order from
the top down: a message is one row (its label above a horizontal arrow), a
note is a row, a block's start, branch and end take a band each, so a
block's frame encloses exactly the rows of its events.

The geometry keeps the engine's shape: ``nodes`` are the participant heads,
``edges`` the message arrows (two points; four for a self-message) with
their label boxes, so composition checks, metrics and overrides work as for
any diagram. ``geo.sequence`` adds what only a sequence diagram has:
lifelines, activation bars, notes, block frames, participant boxes, the
bottom row of heads, and each message's line and arrowhead kinds.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping
from typing import Any

import attrs

from layoutkit.diagram.model import Model
from layoutkit.layout.text import measure, text_width

HEAD_FONT = 14.0
LABEL_FONT = 12.0
NOTE_FONT = 12.0
FRAME_FONT = 11.0
HEAD_GAP = 36.0  # least free space between neighbouring heads
LABEL_MAX = 320.0
NOTE_MAX = 200.0
BAR_W = 10.0
LOOP_W = 30.0
LOOP_H = 18.0
FRAME_PAD = 12.0
TAB_H = 20.0
BOX_BAND = 26.0  # label band of a participant box above the heads
FIGURE_H = 38.0  # actor stick figure / symbol above the name
MARGIN = 16.0
_FIGURES = ("actor", "boundary", "control", "entity")


def _r(v: float) -> float:
    return round(float(v), 2) + 0.0


def usable(payload: dict[str, Any], model: Model) -> dict[str, Any] | None:
    """The payload's ``sequence`` record when it still matches its lane and edges, else None.

    A patch can change the participants or messages after the import; then the
    record no longer describes the diagram and it is laid out as a graph.
    """
    seq = payload.get("sequence")
    if not isinstance(seq, dict):
        return None
    people = seq.get("participants")
    messages = seq.get("messages")
    if not isinstance(people, list) or not isinstance(messages, list):
        return None
    ids = [p.get("id") for p in people if isinstance(p, dict)]
    if len(ids) != len(people) or sorted(ids) != sorted(model.nodes) or not ids:
        return None
    raw_edges = payload.get("edges") or []
    if len(raw_edges) != len(messages) or len(model.edges) != len(messages):
        return None
    for m, e in zip(messages, raw_edges, strict=True):
        if not isinstance(m, dict) or not isinstance(e, dict):
            return None
        if (m.get("from"), m.get("to")) != (e.get("from"), e.get("to")):
            return None
    for ev in seq.get("events") or []:
        if not isinstance(ev, dict):
            return None
    return seq


def _head_size(title: str, kind: str) -> tuple[float, float]:
    block = measure(title, 200.0, HEAD_FONT, "sans-bold")
    if kind in _FIGURES:
        return max(block.width + 12, 56.0), FIGURE_H + 4 + block.height
    w, h = max(block.width + 28, 90.0), max(block.height + 20, 40.0)
    if kind == "database":
        h += 14
    elif kind == "collections":
        w += 6
        h += 6
    elif kind == "queue":
        w += 18
    return w, h


def _text_box(text: str, max_w: float, size: float) -> tuple[float, float]:
    if not text:
        return 0.0, 0.0
    block = measure(text, max_w, size)
    return block.width, block.height


def _titles(payload: dict[str, Any]) -> dict[str, str]:
    out: dict[str, str] = {}
    for lane in payload.get("lanes") or []:
        for n in (lane or {}).get("nodes") or []:
            if isinstance(n, dict) and isinstance(n.get("id"), str):
                out[n["id"]] = str(n.get("title") or n["id"])
    return out


def _message_text(seq_msg: dict[str, Any], edge: dict[str, Any]) -> str:
    """The text a message shows once: the recorded text unless the edge label was rewritten."""
    text = str(seq_msg.get("text") or "")
    label = str(edge.get("label") or "")
    return text if label.endswith(text) else label


def _columns(
    order: list[str],
    heads: dict[str, tuple[float, float]],
    seq: dict[str, Any],
    texts: list[str],
    boxed: dict[str, int | None],
) -> dict[str, float]:
    """Lifeline x of each participant: neighbours apart, every spanned label fitting."""
    pos = {pid: i for i, pid in enumerate(order)}
    gaps = _head_gaps(order, heads, boxed)
    needs = _message_needs(seq, texts, pos) + _note_needs(seq, pos)
    _widen(gaps, needs)
    xs: dict[str, float] = {}
    x = heads[order[0]][0] / 2
    for i, pid in enumerate(order):
        xs[pid] = x
        if i < len(order) - 1:
            x += gaps[i]
    return xs


# A need: the lifelines ``lo`` and ``hi`` (column indexes) must be at least ``need`` apart.
_Need = tuple[int, int, float]


def _head_gaps(
    order: list[str], heads: dict[str, tuple[float, float]], boxed: dict[str, int | None]
) -> list[float]:
    """The least distance between neighbouring lifelines: their heads side by side."""
    gaps = []
    for a, b in itertools.pairwise(order):
        extra = 20.0 if boxed.get(a) != boxed.get(b) else 0.0
        gaps.append(heads[a][0] / 2 + heads[b][0] / 2 + HEAD_GAP + extra)
    return gaps


def _message_needs(seq: dict[str, Any], texts: list[str], pos: dict[str, int]) -> list[_Need]:
    """Room for each message label between its lifelines (a self-message's right of its own)."""
    n = len(pos)
    needs: list[_Need] = []
    for m, text in zip(seq["messages"], texts, strict=True):
        i, j = pos[m["from"]], pos[m["to"]]
        lw, _ = _text_box(text, LABEL_MAX, LABEL_FONT)
        if i != j:
            needs.append((min(i, j), max(i, j), lw + 32 + BAR_W))
        elif i + 1 < n:
            needs.append((i, i + 1, max(lw + 12, LOOP_W) + 24))
    return needs


def _note_needs(seq: dict[str, Any], pos: dict[str, int]) -> list[_Need]:
    """Room for each note beside (or centred over) its participant."""
    n = len(pos)
    needs: list[_Need] = []
    for note in seq.get("notes") or []:
        actors = [a for a in note.get("actors") or [] if a in pos]
        if not actors:
            continue
        nw, _ = _text_box(str(note.get("text") or ""), NOTE_MAX, NOTE_FONT)
        nw += 16
        i = pos[actors[0]]
        where = note.get("placement")
        if where == "left" and i > 0:
            needs.append((i - 1, i, nw + 16))
        elif where == "right" and i + 1 < n:
            needs.append((i, i + 1, nw + 16))
        elif where == "over" and len(actors) == 1:
            if i > 0:
                needs.append((i - 1, i, nw / 2 + 12))
            if i + 1 < n:
                needs.append((i, i + 1, nw / 2 + 12))
    return needs


def _widen(gaps: list[float], needs: list[_Need]) -> None:
    """Spread what each need lacks evenly over the gaps it spans."""
    # Narrow spans first: a wide message then only widens what is still short.
    for lo, hi, need in sorted(needs, key=lambda t: (t[1] - t[0], t[0], t[1])):
        have = sum(gaps[lo:hi])
        if have < need:
            share = (need - have) / (hi - lo)
            for k in range(lo, hi):
                gaps[k] += share


@attrs.frozen
class _Columns:
    """What the rows and the body are laid out over: the sequence record, the
    participants in order, their lifeline x, head sizes and the message texts."""

    seq: dict[str, Any]
    order: list[str]
    xs: dict[str, float]
    heads: dict[str, tuple[float, float]]
    texts: list[str]


class _Rows:
    """Walks the events top-down and records the geometry of each (internal frame)."""

    def __init__(self, cols: _Columns, top: float) -> None:
        self.seq, self.order, self.xs = cols.seq, cols.order, cols.xs
        self.heads, self.texts = cols.heads, cols.texts
        self.y = top
        self.active: dict[str, list[float]] = {pid: [] for pid in cols.order}
        self.bars: list[dict[str, Any]] = []
        self.arrows: dict[int, dict[str, Any]] = {}
        self.notes: list[dict[str, Any]] = []
        self.frames: dict[int, dict[str, Any]] = {}
        self.open: list[int] = []
        self.extent: dict[int, list[float]] = {}
        self.created_at: dict[str, float] = {}
        self.destroyed_at: dict[str, float] = {}
        self.last_arrow: tuple[int, float] | None = None
        people = {p["id"]: p for p in cols.seq["participants"]}
        self.kinds = {pid: p.get("kind") for pid, p in people.items()}
        self.creates = {p.get("created"): pid for pid, p in people.items() if "created" in p}
        self.destroys = {p.get("destroyed"): pid for pid, p in people.items() if "destroyed" in p}

    def _grow(self, x0: float, x1: float) -> None:
        for b in self.open:
            e = self.extent.setdefault(b, [x0, x1])
            e[0], e[1] = min(e[0], x0), max(e[1], x1)

    def _edge_x(self, pid: str, toward: float, extra: int = 0) -> float:
        """Where an arrow meets ``pid``'s lifeline, or the side of its top activation bar."""
        depth = len(self.active[pid]) + extra
        cx = self.xs[pid]
        if depth == 0:
            return cx
        shift = (depth - 1) * BAR_W / 2
        return cx + shift + (BAR_W / 2 if toward > cx else -BAR_W / 2)

    def run(self) -> None:
        events = self.seq.get("events") or []
        for k, ev in enumerate(events):
            nxt = events[k + 1] if k + 1 < len(events) else {}
            kind = ev.get("event")
            step = _EVENT_STEPS.get(kind) if isinstance(kind, str) else None
            if step is not None:
                step(self, ev, nxt)
            # An (de)activation starts (ends) at the arrow of the message just before it,
            # when nothing but other (de)activations came between.
            if kind not in ("message", "activate", "deactivate"):
                self.last_arrow = None
        self.y += 12
        for pid, starts in self.active.items():
            while starts:
                self._bar(pid, starts.pop(), self.y, len(starts))

    def message(self, k: int, nxt: dict[str, Any]) -> None:
        m = self.seq["messages"][k]
        src, dst = m["from"], m["to"]
        if src == dst:
            self._self_message(k, src)
        else:
            self._crossing(k, src, dst, nxt)
        # A destroyed participant's bottom head sits on its destroying message.
        gone = self.destroys.get(k)
        if gone:
            self.destroyed_at[gone] = self.arrows[k]["y"]
        self.last_arrow = (k, self.arrows[k]["y"])

    def _self_message(self, k: int, pid: str) -> None:
        """A loop out of ``pid``'s lifeline (or top bar) and back, its label above it."""
        text = self.texts[k]
        lw, lh = _text_box(text, LABEL_MAX, LABEL_FONT)
        y = self.y + 8 + lh + 4
        x0 = self._edge_x(pid, self.xs[pid] + 1)
        pts = [[x0, y], [x0 + LOOP_W, y], [x0 + LOOP_W, y + LOOP_H], [x0, y + LOOP_H]]
        label = (x0 + 12, y - lh - 3, lw, lh) if text else None
        self.arrows[k] = {"points": pts, "label": label, "y": y, "self": True}
        self._grow(x0 - BAR_W, max(x0 + LOOP_W, x0 + 12 + lw))
        self.y = y + LOOP_H + 12

    def _crossing(self, k: int, src: str, dst: str, nxt: dict[str, Any]) -> None:
        """An arrow from one lifeline to another, its label centred above it.

        A message that creates or destroys a participant is its head's row: the
        arrow then meets the head and the row is tall enough for it.
        """
        text = self.texts[k]
        lw, lh = _text_box(text, LABEL_MAX, LABEL_FONT)
        created = self.creates.get(k)
        gone = self.destroys.get(k)
        head_h = self.heads[created][1] if created else 0.0
        gone_h = self.heads[gone][1] if gone else 0.0
        y = self.y + 8 + lh + 4
        if created or gone_h:
            y = max(y, self.y + 4 + max(head_h, gone_h) / 2)
        # The arrow meets a bar the next event opens on its target.
        extra = 1 if nxt.get("event") == "activate" and nxt.get("actor") == dst else 0
        sx, dx = self.xs[src], self.xs[dst]
        x0 = self._edge_x(src, dx)
        x1 = self._edge_x(dst, sx, extra)
        if created:
            x1 = _facing(dx, sx, self._half_head(created))
            self.created_at[created] = y
        if gone and gone_h:
            hw = self._half_head(gone)
            if gone == dst:
                x1 = _facing(dx, sx, hw)
            else:
                x0 = sx + hw if dx > sx else sx - hw
        mid = (x0 + x1) / 2
        label = (mid - lw / 2, y - lh - 4, lw, lh) if text else None
        self.arrows[k] = {"points": [[x0, y], [x1, y]], "label": label, "y": y, "self": False}
        lo, hi = min(x0, x1), max(x0, x1)
        if label:
            lo, hi = min(lo, label[0]), max(hi, label[0] + lw)
        self._grow(*self._clear_bars(lo, hi, ((src, 0), (dst, extra))))
        tall = max(head_h, gone_h)
        self.y = y + (tall / 2 + 10 if tall else 14)

    def _half_head(self, pid: str) -> float:
        """Half the width an arrow stops short of at ``pid``'s head."""
        if self.kinds.get(pid) in _FIGURES:
            return 16.0  # the figure, not its name, is what the arrow meets
        return self.heads[pid][0] / 2

    def _clear_bars(
        self, lo: float, hi: float, ends: tuple[tuple[str, int], ...]
    ) -> tuple[float, float]:
        """Widen [lo, hi] over the activation bars the message meets at its ``ends``."""
        # A frame around the message also clears the activation bars it meets.
        for pid, more in ends:
            depth = len(self.active[pid]) + more
            if depth:
                cx = self.xs[pid]
                lo = min(lo, cx - BAR_W / 2)
                hi = max(hi, cx + BAR_W / 2 + (depth - 1) * BAR_W / 2)
        return lo, hi

    def note(self, j: int) -> None:
        note = self.seq["notes"][j]
        actors = [a for a in note.get("actors") or [] if a in self.xs]
        text = str(note.get("text") or "")
        xs = sorted(self.xs[a] for a in actors) or [0.0]
        spread = xs[-1] - xs[0] + 50 if len(actors) > 1 else 0.0
        # A note over two lifelines wraps to their spread, as it is drawn.
        tw, th = _text_box(text, max(NOTE_MAX, spread - 16), NOTE_FONT)
        w, h = tw + 16, th + 12
        where = note.get("placement")
        if where == "left":
            x = xs[0] - BAR_W / 2 - 6 - w
        elif where == "right":
            x = xs[0] + BAR_W / 2 + 6
        elif len(actors) > 1:
            w = max(w, spread)
            x = (xs[0] + xs[-1]) / 2 - w / 2
        else:
            w = max(w, 60.0)
            x = xs[0] - w / 2
        y = self.y + 10
        self.notes.append({"x": x, "y": y, "w": w, "h": h, "text": text, "placement": where})
        self._grow(x, x + w)
        self.y = y + h + 4

    def activate(self, pid: str) -> None:
        if pid not in self.active:
            return
        at = self.y
        if self.last_arrow is not None and self._touches(self.last_arrow[0], pid):
            at = self.last_arrow[1]
        self.active[pid].append(at)

    def deactivate(self, pid: str) -> None:
        if not self.active.get(pid):
            return
        at = self.y
        if self.last_arrow is not None and self._touches(self.last_arrow[0], pid):
            at = self.last_arrow[1]
        start = self.active[pid].pop()
        self._bar(pid, start, at, len(self.active[pid]))

    def _touches(self, k: int, pid: str) -> bool:
        m = self.seq["messages"][k]
        return pid in (m["from"], m["to"])

    def _bar(self, pid: str, y0: float, y1: float, depth: int) -> None:
        y1 = max(y1, y0 + 10)
        x = self.xs[pid] - BAR_W / 2 + depth * BAR_W / 2
        self.bars.append({"actor": pid, "x": x, "y": y0, "w": BAR_W, "h": y1 - y0})
        self._grow(x, x + BAR_W)

    def start(self, b: int) -> None:
        block = self.seq["blocks"][b]
        self.frames[b] = {"top": self.y + 6, "dividers": [], "depth": len(self.open)}
        self.open.append(b)
        self.y += 6 + (TAB_H + 6 if block.get("type") != "rect" else 8)

    def branch(self, b: int, i: int) -> None:
        if b not in self.frames:
            return
        self.y += 6
        self.frames[b]["dividers"].append({"y": self.y, "branch": i})
        self.y += 4 + TAB_H

    def end(self, b: int) -> None:
        if b not in self.frames:
            return
        self.y += 8
        self.frames[b]["bottom"] = self.y
        if b in self.open:
            self.open.remove(b)
        inner = self.extent.get(b)
        if inner is not None:
            # The parent frame holds this frame and its padding.
            self._grow(inner[0] - FRAME_PAD, inner[1] + FRAME_PAD)
        self.y += 4


# Event kind -> the step of :class:`_Rows` it takes; an unknown kind takes none.
_EVENT_STEPS: dict[str, Callable[[_Rows, dict[str, Any], dict[str, Any]], None]] = {
    "message": lambda rows, ev, nxt: rows.message(int(ev["index"]), nxt),
    "note": lambda rows, ev, _nxt: rows.note(int(ev["index"])),
    "activate": lambda rows, ev, _nxt: rows.activate(str(ev.get("actor"))),
    "deactivate": lambda rows, ev, _nxt: rows.deactivate(str(ev.get("actor"))),
    "start": lambda rows, ev, _nxt: rows.start(int(ev["block"])),
    "branch": lambda rows, ev, _nxt: rows.branch(int(ev["block"]), int(ev["branch"])),
    "end": lambda rows, ev, _nxt: rows.end(int(ev["block"])),
}


def _facing(x: float, other: float, hw: float) -> float:
    """The side facing ``other`` of a head ``2 * hw`` wide centred on ``x``."""
    return x - hw if x > other else x + hw


def lay_out_sequence(
    model: Model,
    payload: dict[str, Any],
    seq: dict[str, Any],
    overrides: Mapping[str, Any] | None,
    top: float = 0.0,
) -> tuple[dict[str, Any], float, float]:
    """Geometry of a sequence diagram's body; returns (geo, body width, body height).

    The body starts ``top`` below the drawing's top edge (the header's
    height); the returned height leaves it out. ``overrides`` ({participant
    id: {x, y}}) move a head (and its lifeline, and the ends of its
    messages) to that top-left corner.
    """
    cast = _cast(payload, seq)
    xs = _columns(cast.order, cast.heads, seq, cast.texts, cast.boxed)
    moved = _moves(model, overrides, xs)
    placed = _place(seq, cast, xs, moved, top)
    heads = _lifelines(cast, placed, moved)
    edges, shown = _messages(model, seq, cast.texts, placed)
    geo: dict[str, Any] = {"dir": model.dir, "nodes": heads.nodes, "groups": {}, "lanes": []}
    geo["edges"] = edges
    geo["ports"] = {}
    geo["sequence"] = {
        "kinds": cast.kinds,
        "lifelines": heads.lifelines,
        "mirrors": heads.mirrors,
        "messages": shown,
        **_drawn_parts(placed.body, placed.shift),
    }
    if moved:
        geo["overridden"] = sorted(moved)
    body_w, body_h = _body_size(placed, heads.nodes, top)
    return geo, body_w, body_h


@attrs.frozen
class _Cast:
    """The participants as the layout reads them from the payload: their order,
    records, kinds, head sizes and boxes, with the text each message shows."""

    order: list[str]
    people: dict[str, dict[str, Any]]
    kinds: dict[str, str]
    heads: dict[str, tuple[float, float]]
    texts: list[str]
    boxes: list[dict[str, Any]]
    boxed: dict[str, int | None]


def _cast(payload: dict[str, Any], seq: dict[str, Any]) -> _Cast:
    titles = _titles(payload)
    people = {p["id"]: p for p in seq["participants"]}
    order = [p["id"] for p in seq["participants"]]
    kinds = {pid: str(people[pid].get("kind") or "participant") for pid in order}
    heads = {pid: _head_size(titles.get(pid, pid), kinds[pid]) for pid in order}
    edges = list(payload.get("edges") or [])
    texts = [_message_text(m, e) for m, e in zip(seq["messages"], edges, strict=True)]
    boxes = [b for b in seq.get("boxes") or [] if isinstance(b, dict)]
    boxed = {pid: people[pid].get("box") for pid in order}
    return _Cast(order, people, kinds, heads, texts, boxes, boxed)


def _moves(
    model: Model, overrides: Mapping[str, Any] | None, xs: dict[str, float]
) -> dict[str, tuple[float, float]]:
    """The usable overrides (head top-left corners); the others become repairs."""
    moved: dict[str, tuple[float, float]] = {}
    for pid, pos in (overrides or {}).items():
        if pid not in xs or not isinstance(pos, dict):
            model.repairs.append(
                {
                    "path": f"overrides.{pid}",
                    "action": "ignored",
                    "message": "override of an unknown node ignored",
                }
            )
            continue
        try:
            ox, oy = float(pos["x"]), float(pos["y"])
        except (KeyError, TypeError, ValueError):
            model.repairs.append(
                {
                    "path": f"overrides.{pid}",
                    "action": "ignored",
                    "message": "override needs numeric x and y",
                }
            )
            continue
        moved[pid] = (ox, oy)
    return moved


@attrs.frozen
class _Shift:
    """The offset from body coordinates to the drawing's, applied as values are written out."""

    dx: float
    dy: float

    def box(self, x: float, y: float, w: float, h: float) -> dict[str, float]:
        return {"x": _r(x + self.dx), "y": _r(y + self.dy), "w": _r(w), "h": _r(h)}

    def pt(self, x: float, y: float) -> list[float]:
        return [_r(x + self.dx), _r(y + self.dy)]


@attrs.frozen
class _Placed:
    """The body laid out over its final lifeline x, with its shift and horizontal extent."""

    body: _Body
    xs: dict[str, float]
    shift: _Shift
    left: float
    right: float


def _place(
    seq: dict[str, Any],
    cast: _Cast,
    xs: dict[str, float],
    moved: dict[str, tuple[float, float]],
    top: float,
) -> _Placed:
    """Lay the body out over the computed columns and, when heads are moved, once more
    over the moved lifelines, keeping the first layout's offset and extent."""
    boxes = cast.boxes
    band = BOX_BAND if any(b.get("label") for b in boxes) else (10.0 if boxes else 0.0)
    first = _Body(_Columns(seq, cast.order, xs, cast.heads, cast.texts), cast.people, boxes, band)
    dx = MARGIN - first.left
    body = first
    if moved:
        # An override is the head's final top-left corner: the body keeps the
        # offset of the layout without overrides, so moving one head moves
        # nothing else.
        xs = dict(xs)
        for pid, (ox, _oy) in moved.items():
            xs[pid] = ox - dx + cast.heads[pid][0] / 2
        body = _Body(
            _Columns(seq, cast.order, xs, cast.heads, cast.texts), cast.people, boxes, band
        )
    return _Placed(body, xs, _Shift(dx, MARGIN + top), first.left, max(body.right, first.right))


@attrs.frozen
class _Heads:
    """The top heads (the geometry's nodes), the lifelines and the bottom heads."""

    nodes: dict[str, dict[str, float]]
    lifelines: list[dict[str, Any]]
    mirrors: dict[str, dict[str, float]]


def _lifelines(cast: _Cast, placed: _Placed, moved: dict[str, tuple[float, float]]) -> _Heads:
    body, shift = placed.body, placed.shift
    rows = body.rows
    nodes: dict[str, dict[str, float]] = {}
    lifelines: list[dict[str, Any]] = []
    mirrors: dict[str, dict[str, float]] = {}
    for pid in cast.order:
        w, h = cast.heads[pid]
        x = placed.xs[pid] - w / 2
        # A created participant's head sits on its creating message.
        if pid in rows.created_at:
            y = rows.created_at[pid] - h / 2
        else:
            y = body.head_top + body.top_h - h
        if pid in moved:
            # The override is the head's final top-left corner.
            ox, oy = moved[pid]
            nodes[pid] = {"x": _r(ox), "y": _r(oy), "w": _r(w), "h": _r(h)}
            y = oy - shift.dy
        else:
            nodes[pid] = shift.box(x, y, w, h)
        gone = pid in rows.destroyed_at
        end = rows.destroyed_at.get(pid, body.mirror_y)
        if gone:
            # The bottom head is centred on the destroying message; the lifeline stops there.
            end -= h / 2
        line = {
            "id": pid,
            "x": _r(placed.xs[pid] + shift.dx),
            "y0": _r(y + h + shift.dy),
            "y1": _r(end + shift.dy),
        }
        if gone:
            line["destroyed"] = True
        mirrors[pid] = shift.box(x, end, w, h)
        lifelines.append(line)
    return _Heads(nodes, lifelines, mirrors)


def _messages(
    model: Model, seq: dict[str, Any], texts: list[str], placed: _Placed
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Each laid-out message as a geometry edge and as its ``geo.sequence`` record."""
    arrows, shift = placed.body.rows.arrows, placed.shift
    edges = []
    shown = []
    for k, m in enumerate(seq["messages"]):
        a = arrows.get(k)
        if a is None:
            continue
        e = model.edges[k] if k < len(model.edges) else {}
        edges.append(_message_edge(k, m, e, a, texts[k], shift))
        shown.append(_message_record(k, m, a, shift))
    return edges, shown


def _message_edge(
    k: int, m: dict[str, Any], e: dict[str, Any], a: dict[str, Any], text: str, shift: _Shift
) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "from": m["from"],
        "to": m["to"],
        "index": e.get("index", k),
        "style": e.get("style", "solid"),
        "points": [shift.pt(p[0], p[1]) for p in a["points"]],
    }
    if a["self"]:
        entry["loop"] = True
    if a["label"]:
        lx, ly, lw, lh = a["label"]
        entry["label"] = {**shift.box(lx, ly, lw, lh), "text": text}
    return entry


def _message_record(k: int, m: dict[str, Any], a: dict[str, Any], shift: _Shift) -> dict[str, Any]:
    """What only a sequence message has: its line and head kinds, its number's place."""
    shown: dict[str, Any] = {
        "index": k,
        "line": m.get("line", "solid"),
        "start": m.get("start", "none"),
        "end": m.get("end", "arrow"),
    }
    if m.get("central"):
        shown["central"] = m["central"]
    if "number" in m:
        p0 = a["points"][0]
        shown["number"] = {**dict(zip(("x", "y"), shift.pt(p0[0], p0[1]), strict=True))}
        shown["number"]["text"] = _number(m["number"])
    return shown


def _drawn_parts(body: _Body, shift: _Shift) -> dict[str, list[dict[str, Any]]]:
    """Activation bars, notes, block frames and participant boxes in drawing coordinates."""
    box = shift.box
    return {
        "activations": [
            box(b["x"], b["y"], b["w"], b["h"]) | {"actor": b["actor"]} for b in body.rows.bars
        ],
        "notes": [
            box(n["x"], n["y"], n["w"], n["h"]) | {"text": n["text"], "placement": n["placement"]}
            for n in body.rows.notes
        ],
        "frames": [_frame_out(f, shift) for f in body.frames],
        "boxes": [
            box(b["x"], b["y"], b["w"], b["h"]) | {k: b[k] for k in b if k in ("label", "color")}
            for b in body.boxes
        ],
    }


def _frame_out(f: dict[str, Any], shift: _Shift) -> dict[str, Any]:
    """A block frame in drawing coordinates, its branch dividers shifted with it."""
    dividers = [
        {"y": _r(d["y"] + shift.dy), "label": d["label"]}
        | ({"x": _r(d["x"] + shift.dx)} if "x" in d else {})
        for d in f["dividers"]
    ]
    return (
        shift.box(f["x"], f["y"], f["w"], f["h"])
        | {k: v for k, v in f.items() if k not in ("x", "y", "w", "h", "dividers")}
        | {"dividers": dividers}
    )


def _body_size(
    placed: _Placed, nodes: dict[str, dict[str, float]], top: float
) -> tuple[float, float]:
    """The body's extent with its margins, grown over any head an override moved out."""
    body_w = placed.right - placed.left + 2 * MARGIN
    body_h = placed.body.height + 2 * MARGIN
    for b in nodes.values():
        body_w = max(body_w, b["x"] + b["w"] + MARGIN)
        body_h = max(body_h, b["y"] - top + b["h"] + MARGIN)
    return body_w, body_h


class _Body:
    """Rows, frames and participant boxes for given lifeline positions, with their extent."""

    def __init__(
        self,
        cols: _Columns,
        people: dict[str, dict[str, Any]],
        boxes: list[dict[str, Any]],
        band: float,
    ) -> None:
        seq, order, xs, heads = cols.seq, cols.order, cols.xs, cols.heads
        self.head_top = band
        self.top_h = max((heads[p][1] for p in order if "created" not in people[p]), default=40.0)
        rows = _Rows(cols, self.head_top + self.top_h + 14)
        rows.run()
        self.rows = rows
        bottom = rows.y
        left = min(xs[p] - heads[p][0] / 2 for p in order)
        right = max(xs[p] + heads[p][0] / 2 for p in order)
        self.frames: list[dict[str, Any]] = []
        for b, fr in sorted(rows.frames.items()):
            ext = rows.extent.get(b) or [min(xs.values()), max(xs.values())]
            out, lo, hi = _block_frame(b, seq["blocks"][b], fr, ext, bottom)
            hi = _place_branch_labels(out, rows.bars)
            self.frames.append(out)
            left, right = min(left, lo), max(right, hi)
        left, right = _rows_reach(rows, left, right)
        self.mirror_y = bottom + 10
        bottom_h = max((heads[p][1] for p in order if "destroyed" not in people[p]), default=0.0)
        height = self.mirror_y + bottom_h
        self.boxes: list[dict[str, Any]] = []
        for i, b in enumerate(boxes):
            members = [p for p in order if people[p].get("box") == i]
            if not members:
                continue
            rect, x0, x1 = _box_rect(b, members, xs, heads, height)
            self.boxes.append(rect)
            left, right = min(left, x0), max(right, x1)
        if self.boxes:
            height += 6
        self.left, self.right, self.height = left, right, height


def _block_frame(
    b: int, block: dict[str, Any], fr: dict[str, Any], ext: list[float], bottom: float
) -> tuple[dict[str, Any], float, float]:
    """A block's frame around its rows and content, wide enough for its tab and
    branch labels; with its left and right edge."""
    lo, hi = ext[0] - FRAME_PAD, ext[1] + FRAME_PAD
    word = _block_word(block)
    tab_w = text_width(word, FRAME_FONT, "sans-bold") + 18 if word else 0.0
    cond = f"[{block['label']}]" if block.get("label") and word else ""
    need = tab_w + (text_width(cond, FRAME_FONT) + 16 if cond else 0.0)
    for d in fr["dividers"]:
        need = max(need, text_width(_branch_label(block, d["branch"]), FRAME_FONT) + 24)
    hi = max(hi, lo + need)
    out: dict[str, Any] = {
        "block": b,
        "type": block["type"],
        "x": lo,
        "y": fr["top"],
        "w": hi - lo,
        "h": fr.get("bottom", bottom) - fr["top"],
        "depth": fr["depth"],
    }
    if word:
        out["tab"] = {"text": word, "w": _r(tab_w), "h": TAB_H}
    if cond:
        out["label"] = cond
    if block["type"] == "rect" and block.get("label"):
        out["color"] = block["label"]
    out["dividers"] = [
        {"y": d["y"], "label": _branch_label(block, d["branch"])} for d in fr["dividers"]
    ]
    return out, lo, hi


def _branch_label(block: dict[str, Any], branch: int) -> str:
    """The bracketed condition of a branch; an unlabelled ``and``/``else`` shows nothing."""
    text = str(block["branches"][branch].get("label") or "").strip()
    return f"[{text}]" if text else ""


def _place_branch_labels(frame: dict[str, Any], bars: list[dict[str, Any]]) -> float:
    """Give each divider label the centre ``x`` nearest the frame's middle where it
    covers no activation bar (a condition drawn over a bar cannot be read), widening
    the frame to the right when no such place is inside it; return its right edge."""
    lo, hi = frame["x"], frame["x"] + frame["w"]
    for d in frame["dividers"]:
        if not d["label"]:
            continue
        half = text_width(d["label"], FRAME_FONT, "sans-bold") / 2 + 4
        y0, y1 = d["y"], d["y"] + TAB_H
        blocked = sorted(
            (b["x"], b["x"] + b["w"])
            for b in bars
            if b["y"] < y1 and b["y"] + b["h"] > y0 and b["x"] < hi and b["x"] + b["w"] > lo
        )
        mid = (lo + hi) / 2
        if not any(a < mid + half and mid - half < b for a, b in blocked):
            continue
        # Candidate centres: just left and right of every bar, kept inside the frame.
        spots = [lo + half + 4, hi - half - 4]
        for a, b in blocked:
            spots += [a - half - 1, b + half + 1]
        clear = [
            c
            for c in spots
            if lo + half <= c <= hi - half
            and not any(a < c + half and c - half < b for a, b in blocked)
        ]
        if clear:
            d["x"] = min(clear, key=lambda c: abs(c - mid))
        else:
            d["x"] = max(b for _, b in blocked) + half + 1
            hi = max(hi, d["x"] + half + 4)
    frame["w"] = hi - lo
    return hi


def _rows_reach(rows: _Rows, left: float, right: float) -> tuple[float, float]:
    """Widen [left, right] over the notes, arrows and message labels."""
    for note in rows.notes:
        left, right = min(left, note["x"]), max(right, note["x"] + note["w"])
    for a in rows.arrows.values():
        for p in a["points"]:
            right = max(right, p[0])
        if a["label"]:
            left = min(left, a["label"][0])
            right = max(right, a["label"][0] + a["label"][2])
    return left, right


def _box_rect(
    b: dict[str, Any],
    members: list[str],
    xs: dict[str, float],
    heads: dict[str, tuple[float, float]],
    height: float,
) -> tuple[dict[str, Any], float, float]:
    """A participant box around its members' heads, full height; with its left and right edge."""
    x0 = min(xs[p] - heads[p][0] / 2 for p in members) - 10
    x1 = max(xs[p] + heads[p][0] / 2 for p in members) + 10
    rect: dict[str, Any] = {"x": x0, "y": 0.0, "w": x1 - x0, "h": height + 6}
    rect["label"] = str(b.get("label") or "")
    if b.get("color"):
        rect["color"] = b["color"]
    return rect, x0, x1


def _block_word(block: dict[str, Any]) -> str:
    kind = str(block.get("type") or "")
    if kind == "rect":
        return ""
    return "par" if kind == "par_over" else kind


def _number(value: Any) -> str:
    try:
        f = float(value)
    except (TypeError, ValueError):
        return str(value)
    return str(int(f)) if f == int(f) else f"{f:g}"
