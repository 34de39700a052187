"""Reader for Mermaid ``stateDiagram`` / ``stateDiagram-v2`` text."""

from __future__ import annotations

import re
from typing import Any

from layoutkit.diagram._mermaid_common import broken, clean_label, finding, strip_comment

_TRANSITION = re.compile(
    r"^(?P<a>\[\*\]|[\w.-]+)(?::::[\w-]+)?\s*-->\s*(?P<b>\[\*\]|[\w.-]+)(?::::[\w-]+)?\s*(?::(?P<label>.*))?$"
)
_STATE_AS = re.compile(r'^state\s+"(?P<desc>[^"]*)"\s+as\s+(?P<id>[\w.-]+)\s*(?P<open>\{)?\s*$')
_STATE_KIND = re.compile(r"^state\s+(?P<id>[\w.-]+)\s+<<(?P<kind>fork|join|choice)>>\s*$")
_STATE_OPEN = re.compile(r"^state\s+(?P<id>[\w.-]+)\s*(?P<open>\{)?\s*$")
_DESCRIPTION = re.compile(r"^(?P<id>[\w.-]+)(?::::[\w-]+)?\s*:\s*(?P<desc>.*)$")
_BARE = re.compile(r"^(?P<id>[\w.-]+)(?::::[\w-]+)?$")
_NOTE_ONE = re.compile(r"^note\s+(left|right)\s+of\s+[\w.-]+\s*:.*$", re.IGNORECASE)
_NOTE_OPEN = re.compile(r"^note\s+(left|right)\s+of\s+[\w.-]+\s*$", re.IGNORECASE)
_SHAPES = {"start": "start", "end": "end", "fork": "fork", "join": "fork", "choice": "diamond"}
_DIRECTIONS = {"TB": "TD", "TD": "TD", "BT": "TD", "LR": "LR", "RL": "LR"}


class _Reader:
    def __init__(self) -> None:
        self.states: dict[str, dict[str, Any]] = {}
        self.transitions: list[dict[str, Any]] = []
        # Open composites and regions, innermost last: {"id", "regions": [...], "members": [...]}.
        self.stack: list[dict[str, Any]] = []
        self.divider = 0
        self.region = 0

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
        self.states[frame["id"]]["members"] = frame["members"]


def read_state(lines: list[tuple[int, str]], meta: dict[str, str]) -> dict[str, Any]:
    """Convert state diagram text (header already split off) into a diagram payload."""
    r = _Reader()
    errors: list[dict[str, Any]] = []
    direction = "TD"
    in_note = False
    for number, raw in lines:
        s = strip_comment(raw).strip()
        if in_note:
            if s.lower() == "end note":
                in_note = False
            continue
        if not s:
            continue
        try:
            if s.startswith("direction "):
                d = s.split()[1]
                if not r.stack:
                    direction = _DIRECTIONS.get(d, "TD")
            elif s.startswith(
                ("classDef ", "class ", "accTitle", "accDescr", "style ")
            ) or _NOTE_ONE.match(s):
                continue
            elif _NOTE_OPEN.match(s):
                in_note = True
            elif s == "--":
                r.divide()
            elif s == "}":
                r.close()
            elif m := _TRANSITION.match(s):
                a = r.marker(True) if m.group("a") == "[*]" else r.state(m.group("a"))["id"]
                b = r.marker(False) if m.group("b") == "[*]" else r.state(m.group("b"))["id"]
                r.transitions.append(
                    {"from": a, "to": b, "label": clean_label(m.group("label") or "")}
                )
            elif m := _STATE_KIND.match(s):
                r.state(m.group("id"), m.group("kind"))
            elif m := _STATE_AS.match(s):
                st = r.state(m.group("id"))
                st["label"] = clean_label(m.group("desc"))
                if m.group("open"):
                    r.open(m.group("id"))
            elif m := _STATE_OPEN.match(s):
                if m.group("open"):
                    r.open(m.group("id"))
                else:
                    r.state(m.group("id"))
            elif m := _DESCRIPTION.match(s):
                st = r.state(m.group("id"))
                desc = clean_label(m.group("desc"))
                st["label"] = desc if st["label"] == st["id"] else f"{st['label']}\n{desc}"
            elif m := _BARE.match(s):
                r.state(m.group("id"))
            else:
                raise ValueError(f"cannot read {s[:40]!r}")
        except ValueError as exc:
            errors.append(finding(number, str(exc)))
    if r.stack:
        errors.append(
            finding(
                lines[-1][0] if lines else 1, f"composite {r.stack[-1]['id']!r} is never closed"
            )
        )
    if in_note:
        errors.append(finding(lines[-1][0] if lines else 1, "note is never closed with 'end note'"))
    if errors:
        raise broken("the state diagram text cannot be read", errors)
    return _to_payload(r, direction, meta)


def _to_payload(r: _Reader, direction: str, meta: dict[str, str]) -> dict[str, Any]:
    groups_of = {sid for sid, st in r.states.items() if st["kind"] in ("composite", "region")}

    def node(st: dict[str, Any]) -> dict[str, Any]:
        kind = st["kind"]
        title = {"start": "Start", "end": "End"}.get(kind, st["label"])
        out: dict[str, Any] = {"id": st["id"], "title": title}
        if kind in _SHAPES:
            out["shape"] = _SHAPES[kind]
        return out

    def group(st: dict[str, Any]) -> dict[str, Any]:
        g: dict[str, Any] = {"id": st["id"], "title": st["label"], "nodes": [], "groups": []}
        for m in st.get("members", []):
            child = r.states[m]
            if m in groups_of:
                g["groups"].append(group(child))
            else:
                g["nodes"].append(node(child))
        return g

    payload: dict[str, Any] = {}
    if meta.get("title"):
        payload["title"] = meta["title"]
    payload["dir"] = direction
    payload["nodes"] = [
        node(st) for st in r.states.values() if st["parent"] is None and st["id"] not in groups_of
    ]
    payload["groups"] = [
        group(st) for st in r.states.values() if st["parent"] is None and st["id"] in groups_of
    ]
    edges = []
    for t in r.transitions:
        edge: dict[str, Any] = {"from": t["from"], "to": t["to"]}
        if t["label"]:
            edge["label"] = t["label"]
        edges.append(edge)
    payload["edges"] = edges
    return payload
