"""Outbound webhooks: registering them, and the dispatcher that sends their deliveries.

An admin registers a URL with the events it wants (``shared/webhook_events.py``
lists them). Families write what each webhook is owed as outbox rows in the
transaction of the change; a :class:`Dispatcher` thread, started when a server
starts (the ``webhooks`` resumer), claims due rows with a lease so one process
sends each, POSTs them signed, and retries failures with exponential backoff and
jitter for a day. docs/webhooks.md is the integrator's side: body, headers,
signature, retries.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import os
import random
import secrets
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta
from typing import Any

from layoutkit.errors import ServiceError
from layoutkit.net import Fetcher, FetchError, allowed_target, parse_target
from layoutkit.service.boards.boards import board_url
from layoutkit.service.road import hooks
from layoutkit.service.road.registry import PEOPLE, REGISTRY
from layoutkit.service.road.workspace import Call, Workspace
from layoutkit.service.shared.webhook_events import (
    BOARD_DEBOUNCE,
    EVENTS,
    OUTBOX_WRITTEN,
    committed,
    owe,
    owed_here,
)
from layoutkit.storage import BoardRecord, Tx, WebhookDeliveryRecord, WebhookRecord

log = logging.getLogger("layoutkit.webhooks")

#: Hosts (names or IP literals, comma separated) a deployment lets webhooks reach
#: although the public-address rules would refuse them.
ALLOW_ENV = "LAYOUTKIT_WEBHOOK_ALLOW_HOSTS"
#: The first retry waits about this long; each next one twice as long ...
FIRST_RETRY = timedelta(seconds=30)
#: ... up to this ...
MAX_RETRY = timedelta(hours=1)
#: ... and a delivery not answered with a 2xx this long after it was written fails.
RETRY_FOR = timedelta(days=1)
#: How long a claim keeps other processes off a delivery being sent: past the
#: send's own time limit, so a live sender is never overtaken.
LEASE = timedelta(seconds=60)
#: How often a dispatcher looks for due deliveries written by other processes.
POLL_S = 1.0
#: Time limit of one attempt, connection included.
SEND_TIMEOUT_S = 10.0
#: The answer's first characters a delivery keeps.
EXCERPT = 500
#: Deliveries one pass of the dispatcher claims at most.
BATCH = 20
#: Deliveries one process sends at once, so one slow receiver (up to
#: :data:`SEND_TIMEOUT_S` per attempt) does not hold up every other workspace's.
SENDERS = 4

SIGNATURE_HEADER = "X-Layoutkit-Signature"
TIMESTAMP_HEADER = "X-Layoutkit-Timestamp"
DELIVERY_HEADER = "X-Layoutkit-Delivery"
EVENT_HEADER = "X-Layoutkit-Event"
USER_AGENT = "layoutkit-webhooks/1"

_ID = {"type": "integer", "minimum": 1}
_EVENTS = {
    "type": "array",
    "minItems": 1,
    "maxItems": len(EVENTS),
    "uniqueItems": True,
    "items": {"enum": list(EVENTS)},
    "description": "the events to deliver: " + "; ".join(f"{k}: {v}" for k, v in EVENTS.items()),
}
_URL = {
    "type": "string",
    "minLength": 1,
    "maxLength": 2048,
    "description": "where deliveries are POSTed: a public http(s) address",
}
_SECRET = {
    "type": "string",
    "minLength": 16,
    "maxLength": 200,
    "description": "the signing secret (default: one is made and returned once)",
}


def allowed_hosts() -> frozenset[str]:
    """The hosts :data:`ALLOW_ENV` exempts from the public-address rules, lower case."""
    raw = os.environ.get(ALLOW_ENV, "")
    return frozenset(h.strip().lower().strip("[]") for h in raw.split(",") if h.strip())


def sign(secret: str, timestamp: str, body: bytes) -> str:
    """The signature of a delivery: hex HMAC-SHA256 of ``timestamp.body`` under ``secret``."""
    message = timestamp.encode("ascii") + b"." + body
    return hmac.new(secret.encode("utf-8"), message, hashlib.sha256).hexdigest()


def _checked_url(url: str) -> str:
    """``url`` as it will be dialled, or 400 ``refused_url`` naming the rule it breaks."""
    try:
        target = allowed_target(url, allowed_hosts()) or parse_target(url)
    except FetchError as err:
        raise ServiceError(
            400,
            "refused_url",
            f"webhook URL refused: {err.message} (a deployment allows a host with {ALLOW_ENV})",
            field="url",
            reason=err.code,
        ) from err
    return target.url


def _when(value: datetime | None) -> str | None:
    return None if value is None else value.isoformat()


def _webhook_view(hook: WebhookRecord) -> dict[str, Any]:
    return {
        "id": hook.id,
        "url": hook.url,
        "events": list(hook.events),
        "active": hook.active,
        "createdBy": hook.created_by,
        "created": hook.created_at.isoformat(),
        "updated": hook.updated_at.isoformat(),
    }


def _delivery_view(d: WebhookDeliveryRecord) -> dict[str, Any]:
    return {
        "id": d.id,
        "webhook": d.webhook_id,
        "event": d.event,
        "status": d.status,
        "attempts": d.attempts,
        "responseStatus": d.response_status,
        "response": d.response_excerpt,
        "error": d.error,
        "occurred": d.occurred_at.isoformat(),
        "lastAttempt": _when(d.last_attempt_at),
        "nextAttempt": _when(d.next_attempt_at) if d.status == "pending" else None,
        "redeliveryOf": d.redelivery_of,
        "data": d.data,
    }


def _own_webhook(call: Call, webhook_id: int, field: str = "id") -> WebhookRecord:
    hook = call.tx.webhook(webhook_id)
    if hook is None or hook.workspace_id != call.workspace_id:
        # Another workspace's webhook answers as one that never was.
        raise ServiceError(404, "unknown_webhook", f"no webhook {webhook_id}", field=field)
    return hook


def _new_secret() -> str:
    return "whsec_" + secrets.token_urlsafe(32)


@REGISTRY.operation(
    "create_webhook",
    "Register a webhook: deliveries of the chosen events are POSTed to url as JSON "
    "{id, event, workspace, occurred, data}, signed with the secret (X-Layoutkit-Signature: "
    "hex HMAC-SHA256 of '<X-Layoutkit-Timestamp>.<body>'; docs/webhooks.md). Without a "
    "secret one is made; the secret is returned here once and never shown again. Private "
    "and loopback addresses are refused (400 refused_url) unless the deployment allows "
    "the host. Admins only.",
    {
        "required": ["url", "events"],
        "properties": {"url": _URL, "events": _EVENTS, "secret": _SECRET},
        "additionalProperties": False,
    },
    writes=True,
    principals=PEOPLE,
    role="admin",
)
def create_webhook(call: Call) -> dict[str, Any]:
    p = call.params
    secret = p.get("secret") or _new_secret()
    hook = call.tx.create_webhook(
        call.workspace_id,
        url=_checked_url(p["url"]),
        events=list(p["events"]),
        secret=secret,
        created_by=call.principal.label,
    )
    call.tx.record_event(
        "webhook.create", call.principal.label, detail={"id": hook.id, "url": hook.url}
    )
    return {"webhook": _webhook_view(hook), "secret": secret}


@REGISTRY.operation(
    "list_webhooks",
    "List the workspace's webhooks: id, url, events, active, who made each and when; "
    "active keeps the webhooks switched on (true) or off (false). Secrets are never "
    "shown. Admins only.",
    {
        "properties": {"active": {"type": "boolean", "description": "only webhooks on, or off"}},
        "additionalProperties": False,
    },
    principals=PEOPLE,
    role="admin",
)
def list_webhooks(call: Call) -> dict[str, Any]:
    rows = call.tx.webhooks(call.workspace_id, active=call.params.get("active"))
    return {"webhooks": [_webhook_view(h) for h in rows]}


@REGISTRY.operation(
    "update_webhook",
    "Change a webhook's url, events or active (an inactive webhook keeps its pending "
    "deliveries and sends them once active again); rotateSecret true makes a new secret, "
    "returned once. Admins only.",
    {
        "required": ["id"],
        "properties": {
            "id": _ID,
            "url": _URL,
            "events": _EVENTS,
            "active": {"type": "boolean"},
            "rotateSecret": {"type": "boolean"},
        },
        "additionalProperties": False,
    },
    writes=True,
    principals=PEOPLE,
    role="admin",
)
def update_webhook(call: Call) -> dict[str, Any]:
    p = call.params
    hook = _own_webhook(call, p["id"])
    fields: dict[str, Any] = {}
    if "url" in p:
        fields["url"] = _checked_url(p["url"])
    if "events" in p:
        fields["events"] = list(p["events"])
    if "active" in p:
        fields["active"] = p["active"]
    secret = _new_secret() if p.get("rotateSecret") else None
    if secret is not None:
        fields["secret"] = secret
    if fields:
        hook = call.tx.update_webhook(hook.id, **fields)
        call.tx.record_event(
            "webhook.update",
            call.principal.label,
            detail={"id": hook.id, "changed": sorted(fields)},
        )
    out: dict[str, Any] = {"webhook": _webhook_view(hook)}
    if secret is not None:
        out["secret"] = secret
    return out


@REGISTRY.operation(
    "delete_webhook",
    "Delete a webhook with its deliveries, pending ones included. Admins only.",
    {"required": ["id"], "properties": {"id": _ID}, "additionalProperties": False},
    writes=True,
    destroys=True,
    principals=PEOPLE,
    role="admin",
)
def delete_webhook(call: Call) -> dict[str, Any]:
    hook = _own_webhook(call, call.params["id"])
    call.tx.delete_webhook(hook.id)
    call.tx.record_event("webhook.delete", call.principal.label, detail={"id": hook.id})
    return {"id": hook.id, "deleted": True}


@REGISTRY.operation(
    "list_webhook_deliveries",
    "A webhook's deliveries, newest first: event, status (pending, delivered, failed), "
    "attempts, the last answer's status code and first characters, the last error, when "
    "the next attempt is due, and the data sent. status keeps one status; before (a "
    "delivery id) pages back; limit at most 200 (default 50). Admins only.",
    {
        "required": ["id"],
        "properties": {
            "id": _ID,
            "status": {"enum": ["pending", "delivered", "failed"]},
            "before": _ID,
            "limit": {"type": "integer", "minimum": 1, "maximum": 200},
        },
        "additionalProperties": False,
    },
    principals=PEOPLE,
    role="admin",
)
def list_webhook_deliveries(call: Call) -> dict[str, Any]:
    p = call.params
    hook = _own_webhook(call, p["id"])
    rows = call.tx.webhook_deliveries(
        hook.id, status=p.get("status"), before=p.get("before"), limit=p.get("limit", 50)
    )
    return {"webhook": hook.id, "deliveries": [_delivery_view(d) for d in rows]}


@REGISTRY.operation(
    "redeliver_webhook",
    "Send a delivery again by hand (any status): a new delivery of the same event and "
    "data, due now, with redeliveryOf naming the original and a day of retries of its "
    "own. Admins only.",
    {"required": ["delivery"], "properties": {"delivery": _ID}, "additionalProperties": False},
    writes=True,
    principals=PEOPLE,
    role="admin",
)
def redeliver_webhook(call: Call) -> dict[str, Any]:
    tx = call.tx
    found = tx.webhook_delivery(call.params["delivery"])
    hook = None if found is None else tx.webhook(found.webhook_id)
    if found is None or hook is None or hook.workspace_id != call.workspace_id:
        raise ServiceError(
            404,
            "unknown_delivery",
            f"no webhook delivery {call.params['delivery']}",
            field="delivery",
        )
    again = tx.queue_webhook_delivery(
        hook.id, found.event, found.data, due=tx.now(), redelivery_of=found.id
    )
    tx.on_end(lambda done: committed(call.workspace, [again.id]) if done else None)
    return {"delivery": _delivery_view(again)}


# ---------------------------------------------------------------- board changes


def _board_changed(ws: Workspace, tx: Tx, before: BoardRecord) -> None:
    """Owe ``board.changed`` for a write that moved the board's rev; writes within
    :data:`BOARD_DEBOUNCE` of the first fold into its delivery."""
    wanted = tx.webhooks(before.workspace_id, active=True)
    if not any("board.changed" in h.events for h in wanted):
        # The common case, settled with one indexed read of a small table.
        return
    now = tx.board(before.id)
    if now is None or now.rev == before.rev:
        return
    owe(
        ws,
        tx,
        now.workspace_id,
        "board.changed",
        {"board": now.slug, "rev": now.rev, "url": board_url(ws, now.slug)},
        coalesce_key=f"board:{now.id}",
        delay=BOARD_DEBOUNCE,
    )


hooks.on_board_writing(_board_changed)


# ---------------------------------------------------------------- sending


def backoff(attempts: int, rng: random.Random) -> timedelta:
    """The wait after the ``attempts``-th failed attempt: doubling from
    :data:`FIRST_RETRY` up to :data:`MAX_RETRY`, then between half and all of it
    at random, so receivers coming back up are not hit by every sender at once."""
    full = min(FIRST_RETRY * (2 ** max(attempts - 1, 0)), MAX_RETRY)
    return full * rng.uniform(0.5, 1.0)


def body_of(d: WebhookDeliveryRecord, workspace: str) -> bytes:
    """The JSON body of delivery ``d``: the same bytes at every attempt."""
    doc = {
        "id": d.id,
        "event": d.event,
        "workspace": workspace,
        "occurred": d.occurred_at.isoformat(),
        "data": d.data,
    }
    return json.dumps(doc, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


class Dispatcher:
    """Sends due deliveries of every workspace in the database, up to
    :data:`SENDERS` at once.

    One per :class:`Workspace` (an extension); :meth:`start` runs it on a daemon
    thread, :meth:`deliver_due` runs one pass on the caller's thread (tests, and
    the thread's own loop). Any number of dispatchers may share a database: a
    delivery is sent by the one that claimed it.
    """

    def __init__(self, ws: Workspace) -> None:
        self.ws = ws
        self.fetcher = Fetcher(max_bytes=EXCERPT * 4, time_limit=SEND_TIMEOUT_S)
        self.random = random.Random()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def start(self) -> None:
        """Run the dispatcher's loop on a thread of its own (once)."""
        with self._lock:
            # A workspace closing already (a resume job that ran late) starts nothing:
            # its store is about to close under the thread.
            if self._thread is not None or self._stop.is_set() or self.ws.closing:
                return
            self._thread = threading.Thread(target=self._loop, name="webhooks", daemon=True)
            self._thread.start()

    def close(self) -> None:
        """Stop the loop; a send under way finishes first (bounded by its time limit)."""
        self._stop.set()
        OUTBOX_WRITTEN.set()
        # Under the lock: start() names its thread before starting it, and a thread
        # named but not yet started cannot be joined.
        with self._lock:
            thread = self._thread
        if thread is not None:
            thread.join(SEND_TIMEOUT_S + 5)

    def _loop(self) -> None:
        while not self._stop.is_set():
            try:
                self.deliver_due()
            except Exception:
                if self._stop.is_set():
                    return
                log.exception("a webhook dispatch pass failed")
            OUTBOX_WRITTEN.wait(POLL_S)
            OUTBOX_WRITTEN.clear()

    def deliver_due(self, workspace_id: int | None = None) -> int:
        """Claim and send the deliveries due now, of every workspace in the database
        or of ``workspace_id``; how many were attempted."""
        due = self.ws.cache_read(
            lambda tx: tx.due_webhook_deliveries(BATCH, workspace_id=workspace_id)
        )
        if len(due) <= 1:
            return sum(self._deliver(i) for i in due)
        with ThreadPoolExecutor(min(SENDERS, len(due)), "webhook-send") as pool:
            return sum(pool.map(self._deliver, due))

    def send_owed_here(self, time_limit: float) -> int:
        """Send the deliveries this process's own writes owed, before a one-shot
        process (a local CLI command) exits: debounce windows included, since no
        later write of this process will fold into them. What is not sent within
        ``time_limit`` seconds waits for the next server on the database."""
        owed = owed_here(self.ws)
        if not owed:
            return 0
        deadline = time.monotonic() + time_limit

        def deliver(delivery_id: int) -> int:
            if time.monotonic() >= deadline:
                return 0
            return self._deliver(delivery_id, early=True)

        with ThreadPoolExecutor(min(SENDERS, len(owed)), "webhook-send") as pool:
            return sum(pool.map(deliver, owed))

    def _deliver(self, delivery_id: int, *, early: bool = False) -> int:
        """Claim, send and record one delivery; 1 if it was attempted here."""
        if self._stop.is_set():
            return 0
        claimed = self.ws.write(lambda tx: _claim(tx, delivery_id, early=early))
        if claimed is None:
            return 0  # another process claimed it, or its webhook went meanwhile
        delivery, hook, workspace = claimed
        answer = self._send(delivery, hook, workspace)
        self.ws.write(lambda tx: self._record(tx, delivery, answer))
        return 1

    def _send(
        self, d: WebhookDeliveryRecord, hook: WebhookRecord, workspace: str
    ) -> tuple[int | None, str | None, str | None]:
        """One POST: the answer's status and excerpt, or the error that stopped it."""
        body = body_of(d, workspace)
        stamp = str(int(self.ws.store.clock().timestamp()))
        headers = {
            "content-type": "application/json",
            "accept": "*/*",
            "user-agent": USER_AGENT,
            DELIVERY_HEADER: str(d.id),
            EVENT_HEADER: d.event,
            TIMESTAMP_HEADER: stamp,
            SIGNATURE_HEADER: sign(hook.secret, stamp, body),
        }
        try:
            got = self.fetcher.post(hook.url, body, headers, allow=allowed_hosts())
        except FetchError as err:
            return None, None, f"{err.code}: {err.message}"[:EXCERPT]
        excerpt = got.body.decode("utf-8", errors="replace")[:EXCERPT]
        return got.status, excerpt, None

    def _record(
        self,
        tx: Tx,
        d: WebhookDeliveryRecord,
        answer: tuple[int | None, str | None, str | None],
    ) -> WebhookDeliveryRecord:
        status, excerpt, error = answer
        if status is not None and 200 <= status < 300:
            state, next_at = "delivered", None
        else:
            if error is None:
                error = f"answered {status}"
            wait = backoff(d.attempts + 1, self.random)
            next_at = tx.now() + wait
            state = "pending"
            if next_at > d.created_at + RETRY_FOR:
                state, next_at = "failed", None
        return tx.finish_webhook_attempt(
            d.id,
            status=state,
            next_attempt_at=next_at,
            response_status=status,
            response_excerpt=excerpt,
            error=error,
        )


def _claim(
    tx: Tx, delivery_id: int, *, early: bool = False
) -> tuple[WebhookDeliveryRecord, WebhookRecord, str] | None:
    delivery = tx.claim_webhook_delivery(delivery_id, LEASE, early=early)
    if delivery is None:
        return None
    hook = tx.webhook(delivery.webhook_id)
    space = None if hook is None else tx.workspace(hook.workspace_id)
    if hook is None or space is None:
        return None
    return delivery, hook, space.name


hooks.extension(Dispatcher, Dispatcher)


def resume(ws: Workspace) -> int:
    """Start this workspace's dispatcher; the deliveries waiting now (sent by it, or
    by another process's, whichever claims each first)."""
    if ws.closing:
        return 0
    ws.extension(Dispatcher).start()
    return len(ws.cache_read(lambda tx: tx.due_webhook_deliveries(BATCH)))


hooks.resumer("webhooks", resume)
