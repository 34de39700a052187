"""Work delivered to agents: ``wait_for_work``, its leases and its wake-ups.

An agent long-polls ``wait_for_work`` scoped to a project (and optionally a
branch) or to one board and gets up to 3 capsules: open annotations, comments
(a person's new comment thread or new reply on an open one, item
``comment:<thread>.<n>``, n the newest message a person wrote, see
:func:`~layoutkit.service.review.annotation_views.latest_person_message`), choices (answers released by
Send or Regenerate, with each question's stakes) and asks (requests for an AI
answerer, answered with ``answer_ask``). Each delivered
item is leased to that agent: nobody else gets it while the lease lives, the
agent's later calls (``wait_for_work`` or ``heartbeat_work``) extend it, and
an item whose agent stopped beating comes back after the lease. ``done``
(``heartbeat_work``) or ``answer_ask`` finish an item for good; an annotation
also stops being work once it leaves the ``open`` state.

Wake-ups cross processes: every write that makes work calls
:func:`signal`, which on PostgreSQL is a ``NOTIFY`` (one ``LISTEN`` connection
per process feeds every waiter) and on SQLite bumps a per-workspace change
counter that one thread per process polls while anyone waits. Waiters also
re-check every :data:`RECHECK_S` seconds, which is when expired leases are
noticed (an expiry writes nothing, so it wakes nobody).
"""

from __future__ import annotations

import os
import time
from collections.abc import Awaitable, Callable
from typing import Any

from layoutkit.errors import ServiceError
from layoutkit.principal import Principal
from layoutkit.service.delivery import outputs
from layoutkit.service.review.annotation_views import annotation_view
from layoutkit.service.road.reach import may_reach, personal_board
from layoutkit.service.road.registry import REGISTRY
from layoutkit.service.road.workspace import Call, Workspace
from layoutkit.service.shared.common import ID, SLUG, question_view
from layoutkit.service.shared.signals import signal_work
from layoutkit.storage import BoardRecord

#: Capsules per call (operations.md, Limits).
MAX_CAPSULES = 3
#: Default and longest wait in seconds: under the 30 s many proxies allow an idle request.
DEFAULT_TIMEOUT_S = 25.0
MAX_TIMEOUT_S = 60.0
#: Default and bounds of a lease in seconds.
DEFAULT_LEASE_S = 60.0
MIN_LEASE_S = 1.0
MAX_LEASE_S = 3600.0
#: A waiter re-checks at least this often: expired leases and missed signals.
#: ``LAYOUTKIT_WORK_RECHECK_S`` (0.1 to 60) trades idle queries for how late an
#: expired lease is noticed.
RECHECK_ENV = "LAYOUTKIT_WORK_RECHECK_S"


def _recheck_from_env() -> float:
    raw = os.environ.get(RECHECK_ENV, "").strip()
    if not raw:
        return 1.0
    try:
        value = float(raw)
    except ValueError:
        raise ValueError(f"{RECHECK_ENV} is a number of seconds, not {raw!r}") from None
    if not 0.1 <= value <= 60.0:
        raise ValueError(f"{RECHECK_ENV} is between 0.1 and 60 seconds, not {raw}")
    return value


RECHECK_S = _recheck_from_env()

AGENTS_AND_PEOPLE = ("owner", "user", "agent", "service")
GROUPS = {
    "annotation": "annotations",
    "comment": "comments",
    "choice": "choices",
    "ask": "asks",
}

_AGENT = {"type": "string", "minLength": 1, "maxLength": 200}
_ITEM = {
    "type": "string",
    "pattern": "^((annotation|choice|ask):[0-9]{1,16}|comment:[0-9]{1,16}[.][0-9]{1,6})$",
}
_LEASE = {"type": "number", "minimum": MIN_LEASE_S, "maximum": MAX_LEASE_S}


# -- wait_for_work ------------------------------------------------------------


