"""The events a workspace's webhooks hear, and how a family reports one.

A family that makes such a change calls :func:`emit` inside the write
transaction of the change: the deliveries it owes are written as outbox rows
in that same transaction, so a change that rolls back sends nothing and a
change that commits is never lost. Sending is the dispatcher's
(``service/workspaces/webhooks.py``), outside any request.
"""

from __future__ import annotations

import threading
from datetime import timedelta
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from layoutkit.service.road.workspace import Call
    from layoutkit.storage import Tx

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
    return owe(call.tx, space, event, data, coalesce_key=coalesce_key, delay=delay)


def owe(
    tx: Tx,
    workspace_id: int,
    event: str,
    data: dict[str, Any],
    *,
    coalesce_key: str | None = None,
    delay: timedelta = timedelta(0),
) -> int:
    """Owe ``event`` with ``data`` to every active webhook of ``workspace_id`` that
    subscribed to it, in ``tx``; the number of deliveries written or coalesced.
    ``coalesce_key`` folds the event into a delivery of the same key that is still
    waiting; ``delay`` is how long a new one waits before its first attempt."""
    assert event in EVENTS, event
    hooks = [h for h in tx.webhooks(workspace_id, active=True) if event in h.events]
    if not hooks:
        return 0
    due = tx.now() + delay
    for hook in hooks:
        tx.queue_webhook_delivery(hook.id, event, data, due=due, coalesce_key=coalesce_key)
    tx.on_end(lambda committed: OUTBOX_WRITTEN.set() if committed else None)
    return len(hooks)
