"""A diagram card's payload as Mermaid text: a flowchart, a sequence diagram or a
``stateDiagram-v2``, whichever the payload is.

The text is written from the payload as it stands (not from any text it was imported
from), so a card edited since its import goes out as it is drawn now. Which family:

- a payload whose ``sequence`` record still matches its lane and edges (the record
  :func:`layoutkit.diagram.sequence_layout.usable` accepts, the one the face is drawn
  from) is a sequence diagram;
- a payload in the shape the state import writes (start and end markers named
  ``<parent>_start`` / ``<parent>_end``, only shapes a state diagram has, notes tied to
  their states) is a state diagram;
- anything else, hand-written payloads included, is a flowchart.

Pure: no storage; :class:`MermaidText` says which family was written and which
Mermaid id each payload id got (an id Mermaid cannot read is renamed).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import attrs

from layoutkit.diagram import sequence_layout
from layoutkit.diagram.model import build_model
from layoutkit.travel._model import TravelError

#: The families :func:`to_mermaid` writes, by the header word it writes.
HEADERS = {"flowchart": "flowchart", "sequence": "sequenceDiagram", "state": "stateDiagram-v2"}


@attrs.frozen(slots=True)
class MermaidText:
    """An export: the text, its family, and each payload node or group id's Mermaid id."""

    text: str
    family: str
    ids: dict[str, str]
    nodes: int
    edges: int


def to_mermaid(payload: dict[str, Any]) -> MermaidText:
    """Mermaid text for a diagram payload.

    Raises :class:`TravelError` ``empty_diagram`` (field ``payload.nodes``) for a
    payload with no node to write.
    """
    if not isinstance(payload, dict) or not any(True for _ in _all_nodes(payload)):
        raise TravelError(
            "empty_diagram", "the diagram has no node to write", field="payload.nodes"
        )
    model = build_model(payload)
    seq = sequence_layout.usable(payload, model)
    if seq is not None:
        return _Sequence(payload, seq).write()
    if _reads_as_state(payload):
        return _State(payload).write()
    return _Flowchart(payload).write()


# ---------------------------------------------------------------- shared


def _all_nodes(holder: dict[str, Any]) -> Iterator[dict[str, Any]]:
    for n in holder.get("nodes") or []:
        if isinstance(n, dict):
            yield n
    for g in holder.get("groups") or []:
        if isinstance(g, dict):
            yield from _all_nodes(g)
    for lane in holder.get("lanes") or []:
        if isinstance(lane, dict):
            yield from _all_nodes(lane)


def _groups(holder: dict[str, Any]) -> list[dict[str, Any]]:
    return [g for g in holder.get("groups") or [] if isinstance(g, dict)]


def _nodes(holder: dict[str, Any]) -> list[dict[str, Any]]:
    return [n for n in holder.get("nodes") or [] if isinstance(n, dict)]


def _text(value: Any) -> str:
    return "" if value is None else str(value)


def escape(text: str, extra: str = "") -> str:
    """``text`` for inside a quoted Mermaid label: what Mermaid (and the import) would
    read as markup becomes an entity code, a line break ``<br>``.

    ``"`` ends the string, ``#name;`` and ``&name;`` are entities, ``<`` opens HTML,
    a backtick fence makes a markdown string; ``extra`` lists characters a family
    reads as syntax even there (a state transition's ``:``, a sequence text's ``;``).
    Where ``;`` is syntax, ``&``, ``<`` and ``>`` go as ``#38;``-style codes (an HTML
    entity's ``;`` would end the statement).
    """
    out = []
    html_ok = ";" not in extra
    for ch in text:
        if ch in "&<>" and not html_ok:
            out.append(f"#{ord(ch)};")
        elif ch == "&":
            out.append("&amp;")
        elif ch == "<":
            out.append("&lt;")
        elif ch == ">":
            out.append("&gt;")
        elif ch == '"':
            out.append("#quot;")
        elif ch in "#`" or ch in extra:
            out.append(f"#{ord(ch)};")
        elif ch == "\n":
            out.append("<br>")
        elif ch in "\r\t":
            out.append(" ")
        else:
            out.append(ch)
    return "".join(out)


