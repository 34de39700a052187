"""``hand_back``: what a working session leaves on its task when it ends.

A hand-back carries a summary, the next items (a checklist kept on the task),
items left out on purpose, refs, and where to pick up. It:

- files each next item on the task's checklist (``gates``): ``step`` (the
  default; the agent's own, never blocks), ``human`` (a gate a person
  resolves; a ``who`` without a kind makes an item human), ``date`` (a gate
  reached on ``at``, YYYY-MM-DD, required) and ``action`` (work still to
  do, never blocks). Human and date gates block completion until ticked. An
  item re-filed under the same title keeps its tick and its id.
- strips ids, keys, paths, links and session ids out of an ``ask`` (a
  question for a person must stand on its own) and says so in ``warnings``;
  a human gate without an ask is taken, with a warning.
- ends the session's live run on the task, and adds the summary as the next
  version of the task's hand-back attachment (a ``handoff`` ref named
  ``hand-back``). A run hand-back (``run``) writes no attachment: the run's
  ref gains a version carrying the hand-back instead, and refs of the kinds
  a run carries elsewhere (handoff, plan, notes, distill, brainstorm,
  conversation, transcript) are refused.
- moves the status: as sent, else by rule (a merged PR completes the task, an
  open PR puts it in review, a run starts it); a ``prerequisites`` entry
  moves the parent epic to the state ``waiting``.

The reply carries the rendered hand-back text to print.
"""

from __future__ import annotations

import re
from typing import Any

from layoutkit.errors import ServiceError
from layoutkit.service.road.ids import TASK_ID
from layoutkit.service.road.registry import REGISTRY
from layoutkit.service.road.workspace import Call
from layoutkit.service.tasks import outputs
from layoutkit.service.tasks.finding import find_task
from layoutkit.service.tasks.gates import fire
from layoutkit.service.tasks.model import CLOSED, STATUSES, open_gates, refs_view, task_view
from layoutkit.service.tasks.task_refs import REF_LIST, _merged_meta, normalize_ref
from layoutkit.service.tasks.tasks import complete_task, moved_status, tell_task
from layoutkit.storage import TaskRecord, TaskRefRecord, Tx

MAX_SUMMARY = 4000
MAX_ASK = 90
MAX_ITEMS = 100
#: The attachment every hand-back summary is the next version of.
HAND_BACK_REF = "hand-back"
#: Ref kinds a run hand-back refuses: the run carries what they would.
MOVED_KINDS = ("handoff", "plan", "notes", "distill", "brainstorm", "conversation", "transcript")
VERBS = ("decide", "approve", "review", "test", "answer")
WAITING = "waiting"

_TEXT: dict[str, Any] = {"type": "string", "maxLength": 4000}
_LIST: dict[str, Any] = {
    "type": "array",
    "maxItems": 50,
    "items": {"type": "string", "minLength": 1, "maxLength": 1000},
}
NEXT_ITEM: dict[str, Any] = {
    "type": "object",
    "required": ["title"],
    "properties": {
        "title": {"type": "string", "minLength": 1, "maxLength": 500},
        "task": {"type": "integer", "minimum": 1, "maximum": 2**53 - 1},
        "kind": {"enum": ["step", "human", "date", "action"]},
        "who": {"type": "string", "minLength": 1, "maxLength": 300},
        "at": {"type": "string", "maxLength": 40, "description": "date gates: YYYY-MM-DD"},
        "when": {"type": "string", "maxLength": 300, "description": "the condition that fires it"},
        "ask": {"type": "string", "maxLength": 500, "description": "the question for who"},
        "why": _TEXT,
        "verb": {"enum": list(VERBS)},
        "type": {"enum": ["task", "bug"]},
        "body": _TEXT,
        "priority": {"enum": ["urgent", "high", "medium", "low", ""]},
    },
    "additionalProperties": False,
}
OMITTED_ITEM: dict[str, Any] = {
    "type": "object",
    "required": ["title"],
    "properties": {
        "title": {"type": "string", "minLength": 1, "maxLength": 500},
        "why": _TEXT,
        "decide": _TEXT,
        "who": {"type": "string", "maxLength": 300},
        "ask": {"type": "string", "maxLength": 500},
        "verb": {"enum": list(VERBS)},
    },
    "additionalProperties": False,
}
RUN: dict[str, Any] = {
    "type": "object",
    "required": ["island", "repo", "branch", "commit"],
    "properties": {
        "island": {"type": "string", "minLength": 1, "maxLength": 200},
        "repo": {"type": "string", "minLength": 1, "maxLength": 300},
        "branch": {"type": "string", "minLength": 1, "maxLength": 300},
        "commit": {"type": "string", "pattern": "^[0-9a-fA-F]{7,40}$"},
        "checkpoint": {"type": "string", "maxLength": 300},
    },
    "additionalProperties": False,
}

