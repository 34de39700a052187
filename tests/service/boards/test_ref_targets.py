"""A ref's ``target`` is server-owned: stamped on write, refreshed when its card changes."""

from __future__ import annotations

from typing import Any

import pytest

from layoutkit import Principal, Workspace
from layoutkit.render import render_doc
from layoutkit.service.boards.ref_targets import card_title
from tests.service.helpers import board_cards, err

FORGED = {"id": 999, "kind": "text", "title": "Forged"}
PROSE = {"kind": "prose", "payload": {"md": "aside"}}
REASON = "the plan card moved to another board"


def ref_card(card: int, **extra: Any) -> dict[str, Any]:
    return {"kind": "ref", "payload": {"card": card, **extra}}


def doc_with(*refs: dict[str, Any]) -> dict[str, Any]:
    return {
        "kind": "doc",
        "payload": {
            "title": "Notes",
            "elements": [
                {
                    "kind": "section",
                    "payload": {"id": "more", "title": "More", "elements": [PROSE]},
                },
                {
                    "kind": "columns",
                    "payload": {"cols": [{"elements": list(refs)}, {"elements": [PROSE]}]},
                },
            ],
        },
    }


def ref_element(payload: dict[str, Any]) -> dict[str, Any]:
    return {"kind": "ref", "payload": payload}


def compose(ws: Workspace, *cards: dict[str, Any], board: str = "b") -> list[int]:
    receipt = ws.call("compose_board", {"board": board, "cards": list(cards)})
    return [c["id"] for c in receipt["cards"]]


def payloads(ws: Workspace, board: str = "b") -> dict[int, dict[str, Any]]:
    return {c["id"]: c["payload"] for c in board_cards(ws, board)}


def doc_refs(payload: dict[str, Any]) -> list[dict[str, Any]]:
    return [e["payload"] for e in payload["elements"][1]["payload"]["cols"][0]["elements"]]


@pytest.fixture
def plan(any_ws: Workspace) -> int:
    any_ws.call("create", {"kind": "board", "slug": "b"})
    (card,) = compose(any_ws, {"kind": "text", "payload": {"md": "# Launch plan\n\nShip it."}})
    return card


def test_compose_stamps_the_target_over_what_was_sent(any_ws: Workspace, plan: int) -> None:
    chip, doc = compose(
        any_ws,
        ref_card(plan, target=FORGED),
        doc_with(
            ref_element({"card": plan, "mode": "preview", "target": FORGED}),
            ref_element({"section": "more", "target": FORGED}),
        ),
    )
    stored = payloads(any_ws)
    summary = {"id": plan, "kind": "text", "board": "b", "title": "Launch plan"}
    assert stored[chip]["target"] == summary
    by_card, by_section = doc_refs(stored[doc])
    assert by_card["target"] == summary
    assert "target" not in by_section  # a section ref names no card


def test_a_ref_to_a_card_outside_the_workspace_is_refused(any_ws: Workspace, plan: int) -> None:
    error = err(
        any_ws,
        "compose_board",
        {"board": "b", "cards": [ref_card(plan), doc_with(ref_element({"card": 10**9}))]},
    )
    assert (error.status, error.code, error.body["index"]) == (400, "unknown_card", 1)
    assert (
        error.body["field"]
        == "cards[1].payload.elements[1].payload.cols[0].elements[0].payload.card"
    )


def test_another_workspaces_card_is_not_a_target(any_ws: Workspace, plan: int) -> None:
    other = Workspace(any_ws.store, name=f"{any_ws.workspace_id}-other")
    other.call("create", {"kind": "board", "slug": "b"})
    error = err(other, "compose_board", {"board": "b", "cards": [ref_card(plan)]})
    assert (error.code, error.body["field"]) == ("unknown_card", "cards[0].payload.card")


def test_patching_the_target_refreshes_refs_on_its_board(any_ws: Workspace, plan: int) -> None:
    chip, doc = compose(any_ws, ref_card(plan), doc_with(ref_element({"card": plan})))
    any_ws.call(
        "update_cards", {"patch": [{"id": plan, "payload": {"md": "# Launch v2\n\nLater."}}]}
    )
    stored = payloads(any_ws)
    assert stored[chip]["target"]["title"] == "Launch v2"
    assert doc_refs(stored[doc])[0]["target"]["title"] == "Launch v2"
    # The doc renderer reads the refreshed title for the chip.
    assert ">Launch v2</a>" in render_doc({"kind": "doc", "payload": stored[doc]})


def test_moving_the_target_rewrites_nothing(any_ws: Workspace, plan: int) -> None:
    (chip,) = compose(any_ws, ref_card(plan))
    before = {c["id"]: c["version"] for c in board_cards(any_ws, "b")}
    any_ws.call("update_cards", {"patch": [{"id": plan, "x": 900, "y": 900}]})
    after = {c["id"]: c["version"] for c in board_cards(any_ws, "b")}
    assert after[chip] == before[chip]


def test_patching_a_ref_restamps_a_forged_target(any_ws: Workspace, plan: int) -> None:
    (chip,) = compose(any_ws, ref_card(plan))
    any_ws.call(
        "update_cards",
        {"patch": [{"id": chip, "payload": {"label": "see", "target": FORGED}}]},
    )
    assert payloads(any_ws)[chip]["target"]["title"] == "Launch plan"
    error = err(any_ws, "update_cards", {"patch": [{"id": chip, "payload": {"card": 10**9}}]})
    assert (error.code, error.body["field"]) == ("unknown_card", "patch[0].payload.card")


def test_trashing_and_restoring_the_target_is_reflected(any_ws: Workspace, plan: int) -> None:
    owner = Principal.owner()
    (chip,) = compose(any_ws, ref_card(plan))
    for n in range(3):  # keep the removal under the share that needs a confirm
        compose(any_ws, {"kind": "note", "payload": {"md": f"filler {n}"}})
    any_ws.call("update_cards", {"remove": [plan], "reason": REASON}, owner)
    assert payloads(any_ws)[chip]["target"]["trashed"] is True
    any_ws.call("update_cards", {"restore": [plan]}, owner)
    assert "trashed" not in payloads(any_ws)[chip]["target"]


@pytest.mark.parametrize(
    ("payload", "title"),
    [
        ({"title": "Roadmap", "md": "# Other"}, "Roadmap"),
        ({"md": "\n\n## Risks \nbody"}, "Risks"),
        ({"label": "x" * 100}, "x" * 80),
        ({"shape": "circle"}, None),
    ],
)
def test_card_title(payload: dict[str, Any], title: str | None) -> None:
    assert card_title(payload) == title