def _title_block(payload: dict[str, Any]) -> list[str]:
    """Front matter naming the title, unless the title is one derived from the text's
    type and not drawn (``showTitle`` false)."""
    title = payload.get("title")
    if not isinstance(title, str) or not title.strip() or payload.get("showTitle") is False:
        return []
    flat = " ".join(title.split())
    # YAML quoting the import reads back too: it drops the outer quotes, unescaping none.
    if '"' in flat and "'" not in flat:
        quoted = f"'{flat}'"
    else:
        quoted = json.dumps(flat, ensure_ascii=False)
    return ["---", f"title: {quoted}", "---"]


# Words the flowchart grammar reads as keywords wherever a node id may stand.
_KEYWORDS = {
    "end",
    "graph",
    "flowchart",
    "flowchart-elk",
    "subgraph",
    "style",
    "class",
    "classdef",
    "click",
    "linkstyle",
    "direction",
    "default",
    "call",
    "href",
    "acctitle",
    "accdescr",
}
_SAFE_ID = re.compile(r"[A-Za-z0-9_$]+(?:[-.][A-Za-z0-9_$]+)*\Z")
# A subgraph id no edge names may be any run without blanks, brackets, quotes or what
# ends a statement (Mermaid's own docs name one ``**Two**``).
_GROUP_ID = re.compile(r"[^\s\[\](){}\"|;%&<>#`]+\Z")


class _Ids:
    """Payload ids to Mermaid ids: an id Mermaid reads as written is kept, any other
    (spaces, quotes, a keyword, an arrow's letters) becomes ``n<k>``."""

    def __init__(self, taken: set[str]) -> None:
        self.map: dict[str, str] = {}
        self.used: set[str] = set()
        self.taken = taken
        self.k = 0

    def give(self, pid: str, safe: re.Pattern[str] = _SAFE_ID) -> str:
        if pid in self.map:
            return self.map[pid]
        ok = bool(safe.match(pid)) and pid.lower() not in _KEYWORDS and pid not in self.used
        mid = pid
        if not ok:
            while True:
                self.k += 1
                mid = f"n{self.k}"
                if mid not in self.taken and mid not in self.used:
                    break
        self.map[pid] = mid
        self.used.add(mid)
        return mid


# Payload paint key -> the CSS property a ``style`` / ``linkStyle`` line sets.
_PAINT_PROPS = (
    ("fill", "fill"),
    ("stroke", "stroke"),
    ("color", "color"),
    ("strokeWidth", "stroke-width"),
    ("strokeDasharray", "stroke-dasharray"),
    ("fontStyle", "font-style"),
)


def paint_style(paint: Any, keys: tuple[str, ...] = ()) -> str | None:
    """A node's or edge's ``paint`` as the properties of a Mermaid ``style`` line
    (``fill:#f9f,stroke-width:2px``), or None when it has none Mermaid can carry. A
    value holding a comma or a semicolon (``rgb(1,2,3)``) would split the statement:
    it is left out. ``keys`` limits the properties (an edge has no fill)."""
    if not isinstance(paint, dict):
        return None
    out = []
    for key, prop in _PAINT_PROPS:
        value = paint.get(key)
        if value is None or (keys and key not in keys):
            continue
        if key == "strokeWidth" and isinstance(value, (int, float)):
            text = f"{_num(float(value))}px"
        elif key == "strokeDasharray" and isinstance(value, list):
            text = " ".join(_num(float(v)) for v in value if isinstance(v, (int, float)))
        else:
            text = str(value)
        if not text or any(c in text for c in ",;:\n{}"):
            continue
        out.append(f"{prop}:{text}")
    return ",".join(out) or None


# ---------------------------------------------------------------- flowchart