def _agent_of(call: Call) -> str:
    """Who receives: an agent token's registered name, else ``agent``, else the caller."""
    if call.principal.kind == "agent":
        return f"agent:{call.principal.name}"
    agent = call.params.get("agent")
    if agent is not None:
        if not agent.strip():
            raise ServiceError(422, "invalid_agent", "agent is empty", field="agent")
        return f"agent:{agent.strip()}"
    return call.principal.label


def _scope_board(call: Call) -> BoardRecord:
    """The board a work scope names: 404 for none in the call's workspace, 403 for one
    personal to someone else (its work is its owner's alone)."""
    board = call.tx.board_by_slug(call.workspace_id, call.params["board"])
    if board is None:
        raise ServiceError(
            404, "unknown_board", f"no board {call.params['board']!r}", board=call.params["board"]
        )
    if not may_reach(call.principal, board):
        raise personal_board(board)
    return board


def _scope(call: Call) -> tuple[list[Any], dict[str, Any]]:
    """The boards in scope and the scope as the reply names it."""
    p, tx = call.params, call.tx
    if "board" in p:
        if "project" in p or "branch" in p:
            raise ServiceError(
                400, "invalid_scope", "scope with project and branch, or with board", field="board"
            )
        board = _scope_board(call)
        return [board], {"board": board.slug}
    if "project" not in p:
        raise ServiceError(
            400,
            "invalid_scope",
            "scope with project (and branch), or with board",
            field="project",
        )
    project = tx.project_by_slug(call.workspace_id, p["project"])
    if project is None:
        raise ServiceError(
            404, "unknown_project", f"no project {p['project']!r}", project=p["project"]
        )
    branch = p.get("branch")
    boards = [
        b
        for b in tx.boards(call.workspace_id, project_id=project.id, archived=False)
        # A board made for a branch says so in meta.branch; others serve every branch.
        if (branch is None or (b.meta or {}).get("branch") in (None, branch))
        # Someone else's personal board holds no work for this caller.
        and may_reach(call.principal, b)
    ]
    scope: dict[str, Any] = {"project": project.slug}
    if branch is not None:
        scope["branch"] = branch
    return boards, scope


def _regenerate_flags(call: Call, board_id: int) -> dict[int, bool]:
    """Question id -> whether the Send that released it was a Regenerate."""
    flags: dict[int, bool] = {}
    for event in call.tx.events(board_id=board_id, action="questions.send"):
        for qid in event.detail.get("released", []):
            flags[qid] = bool(event.detail.get("regenerate", False))
    return flags


def _capsule(call: Call, item: str, boards: dict[int, Any]) -> dict[str, Any] | None:
    kind, _, raw = item.partition(":")
    tx = call.tx
    if kind == "annotation":
        a = tx.annotation(int(raw))
        if a is None:
            return None
        return {"item": item, **annotation_view(call.workspace, a, boards[a.board_id].slug)}
    if kind == "comment":
        thread, _, n = raw.partition(".")
        a = tx.annotation(int(thread))
        if a is None or a.board_id not in boards:
            return None
        view = annotation_view(call.workspace, a, boards[a.board_id].slug)
        # The message that made the item: the comment itself (0) or a person's reply.
        new = (
            {"n": 0, "author": a.author, "text": view["text"], "at": view["createdAt"]}
            if n == "0"
            else next((r for r in a.replies if str(r["n"]) == n), None)
        )
        return {"item": item, "message": new, **view}
    if kind == "choice":
        q = tx.question(int(raw))
        if q is None:
            return None
        return {
            "item": item,
            "board": boards[q.board_id].slug,
            "question": question_view(q),
            "stakes": q.stakes,
            "answers": q.answers,
            "regenerate": _regenerate_flags(call, q.board_id).get(q.id, False),
            "releasedAt": q.released_at.isoformat() if q.released_at else None,
        }
    ask = tx.work_ask(int(raw))
    return None if ask is None else {"item": item, **ask_view(call, ask)}


