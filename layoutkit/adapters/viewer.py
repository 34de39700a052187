"""The board viewer page, and the event stream that keeps it live.

The page holds no rules: everything it shows or does is an operation on the
same ``/api/v1/ops`` road as every other client (``board_outline``,
``render_board``, ``board_changes``, ``get``, and the human actions such as
``tick_checklist``, ``answer_question`` and ``send_answers``), so an agent sees
the effect of every click.

How it draws: it keeps the board's outline (every card's box, no content) and
draws it on a canvas under the cards; where the view holds few enough cards
it asks ``render_board`` for the faces of that region only, so a board of
50,000 cards opens (zoomed to fit, as an outline) as fast as one of fifty.
A change pushed by the event stream names the cards written; the page asks
for the faces of just the rectangles they covered and now cover.
"""

from __future__ import annotations

import asyncio
import html
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from starlette.requests import Request

from layoutkit.errors import ServiceError

#: Seconds between two checks of a board's change counter by one event stream.
CHECK_S = 0.5
#: A stream ends after this long and the browser reconnects on its own (sending
#: Last-Event-ID): a server that stops never waits long on an open stream.
STREAM_S = 25.0
#: A comment line this often keeps proxies from closing a quiet stream.
HEARTBEAT_S = 10.0
#: What the browser waits before reconnecting a stream that ended.
RETRY_MS = 1000
#: How often the page asks for changes when the event stream is not available.
POLL_MS = 2000


def _event(name: str, data: dict[str, Any], event_id: int | None = None) -> str:
    head = f"id: {event_id}\n" if event_id is not None else ""
    return f"{head}event: {name}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n"


async def change_stream(
    request: Request,
    first: dict[str, Any],
    since: int | None,
    known: tuple[str | None, str | None, str | None],
    check: Callable[[int], Awaitable[dict[str, Any]]],
) -> AsyncIterator[str]:
    """Server-sent events for a board: ``change`` (a ``board_changes`` answer) whenever
    the board's rev, questions stamp, annotations stamp or own stamp moved past what
    the page had.

    ``first`` is the answer of the check made before the stream opened (so a
    refused credential is a plain 401, not a stream); ``since`` and ``known`` (the
    questions stamp, board stamp and annotations stamp) are what the page last saw. ``check``
    runs ``board_changes`` from a rev in a worker thread; between checks this
    waits on the event loop alone.
    """
    loop = asyncio.get_running_loop()
    started = quiet = loop.time()
    yield f"retry: {RETRY_MS}\n\n"
    q, look, notes = known
    # A client that does not follow findings (no stamp sent) is not woken by them.
    seen: tuple[Any, ...] = (since, q, look, first["annotations"] if notes is None else notes)
    out = first
    while True:
        now = (out["rev"], out["questions"], out["look"], out["annotations"])
        if now != seen or out["cards"] or out["reset"] or out["edges"]:
            yield _event("change", out, out["rev"])
            seen, quiet = now, loop.time()
        elif loop.time() - quiet >= HEARTBEAT_S:
            yield ": still here\n\n"
            quiet = loop.time()
        if loop.time() - started >= STREAM_S or await request.is_disconnected():
            return
        await asyncio.sleep(CHECK_S)
        try:
            out = await check(out["rev"])
        except ServiceError as err:
            # A revoked link or a removed board ends the stream with the reason.
            yield _event("gone", {**err.body, "status": err.status})
            return


