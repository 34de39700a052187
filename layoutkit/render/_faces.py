"""Card faces: what each board card kind looks like inside its (x, y, w, h) box.

Frames (cluster, section) are drawn by the board writer around their
children; every other kind gets a face here. Element kinds placed as cards
reuse the element faces.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from layoutkit.formatting import as_number, fmt_bytes, fmt_num
from layoutkit.layout.blocks import plain_inline
from layoutkit.layout.cuts import left_out
from layoutkit.layout.sizing import (
    DIAGRAM_BAND,
    DIAGRAM_INSET,
    diagram_engine_made,
    heading_text,
)
from layoutkit.layout.text import line_height, text_width
from layoutkit.render._face_diagram import diagram_scene_items, with_geo
from layoutkit.render._face_elements import ELEMENT_FACES, chip_row, element_face, elements_face
from layoutkit.render._face_text import markdown_face
from layoutkit.render._images import (
    Fit,
    address_text,
    blob_href,
    image_href,
    page_image_key,
    remote_source,
)
from layoutkit.render._palette import (
    ACCENT,
    CARD,
    FAINT,
    FG,
    LINE,
    METHOD_COLORS,
    MUTED,
    ROLE_STYLE,
    SOFT,
    fill_color,
    tone,
)
from layoutkit.render._safe import safe_url
from layoutkit.render._scene import Box, Ellipse, Image, Item, Path, Text, fit_line, text_run

PAD = 16.0  # the card sizer's padding (layoutkit.layout.sizing.PAD)
WIDE_PAD = 2 * PAD  # docs and pages pad twice as much
Rect = tuple[float, float, float, float]
CardFace = Callable[[dict, Rect], list[Item]]


def chrome(r: Rect, fill: str = CARD, stroke: str = LINE, radius: float = 10.0) -> list[Item]:
    x, y, w, h = r
    return [
        Box(x + 1, y + 2, w, h, fill="#1d2230", radius=radius, opacity=0.06),
        Box(x, y, w, h, fill=fill, stroke=stroke, width=1.0, radius=radius),
    ]


def _inner(r: Rect, pad: float = PAD) -> Rect:
    x, y, w, h = r
    return x + pad, y + pad, max(w - 2 * pad, 8.0), max(h - 2 * pad, 8.0)


def _md_of(p: dict) -> str:
    for key in ("md", "text", "body", "label", "title"):
        if isinstance(p.get(key), str):
            return p[key]
    return ""


def _text(p: dict, r: Rect) -> list[Item]:
    role = str(p.get("role") or "note")
    ink, wash = ROLE_STYLE.get(role, ROLE_STYLE["note"])
    items: list[Item] = []
    md = str(p.get("md") or "")
    # the sizer rounds boxes to whole pixels: half a pixel short still holds a line
    if role == "heading":
        size = {1: 28.0, 2: 22.0, 3: 18.0}.get(int(as_number(p.get("level")) or 1), 28.0)
        x, y, w, h = _inner(r)
        return [
            text_run(
                x,
                y,
                heading_text(md),
                w + 1,
                size=size,
                font="sans-bold",
                fill=FG,
                max_lines=max(int((h + 0.5) // line_height(size)), 1),
            )
        ]
    if role == "caption":
        x, y, w, h = _inner(r)
        return [
            text_run(
                x,
                y,
                md,
                w + 1,
                size=12,
                fill=MUTED,
                max_lines=max(int((h + 0.5) // line_height(12)), 1),
            )
        ]
    items += chrome(r, fill=wash if wash != "#00000000" else CARD)
    if role in ("idea", "pro", "con", "risk"):
        x, y, w, h = r
        items.append(Box(x, y + 8, 4, h - 16, fill=ink, radius=2))
        items.append(Text(x + w - 6, y + 3, (role.upper(),), 9, "sans-bold", ink, 0.0, "end"))
    ix, iy, iw, ih = _inner(r)
    faces, _ = markdown_face(md, ix, iy, iw, ih)
    return items + faces


def _note(p: dict, r: Rect) -> list[Item]:
    items = chrome(
        r, fill=fill_color(p.get("color") or p.get("fill"), "#fff3bf"), stroke="#e9d58a", radius=3
    )
    ix, iy, iw, ih = _inner(r)
    faces, _ = markdown_face(_md_of(p), ix, iy, iw, ih)
    return items + faces


def shape_outline(p: dict, r: Rect) -> list[Item]:
    """A shape card's outline in its colours (the face and its glance share it)."""
    from layoutkit.render._face_diagram import _shape_items

    x, y, w, h = r
    fill = fill_color(p.get("fill") or p.get("color"), "#d0e4ff")
    stroke = fill_color(p.get("stroke"), "#4c6ef5")
    shape = str(p.get("shape") or "rect")
    if shape == "ellipse":
        shape = "circle"
    if shape == "triangle":
        return [
            Path(
                ((x + w / 2, y), (x + w, y + h), (x, y + h)),
                stroke=stroke,
                width=1.5,
                closed=True,
                fill=fill,
            )
        ]
    return _shape_items(shape, x, y, w, h, fill, stroke, 1.0)


