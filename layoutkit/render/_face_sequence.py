"""A sequence diagram drawn from ``geo.sequence`` (see :mod:`layoutkit.diagram.sequence_layout`).

Drawn back to front: participant boxes, coloured ``rect`` blocks, lifelines,
activation bars, block frames with their keyword tab and branch dividers,
message arrows with their labels and numbers, notes, then the participant
heads at the top and again at the bottom (actors as stick figures). The
arrowheads follow Mermaid's: a filled triangle, none, a cross, an open
chevron for async messages, and half heads (filled or a single stroke) on
the upper or lower side of the line.
"""

from __future__ import annotations

import colorsys
import math
import re
from collections.abc import Callable
from typing import Any, Protocol

import attrs
from PIL import ImageColor

from layoutkit.formatting import as_number
from layoutkit.layout.text import line_height
from layoutkit.render._palette import CARD, FG, MUTED
from layoutkit.render._scene import Box, Ellipse, Item, Path, Text, arrowhead, text_run
from layoutkit.render._shapes import shape_items

INK = "#3d4660"
LIFELINE = "#9aa3b2"
HEAD_FILL = "#eef1fb"
HEAD_STROKE = "#5d6a92"
NOTE_FILL = "#fff6c2"
NOTE_STROKE = "#c9b64a"
BAR_FILL = "#f3f4f7"
FRAME_STROKE = "#5f6878"
TAB_FILL = "#e9ecf3"
DOTTED = (4.0, 3.0)
_FIGURES = ("actor", "boundary", "control", "entity")


class _Mapping(Protocol):
    k: float

    def pt(self, x: float, y: float) -> tuple[float, float]: ...

    def rect(self, r: tuple[float, float, float, float]) -> tuple[float, float, float, float]: ...


def mirrors_of(seq: dict) -> dict:
    return seq.get("mirrors") if isinstance(seq.get("mirrors"), dict) else {}


def _rect(b: Any) -> tuple[float, float, float, float] | None:
    if not isinstance(b, dict):
        return None
    vals = [as_number(b.get(key)) for key in ("x", "y", "w", "h")]
    if any(v is None for v in vals):
        return None
    return vals[0], vals[1], vals[2], vals[3]  # type: ignore[return-value]


def css_colour(text: str) -> tuple[str, float] | None:
    """A CSS colour as Mermaid's ``rect`` and ``box`` take it: (#rrggbb, opacity), or None."""
    s = str(text or "").strip().lower()
    m = re.match(r"^(rgba?|hsla?)\s*\(([^)]*)\)$", s)
    if m:
        parts = [p for p in re.split(r"[\s,/]+", m.group(2)) if p]
        try:
            nums = [float(p.rstrip("%")) for p in parts]
        except ValueError:
            return None
        if len(nums) < 3:
            return None
        alpha = nums[3] if len(nums) > 3 else 1.0
        if len(parts) > 3 and parts[3].endswith("%"):
            alpha /= 100
        if m.group(1).startswith("rgb"):
            r, g, b = (max(0, min(255, round(v))) for v in nums[:3])
        else:
            rf, gf, bf = colorsys.hls_to_rgb(nums[0] / 360 % 1, nums[2] / 100, nums[1] / 100)
            r, g, b = round(rf * 255), round(gf * 255), round(bf * 255)
        return f"#{r:02x}{g:02x}{b:02x}", max(0.0, min(1.0, alpha))
    if s == "transparent":
        return None
    try:
        rgb = ImageColor.getrgb(s)
    except ValueError:
        return None
    alpha = rgb[3] / 255 if len(rgb) > 3 else 1.0
    return "#{:02x}{:02x}{:02x}".format(*rgb[:3]), alpha


