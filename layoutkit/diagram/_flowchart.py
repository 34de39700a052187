"""Reader for Mermaid ``flowchart`` / ``graph`` text."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from layoutkit.diagram._mermaid_common import (
    broken,
    clean_label,
    finding,
    note,
    strip_comment,
    style_paint,
    tone_for_style,
)
from layoutkit.limits import DIAGRAM_PICTURE

# Mermaid 11 shape names (bracket forms, ``@{ shape: }`` names, their aliases) -> payload shape.
SHAPES = {
    "rect": "rect",
    "proc": "rect",
    "process": "rect",
    "rectangle": "rect",
    "squareRect": "rect",
    "square": "rect",
    "class-box": "rect",
    "classBox": "rect",
    "icon": "rect",
    "iconSquare": "rect",
    "iconCircle": "rect",
    "iconRounded": "rect",
    "imageSquare": "rect",
    "rounded": "round",
    "event": "round",
    "round": "round",
    "roundedRect": "round",
    "state": "round",
    "stadium": "stadium",
    "terminal": "stadium",
    "pill": "stadium",
    "fr-rect": "subroutine",
    "subprocess": "subroutine",
    "subproc": "subroutine",
    "framed-rectangle": "subroutine",
    "subroutine": "subroutine",
    "cyl": "cylinder",
    "db": "cylinder",
    "database": "cylinder",
    "cylinder": "cylinder",
    "circle": "circle",
    "circ": "circle",
    "diam": "diamond",
    "decision": "diamond",
    "diamond": "diamond",
    "question": "diamond",
    "hex": "hexagon",
    "hexagon": "hexagon",
    "prepare": "hexagon",
    "lean-r": "parallelogram",
    "lean-right": "parallelogram",
    "in-out": "parallelogram",
    "lean_right": "parallelogram",
    "lean-l": "parallelogram-alt",
    "lean-left": "parallelogram-alt",
    "out-in": "parallelogram-alt",
    "lean_left": "parallelogram-alt",
    "trap-b": "trapezoid",
    "priority": "trapezoid",
    "trapezoid-bottom": "trapezoid",
    "trapezoid": "trapezoid",
    "trap-t": "trapezoid-alt",
    "manual": "trapezoid-alt",
    "trapezoid-top": "trapezoid-alt",
    "inv-trapezoid": "trapezoid-alt",
    "inv_trapezoid": "trapezoid-alt",
    "dbl-circ": "double-circle",
    "double-circle": "double-circle",
    "doublecircle": "double-circle",
    "text": "text",
    "notch-rect": "notched-rect",
    "card": "notched-rect",
    "notched-rectangle": "notched-rect",
    "lin-rect": "lined-rect",
    "lined-rectangle": "lined-rect",
    "lined-process": "lined-rect",
    "lin-proc": "lined-rect",
    "shaded-process": "lined-rect",
    "sm-circ": "start",
    "start": "start",
    "small-circle": "start",
    "stateStart": "start",
    "fr-circ": "end",
    "stop": "end",
    "framed-circle": "end",
    "stateEnd": "end",
    "fork": "fork",
    "join": "fork",
    "forkJoin": "fork",
    "hourglass": "hourglass",
    "collate": "hourglass",
    "brace": "brace-left",
    "comment": "brace-left",
    "brace-l": "brace-left",
    "brace-r": "brace-right",
    "braces": "braces",
    "bolt": "bolt",
    "com-link": "bolt",
    "lightning-bolt": "bolt",
    "doc": "document",
    "document": "document",
    "delay": "delay",
    "half-rounded-rectangle": "delay",
    "h-cyl": "h-cylinder",
    "das": "h-cylinder",
    "horizontal-cylinder": "h-cylinder",
    "lin-cyl": "lined-cylinder",
    "disk": "lined-cylinder",
    "lined-cylinder": "lined-cylinder",
    "curv-trap": "curved-trapezoid",
    "curved-trapezoid": "curved-trapezoid",
    "display": "curved-trapezoid",
    "div-rect": "divided-rect",
    "div-proc": "divided-rect",
    "divided-rectangle": "divided-rect",
    "divided-process": "divided-rect",
    "tri": "triangle",
    "extract": "triangle",
    "triangle": "triangle",
    "win-pane": "window-pane",
    "internal-storage": "window-pane",
    "window-pane": "window-pane",
    "f-circ": "filled-circle",
    "junction": "filled-circle",
    "filled-circle": "filled-circle",
    "notch-pent": "notched-pentagon",
    "loop-limit": "notched-pentagon",
    "notched-pentagon": "notched-pentagon",
    "flip-tri": "flipped-triangle",
    "manual-file": "flipped-triangle",
    "flipped-triangle": "flipped-triangle",
    "sl-rect": "sloped-rect",
    "manual-input": "sloped-rect",
    "sloped-rectangle": "sloped-rect",
    "docs": "stacked-document",
    "documents": "stacked-document",
    "st-doc": "stacked-document",
    "stacked-document": "stacked-document",
    "st-rect": "stacked-rect",
    "procs": "stacked-rect",
    "processes": "stacked-rect",
    "stacked-rectangle": "stacked-rect",
    "bow-rect": "bow-rect",
    "stored-data": "bow-rect",
    "bow-tie-rectangle": "bow-rect",
    "cross-circ": "crossed-circle",
    "summary": "crossed-circle",
    "crossed-circle": "crossed-circle",
    "tag-doc": "tagged-document",
    "tagged-document": "tagged-document",
    "tag-rect": "tagged-rect",
    "tagged-rectangle": "tagged-rect",
    "tag-proc": "tagged-rect",
    "tagged-process": "tagged-rect",
    "flag": "flag",
    "paper-tape": "flag",
    "odd": "asymmetric",
    "rect_left_inv_arrow": "asymmetric",
    "lin-doc": "lined-document",
    "lined-document": "lined-document",
    "ellipse": "ellipse",
    "choice": "choice",
    "datastore": "datastore",
    "data-store": "datastore",
    "folder": "folder",
    "directory": "folder",
    "cloud": "cloud",
    "person": "person",
    "bang": "bang",
    "console": "console",
    "browser": "browser",
    "bucket": "bucket",
}

# bracket opener -> (closer, mermaid shape); longest first so ``(((`` wins over ``((``.
_OPENERS = (
    ("(((", ")))", "doublecircle"),
    ("(-", "-)", "ellipse"),
    ("[|", "]", "props"),
    ("((", "))", "circle"),
    ("([", "])", "stadium"),
    ("[[", "]]", "subroutine"),
    ("[(", ")]", "cylinder"),
    ("{{", "}}", "hexagon"),
    ("[/", None, "lean"),
    ("[\\", None, "lean"),
    (">", "]", "odd"),
    ("(", ")", "round"),
    ("[", "]", "square"),
    ("{", "}", "diamond"),
)

# Mermaid's NODE_STRING: a ``-`` belongs to an id unless a link follows it (``-end-B``).
_ID = re.compile(r"-?[\w$]+(?:[-.](?=[\w$])[\w$]+)*", re.UNICODE)
_EDGE_ID = re.compile(r"([\w$]+)@(?=[-=.~<ox])")
# Mermaid's link tokens, in the order its lexer tries them: a whole link, then the
# opening half of a link with text inside (``-- text -->``), per stroke.
_LINKS = (
    (re.compile(r"\s*[xo<]?--+[-xo>]\s*"), re.compile(r"\s*[xo<]?--\s*")),
    (re.compile(r"\s*[xo<]?==+[=xo>]\s*"), re.compile(r"\s*[xo<]?==\s*")),
    (re.compile(r"\s*[xo<]?-?\.+-[xo>]?\s*"), re.compile(r"\s*[xo<]?-\.\s*")),
)
_INVISIBLE = re.compile(r"\s*~~~+\s*")
# Mermaid's (d3's) curve names -> payload ``curve``: step curves are right-angled as
# layoutkit's own wires, linear ones straight cuts, the rest one smooth curve.
_CURVES = {
    "linear": "straight",
    "step": "orthogonal",
    "stepBefore": "orthogonal",
    "stepAfter": "orthogonal",
    **{
        name: "smooth"
        for name in (
            "basis",
            "bumpX",
            "bumpY",
            "cardinal",
            "catmullRom",
            "monotoneX",
            "monotoneY",
            "natural",
        )
    },
}
_CLASS_SUFFIX = re.compile(r":::([\w-]+)")
_DIRECTIONS = {
    "TB": "TD",
    "TD": "TD",
    "BT": "TD",
    "LR": "LR",
    "RL": "LR",
    "<": "LR",
    ">": "LR",
    "^": "TD",
    "v": "TD",
}
_KEYWORDS = (
    "classDef",
    "class",
    "style",
    "linkStyle",
    "click",
    "accTitle",
    "accDescr",
    "direction",
)


_ENTITY_TAIL = re.compile(r"#\w+$")
_STYLE_WORDS = ("style", "classDef", "linkStyle")


def statements(lines: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """Split the body into statements the way Mermaid's lexer separates them.

    Newlines and ``;`` end a statement, except inside a quoted or markdown string,
    inside node brackets or an edge's ``|text|``, inside ``@{ ... }`` metadata
    (which may span lines), and when the ``;`` closes an entity code such as
    ``#quot;`` (Mermaid encodes those before parsing). A multi-line
    ``accDescr { ... }`` and the rest of an ``accTitle:`` line are one statement.
    Statements keep their trailing blanks: a padded subgraph title changes its id.
    """
    splitter = _Splitter()
    for number, raw in lines:
        splitter.feed(number, raw)
    if splitter.buf:
        splitter.out.append((splitter.start_line, "".join(splitter.buf)))
    return [(n, s.lstrip()) for n, s in splitter.out if s.strip()]


@dataclass
class _Splitter:
    """The lexer state of :func:`statements`, carried from character to character.

    ``quoted``, ``meta`` and ``described`` may stay open across lines; the
    bracket depth, the ``|text|`` toggle and an ``accTitle:`` line end with it.
    """

    out: list[tuple[int, str]] = field(default_factory=list)
    buf: list[str] = field(default_factory=list)
    start_line: int = 0
    quoted: bool = False
    meta: bool = False
    described: bool = False
    depth: int = 0
    piped: bool = False
    to_eol: bool = False

    def feed(self, number: int, raw: str) -> None:
        spanning = self.quoted or self.meta or self.described
        text = raw if spanning else strip_comment(raw)
        if not self.buf:
            self.start_line = number
        self.depth = 0
        self.piped = False
        self.to_eol = False
        for ch in text:
            if self._ends_statement(ch):
                self.out.append((self.start_line, "".join(self.buf).lstrip()))
                self.buf = []
                self.start_line = number
            else:
                self.buf.append(ch)
        if self.quoted or self.meta or self.described:
            self.buf.append("\n")
            return
        self.out.append((self.start_line, "".join(self.buf)))
        self.buf = []

    def _ends_statement(self, ch: str) -> bool:
        """Track ``ch``; True when it is a ``;`` that ends the statement (and is dropped)."""
        if self._in_text(ch) or self._marks(ch):
            return False
        if ch != ";" or self.depth or self.piped or self.to_eol:
            return False
        head = "".join(self.buf).lstrip()
        # ``#quot;`` is an entity code, not a statement end (a style's colour is not one).
        return not (_ENTITY_TAIL.search(head) and not head.startswith(_STYLE_WORDS))

    def _in_text(self, ch: str) -> bool:
        """True when ``ch`` is inside (or opens or closes) a string, metadata or description."""
        if self.described:
            if ch == "}":
                self.described = False
            return True
        if ch == '"' or self.quoted:
            # Inside quotes every character is text; a quote opens or closes them.
            self.quoted = self.quoted != (ch == '"')
            return True
        if self.meta:
            if ch == "}":
                self.meta = False
            return True
        return False

    def _marks(self, ch: str) -> bool:
        """True when ``ch`` opens metadata, a description or an ``acc`` line, or is a
        bracket or a pipe (kept as text, tracked for where a ``;`` may end a statement)."""
        if ch == "{" and self.buf and self.buf[-1] == "@":
            self.meta = True
        elif ch == "{" and "".join(self.buf).strip() == "accDescr":
            self.described = True
        elif ch == ":" and "".join(self.buf).strip() in ("accTitle", "accDescr"):
            self.to_eol = True
        elif ch in "[({":
            self.depth += 1
        elif ch in "])}":
            self.depth = max(self.depth - 1, 0)
        elif ch == "|" and self.depth == 0:
            self.piped = not self.piped
        else:
            return False
        return True


@dataclass(frozen=True, slots=True)
class _Statement:
    """One statement: its text as split (``raw``), stripped, and its first word and the rest."""

    line: int
    raw: str
    text: str
    word: str
    rest: str


class _Reader:
    def __init__(self) -> None:
        self.vertices: dict[str, dict[str, Any]] = {}
        self.edges: list[dict[str, Any]] = []
        self.edge_ids: dict[str, dict[str, Any]] = {}
        self.subgraphs: list[dict[str, Any]] = []
        self.stack: list[dict[str, Any]] = []
        self.claimed: set[str] = set()
        self.class_defs: dict[str, list[str]] = {}
        self.classes: dict[str, list[str]] = {}
        self.styles: dict[str, list[str]] = {}
        self.notes: list[dict[str, Any]] = []
        self.errors: list[dict[str, Any]] = []
        self.subgraph_count = 0
        self.link_tones: dict[int, str] = {}
        self.default_link_tone: str | None = None
        self.link_paints: dict[int, dict[str, Any]] = {}
        self.default_link_paint: dict[str, Any] = {}

    # -- vertices --------------------------------------------------------
    def mention(self, vid: str) -> dict[str, Any]:
        vertex = self.vertices.get(vid)
        if vertex is None:
            vertex = {"id": vid, "label": vid, "shape": None}
            self.vertices[vid] = vertex
        if self.stack:
            self.stack[-1]["mentioned"].append(vid)
        return vertex

    def read_node(self, s: str, i: int, line: int) -> int:
        m = _ID.match(s, i)
        if not m:
            raise ValueError(f"expected a node id at {s[i : i + 20]!r}")
        vid = m.group(0)
        i = m.end()
        vertex = self.mention(vid)
        for opener, closer, shape in _OPENERS:
            if s.startswith(opener, i):
                i = self.read_shape(s, i + len(opener), opener, closer, shape, vertex)
                break
        cm = _CLASS_SUFFIX.match(s, i)
        if cm:
            self.classes.setdefault(vid, []).append(cm.group(1))
            i = cm.end()
        # Shape data may follow the id, its bracket form or its class.
        j = _skip(s, i)
        if s.startswith("@{", j):
            end = _close_brace(s, j + 1)
            self.apply_meta(vertex, s[j + 2 : end])
            i = end + 1
        return i

    def read_shape(
        self, s: str, i: int, opener: str, closer: str | None, shape: str, vertex: dict[str, Any]
    ) -> int:
        if shape == "props":
            # ``A[|field:value|text]``: a rect whose one property has no payload field.
            bar = s.find("|", i)
            if bar < 0:
                raise ValueError("missing '|' after the node property")
            i, shape = bar + 1, "rect"
        j = i
        while j < len(s) and s[j] == " ":
            j += 1
        if j < len(s) and s[j] == '"':
            q = s.find('"', j + 1)
            if q < 0:
                raise ValueError("unterminated quoted label")
            text, k = s[j : q + 1], q + 1
        else:
            text, k = None, i
        if closer is None:
            # [/ ... /] and [\ ... \] lean, mixed ones are trapezoids.
            ends = [(s.find(c, k), c) for c in ("/]", "\\]")]
            ends = [(p, c) for p, c in ends if p >= 0]
            if not ends:
                raise ValueError("unterminated shape")
            p, c = min(ends)
            if opener == "[/":
                shape = "lean_right" if c == "/]" else "trapezoid"
            else:
                shape = "lean_left" if c == "\\]" else "inv_trapezoid"
            end, width = p, 2
        else:
            end = s.find(closer, k)
            if end < 0:
                raise ValueError(f"missing {closer!r} after node text")
            width = len(closer)
        vertex["label"] = clean_label(text if text is not None else s[i:end])
        vertex["shape"] = shape
        return end + width

    def apply_meta(self, vertex: dict[str, Any], body: str) -> None:
        for key, value in _meta_pairs(body):
            if key == "shape":
                vertex["shape"] = value
            elif key == "label":
                vertex["label"] = clean_label(value)
            elif key == "icon":
                vertex["icon"] = value
            elif key in _PICTURE_KEYS:
                _picture_meta(vertex.setdefault("picture", {}), _PICTURE_KEYS[key], value)

    # -- edges -----------------------------------------------------------
    def read_link(self, s: str, i: int) -> tuple[int, dict[str, Any]] | None:
        edge_id = None
        m = _EDGE_ID.match(s, i)
        if m:
            edge_id = m.group(1)
            i = m.end()
        label = ""
        token = start = None
        inv = _INVISIBLE.match(s, i)
        if inv:
            token, i = inv.group(0), inv.end()
        for whole, opening in _LINKS if token is None else ():
            lm = whole.match(s, i)
            if lm:
                token, i = lm.group(0), lm.end()
                break
            om = opening.match(s, i)
            if om:
                j = _skip(s, om.end())
                if j < len(s) and s[j] == '"':
                    # A quoted edge text may hold dashes; it ends at its quote.
                    q = s.find('"', j + 1)
                    close = whole.search(s, q + 1) if q > 0 else None
                else:
                    close = whole.search(s, om.end())
                if close is None:
                    return None
                start, token = om.group(0), close.group(0)
                label = s[om.end() : close.start()]
                i = close.end()
                break
        if token is None:
            return None
        j = _skip(s, i)
        if j < len(s) and s[j] == "|":
            q = _skip(s, j + 1)
            # A quoted label may hold a pipe: look for the closing one after its quote.
            after = s.find('"', q + 1) + 1 if q < len(s) and s[q] == '"' else j + 1
            k = s.find("|", max(after, j + 1))
            if k < 0:
                raise ValueError("unterminated |label|")
            label = s[j + 1 : k]
            i = k + 1
        edge = {"label": clean_label(label), **_destruct(token, start)}
        if edge_id:
            edge["id"] = edge_id
        return i, edge

    def read_chain(self, s: str, line: int) -> None:
        i = 0
        groups: list[list[str]] = []
        links: list[dict[str, Any]] = []
        while True:
            ids: list[str] = []
            while True:
                i = _skip(s, i)
                start = i
                i = self.read_node(s, i, line)
                ids.append(_ID.match(s, start).group(0))  # type: ignore[union-attr]
                i = _skip(s, i)
                if i < len(s) and s[i] == "&":
                    i += 1
                    continue
                break
            groups.append(ids)
            if i >= len(s):
                break
            got = self.read_link(s, i)
            if got is None:
                raise ValueError(f"cannot read {s[i : i + 24]!r}")
            i, link = got
            links.append(link)
        for k, link in enumerate(links):
            for a in groups[k]:
                for b in groups[k + 1]:
                    edge = {"from": a, "to": b, **link}
                    self.edges.append(edge)
                    if "id" in link:
                        self.edge_ids[link["id"]] = edge

    # -- statements ------------------------------------------------------
    def statement(self, line: int, raw: str) -> None:
        s = raw.strip()
        word = s.split(None, 1)[0]
        rest = s[len(word) :].strip()
        # ``accTitle:text`` and ``accDescr{`` glue their keyword to what follows.
        key = "accTitle" if word.startswith(("accTitle:", "accDescr:", "accDescr{")) else word
        handler = _STATEMENTS.get(key, _Reader.on_chain)
        handler(self, _Statement(line, raw, s, word, rest))

    def on_subgraph(self, st: _Statement) -> None:
        self.open_subgraph(st.raw.lstrip()[len(st.word) :], st.line)

    def on_end(self, st: _Statement) -> None:
        if st.rest:
            # ``end`` with more after it closes nothing: it is read as a chain.
            self.on_chain(st)
        else:
            self.close_subgraph(st.line)

    def on_direction(self, st: _Statement) -> None:
        if self.stack:
            self.stack[-1]["dir"] = st.rest.strip()

    def on_class_def(self, st: _Statement) -> None:
        names, _, props = st.rest.partition(" ")
        for name in names.split(","):
            self.class_defs[name.strip()] = _props(props)

    def on_class(self, st: _Statement) -> None:
        ids, _, name = st.rest.rpartition(" ")
        for vid in ids.split(","):
            self.classes.setdefault(vid.strip(), []).append(name.strip())

    def on_style(self, st: _Statement) -> None:
        vid, _, props = st.rest.partition(" ")
        # Mermaid's style statement adds the vertex when it is not declared yet.
        if vid not in self.vertices:
            self.vertices[vid] = {"id": vid, "label": vid, "shape": None}
        self.styles[vid] = _props(props)

    def on_link_style(self, st: _Statement) -> None:
        self.link_style(st.rest, st.line)

    def on_click(self, st: _Statement) -> None:
        self.notes.append(note("ignored_click", "click has no payload equivalent", st.line))

    def on_accessibility(self, st: _Statement) -> None:
        """``accTitle`` and ``accDescr`` describe the picture to screen readers: a
        payload has no field for them and they change nothing drawn, so they are read
        and dropped without a note (a note would flag every accessible source)."""

    def on_chain(self, st: _Statement) -> None:
        s = st.text
        if re.match(r"[\w$]+@\{", s) and s.split("@", 1)[0] in self.edge_ids:
            edge = self.edge_ids[s.split("@", 1)[0]]
            body = s[s.index("{") + 1 : _close_brace(s, s.index("{"))]
            ignored = False
            for key, value in _meta_pairs(body):
                if key == "curve" and value in _CURVES:
                    edge["curve"] = _CURVES[value]
                else:
                    ignored = True
            if ignored:
                self.notes.append(
                    note("ignored_edge_meta", "edge animation options ignored", st.line)
                )
        else:
            self.read_chain(s, st.line)

    def link_style(self, rest: str, line: int) -> None:
        which, _, props = rest.partition(" ")
        props = re.sub(r"^interpolate\s+\S+\s*", "", props.strip())
        paint = style_paint(_props(props))
        if paint:
            if which == "default":
                self.default_link_paint = paint
            for part in which.split(","):
                if part.strip().isdigit():
                    self.link_paints[int(part)] = paint
        tone = tone_for_style(_props(props))
        if tone is None:
            if props and not paint:
                self.notes.append(note("style_ignored", "linkStyle has no matching tone", line))
            return
        if which == "default":
            self.default_link_tone = tone
            return
        for part in which.split(","):
            if part.strip().isdigit():
                self.link_tones[int(part)] = tone

    def open_subgraph(self, after: str, line: int) -> None:
        # ``after`` is the text after the keyword, blanks kept: Mermaid gives a subgraph
        # whose bare title holds any blank (padding included) a made-up subGraphN id.
        text = after[1:] if after[:1] in (" ", "\t") else after
        m = re.match(r"\s*([^\s\[\]\"]+)\s*\[(.*)\]\s*$", text)
        if m:
            sid, title = m.group(1), clean_label(m.group(2))
        else:
            bare = text.strip()
            if bare[:1] == '"' and bare[-1:] == '"' and len(bare) >= 2:
                inner = bare[1:-1]
                inner = inner[1:-1] if inner[:1] == inner[-1:] == "`" and len(inner) > 1 else inner
                spaced = bool(re.search(r"\s", inner))
            else:
                spaced = bool(re.search(r"\s", text)) or not bare
            title = clean_label(bare)
            sid = None if spaced else title
        # Until it closes, an unnamed subgraph stands in its parent under a private key.
        key = sid if sid is not None else f"\x00{len(self.subgraphs)}:{len(self.stack)}"
        if self.stack:
            self.stack[-1]["mentioned"].append(key)
        self.stack.append(
            {"id": sid, "key": key, "title": title, "mentioned": [], "dir": None, "line": line}
        )

    def close_subgraph(self, line: int) -> None:
        if not self.stack:
            raise ValueError("'end' without an open subgraph")
        sg = self.stack.pop()
        # Mermaid numbers made-up ids when a subgraph closes, so inner ones come first.
        sid = sg["id"] if sg["id"] is not None else f"subGraph{self.subgraph_count}"
        self.subgraph_count += 1
        if self.stack:
            held = self.stack[-1]["mentioned"]
            held[held.index(sg["key"])] = sid
        members: list[str] = []
        for vid in sg["mentioned"]:
            if vid not in self.claimed and vid not in members and vid != sid:
                members.append(vid)
        self.claimed.update(members)
        self.subgraphs.append(
            {"id": sid, "title": sg["title"], "members": members, "dir": sg["dir"]}
        )


# Statement keyword -> its rule; a statement with none is a chain of nodes and links.
_STATEMENTS: dict[str, Callable[[_Reader, _Statement], None]] = {
    "subgraph": _Reader.on_subgraph,
    "end": _Reader.on_end,
    "direction": _Reader.on_direction,
    "classDef": _Reader.on_class_def,
    "class": _Reader.on_class,
    "style": _Reader.on_style,
    "linkStyle": _Reader.on_link_style,
    "click": _Reader.on_click,
    "accTitle": _Reader.on_accessibility,
    "accDescr": _Reader.on_accessibility,
}


def _destruct(token: str, start: str | None) -> dict[str, Any]:
    """Stroke, ends and length of a link token, as Mermaid's ``destructLink`` reads them."""
    end = token.strip()
    first = (start or end).strip()[:1]
    head = end[-1] if end[-1] in "xo>" else None
    # A start mark counts only when it matches the head (``<-->``, ``x--x``, ``o--o``).
    tail = first if head and first == {">": "<"}.get(head, head) else None
    body = end[:-1] if head else end
    stroke = "normal"
    if "=" in body:
        stroke = "thick"
    elif "~" in body:
        stroke = "invisible"
    elif "." in body or (start and "." in start):
        stroke = "dotted"
    return {"stroke": stroke, "head": head, "tail": tail}


