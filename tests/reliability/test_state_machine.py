"""A hypothesis state machine over boards, cards, frames, wires, questions and share links.

Two principals write (an agent, whose cards are on the AI layer, and a person),
and a share link of each mode reads. After every step the machine checks:

- no two cards overlap unless one contains the other, except where a person
  placed a card by hand (explicit x/y); such a card, and the frames around
  it, may overlap others;
- every frame contains its children;
- scrape_board returns exactly the live cards the machine knows of, and
  every wire joins two of them;
- no card's version ever goes down, and a patched card's goes up;
- a soft-deleted card can be restored for 30 days (the store's clock is moved
  on by the machine; retention runs when a workspace opens) and is gone after;
- a share link reads its board only and a view link cannot write.

Runs on SQLite and PostgreSQL; ``LAYOUTKIT_RELIABILITY_SM_EXAMPLES`` (default
15) runs of ``LAYOUTKIT_RELIABILITY_SM_STEPS`` (default 25) steps each.
"""

from __future__ import annotations

import contextlib
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

from layoutkit import Principal, ServiceError, Workspace
from layoutkit.storage import open_store
from tests.conftest import POSTGRES_URL
from tests.reliability.conftest import PG_SKIP, count, pg_schema, stateful_settings
from tests.service.helpers import rect

EXAMPLES = count("sm_examples", 15)
STEPS = count("sm_steps", 25)
AGENT = Principal.agent("alpha")
PERSON = Principal.user("bob")
WHO = {"agent": AGENT, "person": PERSON}
RETENTION = timedelta(days=30)
EPS = 0.01

_WORDS = st.lists(
    st.sampled_from(["idea", "risk", "a", "longer words here", "x"]), min_size=1, max_size=12
)
_CARD = st.builds(
    lambda kind, words: {"kind": kind, "payload": {"md": " ".join(words)}},
    st.sampled_from(["note", "text"]),
    _WORDS,
)


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 1, 1, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