def _head(kind: str, title: str, rect: tuple[float, float, float, float], k: float) -> list[Item]:
    x, y, w, h = rect
    sw = max(1.2 * k, 0.5)
    size = 14 * k
    items: list[Item] = []
    if kind in _FIGURES:
        cx = x + w / 2
        fig = 38 * k
        if kind == "actor":
            r = 6 * k
            items.append(Ellipse(cx - r, y + 2 * k, 2 * r, 2 * r, CARD, HEAD_STROKE, sw))
            neck, hip = y + 2 * k + 2 * r, y + 24 * k
            items.append(Path(((cx, neck), (cx, hip)), stroke=HEAD_STROKE, width=sw))
            arms = neck + 5 * k
            items.append(
                Path(((cx - 10 * k, arms), (cx + 10 * k, arms)), stroke=HEAD_STROKE, width=sw)
            )
            items.append(
                Path(
                    ((cx - 9 * k, y + fig - 2 * k), (cx, hip), (cx + 9 * k, y + fig - 2 * k)),
                    stroke=HEAD_STROKE,
                    width=sw,
                )
            )
        else:
            r = 14 * k
            cy = y + 2 * k + r
            items.append(Ellipse(cx - r, cy - r, 2 * r, 2 * r, HEAD_FILL, HEAD_STROKE, sw))
            if kind == "boundary":
                items.append(
                    Path(
                        ((cx - r - 8 * k, cy - r), (cx - r - 8 * k, cy + r)),
                        stroke=HEAD_STROKE,
                        width=sw,
                    )
                )
                items.append(
                    Path(((cx - r - 8 * k, cy), (cx - r, cy)), stroke=HEAD_STROKE, width=sw)
                )
            elif kind == "control":
                items.append(
                    arrowhead((cx + 6 * k, cy - r), (cx - 2 * k, cy - r), HEAD_STROKE, 7 * k)
                )
            else:
                items.append(
                    Path(
                        ((cx - r, cy + r + 2 * k), (cx + r, cy + r + 2 * k)),
                        stroke=HEAD_STROKE,
                        width=sw,
                    )
                )
        run = text_run(
            cx,
            y + fig + 4 * k,
            title,
            w + 0.5 * k,
            size=size,
            font="sans-bold",
            fill=FG,
            anchor="middle",
        )
        items.append(run)
        return items
    if kind == "database":
        items += shape_items("cylinder", x, y, w, h, HEAD_FILL, HEAD_STROKE, k)
    elif kind == "collections":
        d = 6 * k
        items.append(
            Box(x + d, y, w - d, h - d, fill=HEAD_FILL, stroke=HEAD_STROKE, width=sw, radius=3 * k)
        )
        items.append(
            Box(x, y + d, w - d, h - d, fill=HEAD_FILL, stroke=HEAD_STROKE, width=sw, radius=3 * k)
        )
        w, y, h = w - d, y + d, h - d
    elif kind == "queue":
        items.append(Box(x, y, w, h, fill=HEAD_FILL, stroke=HEAD_STROKE, width=sw, radius=h / 2))
        items.append(Ellipse(x + w - h * 0.6, y, h * 0.6, h, None, HEAD_STROKE, sw))
    else:
        items.append(Box(x, y, w, h, fill=HEAD_FILL, stroke=HEAD_STROKE, width=sw, radius=4 * k))
    cap = 7 * k if kind == "database" else 0.0
    run = text_run(
        x + w / 2,
        y,
        title,
        w - 16 * k + 0.5 * k,
        size=size,
        font="sans-bold",
        fill=FG,
        anchor="middle",
    )
    top = y + cap + (h - cap - run.height) / 2
    items.append(Text(run.x, top, run.lines, size, "sans-bold", FG, 0.0, "middle"))
    return items


