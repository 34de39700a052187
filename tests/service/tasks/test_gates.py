"""Gate firing: when conditions tick human and date gates and make steps and actions due."""

from __future__ import annotations

from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from layoutkit import ServiceError, Workspace


def _task(ws: Workspace, **fields: object) -> int:
    return ws.call("create", {"kind": "task", "title": "T", **fields})["task"]["id"]


def _items(ws: Workspace, task: int) -> dict[str, dict]:
    return {g["title"]: g for g in ws.call("get", {"kind": "task", "id": task})["task"]["gates"]}


def test_firing_ticks_gates_and_stamps_steps(ws: Workspace) -> None:
    task = _task(ws)
    ws.call(
        "hand_back",
        {
            "id": task,
            "summary": "s",
            "next": [
                {"title": "Sign-off", "who": "ana", "ask": "Ship?", "when": "deployed to staging"},
                {
                    "title": "Launch day",
                    "kind": "date",
                    "at": "2026-12-01",
                    "when": "deployed to staging",
                },
                {"title": "Smoke test", "when": "Deployed  to STAGING"},
                {"title": "Tell support", "kind": "action", "when": "deployed to staging"},
                {"title": "Unrelated", "when": "pr merged"},
                {"title": "Plain"},
            ],
        },
    )
    before = _items(ws, task)
    assert {t: g["state"] for t, g in before.items()} == {
        "Sign-off": "waiting",
        "Launch day": "waiting",
        "Smoke test": "waiting",
        "Tell support": "waiting",
        "Unrelated": "waiting",
        "Plain": "open",
    }
    out = ws.call("fire_gates", {"id": task, "when": "deployed to staging", "evidence": "build 7"})
    assert sorted(f["title"] for f in out["fired"]) == [
        "Launch day",
        "Sign-off",
        "Smoke test",
        "Tell support",
    ]
    after = _items(ws, task)
    assert (after["Sign-off"]["state"], after["Sign-off"]["evidence"]) == ("done", "build 7")
    assert after["Launch day"]["state"] == "done"
    assert (after["Smoke test"]["state"], after["Smoke test"]["done"]) == ("due", False)
    assert after["Tell support"]["state"] == "due" and after["Tell support"]["ripeAt"]
    assert after["Unrelated"]["state"] == "waiting"
    # Firing again changes nothing: the ripe time is the first one.
    assert ws.call("fire_gates", {"id": task, "when": "deployed to staging"})["fired"] == []
    assert _items(ws, task)["Smoke test"]["ripeAt"] == after["Smoke test"]["ripeAt"]
    # The gates no longer block: the task can be completed.
    done = ws.call("hand_back", {"id": task, "summary": "s", "status": "done"})
    assert done["task"]["status"] == "done"


def test_a_merged_pr_fires_its_conditions_then_completes(ws: Workspace) -> None:
    task = _task(ws)
    ws.call(
        "hand_back",
        {
            "id": task,
            "summary": "s",
            "next": [{"title": "Review", "who": "bo", "ask": "OK?", "when": "pr merged"}],
        },
    )
    out = ws.call(
        "add_task_ref", {"id": task, "kind": "pr", "ref": "a/b#9", "meta": {"merged": True}}
    )
    assert out["task"]["status"] == "done"
    assert _items(ws, task)["Review"]["evidence"] == "PR a/b#9 merged"


def test_firing_across_a_project_reads_live_tasks_only(ws: Workspace) -> None:
    live = _task(ws, project="web")
    closed = _task(ws, project="web")
    for task in (live, closed):
        ws.call(
            "hand_back", {"id": task, "summary": "s", "next": [{"title": "Go", "when": "deployed"}]}
        )
    ws.call("update", {"kind": "task", "id": closed, "status": "cancelled"})
    out = ws.call("fire_gates", {"project": "web", "when": "deployed"})
    assert [f["task"] for f in out["fired"]] == [live]
    assert ws.call("fire_gates", {"project": "nowhere", "when": "deployed"}) == {"fired": []}


class Gates(RuleBasedStateMachine):
    """Any mix of filed items, firings and ticks keeps the gate rules."""

    KINDS = ("step", "human", "date", "action")
    CONDITIONS = ("pr merged", "deployed")

    def __init__(self) -> None:
        super().__init__()
        self.ws = Workspace.open()
        self.task = _task(self.ws)
        self.n = 0
        self.fired: set[str] = set()

    def teardown(self) -> None:
        self.ws.close()

    @rule(kind=st.sampled_from(KINDS), when=st.sampled_from((None, *CONDITIONS)))
    def file_item(self, kind: str, when: str | None) -> None:
        self.n += 1
        item: dict = {"title": f"item {self.n}", "kind": kind}
        if kind == "date":
            item["at"] = "2026-12-01"
        if kind == "human":
            item.update(who="ana", ask="OK?")
        if when:
            item["when"] = when
        self.ws.call("hand_back", {"id": self.task, "summary": "s", "next": [item]})

    @rule(when=st.sampled_from(CONDITIONS))
    def fire(self, when: str) -> None:
        self.ws.call("fire_gates", {"id": self.task, "when": when, "evidence": when})
        self.fired.add(when)

    @rule(pick=st.integers(min_value=0, max_value=40))
    def tick(self, pick: int) -> None:
        gates = self.ws.call("get", {"kind": "task", "id": self.task})["task"]["gates"]
        if gates:
            gates[pick % len(gates)]["done"] = True
            self.ws.call("update", {"kind": "task", "id": self.task, "gates": gates})

    @invariant()
    def rules_hold(self) -> None:
        task = self.ws.call("get", {"kind": "task", "id": self.task})["task"]
        for item in task["gates"]:
            expected = (
                "done"
                if item["done"]
                else "due"
                if item.get("ripeAt")
                else "waiting"
                if item.get("when")
                else "open"
            )
            assert item["state"] == expected
            fired_before = item.get("when") in self.fired
            if item["kind"] in ("human", "date") and item.get("ripeAt"):
                assert item["done"]  # a fired gate is ticked, never merely due
            if item["kind"] in ("step", "action") and item.get("ripeAt"):
                assert fired_before
        blocking = [g for g in task["gates"] if g["kind"] in ("human", "date") and not g["done"]]
        try:
            self.ws.call("hand_back", {"id": self.task, "summary": "check", "status": "in_review"})
            self.ws.call("hand_back", {"id": self.task, "summary": "check", "status": "done"})
        except ServiceError as exc:
            assert exc.code == "open_gates" and blocking
        else:
            assert not blocking
            self.ws.call("update", {"kind": "task", "id": self.task, "status": "in_progress"})


TestGateRules = Gates.TestCase
TestGateRules.settings = settings(max_examples=20, stateful_step_count=10, deadline=None)