# Payload shape -> the bracket form (opener, closer) Mermaid has had the longest.
_BRACKETS = {
    "rect": ("[", "]"),
    "round": ("(", ")"),
    "stadium": ("([", "])"),
    "subroutine": ("[[", "]]"),
    "cylinder": ("[(", ")]"),
    "circle": ("((", "))"),
    "double-circle": ("(((", ")))"),
    "diamond": ("{", "}"),
    "hexagon": ("{{", "}}"),
    "parallelogram": ("[/", "/]"),
    "parallelogram-alt": ("[\\", "\\]"),
    "trapezoid": ("[/", "\\]"),
    "trapezoid-alt": ("[\\", "/]"),
    "asymmetric": (">", "]"),
}
# Payload shape -> a Mermaid 11 ``@{ shape: … }`` name the import reads back as it.
_SHAPE_NAMES = {
    "ellipse": "ellipse",
    "text": "text",
    "notched-rect": "notch-rect",
    "lined-rect": "lin-rect",
    "divided-rect": "div-rect",
    "window-pane": "win-pane",
    "stacked-rect": "st-rect",
    "tagged-rect": "tag-rect",
    "document": "doc",
    "stacked-document": "docs",
    "lined-document": "lin-doc",
    "tagged-document": "tag-doc",
    "triangle": "tri",
    "flipped-triangle": "flip-tri",
    "hourglass": "hourglass",
    "bolt": "bolt",
    "delay": "delay",
    "h-cylinder": "h-cyl",
    "lined-cylinder": "lin-cyl",
    "curved-trapezoid": "curv-trap",
    "bow-rect": "bow-rect",
    "crossed-circle": "cross-circ",
    "notched-pentagon": "notch-pent",
    "sloped-rect": "sl-rect",
    "flag": "flag",
    "brace-left": "brace",
    "brace-right": "brace-r",
    "braces": "braces",
    "filled-circle": "f-circ",
    "start": "sm-circ",
    "end": "fr-circ",
    "fork": "fork",
    "cloud": "cloud",
    "person": "person",
    "datastore": "datastore",
    "folder": "folder",
    "bang": "bang",
    "console": "console",
    "browser": "browser",
    "bucket": "bucket",
}
# Shapes Mermaid's flowchart has no form for: the nearest one it has (a state
# diagram's choice is a decision diamond).
_NEAREST = {"choice": "diamond"}
_DIRS = {"TD": "TB", "LR": "LR", "BT": "BT", "RL": "RL"}
_MARKS = {"arrow": ">", "circle": "o", "cross": "x", "none": ""}
_TAILS = {"arrow": "<", "circle": "o", "cross": "x"}


def flowchart_link(edge: dict[str, Any]) -> str:
    """The link token of an edge: stroke from its style, marks from its style and its
    ``head``/``tail`` (Mermaid draws a start mark only when it matches the end mark,
    so another tail is left out)."""
    style = edge.get("style") or "solid"
    if style == "invisible":
        return "~~~"
    head = edge.get("head")
    tail = edge.get("tail")
    if style == "plain":
        head = "none" if head in (None, "arrow") else head
    elif style == "both":
        head, tail = "arrow", "arrow"
    elif style in ("circle", "cross"):
        head = style
    body = {"dotted": "-.-", "dashed": "-.-", "thick": "=="}.get(style, "--")
    mark = _MARKS.get(head or "arrow", ">")
    if body == "-.-" and mark:
        token = "-." + "-" + mark
    elif body == "==" and not mark:
        token = "==="
    elif body == "--" and not mark:
        token = "---"
    else:
        token = body + mark
    if tail and tail == (head or "arrow") and tail in _TAILS:
        token = _TAILS[tail] + token
    return token