# What an ask may not carry: links, paths, task numbers and keys, long hex or
# uuid-like session ids. A person reads the ask without the session's context.
_STRIP = (
    re.compile(r"https?://\S+"),
    # Paths: absolute ones, and relative ones with a file extension or two slashes
    # (so "and/or" stays a word).
    re.compile(r"(?<![\w/])(?:\.{1,2})?/[\w.-]+(?:/[\w.-]+)*"),
    re.compile(r"(?<![\w/])[\w.-]+(?:/[\w.-]+)*/[\w-]+\.\w+"),
    re.compile(r"(?<![\w/])[\w.-]+/[\w.-]+/[\w./-]+"),
    re.compile(r"#\d+\b"),
    re.compile(r"\btk-\d+\b", re.IGNORECASE),
    re.compile(r"\b[A-Z][A-Z0-9]{1,9}-\d+\b"),
    re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b", re.I),
    re.compile(r"\b[0-9a-f]{12,}\b", re.IGNORECASE),
)


def strip_ask(ask: str, session_id: str | None) -> str:
    """``ask`` without ids, keys, paths, links or the session id, on one line."""
    text = ask
    if session_id:
        text = text.replace(session_id, " ")
    for pattern in _STRIP:
        text = pattern.sub(" ", text)
    text = " ".join(text.split())
    return re.sub(r"\s+([?.,!:;])", r"\1", text)


def _date(value: str | None) -> bool:
    return bool(value) and re.fullmatch(r"\d{4}-\d{2}-\d{2}", value or "") is not None


