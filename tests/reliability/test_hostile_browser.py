"""Hostile content on a board and in a document, loaded in headless Chromium: nothing runs.

A generated corpus crosses attack vectors (script tags, event handlers,
javascript: and data: URLs in every spelling, CSS url() and @import, SVG with
script, markup that tries to close the SVG text or the attribute it sits in,
bidi controls) with every field that carries text or a URL to the screen
(card kinds, frame titles, wire labels, document elements), composed onto
boards through ``Workspace.call`` and read back. Each board's SVG (from
``render_board``) is loaded as a page of its own and inside a page that
inserts it the way the board viewer does (``innerHTML``); the documents'
HTML (``render_doc`` of the stored doc cards) is loaded too. Every payload,
if it ran, would do four things, each watched: request a loopback server the
test runs, set the page title, log to the console and push its id onto a
global. A control page proves each channel is seen.

``LAYOUTKIT_RELIABILITY_HOSTILE_MUTATIONS`` (default 5, at most 5) picks how
many spellings of each vector are used; the count of variants rendered is printed.
"""

from __future__ import annotations

import base64
import json
import re
import threading
from collections.abc import Iterator
from http.server import ThreadingHTTPServer
from typing import Any

import pytest

from layoutkit import Principal, Workspace
from layoutkit.render import render_doc
from tests.browser import CHROMIUM, SKIP_REASON, run_chromium
from tests.loopback import QuietHandler
from tests.reliability.conftest import Backend, count

pytestmark = [pytest.mark.browser, pytest.mark.skipif(CHROMIUM is None, reason=SKIP_REASON)]

MUTATIONS = min(count("hostile_mutations", 5), 5)
CARDS_PER_BOARD = 1100
AGENT = Principal.agent("hostile")
#: Built at run time so the marker never appears literally in a payload.
MARK = "PW" + "NED"


class Beacon:
    """A loopback HTTP server: serves the pages under test, records every other request."""

    def __init__(self) -> None:
        self.pages: dict[str, tuple[str, bytes]] = {}
        self.hits: list[str] = []
        beacon = self

        class Handler(QuietHandler):
            def _answer(self) -> None:
                page = beacon.pages.get(self.path)
                if page is None:
                    if self.path != "/favicon.ico":  # the browser's own request
                        beacon.hits.append(self.path)
                    self.send_response(204)
                    self.send_header("access-control-allow-origin", "*")
                    self.end_headers()
                    return
                self.send_response(200)
                self.send_header("content-type", page[0])
                self.end_headers()
                self.wfile.write(page[1])

            do_GET = do_POST = do_HEAD = _answer

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self.thread.start()

    def serve(self, path: str, mime: str, body: str) -> str:
        self.pages[path] = (mime, body.encode("utf-8"))
        return self.base + path

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(scope="module")
def beacon() -> Iterator[Beacon]:
    b = Beacon()
    try:
        yield b
    finally:
        b.close()


def fire(base: str, vid: str) -> str:
    """What a payload does if it runs: every one of these is watched."""
    return (
        f"fetch('{base}/js/{vid}');document.title='PW'+'NED';console.log('PW'+'NED');"
        f"window.pwned=(window.pwned||[]).concat(['{vid}'])"
    )


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode("ascii")


def _svg_document(f: str) -> str:
    """An SVG document that runs ``f`` twice over: from onload and from a script."""
    return f'<svg xmlns="http://www.w3.org/2000/svg" onload="{f}"><script>{f}</script></svg>'


