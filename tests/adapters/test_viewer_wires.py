"""Wires by hand in the viewer: a click picks a wire, the inspector labels it and
gives it a relation (update_edges), Delete removes it (someone else's through the
confirm dialog), undo and redo walk it back, a stale write snaps, and a view link
changes nothing.

Playwright drives Debian's Chromium with a real pointer and keyboard against a real
server on 127.0.0.1; each step is checked in the workspace's database.
"""

from __future__ import annotations

from typing import Any

import pytest
from PIL import Image

from layoutkit.principal import Principal
from tests.adapters.conftest import Api
from tests.adapters.test_viewer_hands import SLUG, Pages, _board, _open, _person, _screen, _wait
from tests.browser import ARTIFACTS, CHROMIUM, SKIP_REASON

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(CHROMIUM is None, reason=SKIP_REASON),
]

ANA = Principal.user("ana")
AGENT = Principal.agent("claude")


def _edges(api: Api) -> list[Any]:
    with api.ws.store.read() as tx:
        board = tx.board_by_slug(api.ws.workspace_id, SLUG)
        assert board is not None
        return tx.edges(board.id)


def _wire(api: Api, a: int, b: int, who: Principal = ANA) -> int:
    (edge,) = api.ws.call("compose_board", {"board": SLUG, "edges": [{"from": a, "to": b}]}, who)[
        "edges"
    ]
    return int(edge["id"])


#: The middle of a wire's longest straight run, in board coordinates, read off the
#: trace the board's drawing carries for it.
_ON_WIRE = """id => {
  const marks = document.querySelectorAll(`#faces g.wire[data-edge-id="${id}"]`);
  const mark = marks[marks.length - 1];
  if (!mark) return null;
  const svg = mark.ownerSVGElement;
  const pts = mark.querySelector('polyline').getAttribute('points').trim().split(/\\s+/)
    .map(p => p.split(',').map(Number));
  let best = null;
  for (let i = 1; i < pts.length; i++) {
    const len = Math.hypot(pts[i][0] - pts[i-1][0], pts[i][1] - pts[i-1][1]);
    if (!best || len > best.len) best = {len, x: (pts[i][0] + pts[i-1][0]) / 2, y: (pts[i][1] + pts[i-1][1]) / 2};
  }
  return [parseFloat(svg.style.left) + best.x, parseFloat(svg.style.top) + best.y];
}"""


def _click_wire(page: Any, edge: int) -> None:
    at = _wait(lambda: page.evaluate(_ON_WIRE, edge))
    page.mouse.click(*_screen(page, *at))
    page.wait_for_selector(f"body[data-wire='{edge}']")
    page.wait_for_selector(f".wirepick[data-edge-id='{edge}']", state="attached")


def _drawn_text(page: Any) -> str:
    return str(page.evaluate("document.querySelector('#faces').textContent"))


def _undo(page: Any, n: int, redo: bool = False) -> None:
    page.keyboard.press("Control+Shift+Z" if redo else "Control+z")
    _wait(lambda: page.evaluate("document.body.dataset.undone") == str(n))


