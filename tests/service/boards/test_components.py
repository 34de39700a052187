"""Kind component: a saved selection of cards (relative layout, wires, slots) that
compose_board instantiates like a template (docs/mcp-tools.md, Components)."""

from __future__ import annotations

from typing import Any

from layoutkit import Principal, Workspace
from tests.service.helpers import assert_tidy, board_cards, err


def _source(ws: Workspace) -> list[int]:
    ws.call("create", {"kind": "board", "slug": "src"})
    made = ws.call(
        "compose_board",
        {
            "board": "src",
            "layout": "row",
            "cards": [
                {"kind": "text", "ref": "a", "payload": {"md": "# Checkout\nStart Checkout"}},
                {"kind": "note", "ref": "b", "payload": {"md": "Ask the {owner}"}},
                {"kind": "text", "ref": "c", "payload": {"md": "Not picked"}},
            ],
            "edges": [
                {"from": "a", "to": "b", "label": "then Checkout"},
                {"from": "b", "to": "c", "label": "out"},
            ],
        },
    )
    return [c["id"] for c in made["cards"]]


def _component(ws: Workspace, ids: list[int], **extra: Any) -> dict[str, Any]:
    params = {"kind": "component", "board": "src", "name": "flow", "cardIds": ids, **extra}
    return ws.call("create", params)["component"]


def test_create_keeps_cards_layout_wires_and_slots(any_ws: Workspace) -> None:
    a, b, _ = _source(any_ws)
    made = _component(any_ws, [a, b], slots={"feature": "Checkout"}, description="A flow")
    assert (made["version"], made["cards"], made["edges"], made["layout"]) == (1, 2, 1, "row")
    # Slots come from the texts named and from placeholders already in the cards.
    assert made["slots"] == ["feature", "owner"]
    got = any_ws.call("get", {"kind": "component", "name": "flow"})["component"]
    cards = got["definition"]["cards"]
    assert [c["payload"]["md"] for c in cards] == [
        "# {feature}\nStart {feature}",
        "Ask the {owner}",
    ]
    assert cards[0]["at"]["x"] == 0 and cards[1]["at"]["x"] > cards[0]["at"]["w"]
    assert cards[0]["at"]["y"] == cards[1]["at"]["y"] == 0
    # Only wires with both ends in the selection are kept.
    assert got["definition"]["edges"] == [{"from": "1", "to": "2", "label": "then {feature}"}]
    again = _component(any_ws, [a])
    assert again["version"] == 2
    listed = any_ws.call("list", {"kind": "component"})["items"]
    assert [(c["name"], c["version"], c["cards"]) for c in listed] == [("flow", 2, 1)]


def test_compose_instantiates_a_component_like_a_template(any_ws: Workspace) -> None:
    a, b, _ = _source(any_ws)
    _component(any_ws, [a, b], slots={"feature": "Checkout"})
    any_ws.call("create", {"kind": "board", "slug": "dst"})
    receipt = any_ws.call(
        "compose_board",
        {
            "board": "dst",
            "template": "flow",
            "params": {"feature": "Search"},
            # Inline entries wire to the component's cards by <name>/<n>.
            "cards": [{"kind": "text", "ref": "x", "payload": {"md": "After"}}],
            "edges": [{"from": "flow/2", "to": "x"}],
        },
    )
    assert [c["ref"] for c in receipt["cards"]] == ["flow/1", "flow/2", "x"]
    cards = assert_tidy(any_ws, "dst")
    texts = [c["payload"]["md"] for c in cards]
    # A filled slot shows its value; an unfilled one renders literally.
    assert texts == ["# Search\nStart Search", "Ask the {owner}", "After"]
    first, second = cards[0], cards[1]
    assert first["y"] == second["y"] and second["x"] > first["x"]  # the saved row
    scraped = any_ws.call("scrape_board", {"board": "dst"})
    labels = sorted(str(e.get("label")) for e in scraped.get("edges", []))
    assert "then Search" in labels


def test_sections_carry_the_cards_inside_them(any_ws: Workspace) -> None:
    any_ws.call("create", {"kind": "board", "slug": "src"})
    made = any_ws.call(
        "compose_board",
        {
            "board": "src",
            "section": "Login",
            "cards": [{"kind": "text", "payload": {"md": "Inside"}}],
        },
    )
    section = made["sections"][0]["id"]
    got = _component(any_ws, [section])
    assert got["cards"] == 2
    definition = any_ws.call("get", {"kind": "component", "name": "flow"})["component"]
    kinds = [(c["kind"], c.get("children")) for c in definition["definition"]["cards"]]
    assert kinds == [("section", ["2"]), ("text", None)]
    any_ws.call("create", {"kind": "board", "slug": "dst"})
    any_ws.call("compose_board", {"board": "dst", "template": "flow"})
    cards = board_cards(any_ws, "dst")
    inner = next(c for c in cards if c["kind"] == "text")
    outer = next(c for c in cards if c["kind"] == "section")
    assert inner["parent"] == outer["id"]


def test_refusals(any_ws: Workspace) -> None:
    a, b, _ = _source(any_ws)
    gone = err(
        any_ws, "create", {"kind": "component", "board": "src", "name": "x", "cardIds": [a, 999]}
    )
    assert (gone.status, gone.code, gone.body["field"]) == (404, "unknown_card", "cardIds[1]")
    nothing = err(
        any_ws,
        "create",
        {"kind": "component", "board": "src", "name": "x", "cardIds": [a], "slots": {"s": "zzz"}},
    )
    assert (nothing.status, nothing.code, nothing.body["field"]) == (
        422,
        "slot_not_found",
        "slots.s",
    )
    builtin = err(
        any_ws,
        "create",
        {"kind": "component", "board": "src", "name": "decision-map", "cardIds": [a]},
    )
    assert (builtin.status, builtin.code, builtin.body["field"]) == (409, "template_name", "name")
    bad = err(
        any_ws, "create", {"kind": "component", "board": "src", "name": "X y", "cardIds": [a]}
    )
    assert (bad.status, bad.code, bad.body["field"]) == (400, "invalid_params", "name")
    _component(any_ws, [a, b])
    missing = err(any_ws, "get", {"kind": "component", "name": "flwo"})
    assert (missing.status, missing.code, missing.body["field"]) == (
        404,
        "unknown_component",
        "name",
    )
    assert missing.body["didYouMean"] == ["flow"]
    any_ws.call("create", {"kind": "board", "slug": "dst"})
    slot = err(
        any_ws,
        "compose_board",
        {"board": "dst", "template": "flow", "params": {"ownr": "Ada"}},
    )
    assert (slot.status, slot.code, slot.body["field"]) == (400, "unknown_slot", "params.ownr")
    assert slot.body["didYouMean"] == ["owner"]
    typo = err(any_ws, "compose_board", {"board": "dst", "template": "flwo"})
    assert (typo.status, typo.code, typo.body["didYouMean"]) == (404, "unknown_template", ["flow"])
    shared = err(
        any_ws,
        "create",
        {"kind": "component", "board": "src", "name": "y", "cardIds": [a]},
        Principal.share("src"),
    )
    assert shared.status == 403
