"""Project memory: a project's durable notes for agents (kind ``project_memory``).

A note has a key per project, its text, who wrote it when, and a load hint
that says when a task pickup shows it, the same words a task ref's
``meta.load`` takes: ``first`` notes open the pickup's read rail (ahead of the
cap), ``on-demand`` ones (the default) are listed as lines to read when the
work needs them, ``never`` ones are not shown there (``list`` and ``get`` still
read them).

Every write is a new version of its key, never a replacement (as task refs and
review rules are versioned): ``create`` writes version 1 of a new key or the
next version of a known one, ``update`` writes the next version of a key that
exists and keeps what it does not name. ``get`` reads the newest version, or
an older one by ``version``.
"""

from __future__ import annotations

from typing import Any

from layoutkit.errors import ServiceError, did_you_mean
from layoutkit.service.road.generic import kind_handler
from layoutkit.service.road.workspace import Call
from layoutkit.service.shared.common import SLUG_PATTERN
from layoutkit.storage import ProjectMemoryRecord

LOADS = ("first", "on-demand", "never")
DEFAULT_LOAD = "on-demand"
#: A note is read whole into an agent's context: kept to what one reading affords.
MAX_TEXT = 20_000

_PROJECT: dict[str, Any] = {
    "type": "string",
    "pattern": SLUG_PATTERN,
    "description": "the project's slug",
}
_KEY: dict[str, Any] = {
    "type": "string",
    "pattern": "^[a-z0-9][a-z0-9_.-]{0,119}$",
    "description": "the note's key in its project (lower case; e.g. conventions, deploy)",
}
_TEXT: dict[str, Any] = {
    "type": "string",
    "minLength": 1,
    "maxLength": MAX_TEXT,
    "description": "the note (markdown)",
}
_LOAD: dict[str, Any] = {
    "enum": list(LOADS),
    "description": "when a task pickup shows the note: first (read rail, ahead of the "
    "cap), on-demand (a line to read when needed; the default), never",
}


def memory_view(note: ProjectMemoryRecord, project: str, *, text: bool) -> dict[str, Any]:
    """A note as the operations answer it; ``text`` False leaves the text out (lists)."""
    out: dict[str, Any] = {
        "project": project,
        "key": note.key,
        "version": note.version,
        "load": note.load,
        "writtenBy": note.author,
        "writtenAt": note.created_at.isoformat(),
        "chars": len(note.text),
    }
    if text:
        out["text"] = note.text
    else:
        first = note.text.strip().splitlines()[0] if note.text.strip() else ""
        out["summary"] = first if len(first) <= 120 else first[:119] + "…"
    return out


def read_call(project: str, key: str) -> dict[str, Any]:
    """The call that reads note ``key`` (what pickup lines name)."""
    return {
        "operation": "get",
        "params": {"kind": "project_memory", "project": project, "key": key},
    }


def _project(call: Call, slug: str) -> int:
    # Never made here (a board or a task makes a project): a note names a project
    # that exists, so a misspelt slug is refused rather than filed apart.
    project = call.tx.project_by_slug(call.workspace_id, slug)
    if project is not None:
        return project.id
    raise ServiceError(
        404,
        "unknown_project",
        f"no project {slug!r} in this workspace",
        field="project",
        didYouMean=did_you_mean(slug, [p.slug for p in call.tx.projects(call.workspace_id)]),
    )


def _history(call: Call, project_id: int, key: str) -> list[ProjectMemoryRecord]:
    history = call.tx.project_memory_history(project_id, key)
    if not history:
        known = [n.key for n in call.tx.project_memories(project_id)]
        raise ServiceError(
            404,
            "unknown_memory",
            f"no project memory {key!r} in project {call.params['project']!r}; "
            "create kind project_memory writes it",
            field="key",
            didYouMean=did_you_mean(key, known),
        )
    return history


def _write(call: Call, project_id: int, text: str, load: str) -> dict[str, Any]:
    p = call.params
    note = call.tx.write_project_memory(
        call.workspace_id, project_id, p["key"], text=text, load=load, author=call.principal.label
    )
    return {"memory": memory_view(note, p["project"], text=True)}


@kind_handler(
    "create",
    "project_memory",
    {"project": _PROJECT, "key": _KEY, "text": _TEXT, "load": _LOAD},
    required=("project", "key", "text"),
    writes=True,
)
def create_memory(call: Call) -> dict[str, Any]:
    p = call.params
    project_id = _project(call, p["project"])
    history = call.tx.project_memory_history(project_id, p["key"])
    # A known key keeps its load unless the call names one.
    load = p.get("load") or (history[-1].load if history else DEFAULT_LOAD)
    return _write(call, project_id, p["text"], load)


@kind_handler(
    "update",
    "project_memory",
    {"project": _PROJECT, "key": _KEY, "text": _TEXT, "load": _LOAD},
    required=("project", "key", ("text", "load")),
    writes=True,
)
def update_memory(call: Call) -> dict[str, Any]:
    p = call.params
    project_id = _project(call, p["project"])
    last = _history(call, project_id, p["key"])[-1]
    text, load = p.get("text", last.text), p.get("load", last.load)
    if text == last.text and load == last.load:
        return {"memory": memory_view(last, p["project"], text=True), "changed": False}
    return {**_write(call, project_id, text, load), "changed": True}


@kind_handler(
    "list",
    "project_memory",
    {"project": _PROJECT, "load": _LOAD},
    required=("project",),
)
def list_memory(call: Call) -> dict[str, Any]:
    p = call.params
    project_id = _project(call, p["project"])
    notes = call.tx.project_memories(project_id)
    if "load" in p:
        notes = [n for n in notes if n.load == p["load"]]
    return {"items": [memory_view(n, p["project"], text=False) for n in notes]}


@kind_handler(
    "get",
    "project_memory",
    {
        "project": _PROJECT,
        "key": _KEY,
        "version": {"type": "integer", "minimum": 1, "description": "default: the newest"},
    },
    required=("project", "key"),
)
def get_memory(call: Call) -> dict[str, Any]:
    p = call.params
    project_id = _project(call, p["project"])
    history = _history(call, project_id, p["key"])
    if "version" in p:
        chosen = [n for n in history if n.version == p["version"]]
        if not chosen:
            raise ServiceError(
                404,
                "unknown_version",
                f"project memory {p['key']!r} has versions 1 to {history[-1].version}",
                field="version",
            )
        note = chosen[0]
    else:
        note = history[-1]
    return {
        "memory": memory_view(note, p["project"], text=True),
        "versions": [
            {"version": n.version, "writtenBy": n.author, "writtenAt": n.created_at.isoformat()}
            for n in history
        ],
    }