def test_click_a_wire_label_it_delete_it_and_undo_brings_it_back(api: Api, pages: Pages) -> None:
    ids = _board(api.ws)
    a, b = ids["a"], ids["b"]
    edge = _wire(api, a, b)
    page, other = pages.new(), pages.new()
    _open(page, api, _person(api))
    _open(other, api, api.token)
    _click_wire(page, edge)
    inspector = page.locator("#inspector")
    inspector.get_by_text("user:ana").wait_for()
    assert f"Wire {edge}" in inspector.inner_text()
    assert "Idea a" in inspector.inner_text() and "Idea b" in inspector.inner_text()

    # A label typed in the inspector, saved with Enter, drawn on the board.
    page.locator("#wire-label").click()
    page.keyboard.type("needs")
    page.keyboard.press("Enter")
    _wait(lambda: _edges(api)[0].label == "needs")
    page.wait_for_function("document.querySelector('#faces').textContent.includes('needs')")
    # Another browser on the board hears of it on its event stream and draws it.
    other.wait_for_function("document.querySelector('#faces').textContent.includes('needs')")
    page.locator("#wire-rel").fill("depends-on")
    page.keyboard.press("Enter")
    _wait(lambda: _edges(api)[0].rel == "depends-on")
    # The page has the save's answer too (the database has it a moment earlier): what
    # Delete keeps for its undo is the wire as saved.
    _wait(lambda: page.evaluate("document.body.dataset.wrote") == "2")
    # An agent reads the same: scrape_board has the wire's label and relation.
    (scraped,) = api.ws.call("scrape_board", {"board": SLUG})["edges"]
    assert (scraped["label"], scraped["rel"]) == ("needs", "depends-on")

    # Delete on the board removes it (my own wire: no dialog). The inspector is drawn
    # again after the save and its field takes the focus back: Escape goes to a field,
    # not to the page between the two (where it would let the wire go).
    page.wait_for_function(
        "document.activeElement.id === 'wire-rel' && document.activeElement.value === 'depends-on'"
    )
    page.keyboard.press("Escape")  # out of the field; the wire stays picked
    page.wait_for_function("document.activeElement.id === 'board'")
    page.keyboard.press("Delete")
    _wait(lambda: _edges(api) == [])
    assert page.locator("dialog[open]").count() == 0
    page.wait_for_function("!document.querySelector('#faces').textContent.includes('needs')")
    _wait(lambda: page.evaluate("document.body.dataset.wire") == "")

    # Undo draws it again with its label and relation; the steps before it follow
    # the wire's new id.
    _undo(page, 1)
    (back,) = _edges(api)
    assert (back.from_card, back.to_card, back.label, back.rel) == (a, b, "needs", "depends-on")
    page.wait_for_function("document.querySelector('#faces').textContent.includes('needs')")
    _undo(page, 2)  # the relation
    _wait(lambda: _edges(api)[0].rel is None)
    _undo(page, 3)  # the label
    _wait(lambda: _edges(api)[0].label is None)
    _undo(page, 4, redo=True)
    _wait(lambda: _edges(api)[0].label == "needs")
    assert page.evaluate("document.body.dataset.undo") == "1,2"


def test_removing_an_agents_wire_asks_why_and_its_label_is_theirs(api: Api, pages: Pages) -> None:
    ids = _board(api.ws)
    edge = _wire(api, ids["b"], ids["c"], AGENT)
    page = pages.new()
    _open(page, api, _person(api))
    _click_wire(page, edge)
    page.locator("#inspector").get_by_text("agent:claude").first.wait_for()
    assert page.locator("#wire-label").is_disabled()
    assert "Only agent:claude" in page.locator("#inspector").inner_text()
    page.locator("#inspector [data-role='wire-delete']").click()
    dialog = page.locator("#confirm-remove")
    dialog.wait_for(state="visible")
    assert "Remove this wire?" in dialog.inner_text() and "agent:claude" in dialog.inner_text()
    page.locator("#confirm-remove-reason").fill("it joins the wrong two ideas")
    page.locator("#confirm-remove-go").click()
    _wait(lambda: _edges(api) == [])
    with api.ws.store.read() as tx:
        board = tx.board_by_slug(api.ws.workspace_id, SLUG)
        assert board is not None
        events = [e for e in tx.events(board_id=board.id) if e.action == "edges.update"]
    assert events[-1].detail["reason"] == "it joins the wrong two ideas"
    assert events[-1].principal == "user:ana"


def test_a_card_lists_its_wires_and_enter_reaches_the_label(api: Api, pages: Pages) -> None:
    """The keyboard way: Tab to a card, its wires in the inspector, Enter to the label."""
    ids = _board(api.ws)
    edge = _wire(api, ids["a"], ids["b"])
    page = pages.new()
    _open(page, api, _person(api))
    page.locator(f".cardfocus[data-card-id='{ids['a']}']").focus()
    link = page.locator(f"#inspector button[data-wire='{edge}']")
    link.focus()
    page.keyboard.press("Enter")
    page.wait_for_selector(f"body[data-wire='{edge}']")
    page.locator("#board").focus()
    page.keyboard.press("Enter")
    page.wait_for_function("document.activeElement.id === 'wire-label'")
    page.keyboard.type("then")
    page.keyboard.press("Enter")
    _wait(lambda: _edges(api)[0].label == "then")
    # Escape leaves the field with the wire still picked; Backspace removes it.
    page.keyboard.press("Escape")
    page.wait_for_function("document.activeElement.id === 'board'")
    assert page.evaluate("document.body.dataset.wire") == str(edge)
    page.keyboard.press("Backspace")
    _wait(lambda: _edges(api) == [])