def _shape(p: dict, r: Rect) -> list[Item]:
    x, y, w, h = r
    items = shape_outline(p, r)
    label = _md_of(p)
    if label:
        run = text_run(
            x + w / 2, y, label, w * 0.8, size=14, font="sans-bold", max_lines=3, anchor="middle"
        )
        items.append(
            Text(run.x, y + (h - run.height) / 2, run.lines, run.size, run.font, FG, 0.0, "middle")
        )
    return items


def _callout(p: dict, r: Rect) -> list[Item]:
    ink, wash = tone(p.get("tone") or "info")
    x, y, _w, h = r
    items = chrome(r, fill=wash, stroke=ink, radius=8)
    items.append(Box(x, y, 5, h, fill=ink, radius=2))
    ix, iy, iw, ih = _inner(r)
    if p.get("icon"):
        from layoutkit.render._icons import icon_glyph

        items.append(
            Text(x + _w - 6, y + 2, (icon_glyph(str(p["icon"])),), 13, "sans", ink, 0.0, "end")
        )
    if p.get("title"):
        run = text_run(ix, iy, str(p["title"]), iw, size=16, font="sans-bold", fill=ink)
        items.append(run)
        iy += run.height + 4
        ih -= run.height + 4
    body = str(p.get("md") or p.get("text") or p.get("body") or "")
    faces, _ = markdown_face(body, ix, iy, iw, ih)
    return items + faces


def _checklist(p: dict, r: Rect) -> list[Item]:
    items = chrome(r)
    ix, iy, iw, ih = _inner(r)
    entries = []
    for entry in p.get("items") or []:
        if isinstance(entry, dict):
            entries.append(
                (
                    str(entry.get("text") or entry.get("label") or ""),
                    bool(entry.get("done") or entry.get("checked")),
                )
            )
        elif isinstance(entry, str):
            entries.append((entry, False))
    done = sum(1 for _, d in entries if d)
    items.append(
        Text(ix + iw + 8, r[1] + 4, (f"{done}/{len(entries)}",), 10, "sans", MUTED, 0.0, "end")
    )
    cy = iy
    if p.get("title"):
        run = text_run(ix, cy, str(p["title"]), iw, size=16, font="sans-bold")
        items.append(run)
        cy += run.height + 8
    more_h = 20.0
    for n, (text, checked) in enumerate(entries):
        run = text_run(ix + 24, cy + 4, text, iw - 24, size=14, fill=MUTED if checked else FG)
        row = max(28.0, run.height + 8)
        rest = len(entries) - n
        # the last line that fits says how many items are left, when some are
        if cy + row > iy + ih + 0.5 or (rest > 1 and cy + row + more_h > iy + ih + 0.5):
            if cy + more_h <= iy + ih + 0.5:
                marker = left_out(f"{rest} of {len(entries)} items", f"+{rest} more")
                items.append(Text(ix + 24, cy + 4, (marker,), 12, "sans", MUTED))
            break
        box = 14.0
        by = cy + 4 + (run.lh - box) / 2
        items.append(
            Box(
                ix,
                by,
                box,
                box,
                fill=ACCENT if checked else CARD,
                stroke=ACCENT if checked else FAINT,
                width=1.2,
                radius=3,
            )
        )
        if checked:
            items.append(
                Path(
                    ((ix + 3, by + 7.5), (ix + 6, by + 10.5), (ix + 11, by + 4)),
                    stroke="#ffffff",
                    width=1.8,
                )
            )
        items.append(run)
        cy += row
    return items


STEP_BAND = 40.0  # the sizer's number band above a step's screen


def _screen(
    source: Any, label: str, r: Rect, fit: Fit = "cover", fill: str = SOFT, detail: str = ""
) -> list[Item]:
    """A screen or image area: the picture when its URL is safe, else a labelled placeholder.

    The label is not drawn under a picture: a transparent one would show it through.
    A picture that cannot be fetched says which it was itself (the PNG draws it as a
    crossed frame with its label; the SVG link carries the label as its title).
    """
    x, y, w, h = r
    items: list[Item] = [
        Box(x, y, w, h, fill=fill, stroke=LINE if fill == SOFT else None, width=0.8)
    ]
    if isinstance(source, str) and safe_url(source, image=True):
        items.append(Image(x, y, w, h, source, fit, label))
        return items
    top = y + h / 2 - 8 - (line_height(11) / 2 if detail else 0)
    items.append(
        Text(x + w / 2, top, (fit_line(label, w - 12, 11),), 11, "sans", MUTED, 0.0, "middle")
    )
    if detail:
        low = top + line_height(11)
        items.append(
            Text(x + w / 2, low, (fit_line(detail, w - 12, 10),), 10, "mono", MUTED, 0.0, "middle")
        )
    return items


def _step(p: dict, r: Rect) -> list[Item]:
    x, y, w, h = r
    items = chrome(r, radius=6)
    number = p.get("n") or p.get("number") or p.get("index") or p.get("step")
    cx = x + 10
    if number is not None:
        label = str(number)
        bw = max(text_width(label, 12, "sans-bold") + 12, 22)
        items.append(Box(cx, y + 9, bw, 22, fill=ACCENT, radius=11))
        items.append(
            Text(
                cx + bw / 2,
                y + 9 + (22 - line_height(12)) / 2,
                (label,),
                12,
                "sans-bold",
                "#ffffff",
                0.0,
                "middle",
            )
        )
        cx += bw + 8
    title = str(p.get("title") or p.get("caption") or p.get("image") or "")
    items.append(
        Text(cx, y + 10, (fit_line(title, x + w - 10 - cx, 13, "sans-bold"),), 13, "sans-bold", FG)
    )
    where = p.get("image") or (f"card #{p['cardId']}" if p.get("cardId") is not None else "screen")
    source = image_href(p) or p.get("url") or p.get("thumb")
    return items + _screen(source, f"▣ {where}", (x, y + STEP_BAND, w, max(h - STEP_BAND, 1.0)))