def _skip(s: str, i: int) -> int:
    while i < len(s) and s[i] in " \t\n":
        i += 1
    return i


def _close_brace(s: str, i: int) -> int:
    quoted = False
    for j in range(i, len(s)):
        if s[j] == '"':
            quoted = not quoted
        elif s[j] == "}" and not quoted:
            return j
    raise ValueError("unterminated @{ ... }")


#: Shape-data keys of an image node (``A@{ img: "…", pos: "t", h: 60 }``) and the
#: ``picture`` member each fills; ``constraint`` needs the picture's own proportions,
#: which are never fetched, so it is read and dropped.
_PICTURE_KEYS = {"img": "src", "pos": "pos", "w": "w", "h": "h"}


def _picture_meta(picture: dict[str, Any], key: str, value: str) -> None:
    if key == "src":
        picture["src"] = value.strip()
    elif key == "pos":
        if value.strip() in ("t", "b"):
            picture["pos"] = value.strip()
    else:
        try:
            size = float(value)
        except ValueError:
            return
        if 8 <= size <= DIAGRAM_PICTURE:
            picture[key] = int(size) if size.is_integer() else size


def _meta_pairs(body: str) -> list[tuple[str, str]]:
    """Key/value pairs of ``@{ ... }`` shape data: YAML flow (``a: 1, b: 2``) or one
    pair per line; a quoted value may span lines (Mermaid keeps those breaks)."""
    parts: list[str] = []
    buf = ""
    quote = ""
    for ch in body:
        if quote:
            if ch == quote:
                quote = ""
            buf += ch
            continue
        if ch in "\"'":
            quote = ch
        if ch in ",\n":
            parts.append(buf)
            buf = ""
        else:
            buf += ch
    parts.append(buf)
    out = []
    for part in parts:
        key, sep, value = part.partition(":")
        if sep and key.strip():
            value = value.strip()
            if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
                value = value[1:-1]
            lines = [line.strip() for line in value.split("\n")]
            out.append((key.strip().strip("\"'"), "<br>".join(x for x in lines if x)))
    return out


