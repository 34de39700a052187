"""wait_for_work: scope, capsule kinds, at most 3 per call, leases, heartbeats, asks.

Conformance per rule of operations.md (Events, Limits) and of the choices
layoutkit made where the spec is silent (docs/work.md).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from layoutkit import ServiceError, Workspace
from layoutkit.principal import Principal
from layoutkit.service.delivery import work as work_module
from tests.service.review.test_annotations import ANA, filed, verdict
from tests.through_client import RemoteWorkspace, Through

ONE = Principal.agent("one")
TWO = Principal.agent("two")


@pytest.fixture
def ws(through: Through) -> Iterator[Workspace]:
    # Every test here runs in-process and again through layoutkit.Client on a live
    # server (tests/through_client.py): the long poll is the call HTTP serves its own way.
    with Workspace.open() as workspace, through(workspace) as served:
        served.call("create", {"kind": "board", "slug": "rev", "project": "shop"})
        yield served


def wait(ws: Workspace, who: Principal = ONE, **params: Any) -> dict[str, Any]:
    return ws.call("wait_for_work", {"project": "shop", "timeout": 0, **params}, who)


def items(found: dict[str, Any]) -> list[str]:
    return [c["item"] for g in ("annotations", "choices", "asks") for c in found.get(g, [])]


def ask(ws: Workspace, text: str = "Why?", **scope: Any) -> int:
    return int(
        ws.call("post_ask", {"question": text, **(scope or {"project": "shop"})})["ask"]["id"]
    )


def err(ws: Workspace, op: str, params: dict[str, Any], who: Principal = ONE) -> ServiceError:
    with pytest.raises(ServiceError) as caught:
        ws.call(op, params, who)
    return caught.value


def released(ws: Workspace, regenerate: bool, stakes: str = "cost") -> int:
    q = ws.call(
        "ask_board", {"board": "rev", "prompt": "Which?", "stakes": stakes, "options": ["A", "B"]}
    )["question"]
    ws.call("answer_question", {"id": q["id"], "answer": "B"}, ANA)
    ws.call("send_answers", {"board": "rev", "regenerate": regenerate}, ANA)
    return int(q["id"])


def test_nothing_in_scope_is_idle_with_the_agent_and_scope(ws: Workspace) -> None:
    found = wait(ws)
    assert found == {
        "idle": True,
        "agent": "agent:one",
        "scope": {"project": "shop"},
        "leaseSeconds": 60.0,
    }


@pytest.mark.parametrize(
    ("params", "status", "code"),
    [
        ({}, 400, "invalid_scope"),
        ({"branch": "main"}, 400, "invalid_scope"),
        ({"board": "rev", "project": "shop"}, 400, "invalid_scope"),
        ({"project": "nowhere"}, 404, "unknown_project"),
        ({"board": "nowhere"}, 404, "unknown_board"),
        ({"project": "shop", "timeout": 61}, 400, "invalid_params"),
        ({"project": "shop", "lease": 0.5}, 400, "invalid_params"),
    ],
)
def test_scope_is_project_and_branch_or_board(
    ws: Workspace, params: dict[str, Any], status: int, code: str
) -> None:
    e = err(ws, "wait_for_work", {"timeout": 0, **params})
    assert (e.status, e.code) == (status, code)


def test_share_links_cannot_wait_for_work(ws: Workspace) -> None:
    link = Principal("share", "link", board="rev", mode="annotate")
    assert err(ws, "wait_for_work", {"board": "rev", "timeout": 0}, link).status == 403


def test_only_open_annotations_are_delivered(ws: Workspace) -> None:
    staged = filed(ws, 2)
    assert "idle" in wait(ws)  # staged findings wait for a person's verdict
    verdict(ws, "accept", [staged[0]])
    found = wait(ws)
    assert items(found) == [f"annotation:{staged[0]}"]
    capsule = found["annotations"][0]
    assert (capsule["id"], capsule["state"], capsule["board"]) == (staged[0], "open", "rev")
    assert capsule["lease"]["deliveries"] == 1
    ws.call("set_status", {"id": staged[0], "status": "working"}, ONE)
    ws.call("heartbeat_work", {"release": [f"annotation:{staged[0]}"]}, ONE)
    assert "idle" in wait(ws, TWO)  # working is no longer open work


def test_at_most_three_capsules_per_call(ws: Workspace) -> None:
    asked = [ask(ws, f"q{i}") for i in range(5)]
    first, second = wait(ws), wait(ws)
    assert items(first) == [f"ask:{i}" for i in asked[:3]]
    assert items(second) == [f"ask:{i}" for i in asked[3:]]
    assert "idle" in wait(ws)


def test_choices_carry_answers_stakes_and_regenerate(ws: Workspace) -> None:
    plain = released(ws, regenerate=False, stakes="money")
    again = released(ws, regenerate=True, stakes="time")
    found = ws.call("wait_for_work", {"board": "rev", "timeout": 0}, ONE)
    by_id = {c["question"]["id"]: c for c in found["choices"]}
    assert by_id[plain]["regenerate"] is False and by_id[again]["regenerate"] is True
    assert (by_id[plain]["stakes"], by_id[again]["stakes"]) == ("money", "time")
    assert by_id[plain]["answers"] == ["B"] and by_id[plain]["board"] == "rev"


def test_staged_answers_are_not_work_until_send(ws: Workspace) -> None:
    q = ws.call("ask_board", {"board": "rev", "prompt": "?", "options": ["A"]})["question"]
    ws.call("answer_question", {"id": q["id"], "answer": "A"}, ANA)
    assert "idle" in wait(ws)


def test_an_item_goes_to_one_agent_per_lease_and_returns_when_it_lapses(ws: Workspace) -> None:
    a = ask(ws)
    assert items(wait(ws, ONE, lease=1)) == [f"ask:{a}"]
    assert "idle" in wait(ws, TWO)
    # Not again to the holder either; its call also beats its heart (lease 1 s again).
    assert "idle" in wait(ws, ONE, lease=1)
    time.sleep(1.1)
    back = wait(ws, TWO)
    assert items(back) == [f"ask:{a}"]
    assert back["asks"][0]["lease"]["deliveries"] == 2


def test_heartbeats_keep_leases_and_done_finishes_for_good(ws: Workspace) -> None:
    a, b = ask(ws), ask(ws)
    # Heartbeats half a second apart keep a 2 s lease for longer than the lease: the
    # margin (1.5 s a beat) holds on a loaded machine, where a call through the
    # client took over half a second and a 1 s lease lapsed between two beats.
    wait(ws, ONE, lease=2)
    held_until = time.monotonic() + 2.5
    while time.monotonic() < held_until:
        time.sleep(0.5)
        kept = ws.call("heartbeat_work", {"lease": 2}, ONE)["kept"]
        assert kept == sorted([f"ask:{a}", f"ask:{b}"])
    assert "idle" in wait(ws, TWO)
    out = ws.call("heartbeat_work", {"done": [f"ask:{a}"], "release": [f"ask:{b}"]}, ONE)
    assert (out["done"], out["released"]) == ([f"ask:{a}"], [f"ask:{b}"])
    assert items(wait(ws, TWO)) == [f"ask:{b}"]  # released: back at once
    time.sleep(1.1)
    assert "idle" in wait(ws, TWO, lease=5)  # done: never again


def test_an_agent_finishes_only_its_own_items(ws: Workspace) -> None:
    a = ask(ws)
    wait(ws, ONE)
    assert ws.call("heartbeat_work", {"done": [f"ask:{a}"]}, TWO)["done"] == []


def test_asks_are_answered_once_and_read_back(ws: Workspace) -> None:
    a = ask(ws, "Which cache?")
    capsule = wait(ws)["asks"][0]
    assert (capsule["id"], capsule["question"], capsule["answer"]) == (a, "Which cache?", None)
    answered = ws.call("answer_ask", {"id": a, "answer": "LRU"}, ONE)["ask"]
    assert (answered["answer"], answered["answeredBy"]) == ("LRU", "agent:one")
    assert ws.call("get_ask", {"id": a})["ask"]["answer"] == "LRU"
    e = err(ws, "answer_ask", {"id": a, "answer": "again"}, TWO)
    assert (e.status, e.code) == (409, "already_answered")
    assert err(ws, "get_ask", {"id": 999}).code == "unknown_ask"
    time.sleep(0.01)
    assert "idle" in wait(ws, TWO)


def test_branch_scope_takes_its_own_and_branchless_work(ws: Workspace) -> None:
    both, main = ask(ws, "any"), ask(ws, "m", project="shop", branch="main")
    feat = ask(ws, "f", project="shop", branch="feat")
    assert items(wait(ws, branch="main")) == [f"ask:{both}", f"ask:{main}"]
    assert items(wait(ws, TWO, branch="feat")) == [f"ask:{feat}"]


def test_board_scope_takes_that_boards_work_only(ws: Workspace) -> None:
    ws.call("create", {"kind": "board", "slug": "other", "project": "shop"})
    here, there = ask(ws, "h", board="rev"), ask(ws, "t", board="other")
    found = ws.call("wait_for_work", {"board": "rev", "timeout": 0}, ONE)
    assert items(found) == [f"ask:{here}"] and found["scope"] == {"board": "rev"}
    assert items(ws.call("wait_for_work", {"board": "other", "timeout": 0}, ONE)) == [
        f"ask:{there}"
    ]


def test_the_agent_is_the_tokens_runtime_or_the_named_one(ws: Workspace) -> None:
    assert wait(ws, Principal.user("ana"), agent="bot")["agent"] == "agent:bot"
    assert wait(ws, Principal.user("ana"))["agent"] == "user:ana"
    assert wait(ws, ONE, agent="ignored")["agent"] == "agent:one"
    assert err(ws, "wait_for_work", {"project": "shop", "agent": " "}, ANA).code == "invalid_agent"


def test_a_blocking_wait_ends_idle_after_its_timeout(ws: Workspace) -> None:
    started = time.monotonic()
    assert "idle" in wait(ws, timeout=0.3)
    # At least the timeout asked for, and nowhere near the default wait (25 s): the
    # upper bound only tells the two apart (a loaded machine took 1.65 s through HTTP).
    assert 0.3 <= time.monotonic() - started < 10.0


def test_a_blocking_wait_wakes_on_the_write_not_on_a_later_look(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    if isinstance(ws, RemoteWorkspace):
        # The client tests check that a remote wait wakes on a write
        # (tests/adapters/test_client.py).
        pytest.skip("the in-process wake only")
    # With no re-check before the wait's own end, only the write's wake can end
    # it early; how fast the wake is (well under 100 ms) is benches/work_bench.py's.
    monkeypatch.setattr(work_module, "RECHECK_S", 60.0)
    got: dict[str, Any] = {}

    def waiter() -> None:
        got["found"] = wait(ws, timeout=30)
        got["at"] = time.monotonic()

    thread = threading.Thread(target=waiter)
    thread.start()
    time.sleep(0.3)
    written = time.monotonic()
    a = ask(ws)
    thread.join(timeout=30)
    assert items(got["found"]) == [f"ask:{a}"]
    assert got["at"] - written < 15


def test_a_look_is_a_read_then_a_write_through_the_road(ws: Workspace) -> None:
    # Nothing to claim and no lease held: the read half answers idle on its own.
    peeked = ws.call("peek_work", {"project": "shop"}, ONE)
    assert peeked == {
        "idle": True,
        "agent": "agent:one",
        "scope": {"project": "shop"},
        "leaseSeconds": 60.0,
    }
    a = ask(ws)
    assert ws.call("peek_work", {"project": "shop"}, ONE) == {"idle": False}
    taken = ws.call("take_work", {"project": "shop", "lease": 5}, ONE)
    assert items(taken) == [f"ask:{a}"] and taken["leaseSeconds"] == 5
    # Holding a lease, the read half sends the look on to the write that extends it.
    assert ws.call("peek_work", {"project": "shop"}, ONE) == {"idle": False}
    assert "idle" in ws.call("take_work", {"project": "shop"}, ONE)


def test_every_item_says_how_to_acknowledge_it_and_the_reply_when_leases_end(
    ws: Workspace,
) -> None:
    a = ask(ws)
    ask(ws)
    got = wait(ws, ONE, lease=30)
    capsules = got["asks"]
    for capsule in capsules:
        assert capsule["ack"] == {
            "operation": "heartbeat_work",
            "params": {"done": [capsule["item"]]},
        }
    assert got["leaseUntil"] == min(c["lease"]["until"] for c in capsules)
    # The ack, sent as it reads, finishes the item for good.
    first = capsules[0]["ack"]
    assert ws.call(first["operation"], first["params"], ONE)["done"] == [f"ask:{a}"]
    assert "heartbeat_work {done: [item]}" in ws.call("docs", {"topic": "op:wait_for_work"})["text"]
