"""Reader for Mermaid ``sequenceDiagram`` text.

The payload keeps the contract's semantic shape: the participants in one
lane, every message an edge in order, the enclosing blocks as a prefix of
the message label. What a sequence diagram needs beyond that (arrow kinds,
blocks with their branches, notes, activations, numbering, participant
boxes, create and destroy) goes to the server-owned ``sequence`` field,
which :mod:`layoutkit.diagram.sequence_layout` draws from.

The statement forms follow Mermaid 11's sequence grammar (its jison lexer
and parser): keywords are case-insensitive, ``;`` ends a statement like a
line break does, ``#`` starts a comment (after entity codes such as
``#quot;`` are set aside, as Mermaid does), and ``accDescr { … }`` and
``@{ … }`` participant metadata may span lines.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import yaml

from layoutkit.diagram._mermaid_common import broken, clean_label, finding

# Participant kinds Mermaid draws with their own symbol; the node shape the
# graph form of the diagram uses for each.
KINDS = (
    "participant",
    "actor",
    "boundary",
    "control",
    "entity",
    "database",
    "collections",
    "queue",
)
_KIND_SHAPES = {
    "actor": "person",
    "database": "cylinder",
    "queue": "cylinder",
    "collections": "document",
}
_BLOCKS = ("loop", "alt", "opt", "par", "par_over", "critical", "break", "rect")
# Branch keyword -> the block types it may divide.
_BRANCHES = {"else": ("alt",), "and": ("par", "par_over"), "option": ("critical",)}

# Arrow token -> (Mermaid line type, line, head at the start, head at the end).
# Order matters: Mermaid's lexer takes the first rule that matches.
_ARROWS: tuple[tuple[str, str, str, str, str], ...] = (
    ("->>", "solid", "solid", "none", "arrow"),
    ("<<->>", "bidirectional_solid", "solid", "arrow", "arrow"),
    ("-->>", "dotted", "dotted", "none", "arrow"),
    ("<<-->>", "bidirectional_dotted", "dotted", "arrow", "arrow"),
    ("->", "solid_open", "solid", "none", "none"),
    ("-->", "dotted_open", "dotted", "none", "none"),
    ("-x", "solid_cross", "solid", "none", "cross"),
    ("--x", "dotted_cross", "dotted", "none", "cross"),
    ("-)", "solid_point", "solid", "none", "async"),
    ("--)", "dotted_point", "dotted", "none", "async"),
    ("--|\\", "solid_top_dotted", "dotted", "none", "half-top"),
    ("--|/", "solid_bottom_dotted", "dotted", "none", "half-bottom"),
    ("--\\\\", "stick_top_dotted", "dotted", "none", "stick-top"),
    ("--//", "stick_bottom_dotted", "dotted", "none", "stick-bottom"),
    ("/|--", "solid_arrow_top_reverse_dotted", "dotted", "half-top", "none"),
    ("\\|--", "solid_arrow_bottom_reverse_dotted", "dotted", "half-bottom", "none"),
    ("//--", "stick_arrow_top_reverse_dotted", "dotted", "stick-top", "none"),
    ("\\\\--", "stick_arrow_bottom_reverse_dotted", "dotted", "stick-bottom", "none"),
    ("-|\\", "solid_top", "solid", "none", "half-top"),
    ("-|/", "solid_bottom", "solid", "none", "half-bottom"),
    ("-\\\\", "stick_top", "solid", "none", "stick-top"),
    ("-//", "stick_bottom", "solid", "none", "stick-bottom"),
    ("/|-", "solid_arrow_top_reverse", "solid", "half-top", "none"),
    ("\\|-", "solid_arrow_bottom_reverse", "solid", "half-bottom", "none"),
    ("//-", "stick_arrow_top_reverse", "solid", "stick-top", "none"),
    ("\\\\-", "stick_arrow_bottom_reverse", "solid", "stick-bottom", "none"),
)
# The edge style of the graph form, by Mermaid line type.
_EDGE_STYLE = {
    "solid_open": "plain",
    "dotted_open": "dotted",
    "dotted": "dashed",
    "solid_cross": "cross",
    "dotted_cross": "cross",
    "dotted_point": "dashed",
    "bidirectional_solid": "both",
    "bidirectional_dotted": "both",
}

# Mermaid's ACTOR token: the first character is none of / \ + ( ) < = > - : , ;
# later runs may follow hyphens unless the hyphens start an arrow.
_NO_ARROW = r"(?!-x|--x|-\)|--\)|-\|\\|-\\|-/|-//|-\|/|/\|-|\\\|-|//-|\\\\-|--\|\\|--|\(\))"
_ACTOR = rf"[^/\\+()<=>\-:\n,;]+(?:{_NO_ARROW}-*[^+<=>\-:\n,;]+)*"
_ARROW = "|".join(re.escape(a[0]) for a in _ARROWS)
_MESSAGE = re.compile(
    rf"^(?P<src>{_ACTOR})(?P<c1>\(\))?(?P<arrow>{_ARROW})\s*"
    rf"(?:(?P<act>[+-])|(?P<c2>\(\)))?\s*(?P<dst>{_ACTOR}):(?P<text>.*)$",
    re.IGNORECASE,
)
_ARROW_INFO = {a[0]: a[1:] for a in _ARROWS}
_ENTITY = re.compile(r"#\w+;")
_KEYWORD = re.compile(r"^([A-Za-z_]+)\b")
_NUM = r"(?:\d+(?:\.\d{1,2})?|\.\d{1,2})"
_AUTONUMBER = re.compile(rf"^autonumber(?:\s+(?:(off)|({_NUM})(?:\s+({_NUM}))?))?\s*$", re.I)
_NOTE = re.compile(r"^note\s+(left\s+of|right\s+of|over)\s+([^:]+?)\s*:(.*)$", re.I)
_MENU = re.compile(r"^(links|link|properties|details)\s+([^:]+?)\s*:(.*)$", re.I)
_BOX_COLOR = re.compile(r"^((?:rgba?|hsla?)\s*\(.*?\))(.*)$", re.I)
_WRAP = re.compile(r"^:?(?:no)?wrap:", re.I)


def block_prefix(blocks: list[dict[str, Any]]) -> str:
    """The label prefix for the enclosing blocks, outermost first (colour ``rect`` blocks skipped)."""
    parts = []
    for b in blocks:
        if b["type"] == "rect":
            continue
        if b.get("branch"):
            word, label = b["branch"], b.get("branchLabel", "")
        else:
            word, label = b["type"], b.get("label", "")
        parts.append(f"[{word} {label}]".replace(" ]", "]"))
    return " ".join(parts)


_ACC_LINE = re.compile(r"acc(?:Title|Descr)\s*:", re.I)
_ACC_BLOCK = re.compile(r"accDescr\s*\{", re.I)


def _statements(lines: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """Split the text into (line number, statement) as Mermaid's lexer does.

    A statement ends at a line break or ``;``; ``#`` and a ``%`` at the start of
    a statement begin a comment. ``accTitle:``/``accDescr:`` values run to the
    end of the line; ``accDescr {…}`` and ``@{…}`` run to their closing brace.
    Entity codes (``#9829;``) are text, not comments.
    """
    text = "\n".join(raw for _, raw in lines)
    out: list[tuple[int, str]] = []
    i = 0
    line = lines[0][0] if lines else 1
    while i < len(text):
        end, statement = _next_statement(text, i)
        if statement is not None:
            out.append((line, statement))
        line += text.count("\n", i, end)
        i = end
    return out


def _next_statement(text: str, i: int) -> tuple[int, str | None]:
    """Where the token at ``i`` ends, and its statement text (None for separators, comments)."""
    n = len(text)
    ch = text[i]
    if ch in " \t\r\n;":
        return i + 1, None
    if text.startswith("%%{", i):
        # A directive (%%{init: …}%%) may span lines.
        end = text.find("}%%", i)
        return (n if end < 0 else end + 3), None
    if ch in "#%":
        return _line_end(text, i), None
    if _ACC_LINE.match(text, i):
        end = _line_end(text, i)
        return end, text[i:end]
    if _ACC_BLOCK.match(text, i):
        end = text.find("}", i)
        end = n if end < 0 else end + 1
        return end, text[i:end]
    return _plain_statement(text, i)


def _line_end(text: str, i: int) -> int:
    end = text.find("\n", i)
    return len(text) if end < 0 else end


def _plain_statement(text: str, i: int) -> tuple[int, str]:
    """A statement up to ``;``, a line break or a ``#`` comment; entity codes and
    ``@{…}`` metadata (which may hold those) are taken whole."""
    n = len(text)
    j = i
    buf = []
    while j < n:
        c = text[j]
        if c in "\n;":
            break
        if c == "#":
            ent = _ENTITY.match(text, j)
            if not ent:
                j = _line_end(text, j)
                break
            buf.append(ent.group(0))
            j = ent.end()
        elif c == "@" and text.startswith("@{", j):
            end = text.find("}", j)
            end = n if end < 0 else end + 1
            buf.append(text[j:end])
            j = end
        else:
            buf.append(c)
            j += 1
    return j, "".join(buf).strip()


def _message_text(raw: str) -> str:
    return clean_label(_WRAP.sub("", raw.strip()))


def _config(raw: str) -> dict[str, Any]:
    """Participant metadata ``@{…}``: YAML (JSON is YAML too), as Mermaid reads it."""
    body = raw.strip()
    try:
        data = yaml.safe_load(body if body.startswith("{") else "{" + body + "}")
    except yaml.YAMLError:
        try:
            data = json.loads(body)
        except ValueError:
            data = None
    return data if isinstance(data, dict) else {}


@dataclass(frozen=True, slots=True)
class _Statement:
    """One statement with its leading keyword (lower case, "" when none) split off."""

    number: int
    text: str
    word: str
    rest: str


@dataclass(frozen=True, slots=True)
class _Declaration:
    """A participant declaration read apart: kind, name, ``as`` alias and ``@{…}`` metadata."""

    kind: str
    name: str
    alias: str | None
    config: dict[str, Any]


def _declaration(kind: str, rest: str) -> _Declaration | str:
    """Read what follows ``participant``/``actor``; a finding's message when it cannot be read."""
    alias = None
    config: dict[str, Any] = {}
    if "@{" in rest:
        name, _, tail = rest.partition("@{")
        body, _, after = tail.partition("}")
        config = _config(body)
        am = re.match(r"^\s*as\s+(.*)$", after, re.I | re.S)
        if am:
            alias = am.group(1)
        elif after.strip():
            return f"unexpected {after.strip()[:30]!r}"
    else:
        am = re.match(r"^([^<>:\n,;@\s]+)\s+as\s+(.*)$", rest, re.I | re.S)
        name, alias = (am.group(1), am.group(2)) if am else (rest, None)
    name = name.strip()
    if not name or re.search(r"[<>:,;@]", name):
        return f"participant name {name!r} cannot be read"
    return _Declaration(kind, name, alias, config)


class _Reader:
    def __init__(self) -> None:
        self.participants: dict[str, dict[str, Any]] = {}
        self.order: list[str] = []
        self.messages: list[dict[str, Any]] = []
        self.edges: list[dict[str, Any]] = []
        self.notes: list[dict[str, Any]] = []
        self.blocks: list[dict[str, Any]] = []
        self.events: list[dict[str, Any]] = []
        self.boxes: list[dict[str, Any]] = []
        self.stack: list[int] = []  # open block indexes
        self.box: int | None = None
        self.errors: list[dict[str, Any]] = []
        self.title: str | None = None
        self.acc: dict[str, str] = {}
        self.numbering = {"on": False, "next": 1.0, "step": 1.0}
        self.active: dict[str, int] = {}
        self.pending_create: str | None = None
        self.pending_destroy: str | None = None

    # -- participants -------------------------------------------------------
    def ensure(self, pid: str) -> dict[str, Any]:
        entry = self.participants.get(pid)
        if entry is None:
            entry = {"id": pid, "title": pid, "kind": "participant"}
            self.participants[pid] = entry
            self.order.append(pid)
            if self.box is not None:
                entry["box"] = self.box
                self.boxes[self.box]["members"].append(pid)
        return entry

    def declare(self, number: int, s: str, create: bool) -> None:
        m = re.match(r"^(participant|actor)\b\s*(.*)$", s, re.I | re.S)
        if not m:
            self.errors.append(finding(number, f"cannot read {s[:40]!r}"))
            return
        decl = _declaration(m.group(1).lower(), m.group(2).strip())
        if isinstance(decl, str):
            self.errors.append(finding(number, decl))
            return
        problem = self._declaration_problem(decl.name, create)
        if problem is not None:
            self.errors.append(finding(number, problem))
            return
        self._record(decl, create)

    def _declaration_problem(self, name: str, create: bool) -> str | None:
        """Why ``name`` cannot be declared here: it exists already or sits in another box."""
        if create and name in self.participants:
            return f"participant {name!r} already exists and cannot be created"
        if self.box is not None:
            known = self.participants.get(name)
            if known is not None and known.get("box", self.box) != self.box:
                return f"participant {name!r} is in two boxes"
        return None

    def _record(self, decl: _Declaration, create: bool) -> None:
        name, config = decl.name, decl.config
        entry = self.ensure(name)
        if self.box is not None and "box" not in entry:
            entry["box"] = self.box
            self.boxes[self.box]["members"].append(name)
        ctype = config.get("type")
        entry["kind"] = ctype if isinstance(ctype, str) and ctype in KINDS else decl.kind
        label = clean_label(_WRAP.sub("", decl.alias)) if decl.alias is not None else None
        if isinstance(config.get("alias"), str) and (label is None or label == name):
            label = clean_label(config["alias"])
        if label:
            entry["title"] = label
        if create:
            entry["created"] = None
            self.pending_create = name

    # -- statements ---------------------------------------------------------
    def statement(self, number: int, s: str) -> None:
        km = _KEYWORD.match(s)
        word = km.group(1).lower() if km else ""
        rest = s[km.end() :].strip() if km else s
        if self.box is not None and word not in ("participant", "actor", "destroy", "end"):
            self.errors.append(finding(number, "a box holds only participant declarations"))
            return
        # Anything that starts with no keyword is read as a message.
        handler = _STATEMENTS.get(word, _Reader.on_message)
        handler(self, _Statement(number, s, word, rest))

    def on_participant(self, st: _Statement) -> None:
        self.declare(st.number, st.text, create=False)

    def on_create(self, st: _Statement) -> None:
        self.declare(st.number, st.rest, create=True)

    def on_destroy(self, st: _Statement) -> None:
        self.destroy(st.number, st.rest)

    def on_box(self, st: _Statement) -> None:
        self.open_box(st.number, st.rest)

    def on_block(self, st: _Statement) -> None:
        self.blocks.append(
            {
                "type": st.word,
                "label": _message_text(st.rest),
                "branches": [],
                "depth": len(self.stack),
            }
        )
        self.stack.append(len(self.blocks) - 1)
        self.events.append({"event": "start", "block": len(self.blocks) - 1})

    def on_branch(self, st: _Statement) -> None:
        word = st.word
        if not self.stack or self.blocks[self.stack[-1]]["type"] not in _BRANCHES[word]:
            self.errors.append(finding(st.number, f"{word!r} outside a block it can divide"))
            return
        b = self.stack[-1]
        self.blocks[b]["branches"].append({"kind": word, "label": _message_text(st.rest)})
        self.events.append(
            {"event": "branch", "block": b, "branch": len(self.blocks[b]["branches"]) - 1}
        )

    def on_end(self, st: _Statement) -> None:
        if self.box is not None:
            self.box = None
        elif self.stack:
            self.events.append({"event": "end", "block": self.stack.pop()})
        else:
            self.errors.append(finding(st.number, "'end' without an open block"))

    def on_autonumber(self, st: _Statement) -> None:
        self.autonumber(st.number, st.text)

    def on_activation(self, st: _Statement) -> None:
        if not st.rest:
            self.errors.append(finding(st.number, f"{st.word} needs a participant"))
            return
        self.activation(st.number, st.word, st.rest)

    def on_note(self, st: _Statement) -> None:
        self.note(st.number, st.text)

    def on_menu(self, st: _Statement) -> None:
        self.menu(st.number, st.text)

    def on_title(self, st: _Statement) -> None:
        rest = st.rest
        # ``title`` glued to more letters (``titled->>B``) is no title but a message.
        if not (rest.startswith(":") or st.text[5:6].isspace()):
            self.on_message(st)
            return
        self.title = clean_label(rest[1:] if rest.startswith(":") else rest)

    def on_accessibility(self, st: _Statement) -> None:
        key = "accTitle" if st.word == "acctitle" else "accDescr"
        rest = st.rest
        value = rest[1:] if rest[:1] in (":", "{") else rest
        self.acc[key] = " ".join(value.rstrip("}").split())

    def on_message(self, st: _Statement) -> None:
        self.message(st.number, st.text)

    def open_box(self, number: int, rest: str) -> None:
        m = _BOX_COLOR.match(rest)
        color, label = (m.group(1), m.group(2).strip()) if m else (None, rest.strip())
        entry: dict[str, Any] = {"label": clean_label(label), "members": []}
        if color:
            entry["color"] = color
        self.boxes.append(entry)
        self.box = len(self.boxes) - 1

    def destroy(self, number: int, rest: str) -> None:
        name = rest.strip()
        if not name:
            self.errors.append(finding(number, "destroy needs a participant"))
            return
        self.ensure(name)["destroyed"] = None
        self.pending_destroy = name

    def autonumber(self, number: int, s: str) -> None:
        m = _AUTONUMBER.match(s)
        if not m:
            self.errors.append(finding(number, f"cannot read {s[:40]!r}"))
            return
        off, start, step = m.groups()
        self.events.append({"event": "autonumber", **({"off": True} if off else {})})
        if off:
            self.numbering["on"] = False
            return
        self.numbering["on"] = True
        if start is not None:
            self.numbering["next"] = float(start)
            self.numbering["step"] = float(step) if step is not None else 1.0

    def activation(self, number: int, word: str, pid: str) -> None:
        if word == "deactivate":
            if self.active.get(pid, 0) < 1:
                self.errors.append(
                    finding(number, f"{pid!r} is deactivated while it is not active")
                )
                return
            self.active[pid] -= 1
        else:
            self.active[pid] = self.active.get(pid, 0) + 1
        self.events.append({"event": word, "actor": pid})

    def note(self, number: int, s: str) -> None:
        m = _NOTE.match(s)
        if not m:
            self.errors.append(finding(number, f"cannot read note {s[:40]!r}"))
            return
        where = m.group(1).lower().split()[0]
        actors = [a.strip() for a in m.group(2).split(",")]
        if len(actors) > 2 or any(not a for a in actors) or (where != "over" and len(actors) > 1):
            self.errors.append(finding(number, f"cannot read note {s[:40]!r}"))
            return
        for a in actors:
            self.ensure(a)
        self.notes.append({"placement": where, "actors": actors, "text": _message_text(m.group(3))})
        self.events.append({"event": "note", "index": len(self.notes) - 1})

    def menu(self, number: int, s: str) -> None:
        m = _MENU.match(s)
        if not m:
            self.errors.append(finding(number, f"cannot read {s[:40]!r}"))
            return
        word, pid, raw = m.group(1).lower(), m.group(2).strip(), m.group(3).strip()
        entry = self.ensure(pid)
        if word == "link":
            label, _, url = raw.partition("@")
            if url.strip():
                entry.setdefault("links", {})[clean_label(label)] = url.strip()
        elif word in ("links", "properties"):
            try:
                data = json.loads(raw)
            except ValueError:
                data = None
            if isinstance(data, dict):
                key = "links" if word == "links" else "properties"
                entry.setdefault(key, {}).update({str(k): v for k, v in data.items()})

    def message(self, number: int, s: str) -> None:
        m = _MESSAGE.match(s)
        if not m:
            self.errors.append(finding(number, f"cannot read {s[:40]!r}"))
            return
        src, dst = m.group("src").strip(), m.group("dst").strip()
        for pid in (src, dst):
            self.ensure(pid)
        k = len(self.messages)
        problem = self._settle_lifecycle(src, dst, k)
        if problem is not None:
            self.errors.append(finding(number, problem))
            return
        entry = _message_entry(m, src, dst)
        if self.numbering["on"]:
            value = self.numbering["next"]
            entry["number"] = int(value) if value == int(value) else round(value, 2)
        self.numbering["next"] += self.numbering["step"]
        prefix = block_prefix(self._open())
        self.messages.append(entry)
        self.events.append({"event": "message", "index": k})
        self.edges.append(_graph_edge(entry, prefix))
        if m.group("act") == "+":
            self.activation(number, "activate", dst)
        elif m.group("act") == "-":
            self.activation(number, "deactivate", src)

    def _settle_lifecycle(self, src: str, dst: str, k: int) -> str | None:
        """Tie a pending create/destroy to message ``k``; the finding when ``k`` cannot be it."""
        if self.pending_create is not None:
            if dst != self.pending_create:
                return (
                    f"created participant {self.pending_create!r} needs a "
                    "message to it right after its declaration"
                )
            self.participants[dst]["created"] = k
            self.pending_create = None
        if self.pending_destroy is not None:
            if self.pending_destroy not in (src, dst):
                return (
                    f"destroyed participant {self.pending_destroy!r} needs a "
                    "message to or from it right after 'destroy'"
                )
            self.participants[self.pending_destroy]["destroyed"] = k
            self.pending_destroy = None
        return None

    def _open(self) -> list[dict[str, Any]]:
        """The open blocks, outermost first, in the shape :func:`block_prefix` takes."""
        out = []
        for b in self.stack:
            block = self.blocks[b]
            entry: dict[str, Any] = {
                "type": "par" if block["type"] == "par_over" else block["type"],
                "label": block["label"],
            }
            if block["branches"]:
                entry["branch"] = block["branches"][-1]["kind"]
                entry["branchLabel"] = block["branches"][-1]["label"]
            out.append(entry)
        return out


_STATEMENTS: dict[str, Callable[[_Reader, _Statement], None]] = {
    "participant": _Reader.on_participant,
    "actor": _Reader.on_participant,
    "create": _Reader.on_create,
    "destroy": _Reader.on_destroy,
    "box": _Reader.on_box,
    **dict.fromkeys(_BLOCKS, _Reader.on_block),
    **dict.fromkeys(_BRANCHES, _Reader.on_branch),
    "end": _Reader.on_end,
    "autonumber": _Reader.on_autonumber,
    "activate": _Reader.on_activation,
    "deactivate": _Reader.on_activation,
    "note": _Reader.on_note,
    **dict.fromkeys(("link", "links", "properties", "details"), _Reader.on_menu),
    "title": _Reader.on_title,
    "acctitle": _Reader.on_accessibility,
    "accdescr": _Reader.on_accessibility,
}


def _message_entry(m: re.Match[str], src: str, dst: str) -> dict[str, Any]:
    """The ``sequence`` record of a message: its ends, text, arrow kind and heads."""
    arrow = m.group("arrow")
    kind, line, head0, head1 = _ARROW_INFO.get(arrow) or _ARROW_INFO[arrow.lower()]
    entry: dict[str, Any] = {
        "from": src,
        "to": dst,
        "text": _message_text(m.group("text")),
        "arrow": kind,
        "line": line,
        "start": head0,
        "end": head1,
    }
    central = [side for side, g in (("start", "c1"), ("end", "c2")) if m.group(g)]
    if central:
        entry["central"] = "both" if len(central) == 2 else central[0]
    return entry


def _graph_edge(entry: dict[str, Any], prefix: str) -> dict[str, Any]:
    """The graph form of a message: an edge labelled with its blocks, number and text."""
    edge: dict[str, Any] = {"from": entry["from"], "to": entry["to"]}
    style = _EDGE_STYLE.get(entry["arrow"])
    if style:
        edge["style"] = style
    full = " ".join(x for x in (prefix, entry["text"]) if x)
    if "number" in entry:
        full = f"{_shown(entry['number'])}. {full}".strip()
    if full:
        edge["label"] = full
    return edge


def _shown(number: float) -> str:
    return str(int(number)) if number == int(number) else f"{number:g}"


def read_sequence(lines: list[tuple[int, str]], meta: dict[str, str]) -> dict[str, Any]:
    """Convert sequence diagram text into a diagram payload.

    ``lines`` start at the ``sequenceDiagram`` header line, which may carry
    statements after a ``;``.
    """
    reader = _Reader()
    statements = _statements(lines)
    if statements and statements[0][1].split(None, 1)[0].lower().startswith("sequencediagram"):
        head_line, head = statements[0]
        rest = head[len("sequenceDiagram") :].strip()
        statements = ([(head_line, rest)] if rest else []) + statements[1:]
    for number, s in statements:
        reader.statement(number, s)
    last = lines[-1][0] if lines else 1
    if reader.stack:
        block = reader.blocks[reader.stack[-1]]
        reader.errors.append(finding(last, f"block {block['type']!r} is never closed"))
    if reader.box is not None:
        reader.errors.append(finding(last, "box is never closed"))
    for pid, what in ((reader.pending_create, "created"), (reader.pending_destroy, "destroyed")):
        if pid is not None:
            reader.errors.append(finding(last, f"{what} participant {pid!r} has no message"))
    if reader.errors:
        raise broken("the sequence diagram text cannot be read", reader.errors)
    nodes = []
    people = []
    for pid in reader.order:
        p = reader.participants[pid]
        node: dict[str, Any] = {"id": pid, "title": p["title"]}
        shape = _KIND_SHAPES.get(p["kind"])
        if shape:
            node["shape"] = shape
        nodes.append(node)
        person: dict[str, Any] = {"id": pid, "kind": p["kind"]}
        for key in ("box", "created", "destroyed", "links", "properties"):
            if p.get(key) is not None:
                person[key] = p[key]
        people.append(person)
    sequence: dict[str, Any] = {
        "participants": people,
        "messages": reader.messages,
        "blocks": [
            {"type": b["type"], "label": b["label"], "branches": b["branches"]}
            for b in reader.blocks
        ],
        "notes": reader.notes,
        "events": reader.events,
        "boxes": reader.boxes,
    }
    sequence.update(reader.acc)
    payload: dict[str, Any] = {}
    title = reader.title or meta.get("title")
    if title:
        payload["title"] = title
    payload["dir"] = "LR"
    payload["lanes"] = [{"label": "Participants", "nodes": nodes}]
    payload["edges"] = reader.edges
    payload["sequence"] = sequence
    return payload