class _Flowchart:
    def __init__(self, payload: dict[str, Any]) -> None:
        self.p = payload
        every = {_text(n.get("id")) for n in _all_nodes(payload)}
        self.ids = _Ids(every)
        # Edges name a node by id, or by title when it has none (as the model reads them).
        self.names: dict[str, str] = {}
        self.lines: list[str] = []
        self.count = 0
        self.styles: list[str] = []
        self.lane_k = 0
        self.ends = {
            _text(e.get(k)) for e in payload.get("edges") or [] if isinstance(e, dict)
            for k in ("from", "to")
        }  # fmt: skip

    def write(self) -> MermaidText:
        direction = "LR" if self.p.get("dir") == "LR" else "TD"
        head = [*_title_block(self.p), f"flowchart {direction}"]
        self.holder(self.p, 1)
        for lane in self.p.get("lanes") or []:
            if isinstance(lane, dict):
                # Mermaid has no swimlanes: a lane is a subgraph titled with its label.
                self.lane_k += 1
                lid = self.ids.give(f"lane{self.lane_k}")
                self.lines.append(f'    subgraph {lid} ["{escape(_text(lane.get("label")))}"]')
                self.holder(lane, 2)
                self.lines.append("    end")
        edges = 0
        for e in self.p.get("edges") or []:
            line = self.edge(e)
            if line:
                self.lines.append(line)
                # linkStyle counts the links as written.
                props = paint_style(e.get("paint"), ("stroke", "strokeWidth", "strokeDasharray"))
                if props:
                    self.styles.append(f"    linkStyle {edges} {props}")
                edges += 1
        self.lines += self.styles
        return MermaidText(
            "\n".join([*head, *self.lines]) + "\n", "flowchart", dict(self.ids.map),
            self.count, edges,
        )  # fmt: skip

    def holder(self, holder: dict[str, Any], depth: int) -> None:
        pad = "    " * depth
        for n in _nodes(holder):
            self.lines.append(pad + self.node(n))
        for g in _groups(holder):
            raw = _text(g.get("id")) or f"group{len(self.ids.map) + 1}"
            gid = self.ids.give(raw, _SAFE_ID if raw in self.ends else _GROUP_ID)
            if g.get("id"):
                self.names[_text(g["id"])] = gid
            self.lines.append(f'{pad}subgraph {gid} ["{escape(_text(g.get("title")))}"]')
            if g.get("dir") in _DIRS:
                self.lines.append(f"{pad}    direction {_DIRS[g['dir']]}")
            self.holder(g, depth + 1)
            self.lines.append(f"{pad}end")

    def node(self, n: dict[str, Any]) -> str:
        self.count += 1
        pid = _text(n.get("id"))
        title = _text(n.get("title"))
        mid = self.ids.give(pid or f"\x00{title}")
        if pid:
            self.names[pid] = mid
        else:
            self.names.setdefault(title, mid)
        props = paint_style(n.get("paint"))
        if props:
            self.styles.append(f"    style {mid} {props}")
        shape = n.get("shape") or "rect"
        shape = _NEAREST.get(shape, shape)
        text = escape(title)
        pic = n.get("picture")
        if isinstance(pic, dict) and isinstance(pic.get("src"), str) and pic["src"]:
            return f"{mid}@{{ {_picture_data(pic, text)} }}"
        if shape in _SHAPE_NAMES:
            return f'{mid}@{{ shape: {_SHAPE_NAMES[shape]}, label: "{text}" }}'
        opener, closer = _BRACKETS.get(shape, _BRACKETS["rect"])
        return f'{mid}{opener}"{text}"{closer}'

    def end(self, ref: Any) -> str | None:
        if not isinstance(ref, str):
            return None
        if ref in self.names:
            return self.names[ref]
        target = ref.partition(".")[0]
        return self.names.get(target)

    def edge(self, e: Any) -> str | None:
        if not isinstance(e, dict):
            return None
        a, b = self.end(e.get("from")), self.end(e.get("to"))
        if a is None or b is None:
            return None
        token = flowchart_link(e)
        label = e.get("label")
        if label not in (None, "") and token != "~~~":
            return f'    {a} {token}|"{escape(_text(label))}"| {b}'
        return f"    {a} {token} {b}"


# ---------------------------------------------------------------- state

