"""Simplified faces of document elements, for doc cards and element cards on boards.

A face keeps what identifies the element at a glance (titles, headline
numbers, bars, rows, states) and draws it in a column of a given width; the
caller passes a height budget and gets back the height used.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from layoutkit.layout.text import line_height, text_width
from layoutkit.render._audience import element_parts
from layoutkit.render._charts import compare_delta, delta_text
from layoutkit.render._face_text import markdown_face, plain_inline
from layoutkit.render._format import as_number, fmt_num, fmt_value, fmt_when
from layoutkit.render._palette import ACCENT, CARD, FG, LINE, MUTED, SOFT, tone
from layoutkit.render._scene import Box, Ellipse, Item, Path, Text, fit_line, text_run

Face = Callable[[dict, float, float, float, float], tuple[list[Item], float]]
SERIES = ("#1c6ae4", "#e8590c", "#2f9e44", "#ae3ec9", "#1098ad", "#f08c00", "#868e96", "#d6336c")


def _title(text: Any, x: float, y: float, w: float, size: float = 13.0) -> tuple[list[Item], float]:
    if not text:
        return [], 0.0
    return [
        Text(x, y, (fit_line(str(text), w, size, "sans-bold"),), size, "sans-bold", FG)
    ], line_height(size) + 2


def _lines(
    texts: list[str],
    x: float,
    y: float,
    w: float,
    budget: float,
    size: float = 12.0,
    fill: str = FG,
) -> tuple[list[Item], float]:
    items: list[Item] = []
    cy = y
    for text in texts:
        if cy + line_height(size) > y + budget:
            break
        items.append(Text(x, cy, (fit_line(text, w, size),), size, "sans", fill))
        cy += line_height(size)
    return items, cy - y


def _prose(p: dict, x: float, y: float, w: float, budget: float) -> tuple[list[Item], float]:
    return markdown_face(str(p.get("md") or p.get("text") or ""), x, y, w, budget, size=12.0)


def _chart(p: dict, x: float, y: float, w: float, budget: float) -> tuple[list[Item], float]:
    items, cy = _title(p.get("title"), x, y, w)
    data = p.get("data") if isinstance(p.get("data"), dict) else {}
    area_h = min(90.0, budget - cy)
    if area_h < 20:
        return items, cy
    top = y + cy
    viz = p.get("viz")
    if viz == "compare":
        rows = [i for i in data.get("items") or [] if isinstance(i, dict)]
        peak = (
            max(
                [abs(as_number(i.get(k)) or 0.0) for i in rows for k in ("before", "after")]
                or [1.0]
            )
            or 1.0
        )
        ry = top
        for item in rows:
            if ry + 30 > top + area_h:
                break
            before, after = (
                as_number(item.get("before")) or 0.0,
                as_number(item.get("after")) or 0.0,
            )
            d = compare_delta(before, after, data.get("better"))
            ink = tone(item.get("tone") if item.get("tone") else d["tone"])[0]
            items.append(
                Text(x, ry, (fit_line(str(item.get("label") or ""), w * 0.3, 11),), 11, "sans", FG)
            )
            bw = w * 0.4
            items.append(Box(x + w * 0.32, ry + 2, max(before / peak * bw, 1), 6, fill="#adb5bd"))
            items.append(Box(x + w * 0.32, ry + 10, max(after / peak * bw, 1), 6, fill=ACCENT))
            items.append(
                Text(
                    x + w,
                    ry,
                    (fit_line(delta_text(d["pct"], d["ratio"]), w * 0.26, 10, "sans-bold"),),
                    10,
                    "sans-bold",
                    ink,
                    0.0,
                    "end",
                )
            )
            ry += 22
        return items, ry - y
    if data.get("series"):
        series = [s for s in data["series"] if isinstance(s, dict)]
        pts_all = []
        for s in series:
            raw = s.get("points") if s.get("points") is not None else s.get("values")
            pts = []
            for i, pt in enumerate(raw or []):
                if isinstance(pt, (list, tuple)) and len(pt) >= 2:
                    px, py = as_number(pt[0]), as_number(pt[1])
                else:
                    px, py = float(i), as_number(pt)
                if px is not None and py is not None:
                    pts.append((px, py))
            pts_all.append(pts)
        flat = [p for pts in pts_all for p in pts]
        if flat:
            x0, x1 = min(p[0] for p in flat), max(p[0] for p in flat)
            y0, y1 = min(0.0, *(p[1] for p in flat)), max(p[1] for p in flat)
            sx = lambda v: x + (v - x0) / ((x1 - x0) or 1) * w  # noqa: E731
            sy = lambda v: top + area_h - (v - y0) / ((y1 - y0) or 1) * area_h  # noqa: E731
            items.append(Path(((x, top + area_h), (x + w, top + area_h)), stroke=LINE, width=1))
            for si, pts in enumerate(pts_all):
                color = SERIES[si % 8]
                if viz == "bars":
                    bw = w / max(len(pts), 1) * 0.7 / max(len(pts_all), 1)
                    for px, py in pts:
                        bx = sx(px) * 0.92 + x * 0.08 + si * bw
                        items.append(Box(bx, sy(py), bw, top + area_h - sy(py), fill=color))
                elif viz == "scatter":
                    items.extend(Ellipse(sx(px) - 2.5, sy(py) - 2.5, 5, 5, color) for px, py in pts)
                elif len(pts) >= 2:
                    items.append(
                        Path(tuple((sx(px), sy(py)) for px, py in pts), stroke=color, width=2)
                    )
        return items, cy + area_h + 4
    rows = [i for i in data.get("items") or [] if isinstance(i, dict)]
    if viz in ("pie", "donut") and rows:
        total = sum(max(as_number(i.get("value")) or 0.0, 0.0) for i in rows) or 1.0
        bx = x
        for i, item in enumerate(rows):
            seg = max(as_number(item.get("value")) or 0.0, 0.0) / total * w
            items.append(
                Box(
                    bx,
                    top,
                    seg,
                    14,
                    fill=tone(item["tone"])[0] if item.get("tone") else SERIES[i % 8],
                )
            )
            bx += seg
        legend = [
            f"{i.get('label') or ''} {fmt_value(i.get('value'), i.get('unit') or data.get('unit'))}"
            for i in rows
        ]
        more, used = _lines(legend, x, top + 20, w, area_h - 20, 11, MUTED)
        return [*items, *more], cy + 20 + used
    if viz == "stat" and rows:
        item = rows[0]
        items.append(
            Text(
                x,
                top,
                (
                    fit_line(
                        str(item.get("display") or fmt_value(item.get("value"), item.get("unit"))),
                        w,
                        28,
                        "sans-bold",
                    ),
                ),
                28,
                "sans-bold",
                FG,
            )
        )
        items.append(
            Text(x, top + 40, (fit_line(str(item.get("label") or ""), w, 11),), 11, "sans", MUTED)
        )
        return items, cy + 58
    if viz == "heatmap":
        grid = (
            data.get("values")
            or ((data.get("calendar") or {}).get("values") and [data["calendar"]["values"]])
            or []
        )
        rows_v = [r for r in grid if isinstance(r, list)]
        flat_v = [as_number(v) or 0.0 for r in rows_v for v in r]
        hi = max(flat_v or [1.0]) or 1.0
        cell = min(12.0, w / max(max((len(r) for r in rows_v), default=1), 1))
        for ri, row in enumerate(rows_v[:8]):
            for ci, v in enumerate(row[: int(w // cell)]):
                alpha = int(40 + 215 * ((as_number(v) or 0.0) / hi))
                items.append(
                    Box(
                        x + ci * cell,
                        top + ri * cell,
                        cell - 1,
                        cell - 1,
                        fill=f"#1c6ae4{alpha:02x}",
                    )
                )
        return items, cy + min(len(rows_v), 8) * cell + 4
    peak = max([abs(as_number(i.get("value")) or 0.0) for i in rows] or [1.0]) or 1.0
    ry = top
    for i, item in enumerate(rows):
        if ry + 16 > top + area_h:
            break
        value = as_number(item.get("value"))
        items.append(
            Text(
                x,
                ry,
                (fit_line(str(item.get("label") or item.get("when") or ""), w * 0.35, 11),),
                11,
                "sans",
                FG,
            )
        )
        if value is not None:
            color = (
                tone(item["tone"])[0] if item.get("tone") else SERIES[0 if viz != "flow" else i % 8]
            )
            items.append(
                Box(
                    x + w * 0.37,
                    ry + 3,
                    max(abs(value) / peak * w * 0.45, 1),
                    10,
                    fill=color,
                    radius=2,
                )
            )
        shown = item.get("display") or fmt_value(
            item.get("value"), item.get("unit") or data.get("unit")
        )
        items.append(
            Text(x + w, ry, (fit_line(str(shown), w * 0.17, 10),), 10, "sans", MUTED, 0.0, "end")
        )
        ry += 16
    return items, ry - y + 4


def _stat(p: dict, x: float, y: float, w: float, budget: float) -> tuple[list[Item], float]:
    items, cy = _title(p.get("title"), x, y, w)
    stats = [i for i in p.get("items") or [] if isinstance(i, dict)][:6]
    if not stats:
        return items, cy
    cw = w / len(stats)
    for i, stat in enumerate(stats):
        sx = x + i * cw
        raw = stat.get("value")
        value = stat.get("display") or (raw if isinstance(raw, str) else fmt_num(raw))
        if stat.get("unit") and not stat.get("display"):
            value = f"{value} {stat['unit']}"
        items.append(Box(sx, y + cy, cw - 4, 52, fill=SOFT, radius=6))
        items.append(
            Text(
                sx + 6,
                y + cy + 4,
                (fit_line(str(value), cw - 14, 17, "sans-bold"),),
                17,
                "sans-bold",
                tone(stat["tone"])[0] if stat.get("tone") else FG,
            )
        )
        items.append(
            Text(
                sx + 6,
                y + cy + 30,
                (fit_line(str(stat.get("label") or ""), cw - 14, 10),),
                10,
                "sans",
                MUTED,
            )
        )
    return items, cy + 58


def _meter(p: dict, x: float, y: float, w: float, budget: float) -> tuple[list[Item], float]:
    items, cy = _title(p.get("title"), x, y, w)
    for item in p.get("items") or []:
        if not isinstance(item, dict) or cy + 30 > budget:
            continue
        value, top = as_number(item.get("value")) or 0.0, as_number(item.get("max")) or 1.0
        items.append(
            Text(x, y + cy, (fit_line(str(item.get("label") or ""), w * 0.6, 11),), 11, "sans", FG)
        )
        items.append(
            Text(
                x + w,
                y + cy,
                (f"{fmt_value(value, item.get('unit'))} / {fmt_value(top, item.get('unit'))}",),
                11,
                "sans",
                MUTED,
                0.0,
                "end",
            )
        )
        items.append(Box(x, y + cy + 17, w, 7, fill=SOFT, radius=3))
        items.append(
            Box(
                x,
                y + cy + 17,
                max(min(value / top, 1.0), 0.0) * w,
                7,
                fill=tone(item["tone"])[0] if item.get("tone") else ACCENT,
                radius=3,
            )
        )
        threshold = as_number(item.get("threshold"))
        if threshold is not None:
            tx = x + max(min(threshold / top, 1.0), 0.0) * w
            items.append(Path(((tx, y + cy + 14), (tx, y + cy + 27)), stroke=FG, width=1.5))
        cy += 30
    return items, cy


def chip_row(
    pairs: list[tuple[str, str]], x: float, y: float, w: float
) -> tuple[list[Item], float]:
    items: list[Item] = []
    cx, cy = x, y
    for k, v in pairs:
        label = f"{k}  {v}".strip()
        cw = min(text_width(label, 10.5) + 14, w)
        if cx + cw > x + w and cx > x:
            cx, cy = x, cy + 22
        items.append(Box(cx, cy, cw, 18, fill=SOFT, stroke=LINE, width=0.8, radius=9))
        items.append(
            Text(
                cx + 7,
                cy + (18 - line_height(10.5)) / 2,
                (fit_line(label, cw - 12, 10.5),),
                10.5,
                "sans",
                FG,
            )
        )
        cx += cw + 5
    return items, (cy - y + 22) if pairs else 0.0


def _chips(p: dict, x: float, y: float, w: float, budget: float) -> tuple[list[Item], float]:
    pairs = [
        (str(i.get("k") or ""), str(i.get("v") or ""))
        for i in p.get("items") or []
        if isinstance(i, dict)
    ]
    return chip_row(pairs, x, y, w)


def _code(p: dict, x: float, y: float, w: float, budget: float) -> tuple[list[Item], float]:
    fence = "```\n" + str(p.get("source") or "") + "\n```"
    return markdown_face(fence, x, y, w, budget, size=12.0)


def _table(p: dict, x: float, y: float, w: float, budget: float) -> tuple[list[Item], float]:
    items, cy = _title(p.get("title"), x, y, w)
    cols = [c for c in p.get("cols") or [] if isinstance(c, dict) and c.get("key")][:6]
    if not cols:
        return items, cy
    cw = w / len(cols)
    row_h = line_height(11) + 3
    for i, col in enumerate(cols):
        items.append(
            Text(
                x + i * cw,
                y + cy,
                (fit_line(str(col.get("label") or col["key"]).upper(), cw - 6, 10, "sans-bold"),),
                10,
                "sans-bold",
                MUTED,
            )
        )
    cy += row_h
    items.append(Path(((x, y + cy - 2), (x + w, y + cy - 2)), stroke=LINE, width=1))
    for row in p.get("rows") or []:
        if cy + row_h > budget:
            break
        cells = (
            row.get("cells")
            if isinstance(row, dict) and isinstance(row.get("cells"), dict)
            else row
        )
        if not isinstance(cells, dict):
            continue
        for i, col in enumerate(cols):
            cell = cells.get(col["key"])
            value = cell.get("v") if isinstance(cell, dict) else cell
            ink = tone(cell["tone"])[0] if isinstance(cell, dict) and cell.get("tone") else FG
            if col.get("type") == "check" and value is not None:
                shown = "✓" if value else "✗"
            elif col.get("type") == "date":
                shown = fmt_when(value)
            else:
                shown = (
                    fmt_num(value)
                    if not isinstance(value, str) and value is not None
                    else plain_inline(value or "")
                )
            anchor = "end" if col.get("type") == "number" else "start"
            tx = x + (i + 1) * cw - 6 if anchor == "end" else x + i * cw
            items.append(
                Text(tx, y + cy, (fit_line(shown, cw - 6, 11),), 11, "sans", ink, 0.0, anchor)
            )
        cy += row_h
    return items, cy


def _timeline(p: dict, x: float, y: float, w: float, budget: float) -> tuple[list[Item], float]:
    items, cy = _title(p.get("title"), x, y, w)
    start = cy
    for item in p.get("items") or []:
        if not isinstance(item, dict) or cy + 20 > budget:
            continue
        items.append(Ellipse(x + 1, y + cy + 5, 8, 8, ACCENT))
        label = " · ".join(
            str(v) for v in (item.get("when"), item.get("title") or item.get("summary")) if v
        )
        items.append(Text(x + 16, y + cy, (fit_line(label, w - 16, 11.5),), 11.5, "sans", FG))
        cy += 20
    if cy > start:
        items.insert(0, Path(((x + 5, y + start + 6), (x + 5, y + cy - 8)), stroke=LINE, width=2))
    return items, cy


def _finding(p: dict, x: float, y: float, w: float, budget: float) -> tuple[list[Item], float]:
    sev = {"high": "bad", "medium": "warn", "low": "info"}.get(str(p.get("sev")), "gray")
    ink = tone(sev)[0]
    items: list[Item] = []
    head = " · ".join(str(v) for v in (p.get("sev"), p.get("tag"), p.get("status")) if v)
    cy = 4.0
    if head:
        items.append(
            Text(
                x + 10,
                y + cy,
                (fit_line(head.upper(), w - 12, 10, "sans-bold"),),
                10,
                "sans-bold",
                ink,
            )
        )
        cy += line_height(10)
    run = text_run(
        x + 10,
        y + cy,
        str(p.get("title") or p.get("summary") or "finding"),
        w - 12,
        size=12.5,
        font="sans-bold",
        max_lines=2,
    )
    items.append(run)
    cy += run.height
    if p.get("where"):
        items.append(
            Text(
                x + 10,
                y + cy,
                (fit_line(str(p["where"]), w - 12, 10.5, "mono"),),
                10.5,
                "mono",
                MUTED,
            )
        )
        cy += line_height(10.5)
    items.insert(0, Box(x, y, 4, cy + 4, fill=ink, radius=2))
    return items, cy + 6


def _verdict(p: dict, x: float, y: float, w: float, budget: float) -> tuple[list[Item], float]:
    ink, wash = tone(p.get("tone") or "info")
    run = text_run(
        x + 12,
        y + 8,
        str(p.get("state") or p.get("text") or ""),
        w - 20,
        size=13,
        font="sans-bold",
        fill=FG,
        max_lines=3,
    )
    h = run.height + 16
    return [Box(x, y, w, h, fill=wash, radius=6), Box(x, y, 4, h, fill=ink), run], h + 4


def _tile(title_key: str, meta: Callable[[dict], list[str]]) -> Face:
    def face(p: dict, x: float, y: float, w: float, budget: float) -> tuple[list[Item], float]:
        items: list[Item] = [Box(x, y, w, 46, fill=CARD, stroke=LINE, radius=6)]
        items.append(
            Text(
                x + 8,
                y + 5,
                (fit_line(str(p.get(title_key) or ""), w - 16, 12.5, "sans-bold"),),
                12.5,
                "sans-bold",
                FG,
            )
        )
        items.append(
            Text(
                x + 8,
                y + 25,
                (fit_line(" · ".join(m for m in meta(p) if m), w - 16, 10.5),),
                10.5,
                "sans",
                MUTED,
            )
        )
        done, total = as_number(p.get("done")), as_number(p.get("total"))
        pct = as_number(p.get("percent"))
        if pct is None and done is not None and total:
            pct = done / total * 100
        if pct is not None:
            items.append(Box(x + 8, y + 41, (w - 16), 3, fill=SOFT))
            items.append(
                Box(x + 8, y + 41, (w - 16) * max(min(pct, 100.0), 0.0) / 100, 3, fill=ACCENT)
            )
        return items, 52

    return face


def _container(key: str) -> Face:
    def face(p: dict, x: float, y: float, w: float, budget: float) -> tuple[list[Item], float]:
        items: list[Item] = []
        cy = 0.0
        if p.get("label"):
            items.append(
                Text(
                    x,
                    y,
                    (fit_line(str(p["label"]).upper(), w, 10, "sans-bold"),),
                    10,
                    "sans-bold",
                    ACCENT,
                )
            )
            cy += line_height(10)
        more, used = _title(p.get("title"), x, y + cy, w, 14)
        items += more
        cy += used
        sub, used = elements_face(p.get(key) or [], x, y + cy, w, budget - cy)
        return items + sub, cy + used

    return face


def _columns(p: dict, x: float, y: float, w: float, budget: float) -> tuple[list[Item], float]:
    cols = [c for c in p.get("cols") or [] if isinstance(c, dict)]
    if not cols:
        return [], 0.0
    cw = (w - 10 * (len(cols) - 1)) / len(cols)
    items: list[Item] = []
    tallest = 0.0
    for i, col in enumerate(cols):
        sub, used = elements_face(col.get("elements") or [], x + i * (cw + 10), y, cw, budget)
        items += sub
        tallest = max(tallest, used)
    return items, tallest


def _compare(p: dict, x: float, y: float, w: float, budget: float) -> tuple[list[Item], float]:
    items, cy = _title(p.get("title"), x, y, w)
    sides = [p.get("a") or {}, p.get("b") or {}]
    cw = (w - 10) / 2
    tallest = 0.0
    for i, side in enumerate(sides):
        if not isinstance(side, dict):
            continue
        sx = x + i * (cw + 10)
        sub, h = _title(side.get("label"), sx, y + cy, cw, 11)
        more, used = elements_face(side.get("elements") or [], sx, y + cy + h, cw, budget - cy - h)
        items += sub + more
        tallest = max(tallest, h + used)
    return items, cy + tallest


def _gallery(p: dict, x: float, y: float, w: float, budget: float) -> tuple[list[Item], float]:
    tiles = [i for i in p.get("items") or [] if isinstance(i, dict)][:6]
    cols = 3
    tw = (w - 6 * (cols - 1)) / cols
    th = tw * 10 / 16
    items: list[Item] = []
    for i, tile in enumerate(tiles):
        tx, ty = x + (i % cols) * (tw + 6), y + (i // cols) * (th + 6)
        if ty + th - y > budget:
            break
        items.append(Box(tx, ty, tw, th, fill=SOFT, stroke=LINE, radius=4))
        items.append(
            Text(
                tx + tw / 2,
                ty + th / 2 - 7,
                (fit_line(str(tile.get("alt") or tile.get("caption") or "image"), tw - 8, 10),),
                10,
                "sans",
                MUTED,
                0.0,
                "middle",
            )
        )
    rows = (len(tiles) + cols - 1) // cols
    return items, rows * (th + 6)


def _figure(p: dict, x: float, y: float, w: float, budget: float) -> tuple[list[Item], float]:
    h = min(w * 10 / 16, budget)
    items: list[Item] = [Box(x, y, w, h, fill=SOFT, stroke=LINE, radius=4)]
    items.append(
        Text(
            x + w / 2,
            y + h / 2 - 8,
            (fit_line(str(p.get("alt") or p.get("caption") or "figure"), w - 12, 11),),
            11,
            "sans",
            MUTED,
            0.0,
            "middle",
        )
    )
    return items, h + 4


def _list(p: dict, x: float, y: float, w: float, budget: float) -> tuple[list[Item], float]:
    mark = {"check": "✓ ", "number": ""}.get(str(p.get("style")), "• ")
    texts = [
        (f"{i + 1}. " if p.get("style") == "number" else mark) + str(t)
        for i, t in enumerate(p.get("items") or [])
    ]
    return _lines(texts, x, y, w, budget)


def _diagram(p: dict, x: float, y: float, w: float, budget: float) -> tuple[list[Item], float]:
    from layoutkit.render._face_diagram import diagram_scene_items

    return diagram_scene_items(p, x - 12, y - 12, w + 24, min(budget, w * 0.75))


def _generic(kind: str) -> Face:
    def face(p: dict, x: float, y: float, w: float, budget: float) -> tuple[list[Item], float]:
        label = p.get("title") or p.get("name") or p.get("state") or ""
        items: list[Item] = [Box(x, y, w, 26, fill=SOFT, radius=4)]
        items.append(
            Text(
                x + 8,
                y + 4,
                (fit_line(f"{kind}  {label}".strip(), w - 16, 11.5),),
                11.5,
                "sans",
                MUTED,
            )
        )
        return items, 30

    return face


ELEMENT_FACES: dict[str, Face] = {
    "prose": _prose,
    "page": _prose,
    "text": _prose,
    "chart": _chart,
    "stat": _stat,
    "meter": _meter,
    "chips": _chips,
    "code": _code,
    "table": _table,
    "timeline": _timeline,
    "finding": _finding,
    "verdict": _verdict,
    "list": _list,
    "figure": _figure,
    "gallery": _gallery,
    "columns": _columns,
    "compare": _compare,
    "section": _container("elements"),
    "doc": _container("elements"),
    "diagram": _diagram,
    "epic": _tile(
        "title",
        lambda p: [
            str(p.get("phase") or "planned"),
            str(p.get("mark") or ""),
            ", ".join(map(str, p.get("who") or [])),
        ],
    ),
    "goal": _tile("title", lambda p: [str(p.get("status") or "planned"), fmt_when(p.get("ends"))]),
    "milestone": _tile(
        "title",
        lambda p: [
            "reached " + fmt_when(p["reached"])
            if p.get("reached")
            else "due " + fmt_when(p.get("due"))
        ],
    ),
    "release": _tile(
        "title",
        lambda p: [
            str(p.get("status") or "cut"),
            f"{fmt_num(p['prs'])} PRs" if p.get("prs") is not None else "",
        ],
    ),
    "deploy": _tile(
        "env",
        lambda p: [
            str(p.get("sha") or "")[:10],
            "live" if p.get("live") else "",
            fmt_when(p.get("at")),
        ],
    ),
    "ref": _tile(
        "label", lambda p: [f"→ {p.get('card') or p.get('page') or p.get('section') or ''}"]
    ),
    "media": _tile(
        "caption", lambda p: [str(p.get("mime") or ""), str(p.get("src") or p.get("ref") or "")]
    ),
    "html": _tile("title", lambda p: ["HTML (sandboxed)"]),
    "mockup": _tile(
        "title",
        lambda p: [
            " · ".join(str(f.get("name")) for f in p.get("frames") or [] if isinstance(f, dict))
        ],
    ),
}


def element_face(
    element: dict, x: float, y: float, w: float, budget: float
) -> tuple[list[Item], float]:
    kind, payload = element_parts(element)
    face = ELEMENT_FACES.get(kind) or _generic(kind)
    return face(payload, x, y, w, budget)


def elements_face(
    elements: list, x: float, y: float, w: float, budget: float, *, gap: float = 10.0
) -> tuple[list[Item], float]:
    """Elements stacked top to bottom until the budget runs out."""
    items: list[Item] = []
    cy = 0.0
    for element in elements:
        if not isinstance(element, dict) or cy + 14 > budget:
            continue
        sub, used = element_face(element, x, y + cy, w, budget - cy)
        items += sub
        cy += used + gap
    return items, max(cy - gap, 0.0)
