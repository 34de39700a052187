"""Webhooks: registration, the outbox, signed delivery, retries, redelivery and the address rules.

A real HTTP receiver on 127.0.0.1 answers the deliveries (allowed through
``LAYOUTKIT_WEBHOOK_ALLOW_HOSTS``); retries run on an injected store clock, so no
test sleeps through a backoff.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import threading
import time
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from layoutkit import Principal, Workspace
from layoutkit.net import Unfurled
from layoutkit.service.workspaces import webhooks
from layoutkit.service.workspaces.webhooks import ALLOW_ENV, Dispatcher
from layoutkit.storage import open_store
from tests.loopback import QuietHandler
from tests.service.helpers import err
from tests.service.review.test_annotations import box, image_card, item
from tests.service.transfer_fixtures import BACKENDS, backend_url, build_project, two_workspaces

ANA = Principal("user", "ana", role="admin")
DEADLINE_S = 20.0


class Clock:
    """The store's clock, moved by hand."""

    def __init__(self) -> None:
        self.now = datetime.now(UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, delta: timedelta) -> None:
        self.now += delta


class Receiver:
    """An HTTP server on 127.0.0.1 that answers each POST with the next planned status
    (200 once the plan runs out) and keeps what it received."""

    def __init__(self, plan: list[int] | None = None) -> None:
        self.plan = list(plan or [])
        self.got: list[tuple[dict[str, str], bytes]] = []
        self.arrived = threading.Condition()
        receiver = self

        class Handler(QuietHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("content-length", "0")))
                with receiver.arrived:
                    status = receiver.plan.pop(0) if receiver.plan else 200
                    receiver.got.append(({k.lower(): v for k, v in self.headers.items()}, body))
                    receiver.arrived.notify_all()
                answer = b"ok" if status < 300 else b"try later " * 100
                self.send_response(status)
                self.send_header("content-length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/hook"

    def wait_for(self, count: int) -> None:
        with self.arrived:
            assert self.arrived.wait_for(lambda: len(self.got) >= count, DEADLINE_S)

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def receiver(monkeypatch: pytest.MonkeyPatch) -> Iterator[Receiver]:
    monkeypatch.setenv(ALLOW_ENV, "127.0.0.1")
    got = Receiver()
    yield got
    got.close()


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture(params=BACKENDS)
def ws(request: pytest.FixtureRequest, tmp_path: Path, clock: Clock) -> Iterator[Workspace]:
    """A workspace on each backend whose store runs on ``clock``."""
    store = open_store(backend_url(request.param, tmp_path), clock=clock)
    space = Workspace(store, name=f"hooks-{uuid.uuid4().hex[:10]}")
    space.public_url = "https://lk.example.com"
    try:
        yield space
    finally:
        space.close()


def hook(ws: Workspace, url: str, *events: str, **more: Any) -> dict[str, Any]:
    return ws.call("create_webhook", {"url": url, "events": list(events), **more}, ANA)


def deliveries(ws: Workspace, webhook_id: int, **more: Any) -> list[dict[str, Any]]:
    params = {"id": webhook_id, **more}
    return ws.call("list_webhook_deliveries", params, ANA)["deliveries"]


def deliver(ws: Workspace) -> int:
    # This workspace's only: a shared PostgreSQL holds other tests' workspaces too.
    return ws.extension(Dispatcher).deliver_due(ws.workspace_id)


def new_task(ws: Workspace, title: str = "Ship it") -> int:
    return int(ws.call("create", {"kind": "task", "title": title})["task"]["id"])


def move_task(ws: Workspace, task: int, status: str) -> None:
    ws.call("update", {"kind": "task", "id": task, "status": status})


def verify(secret: str, headers: dict[str, str], body: bytes) -> bool:
    """What docs/webhooks.md tells a receiver to do."""
    stamp = headers["x-layoutkit-timestamp"]
    expected = hmac.new(secret.encode(), stamp.encode() + b"." + body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected, headers["x-layoutkit-signature"])


# ---------------------------------------------------------------- delivery


def test_a_delivery_is_signed_and_carries_absolute_links(ws: Workspace, receiver: Receiver) -> None:
    made = hook(ws, receiver.url, "task.status_changed")
    secret = made["secret"]
    assert secret.startswith("whsec_")
    assert "secret" not in json.dumps(ws.call("list_webhooks", {}, ANA))
    task = new_task(ws)
    move_task(ws, task, "in_progress")
    assert deliver(ws) == 1
    ((headers, body),) = receiver.got
    assert verify(secret, headers, body)
    assert not verify(secret + "x", headers, body)
    assert not verify(secret, headers, body.replace(b"in_progress", b"done"))
    doc = json.loads(body)
    assert set(doc) == {"id", "event", "workspace", "occurred", "data"}
    assert (doc["event"], doc["workspace"]) == ("task.status_changed", ws.name)
    assert headers["x-layoutkit-event"] == "task.status_changed"
    assert headers["x-layoutkit-delivery"] == str(doc["id"])
    assert doc["data"]["to"] == "in_progress"
    assert doc["data"]["task"]["url"] == f"https://lk.example.com/tasks/{task}"
    (row,) = deliveries(ws, made["webhook"]["id"])
    assert (row["status"], row["attempts"], row["responseStatus"], row["response"]) == (
        "delivered",
        1,
        200,
        "ok",
    )


def test_a_given_secret_signs_and_is_never_shown_again(ws: Workspace, receiver: Receiver) -> None:
    secret = "a-secret-of-our-own-choosing"
    made = hook(ws, receiver.url, "task.status_changed", secret=secret)
    assert made["secret"] == secret
    move_task(ws, new_task(ws), "todo")
    deliver(ws)
    ((headers, body),) = receiver.got
    assert (
        webhooks.sign(secret, headers["x-layoutkit-timestamp"], body)
        == (headers["x-layoutkit-signature"])
    )
    rotated = ws.call("update_webhook", {"id": made["webhook"]["id"], "rotateSecret": True}, ANA)
    assert rotated["secret"] not in (secret, None)
    move_task(ws, new_task(ws), "todo")
    deliver(ws)
    headers, body = receiver.got[1]
    assert verify(rotated["secret"], headers, body) and not verify(secret, headers, body)


def test_a_receiver_that_fails_twice_then_answers(
    ws: Workspace, receiver: Receiver, clock: Clock
) -> None:
    receiver.plan = [500, 503]
    made = hook(ws, receiver.url, "task.status_changed")
    move_task(ws, new_task(ws), "todo")
    assert deliver(ws) == 1
    (row,) = deliveries(ws, made["webhook"]["id"])
    assert (row["status"], row["attempts"], row["responseStatus"]) == ("pending", 1, 500)
    assert row["response"].startswith("try later") and len(row["response"]) == 500
    waited = datetime.fromisoformat(row["nextAttempt"]) - clock.now
    assert webhooks.FIRST_RETRY / 2 <= waited <= webhooks.FIRST_RETRY
    assert deliver(ws) == 0  # not due yet
    clock.advance(webhooks.MAX_RETRY)
    assert deliver(ws) == 1
    clock.advance(webhooks.MAX_RETRY)
    assert deliver(ws) == 1
    (row,) = deliveries(ws, made["webhook"]["id"])
    assert (row["status"], row["attempts"], row["responseStatus"]) == ("delivered", 3, 200)
    assert row["nextAttempt"] is None
    bodies = {body for _, body in receiver.got}
    assert len(receiver.got) == 3 and len(bodies) == 1  # the same body every time


def test_retries_stop_after_a_day(ws: Workspace, receiver: Receiver, clock: Clock) -> None:
    receiver.plan = [500] * 100
    made = hook(ws, receiver.url, "task.status_changed")
    move_task(ws, new_task(ws), "todo")
    for _ in range(60):
        deliver(ws)
        (row,) = deliveries(ws, made["webhook"]["id"])
        if row["status"] != "pending":
            break
        clock.advance(webhooks.MAX_RETRY)
    assert (row["status"], row["nextAttempt"]) == ("failed", None)
    assert 20 < row["attempts"] < 60
    first = datetime.fromisoformat(row["occurred"])
    assert datetime.fromisoformat(row["lastAttempt"]) - first <= webhooks.RETRY_FOR


def test_backoff_doubles_with_jitter_up_to_its_cap() -> None:
    import random

    rng = random.Random(7)
    waits = [webhooks.backoff(n, rng) for n in range(1, 12)]
    for n, wait in enumerate(waits, start=1):
        full = min(webhooks.FIRST_RETRY * 2 ** (n - 1), webhooks.MAX_RETRY)
        assert full / 2 <= wait <= full
    assert len({w.total_seconds() for w in waits[-3:]}) == 3  # jittered, not lockstep


def test_a_slow_receiver_does_not_hold_up_the_others(ws: Workspace, receiver: Receiver) -> None:
    # Each answer waits until the other request has arrived too: sent one at a
    # time, the first would time out and neither would be delivered.
    both = threading.Barrier(2, timeout=DEADLINE_S)

    class Handler(QuietHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("content-length", "0")))
            both.wait()
            self.send_response(204)
            self.end_headers()

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    ).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}"
        made = [hook(ws, f"{url}/{n}", "task.status_changed") for n in range(2)]
        move_task(ws, new_task(ws), "in_progress")
        assert deliver(ws) == 2
        for m in made:
            (sent,) = deliveries(ws, m["webhook"]["id"])
            assert (sent["status"], sent["responseStatus"]) == ("delivered", 204)
    finally:
        server.shutdown()
        server.server_close()