_STATE_SHAPES = {None, "rect", "round", "start", "end", "fork", "choice"}
_STATE_ID = re.compile(r"[^:\s\-{}\"\[\]#;,<>%]+\Z")
_REGION_ID = re.compile(r"(divider-id|region)-\d+\Z")
_NODE_KEYS = {"id", "title", "shape", "tone", "paint", "type"}


def _note_tie(e: dict[str, Any], notes: set[str]) -> str | None:
    """The note an edge ties to its state (a dotted, headless edge touching a note)."""
    if e.get("style") != "dotted" or e.get("head") != "none":
        return None
    for end in ("from", "to"):
        if e.get(end) in notes:
            return str(e[end])
    return None


def _reads_as_state(payload: dict[str, Any]) -> bool:
    """Whether the payload has the shape the state import gives one: a start or end
    marker named after its container or a note tied to its state, states only of the
    shapes a state diagram draws, ids the state grammar reads, regions only as a
    composite's whole body, and transitions that carry nothing but a label."""
    if payload.get("lanes"):
        return False
    found = _StateScan()
    if not found.holder(payload, "root") or not (found.markers or found.notes):
        return False
    tied: set[str] = set()
    for e in payload.get("edges") or []:
        if not isinstance(e, dict):
            return False
        note = _note_tie(e, found.notes)
        if note is None:
            if not found.transition(e):
                return False
        elif note in tied:
            return False
        else:
            tied.add(note)
    return tied == found.notes


@attrs.define
class _StateScan:
    """What :func:`_reads_as_state` finds walking the containers."""

    markers: int = 0
    notes: set[str] = attrs.field(factory=set)
    shapes: dict[str, Any] = attrs.field(factory=dict)
    composites: set[str] = attrs.field(factory=set)

    def holder(self, holder: dict[str, Any], parent: str) -> bool:
        groups = _groups(holder)
        regions = [g for g in groups if _REGION_ID.match(_text(g.get("id")))]
        if regions and (len(regions) != len(groups) or _nodes(holder) or parent == "root"):
            return False
        if not all(self.node(n, parent) for n in _nodes(holder)):
            return False
        for g in groups:
            gid = _text(g.get("id"))
            if g.get("dir") or not (_STATE_ID.match(gid) or _REGION_ID.match(gid)):
                return False
            if not _REGION_ID.match(gid):
                self.composites.add(gid)
            if not self.holder(g, gid):
                return False
        return True

    def node(self, n: dict[str, Any], parent: str) -> bool:
        nid = _text(n.get("id"))
        self.shapes[nid] = n.get("shape")
        if n.get("type") == "note":
            self.notes.add(nid)
            return not set(n) - {"id", "type", "title"} and "----note-" in nid
        if set(n) - _NODE_KEYS or n.get("type") not in (None, "box"):
            return False
        if n.get("shape") in ("start", "end"):
            # A marker is written as [*]: Mermaid names it after its block.
            self.markers += 1
            return nid == f"{parent}_{n['shape']}"
        return n.get("shape") in _STATE_SHAPES and bool(_STATE_ID.match(nid))

    def transition(self, e: dict[str, Any]) -> bool:
        ends = (e.get("from"), e.get("to"))
        if set(e) - {"from", "to", "label"} or any(end in self.notes for end in ends):
            return False
        if self.shapes.get(ends[0]) == "end" or self.shapes.get(ends[1]) == "start":
            return False
        return all(end in self.shapes or end in self.composites for end in ends)