def _figure_card(p: dict, r: Rect) -> list[Item]:
    x, y, w, h = r
    caption = plain_inline(str(p.get("caption") or ""))
    cap_h = text_run(0, 0, caption, w - 2 * PAD, size=12).height + 12 if caption else 0.0
    label = str(
        p.get("alt")
        or p.get("ref")
        or (f"shot {p['shot']}" if p.get("shot") is not None else "image")
    )
    # contain: a figure shows the whole picture (its card has the picture's aspect).
    area = (x, y, w, max(h - cap_h, 1.0))
    # A picture on a site is not drawn from there: its address shows under the alt text.
    remote = remote_source(p)
    detail = address_text(remote) if remote is not None else ""
    items = chrome(r, radius=4) + _screen(image_href(p), label, area, "contain", detail=detail)
    if caption:
        items.append(
            text_run(x + PAD, y + h - cap_h + 6, caption, w - 2 * PAD, size=12, fill=MUTED)
        )
    return items


def _media_card(p: dict, r: Rect) -> list[Item]:
    src = str(p.get("src") or p.get("ref") or "")
    mime = str(p.get("mime") or "").lower()
    lower = src.lower().split("?")[0]
    name = lower.rsplit("/", 1)[-1] or "media"
    if mime == "application/pdf" or lower.endswith(".pdf"):
        pdf = {"name": name, "mime": "application/pdf", "pages": p.get("pages")}
        return _file({**pdf, "pageImages": p.get("pageImages")}, r)
    if mime.startswith("audio/") or lower.endswith((".mp3", ".wav", ".ogg", ".m4a", ".flac")):
        x, y, w, h = r
        items = chrome(r, radius=h / 2)
        items.append(Ellipse(x + 12, y + h / 2 - 14, 28, 28, ACCENT))
        items.append(
            Path(
                ((x + 23, y + h / 2 - 7), (x + 23, y + h / 2 + 7), (x + 33, y + h / 2)),
                stroke=None,
                width=0,
                closed=True,
                fill="#ffffff",
            )
        )
        items.append(
            Text(
                x + 50,
                y + h / 2 - line_height(12) / 2,
                (fit_line(str(p.get("caption") or name), w - 64, 12),),
                12,
                "sans",
                FG,
            )
        )
        return items
    if mime.startswith("video/") or lower.endswith((".mp4", ".webm", ".mov", ".ogv")):
        x, y, w, h = r
        items = [*chrome(r, radius=4), Box(x, y, w, h, fill="#1d2230", radius=4)]
        items.append(Ellipse(x + w / 2 - 22, y + h / 2 - 22, 44, 44, "#ffffff"))
        items.append(
            Path(
                (
                    (x + w / 2 - 7, y + h / 2 - 11),
                    (x + w / 2 - 7, y + h / 2 + 11),
                    (x + w / 2 + 12, y + h / 2),
                ),
                stroke=None,
                width=0,
                closed=True,
                fill="#1d2230",
            )
        )
        return items
    if mime.startswith("image/") or not mime:
        return _figure_card(p, r)
    return _file({"name": name, "mime": mime}, r)


def _html_card(p: dict, r: Rect) -> list[Item]:
    return _artifact({"title": p.get("title") or "HTML", "html": p.get("src") or ""}, r)


def _compare_card(p: dict, r: Rect) -> list[Item]:
    x, y, w, h = r
    items = chrome(r)
    half = w / 2
    for i, key in enumerate(("a", "b")):
        ref = (
            p.get(key)
            if p.get(key) is not None
            else (p.get("cards") or [None, None])[i]
            if isinstance(p.get("cards"), list) and len(p["cards"]) > i
            else None
        )
        items.append(Box(x + 6 + i * half, y + 6, half - 12, h - 12, fill=SOFT, radius=6))
        items.append(
            Text(
                x + i * half + half / 2,
                y + h / 2 - 10,
                (
                    fit_line(
                        f"{key.upper()} · card {ref}" if ref is not None else key.upper(),
                        half - 20,
                        12,
                    ),
                ),
                12,
                "sans",
                MUTED,
                0.0,
                "middle",
            )
        )
    items.append(Path(((x + half, y + 4), (x + half, y + h - 4)), stroke=ACCENT, width=2.5))
    items.append(Ellipse(x + half - 10, y + h / 2 - 10, 20, 20, CARD, ACCENT, 2))
    items.append(
        Text(
            x + half,
            y + h / 2 - line_height(10) / 2,
            ("⇔",),
            10,
            "sans-bold",
            ACCENT,
            0.0,
            "middle",
        )
    )
    return items


