"""Documents to one self-contained HTML file.

``render_doc`` walks the doc element once; each element kind has a small
function returning its HTML. Containers carry a ``data-aud`` attribute with
the audiences that will see them, so the in-page audience switch is pure CSS
and a container whose children are all hidden hides with them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from typing import Any

from layoutkit.elements import filter_audience, slugify, visible_to
from layoutkit.elements.vocab import AUDIENCES, FINDING_STATUS_READING, ITEM_TONES
from layoutkit.formatting import (
    as_number,
    date_labels,
    fmt_num,
    fmt_value,
    fmt_when,
    parse_when,
)
from layoutkit.render._charts import _spark, chart_svg
from layoutkit.render._css import DIRECTIONS, TYPESETS, accent_pair, document_css
from layoutkit.render._images import missing_label, site_address, site_picture_html
from layoutkit.render._markdown import code_block_html, render_inline, render_markdown
from layoutkit.render._safe import Slugger, element_parts, esc, expand_alias, safe_url

TONES = ITEM_TONES

# The only script in the page: it restores and stores the reader's typeset and
# audience choice. It reads no document content, so no payload reaches it.
_SCRIPT = (
    "(function(){var d=document.documentElement,k,s;"
    "function get(n){try{return localStorage.getItem('layoutkit-'+n)}catch(e){return null}}"
    "function put(n,v){try{localStorage.setItem('layoutkit-'+n,v)}catch(e){}}"
    "var sels=document.querySelectorAll('select[data-switch]');"
    "for(var i=0;i<sels.length;i++){(function(sel){var n=sel.getAttribute('data-switch'),v=get(n);"
    "if(v&&sel.querySelector('option[value=\"'+v.replace(/[^a-z-]/g,'')+'\"]')){sel.value=v;d.setAttribute('data-'+n,v)}"
    "sel.addEventListener('change',function(){d.setAttribute('data-'+n,sel.value);put(n,sel.value)})})(sels[i])}"
    "var c=document.querySelector('.controls');if(c)c.hidden=false})();"
)


class _Ctx:
    """Per-render state: alias table, anchor slugs, view counter."""

    def __init__(self, sources: Mapping[str, Any] | None) -> None:
        self.sources = sources if isinstance(sources, Mapping) else None
        self.slugger = Slugger()
        self.views = 0
        self.serial = 0

    def md(self, text: Any) -> str:
        return render_markdown(text, sources=self.sources, slugger=self.slugger)

    def inline(self, text: Any) -> str:
        return render_inline(text, sources=self.sources)

    def url(self, value: Any, *, image: bool = False) -> str | None:
        if not isinstance(value, str):
            return None
        return safe_url(expand_alias(value, self.sources), image=image)

    def next_id(self, prefix: str) -> str:
        self.serial += 1
        return f"{prefix}{self.serial}"


def _aud_attr(element: dict) -> str:
    seen = visible_to(element)
    if len(seen) == len(AUDIENCES):
        return ""
    return f' data-aud="{" ".join(sorted(seen)) or "none"}"'


def _paragraphs(ctx: _Ctx, text: Any) -> str:
    if not isinstance(text, str) or not text.strip():
        return ""
    parts = [p.strip() for p in text.replace("\r\n", "\n").split("\n\n") if p.strip()]
    return "".join(f"<p>{ctx.inline(p)}</p>" for p in parts)


def _link(ctx: _Ctx, url: Any, text: str, cls: str = "") -> str:
    safe = ctx.url(url)
    attr = f' class="{cls}"' if cls else ""
    if safe is None:
        return f"<span{attr}>{text}</span>"
    return f'<a{attr} href="{esc(safe)}" rel="noopener noreferrer">{text}</a>'


def _badge(text: Any, tone: str = "") -> str:
    return f'<span class="badge {esc(tone)}">{esc(text)}</span>'


def _progress(done: Any, total: Any, percent: Any = None) -> str:
    pct = as_number(percent)
    d, t = as_number(done), as_number(total)
    if pct is None and d is not None and t:
        pct = d / t * 100
    if pct is None:
        return ""
    pct = max(0.0, min(100.0, pct))
    label = f"{fmt_num(d)}/{fmt_num(t)}" if d is not None and t else f"{pct:.0f}%"
    return (
        f'<div class="progress" role="progressbar" aria-valuenow="{pct:.0f}" aria-valuemin="0" '
        f'aria-valuemax="100" title="{esc(label)}"><span style="width:{pct:.1f}%"></span></div>'
        f'<div class="meta"><span>{esc(label)}</span></div>'
    )


def _meta(*parts: str) -> str:
    shown = [p for p in parts if p]
    return f'<div class="meta">{"".join(f"<span>{p}</span>" for p in shown)}</div>' if shown else ""


# ---------------------------------------------------------------- element kinds


def _prose(ctx: _Ctx, p: dict) -> str:
    return f'<div class="prose">{ctx.md(p.get("md"))}</div>'


def _page(ctx: _Ctx, p: dict) -> str:
    return f'<div class="prose page-el">{ctx.md(p.get("md"))}</div>'


def _list(ctx: _Ctx, p: dict) -> str:
    style = p.get("style") or "bullet"
    tag = "ol" if style == "number" else "ul"
    cls = ' class="list-check"' if style == "check" else ""
    items = "".join(f"<li>{ctx.inline(i)}</li>" for i in p.get("items") or [])
    return f"<{tag}{cls}>{items}</{tag}>"


def _chart(ctx: _Ctx, p: dict) -> str:
    title = f'<div class="chart-title">{esc(p["title"])}</div>' if p.get("title") else ""
    caption = f"<figcaption>{ctx.inline(p['caption'])}</figcaption>" if p.get("caption") else ""
    return f'<figure class="chart viz-{esc(p.get("viz"))}">{title}{chart_svg(p)}{caption}</figure>'


def chips_html(items: Any) -> str:
    pills = "".join(
        f'<li class="chip"><span class="k">{esc(i.get("k"))}</span><span class="v">{esc(i.get("v"))}</span></li>'
        for i in items or []
        if isinstance(i, dict)
    )
    return f'<ul class="chips">{pills}</ul>' if pills else ""


def _chips(ctx: _Ctx, p: dict) -> str:
    return chips_html(p.get("items"))


def _code(ctx: _Ctx, p: dict) -> str:
    caption = f'<div class="caption">{ctx.inline(p["caption"])}</div>' if p.get("caption") else ""
    return code_block_html(str(p.get("source") or ""), p.get("lang")) + caption


def _columns(ctx: _Ctx, p: dict) -> str:
    cols = [c for c in p.get("cols") or [] if isinstance(c, dict)]
    ratio = str(p.get("ratio") or ":".join(["1"] * max(len(cols), 1)))
    parts = [part for part in ratio.split(":") if part.isdigit()]
    if len(parts) != len(cols):
        parts = ["1"] * len(cols)
    template = " ".join(f"minmax(0,{part}fr)" for part in parts)
    inner = "".join(
        f'<div class="col"{_aud_attr({"kind": "section", "payload": c})}>{_elements(ctx, c.get("elements"))}</div>'
        for c in cols
    )
    return f'<div class="columns" style="--cols:{template}">{inner}</div>'


def _compare(ctx: _Ctx, p: dict) -> str:
    title = f"<h3>{ctx.inline(p['title'])}</h3>" if p.get("title") else ""
    sides = []
    for key in ("a", "b"):
        side = p.get(key) if isinstance(p.get(key), dict) else {}
        label = (
            f'<div class="side-label">{ctx.inline(side["label"])}</div>'
            if side.get("label")
            else ""
        )
        sides.append(
            f'<div class="side side-{key}">{label}{_elements(ctx, side.get("elements"))}</div>'
        )
    return f'{title}<div class="compare">{"".join(sides)}</div>'


def _deploy(ctx: _Ctx, p: dict) -> str:
    live = '<span class="live-dot" title="live"></span>' if p.get("live") else ""
    sha = str(p.get("sha") or "")
    return (
        f'<div class="tile deploy"><div class="t-title">{live}{esc(p.get("env"))}</div>'
        f'<div class="mono" title="{esc(sha)}">{esc(sha[:12])}</div>'
        + _meta(
            esc(fmt_when(p.get("at"))) if p.get("at") else "",
            f"{esc(fmt_num(p['count']))} deploys" if p.get("count") is not None else "",
            "live" if p.get("live") else "",
        )
        + "</div>"
    )


def _diagram(ctx: _Ctx, p: dict) -> str:
    from layoutkit.render._board import diagram_svg

    caption = f"<figcaption>{ctx.inline(p['caption'])}</figcaption>" if p.get("caption") else ""
    return f'<figure class="diagram-svg">{diagram_svg(p)}{caption}</figure>'


def _nested_doc(ctx: _Ctx, p: dict) -> str:
    head = ""
    if p.get("kicker"):
        head += f'<div class="kicker">{esc(p["kicker"])}</div>'
    if p.get("title"):
        head += f'<h2 id="{esc(ctx.slugger.slug(str(p["title"])))}">{esc(p["title"])}</h2>'
    if p.get("intro"):
        head += f'<p class="intro">{ctx.inline(p["intro"])}</p>'
    return f'<div class="doc-nested">{head}{chips_html(p.get("chips"))}{_elements(ctx, p.get("elements"))}</div>'


def _epic(ctx: _Ctx, p: dict) -> str:
    phase = p.get("phase") or "planned"
    cover = ""
    if p.get("cover"):
        src = ctx.url(p["cover"], image=True)
        # A cover on another site is left out: it is decoration, not content.
        shown = src and site_address(src) is None
        cover = f'<img class="cover" src="{esc(src)}" alt="" loading="lazy">' if shown else ""
    title = esc(p.get("title"))
    if p.get("url"):
        title = _link(ctx, p["url"], title)
    live = '<span class="live-dot" title="in progress"></span>' if p.get("live") else ""
    badges = _badge(phase, "accent" if phase == "shipped" else "") + (
        _badge(p["mark"]) if p.get("mark") else ""
    )
    extra = _meta(
        f"#{esc(p['id'])}" if p.get("id") is not None else "",
        esc(p.get("type") or ""),
        esc(", ".join(map(str, p.get("who") or []))),
        esc(fmt_when(p.get("at"))) if p.get("at") else "",
        _link(ctx, p["page"], "feature page") if p.get("page") else "",
    )
    return (
        f'<div class="tile epic phase-{esc(phase)}">{cover}<div class="t-title">{live}{title}</div>'
        f"<div>{badges}</div>{_progress(p.get('done'), p.get('total'))}{extra}</div>"
    )


def _image_or_placeholder(ctx: _Ctx, item: dict) -> str:
    alt = item.get("alt") or ""
    src = ctx.url(item.get("src"), image=True)
    remote = site_address(src) if src else None
    if remote is not None:
        return site_picture_html(remote, str(alt))
    if src:
        return f'<img src="{esc(src)}" alt="{esc(alt)}" loading="lazy">'
    return (
        f'<div class="placeholder" role="img" aria-label="{esc(alt)}">'
        f"{esc(missing_label(item))}</div>"
    )


def _figure(ctx: _Ctx, p: dict) -> str:
    caption = f"<figcaption>{ctx.inline(p['caption'])}</figcaption>" if p.get("caption") else ""
    return f"<figure>{_image_or_placeholder(ctx, p)}{caption}</figure>"


def _finding(ctx: _Ctx, p: dict) -> str:
    sev = p.get("sev") if p.get("sev") in ("high", "medium", "low") else "none"
    status = p.get("status")
    reading = FINDING_STATUS_READING.get(str(status), "")
    head = ""
    if sev != "none":
        head += _badge(sev, {"high": "bad", "medium": "warn", "low": "info"}[sev])
    if p.get("tag"):
        head += " " + _badge(p["tag"])
    if status:
        head += f' <span class="badge status {esc(reading)}" title="{esc(reading)}">{esc(status)}</span>'
    body = f"<div>{head}</div>" if head else ""
    if p.get("title"):
        body += f'<div class="f-title">{ctx.inline(p["title"])}</div>'
    if p.get("where"):
        body += f'<div class="where"><code>{esc(p["where"])}</code></div>'
    if p.get("summary"):
        body += f"<p><strong>{ctx.inline(p['summary'])}</strong></p>"
    body += _paragraphs(ctx, p.get("body"))
    rows = ""
    for key, label in (("cause", "Cause"), ("cost", "Cost"), ("fix", "Fix")):
        if p.get(key):
            rows += f"<dt>{label}</dt><dd>{ctx.inline(p[key])}</dd>"
    if rows:
        body += f"<dl>{rows}</dl>"
    trace = p.get("trace")
    if isinstance(trace, dict):
        hops = []
        for key in ("before", "after"):
            hop = trace.get(key) if isinstance(trace.get(key), dict) else {}
            note = f"<div class='caption'>{esc(hop['note'])}</div>" if hop.get("note") else ""
            hops.append(
                f'<div class="hop"><strong>{key}</strong> <code>{esc(hop.get("key"))}</code> → '
                f"<code>{esc(hop.get('dest'))}</code>{note}</div>"
            )
        body += f'<div class="trace">{hops[0]}<span>⇒</span>{hops[1]}</div>'
    evidence = p.get("evidence")
    if evidence:
        items = evidence if isinstance(evidence, list) else [evidence]
        body += (
            '<ul class="evidence">' + "".join(f"<li>{ctx.inline(e)}</li>" for e in items) + "</ul>"
        )
    return (
        f'<article class="finding sev-{sev} reading-{esc(reading or "none")}">'
        f'<div class="rail"></div><div class="body">{body}</div></article>'
    )


def _gallery(ctx: _Ctx, p: dict) -> str:
    layout = (
        p.get("layout") if p.get("layout") in ("grid", "bento", "masonry", "carousel") else "grid"
    )
    figures = []
    for item in p.get("items") or []:
        if not isinstance(item, dict):
            continue
        span = (
            f' class="span-{esc(item["span"])}"' if layout == "bento" and item.get("span") else ""
        )
        caption = (
            f"<figcaption>{ctx.inline(item['caption'])}</figcaption>" if item.get("caption") else ""
        )
        figures.append(
            f"<figure{span}{_aud_attr(item)}>{_image_or_placeholder(ctx, item)}{caption}</figure>"
        )
    caption = f'<div class="caption">{ctx.inline(p["caption"])}</div>' if p.get("caption") else ""
    return f'<div class="gallery {layout}">{"".join(figures)}</div>{caption}'


def _goal(ctx: _Ctx, p: dict) -> str:
    status = p.get("status") or "planned"
    tone = {"done": "good", "overdue": "bad", "running": "accent"}.get(status, "")
    title = esc(p.get("title"))
    if p.get("url"):
        title = _link(ctx, p["url"], title)
    span = " → ".join(fmt_when(p[k]) for k in ("starts", "ends") if p.get(k))
    return (
        f'<div class="tile goal status-{esc(status)}"><div class="t-title">{title}</div>'
        f"<div>{_badge(status, tone)}</div>"
        + (f"<div>{ctx.inline(p['outcome'])}</div>" if p.get("outcome") else "")
        + _progress(p.get("done"), p.get("total"), p.get("percent"))
        + _meta(esc(span))
        + "</div>"
    )


#: The policy an embedded HTML element runs under: its own inline script, styles
#: and data pictures, and no network at all (no beacons, no fetches, no remote
#: assets), like the artifact card's sandbox. It leads the frame's document, so
#: it holds before anything the author wrote is parsed.
HTML_FRAME_POLICY = (
    "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
    "img-src data: blob:; font-src data:; media-src data: blob:; form-action 'none'"
)


def _html(ctx: _Ctx, p: dict) -> str:
    src = p.get("src")
    if not isinstance(src, str) and isinstance(p.get("files"), dict):
        src = p["files"].get("index.html")
    width = as_number(p.get("width")) or as_number(p.get("natW"))
    height = as_number(p.get("height")) or as_number(p.get("natH")) or 480
    style = f"height:{height:.0f}px" + (f";width:{min(width, 1600):.0f}px" if width else "")
    title = esc(p.get("title") or "Embedded HTML")
    src = (
        f'<!doctype html><meta http-equiv="Content-Security-Policy" content="{HTML_FRAME_POLICY}">'
        + (src or "")
    )
    # Sandboxed without allow-same-origin: the frame gets an opaque origin and
    # cannot reach this page, its storage or its cookies.
    return (
        f'<div class="html-frame"><iframe sandbox="allow-scripts" referrerpolicy="no-referrer" '
        f'title="{title}" style="{style}" srcdoc="{esc(src)}"></iframe></div>'
    )


def _media(ctx: _Ctx, p: dict) -> str:
    src = p.get("src") if isinstance(p.get("src"), str) else None
    mime = str(p.get("mime") or "").lower()
    lower = (src or "").lower().split("?")[0]
    safe = ctx.url(src) if src else None
    caption = f"<figcaption>{ctx.inline(p['caption'])}</figcaption>" if p.get("caption") else ""
    alt = esc(p.get("alt") or "")
    name = esc(lower.rsplit("/", 1)[-1] or p.get("ref") or "file")
    if safe is None:
        inner = f'<div class="placeholder" role="img" aria-label="{alt}">{esc(p.get("ref") or "media")}</div>'
    elif mime == "application/pdf" or lower.endswith(".pdf"):
        inner = f'<object data="{esc(safe)}" type="application/pdf" aria-label="{alt}"><a href="{esc(safe)}">{name}</a></object>'
    elif mime.startswith("video/") or lower.endswith((".mp4", ".webm", ".mov", ".ogv")):
        inner = f'<video controls preload="metadata" src="{esc(safe)}" aria-label="{alt}"></video>'
    elif mime.startswith("audio/") or lower.endswith((".mp3", ".wav", ".ogg", ".m4a", ".flac")):
        inner = f'<audio controls preload="metadata" src="{esc(safe)}" aria-label="{alt}"></audio>'
    elif mime.startswith("image/") and site_address(safe) is not None:
        inner = site_picture_html(safe, str(p.get("alt") or ""))
    elif mime.startswith("image/") and ctx.url(src, image=True):
        inner = f'<img src="{esc(safe)}" alt="{alt}" loading="lazy">'
    else:
        inner = f'<a class="download" href="{esc(safe)}" download>⤓ {name}</a>'
    return f'<figure class="media">{inner}{caption}</figure>'


def _meter(ctx: _Ctx, p: dict) -> str:
    out = f'<div class="chart-title">{esc(p["title"])}</div>' if p.get("title") else ""
    for item in p.get("items") or []:
        if not isinstance(item, dict):
            continue
        value = as_number(item.get("value")) or 0.0
        top = as_number(item.get("max")) or 1.0
        pct = max(0.0, min(100.0, value / top * 100))
        tone = item.get("tone") if item.get("tone") in TONES else ""
        threshold = as_number(item.get("threshold"))
        mark = (
            f'<span class="threshold" style="left:{max(0.0, min(100.0, threshold / top * 100)):.1f}%" title="threshold {esc(fmt_num(threshold))}"></span>'
            if threshold is not None
            else ""
        )
        unit = item.get("unit")
        note = f'<div class="note">{ctx.inline(item["note"])}</div>' if item.get("note") else ""
        out += (
            f'<div class="meter"><div class="row"><span>{esc(item.get("label"))}</span>'
            f"<span>{esc(fmt_value(value, unit))} / {esc(fmt_value(top, unit))}</span></div>"
            f'<div class="bar"><span class="fill {tone}" style="width:{pct:.1f}%"></span>{mark}</div>{note}</div>'
        )
    return out


def _milestone(ctx: _Ctx, p: dict) -> str:
    reached = p.get("reached")
    state = _badge("reached", "good") if reached else _badge("open")
    return (
        f'<div class="tile milestone"><div class="t-title">◆ {esc(p.get("title"))}</div><div>{state}</div>'
        + _meta(
            f"due {esc(fmt_when(p['due']))}" if p.get("due") else "",
            f"reached {esc(fmt_when(reached))}" if reached else "",
        )
        + "</div>"
    )


def _mock_node(node: Any, depth: int = 0) -> str:
    if not isinstance(node, dict) or depth > 12:
        return ""
    kind = "".join(ch for ch in str(node.get("t") or "box").lower() if ch.isalnum() or ch == "-")[
        :24
    ]
    classes = ["mk", f"mk-{kind}"]
    children = node.get("children") if isinstance(node.get("children"), list) else []
    if not children:
        classes.append("mk-leaf")
    if node.get("dir") == "row":
        classes.append("row")
    if node.get("primary"):
        classes.append("primary")
    style = ""
    h = node.get("h")
    if isinstance(h, (int, float)) and not isinstance(h, bool):
        style = f' style="min-height:{max(0, min(float(h), 2000)):.0f}px"'
    elif isinstance(h, str) and h in ("sm", "md", "lg", "xl"):
        classes.append(f"h-{h}")
    label = node.get("label") or node.get("name") or ("" if children else kind)
    one = f'<div class="{" ".join(classes)}"{style}>{esc(label) if label else ""}{"".join(_mock_node(c, depth + 1) for c in children)}</div>'
    n = node.get("n")
    count = (
        int(n) if isinstance(n, (int, float)) and not isinstance(n, bool) and 1 <= n <= 24 else 1
    )
    return one * count


def _mockup(ctx: _Ctx, p: dict) -> str:
    tokens = p.get("tokens") if isinstance(p.get("tokens"), dict) else {}
    radius = as_number(tokens.get("radius"))
    style = (
        f' style="--mk-radius:{max(0.0, min(radius, 40.0)):.0f}px"' if radius is not None else ""
    )
    frames = []
    for frame in p.get("frames") or []:
        if not isinstance(frame, dict):
            continue
        w = as_number(frame.get("w")) or 360
        h = as_number(frame.get("h"))
        size = f"width:{min(w, 1600):.0f}px" + (f";min-height:{min(h, 4000):.0f}px" if h else "")
        tree = "".join(_mock_node(n) for n in frame.get("tree") or [])
        frames.append(
            f'<div class="mock-frame"><div class="mk-name">{esc(frame.get("name"))}</div>'
            f'<div class="mock-screen" style="{size}">{tree}</div></div>'
        )
    return f'<div class="mockups"{style}>{"".join(frames)}</div>'


def _ref(ctx: _Ctx, p: dict) -> str:
    target = p.get("target") if isinstance(p.get("target"), dict) else {}
    if p.get("section"):
        section = str(p["section"])
        href = "#" + (section if _SECTION_ID.match(section) else slugify(section))
        label = p.get("label") or p["section"]
        return f'<a class="ref-chip" href="{esc(href)}">{esc(label)}</a>'
    if p.get("page"):
        href, fallback = "#" + slugify(str(p["page"])), p["page"]
    else:
        href, fallback = f"#card-{esc(p.get('card'))}", f"card {p.get('card')}"
    label = p.get("label") or target.get("title") or fallback
    if p.get("mode") in ("preview", "embed") and target:
        summary = target.get("summary") or target.get("kind") or ""
        return (
            f'<a class="ref-preview" href="{esc(href)}"><div class="t-title">{esc(label)}</div>'
            f'<div class="caption">{esc(summary)}</div></a>'
        )
    return f'<a class="ref-chip" href="{esc(href)}">{esc(label)}</a>'


def _release(ctx: _Ctx, p: dict) -> str:
    status = p.get("status") or "cut"
    title = esc(p.get("title"))
    if p.get("url"):
        title = _link(ctx, p["url"], title)
    return (
        f'<div class="tile release"><div class="t-title">{title}</div>'
        f"<div>{_badge(status, 'good' if status == 'cut' else 'accent')}</div>"
        + _meta(
            f"{esc(fmt_num(p['prs']))} PRs" if p.get("prs") is not None else "",
            esc(fmt_when(p.get("at"))) if p.get("at") else "",
        )
        + "</div>"
    )


def _section(ctx: _Ctx, p: dict) -> str:
    # Authored or derived section ids are reserved before rendering (see
    # _reserve_section_ids), so they are used verbatim and headings yield.
    if isinstance(p.get("id"), str) and _SECTION_ID.match(p["id"]):
        anchor = p["id"]
    else:
        anchor = ctx.slugger.slug(str(p.get("label") or p.get("title") or "section"))
    head = ""
    if p.get("label"):
        head += f'<div class="eyebrow">{esc(p["label"])}</div>'
    if p.get("title"):
        head += f"<h2>{ctx.inline(p['title'])}</h2>"
    if p.get("note"):
        head += f'<p class="sec-note">{ctx.inline(p["note"])}</p>'
    return (
        f'<section class="section" id="{esc(anchor)}"><div class="sec-head">{head}</div>'
        f"{_elements(ctx, p.get('elements'))}</section>"
    )


def _stat(ctx: _Ctx, p: dict) -> str:
    cells = []
    for item in p.get("items") or []:
        if not isinstance(item, dict):
            continue
        tone = item.get("tone") if item.get("tone") in TONES else ""
        raw = item.get("value")
        value = item.get("display") or (raw if isinstance(raw, str) else fmt_num(raw))
        unit = (
            f'<span class="unit">{esc(item["unit"])}</span>'
            if item.get("unit") and not item.get("display")
            else ""
        )
        delta = item.get("delta")
        delta_html = (
            f'<div class="delta t-{tone or "neutral"}">{esc(delta if isinstance(delta, str) else fmt_num(delta))}</div>'
            if delta is not None
            else ""
        )
        spark = ""
        if item.get("spark"):
            line = _spark(item["spark"], 0, 2, 200, 24, "ln0")
            spark = (
                f'<svg class="spark" viewBox="0 0 200 28" preserveAspectRatio="none" aria-hidden="true">{line}</svg>'
                if line
                else ""
            )
        note = f'<div class="note">{ctx.inline(item["note"])}</div>' if item.get("note") else ""
        cells.append(
            f'<div class="stat"><div class="label">{esc(item.get("label"))}</div>'
            f'<div class="value {("t-" + tone) if tone else ""}">{esc(value)}{unit}</div>{delta_html}{note}{spark}</div>'
        )
    title = f'<div class="chart-title">{esc(p["title"])}</div>' if p.get("title") else ""
    return f'{title}<div class="stat-strip">{"".join(cells)}</div>'


def _timeline(ctx: _Ctx, p: dict) -> str:
    items = [i for i in p.get("items") or [] if isinstance(i, dict)]
    title = f'<div class="chart-title">{esc(p["title"])}</div>' if p.get("title") else ""

    # dates read "Mar 4 2026", "Mar 9" down the run; other labels as written
    whens_read = date_labels([i.get("when") for i in items])

    def entry(item: dict, when: str) -> str:
        status = item.get("status")
        tone = {"done": "good", "good": "good", "warn": "warn", "bad": "bad"}.get(str(status), "")
        tone = tone or {"resolved": "good", "pending": "warn", "refuted": ""}.get(
            FINDING_STATUS_READING.get(str(status), ""), ""
        )
        head = f'<span class="when">{esc(when)}</span> ' if when else ""
        head += (
            f'<span class="t-head">{ctx.inline(item.get("title"))}</span>'
            if item.get("title")
            else ""
        )
        head += f" {_badge(status, tone)}" if status else ""
        body = (
            f"<div><strong>{ctx.inline(item['summary'])}</strong></div>"
            if item.get("summary")
            else ""
        )
        body += _paragraphs(ctx, item.get("text"))
        evidence = item.get("evidence")
        if evidence:
            listed = evidence if isinstance(evidence, list) else [evidence]
            body += (
                '<ul class="evidence">'
                + "".join(f"<li>{ctx.inline(e)}</li>" for e in listed)
                + "</ul>"
            )
        return f"<li><div>{head}</div>{body}</li>"

    entries = "".join(entry(i, read) for i, read in zip(items, whens_read, strict=True))
    whens = [parse_when(i.get("when")) for i in items]
    if p.get("axis") == "time" and items and all(whens):
        t0 = min(w.timestamp() for w in whens if w)
        span = (max(w.timestamp() for w in whens if w) - t0) or 1.0
        ticks = "".join(
            f'<span class="tick" style="left:{(w.timestamp() - t0) / span * 100:.2f}%" title="{esc(i.get("when"))}"><span>{esc(read)}</span></span>'
            for i, w, read in zip(items, whens, whens_read, strict=True)
            if w
        )
        return f'{title}<div class="timeline time"><div class="axis">{ticks}</div><ol>{entries}</ol></div>'
    return f'{title}<ol class="timeline spine">{entries}</ol>'


def _verdict(ctx: _Ctx, p: dict) -> str:
    tone = p.get("tone") if p.get("tone") in ("good", "warn", "bad", "info") else "info"
    state = f'<div class="state">{ctx.inline(p["state"])}</div>' if p.get("state") else ""
    return f'<div class="verdict {tone}" role="note">{state}{_paragraphs(ctx, p.get("text"))}</div>'


def _unknown(kind: str) -> Callable[[_Ctx, dict], str]:
    def draw(ctx: _Ctx, p: dict) -> str:
        text = p.get("md") or p.get("text") or p.get("title")
        shown = ctx.md(text) if isinstance(text, str) else ""
        raw = json.dumps(p, indent=1, sort_keys=True, default=str)[:4000]
        return (
            f'<div class="unknown-kind"><strong>{esc(kind)}</strong>{shown}'
            f"<details><summary>payload</summary><pre>{esc(raw)}</pre></details></div>"
        )

    return draw


from layoutkit.render._table import table_html  # noqa: E402

ELEMENT_HTML: dict[str, Callable[[_Ctx, dict], str]] = {
    "chart": _chart,
    "chips": _chips,
    "code": _code,
    "columns": _columns,
    "compare": _compare,
    "deploy": _deploy,
    "diagram": _diagram,
    "doc": _nested_doc,
    "epic": _epic,
    "figure": _figure,
    "finding": _finding,
    "gallery": _gallery,
    "goal": _goal,
    "html": _html,
    "list": _list,
    "media": _media,
    "meter": _meter,
    "milestone": _milestone,
    "mockup": _mockup,
    "page": _page,
    "prose": _prose,
    "text": _prose,
    "ref": _ref,
    "release": _release,
    "section": _section,
    "stat": _stat,
    "table": lambda ctx, p: table_html(ctx, p),
    "timeline": _timeline,
    "verdict": _verdict,
}


_SECTION_ID = re.compile(r"^[a-z0-9][a-z0-9-]{0,63}$")


def _reserve_section_ids(ctx: _Ctx, elements: Any) -> None:
    for element in elements or []:
        if not isinstance(element, dict):
            continue
        kind, payload = element_parts(element)
        if (
            kind == "section"
            and isinstance(payload.get("id"), str)
            and _SECTION_ID.match(payload["id"])
        ):
            ctx.slugger.reserve(payload["id"])
        if kind in ("doc", "section"):
            _reserve_section_ids(ctx, payload.get("elements"))
        elif kind == "columns":
            for col in payload.get("cols") or []:
                if isinstance(col, dict):
                    _reserve_section_ids(ctx, col.get("elements"))
        elif kind == "compare":
            for side in (payload.get("a"), payload.get("b")):
                if isinstance(side, dict):
                    _reserve_section_ids(ctx, side.get("elements"))


def element_html(ctx: _Ctx, element: dict) -> str:
    kind, payload = element_parts(element)
    draw = ELEMENT_HTML.get(kind) or _unknown(kind)
    slot = {"chart": "data", "table": "rows"}.get(kind)
    if slot and element.get("dataRef") and not payload.get(slot):
        # Bulk data lives outside the payload; the caller resolves dataRef
        # before rendering (this package does no I/O).
        title = esc(payload.get("title") or kind)
        inner = f'<div class="placeholder" role="img" aria-label="{title}">{title}: data kept apart (dataRef)</div>'
    else:
        inner = draw(ctx, payload)
    return f'<div class="el el-{esc(kind)}"{_aud_attr(element)}>{inner}</div>'


def _elements(ctx: _Ctx, elements: Any) -> str:
    return "".join(element_html(ctx, e) for e in elements or [] if isinstance(e, dict))


def _title_html(title: str, accent: Any) -> str:
    if isinstance(accent, str) and accent and accent in title:
        before, _, after = title.partition(accent)
        return f'{esc(before)}<span class="accent-phrase">{esc(accent)}</span>{esc(after)}'
    return esc(title)


def _select(name: str, label: str, options: list[tuple[str, str]], current: str) -> str:
    opts = "".join(
        f'<option value="{esc(v)}"{" selected" if v == current else ""}>{esc(t)}</option>'
        for v, t in options
    )
    return f'<label>{esc(label)} <select data-switch="{esc(name)}">{opts}</select></label>'


def render_document(doc: dict, *, audience: str | None = None, typeset: str | None = None) -> str:
    """See :func:`layoutkit.render.render_doc`."""
    if audience is not None and audience not in AUDIENCES:
        raise ValueError(f"audience must be one of {sorted(AUDIENCES)}, got {audience!r}")
    if typeset is not None and typeset not in TYPESETS:
        raise ValueError(f"typeset must be one of {list(TYPESETS)}, got {typeset!r}")
    _, payload = element_parts(doc)
    if audience is not None:
        # A bare doc payload is filtered as the doc element it stands for.
        envelope = doc if payload is not doc else {"kind": "doc", "payload": doc}
        filtered = filter_audience(envelope, audience)
        payload = element_parts(filtered)[1] if filtered else {**payload, "elements": []}
    ctx = _Ctx(payload.get("sources"))
    _reserve_section_ids(ctx, payload.get("elements"))
    direction = payload.get("direction") if payload.get("direction") in DIRECTIONS else "editorial"
    chosen = typeset or (payload.get("typeset") if payload.get("typeset") in TYPESETS else "house")
    accent = accent_pair(payload.get("accentColor"), payload.get("project"))
    title = str(payload.get("title") or "")

    head = ""
    if payload.get("kicker"):
        head += f'<div class="kicker">{esc(payload["kicker"])}</div>'
    if title:
        head += f'<h1 id="{esc(ctx.slugger.slug(title))}">{_title_html(title, payload.get("accent"))}</h1>'
    if payload.get("intro"):
        head += f'<p class="intro">{ctx.inline(payload["intro"])}</p>'
    head += chips_html(payload.get("chips"))

    body = _elements(ctx, payload.get("elements"))
    controls = _select("typeset", "Type", [(t, t) for t in TYPESETS], chosen)
    if audience is None:
        controls += _select(
            "audience",
            "Audience",
            [
                ("all", "everyone"),
                ("public", "public"),
                ("technical", "technical"),
                ("internal", "internal"),
            ],
            "all",
        )
        note = ""
    else:
        note = f'<div class="audience-note">Edition for the {esc(audience)} audience</div>'
    page = (
        "<!DOCTYPE html>\n"
        f'<html lang="en" data-typeset="{esc(chosen)}" data-audience="{esc(audience or "all")}" class="dir-{direction}{" export" if audience else ""}">'
        '<head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        '<meta name="referrer" content="no-referrer">'
        f"<title>{esc(title or 'Document')}</title>"
        f"<style>{document_css(accent, ctx.views)}</style></head>"
        f'<body class="dir-{direction}"><main class="doc">'
        f'<div class="controls" hidden>{controls}</div>{note}'
        f'<header class="doc-head">{head}</header>{body}</main>'
        f"<script>{_SCRIPT}</script></body></html>\n"
    )
    return page