def _tip(
    kind: str,
    tail: tuple[float, float],
    tip: tuple[float, float],
    k: float,
) -> list[Item]:
    """The arrowhead of one message end at ``tip``, the line coming from ``tail``."""
    size = 9 * k
    dx, dy = tip[0] - tail[0], tip[1] - tail[1]
    length = math.hypot(dx, dy) or 1.0
    ux, uy = dx / length, dy / length
    # "Top" is the side above a horizontal line whichever way the message runs.
    nx, ny = (uy, -ux) if ux >= 0 else (-uy, ux)
    if ny > 0:
        nx, ny = -nx, -ny
    back = (tip[0] - ux * size, tip[1] - uy * size)
    half = size * 0.5
    sw = 1.4 * k
    if kind == "arrow":
        return [arrowhead(tail, tip, INK, size)]
    if kind == "cross":
        d = 4.5 * k
        cx, cy = tip[0] - ux * d, tip[1] - uy * d
        return [
            Path(((cx - d, cy - d), (cx + d, cy + d)), stroke=INK, width=sw),
            Path(((cx - d, cy + d), (cx + d, cy - d)), stroke=INK, width=sw),
        ]
    if kind == "async":
        a = (back[0] + nx * half, back[1] + ny * half)
        b = (back[0] - nx * half, back[1] - ny * half)
        return [Path((a, tip, b), stroke=INK, width=sw)]
    if kind in ("half-top", "half-bottom", "stick-top", "stick-bottom"):
        sgn = 1.0 if kind.endswith("top") else -1.0
        wing = (back[0] + sgn * nx * half, back[1] + sgn * ny * half)
        if kind.startswith("half"):
            return [Path((tip, wing, back), stroke=None, width=0, closed=True, fill=INK)]
        return [Path((tip, wing), stroke=INK, width=sw)]
    return []


@attrs.frozen
class _Drawing:
    """What every layer of a sequence diagram reads: the geo, its ``sequence``
    part, the participants' titles and the mapping into the scene."""

    geo: dict[str, Any]
    seq: dict[str, Any]
    titles: dict[str, str]
    frame: _Mapping

    @property
    def k(self) -> float:
        return self.frame.k

    def blocks(self) -> list[dict]:
        """The block frames (``loop``, ``alt``, ``rect``...) that have a box."""
        return [f for f in self.seq.get("frames") or [] if _rect(f) is not None]


def sequence_items(geo: dict[str, Any], titles: dict[str, str], frame: _Mapping) -> list[Item]:
    """Everything of a laid-out sequence diagram, mapped through ``frame``."""
    seq = geo.get("sequence") if isinstance(geo.get("sequence"), dict) else {}
    d = _Drawing(geo, seq, titles, frame)
    items: list[Item] = []
    for layer in _LAYERS:
        items += layer(d)
    return items


def _group_boxes(d: _Drawing) -> list[Item]:
    """The ``box`` groups of participants, tinted, with their label at the top."""
    k = d.k
    items: list[Item] = []
    for b in d.seq.get("boxes") or []:
        r = _rect(b)
        if r is None:
            continue
        x, y, w, h = d.frame.rect(r)
        colour = css_colour(str(b.get("color") or ""))
        fill, alpha = colour if colour else ("#f6f7fa", 1.0)
        items.append(
            Box(x, y, w, h, fill=fill, stroke="#c3c9d6", width=0.8 * k, radius=4 * k, opacity=alpha)
        )
        if b.get("label"):
            run = text_run(
                x + w / 2,
                y + 5 * k,
                str(b["label"]),
                w - 12 * k,
                size=12 * k,
                font="sans-bold",
                fill=MUTED,
                max_lines=1,
                anchor="middle",
            )
            items.append(run)
    return items


def _rect_blocks(d: _Drawing) -> list[Item]:
    """Mermaid's coloured ``rect`` blocks: a wash behind the lifelines, no frame."""
    items: list[Item] = []
    for f in d.blocks():
        if f.get("type") != "rect":
            continue
        x, y, w, h = d.frame.rect(_rect(f))  # type: ignore[arg-type]
        colour = css_colour(str(f.get("color") or "")) or ("#e8eefc", 1.0)
        items.append(Box(x, y, w, h, fill=colour[0], stroke=None, opacity=colour[1]))
    return items


def _lifelines(d: _Drawing) -> list[Item]:
    k = d.k
    items: list[Item] = []
    for line in d.seq.get("lifelines") or []:
        lx, y0, y1 = (as_number(line.get(key)) for key in ("x", "y0", "y1"))
        if lx is None or y0 is None or y1 is None:
            continue
        items.append(Path((d.frame.pt(lx, y0), d.frame.pt(lx, y1)), stroke=LIFELINE, width=1.0 * k))
        if line.get("destroyed") and str(line.get("id")) not in mirrors_of(d.seq):
            # Older drawings have no bottom head at the destroy point: mark the end.
            items += _cross(d.frame.pt(lx, y1), 7 * k, 1.8 * k)
    return items