def test_a_stale_label_snaps_to_the_servers_wires_without_an_error(api: Api, pages: Pages) -> None:
    ids = _board(api.ws)
    edge = _wire(api, ids["a"], ids["b"])
    other = _wire(api, ids["c"], ids["d"])
    page = pages.new()
    # This page hears of no change: its wire counter goes stale.
    page.route("**/events*", lambda route: route.abort())
    page.route("**/ops/board_changes", lambda route: route.abort())
    _open(page, api, _person(api))
    _click_wire(page, edge)
    api.ws.call("update_edges", {"board": SLUG, "set": [{"id": other, "label": "elsewhere"}]})
    page.locator("#wire-label").fill("mine")
    page.keyboard.press("Enter")
    _wait(lambda: page.evaluate("document.body.dataset.wireSnapped") == "1")
    assert _edges(api)[0].label is None
    assert page.locator("#toast.error:not([hidden])").count() == 0
    assert page.locator("dialog[open]").count() == 0
    # What was typed is still there; read again, it now saves.
    assert page.locator("#wire-label").input_value() == "mine"
    page.locator("#inspector [data-role='wire-save']").click()
    _wait(lambda: _edges(api)[0].label == "mine")


def test_a_view_link_picks_a_wire_but_changes_nothing(api: Api, pages: Pages) -> None:
    ids = _board(api.ws)
    edge = _wire(api, ids["a"], ids["b"])
    url = api.op("share_board", {"board": SLUG}).json()["url"]
    page = pages.new()
    page.goto(f"{api.url}{url}")
    page.wait_for_selector("body[data-ready='1']", timeout=20_000)
    _click_wire(page, edge)
    assert page.locator("#wire-label").is_disabled()
    assert page.locator("#inspector [data-role='wire-delete']").is_disabled()
    assert page.locator("#inspector [data-role='wire-save']").count() == 0
    page.keyboard.press("Delete")
    page.keyboard.press("Escape")
    page.wait_for_selector("body[data-wire='']")
    (kept,) = _edges(api)
    assert (kept.id, kept.label) == (edge, None)
    assert int(page.evaluate("document.body.dataset.wrote || '0'")) == 0


@pytest.mark.parametrize(
    ("name", "viewport"),
    [("wide", {"width": 1440, "height": 900}), ("phone", {"width": 390, "height": 844})],
)
def test_a_picked_labelled_wire_looks(
    api: Api, pages: Pages, name: str, viewport: dict[str, int]
) -> None:
    from tests.render.test_browser import compare

    ids = _board(api.ws)
    # b moved down and right by hand: the wire has room for its label.
    with api.ws.store.read() as tx:
        (b,) = tx.cards_by_id([ids["b"]])
    api.ws.call("update_cards", {"patch": [{"id": b.id, "x": b.x + 160, "y": b.y + 200}]}, ANA)
    edge = _wire(api, ids["a"], ids["b"])
    api.ws.call(
        "update_edges",
        {"board": SLUG, "set": [{"id": edge, "label": "needs", "rel": "depends-on"}]},
        ANA,
    )
    page = pages.new(viewport)
    _open(page, api, _person(api))
    _click_wire(page, edge)
    page.locator("#wire-label").wait_for()
    (ARTIFACTS / "render").mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"viewer-wire-{name}.png"
    # The status line tells the time: masked, so the picture holds still.
    page.screenshot(path=str(path), mask=[page.locator("#status")])
    # The trace lies over the drawn wire, inside the board area.
    pick = page.locator(".wirepick").bounding_box()
    board = page.locator("#board").bounding_box()
    assert pick is not None and board is not None
    assert pick["width"] > 0 and pick["x"] < board["x"] + board["width"]
    compare(Image.open(path).convert("RGB"), f"viewer-wire-{name}")


def test_a_wire_goes_and_comes_back_with_its_card(api: Api, pages: Pages) -> None:
    """A card trashed and restored elsewhere takes its wire away and brings it back."""
    ids = _board(api.ws)
    a = ids["a"]
    edge = _wire(api, a, ids["b"], ANA)
    page = pages.new()
    _open(page, api, _person(api))
    page.wait_for_selector("body[data-wires='1']")
    assert api.ws.call("update_cards", {"remove": [a]})["removed"] == [a]
    page.wait_for_selector("body[data-wires='0']")
    api.ws.call("update_cards", {"restore": [a]})
    page.wait_for_selector("body[data-wires='1']")
    _click_wire(page, edge)
    page.locator("#wire-label").fill("back again")
    page.keyboard.press("Enter")
    _wait(lambda: _edges(api)[0].label == "back again")