def test_redelivery_sends_the_same_event_again(ws: Workspace, receiver: Receiver) -> None:
    made = hook(ws, receiver.url, "task.status_changed")
    move_task(ws, new_task(ws), "todo")
    deliver(ws)
    (first,) = deliveries(ws, made["webhook"]["id"])
    again = ws.call("redeliver_webhook", {"delivery": first["id"]}, ANA)["delivery"]
    assert (again["status"], again["redeliveryOf"], again["attempts"]) == (
        "pending",
        first["id"],
        0,
    )
    assert deliver(ws) == 1
    one, two = (json.loads(body) for _, body in receiver.got)
    assert one["data"] == two["data"] and one["id"] != two["id"] == again["id"]
    rows = deliveries(ws, made["webhook"]["id"], status="delivered")
    assert [r["id"] for r in rows] == [again["id"], first["id"]]


def test_board_changes_are_debounced(ws: Workspace, receiver: Receiver, clock: Clock) -> None:
    made = hook(ws, receiver.url, "board.changed")
    ws.call("create", {"kind": "board", "slug": "plan"})
    for n in range(3):
        ws.call(
            "compose_board",
            {"board": "plan", "cards": [{"kind": "text", "payload": {"md": f"n{n}"}}]},
        )
    assert len(deliveries(ws, made["webhook"]["id"])) == 1
    assert deliver(ws) == 0  # the window is still open
    clock.advance(webhooks.BOARD_DEBOUNCE)
    assert deliver(ws) == 1
    ((_, body),) = receiver.got
    doc = json.loads(body)
    board = ws.cache_read(lambda tx: tx.board_by_slug(ws.workspace_id, "plan"))
    assert board is not None
    rev = board.rev
    assert doc["data"] == {"board": "plan", "rev": rev, "url": "https://lk.example.com/boards/plan"}
    # The next write after a sent delivery opens a new window.
    ws.call(
        "compose_board", {"board": "plan", "cards": [{"kind": "text", "payload": {"md": "later"}}]}
    )
    assert len(deliveries(ws, made["webhook"]["id"])) == 2