def text_vectors(base: str, vid: str) -> list[str]:
    """Markup and markdown that would run script or load a stylesheet if rendered raw."""
    f = fire(base, vid)
    svg_script = _svg_document(f)
    return [
        f"<script>{f}</script>",
        f'<img src=x onerror="{f}">',
        f'<svg onload="{f}"></svg>',
        f"<svg><script>{f}</script></svg>",
        f'<iframe src="javascript:{f}"></iframe>',
        f'<iframe srcdoc="<script>{f}</script>"></iframe>',
        f'<a href="javascript:{f}">click</a>',
        f'<body onload="{f}">',
        f'<details open ontoggle="{f}">x</details>',
        f'<object data="javascript:{f}"></object>',
        f'<embed src="javascript:{f}">',
        f'<meta http-equiv="refresh" content="0;url=javascript:{f}">',
        f"<style>@import url('{base}/css/{vid}');</style>",
        f"<div style=\"background:url('{base}/css/{vid}')\">x</div>",
        f'<link rel="stylesheet" href="{base}/css/{vid}">',
        f'"><script>{f}</script>',
        f'\'><img src=x onerror="{f}">',
        f"</text><script>{f}</script>",
        f"]]><script>{f}</script>",
        f"</foreignObject><script>{f}</script>",
        f'<foreignObject><body onload="{f}"></body></foreignObject>',
        f'<animate attributeName="href" values="javascript:{f}"/>',
        f'<set attributeName="onmouseover" to="{f}"/>',
        f'<use href="data:image/svg+xml;base64,{_b64(svg_script)}#x"/>',
        f'<image href="javascript:{f}"/>',
        f'<math><mtext><table><mglyph><style><img src=x onerror="{f}">',
        f'<x:script xmlns:x="http://www.w3.org/2000/svg">{f}</x:script>',
        f'<a xlink:href="javascript:{f}"><text>x</text></a>',
        f"[link](javascript:{f})",
        f"[case](JaVaScRiPt:{f})",
        f"[entity](&#106;avascript:{f})",
        f"![image](javascript:{f})",
        f"[data](data:text/html;base64,{_b64(f'<script>{f}</script>')})",
        f"![svg](data:image/svg+xml;base64,{_b64(svg_script)})",
        f"<javascript:{f}>",
        f"[ref][r]\n\n[r]: javascript:{f}",
        f'[title](https://example.com "x\\" onmouseover=\\"{f}")',
        f'$<img src=x onerror="{f}">$',
        f"```html\n</code></pre><script>{f}</script>\n```",
        f'| a |\n|---|\n| <img src=x onerror="{f}"> |',
        f'- [ ] <img src=x onerror="{f}">',
    ]


def url_vectors(base: str, vid: str) -> list[str]:
    """URLs that would run script if a link or image followed them."""
    f = fire(base, vid)
    svg = _svg_document(f)
    return [
        f"javascript:{f}",
        f" JAVASCRIPT:{f}",
        f"java\tscript:{f}",
        f"java\u202escript:{f}",
        f"\u202ejavascript:{f}",
        f"&#106;avascript:{f}",
        f"javascript&colon;{f}",
        f"jav&#x09;ascript:{f}",
        f"vbscript:{f}",
        f"data:text/html,<script>{f}</script>",
        f"data:image/svg+xml,{svg}",
        f"data:image/svg+xml;base64,{_b64(svg)}",
        f"data:text/html;base64,{_b64(f'<script>{f}</script>')}",
    ]


_BIDI = ("\u202e", "\u2066", "\u200f")


def mutate(value: str, n: int) -> str:
    """Spelling n of a vector: as is, wrapped in bidi controls, upper-cased tag names,
    zero-width and control characters inside the words a filter looks for, and the
    vector behind a line break and a nested quote."""
    if n == 1:
        return f"{_BIDI[len(value) % 3]}{value}\u202c\u2069"
    if n == 2:
        return re.sub(r"<(/?)([a-z]+)", lambda m: f"<{m.group(1)}{m.group(2).upper()}", value)
    if n == 3:
        return (
            value.replace("script", "scr\u200dipt")
            .replace("javascript:", "java\x00script:")
            .replace("onerror", "on\u200berror")
        )
    if n == 4:
        return f"x\r\n> \"'`{value}"
    return value


def text_carriers(s: str) -> list[dict[str, Any]]:
    """Every card field that shows text."""
    return [
        {"kind": "text", "payload": {"md": s}},
        {"kind": "note", "payload": {"md": s}},
        {"kind": "callout", "payload": {"title": s, "md": s}},
        {"kind": "shape", "payload": {"label": s}},
        {"kind": "checklist", "payload": {"title": s, "items": [{"text": s}]}},
        {"kind": "chat", "payload": {"title": s, "turns": [{"role": "user", "text": s}]}},
        {"kind": "step", "payload": {"title": s, "note": s}},
        {"kind": "page", "payload": {"md": s}},
        {"kind": "file", "payload": {"name": s}},
        {"kind": "artifact", "payload": {"title": s, "body": "<p>x</p>", "runtime": "tw4"}},
        {
            "kind": "doc",
            "payload": {
                "title": s,
                "kicker": s,
                "elements": [
                    {"kind": "prose", "payload": {"md": s}},
                    {"kind": "chips", "payload": {"items": [{"k": s, "v": s}]}},
                    {
                        "kind": "table",
                        "payload": {"cols": [{"key": "a"}], "rows": [{"a": s}]},
                    },
                ],
            },
        },
    ]