def _props(text: str) -> list[str]:
    return [p.strip() for p in text.strip().rstrip(";").split(",") if p.strip()]


_END_NAMES = {">": "arrow", "<": "arrow", "o": "circle", "x": "cross", None: "none"}


def _edge_style(edge: dict[str, Any]) -> dict[str, str]:
    """Payload ``style`` (plus ``head``/``tail`` where the style cannot say the ends)."""
    stroke, head, tail = edge["stroke"], edge["head"], edge["tail"]
    if stroke == "invisible":
        return {"style": "invisible"}
    if stroke in ("dotted", "thick"):
        out = {"style": stroke}
        if head != ">":
            out["head"] = _END_NAMES[head]
        if tail:
            out["tail"] = _END_NAMES[tail]
        return out
    if tail and head == ">":
        return {"style": "both"}
    style = {">": "solid", "o": "circle", "x": "cross"}.get(head or "", "plain")
    out = {"style": style}
    if tail:
        out["tail"] = _END_NAMES[tail]
    return out


def read_flowchart(
    header: str, lines: list[tuple[int, str]], meta: dict[str, str]
) -> dict[str, Any]:
    """Convert flowchart text (header already split off) into a diagram payload."""
    parts = header.split()
    direction = parts[1] if len(parts) > 1 else "TD"
    reader = _Reader()
    notes = reader.notes
    if direction not in _DIRECTIONS:
        raise broken(
            "unknown flowchart direction",
            [finding(lines[0][0] - 1 if lines else 1, f"direction {direction!r}")],
        )
    if direction in ("BT", "RL", "^", "<"):
        notes.append(
            note("direction_reversed", f"direction {direction} drawn as {_DIRECTIONS[direction]}")
        )
    for line, s in statements(lines):
        try:
            reader.statement(line, s)
        except ValueError as exc:
            reader.errors.append(finding(line, str(exc)))
    if reader.stack:
        reader.errors.append(
            finding(reader.stack[-1]["line"], "subgraph is never closed with 'end'")
        )
    if reader.errors:
        raise broken("the flowchart text cannot be read", reader.errors)
    return _to_payload(reader, _DIRECTIONS[direction], meta)