class HeldUnfurler:
    """An unfurler whose fetches wait for the test, so a landing comes when it says."""

    def __init__(self) -> None:
        self.go = threading.Event()

    def unfurl(self, url: str) -> Unfurled:
        assert self.go.wait(DEADLINE_S)
        return Unfurled({"title": "Fetched title", "meta": {"url": url}})


def test_a_background_landing_tells_of_the_board_change(
    ws: Workspace, receiver: Receiver, clock: Clock
) -> None:
    held = HeldUnfurler()
    ws.unfurler = held  # type: ignore[assignment]
    made = hook(ws, receiver.url, "board.changed")
    ws.call("create", {"kind": "board", "slug": "links"})
    card = {"kind": "link", "payload": {"url": "https://docs.example.org/guide"}}
    ws.call("compose_board", {"board": "links", "cards": [card]})
    clock.advance(webhooks.BOARD_DEBOUNCE)
    assert deliver(ws) == 1  # the compose's own change, sent before the fetch lands

    held.go.set()
    deadline = time.monotonic() + DEADLINE_S
    while ws.jobs.pending:
        assert time.monotonic() < deadline, "the link never landed"
        time.sleep(0.01)
    landed = ws.call("scrape_board", {"board": "links"})["cards"][0]["payload"]
    assert landed["title"] == "Fetched title"
    owed = deliveries(ws, made["webhook"]["id"])
    assert len(owed) == 2
    board = ws.cache_read(lambda tx: tx.board_by_slug(ws.workspace_id, "links"))
    assert board is not None
    assert owed[0]["data"]["rev"] == board.rev and owed[0]["status"] == "pending"