def _cross(at: tuple[float, float], d: float, width: float) -> list[Item]:
    cx, cy = at
    return [
        Path(((cx - d, cy - d), (cx + d, cy + d)), stroke=INK, width=width),
        Path(((cx - d, cy + d), (cx + d, cy - d)), stroke=INK, width=width),
    ]


def _activations(d: _Drawing) -> list[Item]:
    items: list[Item] = []
    for bar in d.seq.get("activations") or []:
        r = _rect(bar)
        if r is not None:
            x, y, w, h = d.frame.rect(r)
            items.append(Box(x, y, w, h, fill=BAR_FILL, stroke=HEAD_STROKE, width=1.0 * d.k))
    return items


def _block_frames(d: _Drawing) -> list[Item]:
    """``loop``, ``alt``, ``opt``... blocks: a frame, its keyword tab and branch dividers."""
    items: list[Item] = []
    for f in d.blocks():
        if f.get("type") == "rect":
            continue
        x, y, w, h = d.frame.rect(_rect(f))  # type: ignore[arg-type]
        items.append(Box(x, y, w, h, fill=None, stroke=FRAME_STROKE, width=1.0 * d.k))
        tab = f.get("tab") if isinstance(f.get("tab"), dict) else None
        if tab:
            items += _block_tab(f, tab, x, y, d.k)
        for divider in f.get("dividers") or []:
            items += _block_divider(divider, x, w, d)
    return items


def _block_tab(f: dict, tab: dict, x: float, y: float, k: float) -> list[Item]:
    """The keyword in a tab with a cut corner at the frame's top left, the condition beside it."""
    fs = 11 * k
    tw = (as_number(tab.get("w")) or 40.0) * k
    th = (as_number(tab.get("h")) or 20.0) * k
    cut = 6 * k
    ty = y + (th - line_height(fs)) / 2
    pts = ((x, y), (x + tw, y), (x + tw, y + th - cut), (x + tw - cut, y + th), (x, y + th))
    items: list[Item] = [
        Path(pts, stroke=FRAME_STROKE, width=1.0 * k, closed=True, fill=TAB_FILL),
        Text(
            x + tw / 2 - 3 * k,
            ty,
            (str(tab.get("text") or ""),),
            fs,
            "sans-bold",
            FG,
            0.0,
            "middle",
        ),
    ]
    if f.get("label"):
        items.append(Text(x + tw + 8 * k, ty, (str(f["label"]),), fs, "sans-bold", INK))
    return items


def _block_divider(divider: dict, x: float, w: float, d: _Drawing) -> list[Item]:
    """A dashed line between two branches (``else``, ``and``), its condition under it."""
    dy = as_number(divider.get("y"))
    if dy is None:
        return []
    k = d.k
    _, py = d.frame.pt(0, dy)
    items: list[Item] = [
        Path(((x, py), (x + w, py)), stroke=FRAME_STROKE, width=1.0 * k, dash=(5 * k, 3 * k))
    ]
    if divider.get("label"):
        fs = 11 * k
        label = (str(divider["label"]),)
        # The layout moves a label off the activation bars it would cover.
        dx = as_number(divider.get("x"))
        lx = d.frame.pt(dx, 0)[0] if dx is not None else x + w / 2
        items.append(Text(lx, py + 3 * k, label, fs, "sans-bold", INK, 0.0, "middle"))
    return items


def _messages(d: _Drawing) -> list[Item]:
    """Each routed message: its line and ends, its label and its autonumber."""
    shown = {m.get("index"): m for m in d.seq.get("messages") or [] if isinstance(m, dict)}
    items: list[Item] = []
    for e in d.geo.get("edges") or []:
        if not isinstance(e, dict):
            continue
        pts = [d.frame.pt(float(p[0]), float(p[1])) for p in e.get("points") or []]
        if len(pts) < 2:
            continue
        m = shown.get(e.get("index"), {})
        items += _message_line(m, pts, d.k)
        items += _message_label(e, d)
        num = m.get("number") if isinstance(m.get("number"), dict) else None
        if num:
            items += _message_number(num, d)
    return items