def ask_view(call: Call, ask: dict[str, Any]) -> dict[str, Any]:
    board = call.tx.board(ask["board_id"]) if ask["board_id"] is not None else None
    return {
        "id": ask["id"],
        "question": ask["question"],
        "context": ask["context"],
        "project": ask["project"],
        "branch": ask["branch"],
        "board": board.slug if board is not None else None,
        "author": ask["author"],
        "answer": ask["answer"],
        "answeredBy": ask["answered_by"],
        "createdAt": ask["created_at"].isoformat(),
        "answeredAt": ask["answered_at"].isoformat() if ask["answered_at"] else None,
    }


def _candidates(call: Call, boards: list[Any]) -> list[str]:
    p = call.params
    return call.tx.work_candidates(
        call.workspace_id,
        board_ids=[b.id for b in boards],
        project=p.get("project"),
        branch=p.get("branch"),
        board_id=boards[0].id if "board" in p else None,
        limit=MAX_CAPSULES * 4,
    )


_SCOPE_PROPS: dict[str, Any] = {
    "project": {"type": "string", "minLength": 1, "maxLength": 200},
    "branch": {"type": "string", "minLength": 1, "maxLength": 300},
    "board": SLUG,
    "agent": _AGENT,
    "lease": _LEASE,
}


def _base(call: Call, agent: str, scope: dict[str, Any]) -> dict[str, Any]:
    return {"agent": agent, "scope": scope, "leaseSeconds": _lease(call)}


def _lease(call: Call) -> float:
    return float(call.params.get("lease", DEFAULT_LEASE_S))


@REGISTRY.operation(
    "peek_work",
    "The read half of one wait_for_work look: {idle: true, ...} when there is nothing "
    "to claim in scope and no lease of the agent to extend, else {idle: false}.",
    {"properties": _SCOPE_PROPS, "additionalProperties": False},
    principals=AGENTS_AND_PEOPLE,
    tool=False,
)
def peek_work(call: Call) -> dict[str, Any]:
    # A look that finds nothing writes nothing: on SQLite every write transaction
    # takes the database's one write lock, and waiters look once a second.
    agent = _agent_of(call)
    boards, scope = _scope(call)
    if _candidates(call, boards) or call.tx.holds_work(call.workspace_id, agent):
        return {"idle": False}
    return {"idle": True, **_base(call, agent, scope)}


@REGISTRY.operation(
    "take_work",
    "The write half of one wait_for_work look: extend the agent's leases, then claim "
    "up to 3 free items in scope and answer them as capsules.",
    {"properties": _SCOPE_PROPS, "additionalProperties": False},
    writes=True,
    principals=AGENTS_AND_PEOPLE,
    tool=False,
)
def take_work(call: Call) -> dict[str, Any]:
    tx, lease = call.tx, _lease(call)
    agent = _agent_of(call)
    boards, scope = _scope(call)
    tx.heartbeat_work(call.workspace_id, agent, lease)
    by_id = {b.id: b for b in boards}
    out: dict[str, Any] = {
        "annotations": [],
        "comments": [],
        "choices": [],
        "asks": [],
        "sessions": [],
    }
    taken = 0
    for item in _candidates(call, boards):
        if taken == MAX_CAPSULES:
            break
        if not tx.claim_work(call.workspace_id, item, agent, lease):
            continue  # another agent won it in the meantime
        capsule = _capsule(call, item, by_id)
        if capsule is None:
            continue
        out[GROUPS[item.partition(":")[0]]].append(capsule)
        taken += 1
    claims = tx.work_claims(call.workspace_id, [c["item"] for g in out.values() for c in g])
    for group in GROUPS.values():
        for capsule in out[group]:
            claim = claims[capsule["item"]]
            capsule["lease"] = {
                "until": claim["lease_until"].isoformat(),
                "deliveries": claim["deliveries"],
            }
            # Unacknowledged, the item is delivered again once the lease runs out.
            capsule["ack"] = {"operation": "heartbeat_work", "params": {"done": [capsule["item"]]}}
    if not taken:
        return {"idle": True, **_base(call, agent, scope)}
    ends = [c["lease"]["until"] for g in GROUPS.values() for c in out[g]]
    return {**out, **_base(call, agent, scope), "leaseUntil": min(ends)}