def test_every_event_people_integrate_with_is_written(ws: Workspace, receiver: Receiver) -> None:
    made = hook(ws, receiver.url, "questions.sent", "task.status_changed", "task.handed_back")
    ws.call("create", {"kind": "board", "slug": "q"})
    q = ws.call("ask_board", {"board": "q", "prompt": "Which store?", "options": ["A", "B"]})
    ws.call("answer_question", {"id": q["question"]["id"], "answer": "A"}, ANA)
    ws.call("send_answers", {"board": "q"}, ANA)
    task = new_task(ws)
    ws.call("hand_back", {"id": task, "summary": "Did the thing", "status": "in_review"})
    seen = {r["event"]: r["data"] for r in deliveries(ws, made["webhook"]["id"])}
    assert set(seen) == {"questions.sent", "task.status_changed", "task.handed_back"}
    assert seen["questions.sent"]["questions"][0]["id"] == q["question"]["id"]
    assert seen["task.status_changed"]["to"] == "in_review"
    assert seen["task.handed_back"]["handBack"]["summary"] == "Did the thing"


def test_a_review_request_goes_to_the_webhooks_that_listen_for_it(
    ws: Workspace, receiver: Receiver
) -> None:
    unheard = ws.call("request_review", {"instructions": "Check the checkout button."})
    assert (unheard["delivered"], unheard["webhooks"]) == (False, 0)
    assert "review.requested" in unheard["next"] and "create_webhook" in unheard["next"]
    made = hook(ws, receiver.url, "review.requested")["webhook"]["id"]
    heard = ws.call("request_review", {"instructions": "Check the checkout button."})
    assert (heard["delivered"], heard["webhooks"]) == (True, 1) and "next" not in heard
    (told,) = deliveries(ws, made)
    assert told["event"] == "review.requested"
    assert told["data"]["sent"] == "Check the checkout button."
    assert told["data"]["request"] == heard["request"]


def test_findings_filed_and_moved_are_told(ws: Workspace, receiver: Receiver) -> None:
    made = hook(ws, receiver.url, "annotation.filed", "annotation.moved")["webhook"]["id"]
    ws.call("create", {"kind": "board", "slug": "rev"})
    card = image_card(ws)
    items = [item(card, f"k{i}", **box(i * 60, 0, 50, 50)) for i in range(2)]
    agent = Principal.agent("claude")
    first, second = (
        r["id"] for r in ws.call("annotate", {"board": "rev", "items": items}, agent)["results"]
    )
    ws.call("agent_verdict", {"board": "rev", "action": "accept", "ids": [first]}, ANA)
    ws.call("withdraw_annotation", {"id": second}, ANA)
    told = [
        (r["event"], r["data"]["annotation"]["id"], r["data"].get("from"))
        for r in reversed(deliveries(ws, made))
    ]
    assert told == [
        ("annotation.filed", first, None),
        ("annotation.filed", second, None),
        ("annotation.moved", first, "staged"),
        ("annotation.moved", second, "staged"),
    ]
    moved = deliveries(ws, made)[1]["data"]["annotation"]
    assert moved["state"] == "open"
    assert moved["url"] == f"https://lk.example.com/boards/rev?annotation={first}"