def doc_face_items(p: dict, r: Rect) -> list[Item]:
    """A doc card: the head at the sizer's metrics, then simplified element faces."""
    items = chrome(r)
    ix, iy, iw, ih = _inner(r, WIDE_PAD)
    cy = iy
    if p.get("kicker"):
        kicker = fit_line(str(p["kicker"]).upper(), iw, 12, "sans-bold")
        items.append(Text(ix, cy, (kicker,), 12, "sans-bold", ACCENT))
        cy += 20
    if p.get("title"):
        run = text_run(ix, cy, str(p["title"]), iw, size=28, font="sans-bold")
        items.append(run)
        cy += run.height + 8
    if p.get("intro"):
        run = text_run(ix, cy, plain_inline(str(p["intro"])), iw, size=16, fill=MUTED)
        items.append(run)
        cy += run.height + 8
    chips = [
        (str(c.get("k") or ""), str(c.get("v") or ""))
        for c in p.get("chips") or []
        if isinstance(c, dict)
    ]
    if chips:
        more, used = chip_row(chips, ix, cy, iw)
        items += more
        cy += used + 8
    sub, _ = elements_face(p.get("elements") or [], ix, cy, iw, iy + ih - cy, gap=16)
    return items + sub


def _doc(p: dict, r: Rect) -> list[Item]:
    return doc_face_items(p, r)


def _host(url: str) -> str:
    try:
        return urlsplit(url).hostname or url
    except ValueError:
        return url


def _link_view(p: dict) -> dict[str, str]:
    """What a link card shows, from its URL, the author's title and the server's unfurl."""
    url = str(p.get("url") or p.get("href") or "")
    meta = p.get("meta") if isinstance(p.get("meta"), dict) else {}
    host = _host(url) or "link"
    return {
        "url": url,
        "host": host,
        "title": str(p.get("title") or meta.get("title") or host),
        "given": str(p.get("title") or ""),
        "site": str(meta.get("siteName") or host),
        "desc": str(meta.get("description") or p.get("description") or ""),
        "icon": _inline(p.get("icon")),
        "error": str(p.get("error") or ""),
        "pending": "" if (meta or p.get("error")) else "fetching the preview…",
        "image": _inline(meta.get("imageData")),
    }


def _inline(src: Any) -> str:
    """A picture the unfurl stored inline (a raster data URL), else "".

    A link face never draws a picture by its address on the site: the board
    would call the site from every viewer's browser, and show a broken picture
    wherever the site cannot be reached.
    """
    if isinstance(src, str) and src.startswith("data:image/") and safe_url(src, image=True):
        return src
    return ""


def _shot_src(p: dict, view: str) -> str | None:
    """The inlined thumbnail of a stored screenshot (render_board puts it at ``src``)."""
    shots = p.get("shots") if isinstance(p.get("shots"), dict) else {}
    shot = shots.get(view) if isinstance(shots.get(view), dict) else {}
    src = shot.get("src")
    return src if isinstance(src, str) and safe_url(src, image=True) else None


def _site_row(v: dict[str, str], x: float, y: float, w: float) -> list[Item]:
    """The icon (or a globe) and the site name on one 16-px row."""
    items: list[Item] = [Box(x, y, 16, 16, fill=SOFT, radius=4)]
    if safe_url(v["icon"], image=True):
        items.append(Image(x, y, 16, 16, v["icon"]))
    else:
        items.append(Text(x + 8, y + 1, ("◍",), 11, "sans", ACCENT, 0.0, "middle"))
    if v["site"] and w > 40:
        items.append(
            Text(
                x + 22,
                y + 1,
                (fit_line(v["site"], w - 22, 11, "sans-bold"),),
                11,
                "sans-bold",
                MUTED,
            )
        )
    return items