def _look(call: Call) -> dict[str, Any]:
    """One look for work, each half through the road in a short transaction."""
    params = {k: v for k, v in call.params.items() if k != "timeout"}
    peeked = call.workspace.call("peek_work", params, call.principal)
    if peeked["idle"]:
        return peeked
    return call.workspace.call("take_work", params, call.principal)


def _timeout(params: dict[str, Any]) -> float:
    return float(params.get("timeout", DEFAULT_TIMEOUT_S))


@REGISTRY.operation(
    "wait_for_work",
    "Long poll for work in scope: project (and branch) or board. Answers up to 3 "
    "capsules grouped as annotations (open ones), comments (a person's new comment "
    "thread or new reply on an open one: the thread with message, the new one), "
    "choices (answers released by Send, "
    "regenerate true after Regenerate, with each question's stakes) and asks (answer "
    "with answer_ask), each leased to the calling agent; or {idle: true} when the wait "
    f"ends with nothing (call again). timeout in seconds (default {DEFAULT_TIMEOUT_S:g}, "
    f"at most {MAX_TIMEOUT_S:g}, 0 looks once); lease in seconds (default "
    f"{DEFAULT_LEASE_S:g}); every call extends the agent's leases. An item comes back "
    "when its lease (lease.until) runs out unless acknowledged: each item's ack is the "
    "call that finishes it (heartbeat_work {done: [item]}).",
    {
        "properties": {
            **_SCOPE_PROPS,
            "timeout": {"type": "number", "minimum": 0, "maximum": MAX_TIMEOUT_S},
        },
        "additionalProperties": False,
    },
    pure=True,
    principals=AGENTS_AND_PEOPLE,
    changes=True,
    output=outputs.WAIT_FOR_WORK,
)
def wait_for_work(call: Call) -> dict[str, Any]:
    # Pure: each look runs the road (short transactions of its own), and the
    # wait in between holds none (a blocking wait is what embedding Python asked for).
    waker = call.workspace.store.waker
    deadline = time.monotonic() + _timeout(call.params)
    while True:
        generation = waker.generation
        found = _look(call)
        left = deadline - time.monotonic()
        # A closing workspace waits for its calls: a waiter answers idle at once.
        if "idle" not in found or left <= 0 or call.workspace.closing:
            return found
        waker.wait(generation, min(left, RECHECK_S))


async def wait_for_work_async(
    ws: Workspace,
    params: dict[str, Any],
    principal: Principal | None,
    in_thread: Callable[..., Awaitable[Any]],
    *,
    stopping: Callable[[], bool] = lambda: False,
) -> dict[str, Any]:
    """``wait_for_work`` for an event loop: each look runs in a worker thread
    through ``in_thread``; between looks the call waits on the loop alone. It answers
    idle at once when the workspace closes or ``stopping`` (its server's) says so."""
    once = {**params, "timeout": 0}
    # The looks send timeout 0, so the wait asked for is checked here (a remote caller
    # asking for 61 s hears 400 as an embedder does, not a 61 s wait).
    ws.registry.get("wait_for_work").check_params(params)
    # The first look checks the rest of the params and access as the blocking call would.
    found = await in_thread(ws.call, "wait_for_work", once, principal)
    deadline = time.monotonic() + _timeout(params)
    waker = ws.store.waker
    while "idle" in found:
        left = deadline - time.monotonic()
        # A closing workspace or a stopping server answers the waiter idle at once.
        if left <= 0 or ws.closing or stopping():
            break
        generation = waker.generation
        await waker.wait_async(generation, min(left, RECHECK_S))
        if ws.closing or stopping():
            break
        found = await in_thread(ws.call, "wait_for_work", once, principal)
    return found


#: Operations an event-loop adapter runs through these instead of a worker thread.
LONG_POLLS = {"wait_for_work": wait_for_work_async}