def test_only_subscribed_active_webhooks_are_owed(ws: Workspace, receiver: Receiver) -> None:
    boards = hook(ws, receiver.url, "board.changed")["webhook"]["id"]
    tasks = hook(ws, receiver.url, "task.status_changed")["webhook"]["id"]
    move_task(ws, new_task(ws), "todo")
    assert deliveries(ws, boards) == []
    ws.call("update_webhook", {"id": tasks, "active": False}, ANA)
    move_task(ws, new_task(ws), "todo")  # switched off: owed nothing
    assert [r["status"] for r in deliveries(ws, tasks)] == ["pending"]
    assert deliver(ws) == 0  # what it was owed before waits for it
    ws.call("update_webhook", {"id": tasks, "active": True}, ANA)
    assert deliver(ws) == 1
    assert deliveries(ws, tasks)[0]["status"] == "delivered"


def test_deleting_a_webhook_takes_its_deliveries(ws: Workspace, receiver: Receiver) -> None:
    gone = hook(ws, receiver.url, "task.status_changed")["webhook"]["id"]
    kept = hook(ws, receiver.url, "board.changed")["webhook"]["id"]
    ws.call("update_webhook", {"id": kept, "active": False}, ANA)
    move_task(ws, new_task(ws), "todo")
    (owed,) = deliveries(ws, gone)
    assert ws.call("delete_webhook", {"id": gone}, ANA) == {"id": gone, "deleted": True}
    assert [h["id"] for h in ws.call("list_webhooks", {}, ANA)["webhooks"]] == [kept]
    assert ws.call("list_webhooks", {"active": True}, ANA)["webhooks"] == []
    assert err(ws, "list_webhook_deliveries", {"id": gone}, ANA).code == "unknown_webhook"
    assert err(ws, "redeliver_webhook", {"delivery": owed["id"]}, ANA).code == "unknown_delivery"
    assert err(ws, "delete_webhook", {"id": gone}, ANA).code == "unknown_webhook"
    assert deliver(ws) == 0 and receiver.got == []


def test_a_write_that_rolls_back_owes_nothing(ws: Workspace, receiver: Receiver) -> None:
    from layoutkit.service.shared.webhook_events import owe, owed_here

    made = hook(ws, receiver.url, "task.status_changed")
    ws.write(lambda tx: owe(ws, tx, ws.workspace_id, "task.status_changed", {}), rollback=True)
    assert owed_here(ws) == []
    assert deliveries(ws, made["webhook"]["id"]) == []