def _items(
    call: Call, task: TaskRecord, warnings: list[str]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The task's checklist after the hand-back files its next items, and the items filed."""
    session = call.params.get("sessionId")
    kept = [dict(g) for g in task.gates]
    by_title = {g["title"]: g for g in kept}
    used = {g.get("id") for g in kept}
    counter = len(kept)
    filed = []
    for i, raw in enumerate(call.params.get("next", [])):
        item = {k: v for k, v in raw.items()}
        kind = item.get("kind") or ("human" if "who" in item else "step")
        item["kind"] = kind
        if kind == "date" and not _date(item.get("at")):
            raise ServiceError(
                400,
                "invalid_params",
                "a date gate needs at as YYYY-MM-DD",
                field=f"next[{i}].at",
                index=i,
            )
        if kind == "human" and not item.get("ask"):
            warnings.append(f"next[{i}] {item['title']!r}: a human gate without an ask")
        if "ask" in item:
            stripped = strip_ask(item["ask"], session)
            if stripped != item["ask"]:
                warnings.append(
                    f"next[{i}] ask: ids, keys, paths, links and session ids were left out"
                )
            if len(stripped) > MAX_ASK:
                raise ServiceError(
                    400,
                    "invalid_params",
                    f"an ask is at most {MAX_ASK} characters",
                    field=f"next[{i}].ask",
                    index=i,
                )
            item["ask"] = stripped
        before = by_title.get(item["title"])
        if before is not None:
            # Re-filed by name: the same item, its tick and evidence kept.
            item["id"] = before.get("id")
            item["done"] = bool(before.get("done"))
            for kept_key in ("evidence", "ripeAt"):
                if kept_key in before:
                    item[kept_key] = before[kept_key]
            kept[kept.index(before)] = item
        else:
            counter += 1
            while f"i{counter}" in used:
                counter += 1
            item["id"] = f"i{counter}"
            used.add(item["id"])
            item["done"] = False
            kept.append(item)
        by_title[item["title"]] = item
        filed.append(item)
    return kept, filed


def _render(task: TaskRecord, p: dict[str, Any], items: list[dict[str, Any]], status: str) -> str:
    lines = [f"# Hand-back: task {task.id} {task.title}", "", f"Status: {status}", ""]
    lines += [p["summary"].strip(), ""]
    if items:
        lines.append("## Next")
        for item in items:
            box = "x" if item.get("done") else " "
            # Gates written by other operations (create, update) may carry no kind:
            # the gate checker reads those as plain steps, and so does the hand-back.
            kind = item.get("kind") or "step"
            head = "" if kind == "step" else f"{kind.upper()} "
            extra = []
            if item.get("who"):
                extra.append(item["who"])
            if item.get("verb"):
                extra.append(item["verb"])
            if item.get("at"):
                extra.append(item["at"])
            if item.get("when"):
                extra.append(f"when {item['when']}")
            tail = f" ({', '.join(extra)})" if extra else ""
            ask = f": {item['ask']}" if item.get("ask") else ""
            lines.append(f"- [{box}] {head}{item['title']}{tail}{ask}")
        lines.append("")
    if p.get("omitted"):
        lines.append("## Left out")
        for item in p["omitted"]:
            why = f" ({item['why']})" if item.get("why") else ""
            lines.append(f"- {item['title']}{why}")
        lines.append("")
    for key, heading in (
        ("prerequisites", "Prerequisites"),
        ("readFirst", "Read first"),
        ("surfaces", "Surfaces"),
        ("buildOn", "Build on"),
    ):
        if p.get(key):
            lines += [f"## {heading}", *(f"- {v}" for v in p[key]), ""]
    if p.get("run"):
        run = p["run"]
        lines.append(f"Run: {run['island']} {run['repo']}@{run['branch']} {run['commit']}")
    return "\n".join(lines).rstrip() + "\n"


def _refuse_moved_refs(refs: list[dict[str, Any]]) -> None:
    """400 ``moved_ref_kind``: a run hand-back carries its PRs and commits in the run."""
    moved = [r for r in refs if r["kind"] in MOVED_KINDS]
    if moved:
        raise ServiceError(
            400,
            "moved_ref_kind",
            f"a run hand-back carries its {moved[0]['kind']} in the run; send it without",
            field="refs",
            refused=sorted({r["kind"] for r in moved}),
        )


def _end_live_runs(tx: Tx, rows: list[TaskRefRecord], session: str | None) -> list[TaskRefRecord]:
    """``rows`` with the session's live runs on the task ended (every live run
    without a session)."""
    for row in list(rows):
        if (
            row.kind == "run"
            and row.meta.get("live")
            and (session is None or row.meta.get("sessionId") in (None, session))
        ):
            ended = tx.set_task_ref_meta(row.id, {**row.meta, "live": False})
            rows = [r for r in rows if r.id != row.id] + [ended]
    return rows


def _settle_status(call: Call, task: TaskRecord, status: str) -> TaskRecord:
    """``task`` moved to the status the hand-back earns, logged; done goes through
    :func:`complete_task`, which open human or date gates hold back."""
    if status == task.status:
        return task
    if status == "done":
        return complete_task(call, task, "hand-back")
    return moved_status(call, task, status, "hand-back")


@REGISTRY.operation(
    "hand_back",
    "End a working session on a task: summary (at most 4000 characters), next items "
    "(kind step by default and never blocking; human, a gate resolved by who, and date, a "
    "gate reached on at YYYY-MM-DD, block completion; action never blocks; a who with no "
    "kind makes an item human), omitted items, refs, status (omitted: moved by rule), "
    "prerequisites (the parent epic waits), readFirst, surfaces, buildOn, sessionId and "
    "run {island, repo, branch, commit, checkpoint?}. An ask (at most 90 characters) comes "
    "back without ids, keys, paths, links or session ids. Ends the session's live run and "
    "adds the summary as the next version of the hand-back attachment (a run hand-back "
    "versions the run's ref instead). Replies with the rendered hand-back text. File next "
    "steps here, not through create.",
    {
        "required": ["id", "summary"],
        "properties": {
            "id": TASK_ID,
            "summary": {"type": "string", "minLength": 1, "maxLength": MAX_SUMMARY},
            "next": {"type": "array", "maxItems": MAX_ITEMS, "items": NEXT_ITEM},
            "omitted": {"type": "array", "maxItems": MAX_ITEMS, "items": OMITTED_ITEM},
            "refs": REF_LIST,
            "status": {"enum": list(STATUSES)},
            "prerequisites": _LIST,
            "readFirst": _LIST,
            "surfaces": _LIST,
            "buildOn": _LIST,
            "sessionId": {"type": "string", "minLength": 1, "maxLength": 200},
            "run": RUN,
        },
        "additionalProperties": False,
    },
    writes=True,
    output=outputs.HAND_BACK,
)
def hand_back(call: Call) -> dict[str, Any]:
    p = call.params
    tx = call.tx
    who = call.principal.label
    task = find_task(call, p["id"], operation="hand_back", lock=True)
    run = p.get("run")
    if run is not None:
        _refuse_moved_refs(p.get("refs", []))
    warnings: list[str] = []
    checklist, filed = _items(call, task, warnings)
    if checklist != task.gates:
        task = tx.update_task(task.id, gates=checklist)
    # Refs first: the status rule reads the PRs this hand-back attaches.
    attached = hand_back_refs(call, task, p.get("refs", []))
    for row in attached:
        if row.kind == "pr" and row.meta.get("merged") is True:
            for when in ("pr merged", f"pr {row.ref} merged"):
                fire(call, tx.task(task.id) or task, when, f"PR {row.ref} merged")
    task = tx.task(task.id) or task
    rows = tx.task_refs(task.id)
    # The session's live run on the task ends here.
    session = p.get("sessionId")
    rows = _end_live_runs(tx, rows, session)
    record = {
        "summary": p["summary"],
        "next": filed,
        **{
            k: p[k]
            for k in ("omitted", "prerequisites", "readFirst", "surfaces", "buildOn")
            if k in p
        },
        **({"sessionId": session} if session else {}),
    }
    task = _settle_status(call, task, _status(call, task, attached, run))
    text = _render(task, p, [i for i in task.gates], task.status)
    if run is not None:
        key = f"{run['island']}:{run['repo']}@{run['branch']}"
        same = [r for r in rows if (r.kind, r.ref) == ("run", key)]
        meta = {**(max(same, key=lambda r: r.version).meta if same else {}), **run}
        meta.update({"live": False, "handBack": record})
        version = tx.add_task_ref_version(task.id, "run", key, meta=meta, author=who)
        written = {"kind": "run", "ref": key, "version": version.version}
    else:
        data = text.encode("utf-8")
        version = tx.add_task_ref_version(
            task.id,
            "handoff",
            HAND_BACK_REF,
            meta={
                "filename": f"{HAND_BACK_REF}.md",
                "mime": "text/markdown",
                "tokens": (len(text) + 3) // 4,
                "load": "first",
                "handBack": record,
            },
            author=who,
            blob=tx.blobs.put(data),
            size=len(data),
        )
        written = {"kind": "handoff", "ref": HAND_BACK_REF, "version": version.version}
    if p.get("prerequisites"):
        _parent_waits(call, task)
    tx.record_task_event(
        task.id,
        "task.hand_back",
        who,
        {**written, "items": len(filed), "status": task.status},
    )
    task = tx.task(task.id) or task
    tell_task(call, "task.handed_back", task, handBack={**written, "summary": p["summary"]})
    return {
        "task": task_view(tx, task),
        "handBack": written,
        "items": filed,
        "open": [g["title"] for g in open_gates(task)],
        "refs": refs_view(call.workspace, task, tx.task_refs(task.id)),
        "warnings": warnings,
        "text": text,
    }


def hand_back_refs(call: Call, task: TaskRecord, refs: list[dict[str, Any]]) -> list[Any]:
    """Attach ``refs`` to ``task`` as add_task_ref does (re-attaching changes meta)."""
    tx = call.tx
    rows = tx.task_refs(task.id)
    attached = []
    for ref in refs:
        key = normalize_ref(call, task, ref["kind"], ref["ref"])
        same = [r for r in rows if (r.kind, r.ref) == (ref["kind"], key)]
        latest = max(same, key=lambda r: r.version) if same else None
        meta = ref.get("meta") or {}
        if latest is None:
            row = tx.add_task_ref_version(
                task.id, ref["kind"], key, meta=_merged_meta({}, meta), author=call.principal.label
            )
        else:
            row = tx.set_task_ref_meta(latest.id, _merged_meta(latest.meta, meta))
        rows = [r for r in rows if r.id != row.id] + [row]
        attached.append(row)
        tx.record_task_event(
            task.id,
            "task.ref",
            call.principal.label,
            {"kind": row.kind, "ref": row.ref, "version": row.version},
        )
    return attached


def _status(call: Call, task: TaskRecord, attached: list[Any], run: Any) -> str:
    """The status a hand-back leaves: as sent, else by rule, else unchanged."""
    sent = call.params.get("status")
    if sent is not None:
        if sent == "done" and open_gates(task):
            raise ServiceError(
                409,
                "open_gates",
                "human or date gates are still open; tick them before completing",
                field="status",
                gates=[g["title"] for g in open_gates(task)],
            )
        return str(sent)
    if task.status in CLOSED:
        return task.status
    prs = [r for r in attached if r.kind == "pr"]
    if any(r.meta.get("merged") for r in prs):
        return "done"
    if prs:
        return "in_review"
    if run is not None and task.status in ("backlog", "todo"):
        return "in_progress"
    return task.status


def _parent_waits(call: Call, task: TaskRecord) -> None:
    """A prerequisite holds the parent epic: its state becomes waiting."""
    if task.parent_id is None:
        return
    parent = call.tx.task(task.parent_id, lock=True)
    if parent is None or parent.type != "epic" or parent.state == WAITING:
        return
    call.tx.ensure_task_vocab(parent.workspace_id, "state", WAITING, project_id=parent.project_id)
    call.tx.update_task(parent.id, state=WAITING)
    call.tx.record_task_event(
        parent.id,
        "task.update",
        call.principal.label,
        {"state": {"from": parent.state, "to": WAITING}, "why": f"prerequisite of {task.id}"},
    )