def _message_line(m: dict, pts: list[tuple[float, float]], k: float) -> list[Item]:
    """The line, the heads at both ends and the circles of a ``central`` connection."""
    dotted = m.get("line") == "dotted"
    items: list[Item] = [
        Path(
            tuple(pts),
            stroke=INK,
            width=1.4 * k,
            dash=tuple(v * k for v in DOTTED) if dotted else None,
        )
    ]
    items += _tip(str(m.get("end", "arrow")), pts[-2], pts[-1], k)
    items += _tip(str(m.get("start", "none")), pts[1], pts[0], k)
    central = m.get("central")
    for end, (px, py) in (("start", pts[0]), ("end", pts[-1])):
        if central in (end, "both"):
            r = 4 * k
            items.append(Ellipse(px - r, py - r, 2 * r, 2 * r, CARD, INK, 1.2 * k))
    return items


def _message_label(e: dict, d: _Drawing) -> list[Item]:
    label = e.get("label") if isinstance(e.get("label"), dict) else None
    box = _rect(label)
    if not (label and box and label.get("text")):
        return []
    k = d.k
    lx, ly, lw, lh = d.frame.rect(box)
    run = text_run(
        lx + lw / 2,
        ly,
        str(label["text"]),
        lw + 0.5 * k,
        size=12 * k,
        fill=FG,
        anchor="middle",
    )
    # A lifeline under the text would strike it through.
    return [Box(lx - 2 * k, ly, lw + 4 * k, lh, fill=CARD, opacity=0.85), run]


def _message_number(num: dict, d: _Drawing) -> list[Item]:
    """The autonumber in a dark pill at the message's start."""
    k = d.k
    nx, ny = d.frame.pt(as_number(num.get("x")) or 0.0, as_number(num.get("y")) or 0.0)
    text = str(num.get("text") or "")
    r = max(8.0, 3.5 + 3.4 * len(text)) * k
    fs = 10 * k
    return [
        Ellipse(nx - r, ny - 8 * k, 2 * r, 16 * k, INK, None, 0),
        Text(nx, ny - line_height(fs) / 2, (text,), fs, "sans-bold", CARD, 0.0, "middle"),
    ]


def _notes(d: _Drawing) -> list[Item]:
    k = d.k
    items: list[Item] = []
    for note in d.seq.get("notes") or []:
        r = _rect(note)
        if r is None:
            continue
        x, y, w, h = d.frame.rect(r)
        items.append(Box(x, y, w, h, fill=NOTE_FILL, stroke=NOTE_STROKE, width=1.0 * k))
        run = text_run(
            x + w / 2,
            y + 6 * k,
            str(note.get("text") or ""),
            w - 16 * k + 0.5 * k,
            size=12 * k,
            fill=FG,
            anchor="middle",
        )
        items.append(run)
    return items


def _heads(d: _Drawing) -> list[Item]:
    """Participant heads at the top, then their mirrors at the bottom."""
    kinds = d.seq.get("kinds") if isinstance(d.seq.get("kinds"), dict) else {}
    heads = d.geo.get("nodes") if isinstance(d.geo.get("nodes"), dict) else {}
    items: list[Item] = []
    for group in (heads, mirrors_of(d.seq)):
        for pid, b in group.items():
            r = _rect(b)
            if r is not None:
                kind = str(kinds.get(pid) or "participant")
                items += _head(kind, d.titles.get(pid, str(pid)), d.frame.rect(r), d.k)
    return items


# Back to front: each layer is drawn over the ones before it.
_LAYERS: tuple[Callable[[_Drawing], list[Item]], ...] = (
    _group_boxes,
    _rect_blocks,
    _lifelines,
    _activations,
    _block_frames,
    _messages,
    _notes,
    _heads,
)
