"""Leases as a state machine: whatever agents, heartbeats, releases and time do,
each ask is held by at most one agent, and a wait hands out exactly the asks a
simple model says are free (never finished, no live lease), oldest first, 3 at most."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import hypothesis.strategies as st
from hypothesis import settings
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from layoutkit import Workspace
from layoutkit.principal import Principal
from layoutkit.storage import open_store
from tests.storage.conftest import FakeClock

AGENTS = ("a", "b", "c")
LEASE = 60


class Leases(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.clock = FakeClock()
        self.ws = Workspace(open_store(clock=self.clock))
        self.ws.call("create", {"kind": "board", "slug": "rev", "project": "shop"})
        # ask id -> None (never taken), ("done",), or (agent, lease end in seconds)
        self.asks: dict[int, Any] = {}
        self.t = 0

    def teardown(self) -> None:
        self.ws.close()

    def _live(self, held: Any) -> bool:
        return held is not None and held[0] != "done" and held[1] >= self.t

    def _call(self, op: str, agent: str, **params: Any) -> dict[str, Any]:
        return self.ws.call(op, params, Principal.agent(agent))

    @rule()
    def post(self) -> None:
        ask = self.ws.call("post_ask", {"project": "shop", "question": "?"})["ask"]
        self.asks[ask["id"]] = None

    @rule(agent=st.sampled_from(AGENTS))
    def wait(self, agent: str) -> None:
        found = self._call("wait_for_work", agent, project="shop", timeout=0)
        for i, held in self.asks.items():  # the call is a heartbeat
            if self._live(held) and held[0] == agent:
                self.asks[i] = (agent, self.t + LEASE)
        free = [
            i
            for i, h in sorted(self.asks.items())
            if h is None or (h[0] != "done" and h[1] < self.t)
        ]
        got = [c["id"] for c in found.get("asks", [])]
        assert got == free[:3]
        for i in got:
            self.asks[i] = (agent, self.t + LEASE)

    @rule(agent=st.sampled_from(AGENTS))
    def heartbeat(self, agent: str) -> None:
        kept = self._call("heartbeat_work", agent)["kept"]
        mine = [i for i, h in self.asks.items() if self._live(h) and h[0] == agent]
        assert kept == sorted(f"ask:{i}" for i in mine)
        for i in mine:
            self.asks[i] = (agent, self.t + LEASE)

    @rule(agent=st.sampled_from(AGENTS), data=st.data(), release=st.booleans())
    def finish(self, agent: str, data: st.DataObject, release: bool) -> None:
        if not self.asks:
            return
        i = data.draw(st.sampled_from(sorted(self.asks)))
        key, answer = ("release", "released") if release else ("done", "done")
        out = self._call("heartbeat_work", agent, **{key: [f"ask:{i}"]})
        held = self.asks[i]
        # The last holder, even past its lease, until someone else takes the item.
        mine = held is not None and held[0] == agent
        assert out[answer] == ([f"ask:{i}"] if mine else [])
        if mine:
            # Released: free at once, still naming its last holder.
            self.asks[i] = (agent, self.t - 1) if release else ("done",)
        for j, h in self.asks.items():  # the call is a heartbeat too
            if self._live(h) and h[0] == agent:
                self.asks[j] = (agent, self.t + LEASE)

    @rule(seconds=st.integers(min_value=1, max_value=90))
    def advance(self, seconds: int) -> None:
        self.clock.advance(seconds=seconds)
        self.t += seconds

    @invariant()
    def claims_match_the_model(self) -> None:
        with self.ws.store.read() as tx:
            rows = tx.work_claims(self.ws.workspace_id, [f"ask:{i}" for i in self.asks])
        start = self.clock.now - timedelta(seconds=self.t)
        for i, held in self.asks.items():
            row = rows.get(f"ask:{i}")
            if held is None:
                assert row is None or row["lease_until"] < self.clock.now
            elif held[0] == "done":
                assert row is not None and row["state"] == "done"
            else:
                assert row is not None and row["agent"] == f"agent:{held[0]}"
                if held[1] >= self.t:
                    assert row["lease_until"] == start + timedelta(seconds=held[1])
                else:
                    assert row["lease_until"] < self.clock.now


Leases.TestCase.settings = settings(max_examples=40, stateful_step_count=25, deadline=None)
TestLeases = Leases.TestCase