def url_carriers(u: str) -> list[dict[str, Any]]:
    """Every card field that holds a URL."""
    return [
        {"kind": "media", "payload": {"src": u, "alt": "x"}},
        {"kind": "link", "payload": {"url": u, "title": "x"}},
        {
            "kind": "doc",
            "payload": {
                "title": "urls",
                "elements": [
                    {"kind": "figure", "payload": {"src": u, "alt": "x"}},
                    {"kind": "media", "payload": {"src": u}},
                    {
                        "kind": "table",
                        "payload": {
                            "cols": [{"key": "a", "type": "link"}],
                            "rows": [{"a": u}, {"a": {"v": "x", "href": u}}],
                        },
                    },
                    {"kind": "gallery", "payload": {"items": [{"src": u, "alt": "a"}]}},
                ],
            },
        },
    ]


def corpus(ws: Workspace, base: str) -> tuple[list[dict[str, Any]], list[str], int]:
    """The hostile cards that pass the content contract (others are refused at the door,
    which is safe too), plus labels for frames and wires; and how many were refused."""
    cards: list[dict[str, Any]] = []
    labels: list[str] = []
    refused = 0
    candidates: list[dict[str, Any]] = []
    for m in range(MUTATIONS):
        for i in range(len(text_vectors(base, "x"))):
            vid = f"t{m}-{i}"
            s = mutate(text_vectors(base, vid)[i], m)
            labels.append(s)
            candidates += text_carriers(s)
        for i in range(len(url_vectors(base, "x"))):
            vid = f"u{m}-{i}"
            u = mutate(url_vectors(base, vid)[i], m)
            candidates += url_carriers(u)
    for card in candidates:
        if ws.call("validate", {"card": card})["ok"]:
            cards.append(card)
        else:
            refused += 1
    return cards, labels, refused


HARNESS = """<!doctype html><html><head><meta charset="utf-8"><title>harness</title></head>
<body><main id="board"></main><script>
fetch(__SVG__).then(r => r.text()).then(t => {
  document.getElementById("board").innerHTML = t;  // as the board viewer draws
  setTimeout(() => {
    document.body.setAttribute("data-result", JSON.stringify(window.pwned || []));
    document.body.setAttribute("data-done", "1");
  }, 1500);
});
</script></body></html>"""


def load(url: str) -> tuple[str, str]:
    result = run_chromium(
        "--dump-dom", "--enable-logging=stderr", "--v=0", "--virtual-time-budget=4000", url
    )
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout, result.stderr


def executed(dom: str, log: str) -> list[str]:
    """What a run payload leaves behind in the page or the console."""
    seen = []
    if MARK in dom:
        seen.append("page title or text set by script")
    if f'"{MARK}"' in log:
        seen.append("console message")
    result = re.search(r'data-result="([^"]*)"', dom)
    if result and json.loads(result.group(1).replace("&quot;", '"')) != []:
        seen.append(f"globals set: {result.group(1)[:200]}")
    return seen


def test_the_detector_sees_a_payload_that_runs(beacon: Beacon) -> None:
    """Control: the same payload, run for real, is caught on every channel."""
    before = len(beacon.hits)
    f = fire(beacon.base, "control")
    url = beacon.serve(
        "/page/control.svg",
        "image/svg+xml",
        f'<svg xmlns="http://www.w3.org/2000/svg"><script>{f}</script></svg>',
    )
    dom, log = load(url)
    assert "console message" in executed(dom, log)
    assert "/js/control" in beacon.hits[before:]
    svg_url = beacon.serve(
        "/page/control-inner.svg",
        "image/svg+xml",
        f'<svg xmlns="http://www.w3.org/2000/svg"><image href="x" onerror="{f}"/></svg>',
    )
    harness = beacon.serve(
        "/page/control.html", "text/html", HARNESS.replace("__SVG__", json.dumps(svg_url))
    )
    dom, log = load(harness)
    found = executed(dom, log)
    assert "page title or text set by script" in found
    assert any(s.startswith("globals set") for s in found)
    assert "/js/control" in beacon.hits[before:]
    beacon.hits[before:] = []