def _to_payload(reader: _Reader, direction: str, meta: dict[str, str]) -> dict[str, Any]:
    group_ids = {sg["id"] for sg in reader.subgraphs}
    nodes = {
        vid: _node(reader, vid, v) for vid, v in reader.vertices.items() if vid not in group_ids
    }
    tops, placed = _groups(reader, nodes, group_ids)
    payload: dict[str, Any] = {}
    if meta.get("title"):
        payload["title"] = meta["title"]
    payload["dir"] = direction
    payload["nodes"] = [n for vid, n in nodes.items() if vid not in placed]
    payload["groups"] = tops
    payload["edges"] = [_edge(reader, index, e) for index, e in enumerate(reader.edges)]
    if reader.notes:
        payload["diagnostics"] = reader.notes
    return payload


def _node(reader: _Reader, vid: str, v: dict[str, Any]) -> dict[str, Any]:
    """A vertex as a payload node; what it cannot carry becomes a note."""
    node: dict[str, Any] = {"id": vid, "title": v["label"]}
    if v.get("shape"):
        shape = SHAPES.get(v["shape"])
        if shape is None:
            reader.notes.append(
                note("shape_fallback", f"shape {v['shape']!r} of {vid!r} drawn as rect")
            )
        elif shape != "rect":
            node["shape"] = shape
    if v.get("icon"):
        node["icon"] = v["icon"]
    if (v.get("picture") or {}).get("src"):
        node["picture"] = v["picture"]
    props = list(reader.styles.get(vid, []))
    for cls in reader.classes.get(vid, []):
        props = reader.class_defs.get(cls, []) + props
    if props:
        tone = tone_for_style(props)
        paint = style_paint(props)
        if tone:
            node["tone"] = tone
        elif not paint:
            reader.notes.append(note("style_ignored", f"style of {vid!r} has no matching tone"))
        if paint:
            node["paint"] = paint
    return node


