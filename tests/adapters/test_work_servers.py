"""wait_for_work across `layoutkit serve --workers 2` on SQLite and PostgreSQL.

Agents long-poll over HTTP; each request may land on either worker process,
and the asks are written through either one: every ask reaches exactly one
agent, and a waiter in one process wakes for a write made in the other.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from layoutkit.service.delivery.work import RECHECK_ENV
from tests.adapters.test_serve_workers import (
    Served,
    _wait_for_workers,
    start_served,
    stop_served,
)
from tests.conftest import POSTGRES_URL

#: Each agent's wait; a waiter's re-check comes later than that (RECHECK_ENV below),
#: so only a wake-up can bring an ask to an agent that is waiting already.
WAIT_S = 10
RECHECK_S = 30


@pytest.fixture(params=["sqlite", "postgres"])
def served(
    request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Served]:
    monkeypatch.setenv(RECHECK_ENV, str(RECHECK_S))
    if request.param == "postgres":
        if not POSTGRES_URL:
            pytest.skip("LAYOUTKIT_TEST_POSTGRES_URL is not set; PostgreSQL tests need a server")
        db = POSTGRES_URL
    else:
        db = f"sqlite:///{tmp_path / 'served.db'}"
    # A PostgreSQL database outlives the run: --new-token prints a token every start.
    s = start_served(db, 2, "--new-token")
    try:
        yield s
    finally:
        stop_served(s)


def test_every_ask_reaches_one_agent_across_server_processes(served: Served) -> None:
    assert len(_wait_for_workers(served, 2)) == 2
    # The served workspace outlives a run on PostgreSQL: a project of this run's own.
    project = f"p{uuid.uuid4().hex[:8]}"
    board = {"kind": "board", "slug": project, "project": project}
    assert served.post("create", board).status_code == 200
    agents = 6

    def agent(i: int) -> list[tuple[str, float]]:
        got: list[tuple[str, float]] = []
        body = {"project": project, "agent": f"a{i}", "timeout": WAIT_S}
        while True:
            # A fresh connection each time: the polls spread over both workers.
            found = served.post("wait_for_work", body).json()
            if "idle" in found:
                return got
            items = [c["item"] for c in found["asks"]]
            got += [(item, time.time()) for item in items]
            done = served.post("heartbeat_work", {"agent": f"a{i}", "done": items})
            assert done.status_code == 200 and done.json()["done"] == sorted(items)

    with ThreadPoolExecutor(agents) as pool:
        pending = [pool.submit(agent, i) for i in range(agents)]
        time.sleep(1.0)
        written: dict[int, float] = {}
        for i in range(12):
            at = time.time()
            res = served.post("post_ask", {"project": project, "question": f"q{i}"})
            written[res.json()["ask"]["id"]] = at
        results: list[Any] = [p.result(timeout=60) for p in pending]
    delivered = [item for got in results for item, _ in got]
    assert sorted(delivered) == sorted(f"ask:{i}" for i in written)
    # A wake-up brought the first ask to a waiting agent: with re-checks 30 s apart,
    # the only other way was the end of its 10 s wait.
    first = min(written)
    took = next(at for got in results for item, at in got if item == f"ask:{first}")
    assert took - written[first] < WAIT_S / 2