class _State:
    def __init__(self, payload: dict[str, Any]) -> None:
        self.p = payload
        self.parent: dict[str, str] = {}
        self.nodes: dict[str, dict[str, Any]] = {}
        self.groups: dict[str, dict[str, Any]] = {}
        self._index(payload, "root")
        notes = {i for i, n in self.nodes.items() if n.get("type") == "note"}
        self.ties: list[tuple[str, str, str]] = []  # (note id, state, side)
        self.moves: list[dict[str, Any]] = []
        for e in payload.get("edges") or []:
            note = _note_tie(e, notes)
            if note is None:
                self.moves.append(e)
            elif note == e["from"]:
                self.ties.append((note, str(e["to"]), "left"))
            else:
                self.ties.append((note, str(e["from"]), "right"))
        self.lines: list[str] = []

    def _index(self, holder: dict[str, Any], where: str) -> None:
        for n in _nodes(holder):
            self.nodes[_text(n.get("id"))] = n
            self.parent[_text(n.get("id"))] = where
        for g in _groups(holder):
            gid = _text(g.get("id"))
            self.groups[gid] = g
            self.parent[gid] = where
            self._index(g, gid)

    def write(self) -> MermaidText:
        head = [*_title_block(self.p), "stateDiagram-v2"]
        if self.p.get("dir") == "LR":
            head.append("    direction LR")
        self.body(self.p, "root", 1)
        for nid, n in self.nodes.items():
            props = paint_style(n.get("paint"))
            # The state grammar's style line names plain word ids only.
            if props and re.fullmatch(r"\w+", nid) and self.name(nid) != "[*]":
                self.lines.append(f"    style {nid} {props}")
        ids = {i: i for i in [*self.nodes, *self.groups] if not _REGION_ID.match(i)}
        states = sum(1 for n in self.nodes.values() if n.get("type") != "note")
        return MermaidText(
            "\n".join([*head, *self.lines]) + "\n", "state", ids, states, len(self.moves)
        )

    def name(self, sid: str) -> str:
        shape = self.nodes.get(sid, {}).get("shape")
        return "[*]" if shape in ("start", "end") else sid

    def body(self, holder: dict[str, Any], where: str, depth: int) -> None:
        pad = "    " * depth
        for n in _nodes(holder):
            self.state(n, pad)
        for k, g in enumerate(_groups(holder)):
            gid = _text(g.get("id"))
            if _REGION_ID.match(gid):
                # A composite's regions are its body, parted by ``--``.
                if k:
                    self.lines.append(f"{pad}--")
                self.body(g, gid, depth)
                continue
            title = _text(g.get("title"))
            if title and title != gid:
                self.lines.append(f'{pad}state "{escape(title)}" as {gid} {{')
            else:
                self.lines.append(f"{pad}state {gid} {{")
            self.body(g, gid, depth + 1)
            self.lines.append(f"{pad}}}")
        self.transitions(where, pad)
        self.notes(where, pad)

    def state(self, n: dict[str, Any], pad: str) -> None:
        nid = _text(n.get("id"))
        title = _text(n.get("title"))
        shape = n.get("shape")
        if n.get("type") == "note" or shape in ("start", "end"):
            return
        if shape in ("fork", "choice"):
            self.lines.append(f"{pad}state {nid} <<{shape}>>")
        elif title and title != nid:
            self.lines.append(f'{pad}state "{escape(title)}" as {nid}')
        else:
            self.lines.append(f"{pad}{nid}")

    def transitions(self, where: str, pad: str) -> None:
        """The transitions written in block ``where``: one with a [*] marker where the
        marker lives (Mermaid names a marker after the block it is written in), one
        between states where its source is."""
        for e in self.moves:
            a, b = _text(e.get("from")), _text(e.get("to"))
            home = self.parent.get(b) if self.name(b) == "[*]" else self.parent.get(a)
            if home != where:
                continue
            label = e.get("label")
            text = f" : {escape(_text(label), ':;')}" if label not in (None, "") else ""
            self.lines.append(f"{pad}{self.name(a)} --> {self.name(b)}{text}")

    def notes(self, where: str, pad: str) -> None:
        for note, state, side in self.ties:
            if self.parent.get(note) != where:
                continue
            text = _text(self.nodes[note].get("title"))
            self.lines.append(f"{pad}note {side} of {state}")
            for line in (text or " ").split("\n"):
                self.lines.append(f"{pad}    {escape(line)}")
            self.lines.append(f"{pad}end note")


# ---------------------------------------------------------------- sequence