@REGISTRY.operation(
    "heartbeat_work",
    "Keep the calling agent's leases alive (every live one is extended by lease seconds), "
    "finish items with done (never delivered again) or hand them back at once with "
    "release. Items are the item keys of wait_for_work capsules. Answers {agent, kept, "
    "done, released}.",
    {
        "properties": {
            "agent": _AGENT,
            "done": {"type": "array", "items": _ITEM, "maxItems": 100},
            "release": {"type": "array", "items": _ITEM, "maxItems": 100},
            "lease": _LEASE,
        },
        "additionalProperties": False,
    },
    writes=True,
    principals=AGENTS_AND_PEOPLE,
)
def heartbeat_work(call: Call) -> dict[str, Any]:
    tx, p = call.tx, call.params
    agent = _agent_of(call)
    done = tx.finish_work(call.workspace_id, agent, p.get("done", []), release=False)
    released = tx.finish_work(call.workspace_id, agent, p.get("release", []), release=True)
    kept = tx.heartbeat_work(call.workspace_id, agent, float(p.get("lease", DEFAULT_LEASE_S)))
    if released:
        signal_work(call)
    return {"agent": agent, "kept": kept, "done": done, "released": released}


@REGISTRY.operation(
    "post_ask",
    "Ask an AI answerer a question: delivered by wait_for_work as an ask to an agent "
    "waiting on the same project (and branch) or board, answered with answer_ask; read "
    "the answer with get_ask. Answers {ask}.",
    {
        "required": ["question"],
        "properties": {
            "question": {"type": "string", "minLength": 1, "maxLength": 8000},
            "context": {"type": "object"},
            "project": {"type": "string", "minLength": 1, "maxLength": 200},
            "branch": {"type": "string", "minLength": 1, "maxLength": 300},
            "board": SLUG,
        },
        "additionalProperties": False,
    },
    writes=True,
)
def post_ask(call: Call) -> dict[str, Any]:
    tx, p = call.tx, call.params
    fields: dict[str, Any] = {
        "question": p["question"],
        "context": p.get("context"),
        "author": call.principal.label,
    }
    if "board" in p:
        if "project" in p or "branch" in p:
            raise ServiceError(
                400, "invalid_scope", "scope with project and branch, or with board", field="board"
            )
        fields["board_id"] = _scope_board(call).id
    elif "project" in p:
        if tx.project_by_slug(call.workspace_id, p["project"]) is None:
            raise ServiceError(
                404, "unknown_project", f"no project {p['project']!r}", project=p["project"]
            )
        fields["project"] = p["project"]
        fields["branch"] = p.get("branch")
    else:
        raise ServiceError(400, "invalid_scope", "name a project or a board", field="project")
    ask = tx.insert_ask(call.workspace_id, fields)
    signal_work(call)
    return {"ask": ask_view(call, ask)}


def _the_ask(call: Call) -> dict[str, Any]:
    ask = call.tx.work_ask(call.params["id"])
    if ask is None or ask["workspace_id"] != call.workspace_id:
        raise ServiceError(404, "unknown_ask", f"no ask {call.params['id']}", id=call.params["id"])
    return ask


@REGISTRY.operation(
    "get_ask",
    "One ask with its answer (null until answer_ask).",
    {"required": ["id"], "properties": {"id": ID}, "additionalProperties": False},
)
def get_ask(call: Call) -> dict[str, Any]:
    return {"ask": ask_view(call, _the_ask(call))}


@REGISTRY.operation(
    "answer_ask",
    "Answer an ask delivered by wait_for_work; finishes its lease. 409 already_answered "
    "when someone answered first.",
    {
        "required": ["id", "answer"],
        "properties": {
            "id": ID,
            "answer": {"type": "string", "minLength": 1, "maxLength": 32000},
            "agent": _AGENT,
        },
        "additionalProperties": False,
    },
    writes=True,
    principals=AGENTS_AND_PEOPLE,
)
def answer_ask(call: Call) -> dict[str, Any]:
    ask = _the_ask(call)
    if ask["answered_at"] is not None:
        raise ServiceError(409, "already_answered", f"ask {ask['id']} is answered", id=ask["id"])
    agent = _agent_of(call)
    answered = call.tx.answer_work_ask(ask["id"], call.params["answer"], agent)
    call.tx.finish_work(call.workspace_id, None, [f"ask:{ask['id']}"], release=False)
    return {"ask": ask_view(call, answered)}