class BoardMachine(RuleBasedStateMachine):
    url: str | None = None
    store: Any = None
    clock = Clock()

    def __init__(self) -> None:
        super().__init__()
        self.name = f"sm-{uuid.uuid4().hex[:12]}"
        self.ws = Workspace(self.store, name=self.name)
        self.boards: list[str] = []
        self.live: dict[int, dict[str, Any]] = {}  # id -> {board, author, kind}
        self.trashed: dict[int, dict[str, Any]] = {}  # id -> {..., at}
        self.gone: set[int] = set()
        self.versions: dict[int, int] = {}
        self.bumped: set[int] = set()
        self.by_hand: set[int] = set()
        self.questions: dict[str, int] = {}
        self.links: list[tuple[str, Principal]] = []

    # ------------------------------------------------------------------ helpers

    def _call(self, op: str, params: dict[str, Any], who: Principal) -> dict[str, Any]:
        return self.ws.call(op, params, who)

    def _board_of(self, cid: int) -> str:
        return self.live[cid]["board"]

    def _own(self, who: str, data: st.DataObject, board: str | None = None) -> int | None:
        label = WHO[who].label
        mine = sorted(
            c
            for c, v in self.live.items()
            if v["author"] == label and (board is None or v["board"] == board)
        )
        return data.draw(st.sampled_from(mine)) if mine else None

    def _landed(self, board: str, receipt: dict[str, Any], who: Principal) -> None:
        for card in receipt["cards"]:
            self.live[card["id"]] = {"board": board, "author": who.label, "kind": card["kind"]}
        for frame in receipt.get("sections", []):
            self.live.setdefault(
                frame["id"], {"board": board, "author": who.label, "kind": "section"}
            )

    # ------------------------------------------------------------------ rules

    @initialize()
    def first_board(self) -> None:
        self._call("create", {"kind": "board", "slug": "b0"}, AGENT)
        self.boards.append("b0")

    @precondition(lambda self: len(self.boards) < 3)
    @rule()
    def another_board(self) -> None:
        slug = f"b{len(self.boards)}"
        self._call("create", {"kind": "board", "slug": slug}, PERSON)
        self.boards.append(slug)

    @rule(
        data=st.data(),
        who=st.sampled_from(["agent", "person"]),
        cards=st.lists(_CARD, min_size=1, max_size=3),
        where=st.sampled_from(["free", "section", "anchor", "cluster"]),
    )
    def compose(
        self, data: st.DataObject, who: str, cards: list[dict[str, Any]], where: str
    ) -> None:
        board = data.draw(st.sampled_from(self.boards))
        params: dict[str, Any] = {"board": board, "cards": cards}
        if where == "section":
            params["section"] = data.draw(st.sampled_from(["Ideas", "Risks"]))
        elif where == "anchor":
            on_board = sorted(c for c, v in self.live.items() if v["board"] == board)
            if not on_board:
                return
            target = data.draw(st.sampled_from(on_board))
            relations = ["beside", "under", "after", "before"]
            if self.live[target]["kind"] in ("section", "cluster"):
                relations.append("into")
            params["anchor"] = {"cardId": target, "relation": data.draw(st.sampled_from(relations))}
        elif where == "cluster":
            kids = [{**c, "ref": f"k{i}"} for i, c in enumerate(cards)]
            frame = {
                "kind": "cluster",
                "payload": {
                    "title": "Group",
                    "layout": {"mode": data.draw(st.sampled_from(["row", "grid"]))},
                },
                "children": [c["ref"] for c in kids],
            }
            params["cards"] = [frame, *kids]
        try:
            receipt = self._call("compose_board", params, WHO[who])
        except ServiceError as exc:
            # An anchor inside a managed section may be refused with a reason; the
            # batch is then all-or-nothing and the board unchanged (checked by the invariants).
            assert exc.status < 500, exc
            assert where == "anchor", exc
            return
        self._landed(board, receipt, WHO[who])

    @rule(
        data=st.data(), who=st.sampled_from(["agent", "person"]), label=st.text("abc ", max_size=8)
    )
    def wire(self, data: st.DataObject, who: str, label: str) -> None:
        board = data.draw(st.sampled_from(self.boards))
        on_board = sorted(c for c, v in self.live.items() if v["board"] == board)
        if len(on_board) < 2:
            return
        a, b = data.draw(st.lists(st.sampled_from(on_board), min_size=2, max_size=2, unique=True))
        edge: dict[str, Any] = {"from": a, "to": b}
        if label.strip():
            edge["label"] = label
        self._call("compose_board", {"board": board, "cards": [], "edges": [edge]}, WHO[who])

    @rule(data=st.data(), who=st.sampled_from(["agent", "person"]))
    def ask(self, data: st.DataObject, who: str) -> None:
        board = data.draw(st.sampled_from(self.boards))
        self._call(
            "ask_board", {"board": board, "prompt": "which?", "options": ["a", "b"]}, WHO[who]
        )
        self.questions[board] = self.questions.get(board, 0) + 1

    @rule(data=st.data(), who=st.sampled_from(["agent", "person"]), words=_WORDS)
    def patch_payload(self, data: st.DataObject, who: str, words: list[str]) -> None:
        cid = self._own(who, data)
        if cid is None or self.live[cid]["kind"] not in ("note", "text"):
            return
        self._call(
            "update_cards", {"patch": [{"id": cid, "payload": {"md": " ".join(words)}}]}, WHO[who]
        )
        self.bumped.add(cid)

    @rule(
        data=st.data(),
        who=st.sampled_from(["agent", "person"]),
        dx=st.integers(-400, 400),
        dy=st.integers(-400, 400),
    )
    def move(self, data: st.DataObject, who: str, dx: int, dy: int) -> None:
        cid = self._own(who, data)
        if cid is None:
            return
        card = self._scraped_card(cid)
        self._call(
            "update_cards",
            {"patch": [{"id": cid, "x": card["x"] + dx, "y": card["y"] + dy}]},
            WHO[who],
        )
        if WHO[who].layer == "human":
            self.by_hand.add(cid)

    @rule(data=st.data(), who=st.sampled_from(["agent", "person"]))
    def remove(self, data: st.DataObject, who: str) -> None:
        cid = self._own(who, data)
        if cid is None:
            return
        params: dict[str, Any] = {"remove": [cid]}
        try:
            self._call("update_cards", params, WHO[who])
        except ServiceError as exc:
            assert exc.code == "needs_confirm", exc
            params |= {"confirm": exc.body["token"], "reason": "the machine removes this one card"}
            self._call("update_cards", params, WHO[who])
        gone = self._trashed_with(cid)
        for c in gone:
            self.trashed[c] = {**self.live.pop(c), "at": self.clock.now}

    def _trashed_with(self, cid: int) -> list[int]:
        """The removed card; what else left the board with it is read back."""
        scraped = {c["id"] for b in self.boards for c in self._scrape(b)["cards"]}
        return [c for c in self.live if c not in scraped]

    @precondition(lambda self: bool(self.trashed))
    @rule(data=st.data())
    def restore(self, data: st.DataObject) -> None:
        cid = data.draw(st.sampled_from(sorted(self.trashed)))
        entry = self.trashed[cid]
        who = AGENT if entry["author"] == AGENT.label else PERSON
        age = self.clock.now - entry["at"]
        if age >= RETENTION:
            return  # checked by time_passes
        receipt = self._call("update_cards", {"restore": [cid]}, who)
        assert [c["id"] for c in receipt["restored"]] == [cid]
        del self.trashed[cid]
        entry.pop("at")
        self.live[cid] = entry

    @rule(days=st.integers(0, 20), hours=st.integers(0, 23))
    def time_passes(self, days: int, hours: int) -> None:
        self.clock.now += timedelta(days=days, hours=hours)
        # Retention runs when a workspace opens.
        self.ws.close()
        self.ws = Workspace(self.store, name=self.name)
        for cid, entry in sorted(self.trashed.items()):
            age = self.clock.now - entry["at"]
            who = AGENT if entry["author"] == AGENT.label else PERSON
            if age > RETENTION:
                with pytest.raises(ServiceError) as exc:
                    self._call("update_cards", {"restore": [cid]}, who)
                assert exc.value.code == "unknown_card", exc.value
                del self.trashed[cid]
                self.gone.add(cid)

    @rule(
        data=st.data(),
        who=st.sampled_from(["agent", "person"]),
        mode=st.sampled_from(["view", "annotate"]),
    )
    def share(self, data: st.DataObject, who: str, mode: str) -> None:
        board = data.draw(st.sampled_from(self.boards))
        link = self._call("share_board", {"board": board, "mode": mode}, WHO[who])
        token = link["url"].rsplit("/", 1)[-1]
        principal = self.ws.authenticate(token)
        assert principal is not None and principal.board == board and principal.mode == mode
        self.links.append((board, principal))

    @rule(mode=st.sampled_from(["grid", "column", "row"]), data=st.data())
    def arrange(self, mode: str, data: st.DataObject) -> None:
        board = data.draw(st.sampled_from(self.boards))
        self._call("arrange", {"board": board, "mode": mode, "scope": "ai"}, AGENT)

    # ------------------------------------------------------------------ invariants

    def _scrape(self, board: str) -> dict[str, Any]:
        return self._call("scrape_board", {"board": board}, Principal.owner())

    def _scraped_card(self, cid: int) -> dict[str, Any]:
        return next(c for c in self._scrape(self._board_of(cid))["cards"] if c["id"] == cid)

    @invariant()
    def boards_hold_what_was_written(self) -> None:
        if not self.boards:
            return
        seen: set[int] = set()
        for board in self.boards:
            scraped = self._scrape(board)
            cards = scraped["cards"]
            ids = {c["id"] for c in cards}
            assert len(ids) == len(cards), "a card is listed twice"
            expected = {c for c, v in self.live.items() if v["board"] == board}
            assert ids == expected, (
                f"{board}: missing {expected - ids}, unexpected {ids - expected}"
            )
            seen |= ids
            for edge in scraped.get("edges", []):
                assert edge["from"] in ids and edge["to"] in ids, edge
            self._geometry(cards)
            for c in cards:
                old = self.versions.get(c["id"], 0)
                assert c["version"] >= old, f"card {c['id']} version {old} -> {c['version']}"
                if c["id"] in self.bumped:
                    assert c["version"] > old, f"patched card {c['id']} kept version {old}"
                self.versions[c["id"]] = c["version"]
            questions = self._call("get", {"kind": "questions", "board": board}, AGENT)
            assert len(questions["questions"]) == self.questions.get(board, 0)
        self.bumped.clear()
        assert not seen & (set(self.trashed) | self.gone)

    def _geometry(self, cards: list[dict[str, Any]]) -> None:
        by_id = {c["id"]: c for c in cards}

        def ancestors(cid: int) -> list[int]:
            out, parent = [], by_id[cid]["parent"]
            while parent is not None and parent in by_id and parent not in out:
                out.append(parent)
                parent = by_id[parent]["parent"]
            return out

        lineage = {cid: ancestors(cid) for cid in by_id}
        # A card placed by hand may overlap others, and so may the frames that hold it.
        exempt = set(self.by_hand) | {a for h in self.by_hand if h in lineage for a in lineage[h]}
        for cid, card in by_id.items():
            parent = card["parent"]
            if parent is not None:
                assert parent in by_id, f"card {cid} names missing parent {parent}"
                assert rect(by_id[parent]).contains(rect(card), eps=EPS), (
                    f"card {cid} sticks out of its frame {parent}"
                )
        ids = sorted(by_id)
        for n, a in enumerate(ids):
            for b in ids[n + 1 :]:
                if a in lineage[b] or b in lineage[a] or a in exempt or b in exempt:
                    continue
                assert not rect(by_id[a]).overlaps(rect(by_id[b]), eps=EPS), (
                    f"cards {a} {rect(by_id[a])} and {b} {rect(by_id[b])} overlap"
                )

    @invariant()
    def share_links_read_their_board_only(self) -> None:
        for board, link in self.links[-2:]:
            cards = self._call("scrape_board", {"board": board}, link)["cards"]
            assert {c["id"] for c in cards} == {
                c for c, v in self.live.items() if v["board"] == board
            }
            for other in self.boards:
                if other != board:
                    with pytest.raises(ServiceError) as exc:
                        self._call("scrape_board", {"board": other}, link)
                    assert exc.value.status == 403
            if link.mode == "view":
                with pytest.raises(ServiceError) as exc:
                    self._call(
                        "compose_board",
                        {"board": board, "cards": [{"kind": "note", "payload": {"md": "x"}}]},
                        link,
                    )
                assert exc.value.status == 403

    def teardown(self) -> None:
        # The store outlives each run; the workspace's drawing and jobs must not (the
        # schema they read goes once the test ends).
        self.ws.close()
        self.ws = None  # type: ignore[assignment]


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
def test_board_state_machine(kind: str, tmp_path: Any) -> None:
    if kind == "postgres" and not POSTGRES_URL:
        pytest.skip(PG_SKIP)
    with contextlib.ExitStack() as stack:
        url = (
            f"sqlite:///{tmp_path / 'sm.db'}"
            if kind == "sqlite"
            else stack.enter_context(pg_schema())
        )
        _run(url)


def _run(url: str) -> None:
    clock = Clock()
    store = open_store(url, clock=clock)
    machine = type("Machine", (BoardMachine,), {"store": store, "clock": clock})
    try:
        run_state_machine_as_test(
            machine,
            settings=stateful_settings(EXAMPLES, STEPS),
        )
    finally:
        store.close()