_ARROW_TOKENS = {
    "solid": "->>",
    "bidirectional_solid": "<<->>",
    "dotted": "-->>",
    "bidirectional_dotted": "<<-->>",
    "solid_open": "->",
    "dotted_open": "-->",
    "solid_cross": "-x",
    "dotted_cross": "--x",
    "solid_point": "-)",
    "dotted_point": "--)",
    "solid_top_dotted": "--|\\",
    "solid_bottom_dotted": "--|/",
    "stick_top_dotted": "--\\\\",
    "stick_bottom_dotted": "--//",
    "solid_arrow_top_reverse_dotted": "/|--",
    "solid_arrow_bottom_reverse_dotted": "\\|--",
    "stick_arrow_top_reverse_dotted": "//--",
    "stick_arrow_bottom_reverse_dotted": "\\\\--",
    "solid_top": "-|\\",
    "solid_bottom": "-|/",
    "stick_top": "-\\\\",
    "stick_bottom": "-//",
    "solid_arrow_top_reverse": "/|-",
    "solid_arrow_bottom_reverse": "\\|-",
    "stick_arrow_top_reverse": "//-",
    "stick_arrow_bottom_reverse": "\\\\-",
}
# A sequence text reads ``#`` as a comment and ``;`` as a statement end.
_SEQ_EXTRA = ";"


