// The board viewer's script, served at /viewer.js by the HTTP adapter (see
// layoutkit/adapters/viewer.py for the page and docs/viewer.md for what it does).
// It holds no rules: every change is an operation on /api/v1/ops.
(() => {
  "use strict";
  // The page names its board and how often to poll in a JSON block; this file is the
  // same for every board, so browsers keep it.
  const CONFIG = JSON.parse(document.getElementById("viewer-config").textContent);
  const SLUG = CONFIG.slug;
  const POLL_MS = CONFIG.poll;
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
  // The comment operations the page asks board_outline whether the caller may call.
  const COMMENT_OPS = ["add_comment", "reply", "resolve_comment", "reopen_comment"];

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
  // Reads that may overlap (a pushed change and the page's own write both ask again):
  // only the answer of the last one asked counts, since an earlier one can arrive later
  // holding an older state. A superseded read answers null.
  function lastAsked(read) {
    let asked = 0;
    return async () => {
      const ticket = ++asked;
      const out = await read();
      return ticket === asked ? out : null;
    };
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
  // The wires as [from, to] card ids: a wire is drawn again where a card it joins moved.
  let wires = [];
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
    // Lines drawn on the board (selection, guides, handles) keep their screen width.
    world.style.setProperty("--inv", String(1 / view.s));
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
    requestAnimationFrame(() => { painting = false; drawOutline(); drawMinimap(); placeComments(); });
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
    // Nothing to find when the whole board is in view; on a small board area (a
    // phone, or under a dock) it would cover the cards themselves: Fit and a pinch do.
    const z = size();
    minimap.hidden = !extent || covers(visible(), extent) || z.w < minimap.width * 2 || z.h < minimap.height * 3.2;
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
    if (out.wires) wires = out.wires;
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
    drawWirePick();
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
    rects = withWires(rects);
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
  // A changed card's wires run to other cards: the piece redrawn reaches their ends.
  function withWires(rects) {
    const out = [...rects];
    for (const r of rects) {
      if (r.id == null) continue;
      for (const [a, b] of wires) {
        const other = a === r.id ? outline.get(b) : b === r.id ? outline.get(a) : null;
        if (other) out.push(grow(bounds([r, other]), 40));
      }
    }
    return out;
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
      // An answer asked before the page's own write may land after it: it never goes back.
      for (const c of out.cards) if (!payloads.has(c.id) || payloads.get(c.id).version <= c.version) payloads.set(c.id, {version: c.version, payload: c.payload});
      for (const id of out.missing) payloads.delete(id);
    }
    for (const el of overlay.querySelectorAll(".live")) {
      if (!ids.includes(Number(el.dataset.cardId))) el.remove();
    }
    for (const id of ids) if (payloads.has(id) && (!only || only.has(id) || !overlay.querySelector('.live[data-card-id="' + id + '"]'))) checklist(id);
    drawBadges();
    drawRegions();
    await drawTargets();
  }
  function checklist(id) {
    if (listEdit && listEdit.id === id) return drawListEditor(id);
    const c = outline.get(id), p = payloads.get(id).payload;
    let el = overlay.querySelector('.live[data-card-id="' + id + '"]');
    if (!el) { el = document.createElement("div"); el.dataset.cardId = String(id); overlay.append(el); }
    el.className = "live checklist";
    el.style.minHeight = "";
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
  const readQuestions = lastAsked(() => op("get", {kind: "questions", board: SLUG}));
  async function loadQuestions() {
    const out = await readQuestions();
    if (!out) return;
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
    // A live update redraws the panel: what a person is typing (an Other answer, a
    // free text) and where the caret is survive it.
    const drafts = new Map();
    const fieldKey = (el) => (el.closest("[data-question]")?.dataset.question || "") + "|" + el.tagName + "|" + el.className;
    for (const el of list.querySelectorAll("input:not([type]), input[type=text], textarea")) {
      if (el.value) drafts.set(fieldKey(el), { value: el.value, focused: el === document.activeElement, at: el.selectionStart });
    }
    list.replaceChildren();
    if (!pending.length) {
      const p = document.createElement("p");
      p.className = "hint";
      p.textContent = questions.size ? "Every answer has been sent." : "No questions on this board.";
      list.append(p);
    }
    for (const q of pending) list.append(questionCard(q));
    for (const el of list.querySelectorAll("input:not([type]), input[type=text], textarea")) {
      const kept = drafts.get(fieldKey(el));
      if (!kept || el.disabled) continue;
      el.value = kept.value;
      if (kept.focused) {
        el.focus();
        if (kept.at != null) el.setSelectionRange(kept.at, kept.at);
      }
    }
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
  let selected = null, confirming = null, drawnFindings = null;
  const readFindings = lastAsked(() => op("get", {kind: "annotations", board: SLUG}));
  async function loadFindings() {
    const out = await readFindings();
    if (!out) return;
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
    // Staged first (they wait on a person), then by severity, then oldest first.
    const rank = {high: 0, medium: 1, low: 2};
    all.sort((a, b) => (a.state !== "staged") - (b.state !== "staged") || (rank[a.severity] ?? 3) - (rank[b.severity] ?? 3) || a.id - b.id);
    // A read that brings what the panel already shows leaves its buttons in place: a
    // rebuild between a press and its release would swallow the person's click.
    const key = JSON.stringify([all, selected, confirming, may, all.map((a) => (outline.get(a.cardId) || {}).kind || null)]);
    if (key !== drawnFindings) {
      drawnFindings = key;
      // A redraw pushed by a change must not take the focus from what the person is on.
      const had = document.activeElement && list.contains(document.activeElement) ? focusKey(document.activeElement) : null;
      list.replaceChildren();
      if (!all.length) {
        const p = document.createElement("p");
        p.className = "hint";
        p.textContent = "No open findings on this board.";
        list.append(p);
      }
      for (const a of all) list.append(findingCard(a));
      if (had) { const el = list.querySelector(had); if (el) el.focus(); }
    }
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
      if (a.kind === "comment") return showComment(id);
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

  // ------------------------------------------------------------------ comments
  // People's comment threads (docs/viewer.md, "Comments"): pins on a point of the board
  // or on a card (placed by fractions of the card's box, so they move with it), each
  // opening a small popover with the thread. The Comment tool (or C) turns a click on
  // the board into a new pin; Enter drops one at the pointer (or mid-view) for the
  // keyboard. Threads are annotations of kind comment: every change is an operation.
  const comments = new Map();  // id -> the thread as get {kind: comments} answers it
  let commenting = false, showResolved = false, draft = null, openThreadId = null;
  const readComments = lastAsked(() => op("get", {kind: "comments", board: SLUG, states: ["open", "resolved"]}));
  // Threads this page wrote, by id, with the count of writes when it wrote them: a
  // read asked before a write answers without it (a pin just made, a reply, a
  // resolve), and taking that answer whole closed the thread the person had just
  // opened. What a write answered is at least as new as such a read.
  let commentWrites = 0;
  const wroteAt = new Map();
  function keepComment(c) {
    comments.set(c.id, c);
    wroteAt.set(c.id, ++commentWrites);
  }
  async function loadComments() {
    const asked = commentWrites;
    const out = await readComments();
    if (!out) return;
    const newer = [...wroteAt].filter(([, at]) => at > asked).map(([id]) => comments.get(id)).filter(Boolean);
    comments.clear();
    for (const c of out.comments) comments.set(c.id, c);
    for (const c of newer) comments.set(c.id, c);
    if (openThreadId != null && !comments.has(openThreadId)) closePopover();
    drawComments();
  }
  function canComment() { return may.add_comment !== false; }
  function setCommenting(on) {
    commenting = on && canComment();
    boardEl.classList.toggle("commenting", commenting);
    $("comment-tool").setAttribute("aria-pressed", String(commenting));
    document.body.dataset.commenting = commenting ? "1" : "";
    if (commenting) status("Comment mode: click the board or a card to pin a comment (Enter pins at the pointer, C or Escape ends it)");
    else live();
  }
  // Where a thread's pin sits on the board now: its point, or its fractions of its card.
  function pinPoint(c) {
    if (c.at) return {x: c.at.x, y: c.at.y};
    const card = outline.get(c.cardId), n = c.region && c.region.normalized;
    if (!card) return null;
    return n ? {x: card.x + n.nx * card.w, y: card.y + n.ny * card.h} : {x: card.x, y: card.y};
  }
  function messagesOf(c) { return 1 + c.replies.filter((r) => !r.deleted).length; }
  function shortName(author) { return String(author).replace(/^(user|owner|agent|service):/, "").replace(/^share:share:.*/, "someone with the link"); }
  function drawComments() {
    for (const el of overlay.querySelectorAll(".cpin")) el.remove();
    const all = [...comments.values()];
    const resolved = all.filter((c) => c.state === "resolved").length;
    const toggle = $("comments-resolved");
    if (!resolved) showResolved = false;
    toggle.hidden = resolved === 0;
    // Short, so the header still fits a phone: the words are its label.
    toggle.textContent = "✓ " + resolved;
    toggle.title = (showResolved ? "Hide the " : "Show the ") + resolved + " resolved comment" + (resolved === 1 ? "" : "s");
    toggle.setAttribute("aria-label", toggle.title);
    toggle.setAttribute("aria-pressed", String(showResolved));
    for (const c of all) {
      if (c.state === "resolved" && !showResolved) continue;
      const b = document.createElement("button");
      b.type = "button";
      b.className = "cpin" + (c.state === "resolved" ? " resolved" : "") + (openThreadId === c.id ? " active" : "");
      b.dataset.comment = String(c.id);
      b.dataset.state = c.state;
      const n = messagesOf(c);
      b.textContent = String(n);
      b.setAttribute("aria-label", "Comment by " + shortName(c.author) + ": " + c.text + " (" + n + (n === 1 ? " message" : " messages") + (c.state === "resolved" ? ", resolved" : "") + ")");
      b.title = c.text;
      b.addEventListener("click", (e) => { e.stopPropagation(); openThread(c.id); });
      overlay.append(b);
    }
    if (draft) {
      const b = document.createElement("div");
      b.className = "cpin draft";
      b.setAttribute("aria-hidden", "true");
      b.textContent = "+";
      overlay.append(b);
    }
    document.body.dataset.comments = String(all.filter((c) => c.state === "open").length);
    document.body.dataset.commentsResolved = String(resolved);
    placeComments();
    if (openThreadId != null) drawPopover();
  }
  // Pins follow their cards and the popover its pin: called on every paint.
  function placeComments() {
    for (const el of overlay.querySelectorAll(".cpin")) {
      const p = el.classList.contains("draft") ? draft && draftPoint() : pinPoint(comments.get(Number(el.dataset.comment)) || {});
      el.hidden = !p;
      if (p) { el.style.left = p.x + "px"; el.style.top = p.y + "px"; }
    }
    placePopover();
  }
  function draftPoint() {
    if (draft.at) return draft.at;
    const card = outline.get(draft.cardId);
    return card ? {x: card.x + draft.region.nx * card.w, y: card.y + draft.region.ny * card.h} : null;
  }
  // A new pin where the person pointed: on the card under it (not a frame), or on the board.
  function dropPin(p) {
    if (!canComment()) return;
    const hit = cardAt(p);
    if (hit && !FRAMES.has(hit.kind)) {
      const f = (v) => Math.min(1, Math.max(0, Math.round(v * 10000) / 10000));
      draft = {cardId: hit.id, region: {nx: f((p.x - hit.x) / hit.w), ny: f((p.y - hit.y) / hit.h)}};
    } else draft = {at: {x: Math.round(p.x), y: Math.round(p.y)}};
    openThreadId = null;
    drawComments();
    drawPopover();
  }
  function closePopover() {
    draft = null; openThreadId = null;
    $("cpop").hidden = true;
    document.body.dataset.thread = "";
    drawComments();
  }
  function openThread(id) {
    draft = null;
    openThreadId = id;
    document.body.dataset.thread = String(id);
    drawComments();
    const c = comments.get(id);
    if (!c) return;
    drawPopover();
  }
  async function showComment(id) {
    if (!comments.has(id)) {
      try { const c = await op("get_annotation", {id}); if (c.kind !== "comment") return showFinding(id); comments.set(c.id, c); }
      catch (err) { toast(readable(err), true); return; }
    }
    const c = comments.get(id);
    if (c.state === "resolved" && !showResolved) { showResolved = true; drawComments(); }
    const p = pinPoint(c);
    if (p) centerOn(p.x, p.y, Math.max(view.s, 0.8));
    openThread(id);
  }
  function placePopover() {
    const pop = $("cpop");
    if (pop.hidden) return;
    // Something scrolled the board area (it shows the board by panning, never by
    // scrolling): put it back, or the popover would be placed beside where it shows.
    if (boardEl.scrollLeft || boardEl.scrollTop) { boardEl.scrollLeft = 0; boardEl.scrollTop = 0; }
    const p = draft ? draftPoint() : openThreadId != null && comments.has(openThreadId) ? pinPoint(comments.get(openThreadId)) : null;
    if (!p) return;
    const z = size(), w = pop.offsetWidth, h = pop.offsetHeight;
    const sx = (p.x - view.x) * view.s, sy = (p.y - view.y) * view.s;
    // Beside the pin when it fits, else below or above it; always inside the board area.
    let left = sx + 36 + w <= z.w ? sx + 36 : sx - 12 - w;
    let top = sy - 24;
    if (left < 8) { left = Math.max(8, Math.min(z.w - w - 8, sx - w / 2)); top = sy + 12 + h <= z.h ? sy + 12 : sy - 44 - h; }
    pop.style.left = Math.round(Math.max(8, Math.min(z.w - w - 8, left))) + "px";
    pop.style.top = Math.round(Math.max(8, Math.min(z.h - h - 8, top))) + "px";
  }
  function drawPopover() {
    const pop = $("cpop");
    const c = openThreadId != null ? comments.get(openThreadId) : null;
    if (!draft && !c) { pop.hidden = true; return; }
    // A redraw of the same thread (a reply arriving) keeps what is being typed and where
    // the focus is; another thread or a new pin starts empty.
    const target = draft ? "draft" : String(c.id), same = pop.dataset.target === target && !pop.hidden;
    const had = same && document.activeElement && pop.contains(document.activeElement) ? document.activeElement.dataset.part : null;
    const typed = same && pop.querySelector("textarea") ? pop.querySelector("textarea").value : "";
    pop.replaceChildren();
    pop.dataset.target = target;
    pop.dataset.comment = c ? String(c.id) : "";
    const head = document.createElement("div");
    head.className = "chead";
    const h = document.createElement("h2");
    h.textContent = draft ? "New comment" : c.state === "resolved" ? "Resolved comment" : "Comment";
    const where = document.createElement("span");
    where.className = "where";
    const on = draft || c;
    where.textContent = on.cardId != null ? "on " + ((outline.get(on.cardId) || {}).kind || "a") + " card " + on.cardId : "on the board";
    const x = button("×", closePopover);
    x.className = "close"; x.setAttribute("aria-label", "Close the thread"); x.dataset.part = "close";
    head.append(h, where, x);
    pop.append(head);
    if (c) {
      const list = document.createElement("div");
      list.className = "msgs";
      const msgs = [{n: 0, author: c.author, text: c.text, at: c.createdAt}, ...c.replies];
      for (const m of msgs) {
        const box = document.createElement("div");
        box.className = "msg" + (m.deleted ? " deleted" : "");
        const who = document.createElement("div");
        who.className = "who";
        who.textContent = shortName(m.author) + " · " + new Date(m.at).toLocaleString([], {month: "short", day: "numeric", hour: "2-digit", minute: "2-digit"}) + (m.editedAt ? " · edited" : "");
        const text = document.createElement("p");
        text.textContent = m.deleted ? "(deleted)" : m.text;
        box.append(who, text);
        list.append(box);
      }
      pop.append(list);
    }
    const canWrite = draft ? canComment() : may.reply !== false;
    if (canWrite) {
      const area = document.createElement("textarea");
      area.rows = 2;
      area.maxLength = 8000;
      area.dataset.part = "text";
      area.placeholder = draft ? "Add a comment" : "Reply";
      area.setAttribute("aria-label", draft ? "New comment" : "Reply to this thread");
      area.value = typed;
      area.addEventListener("keydown", (e) => {
        if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) { e.preventDefault(); send.click(); }
        if (e.key === "Escape") { e.preventDefault(); e.stopPropagation(); closePopover(); boardEl.focus(); }
      });
      pop.append(area);
    }
    const row = document.createElement("div");
    row.className = "row";
    const send = button(draft ? "Comment" : "Reply", () => submitComment().catch(() => {}));
    send.className = "primary"; send.dataset.part = "send";
    if (c && may.resolve_comment !== false) {
      const flip = c.state === "resolved"
        ? button("Reopen", () => moveThread(c.id, "reopen_comment").catch(() => {}))
        : button("Resolve", () => moveThread(c.id, "resolve_comment").catch(() => {}));
      flip.dataset.part = "flip";
      row.append(flip);
    }
    if (draft) { const no = button("Cancel", closePopover); no.dataset.part = "cancel"; row.append(no); }
    if (canWrite) row.append(send);
    pop.append(row);
    pop.hidden = false;
    placePopover();
    const focus = had ? pop.querySelector('[data-part="' + had + '"]') : draft ? pop.querySelector("textarea") : null;
    // The board area never scrolls: the popover is placed inside it instead.
    if (focus) focus.focus({preventScroll: true});
  }
  async function submitComment() {
    const pop = $("cpop"), area = pop.querySelector("textarea");
    const text = area ? area.value.trim() : "";
    if (!text) { toast("Write something first.", true); if (area) area.focus(); return; }
    const send = pop.querySelector('[data-part="send"]');
    send.disabled = true;
    try {
      if (draft) {
        const out = await op("add_comment", {board: SLUG, text, ...draft});
        keepComment(out);
        draft = null;
        area.value = "";
        toast("Comment pinned.");
        openThread(out.id);
      } else {
        const out = await op("reply", {id: openThreadId, text});
        keepComment(out);
        area.value = "";
        drawComments();
      }
      document.body.dataset.commentSaved = String(Date.now());
      if (pop.querySelector("textarea")) pop.querySelector("textarea").focus({preventScroll: true});
    } catch (err) {
      toast(readable(err), true);
      send.disabled = false;
      throw err;
    }
  }
  async function moveThread(id, name) {
    try {
      const out = await op(name, {id});
      keepComment(out);
      toast(out.state === "resolved" ? "Comment resolved." + (showResolved ? "" : " Resolved ones are behind the Resolved toggle.") : "Comment reopened.");
      if (out.state === "resolved" && !showResolved) closePopover(); else drawComments();
      document.body.dataset.commentSaved = String(Date.now());
    } catch (err) {
      toast(readable(err), true);
      loadComments().catch(failed);
      throw err;
    }
  }
  $("comment-tool").addEventListener("click", () => setCommenting(!commenting));
  $("comments-resolved").addEventListener("click", () => { showResolved = !showResolved; drawComments(); });
  // Keys for comments: C turns the tool on and off; in it Enter pins at the pointer and
  // Escape ends it. Answers whether the key was used.
  function commentKey(e) {
    if ((e.key === "c" || e.key === "C") && canComment()) { setCommenting(!commenting); return true; }
    if (e.key === "Escape" && !$("cpop").hidden) { closePopover(); return true; }
    if (!commenting) return false;
    if (e.key === "Escape") { setCommenting(false); return true; }
    if (e.key === "Enter") { dropPin(pointerAt()); return true; }
    return false;
  }

  // ------------------------------------------------------------------ cards a person selects, moves and resizes
  // Selection lives on the page only; every change it leads to is update_cards
  // with the person's own principal, naming the card version it started from.
  const selection = new Set();
  const details = new Map();  // card id -> get {kind: cards} answer (kind, layer, author, version, payload)
  const trashed = new Map();  // card id -> what it was, for Restore after a delete
  // Cards restored here: a stream event of their removal may still be on its way,
  // and they are selected again when the stream brings them back.
  const reselect = new Set();
  // Snapping reaches this many screen pixels; keyboard steps are board pixels.
  const SNAP_PX = 6, STEP = 10, BIG_STEP = 50;
  function canEdit() { return may.update_cards !== false; }
  function toBoard(e) { const r = boardEl.getBoundingClientRect(); return {x: view.x + (e.clientX - r.left) / view.s, y: view.y + (e.clientY - r.top) / view.s}; }
  function area(c) { return c.w * c.h; }
  // The card under a board point: a card before the frame around it, the innermost first.
  function cardAt(p) {
    let best = null;
    for (const c of outline.values()) {
      if (p.x < c.x || p.y < c.y || p.x > c.x + c.w || p.y > c.y + c.h) continue;
      const better = !best || (FRAMES.has(best.kind) && !FRAMES.has(c.kind)) ||
        (FRAMES.has(best.kind) === FRAMES.has(c.kind) && area(c) < area(best));
      if (better) best = c;
    }
    return best;
  }
  function descendants(id) {
    const out = [];
    for (const c of outline.values()) {
      for (let p = c.parent; p != null; p = (outline.get(p) || {}).parent) if (p === id) { out.push(c); break; }
    }
    return out;
  }
  // The selected cards that move themselves: a card inside a selected frame moves with it.
  function movers() {
    return [...selection].map((id) => outline.get(id)).filter((c) => {
      if (!c) return false;
      for (let p = c.parent; p != null; p = (outline.get(p) || {}).parent) if (selection.has(p)) return false;
      return true;
    });
  }
  function cardName(id) {
    const c = outline.get(id), d = details.get(id);
    const kind = (d && d.kind) || (c && c.kind) || "card";
    const p = (d && d.payload) || {};
    const text = [p.title, p.heading, p.label, p.name, p.prompt, p.md, p.text, p.alt, p.url].find((t) => typeof t === "string" && t.trim());
    if (!text) return kind + " " + id;
    const words = text.replace(/[#*_`>\[\]]/g, " ").trim().split(/\s+/);
    return kind + ": " + words.slice(0, 8).join(" ") + (words.length > 8 ? "…" : "");
  }
  async function loadDetails(ids) {
    const need = ids.filter((id) => !details.has(id) && outline.has(id));
    for (let at = 0; at < need.length; at += 200) {
      const out = await op("get", {kind: "cards", board: SLUG, ids: need.slice(at, at + 200)});
      for (const c of out.cards) details.set(c.id, c);
    }
  }
  function select(ids, add) {
    pickedWire = null;
    if (!add) selection.clear();
    for (const id of ids) {
      if (add && selection.has(id) && ids.length === 1) selection.delete(id); else selection.add(id);
    }
    trashed.clear();
    drawSelection();
    // A card picked by starting to drag it: the dock waits for the drop, so the board
    // keeps its room (and the frame it goes to stays in sight) while it moves.
    if (!(drag && drag.moved)) openDock(ids);
    loadDetails([...selection]).then(inspect).catch(failed);
    inspect();
  }
  function openDock(ids) {
    const panel = $("inspector");
    if ((selection.size || pickedWire != null) && panel.dataset.closed !== "1" && panel.hidden) {
      panel.hidden = false;
      dockOpened = performance.now();
      // The dock took room from the board: the card just picked stays in view.
      if (ids.length === 1) keepInView(ids[0]);
      else if (pickedWire != null && edges.has(pickedWire)) {
        const w = edges.get(pickedWire), ends = [outline.get(w.from), outline.get(w.to)].filter(Boolean);
        if (ends.length) keepBoxInView(bounds(ends));
      }
      paint(); facesSoon();
    }
  }
  function keepInView(id) { keepBoxInView(outline.get(id)); }
  function keepBoxInView(c) {
    const v = visible(), m = 24 / view.s;
    if (!c) return;
    let x = view.x, y = view.y;
    if (c.x + c.w + m > v.x + v.w) x += c.x + c.w + m - (v.x + v.w);
    if (c.x - m < x) x = c.x - m;
    if (c.y + c.h + m > v.y + v.h) y += c.y + c.h + m - (v.y + v.h);
    if (c.y - m < y) y = c.y - m;
    if (x !== view.x || y !== view.y) setView(x, y, view.s);
  }
  function clearSelection() { if (!selection.size && !trashed.size && pickedWire == null) return; selection.clear(); trashed.clear(); pickedWire = null; drawSelection(); inspect(); }
  function drawSelection(boxes) {
    for (const el of overlay.querySelectorAll(".selbox, .handle")) el.remove();
    for (const id of selection) {
      const c = (boxes && boxes.get(id)) || outline.get(id);
      if (!c) { selection.delete(id); continue; }
      const el = document.createElement("div");
      el.className = "selbox";
      el.dataset.cardId = String(id);
      place(el, c);
      overlay.append(el);
    }
    if (selection.size === 1 && canEdit()) {
      const c = (boxes && boxes.get([...selection][0])) || outline.get([...selection][0]);
      if (c) {
        const h = document.createElement("div");
        h.className = "handle";
        h.title = "Drag to resize (or Alt + arrow keys)";
        h.style.left = (c.x + c.w) + "px"; h.style.top = (c.y + c.h) + "px";
        h.style.transform = "translate(-50%, -50%)";
        overlay.append(h);
      }
    }
    // While cards move or resize the dot would mark where they were: it waits.
    if (boxes) for (const el of overlay.querySelectorAll(".wiredot")) el.remove();
    else drawWireDot();
    drawWirePick();
    document.body.dataset.selection = [...selection].join(",");
    presenceSelection();
  }

  // Focus targets: one per card in the drawn region, in reading order, named for a
  // screen reader; focusing one selects its card, so the keyboard reaches every action.
  let targetsFor = null;
  async function drawTargets() {
    if (!drawn) return;
    const cards = [...outline.values()].filter((c) => intersects(c, drawn));
    cards.sort((a, b) => a.y - b.y || a.x - b.x);
    const key = cards.map((c) => c.id + ":" + c.x + ":" + c.y + ":" + c.w + ":" + c.h).join(",");
    if (key === targetsFor) return;
    targetsFor = key;
    await loadDetails(cards.map((c) => c.id).slice(0, 600)).catch(() => {});
    const had = document.activeElement && document.activeElement.classList.contains("cardfocus") ? Number(document.activeElement.dataset.cardId) : null;
    for (const el of overlay.querySelectorAll(".cardfocus")) el.remove();
    const first = overlay.firstChild;
    for (const c of cards) {
      const el = document.createElement("div");
      el.className = "cardfocus";
      el.tabIndex = 0;
      el.setAttribute("role", "button");
      el.dataset.cardId = String(c.id);
      el.setAttribute("aria-label", cardName(c.id));
      place(el, c);
      el.addEventListener("focus", () => { if (!selection.has(c.id) || selection.size > 1) select([c.id]); });
      overlay.insertBefore(el, first);
    }
    if (had != null) { const el = overlay.querySelector('.cardfocus[data-card-id="' + had + '"]'); if (el) el.focus({preventScroll: true}); }
  }

  // Where a moving or resizing box snaps: other cards' edges and centres in view.
  function snapLines(skip) {
    const xs = [], ys = [], v = visible();
    for (const c of outline.values()) {
      if (skip.has(c.id) || !intersects(c, v)) continue;
      xs.push({at: c.x, c}, {at: c.x + c.w / 2, c}, {at: c.x + c.w, c});
      ys.push({at: c.y, c}, {at: c.y + c.h / 2, c}, {at: c.y + c.h, c});
    }
    return {xs, ys};
  }
  function nearest(points, lines) {
    let best = null;
    const tol = SNAP_PX / view.s;
    for (const p of points) for (const l of lines) {
      const d = l.at - p;
      if (Math.abs(d) <= tol && (!best || Math.abs(d) < Math.abs(best.d))) best = {d, line: l};
    }
    return best;
  }
  function drawGuides(box, gx, gy) {
    for (const el of overlay.querySelectorAll(".guide")) el.remove();
    const w = 1 / view.s;
    if (gx) {
      const y0 = Math.min(box.y, gx.line.c.y), y1 = Math.max(box.y + box.h, gx.line.c.y + gx.line.c.h);
      const el = document.createElement("div"); el.className = "guide v";
      place(el, {x: gx.line.at - w / 2, y: y0 - 8, w, h: y1 - y0 + 16}); overlay.append(el);
    }
    if (gy) {
      const x0 = Math.min(box.x, gy.line.c.x), x1 = Math.max(box.x + box.w, gy.line.c.x + gy.line.c.w);
      const el = document.createElement("div"); el.className = "guide h";
      place(el, {x: x0 - 8, y: gy.line.at - w / 2, w: x1 - x0 + 16, h: w}); overlay.append(el);
    }
    document.body.dataset.guides = String((gx ? 1 : 0) + (gy ? 1 : 0));
  }
  function clearGhosts() {
    for (const el of overlay.querySelectorAll(".ghost, .guide, .marquee, .wireline, .wiretarget, .droptarget")) el.remove();
    delete document.body.dataset.dropTarget;
    presenceDragging(null);
  }
  function bounds(cards) {
    const x0 = Math.min(...cards.map((c) => c.x)), y0 = Math.min(...cards.map((c) => c.y));
    return {x: x0, y: y0, w: Math.max(...cards.map((c) => c.x + c.w)) - x0, h: Math.max(...cards.map((c) => c.y + c.h)) - y0};
  }
  // Boxes the cards would have after a move by dx, dy (frames carry their children).
  function movedBoxes(cards, dx, dy) {
    const out = new Map();
    for (const c of cards) {
      out.set(c.id, {...c, x: c.x + dx, y: c.y + dy});
      for (const k of descendants(c.id)) out.set(k.id, {...k, x: k.x + dx, y: k.y + dy});
    }
    return out;
  }
  function drawGhosts(boxes) {
    for (const el of overlay.querySelectorAll(".ghost")) el.remove();
    for (const b of boxes.values()) {
      const el = document.createElement("div");
      el.className = "ghost";
      el.dataset.cardId = String(b.id);
      // Where the card will land, named: its face stays put until the write is drawn.
      if (!FRAMES.has(b.kind)) el.textContent = cardName(b.id);
      place(el, b);
      overlay.append(el);
    }
    drawSelection(boxes);
  }
  // A move of cards by a pointer offset, snapped: the selection's box meets another card's edge or centre.
  function moveStep(g, dx, dy, snap) {
    const box = bounds(g.cards), skip = new Set(g.cards.flatMap((c) => [c.id, ...descendants(c.id).map((k) => k.id)]));
    let gx = null, gy = null;
    if (snap) {
      g.lines = g.lines || snapLines(skip);
      gx = nearest([box.x + dx, box.x + dx + box.w / 2, box.x + dx + box.w], g.lines.xs);
      gy = nearest([box.y + dy, box.y + dy + box.h / 2, box.y + dy + box.h], g.lines.ys);
      if (gx) dx += gx.d;
      if (gy) dy += gy.d;
    }
    g.dx = dx; g.dy = dy;
    drawGhosts(movedBoxes(g.cards, dx, dy));
    drawGuides({...box, x: box.x + dx, y: box.y + dy}, gx, gy);
    drawDropTargets(g, skip);
    presenceDragging(g);
  }
  // A moved card belongs to the innermost frame under its centre (update_cards places
  // it in that frame's order and the frame reflows; out of every frame, it leaves).
  // The frame it will join is outlined while it moves.
  function frameAt(p, skip) {
    let best = null;
    for (const c of outline.values()) {
      if (!FRAMES.has(c.kind) || skip.has(c.id)) continue;
      if (p.x < c.x || p.y < c.y || p.x > c.x + c.w || p.y > c.y + c.h) continue;
      if (!best || area(c) < area(best)) best = c;
    }
    return best;
  }
  function drawDropTargets(g, skip) {
    for (const el of overlay.querySelectorAll(".droptarget")) el.remove();
    const into = new Set();
    for (const c of g.cards) {
      const f = frameAt({x: c.x + g.dx + c.w / 2, y: c.y + g.dy + c.h / 2}, skip);
      if (f && f.id !== c.parent) into.add(f);
    }
    for (const f of into) {
      const el = document.createElement("div");
      el.className = "droptarget";
      el.dataset.cardId = String(f.id);
      place(el, f);
      overlay.append(el);
    }
    document.body.dataset.dropTarget = [...into].map((f) => f.id).join(",");
  }
  const MIN_SIZE = 24;
  function resizeStep(g, dw, dh, snap) {
    const c = g.cards[0];
    let w = Math.max(MIN_SIZE, c.w + dw), h = Math.max(MIN_SIZE, c.h + dh), gx = null, gy = null;
    if (snap) {
      g.lines = g.lines || snapLines(new Set([c.id, ...descendants(c.id).map((k) => k.id)]));
      gx = nearest([c.x + w], g.lines.xs);
      gy = nearest([c.y + h], g.lines.ys);
      if (gx) w += gx.d;
      if (gy) h += gy.d;
    }
    g.w = w; g.h = h;
    const boxes = new Map([[c.id, {...c, w, h}]]);
    drawGhosts(boxes);
    drawGuides({...c, w, h}, gx, gy);
  }

  // The write: update_cards with the versions the page saw. A card someone else
  // wrote meanwhile comes back as it is now (409 stale_card) and the view takes it.
  async function writeBoxes(patches, record = true) {
    const before = patches.map((p) => ({...outline.get(p.id)}));
    // Undo puts back only what the patch changed: a move never sizes the card.
    const back = patches.map((p, i) => {
      const b = {id: p.id};
      for (const k of ["x", "y", "w", "h"]) if (k in p) b[k] = before[i][k];
      return b;
    });
    const forth = patches.map((p) => { const f = {...p}; delete f.version; return f; });
    const dirty = [...before];
    let ok = false;
    for (const p of patches) {
      const d = details.get(p.id);
      if (d) p.version = d.version;
      const box = {...outline.get(p.id), ...p};
      delete box.version;
      outline.set(p.id, box);
      dirty.push(box);
    }
    extent = extentOf(); mini = null; paint(); drawSelection();
    try {
      const out = await op("update_cards", {board: SLUG, patch: patches});
      take(out.cards);
      wrote();
      if (record) remember({op: "boxes", boxes: back}, {op: "boxes", boxes: forth});
      ok = true;
    } catch (err) {
      for (const b of before) outline.set(b.id, b);
      if (!staleSnap(err)) toast(readable(err), true);
      extent = extentOf(); mini = null; paint(); drawSelection();
    }
    await patch(dirty);
    inspect();
    return ok;
  }
  function wrote() { document.body.dataset.wrote = String(Number(document.body.dataset.wrote || 0) + 1); }
  // Someone else's write won (409 stale_card): show the card as the server has it,
  // quietly, and read its content again when asked for.
  function staleSnap(err) {
    if (!(err instanceof ApiError && err.status === 409 && err.body.code === "stale_card")) return false;
    details.delete(err.body.card.id);
    take([err.body.card]);
    document.body.dataset.snapped = String(err.body.card.id);
    status("Card " + err.body.card.id + " was changed by someone else; showing it as it is now.");
    loadDetails([...selection]).then(inspect).catch(failed);
    return true;
  }
  function take(cards) {
    const dirty = [];
    for (const c of cards) {
      const old = outline.get(c.id);
      if (old) dirty.push({...old});
      const box = {...(old || {parent: null}), id: c.id, kind: c.kind, x: c.x, y: c.y, w: c.w, h: c.h};
      outline.set(c.id, box);
      dirty.push(box);
      const d = details.get(c.id);
      if (d && c.version != null) details.set(c.id, {...d, ...box, version: c.version});
    }
    extent = extentOf(); mini = null; paint(); drawSelection();
    patch(dirty).catch(failed);
  }
  // What the event stream says changed: versions for the inspector and the next write.
  function heard(cards) {
    let mine = false;
    for (const c of cards) {
      if (c.removed) { details.delete(c.id); if (selection.delete(c.id)) mine = true; continue; }
      if (reselect.delete(c.id)) { selection.add(c.id); mine = true; }
      const d = details.get(c.id);
      if (d && (d.version !== c.version)) {
        // A new version may carry a new payload: read it again when it is asked for.
        details.delete(c.id);
        if (selection.has(c.id)) mine = true;
      }
    }
    drawSelection();
    if (mine) loadDetails([...selection]).then(inspect).catch(failed);
  }

  // Keys move (or with Alt resize) the selection; the write goes once the keys rest.
  let nudge = null, nudgeTimer = null;
  function nudgeBy(dx, dy, resize) {
    const cards = resize ? movers().slice(0, 1) : movers();
    if (!cards.length || !canEdit()) return;
    if (!nudge || nudge.resize !== resize) { flushNudge(); nudge = {resize, cards, dx: 0, dy: 0}; }
    nudge.dx += dx; nudge.dy += dy;
    if (resize) resizeStep(nudge, nudge.dx, nudge.dy, false); else moveStep(nudge, nudge.dx, nudge.dy, false);
    clearTimeout(nudgeTimer);
    nudgeTimer = setTimeout(flushNudge, 350);
  }
  function flushNudge() {
    clearTimeout(nudgeTimer);
    const g = nudge;
    nudge = null;
    if (!g) return;
    finish(g);
  }
  function finish(g) {
    clearGhosts();
    if (g.resize) {
      const c = g.cards[0];
      if (g.w !== c.w || g.h !== c.h) writeBoxes([{id: c.id, w: Math.round(g.w), h: Math.round(g.h)}]);
    } else if (g.dx || g.dy) {
      writeBoxes(g.cards.map((c) => ({id: c.id, x: Math.round(c.x + g.dx), y: Math.round(c.y + g.dy)})));
    }
    drawSelection();
  }
  function marqueeStep(g, p) {
    const r = {x: Math.min(g.from.x, p.x), y: Math.min(g.from.y, p.y), w: Math.abs(p.x - g.from.x), h: Math.abs(p.y - g.from.y)};
    g.rect = r;
    let el = overlay.querySelector(".marquee");
    if (!el) { el = document.createElement("div"); el.className = "marquee"; overlay.append(el); }
    place(el, r);
  }
  function marqueeEnd(g) {
    clearGhosts();
    if (!g.rect) return;
    const inside = [...outline.values()].filter((c) => c.x >= g.rect.x && c.y >= g.rect.y && c.x + c.w <= g.rect.x + g.rect.w && c.y + c.h <= g.rect.y + g.rect.h);
    select(inside.map((c) => c.id), true);
  }

  // ------------------------------------------------------------------ removing and restoring
  async function removeSelected() {
    const ids = movers().map((c) => c.id);
    if (!ids.length || !canEdit()) return;
    await removeCards(ids, {});
  }
  async function removeCards(ids, extra, record = true) {
    const kept = ids.map((id) => ({box: outline.get(id), detail: details.get(id)}));
    let out;
    try {
      out = await op("update_cards", {board: SLUG, remove: ids, ...extra});
    } catch (err) {
      if (err instanceof ApiError && err.status === 409 && err.body.code === "needs_confirm") { askToRemove(ids, err.body, record); return false; }
      toast(readable(err), true);
      return false;
    }
    wrote();
    if (record) remember({op: "restore", ids: out.removed}, {op: "remove", ids: out.removed});
    selection.clear();
    for (const k of kept) if (k.box) trashed.set(k.box.id, k);
    const dirty = [];
    for (const id of out.removed) { const b = outline.get(id); if (b) dirty.push(b); outline.delete(id); details.delete(id); }
    extent = extentOf(); mini = null; paint(); drawSelection();
    toast(out.removed.length === 1 ? "Card moved to the trash (kept 30 days)." : out.removed.length + " cards moved to the trash (kept 30 days).");
    inspect();
    await patch(dirty);
    return true;
  }
  // The confirm handshake of update_cards in a dialog: what would go, why, and a reason.
  function askToRemove(ids, body, record) {
    // The server's message speaks to agents (tokens, repeat the ids): a person reads this.
    const authors = [...new Set((body.preview || []).map((c) => c.author))];
    const others = /someone else/.test(body.message || ""), many = /more than|of the board/.test(body.message || "");
    askConfirm(ids.length === 1 ? "Remove this card?" : "Remove these cards?",
      (others ? (ids.length === 1 ? "This card was" : "These " + ids.length + " cards were") + " made by " + authors.join(", ") + ". " : "") +
      (many ? "That is a large part of the board. " : "") +
      "Removed cards go to the trash for 30 days and can be restored; the board's history keeps why you removed them.",
      (body.preview || []).map((c) => c.kind + (c.title ? " “" + c.title + "”" : " " + c.id) + " — by " + c.author + " (" + (c.layer === "ai" ? "AI" : "human") + " layer)"),
      body.token, (extra) => removeCards(ids, extra, record));
  }
  // The same handshake for wires (update_edges): a wire is gone for good, so the
  // dialog says undo brings a copy back.
  function askToRemoveWires(ids, body, record) {
    const authors = [...new Set((body.preview || []).map((w) => w.author || "someone else"))];
    askConfirm(ids.length === 1 ? "Remove this wire?" : "Remove these wires?",
      (ids.length === 1 ? "This wire was" : "These " + ids.length + " wires were") + " drawn by " + authors.join(", ") + ". " +
      "The board's history keeps why you removed " + (ids.length === 1 ? "it" : "them") + "; Ctrl/⌘+Z draws it again.",
      (body.preview || []).map((w) => wireName(w) + " — by " + (w.author || "unknown")),
      body.token, (extra) => removeWires(ids, extra, record));
  }
  let confirmGo = null;
  function askConfirm(title, why, items, token, go) {
    const dialog = $("confirm-remove");
    $("confirm-remove-title").textContent = title;
    $("confirm-remove-why").textContent = why;
    const list = $("confirm-remove-list");
    list.replaceChildren();
    for (const text of items) { const li = document.createElement("li"); li.textContent = text; list.append(li); }
    $("confirm-remove-reason").value = "";
    $("confirm-remove-error").textContent = "";
    dialog.dataset.token = token;
    confirmGo = go;
    dialog.showModal();
    $("confirm-remove-reason").focus();
  }
  $("confirm-remove-keep").addEventListener("click", () => $("confirm-remove").close());
  $("confirm-remove-go").addEventListener("click", async () => {
    const dialog = $("confirm-remove"), reason = $("confirm-remove-reason").value.trim();
    if (reason.length < 20) { $("confirm-remove-error").textContent = "Say why in at least 20 characters: the board's history keeps it."; return; }
    const go = confirmGo;
    confirmGo = null;
    dialog.close();
    if (go) await go({confirm: dialog.dataset.token, reason});
  });
  function restoreTrashed() { return restoreCards([...trashed.keys()], true); }
  async function restoreCards(ids, record) {
    let out;
    try { out = await op("update_cards", {board: SLUG, restore: ids}); }
    catch (err) { toast(readable(err), true); return false; }
    wrote();
    if (record) remember({op: "remove", ids}, {op: "restore", ids});
    trashed.clear();
    take(out.restored);
    for (const c of out.restored) { selection.add(c.id); reselect.add(c.id); }
    toast(out.restored.length === 1 ? "Card restored." : out.restored.length + " cards restored.");
    drawSelection();
    loadDetails([...selection]).then(inspect).catch(failed);
    return true;
  }

  // ------------------------------------------------------------------ writing on the board
  // A text or note card is written in place: a textarea over the card (or where a new
  // one goes). Enter or leaving it saves, Shift+Enter breaks the line, Escape cancels.
  // The field a card kind's text is edited in place in (its markdown, a shape's label).
  const TEXT_FIELD = {text: "md", note: "md", shape: "label", page: "md"};
  const EDITABLE = new Set(Object.keys(TEXT_FIELD));
  // What a new card of a kind starts as, beside the text typed into it.
  const NEW_PAYLOAD = {shape: {shape: "rect"}};
  // A shape card's figures (elements.vocab.CARD_SHAPES; a test holds the two alike).
  const CARD_SHAPES = ["rect", "round", "circle", "diamond", "hexagon", "triangle", "arrow", "line"];
  let editing = null;
  function canCreate() { return may.compose_board !== false && canEdit(); }
  // Below this scale typed text is too small to read: the view zooms to the card first.
  const EDIT_SCALE = 0.75;
  function zoomToEdit(b) {
    if (view.s >= EDIT_SCALE) return;
    const z = size();
    centerOn(b.x + b.w / 2, b.y + b.h / 2, Math.max(EDIT_SCALE, Math.min(1, 0.9 * z.w / b.w)));
  }
  function openEditor(target) {
    closeEditor(false);
    zoomToEdit(target.box);
    const area = document.createElement("textarea");
    area.className = "editor" + (target.kind === "note" ? " note" : target.kind === "node" ? " node" : "");
    area.setAttribute("aria-label", target.label || (target.id != null ? "Edit " + cardName(target.id) : "New " + target.kind + ": type, then Enter"));
    area.value = target.md || "";
    area.spellcheck = true;
    place(area, target.box);
    area.style.minHeight = target.box.h + "px";
    overlay.append(area);
    editing = {...target, area};
    document.body.dataset.editing = target.id != null ? String(target.id) : "new";
    area.addEventListener("keydown", (e) => {
      if (e.key === "Escape") { e.preventDefault(); closeEditor(false); boardEl.focus(); }
      else if (e.key === "Enter" && !e.shiftKey) { e.preventDefault(); closeEditor(true); boardEl.focus(); }
      e.stopPropagation();
    });
    area.addEventListener("blur", () => closeEditor(true));
    // The editor grows with what is typed, as the card will.
    const fitText = () => { area.style.height = "auto"; area.style.height = Math.max(target.box.h, area.scrollHeight) + "px"; };
    area.addEventListener("input", fitText);
    requestAnimationFrame(fitText);
    area.focus();
    area.setSelectionRange(area.value.length, area.value.length);
  }
  function closeEditor(save) {
    const e = editing;
    if (!e) return;
    editing = null;
    e.area.remove();
    delete document.body.dataset.editing;
    const md = e.area.value.replace(/\s+$/, "");
    if (!save) return;
    if (e.save) { if (md.trim() && md !== e.md) e.save(md); return; }
    // A shape may go without a label; a note or text without words is no card.
    if (e.id == null) { if (md.trim() || e.kind === "shape") createCard(e.kind, md.trim() ? md : "", e.box).catch(failed); }
    else if (md !== e.md && md.trim()) writeText(e.id, md, e.version, true).catch(failed);
  }
  // A double-click on an empty spot (or N) starts a note there; on a text or note card
  // it opens the card's markdown.
  async function editCard(id) {
    const c = outline.get(id);
    if (c && INPLACE[c.kind]) return INPLACE[c.kind](id);
    if (!c || !EDITABLE.has(c.kind) || !canEdit()) return false;
    details.delete(id);
    await loadDetails([id]);
    const d = details.get(id);
    if (!d || d.mayEdit === false) { if (d) toast("Only its author can change this card's text; you may move, resize or remove it.", true); return false; }
    openEditor({id, kind: c.kind, md: d.payload[TEXT_FIELD[c.kind]] || "", version: d.version, box: c});
    return true;
  }
  function startNote(p) {
    if (!canCreate()) return;
    openEditor({kind: "note", md: "", box: {x: Math.round(p.x), y: Math.round(p.y), w: 240, h: 96}});
  }
  function startShape(p) {
    if (!canCreate()) return;
    openEditor({kind: "shape", md: "", box: {x: Math.round(p.x), y: Math.round(p.y), w: 160, h: 100}});
  }
  async function createCard(kind, md, box, record = true) {
    const payload = {...(NEW_PAYLOAD[kind] || {})};
    if (md || kind !== "shape") payload[TEXT_FIELD[kind] || "md"] = md;
    return putByHand("compose_board", {cards: [{kind, payload}]}, box, record);
  }
  // New cards put where a person chose (compose_board or upload_files with at): drawn
  // at once, picked, and one undo step takes them all to the trash.
  async function putByHand(name, params, at, record) {
    let out;
    try { out = await op(name, {board: SLUG, ...params, at: {x: Math.round(at.x), y: Math.round(at.y)}}); }
    catch (err) { toast(readable(err), true); return null; }
    wrote();
    const ids = out.cards.map((c) => c.id);
    take(out.cards.map((c) => ({...c, version: 1})));
    if (record) remember({op: "remove", ids}, {op: "restore", ids});
    select(ids);
    return ids;
  }
  // A payload write names the version the edit started from: a card someone else
  // changed meanwhile snaps to the server's answer (stale_card), without a dialog.
  async function writeText(id, md, version, record) {
    const c = outline.get(id), field = TEXT_FIELD[c ? c.kind : "text"] || "md";
    const d = details.get(id), before = d && d.payload ? (d.payload[field] ?? "") : null;
    const patch_ = {id, payload: withMirror(c && c.kind, {[field]: md})};
    if (version != null) patch_.version = version;
    let out;
    try { out = await op("update_cards", {board: SLUG, patch: [patch_]}); }
    catch (err) { if (!staleSnap(err)) toast(readable(err), true); inspect(); return false; }
    wrote();
    if (d) details.set(id, {...d, payload: {...d.payload, ...patch_.payload}});
    take(out.cards);
    if (record && before != null) remember({op: "md", id, md: before}, {op: "md", id, md});
    inspect();
    return true;
  }
  // A payload patch named by its version (a restore from the card's history, or its
  // undo); ``back`` is the patch that undoes it, when the step is to be remembered.
  async function writePayload(id, payload, version, back) {
    const patch_ = {id, payload};
    if (version != null) patch_.version = version;
    let out;
    try { out = await op("update_cards", {board: SLUG, patch: [patch_]}); }
    catch (err) { if (!staleSnap(err)) toast(readable(err), true); inspect(); return false; }
    wrote();
    take(out.cards);
    rereadLive(id);
    if (back) remember({op: "payload", id, payload: back}, {op: "payload", id, payload});
    pastOf = null;
    await versionsOf([id]);
    inspect();
    return true;
  }
  // A card's earlier contents (card_history), read when the inspector asks for them.
  let pastOf = null;  // {id, version, entries, more} of the card last asked about
  async function loadPast(id) {
    const out = await op("card_history", {board: SLUG, id});
    pastOf = {id, version: out.version, entries: out.versions, more: out.more};
    document.body.dataset.history = id + ":" + out.versions.length;
    inspect();
  }
  async function restoreVersion(id, entry) {
    await versionsOf([id]);
    const d = details.get(id);
    if (!d || !entry.restore) return false;
    const now = d.payload || {}, back = {};
    for (const k of Object.keys(entry.restore)) back[k] = k in now ? now[k] : null;
    const done = await writePayload(id, entry.restore, d.version, back);
    if (done) toast("Card " + id + " is back to its v" + entry.version + " content.");
    return done;
  }
  // Plain text pasted on the board becomes a text card where the pointer is; cards
  // copied from a board (see copying below) come back as cards.
  document.addEventListener("paste", (e) => {
    if (e.target.closest && e.target.closest("input, textarea, [contenteditable], dialog")) return;
    const pictures = e.clipboardData ? [...e.clipboardData.files] : [];
    if (pictures.length && canUpload()) {
      e.preventDefault();
      uploadAt(pictures, pointerAt()).catch(failed);
      return;
    }
    const text = (e.clipboardData && e.clipboardData.getData("text/plain") || "").trim();
    if (!canCreate()) return;
    const clip = readClip(text) || (!text && readClip(localClip()));
    if (!text && !clip) return;
    e.preventDefault();
    const p = pointerAt();
    if (clip) pasteCards(clip, p).catch(failed);
    else createCard("text", text.slice(0, 20000), {x: p.x, y: p.y}).catch(failed);
  });
  // Pictures and files pasted or dropped on the board are uploaded where they landed
  // (upload_files with at): pictures become media cards, PDFs and the rest file cards.
  // A drop of more files than one call takes sends the first FILES_PER_DROP.
  const FILES_PER_DROP = 25;
  function canUpload() { return may.upload_files !== false && canEdit(); }
  boardEl.addEventListener("dragover", (e) => {
    if (!e.dataTransfer || ![...e.dataTransfer.types].includes("Files") || !canUpload()) return;
    e.preventDefault();
    e.dataTransfer.dropEffect = "copy";
  });
  boardEl.addEventListener("drop", (e) => {
    const files = e.dataTransfer ? [...e.dataTransfer.files] : [];
    if (!files.length || !canUpload()) return;
    e.preventDefault();
    uploadAt(files, toBoard(e)).catch(failed);
  });
  function readFile(file) {
    return new Promise((resolve, reject) => {
      const reader = new FileReader();
      reader.onload = () => {
        const data = String(reader.result);
        resolve({name: file.name || "pasted", data: data.slice(data.indexOf(",") + 1), ...(file.type ? {mime: file.type.slice(0, 200)} : {})});
      };
      reader.onerror = () => reject(reader.error);
      reader.readAsDataURL(file);
    });
  }
  async function uploadAt(files, at, record = true) {
    if (files.length > FILES_PER_DROP) toast(`${files.length} files: the first ${FILES_PER_DROP} are uploaded`, true);
    const entries = await Promise.all(files.slice(0, FILES_PER_DROP).map(readFile));
    return putByHand("upload_files", {files: entries}, at, record);
  }
  let lastPointer = null;
  function pointerAt() {
    if (lastPointer) return lastPointer;
    const v = visible();
    return {x: v.x + v.w / 2 - 120, y: v.y + v.h / 2 - 48};
  }
  boardEl.addEventListener("pointermove", (e) => { lastPointer = toBoard(e); });
  boardEl.addEventListener("pointerleave", () => { lastPointer = null; });
  // Where the first press of a double-click landed: picking a card may move the view
  // (the dock opens and keeps it in sight), so the second press can fall elsewhere.
  let presses = [];
  boardEl.addEventListener("pointerdown", (e) => {
    if (e.pointerType === "touch" || e.button !== 0) return;
    const p = toBoard(e);
    presses = [...presses.slice(-1), {p, hit: cardAt(p), t: e.timeStamp, cx: e.clientX, cy: e.clientY}];
  }, true);
  // The dock may open under the pointer between the two presses of a double-click:
  // the second press is then the board's still, and no click lands in the dock.
  let dockOpened = -1e9;
  $("dock").addEventListener("click", (e) => {
    const last = presses[presses.length - 1];
    const again = last && Math.hypot(e.clientX - last.cx, e.clientY - last.cy) < 6;
    if (again && performance.now() - dockOpened < 500) { e.preventDefault(); e.stopPropagation(); }
  }, true);
  document.addEventListener("dblclick", (e) => {
    const onBoard = boardEl.contains(e.target);
    if (onBoard && (e.target.closest(INTERACTIVE) || e.target.closest(".editor"))) return;
    const last = presses[presses.length - 1];
    const same = last && e.timeStamp - last.t < 1000 && Math.hypot(e.clientX - last.cx, e.clientY - last.cy) < 6;
    if (!onBoard && !same) return;
    const first = same ? (presses.length === 2 && e.timeStamp - presses[0].t < 1000 ? presses[0] : last) : null;
    const p = first ? first.p : toBoard(e), hit = first ? first.hit : cardAt(p);
    if (hit && (EDITABLE.has(hit.kind) || INPLACE[hit.kind])) { editCard(hit.id).catch(failed); return; }
    if (hit && hit.kind === "diagram") { editNode(hit, p).catch(failed); return; }
    if (!hit || FRAMES.has(hit.kind)) startNote(p);
  });

  // ------------------------------------------------------------------ editing checklists, tables and pages in place
  // A checklist's items and a table's cells are edited over the card; a page's markdown
  // in the text editor above. Each change is update_cards with a payload patch naming
  // the card version it started from, under the person's own principal, so agents read
  // it (scrape_board, board_changes) like any write; undo writes the content back.
  // Kinds whose content opens in an editor of their own (double-click, Enter, inspector).
  const INPLACE = {checklist: (id) => editChecklist(id), table: (id) => editTable(id)};
  const EDIT_WORDS = {shape: "Edit label", checklist: "Edit items", table: "Edit cells"};
  // Rows a table keeps in its own payload; past this the server keeps them apart (a
  // dataRef), out of this editor's reach. The page's config carries the server's number.
  const INLINE_ROWS = CONFIG.inlineRows;
  // The card's content as the server has it now, when the caller may change it.
  async function mayChange(id) {
    if (!canEdit()) return null;
    details.delete(id);
    await loadDetails([id]);
    const d = details.get(id);
    if (!d || d.mayEdit === false) {
      if (d) toast("Only its author can change this card's content; you may move, resize or remove it.", true);
      return null;
    }
    return d;
  }
  // An editor grown past its card stays in sight: on a narrow screen the view zooms out
  // until it fits across (no further than half size), then moves to show it whole.
  function showEditor(el, c) {
    const box = {x: c.x, y: c.y, w: Math.max(c.w, el.offsetWidth), h: Math.max(c.h, el.offsetHeight)};
    // keepBoxInView leaves 24 screen pixels on each side.
    const z = size(), room = (z.w - 56) / box.w;
    if (room < view.s) centerOn(box.x + box.w / 2, box.y + box.h / 2, Math.max(0.5, room));
    keepBoxInView(box);
  }
  // A checklist's overlay reads its card again after a payload write (a restore, an undo).
  function rereadLive(id) {
    if (!payloads.has(id)) return;
    op("get", {kind: "cards", board: SLUG, ids: [id]}).then((out) => {
      for (const c of out.cards) {
        if (payloads.has(c.id) && payloads.get(c.id).version > c.version) continue;
        payloads.set(c.id, {version: c.version, payload: c.payload});
        checklist(c.id);
      }
    }).catch(failed);
  }

  // A page's md is the truth and pm its editor mirror: the server marks the mirror
  // stale when md changes without it, and never converts one into the other. This
  // editor writes both together, so the mirror is fresh: md's blocks (headings, code,
  // lists, quotes, rules, paragraphs) with their text as typed, inline markup and all.
  function withMirror(kind, payload) {
    return kind === "page" && typeof payload.md === "string" ? {...payload, pm: pageMirror(payload.md)} : payload;
  }
  const LIST_LINE = /^\s*([-*+]|\d+[.)])\s+(.*)$/;
  const BLOCK_START = /^(#{1,6}\s|```|~~~|>|\s*([-*+]|\d+[.)])\s)/;
  function pageMirror(md) {
    const lines = md.split("\n"), content = [];
    const text = (t) => (t ? [{type: "text", text: t}] : []);
    const para = (ls) => {
      const out = [];
      ls.forEach((l, i) => { if (i) out.push({type: "hard_break"}); out.push(...text(l)); });
      return {type: "paragraph", content: out};
    };
    let i = 0;
    while (i < lines.length) {
      const line = lines[i];
      if (!line.trim()) { i++; continue; }
      const fence = /^(```|~~~)\s*(\S*)/.exec(line);
      const head = /^(#{1,6})\s+(.*)$/.exec(line);
      if (fence) {
        const body = [];
        for (i++; i < lines.length && !lines[i].startsWith(fence[1]); i++) body.push(lines[i]);
        i++;
        content.push({type: "code_block", attrs: {language: fence[2] || null}, content: text(body.join("\n"))});
      } else if (head) {
        content.push({type: "heading", attrs: {level: head[1].length}, content: text(head[2])});
        i++;
      } else if (/^(-{3,}|\*{3,}|_{3,})\s*$/.test(line)) {
        content.push({type: "horizontal_rule"});
        i++;
      } else if (LIST_LINE.test(line)) {
        const ordered = /\d/.test(LIST_LINE.exec(line)[1]), items = [];
        while (i < lines.length && LIST_LINE.test(lines[i])) items.push({type: "list_item", content: [para([LIST_LINE.exec(lines[i++])[2]])]});
        content.push({type: ordered ? "ordered_list" : "bullet_list", content: items});
      } else if (/^>/.test(line)) {
        const body = [];
        while (i < lines.length && /^>/.test(lines[i])) body.push(lines[i++].replace(/^>\s?/, ""));
        content.push({type: "blockquote", content: [para(body)]});
      } else {
        const body = [lines[i++]];
        while (i < lines.length && lines[i].trim() && !BLOCK_START.test(lines[i])) body.push(lines[i++]);
        content.push(para(body));
      }
    }
    return {type: "doc", content};
  }

  // ---- a checklist's items
  // The checklist being edited: its items as the editor shows them (each change is made
  // here at once, then written), an item being typed but not yet added ({at, text}),
  // and where the focus goes at the next drawing. Its writes (item changes and ticks)
  // go one after another, each naming the version the one before left.
  let listEdit = null, listWrites = Promise.resolve(), listDrawing = false;
  async function editChecklist(id) {
    const d = await mayChange(id);
    if (!d) return false;
    closeEditor(true);
    closeGrid();
    payloads.set(id, {version: d.version, payload: d.payload});
    zoomToEdit(outline.get(id));
    const items = d.payload.items || [];
    listEdit = {id, items: null, busy: 0, round: 0, draft: items.length ? null : {at: 0, text: ""},
                focus: items.length ? {item: 0} : {draft: true}};
    document.body.dataset.listEditing = String(id);
    checklist(id);
    const el = overlay.querySelector('.live[data-card-id="' + id + '"]');
    if (el) showEditor(el, outline.get(id));
    return true;
  }
  function closeList() {
    const e = listEdit;
    if (!e) return;
    listEdit = null;
    delete document.body.dataset.listEditing;
    if (payloads.has(e.id)) checklist(e.id);
    boardEl.focus({preventScroll: true});
  }
  function drawListEditor(id) {
    const c = outline.get(id), kept = payloads.get(id), e = listEdit;
    if (!c || !kept) return closeList();
    // With nothing on its way to the server, the editor shows what the server has.
    if (!e.busy || !e.items) e.items = (kept.payload.items || []).map((x) => ({...x}));
    let el = overlay.querySelector('.live[data-card-id="' + id + '"]');
    if (!el) { el = document.createElement("div"); el.dataset.cardId = String(id); overlay.append(el); }
    // What has the focus now comes back after the drawing, with what was typed in it.
    const now = document.activeElement, had = now && el.contains(now) && now.dataset.item != null
      ? {item: now.dataset.item === "new" ? null : Number(now.dataset.item), draft: now.dataset.item === "new", box: now.type === "checkbox",
         value: now.value, saved: now.dataset.saved, at: now.selectionStart} : null;
    if (!el.dataset.editKeys) {
      el.dataset.editKeys = "1";
      // Escape anywhere in it closes it; the focus leaving it closes it once the writes are done.
      el.addEventListener("keydown", (ev) => {
        if (!listEdit || listEdit.id !== id || ev.target.classList.contains("itemtext")) return;
        if (ev.key === "Escape") { ev.preventDefault(); ev.stopPropagation(); closeList(); }
        else if ((ev.ctrlKey || ev.metaKey) && !ev.altKey && /^[zy]$/i.test(ev.key)) {
          ev.preventDefault();
          ev.stopPropagation();
          undoRedo(ev.key.toLowerCase() === "z" && !ev.shiftKey).catch(failed);
        }
      });
      el.addEventListener("focusout", (ev) => {
        if (listDrawing || !listEdit || listEdit.id !== id || (ev.relatedTarget && el.contains(ev.relatedTarget))) return;
        listWrites = listWrites.then(() => { if (listEdit && listEdit.id === id && !overlayHasFocus(id)) closeList(); });
      });
    }
    // Elements replaced while drawn lose the focus: that is no leaving of the editor.
    listDrawing = true;
    try {
      el.className = "live checklist editing inplace";
      el.setAttribute("role", "group");
      el.setAttribute("aria-label", "Editing " + cardName(id));
      place(el, c);
      el.style.height = "auto";
      el.style.minHeight = c.h + "px";
      el.replaceChildren();
      if (kept.payload.title) { const h = document.createElement("h3"); h.textContent = kept.payload.title; el.append(h); }
      const rows = e.items.map((item, i) => ({item, i}));
      if (e.draft) rows.splice(Math.min(e.draft.at, rows.length), 0, {draft: e.draft});
      for (const r of rows) el.append(listRow(id, r));
      const bar = document.createElement("div");
      bar.className = "bar";
      const add = button("+ Add item", () => { e.draft = {at: e.items.length, text: ""}; e.focus = {draft: true}; checklist(id); });
      add.dataset.role = "add-item";
      const done = button("Done", () => closeList());
      done.dataset.role = "done";
      const hint = document.createElement("span");
      hint.className = "hint";
      hint.textContent = "Enter adds · Backspace on an empty item removes · Alt+↑/↓ moves · Esc closes";
      bar.append(add, done, hint);
      el.append(bar);
      // Where a change said the focus goes, else back where it was (a tick's box stays a box).
      const said = e.focus;
      e.focus = null;
      const want = said || (had && (had.draft ? {draft: true} : {item: had.item, value: had.value !== had.saved ? had.value : null, at: had.at}));
      const box = !said && had && had.box;
      const target = want && el.querySelector(want.draft ? 'input.itemtext[data-item="new"]' : (box ? "input[type=checkbox]" : "input.itemtext") + '[data-item="' + want.item + '"]');
      if (target && box) target.focus({preventScroll: true});
      else if (target) {
        if (want.value != null && e.items[want.item] && e.items[want.item].text === had.saved) target.value = want.value;
        target.focus({preventScroll: true});
        const at = want.at === "start" ? 0 : typeof want.at === "number" ? Math.min(want.at, target.value.length) : target.value.length;
        target.setSelectionRange(at, at);
      }
    } finally { listDrawing = false; }
  }
  function listRow(id, r) {
    const row = document.createElement("div");
    row.className = "item" + (r.draft ? " draft" : "");
    const box = document.createElement("input");
    box.type = "checkbox";
    box.checked = !!(r.item && r.item.done);
    box.disabled = !!r.draft || may.tick_checklist === false;
    box.setAttribute("aria-label", r.draft ? "New item" : "Done: " + r.item.text);
    if (!r.draft) {
      Object.assign(box.dataset, {card: String(id), item: String(r.i)});
      box.addEventListener("change", () => listTick(id, r.i, box.checked));
    }
    const input = document.createElement("input");
    input.type = "text";
    input.className = "itemtext" + (r.item && r.item.done ? " done" : "");
    input.value = r.draft ? r.draft.text : r.item.text;
    input.dataset.item = r.draft ? "new" : String(r.i);
    input.dataset.saved = r.draft ? "" : r.item.text;
    input.setAttribute("aria-label", r.draft ? "New item" : "Item " + (r.i + 1));
    input.addEventListener("input", () => { if (r.draft) r.draft.text = input.value; });
    input.addEventListener("keydown", (e) => listKey(e, id, r, input));
    input.addEventListener("blur", () => { if (!listDrawing && listEdit && listEdit.id === id) commitItem(id, r, input, null); });
    const remove = button("×", () => {
      if (r.draft) { listEdit.draft = null; checklist(id); return; }
      listEdit.items.splice(r.i, 1);
      listSave(id, {item: Math.max(0, r.i - 1)});
    });
    remove.className = "remove";
    remove.title = "Remove this item";
    remove.setAttribute("aria-label", "Remove " + (r.draft ? "the new item" : "item " + (r.i + 1)));
    row.append(box, input, remove);
    return row;
  }
  function overlayHasFocus(id) {
    const el = overlay.querySelector('.live[data-card-id="' + id + '"]');
    return !!(el && document.activeElement && el.contains(document.activeElement));
  }
  // An item's new text is kept when Enter or leaving it says so; a new item once it
  // has text. Returns whether anything changed.
  function commitItem(id, r, input, focus) {
    const e = listEdit, text = input.value;
    if (r.draft) {
      if (!text.trim() || e.draft !== r.draft) return false;
      e.draft = null;
      e.items.splice(Math.min(r.draft.at, e.items.length), 0, {text, done: false});
    } else {
      if (text === input.dataset.saved || !e.items[r.i]) return false;
      input.dataset.saved = text;
      e.items[r.i] = {...e.items[r.i], text};
    }
    listSave(id, focus);
    return true;
  }
  function listKey(e, id, r, input) {
    e.stopPropagation();
    const edit = listEdit, mod = e.ctrlKey || e.metaKey;
    if (!edit || edit.id !== id) return;
    const end = input.selectionStart === input.value.length && input.selectionEnd === input.value.length;
    if (mod && !e.altKey && /^[zy]$/i.test(e.key) && input.value === input.dataset.saved) {
      // Nothing typed here: the key undoes (or redoes) the last change on the board.
      e.preventDefault();
      undoRedo(e.key.toLowerCase() === "z" && !e.shiftKey).catch(failed);
    } else if (e.key === "Escape") {
      e.preventDefault();
      if (!r.draft && input.value !== input.dataset.saved) { input.value = input.dataset.saved; return; }
      if (r.draft) edit.draft = null;
      closeList();
    } else if (e.key === "Enter" && !e.shiftKey && !mod) {
      e.preventDefault();
      if (r.draft) {
        // Enter on an empty new item ends the adding; with text it adds it and opens the next.
        const at = r.draft.at;
        if (!input.value.trim()) { edit.draft = null; edit.focus = at > 0 ? {item: at - 1} : null; checklist(id); return; }
        edit.draft = {at: at + 1, text: ""};
        edit.items.splice(Math.min(at, edit.items.length), 0, {text: input.value, done: false});
        listSave(id, {draft: true});
        return;
      }
      const next = end ? {at: r.i + 1, text: ""} : null;
      if (next) edit.draft = next;
      if (!commitItem(id, r, input, next ? {draft: true} : {item: r.i}) && next) { edit.focus = {draft: true}; checklist(id); }
    } else if (e.key === "Backspace" && input.value === "" && !mod) {
      e.preventDefault();
      if (r.draft) { edit.draft = null; edit.focus = r.draft.at > 0 ? {item: r.draft.at - 1} : null; checklist(id); return; }
      edit.items.splice(r.i, 1);
      listSave(id, r.i > 0 ? {item: r.i - 1} : {item: 0, at: "start"});
    } else if (e.altKey && !mod && (e.key === "ArrowUp" || e.key === "ArrowDown") && !r.draft) {
      e.preventDefault();
      const to = r.i + (e.key === "ArrowUp" ? -1 : 1);
      if (to < 0 || to >= edit.items.length) return;
      const [moved] = edit.items.splice(r.i, 1);
      edit.items.splice(to, 0, {...moved, text: input.value});
      listSave(id, {item: to, at: input.selectionStart});
    } else if (!e.altKey && !mod && (e.key === "ArrowUp" || e.key === "ArrowDown")) {
      // Up and down walk the items, as in a list.
      const all = [...input.closest(".live").querySelectorAll("input.itemtext")];
      const next = all[all.indexOf(input) + (e.key === "ArrowUp" ? -1 : 1)];
      if (next) { e.preventDefault(); next.focus(); }
    }
  }
  // The editor's items as they are now go to the server, after the writes before them;
  // the editor is drawn again at once, the focus where ``focus`` says. One undo step each.
  function listSave(id, focus) {
    const e = listEdit, items = e.items.map((x) => ({...x})), round = e.round;
    e.busy++;
    e.focus = focus;
    checklist(id);
    listQueue(e, id, async () => {
      if (e.round !== round) return;  // a write before it was refused: what it showed is gone
      const kept = payloads.get(id);
      if (!kept) return;
      const before = kept.payload.items || [];
      if (JSON.stringify(before) === JSON.stringify(items)) return;
      let out;
      try { out = await op("update_cards", {board: SLUG, patch: [{id, version: kept.version, payload: {items}}]}); }
      catch (err) { e.round++; if (!staleSnap(err)) toast(readable(err), true); await rereadList(id); return; }
      const card = out.cards.find((x) => x.id === id);
      payloads.set(id, {version: card.version, payload: {...kept.payload, items}});
      wrote();
      remember({op: "payload", id, payload: {items: before}}, {op: "payload", id, payload: {items}});
      take(out.cards);
      document.body.dataset.listWrote = String(card.version);
    });
  }
  // A tick in the editor is the tick operation, in line with the item writes.
  function listTick(id, i, done) {
    const e = listEdit, item = e.items[i], round = e.round;
    if (!item) return;
    item.done = done;
    e.busy++;
    checklist(id);
    listQueue(e, id, async () => {
      if (e.round !== round) return;
      try { await act("tick", {card: id, item: i, done, text: item.text}); }
      catch (err) { e.round++; await rereadList(id); }
    });
  }
  function listQueue(e, id, write) {
    listWrites = listWrites.then(write).catch(failed).then(() => {
      e.busy--;
      if (listEdit === e && !e.busy) checklist(id);
    });
  }
  // Ticks are not steps of the person's history (anyone may tick, agents too): undoing
  // or redoing an item change keeps each item's tick as it is now, matched by its text.
  function keepTicks(payload, now) {
    if (!Array.isArray(payload.items) || !now || !Array.isArray(now.items)) return payload;
    const left = now.items.map((x) => ({...x}));
    return {...payload, items: payload.items.map((item) => {
      const at = left.findIndex((x) => x && x.text === item.text);
      if (at < 0) return item;
      const done = !!left[at].done;
      left[at] = null;
      return {...item, done};
    })};
  }
  // What the server has now (someone else wrote first): the editor shows it.
  async function rereadList(id) {
    const out = await op("get", {kind: "cards", board: SLUG, ids: [id]});
    for (const c of out.cards) payloads.set(c.id, {version: c.version, payload: c.payload});
    if (listEdit && listEdit.id === id) listEdit.items = null;
    if (out.cards.length) checklist(id); else if (listEdit && listEdit.id === id) { listEdit = null; delete document.body.dataset.listEditing; }
  }

  // ---- a table's cells
  // The table being edited: a draft of its columns and rows, written once by Enter
  // (or by leaving the grid) as one update_cards naming the version it started from.
  let grid = null, gridDrawing = false;
  async function editTable(id) {
    const d = await mayChange(id);
    if (!d) return false;
    const p = d.payload || {};
    if (p.dataRef && !Array.isArray(p.rows)) {
      toast("This table has more than " + INLINE_ROWS + " rows, kept apart from the card: it cannot be edited in place.", true);
      return false;
    }
    closeEditor(true);
    closeList();
    closeGrid();
    const c = outline.get(id);
    zoomToEdit(c);
    const copy = (v) => JSON.parse(JSON.stringify(v));
    grid = {id, version: d.version, title: p.title || "", before: {cols: p.cols, rows: p.rows}, cols: copy(p.cols || []), rows: copy(p.rows || []), at: {r: 0, c: 0}};
    if (!grid.rows.length) grid.at = {r: -1, c: 0};
    document.body.dataset.gridEditing = String(id);
    drawGrid();
    showEditor(grid.el, c);
    return true;
  }
  // A row is an object of cells, or {cells, audience} (the cells then sit inside).
  function rowCells(row) {
    const keys = Object.keys(row);
    return row.cells && typeof row.cells === "object" && !Array.isArray(row.cells) && keys.every((k) => k === "cells" || k === "audience") ? row.cells : row;
  }
  function cellValue(cell) { return cell && typeof cell === "object" ? cell.v : cell; }
  function setCell(r, ci, raw) {
    const col = grid.cols[ci], cells = rowCells(grid.rows[r]), old = cells[col.key];
    let v = raw;
    // A number column takes what reads as a number as a number; an emptied cell goes.
    if (col.type === "number" && typeof raw === "string" && raw.trim() && Number.isFinite(Number(raw))) v = Number(raw);
    if (v === "" || v == null) {
      if (old && typeof old === "object") cells[col.key] = {...old, v: null};
      else delete cells[col.key];
    } else cells[col.key] = old && typeof old === "object" ? {...old, v} : v;
  }
  function drawGrid() {
    const g = grid, c = outline.get(g.id);
    if (!c) return closeGrid();
    gridDrawing = true;
    try {
      if (!g.el) {
        g.el = document.createElement("div");
        g.el.className = "grid inplace";
        g.el.tabIndex = -1;
        g.el.dataset.cardId = String(g.id);
        g.el.setAttribute("role", "group");
        g.el.setAttribute("aria-label", "Editing " + cardName(g.id) + ": Enter saves, Escape cancels");
        g.el.addEventListener("keydown", gridKey);
        g.el.addEventListener("focusout", (e) => {
          if (gridDrawing || grid !== g || (e.relatedTarget && g.el.contains(e.relatedTarget))) return;
          saveGrid().catch(failed);
        });
        overlay.append(g.el);
      }
      place(g.el, c);
      g.el.style.height = "auto";
      g.el.style.minHeight = c.h + "px";
      g.el.style.width = "auto";
      g.el.style.minWidth = c.w + "px";
      const table = document.createElement("table");
      if (g.title) { const cap = document.createElement("caption"); cap.textContent = g.title; table.append(cap); }
      const head = document.createElement("tr");
      g.cols.forEach((col, ci) => {
        const th = document.createElement("th");
        const input = document.createElement("input");
        input.type = "text";
        input.value = col.label ?? col.key;
        input.setAttribute("aria-label", "Column " + (ci + 1) + " heading");
        input.addEventListener("input", () => { col.label = input.value; });
        th.append(cellControl(input, -1, ci));
        head.append(th);
      });
      const thead = document.createElement("thead");
      thead.append(head);
      const body = document.createElement("tbody");
      g.rows.forEach((row, r) => {
        const tr = document.createElement("tr");
        g.cols.forEach((col, ci) => {
          const td = document.createElement("td"), now = cellValue(rowCells(row)[col.key]);
          let control;
          if (col.type === "check") {
            control = document.createElement("input");
            control.type = "checkbox";
            control.checked = !!now;
            control.addEventListener("change", () => setCell(r, ci, control.checked));
          } else if (col.type === "select" && Array.isArray(col.options)) {
            control = document.createElement("select");
            const options = ["", ...col.options];
            if (now != null && now !== "" && !options.includes(String(now))) options.push(String(now));
            for (const o of options) control.append(new Option(o, o, false, o === (now == null ? "" : String(now))));
            control.addEventListener("change", () => setCell(r, ci, control.value));
          } else {
            control = document.createElement("input");
            control.type = "text";
            control.value = now == null ? "" : String(now);
            if (col.type === "number") control.inputMode = "decimal";
            control.addEventListener("input", () => setCell(r, ci, control.value));
          }
          control.setAttribute("aria-label", (col.label || col.key) + ", row " + (r + 1));
          td.append(cellControl(control, r, ci));
          tr.append(td);
        });
        body.append(tr);
      });
      table.append(thead, body);
      const bar = document.createElement("div");
      bar.className = "bar";
      const full = g.rows.length >= INLINE_ROWS;
      const addRow = button("+ Row", () => gridChange(() => { const at = Math.max(grid.at.r, -1) + 1; grid.rows.splice(at, 0, {}); grid.at = {r: at, c: 0}; }));
      addRow.dataset.role = "add-row";
      addRow.disabled = full;
      addRow.title = full ? "A table edited here holds at most " + INLINE_ROWS + " rows" : "Add a row below this one (Shift+Enter)";
      const addCol = button("+ Column", () => gridChange(addColumn));
      addCol.dataset.role = "add-col";
      addCol.title = "Add a column right of this one";
      const delRow = button("− Row", () => gridChange(() => { if (grid.at.r < 0) return; grid.rows.splice(grid.at.r, 1); grid.at.r = Math.min(grid.at.r, grid.rows.length - 1); }));
      delRow.dataset.role = "remove-row";
      delRow.disabled = g.at.r < 0;
      delRow.title = "Remove this row";
      // A table has at least one column (the contract's cols holds one or more).
      const delCol = button("− Column", () => gridChange(() => {
        const col = grid.cols[grid.at.c];
        if (!col || grid.cols.length < 2) return;
        grid.cols.splice(grid.at.c, 1);
        for (const row of grid.rows) delete rowCells(row)[col.key];
        grid.at.c = Math.min(grid.at.c, grid.cols.length - 1);
      }));
      delCol.dataset.role = "remove-col";
      delCol.disabled = g.cols.length < 2;
      delCol.title = g.cols.length < 2 ? "A table keeps at least one column" : "Remove this column";
      const save = button("Save", () => saveGrid().catch(failed));
      save.dataset.role = "save";
      save.title = "Save (Enter)";
      const cancel = button("Cancel", () => closeGrid());
      cancel.dataset.role = "cancel";
      cancel.title = "Cancel (Escape)";
      bar.append(addRow, delRow, addCol, delCol, save, cancel);
      g.el.replaceChildren(table, bar);
      focusCell(g.at.r, g.at.c);
    } finally { gridDrawing = false; }
  }
  function cellControl(el, r, ci) {
    el.dataset.r = String(r);
    el.dataset.c = String(ci);
    el.classList.add("cell");
    el.addEventListener("focus", () => {
      if (!grid) return;
      grid.at = {r, c: ci};
      const del = grid.el.querySelector("[data-role=remove-row]");
      if (del) del.disabled = r < 0;
    });
    return el;
  }
  function addColumn() {
    const keys = new Set(grid.cols.map((c) => c.key));
    let n = grid.cols.length + 1;
    while (keys.has("col" + n)) n++;
    const at = Math.max(grid.at.c, 0) + 1;
    grid.cols.splice(at, 0, {key: "col" + n, label: "Column " + n, type: "text"});
    grid.at = {r: -1, c: at};
  }
  function gridChange(change) { if (!grid) return; change(); drawGrid(); }
  function focusCell(r, ci) {
    if (!grid) return false;
    const el = grid.el.querySelector('.cell[data-r="' + r + '"][data-c="' + ci + '"]');
    if (!el) return false;
    el.focus({preventScroll: true});
    if (el.type === "text") el.select();
    grid.at = {r, c: ci};
    return true;
  }
  function gridKey(e) {
    e.stopPropagation();
    const g = grid;
    if (!g) return;
    const el = e.target, onCell = el.classList && el.classList.contains("cell");
    const {r, c} = g.at, last = g.cols.length - 1;
    const text = onCell && el.type === "text";
    if (e.key === "Escape") { e.preventDefault(); closeGrid(); boardEl.focus({preventScroll: true}); return; }
    if (!onCell) return;  // the buttons take their own keys
    if (e.key === "Enter" && e.shiftKey) {
      e.preventDefault();
      if (g.rows.length < INLINE_ROWS) gridChange(() => { const at = Math.max(r, -1) + 1; grid.rows.splice(at, 0, {}); grid.at = {r: at, c: 0}; });
      return;
    }
    if (e.key === "Enter") { e.preventDefault(); saveGrid().catch(failed); return; }
    let to = null;
    if (e.key === "Tab") to = e.shiftKey ? (c > 0 ? [r, c - 1] : [r - 1, last]) : (c < last ? [r, c + 1] : [r + 1, 0]);
    // Alt+↓ opens a select's list, as anywhere on a page.
    else if (e.key === "ArrowUp" && !e.altKey) to = [r - 1, c];
    else if (e.key === "ArrowDown" && !e.altKey) to = [r + 1, c];
    else if (e.key === "ArrowLeft" && (!text || (el.selectionStart === 0 && el.selectionEnd === 0))) to = [r, c - 1];
    else if (e.key === "ArrowRight" && (!text || (el.selectionStart === el.value.length && el.selectionEnd === el.value.length))) to = [r, c + 1];
    if (!to) return;
    // At the grid's edge Tab leaves for the buttons below, as a page's Tab does.
    if (to[0] < -1 || to[0] >= g.rows.length || to[1] < 0 || to[1] > last) { if (e.key !== "Tab") e.preventDefault(); return; }
    e.preventDefault();
    focusCell(to[0], to[1]);
  }
  function closeGrid() {
    const g = grid;
    if (!g) return;
    grid = null;
    if (g.el) g.el.remove();
    delete document.body.dataset.gridEditing;
  }
  async function saveGrid() {
    const g = grid;
    if (!g || g.saving) return false;
    const payload = {cols: g.cols, rows: g.rows};
    if (JSON.stringify(payload) === JSON.stringify({cols: g.before.cols, rows: g.before.rows || []})) { closeGrid(); boardEl.focus({preventScroll: true}); return true; }
    g.saving = true;
    let out;
    try { out = await op("update_cards", {board: SLUG, patch: [{id: g.id, version: g.version, payload}]}); }
    catch (err) {
      g.saving = false;
      if (staleSnap(err)) { closeGrid(); return false; }
      // Refused (a limit, a bad cell): the grid stays open with what was typed.
      toast(readable(err), true);
      if (grid === g) focusCell(g.at.r, g.at.c);
      return false;
    }
    wrote();
    closeGrid();
    if (document.activeElement === document.body) boardEl.focus({preventScroll: true});
    take(out.cards);
    remember({op: "payload", id: g.id, payload: {cols: g.before.cols, rows: g.before.rows ?? null}}, {op: "payload", id: g.id, payload});
    await versionsOf([g.id]);
    inspect();
    return true;
  }

  // ------------------------------------------------------------------ copying, pasting, duplicating
  // Copied cards travel as a small JSON in the clipboard's text: kind, payload, size
  // and place relative to the copy's top-left (a frame brings what it holds). This
  // browser keeps the last copy too, for a paste the clipboard cannot feed. Pasting
  // composes the cards anew on the human layer (compose_board with at), on any board
  // the person may write; Ctrl/Cmd+D pastes a copy of the selection at an offset.
  const CLIP_TAG = "layoutkit/cards", CLIP_KEY = "layoutkit.clipboard";
  // Board pixels between a card and its duplicate; at most this many top cards per paste.
  const DUP_OFFSET = 24, MAX_PASTE = 100;
  function clipOf() {
    const tops = movers().slice(0, MAX_PASTE);
    if (!tops.length) return null;
    const all = tops.flatMap((c) => [c, ...descendants(c.id)]);
    const box = bounds(tops), taken = new Set(all.filter((c) => details.has(c.id)).map((c) => c.id));
    const cards = [];
    for (const c of all) {
      const d = details.get(c.id);
      if (!d) continue;
      const e = {ref: "c" + c.id, kind: c.kind, payload: d.payload, w: c.w, h: c.h, x: c.x - box.x, y: c.y - box.y};
      if (c.parent != null && taken.has(c.parent)) e.parent = "c" + c.parent;
      cards.push(e);
    }
    if (!cards.length) return null;
    // The wires between copied cards, with their labels and relations.
    const joined = [...edges.values()].filter((w) => taken.has(w.from) && taken.has(w.to)).map((w) => {
      const e = ["c" + w.from, "c" + w.to];
      if (w.label || w.rel) e.push({...(w.label ? {label: w.label} : {}), ...(w.rel ? {rel: w.rel} : {})});
      return e;
    });
    return {[CLIP_TAG]: 1, board: SLUG, cards, wires: joined};
  }
  function readClip(text) {
    if (!text || text[0] !== "{") return null;
    try { const c = JSON.parse(text); return c && c[CLIP_TAG] === 1 && Array.isArray(c.cards) && c.cards.length ? c : null; }
    catch (e) { return null; }
  }
  function localClip() { try { return localStorage.getItem(CLIP_KEY) || ""; } catch (e) { return ""; } }
  // The copy event writes the clipboard without asking for a permission; where no
  // copy event comes (nothing selected on the page, some browsers), navigator.clipboard.
  let copying = null;
  document.addEventListener("copy", (e) => {
    if (!copying || (e.target.closest && e.target.closest("input, textarea, [contenteditable], dialog"))) return;
    e.clipboardData.setData("text/plain", copying);
    e.preventDefault();
    copying = null;
  });
  async function copySelection() {
    if (!canCreate() || !selection.size) return false;
    await loadDetails(movers().flatMap((c) => [c.id, ...descendants(c.id).map((k) => k.id)]));
    const clip = clipOf();
    if (!clip) return false;
    const text = JSON.stringify(clip);
    try { localStorage.setItem(CLIP_KEY, text); } catch (e) { /* storage off: the clipboard alone */ }
    copying = text;
    const viaEvent = document.execCommand && document.execCommand("copy");
    if (!viaEvent || copying) {
      copying = null;
      if (navigator.clipboard) await navigator.clipboard.writeText(text).catch(() => {});
    }
    const n = clip.cards.length;
    toast(n === 1 ? "Card copied." : n + " cards copied.");
    document.body.dataset.copied = String(n);
    return true;
  }
  // One compose_board per top card (with what a frame holds): a batch put by hand
  // lands as a block at its point, so each card gets its own point and the copies
  // keep their places relative to each other. A copy is sized by the server as its
  // source was; a size a person set is not put back, as a resize written afterwards
  // would push the cards under the copy (its source, for a duplicate) out of its way.
  async function pasteCards(clip, at, record = true) {
    const entries = clip.cards.filter((e) => e && typeof e.kind === "string" && e.ref);
    const refs = new Set(entries.map((e) => e.ref)), kids = new Map();
    for (const e of entries) if (e.parent && refs.has(e.parent)) { if (!kids.has(e.parent)) kids.set(e.parent, []); kids.get(e.parent).push(e); }
    for (const list of kids.values()) list.sort((a, b) => a.y - b.y || a.x - b.x);
    const tops = entries.filter((e) => !(e.parent && refs.has(e.parent))).slice(0, MAX_PASTE);
    const made = [], topIds = [], byRef = new Map();
    for (const top of tops) {
      const batch = [], walk = (e) => {
        const c = {kind: e.kind, payload: e.payload || {}, ref: e.ref};
        if (kids.has(e.ref)) c.children = kids.get(e.ref).map((k) => k.ref);
        batch.push(c);
        for (const k of kids.get(e.ref) || []) walk(k);
      };
      walk(top);
      let out;
      const spot = {x: Math.round(at.x + (top.x || 0)), y: Math.round(at.y + (top.y || 0))};
      try { out = await op("compose_board", {board: SLUG, cards: batch, at: spot}); }
      catch (err) { toast(readable(err), true); break; }
      wrote();
      take(out.cards.map((c) => ({...c, version: 1})));
      for (const c of out.cards) { made.push(c.id); byRef.set(c.ref, c.id); }
      topIds.push(out.cards[0].id);
    }
    const drawnWires = (Array.isArray(clip.wires) ? clip.wires : [])
      .filter((w) => Array.isArray(w) && byRef.has(w[0]) && byRef.has(w[1]))
      .map(([a, b, own]) => {
        const e = {from: byRef.get(a), to: byRef.get(b)};
        for (const k of ["label", "rel"]) if (own && typeof own[k] === "string" && own[k]) e[k] = own[k];
        return e;
      });
    if (drawnWires.length) {
      try {
        await op("compose_board", {board: SLUG, edges: drawnWires});
        wrote();
        await loadWires().catch(failed);
        if (drawn) await faces(true);
      } catch (err) { toast(readable(err), true); }
    }
    if (!made.length) return null;
    if (record) remember({op: "remove", ids: made}, {op: "restore", ids: made});
    select(topIds);
    document.body.dataset.pasted = String(Number(document.body.dataset.pasted || 0) + 1);
    return made;
  }
  async function duplicateSelection() {
    if (!canCreate() || !selection.size) return;
    await loadDetails(movers().flatMap((c) => [c.id, ...descendants(c.id).map((k) => k.id)]));
    const clip = clipOf();
    if (!clip) return;
    const box = bounds(movers());
    await pasteCards(clip, {x: box.x + DUP_OFFSET, y: box.y + DUP_OFFSET});
  }

  // ------------------------------------------------------------------ wires
  // A selected card shows a dot on its right edge: dragging it to another card draws
  // a wire (compose_board with the wire alone). W wires two selected cards.
  function drawWireDot() {
    for (const el of overlay.querySelectorAll(".wiredot")) el.remove();
    if (selection.size !== 1 || !canCreate()) return;
    const c = outline.get([...selection][0]);
    if (!c || FRAMES.has(c.kind)) return;
    const dot = document.createElement("div");
    dot.className = "wiredot";
    dot.title = "Drag to another card to connect (or select two cards and press W)";
    dot.style.left = (c.x + c.w) + "px"; dot.style.top = (c.y + c.h / 2) + "px";
    overlay.append(dot);
  }
  function wireStep(g, p) {
    const from = outline.get(g.hit.id);
    const x0 = from.x + from.w, y0 = from.y + from.h / 2;
    let el = overlay.querySelector(".wireline");
    if (!el) { el = document.createElement("div"); el.className = "wireline"; overlay.append(el); }
    const len = Math.hypot(p.x - x0, p.y - y0), angle = Math.atan2(p.y - y0, p.x - x0);
    Object.assign(el.style, {left: x0 + "px", top: y0 + "px", width: len + "px", transform: "rotate(" + angle + "rad)"});
    const to = cardAt(p);
    for (const t of overlay.querySelectorAll(".wiretarget")) t.remove();
    if (to && to.id !== g.hit.id && !FRAMES.has(to.kind)) {
      const t = document.createElement("div"); t.className = "wiretarget"; place(t, to); overlay.append(t);
    }
  }
  async function connect(from, to) {
    if (from === to || !canCreate()) return;
    let out;
    try { out = await op("compose_board", {board: SLUG, edges: [{from, to}]}); }
    catch (err) { toast(readable(err), true); return; }
    wrote();
    wires.push([from, to]);
    const made = out.edges.map((e) => ({id: e.id, from: e.from, to: e.to}));
    if (canEditWires()) remember({op: "removeWires", wires: made}, {op: "addWires", wires: made});
    toast("Connected.");
    document.body.dataset.wired = String(Number(document.body.dataset.wired || 0) + 1);
    await loadWires().catch(failed);
    if (drawn) await faces(true);
  }

  // A wire is picked with a click on its line or its label: the board's drawing
  // marks each wire (g.wire, data-edge-id, its route and label box), and the
  // topmost drawing under the pointer says which wires are there. The inspector
  // then shows it; its label and relation change with update_edges (naming the
  // board's wire counter the page saw), and Delete removes it.
  const edges = new Map();  // wire id -> get {kind: edges} answer (from, to, label, rel, author, mayChange)
  let edgesRev = null, pickedWire = null;
  const WIRE_PX = 7;  // how near a wire a click picks it, in screen pixels
  // A fingertip covers more than a pointer's tip: a tap picks a wire from further off.
  const WIRE_TOUCH_PX = 18;
  const RELS = ["depends-on", "blocks", "causes", "part-of", "relates", "see-also", "ref"];
  function canEditWires() { return may.update_edges !== false; }
  async function loadWires() {
    const out = await op("get", {kind: "edges", board: SLUG});
    // An answer read before a write of this page's own landed is older than what it knows.
    if (edgesRev != null && out.edgesRev < edgesRev) return;
    edges.clear();
    for (const e of out.edges) edges.set(e.id, e);
    edgesRev = out.edgesRev;
    wires = out.edges.map((e) => [e.from, e.to]);
    if (pickedWire != null && !edges.has(pickedWire)) pickedWire = null;
    document.body.dataset.wires = String(edges.size);
  }
  function wireName(w) {
    const short = (id) => { const n = cardName(id); return n.length > 40 ? n.slice(0, 39) + "…" : n; };
    return (w.label ? "“" + w.label + "”: " : "") + short(w.from) + " → " + short(w.to);
  }
  function regionOf(svg) { return {x: parseFloat(svg.style.left), y: parseFloat(svg.style.top), w: parseFloat(svg.style.width), h: parseFloat(svg.style.height)}; }
  function inside(p, r) { return p.x >= r.x && p.y >= r.y && p.x <= r.x + r.w && p.y <= r.y + r.h; }
  function pointsOf(mark) {
    const line = mark.querySelector("polyline");
    return (line ? line.getAttribute("points") : "").trim().split(/\s+/).filter(Boolean).map((xy) => xy.split(",").map(Number));
  }
  function toSegment(p, a, b) {
    const dx = b[0] - a[0], dy = b[1] - a[1], len = dx * dx + dy * dy;
    const t = len ? Math.max(0, Math.min(1, ((p.x - a[0]) * dx + (p.y - a[1]) * dy) / len)) : 0;
    return Math.hypot(p.x - a[0] - t * dx, p.y - a[1] - t * dy);
  }
  // The wire under a board point: in the topmost drawing there (a piece redrawn over
  // the region hides what the region drew under it), on its label or nearest its line.
  function wireAt(p, touch) {
    const svg = [...facesEl.children].reverse().find((el) => inside(p, regionOf(el)));
    if (!svg) return null;
    const r = regionOf(svg), q = {x: p.x - r.x, y: p.y - r.y}, tol = (touch ? WIRE_TOUCH_PX : WIRE_PX) / view.s;
    let best = null;
    for (const mark of svg.querySelectorAll("g.wire[data-edge-id]")) {
      const id = Number(mark.dataset.edgeId);
      const box = mark.querySelector("rect");
      if (box) {
        const b = {x: +box.getAttribute("x"), y: +box.getAttribute("y"), w: +box.getAttribute("width"), h: +box.getAttribute("height")};
        if (inside(q, b)) return id;
      }
      const pts = pointsOf(mark);
      for (let i = 1; i < pts.length; i++) {
        const d = toSegment(q, pts[i - 1], pts[i]);
        if (d <= tol && (!best || d < best.d)) best = {d, id};
      }
    }
    return best ? best.id : null;
  }
  function pickWire(id) {
    closeEditor(true);
    selection.clear(); trashed.clear();
    pickedWire = id;
    drawSelection();
    openDock([]);
    inspect();
    // A wire drawn before this page read it (its card came back from the trash, say).
    if (!edges.has(id)) loadWires().then(() => { drawSelection(); inspect(); }).catch(failed);
  }
  // The picked wire is traced over its drawing, in the page's own colour.
  function drawWirePick() {
    for (const el of overlay.querySelectorAll(".wirepick")) el.remove();
    document.body.dataset.wire = pickedWire == null ? "" : String(pickedWire);
    if (pickedWire == null) return;
    const marks = facesEl.querySelectorAll('g.wire[data-edge-id="' + pickedWire + '"]');
    const mark = marks[marks.length - 1];
    if (!mark) return;
    const r = regionOf(mark.ownerSVGElement), ns = "http://www.w3.org/2000/svg";
    const svg = document.createElementNS(ns, "svg");
    svg.setAttribute("class", "wirepick");
    svg.setAttribute("viewBox", "0 0 " + r.w + " " + r.h);
    svg.dataset.edgeId = String(pickedWire);
    place(svg, r);
    const line = document.createElementNS(ns, "polyline");
    line.setAttribute("points", pointsOf(mark).map((xy) => xy.join(",")).join(" "));
    const box = mark.querySelector("rect");
    if (box) {
      // The trace stops at the label, which stays readable as the board drew it.
      const mask = document.createElementNS(ns, "mask"), all = document.createElementNS(ns, "rect"), hole = document.createElementNS(ns, "rect");
      mask.id = "wirepick-mask";
      mask.setAttribute("maskUnits", "userSpaceOnUse");
      for (const [k, v] of [["x", 0], ["y", 0], ["width", r.w], ["height", r.h]]) all.setAttribute(k, String(v));
      all.setAttribute("fill", "#fff");
      for (const k of ["x", "y", "width", "height"]) hole.setAttribute(k, box.getAttribute(k));
      hole.setAttribute("fill", "#000");
      mask.append(all, hole);
      svg.append(mask);
      line.setAttribute("mask", "url(#wirepick-mask)");
      const b = document.createElementNS(ns, "rect");
      for (const k of ["x", "y", "width", "height"]) b.setAttribute(k, box.getAttribute(k));
      b.setAttribute("rx", String(+box.getAttribute("height") / 2));
      svg.append(line, b);
    } else svg.append(line);
    overlay.append(svg);
  }
  // A write from a counter someone else moved on (409 stale_edges): the wires as the
  // server has them now, quietly, as a stale card snaps.
  async function staleWires(err) {
    if (!(err instanceof ApiError && err.status === 409 && err.body.code === "stale_edges")) return false;
    status("The wires were changed by someone else meanwhile; showing them as they are now.");
    await loadWires().catch(failed);
    if (drawn) await faces(true);
    inspect();
    // Stamped once the wires are read again and the inspector rebuilt on them: a save
    // made before then would still carry the stale counter.
    document.body.dataset.wireSnapped = String(Number(document.body.dataset.wireSnapped || 0) + 1);
    return true;
  }
  async function saveWire(id, label, rel, record = true) {
    const e = edges.get(id);
    if (!e || !canEditWires()) return false;
    const set = {id};
    if (label !== (e.label || "")) set.label = label;
    if (rel !== (e.rel || "")) set.rel = rel;
    if (Object.keys(set).length === 1) return true;
    let out;
    try { out = await op("update_edges", {board: SLUG, set: [set], edgesRev}); }
    catch (err) { if (!(await staleWires(err))) { toast(readable(err), true); inspect(); } return false; }
    wrote();
    edgesRev = out.edgesRev;
    for (const w of out.edges) edges.set(w.id, {...e, ...w, label: w.label, rel: w.rel});
    if (record) remember({op: "wire", id, label: e.label || "", rel: e.rel || ""}, {op: "wire", id, label, rel});
    status(label ? "Wire labelled “" + label + "”." : "Wire saved.");
    if (drawn) await faces(true);
    inspect();
    return true;
  }
  async function removeWires(ids, extra, record = true) {
    const kept = ids.map((id) => edges.get(id)).filter(Boolean).map((w) => ({id: w.id, from: w.from, to: w.to, label: w.label, rel: w.rel, fromRegion: w.fromRegion, toRegion: w.toRegion}));
    let out;
    try { out = await op("update_edges", {board: SLUG, remove: ids, ...extra}); }
    catch (err) {
      if (err instanceof ApiError && err.status === 409 && err.body.code === "needs_confirm") { askToRemoveWires(ids, err.body, record); return false; }
      toast(readable(err), true);
      return false;
    }
    wrote();
    edgesRev = out.edgesRev;
    for (const id of out.removed) edges.delete(id);
    wires = [...edges.values()].map((w) => [w.from, w.to]);
    if (record) remember({op: "addWires", wires: kept}, {op: "removeWires", wires: kept});
    if (ids.includes(pickedWire)) pickedWire = null;
    toast(out.removed.length === 1 ? "Wire removed (Ctrl/⌘+Z draws it again)." : out.removed.length + " wires removed.");
    if (drawn) await faces(true);
    inspect();
    return true;
  }
  // Drawing wires again (an undone delete, a redone connect): compose_board with each
  // wire's ends, label and relation. They get new ids, which the history takes on.
  async function addWires(list) {
    const live = list.filter((w) => outline.has(w.from) && outline.has(w.to));
    if (!live.length || !canCreate()) return false;
    const sent = live.map((w) => {
      const e = {from: w.from, to: w.to};
      for (const k of ["label", "rel", "fromRegion", "toRegion"]) if (w[k]) e[k] = w[k];
      return e;
    });
    let out;
    try { out = await op("compose_board", {board: SLUG, edges: sent}); }
    catch (err) { toast(readable(err), true); return false; }
    wrote();
    const remap = new Map(live.map((w, i) => [w.id, out.edges[i].id]));
    await loadWires().catch(failed);
    if (drawn) await faces(true);
    return {remap};
  }
  function remapWires(entries, remap) {
    for (const entry of entries) {
      for (const step of [entry.undo, entry.redo]) {
        if (step.op === "wire" && remap.has(step.id)) step.id = remap.get(step.id);
        for (const w of step.wires || []) if (remap.has(w.id)) w.id = remap.get(w.id);
      }
    }
  }
  function inspectWire(panel, line, draft) {
    const w = edges.get(pickedWire);
    const h = panel.querySelector("h2");
    if (!w) { h.textContent = "Wire"; line("This wire is no longer on the board."); return; }
    h.textContent = "Wire " + w.id;
    line(wireName(w), "name");
    const dl = document.createElement("dl");
    const add = (k, v) => { const dt = document.createElement("dt"); dt.textContent = k; const dd = document.createElement("dd"); dd.append(v); dl.append(dt, dd); };
    const cardLink = (id) => { const b = button(cardName(id), () => { pickedWire = null; select([id]); }); b.className = "link"; return b; };
    add("From", cardLink(w.from));
    add("To", cardLink(w.to));
    add("Relation", w.rel || "plain arrow");
    add("Made by", w.author || "unknown");
    panel.append(dl);
    const mayChange = canEditWires() && w.mayChange;
    const form = document.createElement("form");
    form.className = "wireform";
    const field = (text, id, value, list) => {
      const label = document.createElement("label");
      label.textContent = text;
      const input = document.createElement("input");
      input.id = id; input.value = value; input.disabled = !mayChange; input.autocomplete = "off";
      input.maxLength = id === "wire-rel" ? 60 : 500;
      if (list) input.setAttribute("list", list);
      label.append(input);
      form.append(label);
      return input;
    };
    // What is being typed survives a redraw the event stream pushes (or a refused save).
    const kept = draft && draft.id === w.id ? draft : null;
    const labelIn = field("Label", "wire-label", kept ? kept.label : w.label || "");
    const relIn = field("Relation", "wire-rel", kept ? kept.rel : w.rel || "", "wire-rels");
    // The field being typed in takes the focus back in this same task (below, once the
    // form is on the page): a key pressed meanwhile would otherwise land on the page.
    const refocus = kept && kept.focus ? (kept.focus === "wire-rel" ? relIn : kept.focus === "wire-label" ? labelIn : null) : null;
    const rels = document.createElement("datalist");
    rels.id = "wire-rels";
    for (const r of RELS) { const o = document.createElement("option"); o.value = r; rels.append(o); }
    form.append(rels);
    form.addEventListener("submit", (e) => { e.preventDefault(); saveWire(w.id, labelIn.value.trim(), relIn.value.trim()).catch(failed); });
    // Enter saves from either field (a form of two fields has no implicit submit).
    form.addEventListener("keydown", (e) => {
      if (e.key === "Enter") { e.preventDefault(); form.requestSubmit(); }
      else if (e.key === "Escape") { e.preventDefault(); e.stopPropagation(); boardEl.focus(); inspect(); }
    });
    panel.append(form);
    if (refocus) { refocus.focus(); refocus.setSelectionRange(refocus.value.length, refocus.value.length); }
    if (!canEditWires()) line("This link lets you look, not change.");
    else if (!w.mayChange) line("Only " + (w.author || "whoever drew it") + " can change this wire's label and relation; you may remove it.");
    else line("Enter saves; an empty field clears it. Delete or Backspace on the board removes the wire.");
    const row = document.createElement("div");
    row.className = "row";
    if (mayChange) {
      const save = button("Save", () => form.requestSubmit());
      save.dataset.role = "wire-save";
      row.append(save);
    }
    const del = button("Delete wire", () => removeWires([w.id], {}).catch(failed));
    del.className = "danger";
    del.dataset.role = "wire-delete";
    del.disabled = !canEditWires();
    del.title = "Remove the wire (Delete); Ctrl/⌘+Z draws it again";
    row.append(del);
    panel.append(row);
  }

  // ------------------------------------------------------------------ diagram nodes by hand
  // A node of the selected diagram card is dragged to a new place or, double-clicked,
  // relabelled in place. Both are the person's overrides of that diagram (an
  // update_cards payload patch of overrides alone, node by node): they stay beside what
  // the diagram's author or living source says, so a refresh keeps them, and the
  // server re-routes the node's wires. The drawing marks each node (rect.dnode with
  // data-node-id) where the face put it; the card's payload gives its own geometry.
  function nodeMarks(card) {
    // The topmost drawing holding the whole card (a piece redrawn over it wins).
    const svg = [...facesEl.children].reverse().find((el) => covers(regionOf(el), card));
    if (!svg) return [];
    const r = boardEl.getBoundingClientRect(), out = [];
    for (const el of svg.querySelectorAll("rect.dnode[data-node-id]")) {
      const b = el.getBoundingClientRect();
      const box = {x: view.x + (b.left - r.left) / view.s, y: view.y + (b.top - r.top) / view.s, w: b.width / view.s, h: b.height / view.s};
      // Marks of this card only: inside its box.
      if (box.x >= card.x - 1 && box.y >= card.y - 1 && box.x + box.w <= card.x + card.w + 1 && box.y + box.h <= card.y + card.h + 1) out.push({id: el.dataset.nodeId, box});
    }
    return out;
  }
  function nodeAt(card, p) {
    let best = null;
    for (const n of nodeMarks(card)) if (inside(p, n.box) && (!best || area(n.box) < area(best.box))) best = n;
    return best;
  }
  // A press on a node of the one selected diagram grabs the node, not the card.
  function grabNode(e, hit, p) {
    if (!hit || hit.kind !== "diagram" || e.pointerType === "touch" || !canEdit()) return null;
    if (selection.size !== 1 || !selection.has(hit.id)) return null;
    const node = nodeAt(hit, p);
    return node ? {...node, card: hit.id} : null;
  }
  // What the card's payload says of a node: its geo box, its label, the override now.
  function nodeFacts(cardId, nid) {
    const d = details.get(cardId), p = (d && d.payload) || {};
    const geo = ((p.geo || {}).nodes || {})[nid];
    const own = (p.overrides || {})[nid] || {};
    let title = null;
    const walk = (h) => {
      for (const n of h.nodes || []) if (n && n.id === nid) title = n.title;
      for (const g of [...(h.groups || []), ...(h.lanes || [])]) if (g) walk(g);
    };
    walk(p);
    return {geo, own, title: own.title || title || nid, version: d ? d.version : null};
  }
  function nodeStep(g, dx, dy) {
    // The server keeps a node clear of the diagram's header and its top and left
    // edges: the ghost stops there too, so it shows where the node will land.
    const f = g.facts || (g.facts = nodeFacts(g.node.card, g.node.id));
    if (f.geo && g.node.box.w) {
      const k = g.node.box.w / f.geo.w, head = ((details.get(g.node.card) || {}).payload || {}).geo || {};
      const top = head.header ? head.header.y + head.header.h + 8 : 0;
      dx = Math.max(dx, -f.geo.x * k);
      dy = Math.max(dy, (top - f.geo.y) * k);
    }
    g.dx = dx; g.dy = dy;
    let el = overlay.querySelector(".ghost.node");
    if (!el) {
      el = document.createElement("div"); el.className = "ghost node"; el.dataset.nodeId = g.node.id;
      // Named, as a moving card's ghost is: the node's face stays put until the write is drawn.
      el.textContent = f.title;
      overlay.append(el);
    }
    place(el, {x: g.node.box.x + dx, y: g.node.box.y + dy, w: g.node.box.w, h: g.node.box.h});
    document.body.dataset.nodeDrag = g.node.id;
  }
  async function nodeDrop(g) {
    for (const el of overlay.querySelectorAll(".ghost.node")) el.remove();
    delete document.body.dataset.nodeDrag;
    const id = g.node.card, nid = g.node.id;
    await versionsOf([id]);
    const f = nodeFacts(id, nid);
    if (!f.geo || !g.node.box.w) return false;
    // Board pixels to the diagram's own: the face drew the geo at this scale.
    const k = g.node.box.w / f.geo.w;
    const x = Math.round(f.geo.x + g.dx / k), y = Math.round(f.geo.y + g.dy / k);
    if (x === f.geo.x && y === f.geo.y) return false;
    const back = {overrides: {[nid]: {x: "x" in f.own ? f.own.x : null, y: "y" in f.own ? f.own.y : null}}};
    const done = await writePayload(id, {overrides: {[nid]: {x, y}}}, f.version, back);
    if (done) document.body.dataset.nodeMoved = String(Number(document.body.dataset.nodeMoved || 0) + 1);
    return done;
  }
  // A double-click on a node opens its label in place; Enter saves, Escape leaves it.
  async function editNode(card, p) {
    if (!canEdit()) return false;
    const node = nodeAt(card, p);
    if (!node) return false;
    await versionsOf([card.id]);
    const f = nodeFacts(card.id, node.id);
    const box = {x: node.box.x, y: node.box.y, w: Math.max(node.box.w, 160), h: Math.max(node.box.h, 44)};
    openEditor({id: card.id, kind: "node", md: f.title, version: f.version, box, label: "Label of node " + f.title,
      save: (text) => {
        const title = text.replace(/\s+/g, " ").trim();
        const back = {overrides: {[node.id]: {title: f.own.title || null}}};
        writePayload(card.id, {overrides: {[node.id]: {title}}}, f.version, back)
          .then((ok) => { if (ok) document.body.dataset.nodeLabelled = String(Number(document.body.dataset.nodeLabelled || 0) + 1); })
          .catch(failed);
      }});
    document.body.dataset.editingNode = node.id;
    return true;
  }

  // The keyboard's way to the same two edits: the inspector lists the diagram's nodes;
  // with one picked, Alt+arrows move it (8 board px a press, 1 with Shift) and Enter
  // (or Rename) opens its label in place.
  let nodeKept = null;  // the node picked in the list, kept across inspector rebuilds
  function nodeKeys(panel, card) {
    const marks = nodeMarks(card);
    if (!marks.length) return;
    const pick = document.createElement("select");
    pick.dataset.role = "node";
    pick.setAttribute("aria-label", "Node (Alt+arrows move it, Enter renames it)");
    for (const n of marks) pick.append(new Option(nodeFacts(card.id, n.id).title, n.id));
    if (nodeKept && nodeKept.card === card.id && marks.some((n) => n.id === nodeKept.id)) pick.value = nodeKept.id;
    const chosen = () => marks.find((n) => n.id === pick.value);
    const rename = () => {
      const n = chosen();
      if (n) editNode(card, {x: n.box.x + n.box.w / 2, y: n.box.y + n.box.h / 2}).catch(failed);
    };
    pick.addEventListener("change", () => { nodeKept = {card: card.id, id: pick.value}; });
    pick.addEventListener("keydown", (e) => {
      if (e.key === "Enter") { e.preventDefault(); rename(); return; }
      const dir = {ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1]}[e.key];
      if (!dir || !e.altKey) return;
      e.preventDefault();
      const n = chosen(), by = e.shiftKey ? 1 : 8;
      if (!n) return;
      nodeKept = {card: card.id, id: n.id, focus: true};
      const g = {node: {...n, card: card.id}};
      nodeStep(g, dir[0] * by, dir[1] * by);
      nodeDrop(g).catch(failed);
    });
    const name = button("Rename", rename);
    name.dataset.role = "node-rename";
    const p = document.createElement("p"); p.className = "hint"; p.append("Node ", pick, " ", name); panel.append(p);
    // A move rebuilds the inspector (more than once, as the write and the drawing come
    // back): the list keeps the focus until the person takes it elsewhere.
    // (Chromium blurs a focused element as it is removed, with no element taking the
    // focus: only a move of the focus to another element ends the keeping.)
    pick.addEventListener("blur", (e) => { if (e.relatedTarget && nodeKept) nodeKept.focus = false; });
    if (nodeKept && nodeKept.focus && nodeKept.card === card.id) pick.focus({preventScroll: true});
  }

  // ------------------------------------------------------------------ frames around a selection
  // Ctrl/⌘+G (or the inspector's Frame) draws a section frame around the selected
  // cards where they are (frame_cards): nothing inside it moves. Undo takes the frame
  // away and leaves the cards (unframe_cards: the person's own frame, so no removal
  // dialog); redo brings the same frame back from the trash, around them again.
  async function frameSelection() {
    const ids = movers().map((c) => c.id);
    if (!ids.length || !canCreate()) return false;
    let out;
    try { out = await op("frame_cards", {board: SLUG, ids}); }
    catch (err) { toast(readable(err), true); return false; }
    wrote();
    const parent = (outline.get(ids[0]) || {}).parent ?? null;
    take([out.frame, ...out.cards]);
    const frame = outline.get(out.frame.id);
    if (frame) frame.parent = parent;
    for (const c of out.cards) { const b = outline.get(c.id); if (b) b.parent = out.frame.id; }
    remember({op: "unframe", id: out.frame.id}, {op: "reframe", id: out.frame.id});
    select([out.frame.id]);
    toast("Frame drawn around " + (ids.length === 1 ? "the card" : ids.length + " cards") + " (Ctrl/⌘+Z takes it away).");
    document.body.dataset.framed = String(out.frame.id);
    return true;
  }
  async function unframe(id) {
    if (!outline.has(id)) return false;
    let out;
    try { out = await op("unframe_cards", {board: SLUG, id}); }
    catch (err) { toast(readable(err), true); return false; }
    wrote();
    const gone = outline.get(id), dirty = [{...gone}];
    outline.delete(id);
    details.delete(id);
    selection.delete(id);
    for (const c of outline.values()) if (c.parent === id) c.parent = gone.parent;
    take(out.cards);
    extent = extentOf(); mini = null; paint(); drawSelection(); inspect();
    await patch(dirty);
    toast("Frame taken away; its cards stay where they are.");
    return true;
  }
  async function reframe(id) {
    const done = await restoreCards([id], false);
    // The cards it held are its children again (the stream says so too).
    return done;
  }

  // ------------------------------------------------------------------ undo and redo
  // The person's own last actions on this board, kept in this browser across a
  // reload. Each step is a server write like any other (versions named), so an
  // agent sees an undo as the change it is.
  const UNDO_KEY = "layoutkit.undo." + SLUG, UNDO_MAX = 100;
  function history() {
    try { const h = JSON.parse(localStorage.getItem(UNDO_KEY) || "null"); if (h && Array.isArray(h.undo) && Array.isArray(h.redo)) return h; }
    catch (e) { /* a damaged entry starts a fresh history */ }
    return {undo: [], redo: []};
  }
  function keepHistory(h) {
    h.undo = h.undo.slice(-UNDO_MAX); h.redo = h.redo.slice(-UNDO_MAX);
    try { localStorage.setItem(UNDO_KEY, JSON.stringify(h)); } catch (e) { /* storage full or off: undo lasts this page */ }
    document.body.dataset.undo = h.undo.length + "," + h.redo.length;
  }
  function remember(undo, redo) { const h = history(); h.undo.push({undo, redo}); h.redo = []; keepHistory(h); }
  async function versionsOf(ids) { for (const id of ids) details.delete(id); await loadDetails(ids); }
  async function runStep(step) {
    if (step.op === "remove") return removeCards(step.ids.filter((id) => outline.has(id)), {}, false);
    if (step.op === "restore") return restoreCards(step.ids, false);
    if (step.op === "boxes") {
      const live = step.boxes.filter((b) => outline.has(b.id));
      if (!live.length) return false;
      await versionsOf(live.map((b) => b.id));
      return writeBoxes(live.map((b) => ({...b})), false);
    }
    if (step.op === "payload") {
      if (!outline.has(step.id)) return false;
      await versionsOf([step.id]);
      const d = details.get(step.id);
      return writePayload(step.id, keepTicks(step.payload, d && d.payload), d ? d.version : null, null);
    }
    if (step.op === "removeWires") {
      const ids = step.wires.map((w) => w.id).filter((id) => edges.has(id));
      return ids.length ? removeWires(ids, {}, false) : false;
    }
    if (step.op === "addWires") return addWires(step.wires);
    if (step.op === "unframe") return unframe(step.id);
    if (step.op === "reframe") return reframe(step.id);
    if (step.op === "wire") {
      await loadWires();
      return edges.has(step.id) ? saveWire(step.id, step.label, step.rel, false) : false;
    }
    if (step.op === "md") {
      if (!outline.has(step.id)) return false;
      await versionsOf([step.id]);
      const d = details.get(step.id);
      return writeText(step.id, step.md, d ? d.version : null, false);
    }
    return false;
  }
  let undoing = false;
  async function undoRedo(back) {
    if (undoing || !canEdit()) return;
    closeEditor(true);
    const h = history(), from = back ? h.undo : h.redo, to = back ? h.redo : h.undo;
    const entry = from.pop();
    if (!entry) { toast(back ? "Nothing to undo." : "Nothing to redo."); return; }
    undoing = true;
    try {
      const done = await runStep(back ? entry.undo : entry.redo);
      // Wires drawn again have new ids: the steps that name them take those.
      if (done && done.remap) remapWires([entry, ...h.undo, ...h.redo], done.remap);
      // A step that cannot run any more (the card changed or went) is dropped.
      if (done) to.push(entry);
      else status(back ? "That change could not be undone: the card changed or is gone." : "That change could not be redone.");
      keepHistory(h);
      document.body.dataset.undone = String(Number(document.body.dataset.undone || 0) + 1);
    } finally { undoing = false; }
  }

  // ------------------------------------------------------------------ the inspector
  function inspect() {
    const panel = $("inspector"), toggle = $("inspector-toggle");
    const typing = document.activeElement && document.activeElement.closest && document.activeElement.closest("#inspector .wireform");
    const draft = typing && $("wire-label") ? {id: pickedWire, label: $("wire-label").value, rel: $("wire-rel").value, focus: document.activeElement.id} : null;
    toggle.hidden = !selection.size && !trashed.size && pickedWire == null;
    toggle.textContent = pickedWire != null && !selection.size ? "Wire" : "Card";
    panel.replaceChildren();
    const h = document.createElement("h2");
    panel.append(h);
    const line = (text, cls) => { const p = document.createElement("p"); p.className = cls || "hint"; p.textContent = text; panel.append(p); return p; };
    const row = document.createElement("div");
    row.className = "row";
    if (trashed.size && !selection.size) {
      // The stream may have told of the removal first, emptying the selection and so
      // closing the dock, before the removal's own answer: the restore shows again.
      if (panel.hidden && panel.dataset.closed !== "1") { panel.hidden = false; paint(); facesSoon(); }
      h.textContent = trashed.size === 1 ? "Card in the trash" : trashed.size + " cards in the trash";
      for (const [id, k] of trashed) line(k.detail ? cardName(id) : (k.box.kind + " " + id), "name");
      line("Removed cards are kept for 30 days; restore puts them back where they were.");
      const b = button("Restore", () => restoreTrashed());
      b.dataset.role = "restore";
      b.disabled = !canEdit();
      row.append(b);
      panel.append(row);
      return;
    }
    if (pickedWire != null && !selection.size) { panel.setAttribute("aria-label", "Selected wire"); inspectWire(panel, line, draft); return; }
    panel.setAttribute("aria-label", "Selected card");
    if (!selection.size) { panel.hidden = true; paint(); facesSoon(); return; }
    if (selection.size > 1) {
      h.textContent = selection.size + " cards selected";
      const kinds = {};
      for (const id of selection) { const c = outline.get(id); if (c) kinds[c.kind] = (kinds[c.kind] || 0) + 1; }
      line(Object.entries(kinds).map(([k, n]) => k + " × " + n).join(", "));
      line("Drag one of them or use the arrow keys (Shift: bigger steps) to move them together.");
    } else {
      const id = [...selection][0], c = outline.get(id), d = details.get(id);
      h.textContent = "Card " + id;
      line(cardName(id), "name");
      const dl = document.createElement("dl");
      const add = (k, v) => { const dt = document.createElement("dt"); dt.textContent = k; const dd = document.createElement("dd"); dd.textContent = v; dl.append(dt, dd); };
      add("Kind", c.kind);
      if (d) {
        add("Layer", d.layer === "ai" ? "AI layer" : "human layer");
        add("Made by", d.author || "unknown");
        add("Version", "v" + d.version);
        add("Size", d.sizedBy === "person" ? "set by a person" : FRAMES.has(c.kind) ? "holds its cards" : "fits its content");
      } else add("Details", "loading…");
      add("Place", Math.round(c.x) + ", " + Math.round(c.y) + " · " + Math.round(c.w) + " × " + Math.round(c.h));
      panel.append(dl);
      const on = [...findings.values()].filter((a) => a.cardId === id);
      if (on.length) {
        const t = document.createElement("h3"); t.textContent = "Findings"; panel.append(t);
        const ul = document.createElement("ul");
        for (const a of on) {
          const li = document.createElement("li");
          const open = button(a.prompt.summary + " (" + (STATE_WORDS[a.state] || a.state) + ")", () => {
            const list = $("annotations");
            list.hidden = false; list.dataset.closed = "";
            paint(); facesSoon();
            showFinding(a.id);
          });
          open.className = "link";
          li.append(open);
          ul.append(li);
        }
        panel.append(ul);
      }
      const joined = [...edges.values()].filter((w) => w.from === id || w.to === id);
      if (joined.length) {
        const t = document.createElement("h3"); t.textContent = "Wires"; panel.append(t);
        const ul = document.createElement("ul");
        for (const w of joined) {
          const li = document.createElement("li");
          const b = button(wireName(w), () => pickWire(w.id));
          b.className = "link";
          b.dataset.wire = String(w.id);
          li.append(b);
          ul.append(li);
        }
        panel.append(ul);
      }
      const asks = [...questions.values()].filter((q) => q.cardId === id && q.state !== "released");
      if (asks.length) {
        const t = document.createElement("h3"); t.textContent = "Questions"; panel.append(t);
        const ul = document.createElement("ul");
        for (const q of asks) { const li = document.createElement("li"); li.textContent = q.prompt; ul.append(li); }
        panel.append(ul);
      }
      if (c && c.kind === "shape" && d && d.payload && d.mayEdit && canEdit()) {
        const pick = document.createElement("select");
        pick.dataset.role = "shape";
        pick.setAttribute("aria-label", "Shape");
        for (const name of CARD_SHAPES) pick.append(new Option(name, name, false, name === (d.payload.shape || "rect")));
        pick.addEventListener("change", () => {
          const was = d.payload.shape || "rect";
          writePayload(id, {shape: pick.value}, d.version, {shape: was}).catch(failed);
        });
        const p = document.createElement("p"); p.className = "hint"; p.append("Shape ", pick); panel.append(p);
      }
      if (c && c.kind === "diagram" && canEdit()) {
        line("Drag a node to move it; double-click a node to edit its label (or pick it below: Alt+arrows move it, Enter renames it). Ctrl/⌘+Z undoes either; a refresh of the diagram keeps both.");
        nodeKeys(panel, c);
      }
      const t = document.createElement("h3"); t.textContent = "History";
      if (may.card_history !== false) panel.append(t);
      if (may.card_history === false) { /* a share link reads no earlier content */ }
      else if (!pastOf || pastOf.id !== id || (d && pastOf.version !== d.version)) {
        const show = button("Show earlier versions", () => loadPast(id).catch(failed));
        show.className = "link";
        show.dataset.role = "history";
        const p = document.createElement("p"); p.className = "hint"; p.append(show); panel.append(p);
      } else {
        const ul = document.createElement("ul");
        ul.className = "history";
        for (const e of pastOf.entries) {
          const li = document.createElement("li");
          li.dataset.version = e.version;
          const span = e.version === e.through ? "v" + e.version : "v" + e.version + "–" + e.through;
          const at = new Date(e.at).toLocaleString();
          li.textContent = span + (e.current ? " (now)" : "") + " · " + at + " · " + (e.title || e.text || e.kind);
          if (!e.current && e.restore && d && d.mayEdit && canEdit()) {
            const b = button("Restore", () => restoreVersion(id, e).catch(failed));
            b.className = "link";
            b.dataset.role = "restore-version";
            b.title = "Bring this content back as a new version (undo takes it back)";
            li.append(" ", b);
          }
          ul.append(li);
        }
        panel.append(ul);
        if (pastOf.entries.length === 1) line("No earlier content: moves alone make no version here.");
        if (pastOf.more) line("Older versions are not listed.");
      }
      if (!canEdit()) line("This link lets you look, not change.");
    }
    if (selection.size === 1) {
      const id = [...selection][0], c = outline.get(id), d = details.get(id);
      // Text the caller may change opens in place (as a double-click or Enter does).
      if (c && (EDITABLE.has(c.kind) || INPLACE[c.kind]) && d && d.mayEdit && canEdit()) {
        const edit = button(EDIT_WORDS[c.kind] || "Edit text", () => editCard(id).catch(failed));
        edit.dataset.role = "edit";
        edit.title = "Edit in place (double-click the card, or Enter)";
        row.append(edit);
      }
    }
    if (selection.size === 2 && canCreate()) {
      const [a, b] = [...selection];
      const wire = button("Connect", () => connect(a, b).catch(failed));
      wire.dataset.role = "connect";
      wire.title = "Draw a wire from the first card picked to the second (W)";
      row.append(wire);
    }
    if (canCreate()) {
      const frame = button("Frame", () => frameSelection().catch(failed));
      frame.dataset.role = "frame";
      frame.title = "Draw a section frame around the selected cards, where they are (Ctrl/⌘+G)";
      row.append(frame);
      const dup = button("Duplicate", () => duplicateSelection().catch(failed));
      dup.dataset.role = "duplicate";
      dup.title = "Copies of the selected cards beside them (Ctrl/⌘+D); Ctrl/⌘+C and V copy to any board";
      row.append(dup);
    }
    const del = button(selection.size > 1 ? "Delete " + selection.size + " cards" : "Delete", () => removeSelected());
    del.className = "danger";
    del.dataset.role = "delete";
    del.disabled = !canEdit();
    del.title = "Delete (moves to the trash for 30 days)";
    row.append(del);
    panel.append(row);
  }
  $("inspector-toggle").addEventListener("click", () => {
    const panel = $("inspector");
    panel.hidden = !panel.hidden;
    panel.dataset.closed = panel.hidden ? "1" : "";
    paint(); facesSoon();
  });

  // ------------------------------------------------------------------ changes
  async function apply(ch) {
    if (mode === "poll" && ch.presence) showPeople(ch.presence);
    if (ch.rev === rev && ch.questions === qstamp && ch.annotations === astamp && ch.look === look && !ch.cards.length && !ch.reset && !ch.edges) return;
    if (ch.questions !== qstamp) { qstamp = ch.questions; loadQuestions().catch(failed); }
    if (ch.annotations !== astamp) { astamp = ch.annotations; loadFindings().catch(failed); loadComments().catch(failed); }
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
    // A card trashed or back from the trash takes its wires with it.
    const ends = ch.cards.some((c) => c.removed || !outline.has(c.id)) && !ch.edges;
    for (const c of ch.cards) {
      const old = outline.get(c.id);
      if (old) dirty.push(old);
      if (c.removed) { outline.delete(c.id); payloads.delete(c.id); continue; }
      const box = {id: c.id, kind: c.kind, x: c.x, y: c.y, w: c.w, h: c.h, parent: c.parent};
      outline.set(c.id, box);
      dirty.push(box);
      if (c.kind === "checklist") ticked.add(c.id);
    }
    heard(ch.cards);
    rev = ch.rev;
    document.body.dataset.rev = String(rev);
    document.body.dataset.total = String(outline.size);
    if (dirty.length) { extent = extentOf(); mini = null; paint(); }
    if (ends) loadWires().catch(failed);
    if (ch.edges) {
      // The wires changed: read them again (ends, labels, who drew them) and draw.
      await loadWires().catch(failed);
      await faces(true);
      if (pickedWire != null) inspect();
    }
    else if (dirty.length) await patch(dirty);
    if (ticked.size) await liveCards(ticked);
    else if (dirty.length) await liveCards();
    if (dirty.length) { notHere.clear(); drawPeople(); }
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
      "&q=" + encodeURIComponent(qstamp || "") + "&a=" + encodeURIComponent(astamp || "") + "&look=" + encodeURIComponent(look || "") +
      "&people=1&page=" + PAGE_ID;
    stream = new EventSource(url);
    mode = "sse";
    document.body.dataset.live = "sse";
    stream.addEventListener("open", () => { opened = true; failures = 0; });
    stream.addEventListener("change", (e) => enqueue(JSON.parse(e.data)));
    stream.addEventListener("presence", (e) => showPeople(JSON.parse(e.data).presence));
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
      try { enqueue(await op("board_changes", {board: SLUG, since: rev, page: PAGE_ID})); await queue; }
      catch (err) { if (err instanceof ApiError && (err.status === 401 || err.status === 403)) return noAccess(err); failed(err); }
      setTimeout(tick, POLL_MS);
    };
    setTimeout(tick, POLL_MS);
  }
  function failed(err) { status(readable(err), true); }

  // ------------------------------------------------------------------ presence
  // Who else has the board open: their initials in the top bar, their cursors as
  // labelled arrows, their selections outlined and the card they drag as a named ghost,
  // all in board coordinates (they pan and zoom with the board). This page reports its
  // own pointer, selection and drag with board_presence (at most every PRESENCE_MS,
  // and every heartbeat while idle); the others arrive as the stream's presence events
  // (or with each board_changes answer when polling). Nothing here changes the board.
  const PAGE_ID = Array.from(crypto.getRandomValues(new Uint8Array(12)), (b) => b.toString(16).padStart(2, "0")).join("");
  const PRESENCE_MS = 100, MAX_AVATARS = 5;
  // How long a quiet page waits before reporting again: the server says (heartbeat).
  let beatMs = 10000, beatTimer = null;
  const people = new Map();  // presence id -> {who, colour, cursor, selection, dragging}
  const mine = {cursor: null, selection: [], dragging: null};
  // Cards the server said are not on the board (a page that missed their removal):
  // left out of reports until the board changes again.
  const notHere = new Set();
  let reportTimer = null, reporting = false, reportAgain = false, lastReport = 0, reports = true;
  function reportSoon() {
    if (!reports) return;
    if (reporting) { reportAgain = true; return; }
    if (reportTimer) return;
    reportTimer = setTimeout(report, Math.max(0, lastReport + PRESENCE_MS - Date.now()));
  }
  // One report on its way at a time, so they land in the order they were made.
  async function report() {
    reportTimer = null;
    reporting = true; reportAgain = false; lastReport = Date.now();
    const known = (id) => outline.has(id) && !notHere.has(id);
    const selection = mine.selection.filter(known).slice(0, 200);
    const dragging = mine.dragging && known(mine.dragging.id) ? mine.dragging : null;
    try {
      const out = await op("board_presence", {board: SLUG, page: PAGE_ID, cursor: mine.cursor, selection, dragging});
      if (out.heartbeat > 0) beatMs = out.heartbeat * 1000;
      if (mode !== "sse") showPeople(out.presence);
    } catch (err) {
      // Refused outright: this page stops reporting. A card removed a moment ago (404,
      // its path named) is left out, and the report made again without it.
      if (err instanceof ApiError && (err.status === 401 || err.status === 403)) reports = false;
      else if (err instanceof ApiError && err.body.code === "unknown_card") {
        const at = /^selection\[(\d+)\]$/.exec(err.body.field || "");
        const gone = at ? selection[Number(at[1])] : err.body.field === "dragging.id" && dragging ? dragging.id : null;
        if (gone != null) { notHere.add(gone); reportAgain = true; }
      }
    } finally {
      reporting = false;
      clearTimeout(beatTimer);
      if (reports) beatTimer = setTimeout(reportSoon, beatMs);
      document.body.dataset.reported = String(Number(document.body.dataset.reported || 0) + 1);
    }
    if (reportAgain) reportSoon();
  }
  reportSoon();
  // A closed page leaves at once (the others' avatars drop it); keepalive lets the
  // request outlive the page.
  window.addEventListener("pagehide", () => {
    if (!reports) return;
    // No report after the goodbye (one already on its way may still land after it:
    // then the page drops out when its report expires).
    reports = false;
    clearTimeout(reportTimer); reportTimer = null;
    clearTimeout(beatTimer);
    fetch("/api/v1/ops/board_presence", {method: "POST", keepalive: true, credentials: "same-origin",
      headers: {"content-type": "application/json"}, body: JSON.stringify({board: SLUG, page: PAGE_ID, leave: true})}).catch(() => {});
  });
  // A page brought back from the browser's back-forward cache is here again.
  window.addEventListener("pageshow", (e) => { if (e.persisted) { reports = true; reportSoon(); } });
  const round1 = (v) => Math.round(v * 10) / 10;
  boardEl.addEventListener("pointermove", (e) => {
    if (e.pointerType === "touch") return;  // a finger has no hover cursor to show
    const p = toBoard(e);
    mine.cursor = {x: round1(p.x), y: round1(p.y)};
    reportSoon();
  });
  boardEl.addEventListener("pointerleave", () => { if (mine.cursor && !drag) { mine.cursor = null; reportSoon(); } });
  function presenceSelection() {
    const now = [...selection];
    if (now.length === mine.selection.length && now.every((id, i) => id === mine.selection[i])) return;
    mine.selection = now;
    reportSoon();
  }
  function presenceDragging(g) {
    const was = mine.dragging;
    const c = g && g.hit;
    mine.dragging = c ? {id: c.id, x: round1(c.x + g.dx), y: round1(c.y + g.dy)} : null;
    if (was || mine.dragging) reportSoon();
  }
  function initials(name) {
    const parts = String(name).split(/[\s._@-]+/).filter(Boolean);
    const letters = parts.length > 1 ? parts[0][0] + parts[1][0] : String(name).slice(0, 2);
    return letters.toUpperCase();
  }
  function personName(p) { return p.who.kind === "agent" || p.who.kind === "service" ? p.who.name + " (agent)" : p.who.name; }
  function showPeople(list) {
    if (!Array.isArray(list)) return;
    people.clear();
    for (const p of list) people.set(p.id, p);
    drawAvatars();
    drawPeople();
  }
  function drawAvatars() {
    const bar = $("people");
    bar.replaceChildren();
    // One avatar per person (a person's two tabs are one); every guest is their own.
    const seen = new Map();
    for (const p of people.values()) {
      const key = p.who.kind === "share" ? p.id : p.who.kind + ":" + p.who.name;
      if (!seen.has(key)) seen.set(key, p);
    }
    const all = [...seen.values()];
    // A phone's top bar has room for fewer.
    const room = window.innerWidth < 600 ? 1 : MAX_AVATARS;
    const shown = all.length > room ? all.slice(0, room - 1) : all;
    for (const p of shown) {
      const b = document.createElement("button");
      b.type = "button";
      b.className = "avatar";
      b.style.setProperty("--c", p.colour);
      b.textContent = initials(p.who.name);
      b.dataset.name = personName(p);
      b.dataset.personId = p.id;
      b.setAttribute("aria-label", personName(p) + (p.cursor ? " — show where they are" : " is viewing this board"));
      b.title = personName(p);
      // Pressing an avatar brings their cursor (or the card they hold) into view.
      b.addEventListener("click", () => {
        const at = p.dragging || p.cursor;
        if (at) centerOn(at.x, at.y, view.s);
      });
      bar.append(b);
    }
    if (shown.length < all.length) {
      // The rest in one circle, named on hover and focus like the others.
      const more = document.createElement("button");
      more.type = "button";
      more.className = "avatar more";
      more.textContent = shown.length ? "+" + (all.length - shown.length) : String(all.length);
      more.dataset.name = all.slice(shown.length).map(personName).join(", ");
      more.setAttribute("aria-label", (shown.length ? "Also here: " : "Here: ") + more.dataset.name);
      bar.append(more);
    }
    bar.hidden = !all.length;
    bar.setAttribute("aria-label", all.length === 1 ? "Also here: " + personName(all[0]) : all.length + " others here");
    document.body.dataset.people = all.map((p) => p.who.name).join(",");
  }
  function tag(text, colour) {
    const t = document.createElement("span");
    t.className = "ptag";
    t.style.background = colour;
    t.textContent = text;
    return t;
  }
  // A person's cursor and ghost stay the same elements from one report to the next,
  // so they glide to each new place (CSS transitions) instead of jumping.
  const cursorEls = new Map(), dragEls = new Map();  // presence id -> element
  function drawPeople() {
    for (const el of overlay.querySelectorAll(".rsel")) el.remove();
    for (const p of people.values()) {
      const name = personName(p);
      for (const id of p.selection) {
        const c = outline.get(id);
        if (!c || (p.dragging && p.dragging.id === id)) continue;
        const el = document.createElement("div");
        el.className = "rsel";
        el.style.setProperty("--c", p.colour);
        el.dataset.cardId = String(id);
        el.dataset.personId = p.id;
        place(el, c);
        overlay.append(el);
      }
      const d = p.dragging && outline.get(p.dragging.id);
      let ghost = dragEls.get(p.id);
      if (ghost && (!d || ghost.dataset.cardId !== String(d.id))) { ghost.remove(); dragEls.delete(p.id); ghost = null; }
      if (d) {
        if (!ghost) {
          ghost = document.createElement("div");
          ghost.className = "rdrag";
          ghost.dataset.cardId = String(d.id);
          ghost.dataset.personId = p.id;
          // Named like the local ghost (frames by their outline alone), tagged with who holds it.
          if (!FRAMES.has(d.kind)) { const n = document.createElement("span"); n.className = "rname"; n.textContent = cardName(d.id); ghost.append(n); }
          ghost.append(tag(name + " is moving this", p.colour));
          dragEls.set(p.id, ghost);
          overlay.append(ghost);
        }
        ghost.style.setProperty("--c", p.colour);
        place(ghost, {x: p.dragging.x, y: p.dragging.y, w: d.w, h: d.h});
      }
      let arrow = cursorEls.get(p.id);
      if (!p.cursor) { if (arrow) { arrow.remove(); cursorEls.delete(p.id); } continue; }
      if (!arrow) {
        arrow = document.createElement("div");
        arrow.className = "rcursor";
        arrow.dataset.personId = p.id;
        arrow.innerHTML = '<svg width="16" height="20" viewBox="0 0 16 20" aria-hidden="true"><path d="M1 1 L1 16 L5 12 L8 19 L11 17.6 L8 11 L14 11 Z" stroke="#fff" stroke-width="1.5" stroke-linejoin="round"/></svg>';
        arrow.append(tag(name, p.colour));
        cursorEls.set(p.id, arrow);
        overlay.append(arrow);
      }
      arrow.style.setProperty("--c", p.colour);
      arrow.querySelector(".ptag").style.background = p.colour;
      arrow.style.left = p.cursor.x + "px"; arrow.style.top = p.cursor.y + "px";
      arrow.dataset.at = p.cursor.x + "," + p.cursor.y;
    }
    // Whoever left takes their cursor and ghost along.
    for (const els of [cursorEls, dragEls]) {
      for (const [id, el] of els) if (!people.has(id) || !el.isConnected) { el.remove(); els.delete(id); }
    }
  }

  // ------------------------------------------------------------------ pointer, wheel, keyboard
  const pointers = new Map();
  let drag = null, pinch = null;
  const INTERACTIVE = "input, button, textarea, select, a, label, #minimap, .inplace, #cpop";
  // One pointer: a plain drag on the empty board (or a frame not selected) pans; a
  // drag on a card moves it (with the selection); Shift-drag on the empty board draws
  // a marquee; the handle resizes. A press without a drag selects (Shift adds).
  boardEl.addEventListener("pointerdown", (e) => {
    if (e.target.closest(INTERACTIVE)) return;
    pointers.set(e.pointerId, {x: e.clientX, y: e.clientY});
    if (pointers.size === 2) {
      const [a, b] = [...pointers.values()];
      pinch = {d: Math.hypot(a.x - b.x, a.y - b.y), mx: (a.x + b.x) / 2, my: (a.y + b.y) / 2, x: view.x, y: view.y, s: view.s};
      if (drag && drag.mode !== "pan") clearGhosts();
      drag = null;
    } else if (pointers.size === 1) {
      document.body.classList.add("pointing");
      const sel = window.getSelection && window.getSelection();
      if (sel && sel.rangeCount) sel.removeAllRanges();
      const p = toBoard(e);
      let hit = cardAt(p), mode = "pan", grabbed = null;
      if (e.target.closest(".handle")) mode = "resize";
      else if (e.target.closest(".wiredot")) { mode = "wire"; hit = outline.get([...selection][0]); }
      else if (e.button !== 0) mode = "pan";
      else if (commenting) mode = "pan";
      else if (e.shiftKey && !hit) mode = "marquee";
      // A node of the selected diagram moves inside it (diagram nodes below).
      else if ((grabbed = grabNode(e, hit, p))) mode = "node";
      // A finger pans: moving by touch waits for a long press (longPress below).
      else if (hit && canEdit() && e.pointerType !== "touch" && (!FRAMES.has(hit.kind) || selection.has(hit.id))) mode = "move";
      drag = {x: e.clientX, y: e.clientY, vx: view.x, vy: view.y, id: e.pointerId, moved: false, mode, hit, shift: e.shiftKey, from: p};
      if (mode === "node") drag.node = grabbed;
      if (e.pointerType === "touch" && mode === "pan" && hit && canEdit() && (!FRAMES.has(hit.kind) || selection.has(hit.id))) longPress(drag);
    }
  });
  // A finger held still on a card for LONG_PRESS_MS picks it up: the drag that follows
  // moves it (and the selection) instead of panning; a finger that moves first pans.
  const LONG_PRESS_MS = 450, TOUCH_SLOP = 10;
  function longPress(d) {
    d.press = setTimeout(() => {
      if (drag !== d || d.moved) return;
      d.mode = "move";
      d.moved = true;
      boardEl.setPointerCapture(d.id);
      startGesture(d);
      moveStep(d, 0, 0, false);
      document.body.dataset.longPress = String(d.hit.id);
      if (navigator.vibrate) navigator.vibrate(15);
    }, LONG_PRESS_MS);
  }
  function startGesture(d) {
    if (d.mode === "move") {
      if (!selection.has(d.hit.id)) select([d.hit.id], d.shift);
      d.cards = movers();
      boardEl.classList.add("moving");
    } else if (d.mode === "resize") {
      d.cards = movers().slice(0, 1);
      d.resize = true;
    } else if (d.mode === "pan") boardEl.classList.add("panning");
  }
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
      // A finger wobbles: it pans only past a wider slop than a mouse's.
      if (!drag.moved && Math.hypot(dx, dy) < (e.pointerType === "touch" ? TOUCH_SLOP : 4)) return;
      clearTimeout(drag.press);
      if (!drag.moved) { drag.moved = true; boardEl.setPointerCapture(drag.id); startGesture(drag); }
      // Alt turns snapping off for a free placement.
      if (drag.mode === "move") moveStep(drag, dx / view.s, dy / view.s, !e.altKey);
      else if (drag.mode === "resize") resizeStep(drag, dx / view.s, dy / view.s, !e.altKey);
      else if (drag.mode === "marquee") marqueeStep(drag, toBoard(e));
      else if (drag.mode === "wire") wireStep(drag, toBoard(e));
      else if (drag.mode === "node") nodeStep(drag, dx / view.s, dy / view.s);
      else setView(drag.vx - dx / view.s, drag.vy - dy / view.s, view.s);
    }
  });
  function release(e) {
    const d = drag;
    if (d) clearTimeout(d.press);
    pointers.delete(e.pointerId);
    if (pointers.size < 2) pinch = null;
    if (!pointers.size) { drag = null; boardEl.classList.remove("panning", "moving"); document.body.classList.remove("pointing"); }
    if (!d || d.id !== e.pointerId || e.type === "pointercancel") { if (d && d.mode !== "pan") clearGhosts(); return; }
    if (!d.moved) {
      if (d.mode === "resize" || d.mode === "wire") return;
      if (commenting) { dropPin(d.from); return; }
      const onWire = !d.shift && (!d.hit || FRAMES.has(d.hit.kind)) ? wireAt(d.from, e.pointerType === "touch") : null;
      if (onWire != null) pickWire(onWire);
      else if (d.hit) select([d.hit.id], d.shift);
      else if (!d.shift) clearSelection();
      return;
    }
    if (d.mode === "move" || d.mode === "resize") { finish(d); openDock([...selection]); }
    else if (d.mode === "node") nodeDrop(d).catch(failed);
    else if (d.mode === "marquee") marqueeEnd(d);
    else if (d.mode === "wire") {
      clearGhosts();
      const to = cardAt(toBoard(e));
      if (to && to.id !== d.hit.id && !FRAMES.has(to.kind)) connect(d.hit.id, to.id).catch(failed);
    }
  }
  boardEl.addEventListener("pointerup", release);
  boardEl.addEventListener("pointercancel", release);
  boardEl.addEventListener("wheel", (e) => {
    // A long comment thread scrolls in its popover; the board stays put.
    if (e.target.closest && e.target.closest("#cpop")) return;
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
  // Keys on the selection: arrows move it (Shift: bigger steps; Alt: resize), Delete
  // removes it, Escape clears it. Without a selection the arrows pan.
  function selectionKey(e) {
    if (e.key === "Escape" && (selection.size || trashed.size || pickedWire != null)) { clearSelection(); return true; }
    if (pickedWire != null && !selection.size && !e.ctrlKey && !e.metaKey) {
      if ((e.key === "Delete" || e.key === "Backspace") && canEditWires()) { removeWires([pickedWire], {}).catch(failed); return true; }
      // Enter goes to the wire's label in the inspector.
      if (e.key === "Enter") { const el = $("wire-label"); if (el && !el.disabled) { el.focus(); el.select(); return true; } }
    }
    if (!selection.size || e.ctrlKey || e.metaKey) return false;
    if (e.key === "Delete" || e.key === "Backspace") { removeSelected(); return true; }
    const d = e.shiftKey ? BIG_STEP : STEP;
    const by = {ArrowLeft: [-d, 0], ArrowRight: [d, 0], ArrowUp: [0, -d], ArrowDown: [0, d]}[e.key];
    if (!by || !canEdit()) return false;
    nudgeBy(by[0], by[1], e.altKey);
    return true;
  }
  document.addEventListener("keydown", (e) => {
    if (e.target.closest && e.target.closest("input, textarea, select, [contenteditable], dialog")) return;
    // Enter and Space on a button press that button (a wire listed in the inspector, say).
    if ((e.key === "Enter" || e.key === " ") && e.target.closest && e.target.closest("button, a")) return;
    // Ctrl/Cmd+Z undoes the person's last action here, Shift+Ctrl/Cmd+Z (or Ctrl+Y) redoes it.
    if ((e.ctrlKey || e.metaKey) && !e.altKey && /^[zy]$/i.test(e.key)) {
      e.preventDefault();
      undoRedo(e.key.toLowerCase() === "z" && !e.shiftKey).catch(failed);
      return;
    }
    // Ctrl/Cmd+C copies the selected cards, Ctrl/Cmd+D duplicates them (Ctrl/Cmd+V is the paste event).
    // Text picked on the page (in a panel, say) is copied as text, as ever.
    const picked = window.getSelection && window.getSelection();
    const textPicked = picked && picked.rangeCount && !picked.isCollapsed;
    if ((e.ctrlKey || e.metaKey) && !e.altKey && !e.shiftKey && (e.key === "c" || e.key === "C") && selection.size && !textPicked) {
      e.preventDefault();
      copySelection().catch(failed);
      return;
    }
    if ((e.ctrlKey || e.metaKey) && !e.altKey && !e.shiftKey && (e.key === "g" || e.key === "G")) {
      e.preventDefault();
      if (selection.size) frameSelection().catch(failed);
      return;
    }
    if ((e.ctrlKey || e.metaKey) && !e.altKey && !e.shiftKey && (e.key === "d" || e.key === "D")) {
      e.preventDefault();
      if (selection.size) duplicateSelection().catch(failed);
      return;
    }
    if (!e.altKey && !e.ctrlKey && !e.metaKey && commentKey(e)) { e.preventDefault(); return; }
    if (selectionKey(e)) { e.preventDefault(); return; }
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    // N starts a note where the pointer is (or mid-view), S a shape; Enter edits the
    // selected text, note or shape label; W wires the two selected cards, first to second.
    if (e.key === "n" || e.key === "N") { e.preventDefault(); startNote(pointerAt()); return; }
    if (e.key === "s" || e.key === "S") { e.preventDefault(); startShape(pointerAt()); return; }
    if (e.key === "Enter" && selection.size === 1) { e.preventDefault(); editCard([...selection][0]).catch(failed); return; }
    if ((e.key === "w" || e.key === "W") && selection.size === 2) { e.preventDefault(); const [a, b] = [...selection]; connect(a, b).catch(failed); return; }
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
    const thread = q.get("comment") || (/^#comment=(\d+)$/.exec(h) || [])[1];
    if (thread && /^\d+$/.test(thread)) return {comment: Number(thread)};
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
    if (want.comment) showComment(want.comment);
    else if (want.annotation) showFinding(want.annotation);
    else if (want.card) focusCard(want.card);
    else if (want.at) centerOn(want.at[0], want.at[1], 1);
  });
  async function start() {
    let out;
    // The questions come with the outline: their panel takes room from the board that
    // fitting measures.
    const questionsRead = op("get", {kind: "questions", board: SLUG}).catch((err) => err);
    const findingsRead = op("get", {kind: "annotations", board: SLUG}).catch((err) => err);
    const commentsRead = readComments().catch((err) => err);
    try {
      // update_cards: moving, resizing, deleting and restoring cards by hand.
      // compose_board: creating cards and wires by hand.
      out = await op("board_outline", {board: SLUG, ops: [...new Set([...Object.values(ACTIONS).map((a) => a.op), "update_cards", "update_edges", "compose_board", "upload_files", "card_history", ...COMMENT_OPS])]});
    } catch (err) {
      if (err instanceof ApiError) return noAccess(err);
      throw err;
    }
    readOutline(out);
    await loadWires().catch(failed);
    keepHistory(history());
    if (title !== SLUG) { $("title").textContent = title; document.title = title + " · layoutkit"; }
    const asked_ = await questionsRead;
    if (asked_ instanceof Error) failed(asked_);
    else { for (const q of asked_.questions) questions.set(q.id, q); drawQuestions(); }
    const found = await findingsRead;
    if (found instanceof Error) failed(found);
    else { for (const a of found.annotations) findings.set(a.id, a); drawFindings(); }
    const threads = await commentsRead;
    if (threads instanceof Error) failed(threads);
    else if (threads) { for (const c of threads.comments) comments.set(c.id, c); }
    $("comment-tool").hidden = !canComment();
    drawComments();
    const want = asked();
    if (want.comment) await showComment(want.comment);
    else if (want.annotation) await showFinding(want.annotation);
    else if (want.card) focusCard(want.card);
    else if (want.at) centerOn(want.at[0], want.at[1], 1);
    else fit();
    await faces(true);
    listen();
    live();
  }
  start().catch(failed);
})();
