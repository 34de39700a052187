"""The workspace's background job runner: bounded, drainable, and shut down with it."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pytest

from layoutkit import ServiceError, Workspace
from layoutkit.net import Unfurled
from layoutkit.service.boards.links import STOPPED
from layoutkit.service.road.jobs import JobRunner


def test_drain_waits_until_every_job_ran() -> None:
    runner = JobRunner(workers=2)
    done: list[int] = []
    for i in range(20):
        assert runner.submit(lambda i=i: done.append(i))
    assert runner.drain(30)
    assert sorted(done) == list(range(20)) and runner.pending == 0
    runner.shutdown()


def test_a_failing_job_is_logged_and_the_next_one_runs(caplog: object) -> None:
    runner = JobRunner(workers=1)
    done: list[str] = []

    def boom() -> None:
        raise RuntimeError("boom")

    assert runner.submit(boom) and runner.submit(lambda: done.append("after"))
    assert runner.drain(30)
    assert done == ["after"]
    runner.shutdown()


def test_past_its_limit_the_runner_refuses_and_after_shutdown_too() -> None:
    gate = threading.Event()
    runner = JobRunner(workers=1, limit=2)
    assert runner.submit(lambda: gate.wait(30))
    assert runner.submit(lambda: None)
    assert not runner.submit(lambda: None)
    gate.set()
    assert runner.drain(30)
    runner.shutdown()
    assert not runner.submit(lambda: None)


def test_shutdown_drops_queued_jobs_and_runs_their_note() -> None:
    gate = threading.Event()
    runner = JobRunner(workers=1)
    ran: list[str] = []
    dropped: list[str] = []
    assert runner.submit(lambda: (gate.wait(30), ran.append("first")))
    assert runner.submit(lambda: ran.append("second"), on_drop=lambda: dropped.append("second"))
    stopper = threading.Thread(target=runner.shutdown)
    stopper.start()
    _until(lambda: runner.pending == 1)  # the queued job was dropped
    gate.set()
    stopper.join(30)
    assert ran == ["first"] and dropped == ["second"] and runner.pending == 0


class _Held:
    """An unfurler whose every fetch waits for the test."""

    def __init__(self) -> None:
        self.go = threading.Event()

    def unfurl(self, url: str) -> Unfurled:
        assert self.go.wait(30)
        return Unfurled({"meta": {"url": url}})


def test_links_still_queued_when_the_workspace_closes_say_so(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'ws.db'}"
    held = _Held()
    ws = Workspace.open(db, unfurler=held)  # type: ignore[arg-type]
    ws.call("create", {"kind": "board", "slug": "b"})
    cards = [{"kind": "link", "payload": {"url": f"https://e{i}.example.org/"}} for i in range(6)]
    ws.call("compose_board", {"board": "b", "cards": cards})
    _until(lambda: ws.jobs.pending == 6)
    closer = threading.Thread(target=ws.close)
    closer.start()
    _until(lambda: ws.jobs.pending == 4)  # the two queued fetches were dropped
    held.go.set()
    closer.join(60)
    with Workspace.open(db) as again:
        payloads = [c["payload"] for c in again.call("scrape_board", {"board": "b"})["cards"]]
    fetched = [p for p in payloads if "meta" in p]
    stopped = [p for p in payloads if p.get("error") == STOPPED]
    # Four workers were fetching; the two still queued were dropped and say why.
    assert (len(fetched), len(stopped)) == (4, 2)


def _until(condition: object, limit: float = 30.0) -> None:
    deadline = time.monotonic() + limit
    while not condition():  # type: ignore[operator]
        assert time.monotonic() < deadline, "the condition never held"
        time.sleep(0.01)


def test_closing_waits_for_calls_under_way_and_refuses_new_ones(tmp_path: Path) -> None:
    ws = Workspace.open(f"sqlite:///{tmp_path / 'ws.db'}")
    ws.call("create", {"kind": "board", "slug": "b"})
    inside, release = threading.Event(), threading.Event()
    answers: list[Any] = []

    def running() -> None:
        # A call that is reading when close() begins (as a viewer's stream check is).
        answers.append(ws.call("board_stamp", {"board": "b"}))

    original = ws.store.read
    calls = threading.Thread(target=running)

    def held_read(*args: Any, **kwargs: Any) -> Any:
        if threading.current_thread() is calls and not inside.is_set():
            inside.set()
            assert release.wait(30)
        return original(*args, **kwargs)

    ws.store.read = held_read  # type: ignore[method-assign]
    calls.start()
    _until(inside.is_set)
    closer = threading.Thread(target=ws.close)
    closer.start()
    _until(lambda: ws.closing)
    with pytest.raises(ServiceError) as refused:
        ws.call("board_stamp", {"board": "b"})
    assert (refused.value.status, refused.value.code) == (503, "shutting_down")
    assert closer.is_alive()  # still waiting for the call under way
    release.set()
    calls.join(30)
    closer.join(30)
    assert not closer.is_alive() and len(answers) == 1
