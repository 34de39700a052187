"""The board viewer page, and the event stream that keeps it live.

The page holds no rules: everything it shows or does is an operation on the
same ``/api/v1/ops`` road as every other client (``board_outline``,
``render_board``, ``board_changes``, ``get``, and the human actions such as
``tick_checklist``, ``answer_question``, ``send_answers`` and ``update_cards``), so an
agent sees the effect of every click. The page is here; its script is
``static/viewer.js``, one file for every board.

How it draws: it keeps the board's outline (every card's box, no content) and
draws it on a canvas under the cards; where the view holds few enough cards
it asks ``render_board`` for the faces of that region only, so a board of
50,000 cards opens (zoomed to fit, as an outline) as fast as one of fifty.
A change pushed by the event stream names the cards written; the page asks
for the faces of just the rectangles they covered and now cover.
"""

from __future__ import annotations

import asyncio
import hashlib
import html
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from importlib import resources
from typing import Any

from starlette.requests import Request

from layoutkit.errors import ServiceError
from layoutkit.service.boards.content_prep import INLINE_TABLE_ROWS

#: Seconds between two checks of a board's change counter by one event stream.
CHECK_S = 0.5
#: Seconds between checks while someone else has the board open: their cursor moves
#: reach the page this often (pages report at most every 0.1 s), and a page alone on
#: its board costs no more than before (benches/presence_bench.py).
PRESENCE_CHECK_S = 0.1
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
    people: bool = False,
    stopping: Callable[[], bool] = lambda: False,
) -> AsyncIterator[str]:
    """Server-sent events for a board: ``change`` (a ``board_changes`` answer) whenever
    the board's rev, questions stamp, annotations stamp or own stamp moved past what
    the page had, and ``presence`` (``{presence: [...]}``) whenever who else is on the
    board, or where their cursor, selection or dragged card is, changed.

    ``first`` is the answer of the check made before the stream opened (so a
    refused credential is a plain 401, not a stream); ``since`` and ``known`` (the
    questions stamp, board stamp and annotations stamp) are what the page last saw. ``check``
    runs ``board_changes`` from a rev in a worker thread; between checks this
    waits on the event loop alone. ``people`` sends the first presence list even when
    nobody else is there: a page that reconnects learns that the people it showed left.
    The stream ends quietly once ``stopping`` says the server is stopping.
    """
    loop = asyncio.get_running_loop()
    started = quiet = loop.time()
    yield f"retry: {RETRY_MS}\n\n"
    q, look, notes = known
    # A client that does not follow findings (no stamp sent) is not woken by them.
    seen: tuple[Any, ...] = (since, q, look, first["annotations"] if notes is None else notes)
    # The presence last sent, without the heartbeat times (a heartbeat alone moves nothing).
    shown: list[Any] | None = None if people else []
    out = first
    while True:
        now = (out["rev"], out["questions"], out["look"], out["annotations"])
        present = [{k: v for k, v in p.items() if k != "seen"} for p in out["presence"]]
        if present != shown:
            yield _event("presence", {"presence": out["presence"]})
            shown, quiet = present, loop.time()
        if now != seen or out["cards"] or out["reset"] or out["edges"]:
            yield _event("change", out, out["rev"])
            seen, quiet = now, loop.time()
        elif loop.time() - quiet >= HEARTBEAT_S:
            yield ": still here\n\n"
            quiet = loop.time()
        if loop.time() - started >= STREAM_S or stopping() or await request.is_disconnected():
            return
        await asyncio.sleep(PRESENCE_CHECK_S if out["presence"] else CHECK_S)
        if stopping():
            # The server is stopping: the page reconnects to it, or to another one.
            return
        try:
            out = await check(out["rev"])
        except ServiceError as err:
            if stopping():
                return  # refused because the server began to stop during the check
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
  /* A checklist or table being edited in place: over its card, grown to what it holds. */
  .live.editing { z-index: 3; overflow: visible; border: calc(2px * var(--inv)) solid #3b6fd8; box-shadow: 0 4px 16px rgba(31,36,48,.18); }
  .live.editing .item { display: flex; gap: 8px; align-items: center; padding: 2px 0; }
  .live.editing .item input[type=checkbox] { margin: 0; }
  .live.editing input.itemtext { flex: 1; min-width: 0; width: auto; height: auto; margin: 0; font: 14px/1.4 "DejaVu Sans", Verdana, sans-serif; color: #1f2430; padding: 3px 6px; border: 1px solid transparent; border-radius: 4px; background: #f6f7f9; cursor: text; }
  .live.editing input.itemtext:focus { border-color: #3b6fd8; background: #fff; outline: none; }
  .live.editing input.itemtext.done { color: #8a909c; text-decoration: line-through; }
  .live.editing .item.draft input.itemtext { background: #fff; border: 1px dashed #b9c0cc; }
  .inplace button.remove { border: 0; background: none; color: #8a909c; font-size: 17px; line-height: 1; padding: 2px 6px; }
  .inplace button.remove:hover { color: #b3261e; background: #fdf0ef; }
  .inplace .bar { display: flex; flex-wrap: wrap; gap: 6px; align-items: center; margin-top: 8px; }
  .inplace .bar .hint { font-size: 11px; color: #667; }
  .grid { position: absolute; box-sizing: border-box; z-index: 3; background: #fff; border: calc(2px * var(--inv)) solid #3b6fd8; border-radius: 8px; box-shadow: 0 4px 16px rgba(31,36,48,.18); padding: 10px; cursor: default; outline: none; }
  .grid table { border-collapse: collapse; font-size: 13px; }
  .grid caption { text-align: left; font-weight: bold; font-size: 14px; padding: 0 0 6px; }
  /* While a checklist or table is edited its card's selection marks would peek out around it. */
  body[data-list-editing] :is(.selbox, .handle, .wiredot), body[data-grid-editing] :is(.selbox, .handle, .wiredot) { display: none; }
  .grid th, .grid td { border: 1px solid #d5dae3; padding: 0; }
  .grid th { background: #f2f4f7; }
  .grid .cell { display: block; box-sizing: border-box; width: 100%; min-width: 96px; margin: 0; font: inherit; color: #1f2430; padding: 5px 7px; border: 0; background: transparent; }
  .grid th .cell { font-weight: bold; }
  .grid input[type=checkbox].cell { width: 16px; min-width: 0; height: 16px; margin: 6px auto; accent-color: #3b6fd8; }
  .grid .cell:focus { outline: 2px solid #3b6fd8; outline-offset: -2px; background: #eef3fc; }
  .focus-ring { position: absolute; box-sizing: border-box; border: 3px solid #3b6fd8; border-radius: 12px; pointer-events: none; box-shadow: 0 0 0 6px rgba(59,111,216,.18); transition: opacity 1.5s; }
  .qbadge { position: absolute; padding: 0 8px; height: 24px; border-radius: 12px; background: #fff4d6; border-color: #e0b43c; font-weight: bold; }
  /* The panels share one dock beside the board, stacked: the board keeps the rest of
     the window, and no panel ever lies over a card. */
  #dock { width: 360px; flex: none; display: flex; flex-direction: column; background: #fff; border-left: 1px solid #d9dde3; min-height: 0; }
  #dock:not(:has(> aside:not([hidden]))) { display: none; }
  #dock > aside { flex: 1 1 0; min-height: 120px; border-bottom: 1px solid #d9dde3; }
  #dock > aside:last-child { border-bottom: 0; }
  @media (max-width: 760px) {
    #layout { flex-direction: column; }
    #dock { width: auto; height: 42%; border-left: 0; border-top: 1px solid #d9dde3; }
    header h1 { max-width: 30vw; }
    #status { display: none; }
  }
  /* While the pointer is down on the board, a drag pans or moves: it never selects text. */
  body.pointing, body.pointing * { user-select: none; -webkit-user-select: none; }
  #world { --inv: 1; }
  /* Presence: the others on the board, in their colour (--c). Avatars name them on hover and focus. */
  #people { position: relative; z-index: 30; display: flex; align-items: center; margin-right: 4px; }
  #people[hidden] { display: none; }
  .avatar { position: relative; display: inline-flex; align-items: center; justify-content: center; width: 28px; height: 28px; box-sizing: border-box; margin-left: 2px; padding: 0; border-radius: 50%; border: 2px solid #fff; background: var(--c, #667); color: #fff; font-size: 11px; font-weight: bold; letter-spacing: .02em; cursor: pointer; }
  .avatar:first-child { margin-left: 0; }
  .avatar:hover:not(:disabled) { background: var(--c, #667); filter: brightness(1.1); }
  .avatar.more { background: #e3e6eb; color: #1f2430; cursor: default; }
  .avatar.more:hover:not(:disabled) { background: #d5d9e0; filter: none; }
  .avatar[data-name]:hover::after, .avatar[data-name]:focus-visible::after { content: attr(data-name); position: absolute; top: 32px; right: 0; z-index: 20; white-space: nowrap; background: #1f2430; color: #fff; font-weight: normal; font-size: 12px; padding: 3px 8px; border-radius: 4px; pointer-events: none; }
  /* A phone's top bar: smaller circles (and at most two, viewer.js), so the title keeps its room. */
  @media (max-width: 760px) { .avatar { width: 24px; height: 24px; font-size: 10px; flex: none; } }
  .rcursor { position: absolute; z-index: 6; pointer-events: none; transform: scale(var(--inv)); transform-origin: 0 0; transition: left .12s linear, top .12s linear; }
  .rcursor svg { display: block; fill: var(--c); filter: drop-shadow(0 1px 1px rgba(0,0,0,.3)); }
  .rcursor .ptag { position: absolute; left: 14px; top: 16px; }
  .ptag { display: inline-block; max-width: 180px; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; padding: 1px 7px; border-radius: 4px; color: #fff; font-size: 12px; line-height: 18px; box-shadow: 0 1px 2px rgba(0,0,0,.25); }
  .rsel { position: absolute; box-sizing: border-box; pointer-events: none; outline: calc(2px * var(--inv)) solid var(--c); outline-offset: calc(3px * var(--inv)); border-radius: 4px; }
  .rdrag { position: absolute; box-sizing: border-box; z-index: 5; pointer-events: none; border: calc(2px * var(--inv)) dashed var(--c); border-radius: 6px; background: rgba(255,255,255,.7); padding: 8px 10px; font-size: 13px; color: #4a5160; overflow: visible; overflow-wrap: anywhere; transition: left .12s linear, top .12s linear; }
  .rdrag .rname { display: block; max-height: 100%; overflow: hidden; }
  .rdrag .ptag { position: absolute; left: calc(-2px * var(--inv)); bottom: 100%; margin-bottom: calc(4px * var(--inv)); transform: scale(var(--inv)); transform-origin: 0 100%; }
  .selbox { position: absolute; box-sizing: border-box; pointer-events: none; outline: calc(2px * var(--inv)) solid #3b6fd8; outline-offset: calc(2px * var(--inv)); border-radius: 4px; }
  .handle { position: absolute; box-sizing: border-box; width: calc(14px * var(--inv)); height: calc(14px * var(--inv)); background: #fff; border: calc(2px * var(--inv)) solid #3b6fd8; border-radius: calc(3px * var(--inv)); cursor: nwse-resize; touch-action: none; }
  .ghost { position: absolute; box-sizing: border-box; pointer-events: none; background: rgba(235,241,252,.85); border: calc(2px * var(--inv)) dashed #3b6fd8; border-radius: 6px; padding: 8px 10px; font-size: 13px; color: #1d4ea8; overflow: hidden; overflow-wrap: anywhere; }
  .guide { position: absolute; pointer-events: none; background: #e5397f; }
  .marquee { position: absolute; box-sizing: border-box; pointer-events: none; border: calc(1px * var(--inv)) solid #3b6fd8; background: rgba(59,111,216,.08); }
  .editor { position: absolute; box-sizing: border-box; margin: 0; padding: 12px 14px; font: 15px/1.4 system-ui, sans-serif; color: #1f2430; background: #fff; border: calc(2px * var(--inv)) solid #3b6fd8; border-radius: 6px; box-shadow: 0 4px 16px rgba(31,36,48,.18); resize: none; outline: none; z-index: 3; }
  .editor.note { background: #fff6bf; }
  .editor.node { padding: 10px 12px; font-size: 14px; font-weight: 600; }
  .wiredot { position: absolute; box-sizing: border-box; width: calc(14px * var(--inv)); height: calc(14px * var(--inv)); transform: translate(-50%, -50%); margin-left: calc(12px * var(--inv)); background: #3b6fd8; border: calc(2px * var(--inv)) solid #fff; border-radius: 50%; box-shadow: 0 0 0 calc(1px * var(--inv)) #3b6fd8; cursor: crosshair; touch-action: none; }
  .wireline { position: absolute; height: calc(2px * var(--inv)); background: #3b6fd8; transform-origin: 0 50%; pointer-events: none; }
  .droptarget { position: absolute; box-sizing: border-box; pointer-events: none; outline: calc(3px * var(--inv)) dashed #2f8f5b; outline-offset: calc(4px * var(--inv)); border-radius: 8px; background: rgba(47,143,91,.07); }
  .wiretarget { position: absolute; box-sizing: border-box; pointer-events: none; outline: calc(3px * var(--inv)) solid #3b6fd8; outline-offset: calc(3px * var(--inv)); border-radius: 6px; background: rgba(59,111,216,.06); }
  .cardfocus { position: absolute; box-sizing: border-box; pointer-events: none; border-radius: 8px; outline: none; }
  .cardfocus:focus-visible { outline: calc(3px * var(--inv)) solid #3b6fd8; outline-offset: calc(3px * var(--inv)); }
  #board.moving { cursor: move; }
  #inspector { overflow: auto; display: flex; flex-direction: column; }
  #inspector[hidden] { display: none; }
  #inspector h2 { font-size: 15px; margin: 14px 16px 4px; }
  #inspector .name { margin: 0 16px 8px; font-weight: bold; overflow-wrap: anywhere; }
  #inspector dl { display: grid; grid-template-columns: auto 1fr; gap: 3px 12px; margin: 0 16px 8px; font-size: 13px; }
  #inspector dt { color: #667; }
  #inspector dd { margin: 0; overflow-wrap: anywhere; }
  #inspector h3 { font-size: 13px; margin: 10px 16px 4px; color: #4a5160; }
  #inspector ul { margin: 0 16px 6px; padding-left: 18px; font-size: 13px; }
  #inspector .hint { margin: 0 16px 8px; color: #667; font-size: 12px; }
  #inspector button.link { border: 0; padding: 0; background: none; color: #1d4ea8; text-align: left; text-decoration: underline; }
  #inspector .row { display: flex; flex-wrap: wrap; gap: 8px; padding: 10px 16px 14px; }
  #inspector .wireform { display: grid; gap: 6px; margin: 0 16px 6px; font-size: 13px; }
  #inspector .wireform label { display: grid; gap: 2px; color: #4a5160; }
  #inspector .wireform input { font: inherit; padding: 5px 8px; border: 1px solid #cfd4dc; border-radius: 6px; color: #1f2430; }
  /* The picked wire traced over its drawing; its width stays the same on screen. */
  .wirepick { position: absolute; overflow: visible; pointer-events: none; fill: none; stroke: #3b6fd8; }
  .wirepick polyline { stroke-width: 4; vector-effect: non-scaling-stroke; stroke-linejoin: round; stroke-linecap: round; opacity: .85; }
  .wirepick > rect { stroke-width: 2; vector-effect: non-scaling-stroke; fill: rgba(59,111,216,.08); }
  #confirm-remove { max-width: 460px; border: 1px solid #cfd4dc; border-radius: 10px; padding: 18px 20px; }
  #confirm-remove h2 { font-size: 17px; margin: 0 0 8px; }
  #confirm-remove ul { padding-left: 18px; margin: 4px 0 10px; font-size: 13px; }
  #confirm-remove textarea { font: inherit; font-size: 13px; box-sizing: border-box; width: 100%; padding: 5px 8px; border: 1px solid #cfd4dc; border-radius: 6px; }
  #confirm-remove .row { display: flex; gap: 8px; justify-content: flex-end; margin-top: 10px; }
  #confirm-remove .why { color: #b3261e; font-size: 12px; min-height: 16px; margin: 4px 0 0; }
  #questions { overflow: auto; display: flex; flex-direction: column; }
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
  #annotations { overflow: auto; display: flex; flex-direction: column; }
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
  /* Comments: pins keep their screen size at any zoom (--inv), their tip on the spot. */
  #board.commenting, #board.commenting.panning { cursor: crosshair; }
  /* On a phone the tool is the pin's own shape: the header keeps room for the title. */
  #comment-tool .pinmark { display: none; width: 14px; height: 14px; box-sizing: border-box; border-radius: 7px 7px 7px 2px; background: #6a35b8; vertical-align: -2px; }
  #comment-tool[aria-pressed="true"] .pinmark { background: #fff; }
  @media (max-width: 760px) { #comment-tool .word { display: none; } #comment-tool .pinmark { display: inline-block; } #comment-tool { padding: 4px 8px; } }
  #comment-tool[aria-pressed="true"], #comments-resolved[aria-pressed="true"] { background: #6a35b8; border-color: #6a35b8; color: #fff; }
  .cpin { position: absolute; box-sizing: border-box; width: 28px; height: 28px; margin-top: -28px; padding: 0; transform: scale(var(--inv)); transform-origin: 0 100%; border-radius: 14px 14px 14px 3px; border: 2px solid #fff; background: #6a35b8; color: #fff; font: bold 12px/24px "DejaVu Sans", Verdana, sans-serif; text-align: center; box-shadow: 0 1px 4px rgba(31,36,48,.35); cursor: pointer; z-index: 2; }
  .cpin:hover:not(:disabled) { background: #582c9b; }
  .cpin.resolved { background: #8a909c; }
  .cpin.draft { background: #3b6fd8; pointer-events: none; }
  .cpin.active { box-shadow: 0 0 0 4px rgba(106,53,184,.35), 0 1px 4px rgba(31,36,48,.35); }
  .cpin[hidden] { display: none; }
  #cpop { position: absolute; z-index: 6; width: 300px; max-width: calc(100% - 16px); max-height: calc(100% - 16px); box-sizing: border-box; overflow: auto; background: #fff; border: 1px solid #cfd4dc; border-radius: 10px; box-shadow: 0 6px 24px rgba(31,36,48,.22); padding: 10px 12px 12px; font-size: 13px; cursor: default; }
  #cpop[hidden] { display: none; }
  #cpop .chead { display: flex; align-items: baseline; gap: 8px; margin-bottom: 6px; }
  #cpop h2 { font-size: 14px; margin: 0; }
  #cpop .where { color: #667; font-size: 12px; flex: 1; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
  #cpop .close { border: 0; padding: 0 4px; font-size: 18px; line-height: 18px; color: #4a5160; background: none; }
  #cpop .msgs { max-height: 220px; overflow: auto; margin-bottom: 6px; touch-action: pan-y; }
  #cpop .msg { padding: 6px 0; border-top: 1px solid #eef0f3; }
  #cpop .msg:first-child { border-top: 0; padding-top: 0; }
  #cpop .msg .who { font-size: 11px; color: #667; }
  #cpop .msg p { margin: 2px 0 0; white-space: pre-wrap; overflow-wrap: anywhere; }
  #cpop .msg.deleted p { color: #8a909c; font-style: italic; }
  #cpop textarea { display: block; width: 100%; box-sizing: border-box; font: inherit; padding: 6px 8px; border: 1px solid #cfd4dc; border-radius: 6px; resize: vertical; min-height: 52px; }
  #cpop .row { display: flex; flex-wrap: wrap; gap: 6px; justify-content: flex-end; margin-top: 8px; }
  #cpop button.primary { background: #6a35b8; border-color: #6a35b8; color: #fff; font-weight: bold; }
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
  <div id="people" role="group" aria-label="Others here" hidden></div>
  <button id="zoom-out" type="button" title="Zoom out (−)" aria-label="Zoom out">−</button>
  <button id="zoom-level" type="button" title="Actual size (1)">100%</button>
  <button id="zoom-in" type="button" title="Zoom in (+)" aria-label="Zoom in">+</button>
  <button id="fit" type="button" title="Zoom to fit (0)">Fit</button>
  <button id="comment-tool" type="button" aria-pressed="false" aria-label="Comment" title="Comment (C): click the board or a card to pin a comment" hidden><span class="pinmark" aria-hidden="true"></span><span class="word">Comment</span></button>
  <button id="comments-resolved" type="button" aria-pressed="false" title="Show resolved comments" hidden>✓</button>
  <button id="questions-toggle" type="button" aria-controls="questions" hidden>Questions</button>
  <button id="annotations-toggle" type="button" aria-controls="annotations" hidden>Findings</button>
  <button id="inspector-toggle" type="button" aria-controls="inspector" hidden>Card</button>
</header>
<div id="layout">
  <main id="board" tabindex="0" aria-label="Board. Drag or use the arrow keys to move; Ctrl+wheel, pinch, + and − to zoom; 0 fits the board. Click a card to select it, Shift-drag to select several; Tab goes through the cards.">
    <canvas id="outline" aria-hidden="true"></canvas>
    <div id="world"><div id="faces"></div><div id="overlay"></div></div>
    <canvas id="minimap" width="220" height="150" role="img" aria-label="Minimap: click or drag to move the view"></canvas>
    <div id="cpop" role="dialog" aria-label="Comment thread" hidden></div>
    <div id="notice" hidden></div>
  </main>
  <div id="dock">
  <aside id="inspector" hidden aria-label="Selected card"></aside>
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
</div>
<dialog id="confirm-remove" aria-labelledby="confirm-remove-title">
  <form method="dialog">
    <h2 id="confirm-remove-title">Remove these cards?</h2>
    <p id="confirm-remove-why"></p>
    <ul id="confirm-remove-list"></ul>
    <label for="confirm-remove-reason">Why? (at least 20 characters)</label>
    <textarea id="confirm-remove-reason" rows="3" minlength="20" maxlength="1000"></textarea>
    <p class="why" id="confirm-remove-error" role="alert"></p>
    <div class="row">
      <button type="button" id="confirm-remove-keep">Keep them</button>
      <button type="button" id="confirm-remove-go" class="danger">Remove</button>
    </div>
  </form>
</dialog>
<div id="toast" role="alert" hidden></div>
<script id="viewer-config" type="application/json">__CONFIG__</script>
<script src="/viewer.js?v=__SCRIPT_VERSION__"></script>
</body>
</html>
"""


#: The page's script: one file for every board, so a browser keeps it; its address
#: carries a digest of it, so a new version is never mixed with an old page.
VIEWER_JS = resources.files("layoutkit.adapters").joinpath("static/viewer.js").read_bytes()
VIEWER_JS_VERSION = hashlib.sha256(VIEWER_JS).hexdigest()[:12]


def viewer_page(slug: str) -> str:
    """The viewer HTML for board ``slug``; it holds no credential (its calls send the cookie)."""
    # inlineRows: a table edited in place keeps its rows in its payload (past this
    # many the server stores them apart, where the page's editor does not reach).
    config = json.dumps({"slug": slug, "poll": POLL_MS, "inlineRows": INLINE_TABLE_ROWS})
    config = config.replace("<", "\\u003c")
    return (
        _PAGE.replace("__TITLE__", html.escape(slug))
        .replace("__CONFIG__", config)
        .replace("__SCRIPT_VERSION__", VIEWER_JS_VERSION)
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