def test_an_embedded_html_element_runs_without_any_network(beacon: Beacon) -> None:
    """The html element's script runs in its sandbox, but reaches no server."""
    before = len(beacon.hits)
    base = beacon.base
    src = (
        f'<!doctype html><html><head><link rel="stylesheet" href="{base}/css/x">'
        f'<script src="{base}/js/src"></script></head><body>'
        f'<img src="{base}/img/x"><script>fetch("{base}/js/fetch");'
        f'new Image().src="{base}/img/js";navigator.sendBeacon("{base}/js/beacon");'
        f'document.body.dataset.ran="yes"</script></body></html>'
    )
    element = {"kind": "html", "payload": {"src": src}}
    doc = {"kind": "doc", "payload": {"title": "Embed", "elements": [element]}}
    html = render_doc(doc)
    assert "<iframe" in html
    page = beacon.serve("/page/html-element.html", "text/html", html)
    load(page)
    assert beacon.hits[before:] == []
    # Control: the same document on its own page reaches the server on every channel.
    load(beacon.serve("/page/html-element-control.html", "text/html", src))
    reached = set(beacon.hits[before:])
    assert {"/css/x", "/js/src", "/img/x", "/js/fetch", "/img/js", "/js/beacon"} <= reached
    beacon.hits[before:] = []


def test_hostile_boards_and_documents_execute_nothing(backend: Backend, beacon: Beacon) -> None:
    with backend.open() as ws:
        cards, labels, refused = corpus(ws, beacon.base)
        boards = []
        nboards = -(-len(cards) // CARDS_PER_BOARD)
        for n in range(0, len(cards), CARDS_PER_BOARD):
            slug = f"hostile-{n // CARDS_PER_BOARD}"
            ws.call("create", {"kind": "board", "slug": slug})
            batch = cards[n : n + CARDS_PER_BOARD]
            # Every text vector once as a frame title and once as a wire label.
            chunk = labels[n // CARDS_PER_BOARD :: nboards]
            receipt = ws.call("compose_board", {"board": slug, "cards": batch}, AGENT)
            ids = [c["id"] for c in receipt["cards"]]
            # Frame titles and wire labels carry the text vectors too.
            extra = ws.call(
                "compose_board",
                {
                    "board": slug,
                    "cards": [
                        {"kind": "note", "ref": f"n{i}", "payload": {"md": "n"}}
                        for i in range(len(chunk))
                    ]
                    + [
                        {"kind": "section", "payload": {"title": t[:200]}, "children": [f"n{i}"]}
                        for i, t in enumerate(chunk)
                    ],
                    "edges": [
                        {"from": ids[i], "to": ids[i + 1], "label": t[:200]}
                        for i, t in enumerate(chunk)
                    ],
                },
                AGENT,
            )
            assert extra["cards"]
            boards.append(slug)
        svgs = {slug: ws.call("render_board", {"board": slug}, AGENT)["svg"] for slug in boards}
        docs = [
            c["payload"]
            for slug in boards
            for c in ws.call("scrape_board", {"board": slug, "pages": "full"})["cards"]
            if c["kind"] == "doc"
        ]
    assert refused < len(cards), "the contract refused most of the corpus; it tests nothing"
    pages = []
    for slug, svg in svgs.items():
        pages.append(beacon.serve(f"/page/{backend.kind}-{slug}.svg", "image/svg+xml", svg))
        pages.append(
            beacon.serve(
                f"/page/{backend.kind}-{slug}.html",
                "text/html",
                HARNESS.replace("__SVG__", json.dumps(pages[-1])),
            )
        )
    # All documents' elements in a few long documents, each rendered as the stored doc.
    elements = [e for d in docs for e in d.get("elements", [])]
    for n in range(0, len(elements), 300):
        html = render_doc(
            {
                "kind": "doc",
                "payload": {"title": docs[0]["title"], "elements": elements[n : n + 300]},
            }
        )
        pages.append(beacon.serve(f"/page/{backend.kind}-doc-{n}.html", "text/html", html))
    for d in docs[:: max(1, len(docs) // 2)]:
        html = render_doc({"kind": "doc", "payload": d})
        pages.append(
            beacon.serve(f"/page/{backend.kind}-doc-one-{len(pages)}.html", "text/html", html)
        )
    before = len(beacon.hits)
    for url in pages:
        dom, log = load(url)
        assert not executed(dom, log), (url, executed(dom, log))
        if url.endswith(".html") and "-doc-" not in url:
            assert 'data-done="1"' in dom, f"the harness did not finish: {url}"
    assert beacon.hits[before:] == [], f"requests reached the beacon: {beacon.hits[before:][:20]}"
    print(
        f"\n{backend.kind}: {len(cards)} hostile cards ({refused} more refused by the contract), "
        f"{len(labels) * 2} frame and wire labels, {len(elements)} doc elements, "
        f"{len(pages)} pages loaded in Chromium"
    )