def _groups(
    reader: _Reader, nodes: dict[str, dict[str, Any]], group_ids: set[str]
) -> tuple[list[dict[str, Any]], set[str]]:
    """The outer subgraphs as nested payload groups, and the node ids they hold."""
    sub_by_id = {sg["id"]: sg for sg in reader.subgraphs}
    nested = {m for sg in reader.subgraphs for m in sg["members"] if m in group_ids}
    placed: set[str] = set()

    def build(sg: dict[str, Any]) -> dict[str, Any]:
        group: dict[str, Any] = {"id": sg["id"], "title": sg["title"], "nodes": [], "groups": []}
        stated = {"TB": "TD", "<": "RL", ">": "LR", "^": "BT", "v": "TD"}.get(sg.get("dir") or "")
        stated = stated or sg.get("dir")
        if stated in ("TD", "LR", "BT", "RL"):
            group["dir"] = stated
        for m in sg["members"]:
            if m in sub_by_id:
                group["groups"].append(build(sub_by_id[m]))
            elif m in nodes:
                group["nodes"].append(nodes[m])
                placed.add(m)
        return group

    # Subgraphs are closed inner-first; keep the source order of the outer ones.
    tops = [build(sg) for sg in reader.subgraphs if sg["id"] not in nested]
    return tops, placed


def _edge(reader: _Reader, index: int, e: dict[str, Any]) -> dict[str, Any]:
    edge: dict[str, Any] = {"from": e["from"], "to": e["to"]}
    tone = reader.link_tones.get(index, reader.default_link_tone)
    if tone:
        edge["tone"] = tone
    # An edge's classes (``e1@-->`` then ``class e1 name``) are its CSS classes, and its
    # linkStyle its inline style, which wins over them as in a browser.
    props = [
        p
        for cls in reader.classes.get(e.get("id") or "", [])
        for p in reader.class_defs.get(cls, [])
    ]
    paint = style_paint(props) if props else {}
    paint.update(reader.link_paints.get(index, reader.default_link_paint))
    for unused in ("fill", "color", "fontStyle"):
        paint.pop(unused, None)
    if paint:
        edge["paint"] = paint
    style = _edge_style(e)
    if style.get("style") == "solid":
        del style["style"]
    edge.update(style)
    if e["label"]:
        edge["label"] = e["label"]
    if e.get("curve") and e["curve"] != "orthogonal":
        edge["curve"] = e["curve"]
    return edge
