"""Reader for Mermaid ``stateDiagram`` / ``stateDiagram-v2`` text."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from layoutkit.diagram._mermaid_common import (
    broken,
    clean_label,
    finding,
    note,
    style_paint,
    tone_for_style,
)

_SHAPES = {"start": "start", "end": "end", "fork": "fork", "join": "fork", "choice": "choice"}
_DIRECTIONS = {"TB": "TD", "TD": "TD", "BT": "TD", "LR": "LR", "RL": "LR"}


class _Reader:
    def __init__(self) -> None:
        self.states: dict[str, dict[str, Any]] = {}
        self.transitions: list[dict[str, Any]] = []
        # Open composites and regions, innermost last: {"id", "regions": [...], "members": [...]}.
        self.stack: list[dict[str, Any]] = []
        self.divider = 0
        self.region = 0
        self.direction = "TD"
        self.class_defs: dict[str, list[str]] = {}
        self.classes: dict[str, list[str]] = {}
        # ``style`` lines per state, applied after its classes as in Mermaid.
        self.styles: dict[str, list[str]] = {}
        # ``note left of / right of``: {"state", "side", "text", "parent"} in source order.
        self.notes: list[dict[str, Any]] = []
        self.diagnostics: list[dict[str, Any]] = []

    @property
    def parent(self) -> str | None:
        return self.stack[-1]["id"] if self.stack else None

    def state(self, sid: str, kind: str = "state") -> dict[str, Any]:
        st = self.states.get(sid)
        if st is None:
            st = {"id": sid, "kind": kind, "label": sid, "parent": self.parent}
            self.states[sid] = st
            if self.stack:
                self.stack[-1]["members"].append(sid)
        elif kind != "state":
            st["kind"] = kind
        return st

    def marker(self, start: bool) -> str:
        sid = f"{self.parent or 'root'}_{'start' if start else 'end'}"
        self.state(sid, "start" if start else "end")
        return sid

    def open(self, sid: str) -> None:
        st = self.state(sid, "composite")
        st["kind"] = "composite"
        self.stack.append({"id": sid, "members": [], "regions": []})

    def divide(self) -> None:
        if not self.stack:
            raise ValueError("'--' outside a composite state")
        # The states read since the last divider form a region; Mermaid names it divider-id-N.
        self.divider += 1
        self._wrap_region(self.stack[-1], f"divider-id-{self.divider}")

    def _wrap_region(self, frame: dict[str, Any], rid: str) -> None:
        moved = [m for m in frame["members"] if m not in frame["regions"]]
        self.states[rid] = {"id": rid, "kind": "region", "label": "", "parent": frame["id"]}
        members = []
        for m in moved:
            new_id = m
            for suffix in ("_start", "_end"):
                if m == frame["id"] + suffix:
                    new_id = rid + suffix
            if new_id != m:
                st = self.states.pop(m)
                st["id"] = new_id
                self.states[new_id] = st
                for t in self.transitions:
                    t["from"] = new_id if t["from"] == m else t["from"]
                    t["to"] = new_id if t["to"] == m else t["to"]
            self.states[new_id]["parent"] = rid
            members.append(new_id)
        self.states[rid]["members"] = members
        frame["regions"].append(rid)
        frame["members"] = list(frame["regions"])

    def close(self) -> None:
        if not self.stack:
            raise ValueError("'}' without an open composite state")
        frame = self.stack[-1]
        if frame["regions"]:
            self.region += 1
            self._wrap_region(frame, f"region-{self.region}")
        self.stack.pop()
        if not frame["members"]:
            # A composite with an empty body (or only a direction) is a plain state.
            self.states[frame["id"]]["kind"] = "state"
            return
        self.states[frame["id"]]["members"] = frame["members"]


# A token: (kind, text, source line).
_Token = tuple[str, str, int]

_ENTITY_CODE = re.compile(r"#\w+;")
# Mermaid's state lexer, rule by rule in its order (case-insensitive); ``None`` kinds are skipped.
_LEX = [
    (re.compile(r"[^\n]*direction\s+(TB|BT|RL|LR)[^\n]*", re.I), "DIR"),
    (re.compile(r"%%[^\n]*"), None),
    (re.compile(r"\n+"), "NL"),
    (re.compile(r"[^\S\n]+"), None),
    (re.compile(r"#[^\n]*"), None),
    (re.compile(r"scale\s+\d+(\s+width)?", re.I), None),
    (re.compile(r"accTitle\s*:[^\n]*", re.I), None),
    (re.compile(r"accDescr\s*:[^\n]*", re.I), None),
    (re.compile(r"accDescr\s*\{[^}]*\}", re.I), None),
    (re.compile(r"classDef[^\S\n]+(\w+)(?:[^\S\n]+([^\n]*))?", re.I), "CLASSDEF"),
    (
        re.compile(r"class[^\S\n]+(\w+(?:[^\S\n]*,[^\S\n]*\w+)*)(?:[^\S\n]+([^\n]*))?", re.I),
        "CLASS",
    ),
    (re.compile(r"style[^\S\n]+([\w,]+)(?:[^\S\n]+([^\n]*))?", re.I), "STYLE"),
    (re.compile(r"click[^\S\n]+[^\n]*", re.I), "CLICK"),
    (re.compile(r"state\s+", re.I), "STATE"),
    (re.compile(r"note\s+", re.I), "NOTE"),
    (re.compile(r"hide empty description", re.I), None),
    (re.compile(r"\[\*\]"), "EDGE_STATE"),
    (re.compile(r"[^:\n\s\-{}]+"), "ID"),
    (re.compile(r"[^\S\n]*:[^:\n;]+"), "DESCR"),
    (re.compile(r"-->"), "ARROW"),
    (re.compile(r"--"), "CONCURRENT"),
    (re.compile(r":::"), "STYLE_SEP"),
    (re.compile(r"\{"), "OPEN"),
    (re.compile(r"\}"), "CLOSE"),
]
_KIND_MARK = re.compile(r"[^\n]*?(<<|\[\[)(fork|join|choice)(>>|\]\])", re.I)
_AS = re.compile(r"\s*as\s+", re.I)


def _tokens(text: str, lines: list[int]) -> list[tuple[str, str, int]]:
    """Tokens of a state diagram body; ``lines[i]`` is the source line of character i."""
    out: list[tuple[str, str, int]] = []
    i, n = 0, len(text)
    while i < n:
        line = lines[i]
        hit = next(
            ((m, kind) for rx, kind in _LEX if (m := rx.match(text, i)) and m.end() > i), None
        )
        if hit is None:
            raise _Bad(line, f"cannot read {text[i : i + 30]!r}")
        m, kind = hit
        i = m.end()
        if kind == "DIR":
            out.append(("DIR", m.group(1).upper(), line))
        elif kind == "STATE":
            i = _state_tokens(text, i, lines, out)
        elif kind == "NOTE":
            i = _note_tokens(text, i, lines, out)
        elif kind == "DESCR":
            out.append(("DESCR", m.group(0).strip()[1:].strip(), line))
        elif kind in ("CLASSDEF", "CLASS", "STYLE"):
            out.append((kind, f"{m.group(1)}\x02{(m.group(2) or '').strip()}", line))
        elif kind is not None:
            out.append((kind, m.group(0), line))
    return out


def _state_tokens(text: str, i: int, lines: list[int], out: list[tuple[str, str, int]]) -> int:
    """The rest of a ``state`` statement (the lexer's STATE mode)."""
    line = lines[min(i, len(lines) - 1)]
    km = _KIND_MARK.match(text, i)
    if km:
        out.append(("KIND", f"{km.group(2).lower()}:{text[i : km.start(1)].strip()}", line))
        return km.end()
    n = len(text)
    while i < n:
        ch = text[i]
        if ch == "\n":
            return i + 1
        if ch == "{":
            out.append(("OPEN", "{", line))
            return i + 1
        if ch in " \t":
            i += 1
        elif ch == "#":
            i = _run_end(text, i, "\n")
        elif ch == '"':
            i = _state_description(text, i, line, out)
        else:
            j = _run_end(text, i, " \t\n{")
            out.append(("COMPOSIT", text[i:j], line))
            i = j
    return i


def _run_end(text: str, i: int, stops: str) -> int:
    """The first index from ``i`` on that holds one of ``stops`` (or the end)."""
    while i < len(text) and text[i] not in stops:
        i += 1
    return i


def _state_description(text: str, i: int, line: int, out: list[tuple[str, str, int]]) -> int:
    """``"text"`` at ``i``, with the ``as id`` that may follow it."""
    end = text.find('"', i + 1)
    if end < 0:
        raise _Bad(line, "unterminated state description")
    out.append(("STATE_DESCR", text[i + 1 : end], line))
    i = end + 1
    am = _AS.match(text, i)
    if am:
        j = _run_end(text, am.end(), "\n{")
        out.append(("AS_ID", text[am.end() : j], line))
        i = j
    return i


def _note_tokens(text: str, i: int, lines: list[int], out: list[tuple[str, str, int]]) -> int:
    """A ``note left of X : text`` or ``note right of X`` ... ``end note`` statement.

    The token value is ``side \x02 state \x02 text``.
    """
    line = lines[min(i, len(lines) - 1)]
    m = re.compile(r"(left|right) of\s*([^:\n\s\-]+)", re.I).match(text, i)
    if m:
        i = m.end()
        head = f"{m.group(1).lower()}\x02{m.group(2)}\x02"
        one = re.compile(r"[^\S\n]*:([^:\n;]+)").match(text, i)
        if one:
            out.append(("NOTE", head + one.group(1), line))
            return one.end()
        # As Mermaid reads it: the text runs to an ``end note`` that starts a line.
        end = re.compile(r"\n[^\S\n]*end note", re.I).search(text, i)
        if end is None:
            raise _Bad(line, "note is never closed with 'end note'")
        out.append(("NOTE", head + text[i : end.start()], line))
        return end.end()
    if text.startswith('"', i):
        # A floating note: ``note "text" as N1``; Mermaid keeps no state for it.
        end = text.find('"', i + 1)
        if end < 0:
            raise _Bad(line, "unterminated note text")
        j = text.find("\n", end)
        return len(text) if j < 0 else j
    raise _Bad(line, "a note needs 'left of', 'right of' or a quoted text")


class _Bad(ValueError):
    def __init__(self, line: int, message: str) -> None:
        super().__init__(message)
        self.line = line


def read_state(lines: list[tuple[int, str]], meta: dict[str, str]) -> dict[str, Any]:
    """Convert state diagram text (header already split off) into a diagram payload.

    The body is read with the tokens of Mermaid's state grammar, so statements may
    share a line, a composite's ``{`` may start the next line and ``#``/``%%``
    comments, ``scale``, ``hide empty description`` and floating notes are skipped
    as Mermaid skips them. Entity codes (``#quot;``) are kept apart from comments.
    """
    codes: list[str] = []

    def hide(m: re.Match[str]) -> str:
        codes.append(m.group(0))
        return f"\x00{len(codes) - 1}\x01"

    text_parts: list[str] = []
    where: list[int] = []
    for number, raw in lines:
        piece = _ENTITY_CODE.sub(hide, raw) + "\n"
        text_parts.append(piece)
        where.extend([number] * len(piece))
    text = "".join(text_parts)
    last = lines[-1][0] if lines else 1
    try:
        tokens = _tokens(text, where)
        r = _Parser(tokens, codes).run()
    except _Bad as exc:
        raise broken(
            "the state diagram text cannot be read", [finding(exc.line, str(exc))]
        ) from None
    except ValueError as exc:
        raise broken("the state diagram text cannot be read", [finding(last, str(exc))]) from None
    return _to_payload(r, r.direction, meta)


class _Parser:
    """Statements of the state grammar over the token list, fed to a :class:`_Reader`."""

    def __init__(self, tokens: list[tuple[str, str, int]], codes: list[str]) -> None:
        self.t = tokens
        self.i = 0
        self.codes = codes
        self.r = _Reader()
        self.r.direction = "TD"

    def text(self, raw: str) -> str:
        return clean_label(re.sub(r"\x00(\d+)\x01", lambda m: self.codes[int(m.group(1))], raw))

    def peek(self, k: int = 0) -> tuple[str, str, int]:
        j = self.i + k
        return self.t[j] if j < len(self.t) else ("EOF", "", self.t[-1][2] if self.t else 1)

    def take(self) -> tuple[str, str, int]:
        tok = self.peek()
        self.i += 1
        return tok

    def run(self) -> _Reader:
        while self.peek()[0] != "EOF":
            self.statement()
        if self.r.stack:
            raise _Bad(self.peek()[2], f"composite {self.r.stack[-1]['id']!r} is never closed")
        return self.r

    def ident(self) -> tuple[str, bool] | None:
        """An idStatement: (id, is [*]) with an optional ``:::class``."""
        kind, value, _ = self.peek()
        if kind not in ("ID", "EDGE_STATE"):
            return None
        self.take()
        return self._ident_tail(kind, value)

    def _ident_tail(self, kind: str, value: str) -> tuple[str, bool]:
        """The id of a taken ID/EDGE_STATE token, reading the ``:::class`` after it."""
        if self.peek()[0] == "STYLE_SEP" and self.peek(1)[0] == "ID":
            if kind == "ID":
                self.r.classes.setdefault(self.text(value), []).append(self.peek(1)[1])
            self.i += 2
        return self.text(value) if kind == "ID" else value, kind == "EDGE_STATE"

    def statement(self) -> None:
        tok = self.peek()
        handler = _STATEMENTS.get(tok[0])
        if handler is None:
            raise _Bad(tok[2], f"cannot read {tok[1][:30]!r}")
        self.take()
        handler(self, tok)

    def on_newline(self, tok: _Token) -> None:
        """An empty statement: taken already, it leaves nothing to read."""

    def on_class_def(self, tok: _Token) -> None:
        name, _, props = tok[1].partition("\x02")
        self.r.class_defs[name] = _props(props)

    def on_class(self, tok: _Token) -> None:
        ids, _, name = tok[1].partition("\x02")
        if not name.strip():
            return
        for sid in ids.split(","):
            self.r.classes.setdefault(sid.strip(), []).append(name.strip())

    def on_style(self, tok: _Token) -> None:
        ids, _, props = tok[1].partition("\x02")
        for sid in ids.split(","):
            if sid.strip():
                self.r.styles.setdefault(sid.strip(), []).extend(_props(props))

    def on_click(self, tok: _Token) -> None:
        self.r.diagnostics.append(note("ignored_click", "click has no payload equivalent", tok[2]))

    def on_direction(self, tok: _Token) -> None:
        # Only the diagram's own direction counts; a composite's is not drawn.
        if not self.r.stack:
            self.r.direction = _DIRECTIONS.get(tok[1], "TD")

    def on_divider(self, tok: _Token) -> None:
        try:
            self.r.divide()
        except ValueError as exc:
            raise _Bad(tok[2], str(exc)) from None

    def on_close(self, tok: _Token) -> None:
        try:
            self.r.close()
        except ValueError as exc:
            raise _Bad(tok[2], str(exc)) from None

    def on_kind(self, tok: _Token) -> None:
        mark, _, sid = tok[1].partition(":")
        self.r.state(self.text(sid), mark)

    def on_note(self, tok: _Token) -> None:
        # A note names its state, and Mermaid adds that state when it is new.
        side, sid, body = tok[1].split("\x02", 2)
        st = self.r.state(self.text(sid))
        self.r.notes.append({"state": st["id"], "side": side, "text": self.text(body)})

    def on_described_state(self, tok: _Token) -> None:
        nk, nv, _ = self.peek()
        if nk != "AS_ID":
            # ``state "text"`` with no ``as id`` keeps no state, as in Mermaid.
            return
        self.take()
        sid, _, desc = nv.partition(":")
        st = self.r.state(self.text(sid))
        label = self.text(tok[1])
        st["label"] = f"{label}\n{self.text(desc)}" if desc.strip() else label
        if self.peek()[0] == "OPEN":
            self.take()
            self.r.open(st["id"])

    def on_composite(self, tok: _Token) -> None:
        following = self.i
        while self.peek()[0] == "NL" and self.peek(1)[0] == "OPEN":
            self.take()
        if self.peek()[0] == "OPEN":
            self.take()
            self.r.open(self.text(tok[1]))
        else:
            # A bare ``state X`` reduces to a plain string in Mermaid's grammar:
            # it adds no state of its own.
            self.i = following

    def on_ident(self, tok: _Token) -> None:
        """A state on its own, with a description, or the source of a transition."""
        a, a_marker = self._ident_tail(tok[0], tok[1])
        follower = self.peek()[0]
        if follower == "ARROW":
            self.take()
            self._transition(a, a_marker, tok[2])
        elif follower == "DESCR":
            desc = self.text(self.take()[1])
            if a_marker:
                return
            st = self.r.state(a)
            st["label"] = desc if st["label"] == st["id"] else f"{st['label']}\n{desc}"
        elif not a_marker:
            self.r.state(a)

    def _transition(self, a: str, a_marker: bool, line: int) -> None:
        r = self.r
        got = self.ident()
        if got is None:
            raise _Bad(line, "a transition needs a target state")
        b, b_marker = got
        label = ""
        if self.peek()[0] == "DESCR":
            label = self.text(self.take()[1])
        src = r.marker(True) if a_marker else r.state(a)["id"]
        dst = r.marker(False) if b_marker else r.state(b)["id"]
        r.transitions.append({"from": src, "to": dst, "label": label})

    def on_stray_open(self, tok: _Token) -> None:
        raise _Bad(tok[2], "'{' without a state")


# Token kind that starts a statement -> its rule; any other token cannot start one.
_STATEMENTS: dict[str, Callable[[_Parser, _Token], None]] = {
    "NL": _Parser.on_newline,
    "CLASSDEF": _Parser.on_class_def,
    "CLASS": _Parser.on_class,
    "STYLE": _Parser.on_style,
    "CLICK": _Parser.on_click,
    "DIR": _Parser.on_direction,
    "CONCURRENT": _Parser.on_divider,
    "CLOSE": _Parser.on_close,
    "KIND": _Parser.on_kind,
    "NOTE": _Parser.on_note,
    "STATE_DESCR": _Parser.on_described_state,
    "COMPOSIT": _Parser.on_composite,
    "ID": _Parser.on_ident,
    "EDGE_STATE": _Parser.on_ident,
    "OPEN": _Parser.on_stray_open,
}


def _props(text: str) -> list[str]:
    """``fill:#f00,stroke:#333;`` as its ``key:value`` parts."""
    return [p.strip() for p in text.strip().rstrip(";").split(",") if p.strip()]


def _style(r: _Reader, sid: str) -> list[str]:
    """The style properties of a state: its classes' (``default`` first), then its
    ``style`` lines, in the order CSS would apply them."""
    names = ["default", *r.classes.get(sid, [])]
    props = [p for name in names for p in r.class_defs.get(name, [])]
    return props + r.styles.get(sid, [])


def _tone(r: _Reader, sid: str) -> str | None:
    """The tone nearest the fill of a state's style."""
    props = _style(r, sid)
    # Later classes win, as later CSS rules do: read the props last-first.
    return tone_for_style(list(reversed(props))) if props else None


def _to_payload(r: _Reader, direction: str, meta: dict[str, str]) -> dict[str, Any]:
    groups_of = {sid for sid, st in r.states.items() if st["kind"] in ("composite", "region")}

    def node(st: dict[str, Any]) -> dict[str, Any]:
        kind = st["kind"]
        title = {"start": "Start", "end": "End"}.get(kind, st["label"])
        out: dict[str, Any] = {"id": st["id"], "title": title}
        if kind in _SHAPES:
            out["shape"] = _SHAPES[kind]
        tone = _tone(r, st["id"])
        if tone:
            out["tone"] = tone
        # The author's own colours, weight and slant, drawn where they stay readable
        # (the tone above is what a reader without them sees).
        paint = style_paint(_style(r, st["id"]))
        if paint:
            out["paint"] = paint
        return out

    notes_in = _place_notes(r)

    def group(st: dict[str, Any]) -> dict[str, Any]:
        g: dict[str, Any] = {"id": st["id"], "title": st["label"], "nodes": [], "groups": []}
        for m in st.get("members", []):
            child = r.states[m]
            if m in groups_of:
                g["groups"].append(group(child))
            else:
                g["nodes"].append(node(child))
        g["nodes"] += notes_in.get(st["id"], [])
        return g

    payload: dict[str, Any] = {}
    if meta.get("title"):
        payload["title"] = meta["title"]
    payload["dir"] = direction
    payload["nodes"] = [
        node(st) for st in r.states.values() if st["parent"] is None and st["id"] not in groups_of
    ]
    payload["nodes"] += notes_in.get(None, [])
    payload["groups"] = [
        group(st) for st in r.states.values() if st["parent"] is None and st["id"] in groups_of
    ]
    edges = []
    for t in r.transitions:
        edge: dict[str, Any] = {"from": t["from"], "to": t["to"]}
        if t["label"]:
            edge["label"] = t["label"]
        edges.append(edge)
    for n in r.notes:
        edges.append(note_tie(n["id"], n["state"], n["side"]))
    payload["edges"] = edges
    if r.diagnostics:
        payload["diagnostics"] = r.diagnostics
    return payload


def note_tie(note_id: str, anchor: str, side: str) -> dict[str, Any]:
    """The edge that ties a note to its state: dotted, no arrowheads, from the note on
    the left and to the note on the right (the layout reads the side from it)."""
    ends = (note_id, anchor) if side == "left" else (anchor, note_id)
    return {"from": ends[0], "to": ends[1], "style": "dotted", "head": "none"}


def _place_notes(r: _Reader) -> dict[str | None, list[dict[str, Any]]]:
    """Note nodes by the container they sit in: their state's (a composite's own parent
    when the note is on a composite). Gives each note its id, Mermaid's ``X----note-k``."""
    taken = set(r.states)
    by_parent: dict[str | None, list[dict[str, Any]]] = {}
    for k, n in enumerate(r.notes):
        nid = f"{n['state']}----note-{k}"
        while nid in taken:
            nid += "_"
        taken.add(nid)
        n["id"] = nid
        parent = r.states[n["state"]]["parent"]
        by_parent.setdefault(parent, []).append({"id": nid, "type": "note", "title": n["text"]})
    return by_parent