# ---------------------------------------------------------------- address rules


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:8080/hook",
        "http://localhost/hook",
        "http://10.1.2.3/hook",
        "https://hooks.internal/x",
        "http://[::1]/hook",
        "ftp://example.com/x",
    ],
)
def test_private_targets_are_refused_without_the_allow_list(
    ws: Workspace, url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(ALLOW_ENV, raising=False)
    e = err(ws, "create_webhook", {"url": url, "events": ["board.changed"]}, ANA)
    assert (e.status, e.code, e.body["field"]) == (400, "refused_url", "url")


def test_an_allowed_host_is_checked_again_when_sending(
    ws: Workspace, receiver: Receiver, monkeypatch: pytest.MonkeyPatch
) -> None:
    made = hook(ws, receiver.url, "task.status_changed")
    monkeypatch.setenv(ALLOW_ENV, "hooks.internal")  # the exception was withdrawn
    move_task(ws, new_task(ws), "todo")
    assert deliver(ws) == 1
    (row,) = deliveries(ws, made["webhook"]["id"])
    assert row["status"] == "pending" and row["error"].startswith("bad_port")
    assert receiver.got == []
    e = err(ws, "update_webhook", {"id": made["webhook"]["id"], "url": receiver.url}, ANA)
    assert (e.code, e.body["field"]) == ("refused_url", "url")


# ---------------------------------------------------------------- who may


def test_webhooks_are_for_admins(ws: Workspace, receiver: Receiver) -> None:
    create = {"url": receiver.url, "events": ["board.changed"]}
    for who in (Principal.user("bo"), Principal("agent", "claude", role="admin")):
        for op, params in (("list_webhooks", {}), ("create_webhook", create)):
            assert err(ws, op, params, who).status == 403
    assert hook(ws, receiver.url, "board.changed")["webhook"]["createdBy"] == "user:ana"
    assert len(ws.call("list_webhooks", {})["webhooks"]) == 1  # the owner, too


@pytest.fixture(params=BACKENDS)
def pair(request: pytest.FixtureRequest, tmp_path: Path):  # type: ignore[no-untyped-def]
    with two_workspaces(request.param, tmp_path) as both:
        yield both


def test_another_workspace_cannot_reach_a_webhook(pair, receiver: Receiver) -> None:  # type: ignore[no-untyped-def]
    a, b = pair
    made = hook(a, receiver.url, "task.status_changed")["webhook"]["id"]
    move_task(a, new_task(a), "todo")
    deliver(a)
    (sent,) = deliveries(a, made)
    assert b.call("list_webhooks", {}, ANA)["webhooks"] == []
    never = 10**9
    for op, params in (
        ("update_webhook", {"id": made, "active": False}),
        ("delete_webhook", {"id": made}),
        ("list_webhook_deliveries", {"id": made}),
    ):
        theirs = err(b, op, params, ANA)
        unknown = err(b, op, {**params, "id": never}, ANA)
        assert (
            (theirs.status, theirs.code)
            == (unknown.status, unknown.code)
            == (
                404,
                "unknown_webhook",
            )
        )
    theirs = err(b, "redeliver_webhook", {"delivery": sent["id"]}, ANA)
    unknown = err(b, "redeliver_webhook", {"delivery": never}, ANA)
    assert (
        (theirs.status, theirs.code)
        == (unknown.status, unknown.code)
        == (
            404,
            "unknown_delivery",
        )
    )
    assert a.call("list_webhooks", {}, ANA)["webhooks"][0]["active"] is True


def test_a_transfer_is_told_to_both_workspaces(pair, receiver: Receiver) -> None:  # type: ignore[no-untyped-def]
    src, dst = pair
    build_project(src)
    out = hook(src, receiver.url, "transfer.finished")["webhook"]["id"]
    into = hook(dst, receiver.url, "transfer.finished")["webhook"]["id"]
    src.call("transfer_project", {"project": "shop", "to": dst.name})
    (sent,) = deliveries(src, out)
    (got,) = deliveries(dst, into)
    assert (sent["data"]["direction"], got["data"]["direction"]) == ("out", "in")
    assert sent["data"]["project"] == got["data"]["project"] == "shop"


# ---------------------------------------------------------------- processes


@pytest.fixture(params=["sqlite", "postgres"])
def db(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    url = backend_url(request.param, tmp_path)
    assert url is not None
    return url


def test_a_pending_delivery_survives_a_restart(db: str, receiver: Receiver) -> None:
    name = f"restart-{uuid.uuid4().hex[:10]}"
    with Workspace.open(db, name=name) as before:
        made = hook(before, receiver.url, "task.status_changed")["webhook"]["id"]
        move_task(before, new_task(before), "todo")
        # Closed without a dispatcher: the delivery is only in the outbox.
    assert receiver.got == []
    with Workspace.open(db, name=name) as after:
        assert "webhooks" in after.resumable()
        after.resume("webhooks")
        receiver.wait_for(1)
        end = time.monotonic() + DEADLINE_S
        while deliveries(after, made)[0]["status"] != "delivered":
            assert time.monotonic() < end
            time.sleep(0.02)
    assert len(receiver.got) == 1


def test_two_processes_send_each_delivery_once(db: str, receiver: Receiver) -> None:
    name = f"twice-{uuid.uuid4().hex[:10]}"
    with Workspace.open(db, name=name) as one, Workspace.open(db, name=name) as two:
        made = hook(one, receiver.url, "task.status_changed")["webhook"]["id"]
        for n in range(6):
            move_task(one, new_task(one, f"t{n}"), "todo")
        passes = [one.extension(Dispatcher), two.extension(Dispatcher)]
        threads = [threading.Thread(target=p.deliver_due, args=(one.workspace_id,)) for p in passes]
        for t in threads:
            t.start()
        for t in threads:
            t.join(DEADLINE_S)
        rows = deliveries(one, made)
    assert [r["status"] for r in rows] == ["delivered"] * 6
    sent = [json.loads(body)["id"] for _, body in receiver.got]
    assert sorted(sent) == sorted(r["id"] for r in rows)
