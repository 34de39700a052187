"""The board viewer page: draws a board from the SVG the server renders, and keeps it fresh.

The page itself holds no rules: it calls ``render_board`` and polls
``board_stamp`` through the same ``/api/v1/ops`` road as every other client.
It asks only for the region of the board in view (and half a view around
it), and for more as the reader scrolls, so a board of 50,000 cards opens as
fast as one of fifty.
"""

from __future__ import annotations

import html
import json

#: How often the page asks whether the board changed.
POLL_MS = 2000

_PAGE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>__TITLE__ · layoutkit</title>
<style>
  html, body { margin: 0; height: 100%; background: #eef0f3; font: 14px/1.4 "DejaVu Sans", Verdana, sans-serif; color: #1f2430; }
  header { display: flex; gap: 12px; align-items: center; padding: 8px 16px; background: #fff; border-bottom: 1px solid #d9dde3; }
  header h1 { font-size: 15px; margin: 0; }
  #status { color: #667; font-size: 12px; }
  #board { overflow: auto; height: calc(100% - 42px); }
  #canvas { position: relative; background: #f7f8fa; box-shadow: 0 1px 3px rgba(0,0,0,.12); }
  #canvas svg { position: absolute; display: block; }
  .error { color: #b3261e; padding: 16px; }
</style>
</head>
<body>
<header><h1>__TITLE__</h1><span id="status">loading…</span></header>
<main id="board" aria-live="polite"><div id="canvas"></div></main>
<script>
(() => {
  const SLUG = __SLUG__;
  // Board pixels of margin around the cards.
  const PAD = 24;
  // The credential is the HttpOnly cookie this page's address traded its token
  // for; same-origin requests carry it, and no script can read it.
  const headers = {"content-type": "application/json"};
  const status = document.getElementById("status");
  const scroller = document.getElementById("board");
  const canvas = document.getElementById("canvas");
  let stamp = null, extent = null, drawn = null, busy = false, again = false, placed = false;
  // An address ending in #at=x,y opens the board centred on that board point.
  function goToAsked() {
    const m = /^#at=(-?\\d+(?:\\.\\d+)?),(-?\\d+(?:\\.\\d+)?)$/.exec(location.hash);
    if (!m) return;
    const o = origin();
    scroller.scrollLeft = Number(m[1]) - o.x - scroller.clientWidth / 2;
    scroller.scrollTop = Number(m[2]) - o.y - scroller.clientHeight / 2;
  }
  async function op(name, body) {
    const res = await fetch("/api/v1/ops/" + name, {method: "POST", headers, credentials: "same-origin", body: JSON.stringify(body)});
    const data = await res.json();
    if (!res.ok) throw new Error(data.code + ": " + data.message);
    return data;
  }
  // The canvas spans the board's cards plus PAD; its top left is this board point.
  function origin() { return extent ? {x: extent.x - PAD, y: extent.y - PAD} : {x: -PAD, y: -PAD}; }
  // The part of the board on screen, in board coordinates.
  function inView() {
    const o = origin();
    return {x: o.x + scroller.scrollLeft, y: o.y + scroller.scrollTop,
            w: Math.max(scroller.clientWidth, 1), h: Math.max(scroller.clientHeight, 1)};
  }
  // What to draw: the view and half a view around it, inside the canvas. Only
  // those cards are read and drawn, so a board of any size opens at once.
  function wanted() {
    const v = inView(), o = origin();
    const right = extent ? extent.x + extent.w + PAD : Infinity;
    const bottom = extent ? extent.y + extent.h + PAD : Infinity;
    const x0 = Math.max(v.x - v.w / 2, o.x), y0 = Math.max(v.y - v.h / 2, o.y);
    const x1 = Math.max(Math.min(v.x + v.w * 1.5, right), v.x + v.w);
    const y1 = Math.max(Math.min(v.y + v.h * 1.5, bottom), v.y + v.h);
    return {x: x0, y: y0, w: Math.min(x1 - x0, 20000), h: Math.min(y1 - y0, 20000)};
  }
  function covers(r, v) {
    return r && v.x >= r.x && v.y >= r.y && v.x + v.w <= r.x + r.w && v.y + v.h <= r.y + r.h;
  }
  async function draw() {
    if (busy) { again = true; return; }
    busy = true;
    try {
      // At most three rounds: a view larger than a region can be stays partly drawn.
      for (let round = 0; round < 3; round++) {
        again = false;
        const want = wanted();
        const out = await op("render_board", {board: SLUG, format: "svg", region: want});
        extent = out.extent || {x: 0, y: 0, w: 0, h: 0};
        canvas.style.width = (extent.w + 2 * PAD) + "px";
        canvas.style.height = (extent.h + 2 * PAD) + "px";
        canvas.innerHTML = out.svg;
        const svg = canvas.querySelector("svg");
        const o = origin();
        svg.style.left = (want.x - o.x) + "px";
        svg.style.top = (want.y - o.y) + "px";
        drawn = want;
        if (!placed) { placed = true; goToAsked(); }
        document.body.dataset.cards = String(out.cards);
        document.body.dataset.ready = "1";
        status.className = "";
        const shown = out.cards < out.total ? out.cards + " of " + out.total + " cards drawn (those near the view)" : out.total + " cards";
        status.textContent = shown + " · updated " + new Date().toLocaleTimeString();
        // The first answer brings the board's extent: draw again if the view moved with it.
        if (!again && covers(drawn, inView())) break;
      }
    } finally {
      busy = false;
    }
  }
  let pending = null;
  function moved() {
    clearTimeout(pending);
    pending = setTimeout(() => { if (!covers(drawn, inView())) draw().catch(fail); }, 80);
  }
  function fail(err) {
    status.textContent = String(err.message || err);
    status.className = "error";
  }
  scroller.addEventListener("scroll", moved, {passive: true});
  window.addEventListener("resize", moved);
  async function tick() {
    try {
      const now = (await op("board_stamp", {board: SLUG})).stamp;
      if (now !== stamp) { stamp = now; await draw(); }
    } catch (err) {
      fail(err);
    }
    setTimeout(tick, __POLL__);
  }
  tick();
})();
</script>
</body>
</html>
"""


def viewer_page(slug: str) -> str:
    """The viewer HTML for board ``slug``; it holds no credential (its calls send the cookie)."""
    return (
        _PAGE.replace("__TITLE__", html.escape(slug))
        .replace("__SLUG__", json.dumps(slug).replace("<", "\\u003c"))
        .replace("__POLL__", str(POLL_MS))
    )


_MESSAGE_PAGE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>__TITLE__ · layoutkit</title>
<style>
  body { margin: 0; padding: 48px 24px; background: #eef0f3; font: 15px/1.5 "DejaVu Sans", Verdana, sans-serif; color: #1f2430; }
  main { max-width: 560px; margin: 0 auto; background: #fff; padding: 24px 28px; border-radius: 8px; box-shadow: 0 1px 3px rgba(0,0,0,.12); }
  h1 { font-size: 20px; margin: 0 0 8px; }
  p { margin: 0; color: #4a5160; }
</style>
</head>
<body><main><h1>__TITLE__</h1><p>__TEXT__</p></main></body>
</html>
"""


def message_page(title: str, text: str) -> str:
    """A small readable HTML page for a viewer address that leads nowhere (sent with a 404)."""
    return _MESSAGE_PAGE.replace("__TITLE__", html.escape(title)).replace(
        "__TEXT__", html.escape(text)
    )
