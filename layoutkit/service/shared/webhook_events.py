"""The events a workspace's webhooks hear, and how a family reports one.

A family that makes such a change calls :func:`emit` inside the write
transaction of the change: the deliveries it owes are written as outbox rows
in that same transaction, so a change that rolls back sends nothing and a
change that commits is never lost. Sending is the dispatcher's
(``service/workspaces/webhooks.py``), outside any request.
"""

from __future__ import annotations

import threading
import weakref
from datetime import timedelta
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from layoutkit.service.road.workspace import Call, Workspace
    from layoutkit.storage import Store, Tx

#: Every event a webhook may subscribe to, with what it reports.
EVENTS: dict[str, str] = {
    "board.changed": "a board's content changed (at most one delivery per board per "
    "debounce window, carrying the latest rev)",
    "questions.sent": "a person released a board's answered questions (send_answers)",
    "annotation.filed": "a finding was filed on a board (annotate)",
    "annotation.moved": "a finding moved to another state (set_status, a verdict, withdraw)",
    "task.status_changed": "a task's status changed",
    "task.handed_back": "a working session on a task ended with a hand-back",
    "transfer.finished": "a project transfer into or out of the workspace committed",
    "review.requested": "someone asked for a review pass (request_review), with the text sent",
}

#: Board writes within this window after the first one share its delivery.
BOARD_DEBOUNCE = timedelta(seconds=5)

#: Set when outbox rows commit in this process, so a dispatcher here sends them
#: without waiting for its next poll (other processes' rows wait for that poll).
OUTBOX_WRITTEN = threading.Event()

#: The deliveries committed writes owed in this process, by the store they are in
#: (which every workspace of a database shares), for a one-shot command to send
#: before it exits (:func:`owed_here`).
_OWED_HERE: weakref.WeakKeyDictionary[Store, set[int]] = weakref.WeakKeyDictionary()
_OWED_LOCK = threading.Lock()


def owed_here(ws: Workspace) -> list[int]:
    """Take the ids of the deliveries that writes to ``ws``'s database owed in this
    process since the last take."""
    with _OWED_LOCK:
        return sorted(_OWED_HERE.pop(ws.store, ()))


def committed(ws: Workspace, ids: list[int]) -> None:
    """Note deliveries a commit through ``ws`` wrote, and wake the dispatcher."""
    with _OWED_LOCK:
        _OWED_HERE.setdefault(ws.store, set()).update(ids)
    OUTBOX_WRITTEN.set()


def emit(
    call: Call,
    event: str,
    data: dict[str, Any],
    *,
    workspace_id: int | None = None,
    coalesce_key: str | None = None,
    delay: timedelta = timedelta(0),
) -> int:
    """Owe ``event`` with ``data`` to the webhooks of the call's workspace (or of
    ``workspace_id``), in the call's transaction; see :func:`owe`."""
    space = call.workspace_id if workspace_id is None else workspace_id
    return owe(call.workspace, call.tx, space, event, data, coalesce_key=coalesce_key, delay=delay)


def owe(
    ws: Workspace,
    tx: Tx,
    workspace_id: int,
    event: str,
    data: dict[str, Any],
    *,
    coalesce_key: str | None = None,
    delay: timedelta = timedelta(0),
) -> int:
    """Owe ``event`` with ``data`` to every active webhook of ``workspace_id`` that
    subscribed to it, in ``tx`` of ``ws``; the number of deliveries written or coalesced.
    ``coalesce_key`` folds the event into a delivery of the same key that is still
    waiting; ``delay`` is how long a new one waits before its first attempt."""
    assert event in EVENTS, event
    hooks = [h for h in tx.webhooks(workspace_id, active=True) if event in h.events]
    if not hooks:
        return 0
    due = tx.now() + delay
    ids = [
        tx.queue_webhook_delivery(hook.id, event, data, due=due, coalesce_key=coalesce_key).id
        for hook in hooks
    ]
    tx.on_end(lambda done: committed(ws, ids) if done else None)
    return len(hooks)
