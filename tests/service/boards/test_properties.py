"""Invariants under random sequences of compose_board and update_cards.

After every step the scraped board has no two overlapping cards unless one
contains the other, and every child sits inside its frame.
"""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from layoutkit import Principal, ServiceError, Workspace
from tests.service.helpers import board_cards, geometry_problems

AGENT = Principal.agent("prop")

_WORDS = st.lists(
    st.sampled_from(["alpha", "beta", "gamma", "delta", "a", "longerword"]), min_size=1, max_size=30
)
_CARD = st.one_of(
    st.builds(lambda w: {"kind": "text", "payload": {"md": " ".join(w)}}, _WORDS),
    st.builds(lambda w: {"kind": "note", "payload": {"md": " ".join(w)}}, _WORDS),
    st.builds(
        lambda n: {"kind": "step", "payload": {"title": f"s{n}", "image": f"s{n}.png"}},
        st.integers(1, 4),
    ),
    st.just({"kind": "shape", "payload": {"label": "box"}}),
)
_BATCH = st.lists(_CARD, min_size=1, max_size=4)

_STEP = st.one_of(
    st.tuples(st.just("free"), _BATCH, st.sampled_from([None, "row", "column", "grid"])),
    st.tuples(st.just("section"), _BATCH, st.sampled_from(["Ideas", "Risks", "Done list"])),
    st.tuples(st.just("journey"), _BATCH, st.sampled_from([None, "next"])),
    st.tuples(
        st.just("anchor"),
        _BATCH,
        st.sampled_from(["after", "before", "under", "beside", "into"]),
        st.integers(0, 10_000),
    ),
    st.tuples(st.just("cluster"), _BATCH, st.sampled_from(["row", "grid"])),
    st.tuples(st.just("flow"), _BATCH),
    st.tuples(
        st.just("move"), st.integers(0, 10_000), st.integers(-300, 300), st.integers(-300, 300)
    ),
    st.tuples(
        st.just("resize"), st.integers(0, 10_000), st.integers(40, 500), st.integers(30, 400)
    ),
    st.tuples(st.just("retext"), st.integers(0, 10_000), _WORDS),
)


def _params(
    step: tuple[Any, ...], cards: list[dict[str, Any]]
) -> tuple[str, dict[str, Any]] | None:
    kind = step[0]
    if kind == "free":
        params: dict[str, Any] = {"board": "p", "cards": step[1]}
        if step[2]:
            params["layout"] = step[2]
        return "compose_board", params
    if kind == "section":
        return "compose_board", {"board": "p", "cards": step[1], "section": step[2]}
    if kind == "journey":
        params = {"board": "p", "cards": step[1], "journey": "flow"}
        if step[2]:
            params["pass"] = step[2]
        return "compose_board", params
    if kind == "flow":
        return "compose_board", {"board": "p", "cards": step[1], "flow": "document"}
    if kind == "cluster":
        kids = [{**c, "ref": f"k{i}"} for i, c in enumerate(step[1])]
        frame = {
            "kind": "cluster",
            "payload": {"title": "Group", "layout": {"mode": step[2]}},
            "children": [c["ref"] for c in kids],
        }
        return "compose_board", {"board": "p", "cards": [frame, *kids]}
    if not cards:
        return None
    if kind == "anchor":
        target = cards[step[3] % len(cards)]
        relation = step[2]
        if relation == "into" and target["kind"] not in ("section", "cluster"):
            relation = "beside"
        return "compose_board", {
            "board": "p",
            "cards": step[1],
            "anchor": {"cardId": target["id"], "relation": relation},
        }
    plain = [c for c in cards if c["kind"] not in ("section", "cluster")]
    if not plain:
        return None
    target = plain[step[1] % len(plain)]
    if kind == "move":
        return "update_cards", {
            "patch": [{"id": target["id"], "x": target["x"] + step[2], "y": target["y"] + step[3]}]
        }
    if kind == "resize":
        return "update_cards", {"patch": [{"id": target["id"], "w": step[2], "h": step[3]}]}
    if target["kind"] not in ("text", "note"):
        return None
    return "update_cards", {"patch": [{"id": target["id"], "payload": {"md": " ".join(step[2])}}]}


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_STEP, min_size=1, max_size=10))
def test_compose_and_update_keep_the_board_tidy(steps: list[tuple[Any, ...]]) -> None:
    with Workspace.open() as ws:
        ws.call("create", {"kind": "board", "slug": "p"})
        cards: list[dict[str, Any]] = []
        for step in steps:
            call = _params(step, cards)
            if call is None:
                continue
            op, params = call
            try:
                ws.call(op, params, AGENT)
            except ServiceError as refused:
                # Refusals are part of the contract (e.g. a near-match section name);
                # they must be client errors and leave the board as it was.
                assert 400 <= refused.status < 500, refused
                assert board_cards(ws, "p") == cards
                continue
            cards = board_cards(ws, "p")
            problems = geometry_problems(cards)
            assert not problems, f"after {op} {params}: {problems}"


@settings(max_examples=20, deadline=None)
@given(st.lists(_BATCH, min_size=1, max_size=5), st.lists(st.integers(0, 1000), max_size=4))
def test_remove_and_restore_keep_the_board_tidy(
    batches: list[list[dict[str, Any]]], picks: list[int]
) -> None:
    with Workspace.open() as ws:
        ws.call("create", {"kind": "board", "slug": "p"})
        for i, batch in enumerate(batches):
            params: dict[str, Any] = {"board": "p", "cards": batch}
            if i % 2:
                params["section"] = "Kept"
            ws.call("compose_board", params, AGENT)
        for pick in picks:
            cards = board_cards(ws, "p")
            victim = cards[pick % len(cards)]["id"]
            try:
                ws.call("update_cards", {"remove": [victim]}, AGENT)
            except ServiceError as asked:
                assert asked.code == "needs_confirm"
                ws.call(
                    "update_cards",
                    {
                        "remove": [victim],
                        "confirm": asked.body["token"],
                        "reason": "property test cleanup run",
                    },
                    AGENT,
                )
            assert not geometry_problems(board_cards(ws, "p"))
            ws.call("update_cards", {"restore": [victim]}, AGENT)
            problems = geometry_problems(board_cards(ws, "p"))
            assert not problems, problems