def _link_unfetched(v: dict[str, str], r: Rect) -> list[Item]:
    """The author's title, the bare URL and why it was not fetched, wrapped inside the card.

    The block sits in the middle of the card: a preview-sized card with only
    these few lines would otherwise hold an empty band under them.
    """
    items = chrome(r)
    ix, iy, iw, ih = _inner(r)
    room = ih - 26 - 8  # below the site row, less the gap between URL and reason

    # The title the author gave names the card, as it does once unfurled.
    def title_at(top: float) -> Text | None:
        if not v["given"]:
            return None
        return text_run(ix, top, v["given"], iw, size=13, font="sans-bold", max_lines=2)

    title_h = 0.0 if title_at(0) is None else title_at(0).height + 4  # type: ignore[union-attr]
    room -= title_h
    # The reason matters most: the URL yields lines until two of the reason fit.
    url_lines = max(1, min(3, int((room - 2 * line_height(11)) // line_height(12))))
    if v["given"]:
        url_lines = 1

    def url_at(top: float) -> Text:
        return text_run(ix, top, v["url"], iw, size=12, font="mono", max_lines=url_lines)

    left = int((room - url_at(0).height) // line_height(11))

    def reason_at(top: float) -> Text:
        return text_run(ix, top, v["error"], iw, size=11, fill=MUTED, max_lines=left)

    block = 26 + title_h + url_at(0).height + (8 + reason_at(0).height if left >= 1 else 0)
    top = iy + max(0.0, (ih - block) / 2)
    items += _site_row({**v, "site": v["host"]}, ix, top, iw)
    title = title_at(top + 26)
    if title is not None:
        items.append(title)
    url = url_at(top + 26 + title_h)
    items.append(url)
    if left >= 1:
        items.append(reason_at(top + 34 + title_h + url.height))
    return items


def _link(p: dict, r: Rect) -> list[Item]:
    x, y, w, h = r
    v = _link_view(p)
    mode = str(p.get("display") or p.get("mode") or "preview")
    if v["error"] and mode != "widget":
        return _link_unfetched(v, r)
    items = chrome(r)
    if mode == "widget" or h < 90:
        items += _site_row({**v, "site": ""}, x + 12, y + h / 2 - 8, 16)
        items.append(
            Text(
                x + 38,
                y + h / 2 - line_height(13),
                (fit_line(v["title"], w - 50, 13, "sans-bold"),),
                13,
                "sans-bold",
                FG,
            )
        )
        below = v["error"] or v["pending"] or v["site"]
        items.append(Text(x + 38, y + h / 2, (fit_line(below, w - 50, 11),), 11, "sans", MUTED))
        return items
    if mode == "phone":
        pw = min(w - 20, (h - 20) * 9 / 19.5)
        px = x + (w - pw) / 2
        items.append(Box(px, y + 10, pw, h - 20, fill="#1d2230", radius=18))
        items.append(Box(px + 5, y + 15, pw - 10, h - 30, fill=SOFT, radius=14))
        shot = _shot_src(p, "phone")
        # The title and the reason sit under the screenshot, which covers them when drawn.
        shots = p.get("shots") if isinstance(p.get("shots"), dict) else {}
        why = "" if shot else v["pending"] or str(shots.get("reason") or "")
        title = text_run(
            px + pw / 2,
            y + h / 2 - 24,
            v["title"],
            pw - 24,
            size=12,
            font="sans-bold",
            max_lines=3,
            anchor="middle",
        )
        items.append(title)
        if why:
            items.append(
                text_run(
                    px + pw / 2,
                    y + h / 2 - 16 + title.height,
                    why,
                    pw - 24,
                    size=10.5,
                    fill=MUTED,
                    max_lines=4,
                    anchor="middle",
                )
            )
        if shot:
            items.append(Image(px + 5, y + 15, pw - 10, h - 30, shot))
        return items
    # preview and live: the picture on top, then site, title and description.
    shot_h = max(min((w - 2) * 10 / 16, h - 96), 0.0)
    items.append(Box(x + 1, y + 1, w - 2, shot_h, fill=SOFT, radius=9))
    picture = _shot_src(p, "desktop") or (v["image"] if safe_url(v["image"], image=True) else None)
    if picture:
        items.append(Image(x + 1, y + 1, w - 2, shot_h, picture))
    else:
        items.append(
            Text(
                x + w / 2,
                y + shot_h / 2 - line_height(12) / 2,
                (fit_line(v["host"], w - 2 * PAD, 12),),
                12,
                "sans",
                FAINT,
                0.0,
                "middle",
            )
        )
    if mode == "live":
        badge = "live" if p.get("framable") is True else "preview: the site refuses frames"
        if p.get("framable") is None:
            badge = "live when the site allows frames"
        bw = min(text_width(badge, 10, "sans-bold") + 14, w - 20)
        items.append(Box(x + w - bw - 10, y + 10, bw, 18, fill="#1d2230", radius=9, opacity=0.8))
        items.append(
            Text(
                x + w - bw / 2 - 10,
                y + 10 + (18 - line_height(10)) / 2,
                (fit_line(badge, bw - 10, 10, "sans-bold"),),
                10,
                "sans-bold",
                "#ffffff",
                0.0,
                "middle",
            )
        )
    ix, iw = x + PAD, w - 2 * PAD
    cy = y + shot_h + 10
    items += _site_row(v, ix, cy, iw)
    cy += 22
    items.append(
        Text(ix, cy, (fit_line(v["title"], iw, 13.5, "sans-bold"),), 13.5, "sans-bold", FG)
    )
    cy += line_height(13.5) + 2
    desc = v["desc"] or v["pending"]
    lines = int((y + h - PAD / 2 - cy) // line_height(11))
    if desc and lines >= 1:
        items.append(text_run(ix, cy, desc, iw, size=11, fill=MUTED, max_lines=lines))
    return items


def _portal(p: dict, r: Rect) -> list[Item]:
    x, y, w, h = r
    items = chrome(r, fill="#fbfcfe", stroke=ACCENT)
    target = str(p.get("title") or p.get("board") or p.get("slug") or p.get("target") or "board")
    items.append(
        Text(
            x + PAD,
            y + 10,
            (fit_line("↗ " + target, w - 2 * PAD, 13, "sans-bold"),),
            13,
            "sans-bold",
            ACCENT,
        )
    )
    mx, my, mw, mh = x + 10, y + 36, w - 20, h - 46
    items.append(Box(mx, my, mw, mh, fill=SOFT, radius=6))
    cards = [
        c
        for c in p.get("minimap") or p.get("cards") or p.get("preview") or []
        if isinstance(c, dict)
    ]
    boxes = [
        (as_number(c.get("x")), as_number(c.get("y")), as_number(c.get("w")), as_number(c.get("h")))
        for c in cards
    ]
    boxes = [b for b in boxes if None not in b]
    if boxes:
        x0 = min(b[0] for b in boxes)  # type: ignore[type-var]
        y0 = min(b[1] for b in boxes)  # type: ignore[type-var]
        x1 = max(b[0] + b[2] for b in boxes)  # type: ignore[operator]
        y1 = max(b[1] + b[3] for b in boxes)  # type: ignore[operator]
        k = min((mw - 12) / ((x1 - x0) or 1), (mh - 12) / ((y1 - y0) or 1))
        for bx, by, bw, bh in boxes:
            items.append(
                Box(
                    mx + 6 + (bx - x0) * k,
                    my + 6 + (by - y0) * k,
                    max(bw * k, 1),
                    max(bh * k, 1),
                    fill=CARD,
                    stroke=LINE,
                    width=0.5,
                    radius=1,
                )
            )
    else:
        for i in range(3):
            for j in range(2):
                items.append(
                    Box(
                        mx + 8 + i * (mw - 16) / 3,
                        my + 8 + j * (mh - 16) / 2,
                        (mw - 16) / 3 - 6,
                        (mh - 16) / 2 - 6,
                        fill=CARD,
                        stroke=LINE,
                        width=0.5,
                        radius=2,
                    )
                )
    return items


def _diagram_card(p: dict, r: Rect) -> list[Item]:
    x, y, w, h = r
    items = chrome(r)
    p = with_geo(p)
    geo = p.get("geo") if isinstance(p.get("geo"), dict) else {}
    if p.get("band") is False:
        # Without the counts band the drawing takes the band's room (sizing agrees).
        return items + _diagram_faces(p, x, y + PAD, w, h - PAD)
    nodes, edges = len(geo.get("nodes") or {}), len(geo.get("edges") or [])
    # A sequence diagram has no flow direction to report.
    flow = geo.get("dir") if not geo.get("sequence") else None
    band = f"◇ DIAGRAM · {nodes} nodes · {edges} edges" + (f" · {flow}" if flow else "")
    items.append(
        Text(
            x + PAD,
            y + PAD,
            (fit_line(band, w - 2 * PAD, 11, "sans-bold"),),
            11,
            "sans-bold",
            MUTED,
        )
    )
    items.append(
        Path(
            ((x + PAD, y + DIAGRAM_BAND - 6), (x + w - PAD, y + DIAGRAM_BAND - 6)),
            stroke=LINE,
            width=1,
        )
    )
    return items + _diagram_faces(p, x, y + DIAGRAM_BAND, w, h - DIAGRAM_BAND)


def _diagram_faces(p: dict, x: float, top: float, w: float, h: float) -> list[Item]:
    """The diagram's own face below ``top``, inside the card's side and bottom padding."""
    # the geo sits in the chrome at scale 1 when the card has its sized box; a
    # hand-placed geo's face pads its header and footer itself, so it gets the
    # padding back and its geo fits the same inner width
    inset = 0.0 if diagram_engine_made(p) else DIAGRAM_INSET
    faces, _ = diagram_scene_items(
        p, x + PAD - inset, top - inset, w - 2 * PAD + 2 * inset, h - PAD + 2 * inset, marks=True
    )
    return faces


def _api(p: dict, r: Rect) -> list[Item]:
    items = chrome(r)
    ix, iy, iw, ih = _inner(r)
    info = p.get("info") if isinstance(p.get("info"), dict) else {}
    title = str(p.get("title") or info.get("title") or "API")
    items.append(Text(ix, iy, (fit_line(title, iw - 80, 16, "sans-bold"),), 16, "sans-bold", FG))
    version = info.get("version") or p.get("openapi") or p.get("swagger")
    if version:
        items.append(
            Text(ix + iw, iy + 3, (fit_line(f"v{version}", 80, 11),), 11, "sans", MUTED, 0.0, "end")
        )
    cy = iy + line_height(16) + 6
    groups: dict[str, list[tuple[str, str, str]]] = {}
    paths = p.get("paths") if isinstance(p.get("paths"), dict) else {}
    count = 0
    for path, ops in paths.items():
        if not isinstance(ops, dict):
            continue
        for method, op in ops.items():
            if method.upper() not in METHOD_COLORS or not isinstance(op, dict):
                continue
            tag = str((op.get("tags") or ["default"])[0])
            groups.setdefault(tag, []).append(
                (method.upper(), str(path), str(op.get("summary") or ""))
            )
            count += 1
    items.append(Text(ix, cy, (f"{count} endpoints · {len(groups)} groups",), 11, "sans", MUTED))
    cy += line_height(11) + 4
    for tag, ops in groups.items():
        if cy + 40 > iy + ih:
            break
        items.append(
            Text(ix, cy, (fit_line(tag.upper(), iw, 10.5, "sans-bold"),), 10.5, "sans-bold", MUTED)
        )
        cy += line_height(10.5) + 2
        for method, path, summary in ops:
            if cy + 20 > iy + ih:
                break
            mw = 52.0
            items.append(Box(ix, cy + 1, mw, 16, fill=METHOD_COLORS[method], radius=3))
            items.append(
                Text(
                    ix + mw / 2,
                    cy + 1 + (16 - line_height(10)) / 2,
                    (method,),
                    10,
                    "sans-bold",
                    "#ffffff",
                    0.0,
                    "middle",
                )
            )
            items.append(
                Text(ix + mw + 8, cy, (fit_line(path, iw * 0.55, 11.5, "mono"),), 11.5, "mono", FG)
            )
            if summary:
                left = ix + mw + 16 + min(text_width(path, 11.5, "mono"), iw * 0.55)
                items.append(
                    Text(
                        left,
                        cy + 1,
                        (fit_line(summary, ix + iw - left, 10.5),),
                        10.5,
                        "sans",
                        MUTED,
                    )
                )
            cy += 20
        cy += 4
    return items


def _page(p: dict, r: Rect) -> list[Item]:
    items = chrome(r)
    x, y, w, _h = r
    items.append(Box(x, y, w, 4, fill=ACCENT, radius=2))
    ix, iy, iw, ih = _inner(r, WIDE_PAD)
    faces, _ = markdown_face(str(p.get("md") or ""), ix, iy, iw, ih)
    return items + faces


def _artifact(p: dict, r: Rect) -> list[Item]:
    x, y, w, h = r
    items = chrome(r)
    items.append(Box(x, y, w, 26, fill=SOFT, radius=10))
    for i, color in enumerate(("#ff6b6b", "#fcc419", "#51cf66")):
        items.append(Ellipse(x + 10 + i * 14, y + 8, 10, 10, color))
    title = str(p.get("title") or "HTML artifact")
    items.append(Text(x + 58, y + 5, (fit_line(title, w - 70, 11.5),), 11.5, "sans", MUTED))
    kind = "utility CSS body" if p.get("body") is not None else "HTML document"
    size = len(str(p.get("html") or p.get("body") or "").encode("utf-8"))
    items.append(
        Text(
            x + w / 2,
            y + h / 2,
            (fit_line(f"▣ {kind} · {fmt_num(size)} bytes · sandboxed", w - 20, 11.5),),
            11.5,
            "sans",
            MUTED,
            0.0,
            "middle",
        )
    )
    return items


def _chat(p: dict, r: Rect) -> list[Item]:
    items = chrome(r)
    ix, iy, iw, ih = _inner(r, 10)
    messages = [m for m in p.get("messages") or p.get("turns") or [] if isinstance(m, dict)]
    if p.get("title"):
        items.append(
            Text(ix, iy, (fit_line(str(p["title"]), iw, 13, "sans-bold"),), 13, "sans-bold", FG)
        )
        iy += line_height(13) + 4
    cy = iy
    for message in messages:
        mine = message.get("role") in ("user", "human")
        text = str(message.get("text") or message.get("content") or message.get("md") or "")
        bw = iw * 0.8
        run = text_run(0, 0, text, bw - 16, size=12, max_lines=4)
        bh = run.height + 12
        if cy + bh > iy + ih:
            break
        bx = ix + iw - bw if mine else ix
        items.append(Box(bx, cy, bw, bh, fill="#dbe7fd" if mine else SOFT, radius=10))
        items.append(Text(bx + 8, cy + 6, run.lines, 12, "sans", FG))
        cy += bh + 6
    if not messages:
        items.append(Text(ix, cy, ("✉ conversation",), 12, "sans", MUTED))
    return items


def _file(p: dict, r: Rect) -> list[Item]:
    x, y, w, h = r
    name = str(p.get("name") or p.get("filename") or p.get("title") or "file")
    mime = str(p.get("mime") or "")
    is_pdf = mime == "application/pdf" or name.lower().endswith(".pdf")
    if is_pdf and page_image_key(p):
        return _pdf_first_page(p, name, r)
    if is_pdf:
        items = chrome(r, radius=2)
        items.append(Box(x, y, w, 6, fill="#c92a2a", radius=1))
        pages = p.get("pages") or p.get("pageCount")
        ix, iy, iw, _ = _inner(r, 16)
        items.append(Text(ix, iy + 6, (fit_line(name, iw, 13, "sans-bold"),), 13, "sans-bold", FG))
        for i in range(int(min(max((h - 90) // 14, 0), 30))):
            items.append(
                Box(ix, iy + 34 + i * 14, iw * (0.95 - 0.25 * (i % 3 == 2)), 5, fill=SOFT, radius=2)
            )
        label = f"PDF · {fmt_num(pages)} pages" if pages is not None else "PDF"
        items.append(Text(ix, y + h - 26, (label,), 11, "sans", MUTED))
        return items
    items = chrome(r, radius=8)
    ext = name.rsplit(".", 1)[-1].upper()[:4] if "." in name else "FILE"
    items.append(Box(x + 10, y + h / 2 - 16, 32, 32, fill=SOFT, stroke=LINE, radius=4))
    items.append(
        Text(x + 26, y + h / 2 - line_height(9) / 2, (ext,), 9, "sans-bold", MUTED, 0.0, "middle")
    )
    items.append(
        Text(
            x + 50,
            y + h / 2 - line_height(13),
            (fit_line(name, w - 60, 13, "sans-bold"),),
            13,
            "sans-bold",
            FG,
        )
    )
    size = as_number(p.get("size"))
    meta = " · ".join(v for v in (mime, fmt_bytes(size) if size else "", "↓ download") if v)
    items.append(Text(x + 50, y + h / 2, (fit_line(meta, w - 60, 11),), 11, "sans", MUTED))
    return items


PDF_FOOTER = 34.0


def _pdf_first_page(p: dict, name: str, r: Rect) -> list[Item]:
    """A PDF card that has its pages rasterised: the first page, whole, over a footer
    with the file's name and page count."""
    x, y, w, h = r
    items = chrome(r, radius=2)
    page_h = max(h - 6 - PDF_FOOTER, 1.0)
    key = page_image_key(p)
    assert key is not None
    # A page is paper: the margins around it, where its aspect is not the card's, stay white.
    page = (x + 1, y + 6, w - 2, page_h)
    items += _screen(blob_href(key), f"{name}, page 1", page, "contain", CARD)
    items.append(Box(x, y, w, 6, fill="#c92a2a", radius=1))
    items.append(Path(((x, y + h - PDF_FOOTER), (x + w, y + h - PDF_FOOTER)), stroke=LINE, width=1))
    pages = p.get("pages") or p.get("pageCount")
    label = f"PDF · {fmt_num(pages)} pages" if pages is not None else "PDF"
    label_w = text_width(label, 11) + 8
    ty = y + h - PDF_FOOTER + (PDF_FOOTER - line_height(13)) / 2
    items.append(
        Text(x + 10, ty, (fit_line(name, w - 28 - label_w, 13, "sans-bold"),), 13, "sans-bold", FG)
    )
    items.append(Text(x + w - 10, ty + 1, (label,), 11, "sans", MUTED, 0.0, "end"))
    return items


def _element_card(kind: str) -> CardFace:
    def face(p: dict, r: Rect) -> list[Item]:
        items = chrome(r)
        ix, iy, iw, ih = _inner(r)
        faces, _ = element_face({"kind": kind, "payload": p}, ix, iy, iw, ih)
        return items + faces

    return face


def _unknown(kind: str) -> CardFace:
    def face(p: dict, r: Rect) -> list[Item]:
        items = chrome(r, fill=SOFT)
        ix, iy, iw, ih = _inner(r)
        items.append(Text(ix, iy, (fit_line(kind, iw, 12, "sans-bold"),), 12, "sans-bold", MUTED))
        label = p.get("title") or p.get("md") or ""
        if label:
            items.append(
                text_run(
                    ix,
                    iy + 20,
                    str(label),
                    iw,
                    size=12,
                    max_lines=max(int((ih - 20) // line_height(12)), 1),
                )
            )
        return items

    return face


CARD_FACES: dict[str, CardFace] = {
    "text": _text,
    "note": _note,
    "shape": _shape,
    "callout": _callout,
    "checklist": _checklist,
    "step": _step,
    "compare": _compare_card,
    "doc": _doc,
    "link": _link,
    "board": _portal,
    "diagram": _diagram_card,
    "api": _api,
    "page": _page,
    "artifact": _artifact,
    "chat": _chat,
    "file": _file,
    "figure": _figure_card,
    "media": _media_card,
    "html": _html_card,
}

DEFAULT_SIZES: dict[str, tuple[float, float]] = {
    "text": (320, 160),
    "note": (220, 220),
    "shape": (160, 120),
    "link": (360, 300),
    "board": (320, 220),
    "doc": (560, 640),
    "diagram": (720, 480),
    "api": (480, 420),
    "file": (300, 80),
    "step": (360, 280),
}


def card_face(kind: str, payload: Any, rect: Rect) -> list[Item]:
    """Scene items of one card's face inside ``rect``."""
    p = payload if isinstance(payload, dict) else {}
    face = CARD_FACES.get(kind)
    if face is None:
        face = _element_card(kind) if kind in ELEMENT_FACES else _unknown(kind)
    return face(p, rect)


def frame_items(kind: str, payload: Any, rect: Rect, depth: int) -> list[Item]:
    """A cluster or section frame: border, title band, description line."""
    p = payload if isinstance(payload, dict) else {}
    x, y, w, h = rect
    title = p.get("title") or p.get("label")
    if kind == "cluster" and not title:
        return []  # an untitled cluster draws no chrome
    items: list[Item] = []
    if kind == "section":
        items.append(
            Box(
                x,
                y,
                w,
                h,
                fill="#eef2f8" if depth % 2 == 0 else "#f6f8fb",
                stroke="#b6c2d6",
                width=1.2,
                radius=14,
                dash=(8, 5),
            )
        )
        items.append(
            Text(
                x + 16,
                y + 10,
                (fit_line(str(title or "Section"), w - 32, 17, "sans-bold"),),
                17,
                "sans-bold",
                FG,
            )
        )
        if p.get("description"):
            items.append(
                Text(
                    x + 16,
                    y + 36,
                    (fit_line(str(p["description"]), w - 32, 12),),
                    12,
                    "sans",
                    MUTED,
                )
            )
        return items
    kanban = p.get("role") == "kanban"
    items.append(
        Box(x, y, w, h, fill="#f1f3f7" if kanban else "#fafbfd", stroke=LINE, width=1.0, radius=12)
    )
    items.append(
        Text(x + 14, y + 9, (fit_line(str(title), w - 60, 14, "sans-bold"),), 14, "sans-bold", FG)
    )
    if kanban:
        count = len(p.get("children") or [])
        items.append(Box(x + w - 40, y + 9, 28, 18, fill=CARD, stroke=LINE, radius=9))
        items.append(
            Text(
                x + w - 26,
                y + 9 + (18 - line_height(11)) / 2,
                (str(count),),
                11,
                "sans-bold",
                MUTED,
                0.0,
                "middle",
            )
        )
    return items