_PAGE = r"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>__TITLE__ · layoutkit</title>
<link rel="icon" href="data:,">
<style>
  html, body { margin: 0; height: 100%; overflow: hidden; background: #eef0f3; font: 14px/1.4 "DejaVu Sans", Verdana, sans-serif; color: #1f2430; }
  header { display: flex; gap: 8px; align-items: center; height: 44px; box-sizing: border-box; padding: 0 12px 0 16px; background: #fff; border-bottom: 1px solid #d9dde3; }
  header h1 { font-size: 15px; margin: 0 8px 0 0; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
  #status { color: #667; font-size: 12px; white-space: nowrap; }
  #status.error { color: #b3261e; }
  .spacer { flex: 1; }
  button { font: inherit; font-size: 13px; border: 1px solid #cfd4dc; background: #fff; color: #1f2430; border-radius: 6px; padding: 4px 10px; cursor: pointer; }
  button:hover:not(:disabled) { background: #f2f4f7; }
  button:disabled { opacity: .5; cursor: not-allowed; }
  button:focus-visible, input:focus-visible, textarea:focus-visible, #board:focus-visible { outline: 2px solid #3b6fd8; outline-offset: 1px; }
  #zoom-level { min-width: 58px; }
  #layout { display: flex; height: calc(100% - 44px); }
  #board { position: relative; flex: 1; overflow: hidden; touch-action: none; cursor: grab; background: #eef0f3; outline: none; }
  #board.panning { cursor: grabbing; }
  #outline, #minimap { position: absolute; display: block; }
  #minimap[hidden] { display: none; }
  #outline { left: 0; top: 0; }
  #world { position: absolute; left: 0; top: 0; transform-origin: 0 0; }
  #faces > svg, #faces > .patch { position: absolute; display: block; }
  #overlay { position: absolute; left: 0; top: 0; }
  #minimap { right: 12px; bottom: 12px; background: rgba(255,255,255,.92); border: 1px solid #cfd4dc; border-radius: 6px; box-shadow: 0 1px 4px rgba(0,0,0,.12); cursor: pointer; }
  .live { position: absolute; box-sizing: border-box; background: #fff; border: 1px solid #d5dae3; border-radius: 10px; padding: 12px 14px; overflow: hidden; cursor: default; }
  .live h3 { margin: 0 0 6px; font-size: 16px; }
  .live label { display: flex; gap: 9px; align-items: flex-start; padding: 4px 0; font-size: 14px; cursor: pointer; }
  .live input { margin: 3px 0 0; width: 15px; height: 15px; accent-color: #3b6fd8; cursor: pointer; flex: none; }
  .live .done { color: #8a909c; text-decoration: line-through; }
  .live .count { position: absolute; right: 12px; top: 6px; font-size: 10px; color: #8a909c; }
  .focus-ring { position: absolute; box-sizing: border-box; border: 3px solid #3b6fd8; border-radius: 12px; pointer-events: none; box-shadow: 0 0 0 6px rgba(59,111,216,.18); transition: opacity 1.5s; }
  .qbadge { position: absolute; padding: 0 8px; height: 24px; border-radius: 12px; background: #fff4d6; border-color: #e0b43c; font-weight: bold; }
  #questions { width: 340px; flex: none; overflow: auto; background: #fff; border-left: 1px solid #d9dde3; display: flex; flex-direction: column; }
  #questions[hidden] { display: none; }
  #questions h2 { font-size: 15px; margin: 14px 16px 4px; }
  #questions .hint { margin: 0 16px 8px; color: #667; font-size: 12px; }
  #qlist { flex: 1; padding: 0 16px; }
  .question { border: 1px solid #e0e3e8; border-radius: 8px; padding: 10px 12px; margin: 10px 0; }
  .question.answered { border-color: #9cc3a0; background: #f5fbf5; }
  .question.flash { box-shadow: 0 0 0 3px rgba(59,111,216,.35); }
  .question .prompt { margin: 0 0 4px; font-weight: bold; }
  .question .stakes { margin: 0 0 8px; color: #667; font-size: 12px; }
  .question .options { display: flex; flex-wrap: wrap; gap: 6px; }
  .question .option[aria-pressed="true"] { background: #3b6fd8; border-color: #3b6fd8; color: #fff; }
  .question .option small { display: block; font-size: 11px; opacity: .75; }
  .question .recommended::after { content: " ★"; }
  .question input, .question textarea { font: inherit; font-size: 13px; box-sizing: border-box; width: 100%; margin-top: 6px; padding: 5px 8px; border: 1px solid #cfd4dc; border-radius: 6px; }
  .question .row { display: flex; gap: 6px; margin-top: 6px; align-items: center; }
  .question .answer { margin: 8px 0 0; font-size: 12px; color: #2e6b34; }
  #questions footer { display: flex; gap: 8px; padding: 12px 16px; border-top: 1px solid #e0e3e8; position: sticky; bottom: 0; background: #fff; }
  #send { background: #3b6fd8; border-color: #3b6fd8; color: #fff; font-weight: bold; }
  #annotations { width: 360px; flex: none; overflow: auto; background: #fff; border-left: 1px solid #d9dde3; display: flex; flex-direction: column; }
  #annotations[hidden] { display: none; }
  #annotations h2 { font-size: 15px; margin: 14px 16px 4px; }
  #annotations .hint { margin: 0 16px 8px; color: #667; font-size: 12px; }
  #alist { flex: 1; padding: 0 16px; }
  .finding { border: 1px solid #e0e3e8; border-left: 4px solid #b4bcc9; border-radius: 8px; padding: 10px 12px; margin: 10px 0; cursor: pointer; }
  .finding.sev-high { border-left-color: #c62828; }
  .finding.sev-medium { border-left-color: #e08a00; }
  .finding.sev-low { border-left-color: #7b8494; }
  .finding.selected, .finding.flash { box-shadow: 0 0 0 3px rgba(59,111,216,.35); }
  .finding .chips { display: flex; flex-wrap: wrap; gap: 5px; }
  .chip { font-size: 11px; line-height: 18px; padding: 0 7px; border-radius: 9px; background: #eef0f3; color: #394050; white-space: nowrap; }
  .chip.state-staged { background: #fff4d6; color: #6b4f00; }
  .chip.state-open { background: #e3ecfb; color: #1d4ea8; }
  .chip.state-working { background: #e6f4ea; color: #1e6b34; }
  .chip.state-in_review { background: #f1e6fb; color: #6b2d9b; }
  .chip.sev-high { background: #fde7e7; color: #9b1c1c; }
  .chip.sev-medium { background: #fff0dc; color: #7a4300; }
  .finding .summary { margin: 7px 0 2px; font-weight: bold; overflow-wrap: anywhere; }
  .finding .detail { margin: 0 0 4px; font-size: 12px; color: #4a5160; white-space: pre-wrap; overflow-wrap: anywhere; }
  .finding .meta { margin: 4px 0 0; font-size: 12px; color: #667; overflow-wrap: anywhere; }
  .finding .row { display: flex; flex-wrap: wrap; gap: 6px; align-items: center; margin-top: 8px; }
  .finding label.intent { display: flex; gap: 6px; align-items: center; font-size: 12px; color: #4a5160; }
  .finding select { font: inherit; font-size: 13px; padding: 3px 6px; border: 1px solid #cfd4dc; border-radius: 6px; background: #fff; }
  .finding .confirm { flex-basis: 100%; display: flex; flex-wrap: wrap; gap: 6px; align-items: center; background: #fdf0ef; border-radius: 6px; padding: 6px 8px; font-size: 12px; }
  button.accept { background: #2e7d32; border-color: #2e7d32; color: #fff; }
  button.accept:hover:not(:disabled) { background: #276b2b; }
  button.danger { background: #b3261e; border-color: #b3261e; color: #fff; }
  button.danger:hover:not(:disabled) { background: #9a2019; }
  #annotations footer { display: flex; flex-wrap: wrap; gap: 8px; padding: 12px 16px; border-top: 1px solid #e0e3e8; position: sticky; bottom: 0; background: #fff; }
  /* Light fills only: the text under a region stays as readable as the face draws it. */
  .aregion { position: absolute; box-sizing: border-box; border: 2px dashed #d08a00; background: rgba(255,196,0,.06); border-radius: 3px; pointer-events: none; }
  .aregion.accepted { border-style: solid; border-color: #3b6fd8; background: rgba(59,111,216,.04); }
  .aregion.selected { border: 3px solid #3b6fd8; background: none; outline: 2px solid rgba(59,111,216,.35); outline-offset: 3px; }
  .abadge { position: absolute; padding: 0 8px; height: 24px; line-height: 20px; white-space: nowrap; border-radius: 12px; background: #fde7e7; border-color: #d9534f; color: #9b1c1c; font-weight: bold; }
  #notice { position: absolute; inset: 0; display: flex; align-items: center; justify-content: center; background: #eef0f3; padding: 24px; }
  #notice[hidden] { display: none; }
  #notice section { max-width: 560px; background: #fff; padding: 24px 28px; border-radius: 8px; box-shadow: 0 1px 3px rgba(0,0,0,.12); }
  #notice h2 { font-size: 20px; margin: 0 0 10px; }
  #notice p, #notice li { color: #4a5160; margin: 0 0 8px; }
  #notice code { background: #f2f4f7; padding: 1px 5px; border-radius: 4px; font-size: 13px; }
  #toast { position: fixed; left: 50%; bottom: 20px; transform: translateX(-50%); background: #1f2430; color: #fff; padding: 8px 16px; border-radius: 6px; font-size: 13px; max-width: 80%; z-index: 10; }
  #toast.error { background: #b3261e; }
  #toast[hidden] { display: none; }
</style>
</head>
<body>
<header>
  <h1 id="title">__TITLE__</h1>
  <span id="status" role="status">loading…</span>
  <span class="spacer"></span>
  <button id="zoom-out" type="button" title="Zoom out (−)" aria-label="Zoom out">−</button>
  <button id="zoom-level" type="button" title="Actual size (1)">100%</button>
  <button id="zoom-in" type="button" title="Zoom in (+)" aria-label="Zoom in">+</button>
  <button id="fit" type="button" title="Zoom to fit (0)">Fit</button>
  <button id="questions-toggle" type="button" aria-controls="questions" hidden>Questions</button>
  <button id="annotations-toggle" type="button" aria-controls="annotations" hidden>Findings</button>
</header>
<div id="layout">
  <main id="board" tabindex="0" aria-label="Board. Drag or use the arrow keys to move; Ctrl+wheel, pinch, + and − to zoom; 0 fits the board.">
    <canvas id="outline" aria-hidden="true"></canvas>
    <div id="world"><div id="faces"></div><div id="overlay"></div></div>
    <canvas id="minimap" width="220" height="150" role="img" aria-label="Minimap: click or drag to move the view"></canvas>
    <div id="notice" hidden></div>
  </main>
  <aside id="questions" hidden aria-label="Questions">
    <h2>Questions</h2>
    <p class="hint">Answers wait here until you press Send.</p>
    <div id="qlist"></div>
    <footer>
      <button id="send" type="button" data-action="send" disabled>Send answers</button>
      <button id="regenerate" type="button" data-action="regenerate" disabled title="Send the answers and ask for a fresh take">Regenerate</button>
    </footer>
  </aside>
  <aside id="annotations" hidden aria-label="Findings">
    <h2>Findings</h2>
    <p class="hint">Agents' findings wait here until a person accepts them into the work queue or dismisses them.</p>
    <div id="alist"></div>
    <footer>
      <button id="accept-all" type="button" class="accept" data-action="acceptAll" disabled>Accept all staged</button>
      <button id="dismiss-all" type="button" data-action="dismissAll" disabled>Dismiss all staged</button>
    </footer>
  </aside>
</div>
<div id="toast" role="alert" hidden></div>
<script>
(() => {
  "use strict";
  const SLUG = __SLUG__;
  const POLL_MS = __POLL__;
  // Board pixels of margin around the cards when fitting.
  const PAD = 40;
  // The faces of at most this many cards are drawn at once; beyond it the outline shows.
  const FACE_CARDS = 600;
  // render_board draws regions of at most this many board pixels a side.
  const MAX_REGION = 20000;
  const MAX_SCALE = 4;
  const FRAMES = new Set(["section", "cluster"]);
  const $ = (id) => document.getElementById(id);
  const boardEl = $("board"), world = $("world"), facesEl = $("faces"), overlay = $("overlay");
  const outlineCanvas = $("outline"), minimap = $("minimap"), statusEl = $("status");

  // ------------------------------------------------------------------ actions
  // What a person can do on the board. Each is one operation of the registry,
  // named here with how its params are made; an element with data-action="name"
  // (and data-* arguments) runs it when clicked.
  const ACTIONS = {
    tick: {op: "tick_checklist", params: (a) => ({id: a.card, item: a.item, done: a.done, text: a.text}),
           after: (out) => tickDone(out)},
    answer: {op: "answer_question", params: (a) => ({id: a.question, answer: a.answer}),
             after: (out) => { questions.set(out.question.id, out.question); drawQuestions(); }},
    send: {op: "send_answers", params: () => ({board: SLUG}),
           after: (out) => sent(out, "Sent")},
    regenerate: {op: "send_answers", params: () => ({board: SLUG, regenerate: true}),
                 after: (out) => sent(out, "Sent for a fresh take")},
    // The verdicts name the findings the person sees: "all" is every staged finding in
    // the panel, so one filed a moment ago is never accepted unseen.
    accept: {op: "agent_verdict", params: (a) => ({board: SLUG, action: "accept", ids: [a.annotation]}),
             after: (out) => judged(out), refresh: () => loadFindings()},
    dismiss: {op: "agent_verdict", params: (a) => ({board: SLUG, action: "dismiss", ids: [a.annotation]}),
              after: (out) => judged(out), refresh: () => loadFindings()},
    acceptAll: {op: "agent_verdict", params: () => ({board: SLUG, action: "accept", ids: stagedIds()}),
                after: (out) => judged(out), refresh: () => loadFindings()},
    dismissAll: {op: "agent_verdict", params: () => ({board: SLUG, action: "dismiss", ids: stagedIds()}),
                 after: (out) => judged(out), refresh: () => loadFindings()},
    retriage: {op: "retriage_annotation", params: (a) => ({id: a.annotation, intent: a.intent}),
               after: (out) => { toast("Intent is now " + out.intent + "."); keepFinding(out); },
               refresh: () => loadFindings()},
    withdraw: {op: "withdraw_annotation", params: (a) => ({id: a.annotation}),
               after: (out) => { toast("Finding withdrawn."); keepFinding(out); },
               refresh: () => loadFindings()},
  };
  let may = {};

  async function act(name, args) {
    const action = ACTIONS[name];
    if (may[action.op] === false) {
      toast("This link lets you look, not change: ask for a link that allows it, or sign in with your own token.", true);
      throw new Error("not allowed");
    }
    try {
      const out = await op(action.op, action.params(args || {}));
      if (action.after) action.after(out);
      return out;
    } catch (err) {
      toast(readable(err), true);
      // What the page showed was out of date (a finding decided elsewhere): read it again.
      if (action.refresh) action.refresh().catch(failed);
      throw err;
    }
  }
  document.addEventListener("click", (e) => {
    const el = e.target.closest("[data-action]");
    if (!el || el.tagName === "INPUT" || el.disabled) return;
    act(el.dataset.action, argsOf(el)).catch(() => {});
  });
  function argsOf(el) {
    const a = {};
    for (const [k, v] of Object.entries(el.dataset)) {
      if (k === "action") continue;
      a[k] = /^\d+$/.test(v) ? Number(v) : v === "true" ? true : v === "false" ? false : v;
    }
    return a;
  }

  // ------------------------------------------------------------------ the API
  class ApiError extends Error {
    constructor(status, body) { super(body.message || ("HTTP " + status)); this.status = status; this.body = body; }
  }
  async function op(name, body) {
    const res = await fetch("/api/v1/ops/" + name, {
      method: "POST", credentials: "same-origin",
      headers: {"content-type": "application/json"}, body: JSON.stringify(body)});
    let data;
    try { data = await res.json(); } catch (e) { data = {code: "bad_answer", message: "the server answered " + res.status}; }
    if (!res.ok) throw new ApiError(res.status, data);
    return data;
  }
  function readable(err) {
    if (!(err instanceof ApiError)) return String(err.message || err);
    const code = err.body.code;
    if (err.status === 401) return "Your access to this board has ended (the link or token was revoked). Open the board again with a valid link.";
    if (code === "forbidden" && err.body.allowed) return "Only a person signed in with their own token can do that; agents and share links cannot.";
    if (code === "forbidden") return "This link does not allow that.";
    if (code === "checklist_changed") return "That checklist changed meanwhile; it has been reloaded.";
    if (code === "not_staged") return "That finding was accepted or dismissed meanwhile, so its intent can no longer change.";
    if (code === "unknown_annotation") return "That finding is no longer on this board.";
    if (err.status === 503) return "The board is busy; nothing was changed. Try again in a moment.";
    if (err.status >= 500) return "Something went wrong on the server (" + err.status + "). Nothing was changed.";
    return err.body.message || code;
  }
  let toastTimer = null;
  function toast(text, error) {
    const el = $("toast");
    el.textContent = text;
    el.className = error ? "error" : "";
    el.hidden = false;
    clearTimeout(toastTimer);
    toastTimer = setTimeout(() => { el.hidden = true; }, error ? 7000 : 3500);
  }
  function status(text, error) { statusEl.textContent = text; statusEl.className = error ? "error" : ""; }

  // A page without access explains how to get in, in words for a person.
  function notice(title, paragraphs) {
    const el = $("notice");
    el.innerHTML = "";
    const box = document.createElement("section");
    const h = document.createElement("h2");
    h.textContent = title;
    box.append(h);
    for (const p of paragraphs) {
      const node = document.createElement(Array.isArray(p) ? "ul" : "p");
      for (const part of Array.isArray(p) ? p : [p]) {
        const holder = Array.isArray(p) ? document.createElement("li") : node;
        // Backticks mark what to type; everything else is plain text.
        part.split(/(`[^`]*`)/).forEach((bit) => {
          if (bit.startsWith("`")) { const c = document.createElement("code"); c.textContent = bit.slice(1, -1); holder.append(c); }
          else holder.append(document.createTextNode(bit));
        });
        if (holder !== node) node.append(holder);
      }
      box.append(node);
    }
    el.append(box);
    el.hidden = false;
    minimap.hidden = true;
    for (const b of document.querySelectorAll("header button")) b.hidden = true;
    document.body.dataset.notice = title;
  }
  function noAccess(err) {
    const here = location.pathname;
    if (err.status === 401) {
      notice("You need an access link to open this board", [
        "This board is not public. Whoever shares it with you can send you a link that opens it.",
        ["Ask the person or agent who shared the board for its share link, and open that link.",
         "If you run this server: open the address `layoutkit serve` printed when it started (it ends in `?token=…`).",
         "Or make a token of your own with `layoutkit token create <your name> --kind user` and open `" + here + "?token=<the token>`."],
        "A link stays valid until its owner revokes it; after that, ask for a new one."]);
    } else if (err.status === 403) {
      notice("This link does not open this board", [
        err.body.code === "personal_board" ? "The board is personal to its owner." : "The link you used was made for another board.",
        "Open the board through its own share link, or ask its owner for one."]);
    } else if (err.status === 404) {
      notice("This board is gone", ["It was deleted or renamed while the page was open.",
        "Ask whoever shared it where it lives now."]);
    } else {
      notice("The board could not be shown", [readable(err), "Reload the page to try again."]);
    }
    status("no access", true);
  }

  // ------------------------------------------------------------------ the view
  // view.x, view.y: the board point at the top left of the board area; view.s: its scale.
  const view = {x: 0, y: 0, s: 1};
  let outline = new Map(), extent = null, rev = 0, qstamp = null, astamp = null, look = null;
  let title = SLUG;
  function size() { return {w: Math.max(boardEl.clientWidth, 1), h: Math.max(boardEl.clientHeight, 1)}; }
  function visible() { const z = size(); return {x: view.x, y: view.y, w: z.w / view.s, h: z.h / view.s}; }
  function minScale() {
    if (!extent) return 0.1;
    const z = size();
    return Math.min(0.1, 0.5 * Math.min(z.w / (extent.w + 2 * PAD), z.h / (extent.h + 2 * PAD)));
  }
  function setView(x, y, s) {
    view.s = Math.min(MAX_SCALE, Math.max(minScale(), s));
    view.x = x; view.y = y;
    world.style.transform = "translate(" + (-view.x * view.s) + "px," + (-view.y * view.s) + "px) scale(" + view.s + ")";
    $("zoom-level").textContent = Math.round(view.s * 100) + "%";
    document.body.dataset.scale = view.s.toFixed(4);
    document.body.dataset.view = view.x.toFixed(1) + "," + view.y.toFixed(1) + "," + view.s.toFixed(4);
    paint();
    facesSoon();
  }
  function zoomAt(px, py, factor) {
    const s = Math.min(MAX_SCALE, Math.max(minScale(), view.s * factor));
    const bx = view.x + px / view.s, by = view.y + py / view.s;
    setView(bx - px / s, by - py / s, s);
  }
  function zoomCenter(factor) { const z = size(); zoomAt(z.w / 2, z.h / 2, factor); }
  function centerOn(bx, by, s) { const z = size(); setView(bx - z.w / 2 / s, by - z.h / 2 / s, s); }
  function fit() {
    if (!extent) return centerOn(0, 0, 1);
    const z = size();
    const s = Math.min(1, z.w / (extent.w + 2 * PAD), z.h / (extent.h + 2 * PAD));
    centerOn(extent.x + extent.w / 2, extent.y + extent.h / 2, s);
  }
  function focusCard(id) {
    const c = outline.get(id);
    if (!c) { toast("Card " + id + " is not on this board any more; showing the whole board.", true); fit(); return; }
    const z = size();
    const s = Math.min(1.25, 0.7 * z.w / c.w, 0.7 * z.h / c.h);
    centerOn(c.x + c.w / 2, c.y + c.h / 2, s);
    document.body.dataset.focus = String(id);
    const ring = document.createElement("div");
    ring.className = "focus-ring";
    ring.dataset.cardId = String(id);
    Object.assign(ring.style, {left: (c.x - 6) + "px", top: (c.y - 6) + "px", width: (c.w + 12) + "px", height: (c.h + 12) + "px"});
    overlay.append(ring);
    setTimeout(() => { ring.style.opacity = "0"; }, 2500);
    setTimeout(() => ring.remove(), 4500);
  }

  // ------------------------------------------------------------------ the outline and the minimap
  let painting = false;
  function paint() {
    if (painting) return;
    painting = true;
    requestAnimationFrame(() => { painting = false; drawOutline(); drawMinimap(); });
  }
  function intersects(c, r) { return c.x < r.x + r.w && c.x + c.w > r.x && c.y < r.y + r.h && c.y + c.h > r.y; }
  function drawOutline() {
    const z = size(), dpr = window.devicePixelRatio || 1;
    if (outlineCanvas.width !== Math.round(z.w * dpr) || outlineCanvas.height !== Math.round(z.h * dpr)) {
      outlineCanvas.width = Math.round(z.w * dpr); outlineCanvas.height = Math.round(z.h * dpr);
      outlineCanvas.style.width = z.w + "px"; outlineCanvas.style.height = z.h + "px";
    }
    const g = outlineCanvas.getContext("2d");
    g.setTransform(dpr, 0, 0, dpr, 0, 0);
    g.clearRect(0, 0, z.w, z.h);
    const v = visible(), s = view.s;
    for (const pass of [true, false]) {
      g.fillStyle = pass ? "rgba(221,226,234,.55)" : "#ffffff";
      g.strokeStyle = pass ? "#b9c0cc" : "#c9ced6";
      g.lineWidth = 1;
      for (const c of outline.values()) {
        if (FRAMES.has(c.kind) !== pass || !intersects(c, v)) continue;
        const x = (c.x - v.x) * s, y = (c.y - v.y) * s, w = c.w * s, h = c.h * s;
        if (w > 12 && h > 12) { g.fillRect(x, y, w, h); g.strokeRect(x + .5, y + .5, w - 1, h - 1); }
        else {
          // Too small for a border: a darker block reads as a card from afar.
          const fill = g.fillStyle;
          g.fillStyle = pass ? "#d3d9e2" : "#b4bcc9";
          g.fillRect(x, y, Math.max(w, 1), Math.max(h, 1));
          g.fillStyle = fill;
        }
      }
    }
  }
  let mini = null;  // the minimap's cards, drawn once per outline change
  function miniFrame() {
    if (!extent) return null;
    const W = minimap.width, H = minimap.height, m = 8;
    const k = Math.min((W - 2 * m) / Math.max(extent.w, 1), (H - 2 * m) / Math.max(extent.h, 1));
    return {k, ox: m + (W - 2 * m - extent.w * k) / 2 - extent.x * k, oy: m + (H - 2 * m - extent.h * k) / 2 - extent.y * k};
  }
  function drawMinimap() {
    // Nothing to find when the whole board is in view.
    minimap.hidden = !extent || covers(visible(), extent);
    if (minimap.hidden) return;
    const f = miniFrame(), g = minimap.getContext("2d");
    g.clearRect(0, 0, minimap.width, minimap.height);
    if (!f) return;
    if (!mini) {
      mini = document.createElement("canvas");
      mini.width = minimap.width; mini.height = minimap.height;
      const m = mini.getContext("2d");
      for (const pass of [true, false]) {
        m.fillStyle = pass ? "#dde2ea" : "#9aa3b2";
        for (const c of outline.values()) {
          if (FRAMES.has(c.kind) !== pass) continue;
          m.fillRect(f.ox + c.x * f.k, f.oy + c.y * f.k, Math.max(c.w * f.k, 1), Math.max(c.h * f.k, 1));
        }
      }
    }
    g.drawImage(mini, 0, 0);
    const v = visible();
    g.strokeStyle = "#3b6fd8"; g.lineWidth = 2;
    g.fillStyle = "rgba(59,111,216,.10)";
    const r = [f.ox + v.x * f.k, f.oy + v.y * f.k, v.w * f.k, v.h * f.k];
    g.fillRect(...r); g.strokeRect(...r);
  }
  function miniMove(e) {
    const f = miniFrame();
    if (!f) return;
    const box = minimap.getBoundingClientRect();
    const bx = (e.clientX - box.left - f.ox) / f.k, by = (e.clientY - box.top - f.oy) / f.k;
    centerOn(bx, by, view.s);
  }
  let miniDown = false;
  minimap.addEventListener("pointerdown", (e) => { e.stopPropagation(); miniDown = true; minimap.setPointerCapture(e.pointerId); miniMove(e); });
  minimap.addEventListener("pointermove", (e) => { if (miniDown) miniMove(e); });
  minimap.addEventListener("pointerup", () => { miniDown = false; });

  function readOutline(out) {
    const cols = out.columns, at = (name) => cols.indexOf(name);
    const [ci, ck, cx, cy, cw, ch, cp] = ["id", "kind", "x", "y", "w", "h", "parent"].map(at);
    outline = new Map();
    for (const r of out.cards) outline.set(r[ci], {id: r[ci], kind: r[ck], x: r[cx], y: r[cy], w: r[cw], h: r[ch], parent: r[cp]});
    extent = out.extent;
    rev = out.rev; qstamp = out.questions; astamp = out.annotations; look = out.look;
    if (out.may) may = out.may;
    if (out.title) title = out.title;
    mini = null;
    document.body.dataset.rev = String(rev);
    document.body.dataset.total = String(outline.size);
  }
  function extentOf() {
    let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
    for (const c of outline.values()) {
      if (c.parent != null) continue;
      x0 = Math.min(x0, c.x); y0 = Math.min(y0, c.y); x1 = Math.max(x1, c.x + c.w); y1 = Math.max(y1, c.y + c.h);
    }
    return x0 === Infinity ? null : {x: x0, y: y0, w: x1 - x0, h: y1 - y0};
  }

  // ------------------------------------------------------------------ faces
  // The region whose faces are drawn (board coordinates), or null.
  let drawn = null, facesSeq = 0, facesTimer = null;
  function facesSoon() { clearTimeout(facesTimer); facesTimer = setTimeout(() => faces().catch(failed), 60); }
  function wanted() {
    const v = visible();
    // The view and a quarter of it around, so small moves need no new drawing.
    return {x: v.x - v.w / 4, y: v.y - v.h / 4, w: v.w * 1.5, h: v.h * 1.5};
  }
  function covers(r, v) { return r && v.x >= r.x && v.y >= r.y && v.x + v.w <= r.x + r.w && v.y + v.h <= r.y + r.h; }
  function countIn(r) { let n = 0; for (const c of outline.values()) if (intersects(c, r) && ++n > FACE_CARDS) break; return n; }
  let asking = null;  // the region of the drawing on its way, if any
  async function faces(force) {
    const v = visible();
    // Drawn already, or on its way: a second request would only replace the first.
    if (!force && ((drawn && covers(drawn, v)) || (asking && covers(asking, v)))) return;
    clearTimeout(facesTimer);
    const want = wanted();
    if (want.w > MAX_REGION || want.h > MAX_REGION || countIn(want) > FACE_CARDS) {
      // Too many cards to read their faces: the outline shows them.
      document.body.dataset.mode = "outline";
      document.body.dataset.ready = "1";
      return;
    }
    const seq = ++facesSeq;
    asking = want;
    let out;
    try { out = await op("render_board", {board: SLUG, format: "svg", region: want}); }
    finally { if (seq === facesSeq) asking = null; }
    if (seq !== facesSeq) return;  // the view moved on meanwhile
    const holder = document.createElement("div");
    holder.innerHTML = out.svg;
    const svg = holder.firstElementChild;
    place(svg, want);
    facesEl.replaceChildren(svg);
    drawn = want;
    document.body.dataset.mode = "faces";
    document.body.dataset.cards = String(out.cards);
    document.body.dataset.draws = String(Number(document.body.dataset.draws || 0) + 1);
    await liveCards();
    document.body.dataset.ready = "1";
  }
  function place(el, r) { Object.assign(el.style, {left: r.x + "px", top: r.y + "px", width: r.w + "px", height: r.h + "px"}); }

  // Redraw only the rectangles a change touched: each is drawn as a piece laid
  // over the faces already there.
  async function patch(rects) {
    if (!drawn) return;
    const inside = rects.map((r) => clip(grow(r, 12), drawn)).filter(Boolean);
    if (inside.length > 6) return faces(true);
    for (const r of merge(inside)) {
      const out = await op("render_board", {board: SLUG, format: "svg", region: r});
      const holder = document.createElement("div");
      holder.innerHTML = out.svg;
      const svg = holder.firstElementChild;
      svg.classList.add("patch");
      place(svg, r);
      facesEl.append(svg);
      document.body.dataset.patches = String(Number(document.body.dataset.patches || 0) + 1);
    }
    // Many pieces stacked: one drawing of the whole region again is cheaper to keep.
    if (facesEl.children.length > 24) await faces(true);
  }
  function grow(r, d) { return {x: r.x - d, y: r.y - d, w: r.w + 2 * d, h: r.h + 2 * d}; }
  function clip(r, to) {
    const x0 = Math.max(r.x, to.x), y0 = Math.max(r.y, to.y);
    const x1 = Math.min(r.x + r.w, to.x + to.w), y1 = Math.min(r.y + r.h, to.y + to.h);
    return x1 > x0 && y1 > y0 ? {x: x0, y: y0, w: x1 - x0, h: y1 - y0} : null;
  }
  function merge(rects) {
    const out = [];
    for (let r of rects) {
      for (let i = out.length - 1; i >= 0; i--) {
        if (intersects(out[i], r)) {
          const o = out.splice(i, 1)[0];
          const x0 = Math.min(o.x, r.x), y0 = Math.min(o.y, r.y);
          r = {x: x0, y: y0, w: Math.max(o.x + o.w, r.x + r.w) - x0, h: Math.max(o.y + o.h, r.y + r.h) - y0};
        }
      }
      out.push(r);
    }
    return out;
  }

  // ------------------------------------------------------------------ cards a person acts on
  // Checklists in the drawn region become real checkboxes laid over their faces.
  const payloads = new Map();  // card id -> {version, payload}
  async function liveCards(only) {
    if (!drawn) return;
    const ids = [...outline.values()].filter((c) => c.kind === "checklist" && intersects(c, drawn)).map((c) => c.id);
    const need = ids.filter((id) => (only ? only.has(id) : !payloads.has(id))).slice(0, 200);
    if (need.length) {
      const out = await op("get", {kind: "cards", board: SLUG, ids: need});
      for (const c of out.cards) payloads.set(c.id, {version: c.version, payload: c.payload});
      for (const id of out.missing) payloads.delete(id);
    }
    for (const el of overlay.querySelectorAll(".live")) {
      if (!ids.includes(Number(el.dataset.cardId))) el.remove();
    }
    for (const id of ids) if (payloads.has(id) && (!only || only.has(id) || !overlay.querySelector('.live[data-card-id="' + id + '"]'))) checklist(id);
    drawBadges();
    drawRegions();
  }
  function checklist(id) {
    const c = outline.get(id), p = payloads.get(id).payload;
    let el = overlay.querySelector('.live[data-card-id="' + id + '"]');
    if (!el) { el = document.createElement("div"); el.className = "live checklist"; el.dataset.cardId = String(id); overlay.append(el); }
    place(el, c);
    el.replaceChildren();
    const items = p.items || [];
    const count = document.createElement("span");
    count.className = "count";
    count.textContent = items.filter((i) => i.done).length + "/" + items.length;
    el.append(count);
    if (p.title) { const h = document.createElement("h3"); h.textContent = p.title; el.append(h); }
    items.forEach((item, i) => {
      const label = document.createElement("label");
      const box = document.createElement("input");
      box.type = "checkbox";
      box.checked = !!item.done;
      box.disabled = may.tick_checklist === false;
      Object.assign(box.dataset, {card: String(id), item: String(i)});
      box.addEventListener("change", () => {
        const want = box.checked;
        act("tick", {card: id, item: i, done: want, text: item.text}).catch(() => {
          box.checked = !want;
          payloads.delete(id);
          liveCards(new Set([id])).catch(failed);
        });
      });
      const text = document.createElement("span");
      text.textContent = item.text;
      if (item.done) text.className = "done";
      label.append(box, text);
      el.append(label);
    });
  }
  function tickDone(out) {
    const kept = payloads.get(out.id);
    if (kept) { kept.payload = {...kept.payload, items: out.items}; kept.version = out.version; checklist(out.id); }
  }

  // ------------------------------------------------------------------ questions
  const questions = new Map();
  const picked = new Map();  // question id -> labels chosen but not saved (multi-select)
  async function loadQuestions() {
    const out = await op("get", {kind: "questions", board: SLUG});
    questions.clear();
    for (const q of out.questions) questions.set(q.id, q);
    drawQuestions();
  }
  function open() { return [...questions.values()].filter((q) => q.state !== "released"); }
  function drawQuestions() {
    const list = $("qlist"), pending = open();
    const toggle = $("questions-toggle"), panel = $("questions");
    toggle.hidden = questions.size === 0;
    toggle.textContent = "Questions (" + pending.length + ")";
    if (pending.length && panel.dataset.closed !== "1") panel.hidden = false;
    const answered = pending.filter((q) => q.state === "answered").length;
    const canSend = may.send_answers !== false && answered > 0;
    $("send").disabled = !canSend;
    $("regenerate").disabled = !canSend;
    $("send").textContent = answered ? "Send " + answered + " answer" + (answered > 1 ? "s" : "") : "Send answers";
    list.replaceChildren();
    if (!pending.length) {
      const p = document.createElement("p");
      p.className = "hint";
      p.textContent = questions.size ? "Every answer has been sent." : "No questions on this board.";
      list.append(p);
    }
    for (const q of pending) list.append(questionCard(q));
    drawBadges();
  }
  function questionCard(q) {
    const box = document.createElement("section");
    box.className = "question" + (q.state === "answered" ? " answered" : "");
    box.dataset.question = String(q.id);
    box.dataset.state = q.state;
    const prompt = document.createElement("p");
    prompt.className = "prompt"; prompt.textContent = q.prompt;
    box.append(prompt);
    if (q.stakes) { const s = document.createElement("p"); s.className = "stakes"; s.textContent = "Stakes: " + q.stakes; box.append(s); }
    const allowed = may.answer_question !== false;
    const chosen = q.answers || [];
    if (q.kind === "text") {
      const area = document.createElement("textarea");
      area.rows = 3; area.placeholder = "Your answer"; area.value = chosen[0] || ""; area.disabled = !allowed;
      area.setAttribute("aria-label", "Answer to: " + q.prompt);
      const save = button("Save answer", () => answer(q, area.value));
      save.disabled = !allowed;
      area.addEventListener("keydown", (e) => { if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) { e.preventDefault(); save.click(); } });
      const row = document.createElement("div"); row.className = "row"; row.append(save);
      box.append(area, row);
    } else {
      const opts = document.createElement("div");
      opts.className = "options";
      const local = picked.get(q.id) || new Set(chosen);
      for (const o of q.options) {
        if (o.other) continue;
        const b = button(o.label, () => {
          if (!q.multiSelect) return answer(q, o.label);
          local.has(o.label) ? local.delete(o.label) : local.add(o.label);
          picked.set(q.id, local);
          b.setAttribute("aria-pressed", String(local.has(o.label)));
        });
        b.className = "option" + (o.recommended ? " recommended" : "");
        b.setAttribute("aria-pressed", String(local.has(o.label)));
        b.dataset.label = o.label;
        b.disabled = !allowed;
        if (o.hint) { const small = document.createElement("small"); small.textContent = o.hint; b.append(small); b.title = o.hint; }
        opts.append(b);
      }
      box.append(opts);
      const labels = new Set(q.options.map((o) => o.label));
      const other = document.createElement("input");
      other.className = "other";
      other.placeholder = "Other: type your own answer, then Enter";
      other.setAttribute("aria-label", "Other answer to: " + q.prompt);
      other.disabled = !allowed;
      const mine = chosen.find((a) => !labels.has(a));
      if (mine) other.value = mine;
      other.addEventListener("keydown", (e) => {
        if (e.key !== "Enter" || !other.value.trim()) return;
        e.preventDefault();
        answer(q, q.multiSelect ? [...local, other.value.trim()] : other.value.trim());
      });
      box.append(other);
      if (q.multiSelect) {
        const row = document.createElement("div"); row.className = "row";
        const save = button("Save answer", () => answer(q, [...local]));
        save.disabled = !allowed;
        row.append(save); box.append(row);
      }
    }
    if (q.state === "answered" && chosen.length) {
      const a = document.createElement("p"); a.className = "answer";
      a.textContent = "Your answer: " + chosen.join(", ") + " (not sent yet)";
      box.append(a);
    }
    if (q.cardId && outline.has(q.cardId)) {
      const row = document.createElement("div"); row.className = "row";
      row.append(button("Show its card", () => focusCard(q.cardId)));
      box.append(row);
    }
    return box;
  }
  function button(text, onClick) {
    const b = document.createElement("button");
    b.type = "button"; b.textContent = text;
    b.addEventListener("click", onClick);
    return b;
  }
  function answer(q, value) {
    const empty = Array.isArray(value) ? !value.length : !String(value).trim();
    if (empty) { toast("Choose or type an answer first.", true); return; }
    picked.delete(q.id);
    act("answer", {question: q.id, answer: value}).catch(() => {});
  }
  function sent(out, word) {
    const n = out.released.length;
    toast(word + ": " + n + " answer" + (n === 1 ? "" : "s") + ". The agents can read them now.");
    loadQuestions().catch(failed);
  }
  // A question asked about a card shows as a badge on that card.
  function drawBadges() {
    for (const b of overlay.querySelectorAll(".qbadge")) b.remove();
    const panel = $("questions");
    for (const q of open()) {
      const c = q.cardId != null && outline.get(q.cardId);
      if (!c) continue;
      const b = button("?", () => {
        panel.hidden = false; panel.dataset.closed = "";
        const card = panel.querySelector('[data-question="' + q.id + '"]');
        if (card) { card.scrollIntoView({block: "nearest"}); card.classList.add("flash"); setTimeout(() => card.classList.remove("flash"), 1500); }
      });
      b.className = "qbadge";
      b.title = q.prompt;
      b.dataset.questionBadge = String(q.id);
      Object.assign(b.style, {left: (c.x + c.w - 14) + "px", top: (c.y - 12) + "px"});
      overlay.append(b);
    }
  }
  $("questions-toggle").addEventListener("click", () => {
    const panel = $("questions");
    panel.hidden = !panel.hidden;
    panel.dataset.closed = panel.hidden ? "1" : "";
    paint(); facesSoon();
  });

  // ------------------------------------------------------------------ findings (annotations)
  const findings = new Map();  // id -> the finding as get {kind: annotations} answers it
  const INTENTS = ["fix", "investigate", "refactor", "redesign", "comment", "other"];
  const STATE_WORDS = {staged: "staged", open: "accepted", working: "being worked on", in_review: "fix in review", resolved: "resolved", cancelled: "withdrawn"};
  let selected = null, confirming = null;
  async function loadFindings() {
    const out = await op("get", {kind: "annotations", board: SLUG});
    findings.clear();
    for (const a of out.annotations) findings.set(a.id, a);
    drawFindings();
  }
  function stagedIds() { return [...findings.values()].filter((a) => a.state === "staged").map((a) => a.id); }
  // A finding a write answered with: kept while open, dropped once resolved or withdrawn.
  function keepFinding(a) {
    if (a.state === "resolved" || a.state === "cancelled") findings.delete(a.id);
    else findings.set(a.id, a);
    if (confirming === a.id) confirming = null;
    drawFindings();
  }
  function judged(out) {
    for (const a of out.changed) keepFinding(a);
    const n = out.changed.length, word = out.action === "accept" ? "Accepted" : "Dismissed";
    let text = n ? word + " " + n + " finding" + (n === 1 ? "" : "s") + "." : "Nothing changed.";
    if (out.skipped.length) text += " " + out.skipped.length + " had been decided meanwhile (" + out.skipped.map((x) => STATE_WORDS[x.state] || x.state).join(", ") + ").";
    toast(text);
    loadFindings().catch(failed);
  }
  function drawFindings() {
    const list = $("alist"), all = [...findings.values()];
    const toggle = $("annotations-toggle"), panel = $("annotations");
    toggle.hidden = all.length === 0 && panel.hidden;
    const staged = all.filter((a) => a.state === "staged").length;
    toggle.textContent = "Findings (" + all.length + ")";
    if (all.length && panel.dataset.closed !== "1" && panel.hidden) { panel.hidden = false; paint(); facesSoon(); }
    const canJudge = may.agent_verdict !== false && staged > 0;
    $("accept-all").disabled = $("dismiss-all").disabled = !canJudge;
    const many = staged > 1 ? "all " + staged + " staged" : staged ? "1 staged" : "all staged";
    $("accept-all").textContent = "Accept " + many;
    $("dismiss-all").textContent = "Dismiss " + many;
    // A redraw pushed by a change must not take the focus from what the person is on.
    const had = document.activeElement && list.contains(document.activeElement) ? focusKey(document.activeElement) : null;
    list.replaceChildren();
    if (!all.length) {
      const p = document.createElement("p");
      p.className = "hint";
      p.textContent = "No open findings on this board.";
      list.append(p);
    }
    // Staged first (they wait on a person), then by severity, then oldest first.
    const rank = {high: 0, medium: 1, low: 2};
    all.sort((a, b) => (a.state !== "staged") - (b.state !== "staged") || (rank[a.severity] ?? 3) - (rank[b.severity] ?? 3) || a.id - b.id);
    for (const a of all) list.append(findingCard(a));
    if (had) { const el = list.querySelector(had); if (el) el.focus(); }
    document.body.dataset.findings = String(all.length);
    drawRegions();
  }
  function chip(text, cls) { const c = document.createElement("span"); c.className = "chip" + (cls ? " " + cls : ""); c.textContent = text; return c; }
  function findingCard(a) {
    const box = document.createElement("section");
    box.className = "finding" + (a.severity ? " sev-" + a.severity : "") + (selected === a.id ? " selected" : "");
    box.dataset.annotation = String(a.id);
    box.dataset.state = a.state;
    box.tabIndex = 0;
    box.setAttribute("aria-label", "Finding: " + a.prompt.summary + " (" + (STATE_WORDS[a.state] || a.state) + "). Enter shows it on the board.");
    const chips = document.createElement("div");
    chips.className = "chips";
    chips.append(chip(STATE_WORDS[a.state] || a.state, "state-" + a.state));
    if (a.severity) chips.append(chip(a.severity, "sev-" + a.severity));
    chips.append(chip(a.intent));
    if (a.category) chips.append(chip(a.category));
    box.append(chips);
    const summary = document.createElement("p");
    summary.className = "summary"; summary.textContent = a.prompt.summary;
    box.append(summary);
    if (a.prompt.detail) { const d = document.createElement("p"); d.className = "detail"; d.textContent = a.prompt.detail; box.append(d); }
    const card = outline.get(a.cardId);
    const where = document.createElement("p");
    where.className = "meta";
    where.textContent = "On " + (card ? card.kind + " card " + a.cardId : "card " + a.cardId + " (no longer on the board)") + " · " + (a.versionBadge ? a.versionBadge.label : "v" + a.cardVersion);
    const who = document.createElement("p");
    who.className = "meta";
    who.textContent = a.author + " · " + a.via;
    box.append(where, who);
    const row = document.createElement("div");
    row.className = "row";
    const act_ = (text, action, cls) => {
      const b = document.createElement("button");
      b.type = "button"; b.textContent = text; b.dataset.action = action; b.dataset.annotation = String(a.id);
      if (cls) b.className = cls;
      b.disabled = may[ACTIONS[action].op] === false;
      return b;
    };
    if (a.state === "staged") {
      row.append(act_("Accept", "accept", "accept"), act_("Dismiss", "dismiss"));
      const label = document.createElement("label");
      label.className = "intent";
      label.textContent = "Intent";
      const pick = document.createElement("select");
      pick.dataset.intentOf = String(a.id);
      pick.setAttribute("aria-label", "Intent of: " + a.prompt.summary);
      for (const i of INTENTS) { const o = document.createElement("option"); o.value = o.textContent = i; pick.append(o); }
      pick.value = a.intent;
      pick.disabled = may.retriage_annotation === false;
      pick.addEventListener("change", () => {
        act("retriage", {annotation: a.id, intent: pick.value}).catch(() => { pick.value = a.intent; });
      });
      label.append(pick);
      row.append(label);
    } else if (a.state === "in_review") {
      row.append(act_("Accept the fix", "accept", "accept"));
    }
    if (confirming === a.id) {
      const ask = document.createElement("div");
      ask.className = "confirm";
      ask.append(document.createTextNode("Withdraw this finding? Agents stop working on it."));
      const yes = act_("Withdraw", "withdraw", "danger");
      const no = button("Keep it", () => { confirming = null; drawFindings(); focusIn(a.id, ".withdraw-ask"); });
      ask.addEventListener("keydown", (e) => { if (e.key === "Escape") { e.stopPropagation(); no.click(); } });
      ask.append(yes, no);
      row.append(ask);
    } else {
      const w = button("Withdraw…", () => { confirming = a.id; drawFindings(); focusIn(a.id, "button.danger"); });
      w.className = "withdraw-ask";
      w.disabled = may.withdraw_annotation === false;
      row.append(w);
    }
    box.append(row);
    box.addEventListener("click", (e) => { if (!e.target.closest("button, select, label, input")) showFinding(a.id); });
    box.addEventListener("keydown", (e) => { if (e.key === "Enter" && e.target === box) { e.preventDefault(); showFinding(a.id); } });
    return box;
  }
  function focusKey(el) {
    const box = el.closest(".finding");
    if (!box) return null;
    const at = '[data-annotation="' + box.dataset.annotation + '"]';
    if (el === box) return ".finding" + at;
    const part = el.dataset.action ? '[data-action="' + el.dataset.action + '"]' : el.tagName === "SELECT" ? "select" : el.className ? "." + el.className.split(" ")[0] : el.tagName.toLowerCase();
    return ".finding" + at + " " + part;
  }
  function focusIn(id, sel) { const el = $("alist").querySelector('[data-annotation="' + id + '"] ' + sel); if (el) el.focus(); }
  // Where a finding's region lies on the board: its fractions of the card version's
  // picture laid on the card's box as it stands now.
  function regionBox(a) {
    const c = outline.get(a.cardId), r = a.region || {};
    if (!c) return null;
    let n = r.normalized;
    if (!n && r.rect && r.image) n = {nx: r.rect.x / r.image.width, ny: r.rect.y / r.image.height, nw: r.rect.w / r.image.width, nh: r.rect.h / r.image.height};
    if (!n) return {x: c.x, y: c.y, w: c.w, h: c.h};
    return {x: c.x + n.nx * c.w, y: c.y + n.ny * c.h, w: Math.max(n.nw * c.w, 2), h: Math.max(n.nh * c.h, 2)};
  }
  function drawRegions() {
    for (const el of overlay.querySelectorAll(".aregion, .abadge")) el.remove();
    const perCard = new Map();
    for (const a of findings.values()) {
      const r = regionBox(a);
      if (!r) continue;
      const el = document.createElement("div");
      el.className = "aregion" + (a.state === "staged" ? "" : " accepted") + (selected === a.id ? " selected" : "");
      el.dataset.annotation = String(a.id);
      el.title = a.prompt.summary;
      place(el, r);
      overlay.append(el);
      perCard.set(a.cardId, [...(perCard.get(a.cardId) || []), a]);
    }
    const panel = $("annotations");
    for (const [id, list] of perCard) {
      const c = outline.get(id);
      const b = button("⚑ " + list.length, () => {
        panel.hidden = false; panel.dataset.closed = "";
        paint(); facesSoon();
        showFinding(list[0].id);
      });
      b.className = "abadge";
      b.title = list.length + (list.length === 1 ? " finding: " : " findings: ") + list.map((a) => a.prompt.summary).join("; ");
      b.setAttribute("aria-label", b.title);
      b.dataset.annotationCard = String(id);
      Object.assign(b.style, {left: (c.x - 12) + "px", top: (c.y - 12) + "px"});
      overlay.append(b);
    }
  }
  // Pan and zoom to a finding's region, and mark it on the board and in the panel.
  async function showFinding(id) {
    let a = findings.get(id);
    if (!a) {
      try { a = await op("get_annotation", {id}); } catch (err) { toast(readable(err), true); return; }
    }
    const r = regionBox(a);
    if (!r) { toast("The card of that finding is no longer on this board.", true); return; }
    const z = size();
    // The region takes about half the view, never beyond what text stays sharp at.
    const s = Math.min(MAX_SCALE, 2.5, 0.5 * z.w / Math.max(r.w, 60), 0.5 * z.h / Math.max(r.h, 40));
    centerOn(r.x + r.w / 2, r.y + r.h / 2, s);
    selected = id;
    document.body.dataset.annotationFocus = String(id);
    for (const el of document.querySelectorAll(".finding.selected, .aregion.selected")) el.classList.remove("selected");
    for (const el of document.querySelectorAll('.finding[data-annotation="' + id + '"], .aregion[data-annotation="' + id + '"]')) el.classList.add("selected");
    const item = $("alist").querySelector('[data-annotation="' + id + '"]');
    if (item) item.scrollIntoView({block: "nearest"});
  }
  $("annotations-toggle").addEventListener("click", () => {
    const panel = $("annotations");
    panel.hidden = !panel.hidden;
    panel.dataset.closed = panel.hidden ? "1" : "";
    paint(); facesSoon();
  });

  // ------------------------------------------------------------------ changes
  async function apply(ch) {
    if (ch.rev === rev && ch.questions === qstamp && ch.annotations === astamp && ch.look === look && !ch.cards.length && !ch.reset && !ch.edges) return;
    if (ch.questions !== qstamp) { qstamp = ch.questions; loadQuestions().catch(failed); }
    if (ch.annotations !== astamp) { astamp = ch.annotations; loadFindings().catch(failed); }
    if (ch.reset || ch.look !== look) {
      // Too much or the board itself changed (its theme): read and draw it all again.
      readOutline(await op("board_outline", {board: SLUG}));
      payloads.clear();
      paint();
      drawn && await faces(true);
      live();
      return;
    }
    const dirty = [], ticked = new Set();
    for (const c of ch.cards) {
      const old = outline.get(c.id);
      if (old) dirty.push(old);
      if (c.removed) { outline.delete(c.id); payloads.delete(c.id); continue; }
      const box = {id: c.id, kind: c.kind, x: c.x, y: c.y, w: c.w, h: c.h, parent: c.parent};
      outline.set(c.id, box);
      dirty.push(box);
      if (c.kind === "checklist") ticked.add(c.id);
    }
    rev = ch.rev;
    document.body.dataset.rev = String(rev);
    document.body.dataset.total = String(outline.size);
    if (dirty.length) { extent = extentOf(); mini = null; paint(); }
    if (ch.edges) await faces(true);
    else if (dirty.length) await patch(dirty);
    if (ticked.size) await liveCards(ticked);
    else if (dirty.length) await liveCards();
    live();
  }
  function live() { status((outline.size ? outline.size + (outline.size === 1 ? " card · " : " cards · ") : "no cards yet · ") + (mode === "sse" ? "live" : "checking every " + POLL_MS / 1000 + " s") + " · " + new Date().toLocaleTimeString()); }

  let mode = null, stream = null, queue = Promise.resolve();
  function enqueue(ch) { queue = queue.then(() => apply(ch)).catch(failed); }
  function listen() {
    const force = new URLSearchParams(location.search).get("live") === "poll";
    if (!window.EventSource || force) return poll();
    let opened = false, failures = 0;
    const url = "/api/v1/boards/" + encodeURIComponent(SLUG) + "/events?since=" + rev +
      "&q=" + encodeURIComponent(qstamp || "") + "&a=" + encodeURIComponent(astamp || "") + "&look=" + encodeURIComponent(look || "");
    stream = new EventSource(url);
    mode = "sse";
    document.body.dataset.live = "sse";
    stream.addEventListener("open", () => { opened = true; failures = 0; });
    stream.addEventListener("change", (e) => enqueue(JSON.parse(e.data)));
    stream.addEventListener("gone", (e) => {
      stream.close();
      const why = JSON.parse(e.data);
      noAccess(new ApiError(why.status || 401, why));
    });
    stream.addEventListener("error", () => {
      failures += 1;
      // A stream that never opened, or one the browser gave up on: ask instead.
      if (stream.readyState === EventSource.CLOSED || (!opened && failures >= 2)) { stream.close(); poll(); }
    });
  }
  function poll() {
    mode = "poll";
    document.body.dataset.live = "poll";
    live();
    const tick = async () => {
      try { enqueue(await op("board_changes", {board: SLUG, since: rev})); await queue; }
      catch (err) { if (err instanceof ApiError && (err.status === 401 || err.status === 403)) return noAccess(err); failed(err); }
      setTimeout(tick, POLL_MS);
    };
    setTimeout(tick, POLL_MS);
  }
  function failed(err) { status(readable(err), true); }

  // ------------------------------------------------------------------ pointer, wheel, keyboard
  const pointers = new Map();
  let drag = null, pinch = null;
  const INTERACTIVE = "input, button, textarea, select, a, label, #minimap";
  boardEl.addEventListener("pointerdown", (e) => {
    if (e.target.closest(INTERACTIVE)) return;
    pointers.set(e.pointerId, {x: e.clientX, y: e.clientY});
    if (pointers.size === 2) {
      const [a, b] = [...pointers.values()];
      pinch = {d: Math.hypot(a.x - b.x, a.y - b.y), mx: (a.x + b.x) / 2, my: (a.y + b.y) / 2, x: view.x, y: view.y, s: view.s};
      drag = null;
    } else if (pointers.size === 1) {
      drag = {x: e.clientX, y: e.clientY, vx: view.x, vy: view.y, id: e.pointerId, moved: false};
    }
  });
  boardEl.addEventListener("pointermove", (e) => {
    if (!pointers.has(e.pointerId)) return;
    pointers.set(e.pointerId, {x: e.clientX, y: e.clientY});
    const box = boardEl.getBoundingClientRect();
    if (pinch && pointers.size >= 2) {
      const [a, b] = [...pointers.values()];
      const d = Math.hypot(a.x - b.x, a.y - b.y), mx = (a.x + b.x) / 2, my = (a.y + b.y) / 2;
      const s = Math.min(MAX_SCALE, Math.max(minScale(), pinch.s * d / Math.max(pinch.d, 1)));
      // The board point under the fingers' midpoint stays under it.
      const bx = pinch.x + (pinch.mx - box.left) / pinch.s, by = pinch.y + (pinch.my - box.top) / pinch.s;
      setView(bx - (mx - box.left) / s, by - (my - box.top) / s, s);
    } else if (drag) {
      const dx = e.clientX - drag.x, dy = e.clientY - drag.y;
      if (!drag.moved && Math.hypot(dx, dy) < 4) return;
      if (!drag.moved) { drag.moved = true; boardEl.setPointerCapture(drag.id); boardEl.classList.add("panning"); }
      setView(drag.vx - dx / view.s, drag.vy - dy / view.s, view.s);
    }
  });
  function release(e) {
    pointers.delete(e.pointerId);
    if (pointers.size < 2) pinch = null;
    if (!pointers.size) { drag = null; boardEl.classList.remove("panning"); }
  }
  boardEl.addEventListener("pointerup", release);
  boardEl.addEventListener("pointercancel", release);
  boardEl.addEventListener("wheel", (e) => {
    e.preventDefault();
    const unit = e.deltaMode === 1 ? 16 : e.deltaMode === 2 ? size().h : 1;
    const box = boardEl.getBoundingClientRect();
    if (e.ctrlKey || e.metaKey) {
      // A trackpad pinch arrives as a wheel with ctrlKey; a mouse's ctrl+wheel too.
      const d = Math.max(-60, Math.min(60, e.deltaY * unit));
      zoomAt(e.clientX - box.left, e.clientY - box.top, Math.exp(-d * 0.004));
    } else {
      let dx = e.deltaX * unit, dy = e.deltaY * unit;
      if (e.shiftKey && !dx) { dx = dy; dy = 0; }
      setView(view.x + dx / view.s, view.y + dy / view.s, view.s);
    }
  }, {passive: false});
  document.addEventListener("keydown", (e) => {
    if (e.target.closest && e.target.closest("input, textarea, select, [contenteditable]")) return;
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    const v = visible(), step = e.shiftKey ? 0.5 : 0.125;
    const keys = {
      ArrowLeft: () => setView(view.x - v.w * step, view.y, view.s),
      ArrowRight: () => setView(view.x + v.w * step, view.y, view.s),
      ArrowUp: () => setView(view.x, view.y - v.h * step, view.s),
      ArrowDown: () => setView(view.x, view.y + v.h * step, view.s),
      "+": () => zoomCenter(1.25), "=": () => zoomCenter(1.25),
      "-": () => zoomCenter(0.8), "_": () => zoomCenter(0.8),
      "0": fit, "1": () => { const z = size(); centerOn(view.x + z.w / 2 / view.s, view.y + z.h / 2 / view.s, 1); },
    };
    const run = keys[e.key];
    if (!run) return;
    e.preventDefault();
    run();
  });
  $("zoom-in").addEventListener("click", () => zoomCenter(1.25));
  $("zoom-out").addEventListener("click", () => zoomCenter(0.8));
  $("zoom-level").addEventListener("click", () => { const z = size(); centerOn(view.x + z.w / 2 / view.s, view.y + z.h / 2 / view.s, 1); });
  $("fit").addEventListener("click", fit);
  window.addEventListener("resize", () => { paint(); facesSoon(); });

  // ------------------------------------------------------------------ opening
  function asked() {
    const q = new URLSearchParams(location.search), h = location.hash;
    const finding = q.get("annotation") || (/^#annotation=(\d+)$/.exec(h) || [])[1];
    if (finding && /^\d+$/.test(finding)) return {annotation: Number(finding)};
    const card = q.get("card") || (/^#card=(\d+)$/.exec(h) || [])[1];
    if (card && /^\d+$/.test(card)) return {card: Number(card)};
    const at = /^#at=(-?\d+(?:\.\d+)?),(-?\d+(?:\.\d+)?)$/.exec(h);
    if (at) return {at: [Number(at[1]), Number(at[2])]};
    return {};
  }
  // An address changed in place (#card=…, #at=…) moves the view the same way.
  window.addEventListener("hashchange", () => {
    const want = asked();
    if (want.annotation) showFinding(want.annotation);
    else if (want.card) focusCard(want.card);
    else if (want.at) centerOn(want.at[0], want.at[1], 1);
  });
  async function start() {
    let out;
    // The questions come with the outline: their panel takes room from the board that
    // fitting measures.
    const questionsRead = op("get", {kind: "questions", board: SLUG}).catch((err) => err);
    const findingsRead = op("get", {kind: "annotations", board: SLUG}).catch((err) => err);
    try {
      out = await op("board_outline", {board: SLUG, ops: [...new Set(Object.values(ACTIONS).map((a) => a.op))]});
    } catch (err) {
      if (err instanceof ApiError) return noAccess(err);
      throw err;
    }
    readOutline(out);
    if (title !== SLUG) { $("title").textContent = title; document.title = title + " · layoutkit"; }
    const asked_ = await questionsRead;
    if (asked_ instanceof Error) failed(asked_);
    else { for (const q of asked_.questions) questions.set(q.id, q); drawQuestions(); }
    const found = await findingsRead;
    if (found instanceof Error) failed(found);
    else { for (const a of found.annotations) findings.set(a.id, a); drawFindings(); }
    const want = asked();
    if (want.annotation) await showFinding(want.annotation);
    else if (want.card) focusCard(want.card);
    else if (want.at) centerOn(want.at[0], want.at[1], 1);
    else fit();
    await faces(true);
    listen();
    live();
  }
  start().catch(failed);
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
  p { margin: 0 0 8px; color: #4a5160; }
</style>
</head>
<body><main><h1>__TITLE__</h1>__TEXT__</main></body>
</html>
"""


def message_page(title: str, *paragraphs: str) -> str:
    """A small readable HTML page for an address that leads nowhere or fails (each
    paragraph is plain text; the caller sends it with the fitting status)."""
    text = "".join(f"<p>{html.escape(p)}</p>" for p in paragraphs)
    return _MESSAGE_PAGE.replace("__TITLE__", html.escape(title)).replace("__TEXT__", text)


_INDEX_PAGE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>__TITLE__ · layoutkit</title>
<style>
  body { margin: 0; padding: 40px 24px; background: #eef0f3; font: 15px/1.5 "DejaVu Sans", Verdana, sans-serif; color: #1f2430; }
  main { max-width: 720px; margin: 0 auto; background: #fff; padding: 24px 28px; border-radius: 8px; box-shadow: 0 1px 3px rgba(0,0,0,.12); }
  h1 { font-size: 20px; margin: 0 0 4px; display: flex; align-items: center; gap: 10px; }
  .swatch { width: 14px; height: 14px; border-radius: 50%; display: inline-block; }
  #about, #status { color: #4a5160; margin: 0 0 12px; }
  ul { list-style: none; padding: 0; margin: 0; }
  li { padding: 8px 0; border-top: 1px solid #e3e6eb; display: flex; justify-content: space-between; gap: 12px; }
  li .slug { color: #6b7280; font-size: 13px; }
  a { color: #2155c4; text-decoration: none; }
  a:hover { text-decoration: underline; }
  #tags a { display: inline-block; margin: 0 6px 6px 0; padding: 1px 9px; border-radius: 10px; background: #eef0f3; font-size: 13px; }
</style>
</head>
<body><main>
<h1 id="title">__TITLE__</h1>
<p id="about"></p>
<p id="status">Loading…</p>
<div id="tags"></div>
<ul id="boards"></ul>
</main>
<script>
(function () {
  "use strict";
  const TAG = __TAG__;
  const $ = (id) => document.getElementById(id);
  async function op(name, body) {
    const res = await fetch("/api/v1/ops/" + name, {
      method: "POST", credentials: "same-origin",
      headers: {"content-type": "application/json"}, body: JSON.stringify(body)});
    let data;
    try { data = await res.json(); } catch (e) { data = {message: "the server answered " + res.status}; }
    if (!res.ok) { const err = new Error(data.message || ("HTTP " + res.status)); err.status = res.status; err.body = data; throw err; }
    return data;
  }
  function link(href, text) { const a = document.createElement("a"); a.href = href; a.textContent = text; return a; }
  function boards(list) {
    const ul = $("boards");
    for (const b of list) {
      const li = document.createElement("li");
      li.appendChild(link(b.url || ("/boards/" + encodeURIComponent(b.slug)), b.title || b.slug));
      const slug = document.createElement("span"); slug.className = "slug";
      slug.textContent = b.slug + (b.subgroup ? " · " + b.subgroup : "");
      li.appendChild(slug);
      ul.appendChild(li);
    }
  }
  async function tagPage() {
    const got = await op("get", {kind: "tag", tag: TAG});
    const t = got.tag;
    $("title").textContent = "Boards tagged “" + (t.name || t.tag) + "”";
    document.title = $("title").textContent + " · layoutkit";
    if (t.colour) { const s = document.createElement("span"); s.className = "swatch"; s.style.background = t.colour; $("title").prepend(s); }
    $("about").textContent = t.description || "";
    const n = got.boards.length;
    $("status").textContent = n ? (n + (n === 1 ? " board" : " boards") + (got.truncated ? " (the first " + n + ")" : "")) : "No board you can open carries this tag yet.";
    boards(got.boards);
    $("tags").appendChild(link("/", "All boards"));
  }
  async function indexPage() {
    const [listed, tags] = await Promise.all([op("list", {kind: "board"}), op("list", {kind: "tag"})]);
    for (const t of tags.tags) $("tags").appendChild(link("/?tag=" + encodeURIComponent(t.tag), (t.name || t.tag) + " · " + t.count));
    $("status").textContent = listed.boards.length ? listed.boards.length + " boards" : "No boards yet.";
    boards(listed.boards);
  }
  (TAG === null ? indexPage() : tagPage()).catch((err) => {
    if (err.status === 401) $("status").textContent = "Sign in first: open this address once with ?token=<your token> added, or open a board from a link you were given.";
    else if (err.body && err.body.code === "unknown_tag") {
      $("status").textContent = "No tag “" + TAG + "” in this workspace.";
      for (const near of err.body.didYouMean || []) $("tags").appendChild(link("/?tag=" + encodeURIComponent(near), "Did you mean " + near + "?"));
    } else $("status").textContent = err.message;
  });
})();
</script>
</body>
</html>
"""


def board_index_page(tag: str | None) -> str:
    """The board index at ``/``: every board the visitor can open with the workspace's
    tags, or with ``tag`` the boards carrying that tag (the page search's tag hits link
    to). Like the viewer it holds no credential: its calls send the cookie."""
    title = f"Boards tagged “{tag}”" if tag is not None else "Boards"
    return _INDEX_PAGE.replace("__TITLE__", html.escape(title)).replace(
        "__TAG__", json.dumps(tag).replace("<", "\\u003c")
    )