class _Sequence:
    def __init__(self, payload: dict[str, Any], seq: dict[str, Any]) -> None:
        self.p = payload
        self.seq = seq
        self.titles: dict[str, str] = {}
        for lane in payload.get("lanes") or []:
            for n in _nodes(lane if isinstance(lane, dict) else {}):
                self.titles[_text(n.get("id"))] = _text(n.get("title"))
        for n in _nodes(payload):
            self.titles[_text(n.get("id"))] = _text(n.get("title"))
        self.lines: list[str] = []

    def declaration(self, person: dict[str, Any]) -> str:
        pid = _text(person.get("id"))
        kind = person.get("kind") or "participant"
        title = self.titles.get(pid, pid)
        if kind in ("participant", "actor"):
            line = f"{kind} {pid}"
        else:
            line = f'participant {pid}@{{ "type": "{kind}" }}'
        if title and title != pid:
            line += f" as {escape(title, _SEQ_EXTRA)}"
        return line

    def write(self) -> MermaidText:
        seq = self.seq
        head = ["sequenceDiagram"]
        title = self.p.get("title")
        if isinstance(title, str) and title.strip() and self.p.get("showTitle") is not False:
            head.append(f"    title {escape(' '.join(title.split()), _SEQ_EXTRA)}")
        for key in ("accTitle", "accDescr"):
            if isinstance(seq.get(key), str) and seq[key]:
                head.append(f"    {key}: {' '.join(seq[key].split())}")
        people = [p for p in seq.get("participants") or [] if isinstance(p, dict)]
        created = {p.get("created"): p for p in people if isinstance(p.get("created"), int)}
        destroyed = {p.get("destroyed"): p for p in people if isinstance(p.get("destroyed"), int)}
        self.declarations(people)
        self.events(created, destroyed)
        messages = len(seq.get("messages") or [])
        return MermaidText(
            "\n".join([*head, *self.lines]) + "\n",
            "sequence",
            {pid: pid for pid in self.titles},
            len(people),
            messages,
        )

    def declarations(self, people: list[dict[str, Any]]) -> None:
        """Every participant not created by a message, in order; a box's members
        together inside it; then their links and properties menus."""
        boxes = self.seq.get("boxes") or []
        done_boxes: set[int] = set()
        for person in people:
            if isinstance(person.get("created"), int):
                continue
            b = person.get("box")
            if isinstance(b, int) and 0 <= b < len(boxes):
                if b in done_boxes:
                    continue
                done_boxes.add(b)
                box = boxes[b]
                color = f"{box['color']} " if box.get("color") else ""
                self.lines.append(f"    box {color}{escape(_text(box.get('label')), ';')}".rstrip())
                for other in people:
                    if other.get("box") == b and not isinstance(other.get("created"), int):
                        self.lines.append("        " + self.declaration(other))
                self.lines.append("    end")
            else:
                self.lines.append("    " + self.declaration(person))
        for person in people:
            for word in ("links", "properties"):
                if isinstance(person.get(word), dict) and person[word]:
                    data = json.dumps(person[word], ensure_ascii=False)
                    self.lines.append(f"    {word} {person['id']}: {data}")

    def events(self, created: dict[Any, Any], destroyed: dict[Any, Any]) -> None:
        seq = self.seq
        messages = seq.get("messages") or []
        blocks = seq.get("blocks") or []
        notes = seq.get("notes") or []
        depth = 1
        events = seq.get("events") or []
        for k, ev in enumerate(events):
            pad = "    " * depth
            kind = ev.get("event")
            if kind == "message":
                i = ev.get("index")
                if i in created:
                    self.lines.append(pad + "create " + self.declaration(created[i]))
                if i in destroyed:
                    self.lines.append(f"{pad}destroy {destroyed[i]['id']}")
                self.lines.append(pad + self.message(messages[i]))
            elif kind == "start":
                b = blocks[ev["block"]]
                label = escape(_text(b.get("label")), _SEQ_EXTRA)
                self.lines.append(f"{pad}{b['type']} {label}".rstrip())
                depth += 1
            elif kind == "branch":
                br = blocks[ev["block"]]["branches"][ev["branch"]]
                label = escape(_text(br.get("label")), _SEQ_EXTRA)
                self.lines.append(f"{'    ' * (depth - 1)}{br['kind']} {label}".rstrip())
            elif kind == "end":
                depth -= 1
                self.lines.append("    " * depth + "end")
            elif kind in ("activate", "deactivate"):
                self.lines.append(f"{pad}{kind} {ev['actor']}")
            elif kind == "note":
                n = notes[ev["index"]]
                where = {"left": "left of", "right": "right of"}.get(n["placement"], "over")
                text = escape(_text(n.get("text")), _SEQ_EXTRA)
                self.lines.append(f"{pad}note {where} {','.join(n['actors'])}: {text}")
            elif kind == "autonumber":
                self.lines.append(pad + self.autonumber(ev, events[k + 1 :], messages))

    @staticmethod
    def autonumber(ev: dict[str, Any], after: list[Any], messages: list[Any]) -> str:
        if ev.get("off"):
            return "autonumber off"
        # The numbers the next messages carry give the start and the step.
        nums = [
            messages[e["index"]].get("number")
            for e in after
            if isinstance(e, dict) and e.get("event") == "message"
        ][:2]
        nums = [n for n in nums if isinstance(n, (int, float))]
        if not nums:
            return "autonumber"
        step = nums[1] - nums[0] if len(nums) == 2 and nums[1] > nums[0] else 1
        return f"autonumber {_num(nums[0])} {_num(step)}"

    @staticmethod
    def message(m: dict[str, Any]) -> str:
        token = _ARROW_TOKENS.get(_text(m.get("arrow")), "->>")
        central = m.get("central")
        c1 = "()" if central in ("start", "both") else ""
        c2 = "()" if central in ("end", "both") else ""
        text = escape(_text(m.get("text")), _SEQ_EXTRA)
        return f"{m['from']}{c1}{token}{c2}{m['to']}: {text}"


def _num(value: float) -> str:
    return str(int(value)) if value == int(value) else f"{value:g}"


def _picture_data(pic: dict[str, Any], text: str) -> str:
    """The shape data of an image node: ``img`` (a quote in the address written as
    ``%22``, which the address means anyway), the label, ``pos`` and the frame size."""
    src = pic["src"].replace('"', "%22")
    parts = [f'img: "{src}"', f'label: "{text}"']
    if pic.get("pos") in ("t", "b"):
        parts.append(f"pos: {pic['pos']}")
    parts += [f"{k}: {pic[k]:g}" for k in ("w", "h") if type(pic.get(k)) in (int, float)]
    return ", ".join(parts)
