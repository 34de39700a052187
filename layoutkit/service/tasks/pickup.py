"""``pickup_task``: what a session reads when it picks a task up.

A task's refs say when to load them in ``meta.load``:

- ``first`` refs (a brief, the last hand-back) open the read rail, all of
  them, ahead of the cap;
- refs that say nothing fill the rest of the rail, newest first, up to the
  cap (``cap``, default :data:`RAIL_CAP`); the ones over it are counted in
  ``more``;
- ``on-demand`` refs are listed apart, one line each, to read when the work
  needs them (a brainstorm board with the section to scrape);
- ``never`` refs are not shown at all.

The notes of the task's project (``project_memory``) follow the same load
hints: ``first`` notes open the rail ahead of the first refs, ``on-demand``
ones (a note's default) are read-on-demand lines, ``never`` ones are left out.

Each entry carries the call that reads it: ``read_task_ref`` for an
uploaded file, ``scrape_board`` (with the ref's ``meta.section``) for a
board; other refs are addresses to follow. The reply's ``text`` is the
pickup to print.
"""

from __future__ import annotations

import json
from typing import Any

from layoutkit.service.road.ids import TASK_ID
from layoutkit.service.road.registry import REGISTRY
from layoutkit.service.road.workspace import Call
from layoutkit.service.tasks.finding import find_task
from layoutkit.service.tasks.memory import read_call
from layoutkit.service.tasks.model import open_gates, refs_view, task_view
from layoutkit.storage import TaskRecord, Tx

#: Refs without a load stamp the rail shows at most, after every ``first`` ref.
RAIL_CAP = 5
MAX_CAP = 50


def _reading(task: TaskRecord, ref: dict[str, Any]) -> dict[str, Any]:
    meta = ref["meta"]
    out: dict[str, Any] = {
        "kind": ref["kind"],
        "ref": ref["ref"],
        "version": ref["version"],
        "load": meta.get("load"),
    }
    for key in ("hint", "tokens", "section"):
        if meta.get(key) is not None:
            out[key] = meta[key]
    if "url" in ref:
        out["url"] = ref["url"]
        out["read"] = {"operation": "read_task_ref", "params": {"id": task.id, "refId": ref["id"]}}
    elif ref["kind"] == "board":
        params: dict[str, Any] = {"board": ref["ref"]}
        if isinstance(meta.get("section"), str):
            params["section"] = meta["section"]
        out["read"] = {"operation": "scrape_board", "params": params}
    return out


def _memories(tx: Tx, task: TaskRecord) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The task's project notes as pickup entries: (first, on-demand)."""
    if task.project_id is None:
        return [], []
    project = tx.project(task.project_id)
    if project is None:
        return [], []
    first: list[dict[str, Any]] = []
    on_demand: list[dict[str, Any]] = []
    for note in tx.project_memories(project.id):
        if note.load == "never":
            continue
        text = note.text.strip()
        entry: dict[str, Any] = {
            "kind": "memory",
            "ref": note.key,
            "version": note.version,
            "load": note.load,
            "hint": text.splitlines()[0][:120] if text else "",
            "read": read_call(project.slug, note.key),
        }
        (first if note.load == "first" else on_demand).append(entry)
    return first, on_demand


def _line(entry: dict[str, Any]) -> str:
    head = f"{entry['kind']} {entry['ref']}"
    if entry.get("version", 1) > 1:
        head += f" v{entry['version']}"
    extra = []
    if entry.get("section"):
        extra.append(f"section {entry['section']}")
    if entry.get("tokens") is not None:
        extra.append(f"{entry['tokens']} tokens")
    if extra:
        head += f" ({', '.join(extra)})"
    if entry.get("hint"):
        head += f": {entry['hint']}"
    read = entry.get("read")
    if read is not None:
        head += f" → {read['operation']} {json.dumps(read['params'], ensure_ascii=False)}"
    return head


def _render(
    task: TaskRecord,
    rail: list[dict[str, Any]],
    more: int,
    on_demand: list[dict[str, Any]],
    gates: list[dict[str, Any]],
) -> str:
    lines = [f"# Pickup: task {task.id} {task.title}", "", f"{task.type}, {task.status}", ""]
    if rail:
        lines.append("## Read now")
        lines += [f"{n}. {_line(e)}" for n, e in enumerate(rail, start=1)]
        if more:
            lines.append(f"({more} more over the cap: get kind task lists every ref)")
        lines.append("")
    if on_demand:
        lines.append("## Read on demand")
        lines += [f"- {_line(e)}" for e in on_demand]
        lines.append("")
    if gates:
        lines.append("## Open gates")
        lines += [f"- [ ] {g['title']}" for g in gates]
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


@REGISTRY.operation(
    "pickup_task",
    "What to read when picking a task up. The read rail lists every ref with meta.load "
    "first (ahead of the cap), then refs with no load, newest first, up to cap (default "
    "5; more counts the rest); on-demand refs come as read-on-demand lines; never refs "
    "are hidden. The notes of the task's project (project_memory) follow the same load hints, ahead of the refs. Each entry names the call that reads it. Reply {task, rail, more, "
    "onDemand, open, text}; print text.",
    {
        "required": ["id"],
        "properties": {
            "id": TASK_ID,
            "cap": {
                "type": "integer",
                "minimum": 0,
                "maximum": MAX_CAP,
                "description": "refs without a load stamp the rail shows (default 5)",
            },
        },
        "additionalProperties": False,
    },
)
def pickup_task(call: Call) -> dict[str, Any]:
    tx = call.tx
    task = find_task(call, call.params["id"], operation="pickup_task")
    cap = call.params.get("cap", RAIL_CAP)
    refs = refs_view(call.workspace, task, tx.task_refs(task.id))
    first = [_reading(task, r) for r in refs if r["meta"].get("load") == "first"]
    # Newest first: the refs attached last are the likeliest to matter now.
    rest = [
        _reading(task, r)
        for r in sorted(refs, key=lambda r: r["id"], reverse=True)
        if r["meta"].get("load") not in ("first", "on-demand", "never")
    ]
    on_demand = [_reading(task, r) for r in refs if r["meta"].get("load") == "on-demand"]
    first_notes, notes_on_demand = _memories(tx, task)
    first = first_notes + first
    on_demand = notes_on_demand + on_demand
    rail = first + rest[:cap]
    more = max(0, len(rest) - cap)
    gates = open_gates(task)
    return {
        "task": task_view(tx, task),
        "rail": rail,
        "more": more,
        "onDemand": on_demand,
        "open": [g["title"] for g in gates],
        "text": _render(task, rail, more, on_demand, gates),
    }
