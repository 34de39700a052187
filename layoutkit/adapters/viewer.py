"""The board viewer page: draws a board from the SVG the server renders, and keeps it fresh.

The page itself holds no rules: it calls ``render_board`` and polls
``board_stamp`` through the same ``/api/v1/ops`` road as every other client.
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
  #board svg { display: block; margin: 16px; background: #f7f8fa; box-shadow: 0 1px 3px rgba(0,0,0,.12); }
  .error { color: #b3261e; padding: 16px; }
</style>
</head>
<body>
<header><h1>__TITLE__</h1><span id="status">loading…</span></header>
<main id="board" aria-live="polite"></main>
<script>
(() => {
  const SLUG = __SLUG__;
  // The credential is the HttpOnly cookie this page's address traded its token
  // for; same-origin requests carry it, and no script can read it.
  const headers = {"content-type": "application/json"};
  const status = document.getElementById("status");
  const target = document.getElementById("board");
  let stamp = null;
  async function op(name, body) {
    const res = await fetch("/api/v1/ops/" + name, {method: "POST", headers, credentials: "same-origin", body: JSON.stringify(body)});
    const data = await res.json();
    if (!res.ok) throw new Error(data.code + ": " + data.message);
    return data;
  }
  async function draw() {
    const out = await op("render_board", {board: SLUG, format: "svg"});
    target.innerHTML = out.svg;
    document.body.dataset.cards = String(out.cards);
    document.body.dataset.ready = "1";
    status.textContent = out.cards + " cards · updated " + new Date().toLocaleTimeString();
  }
  async function tick() {
    try {
      const now = (await op("board_stamp", {board: SLUG})).stamp;
      if (now !== stamp) { stamp = now; await draw(); }
    } catch (err) {
      status.textContent = String(err.message || err);
      status.className = "error";
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
