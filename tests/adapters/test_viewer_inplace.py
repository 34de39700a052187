"""Editing a checklist's items, a table's cells and a page's text in place in the viewer.

Playwright drives Debian's Chromium with a real pointer and keyboard against a
real server on 127.0.0.1; after each action the card is read back from the
workspace's database (its payload, version, author), and an agent's scrape_board
and board_changes see the change. Undo and redo are writes too; share links in
view mode change nothing, and in annotate mode only tick.
"""

from __future__ import annotations

import functools
from typing import Any

import pytest
from PIL import Image

from layoutkit.elements import SPILL_THRESHOLD_ROWS
from layoutkit.principal import Principal
from tests.adapters.conftest import Api
from tests.adapters.test_viewer_hands import (
    Pages,
    _card,
    _centre,
    _open,
    _person,
    _screen,
    _selection,
    _wait,
    _wrote,
)
from tests.browser import ARTIFACTS, CHROMIUM, SKIP_REASON

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(CHROMIUM is None, reason=SKIP_REASON),
]

ANA = Principal.user("ana")
AGENT = Principal.agent("claude")
SLUG = "hands"

LIST = {"title": "Launch", "items": [{"text": "Docs"}, {"text": "Bench", "done": True}]}
TABLE = {
    "title": "Owners",
    "cols": [
        {"key": "area", "label": "Area"},
        {"key": "who", "label": "Who"},
        {"key": "hours", "label": "Hours", "type": "number"},
    ],
    "rows": [
        {"area": "Docs", "who": "Ana", "hours": 3},
        {"area": "Bench", "who": {"v": "Bo", "tone": "good"}, "hours": 5},
    ],
}


def _board(api: Api, *cards: dict[str, Any]) -> list[int]:
    """A board of the person's own cards in a row (people change their own cards' content)."""
    api.ws.call("create", {"kind": "board", "slug": SLUG})
    out = api.ws.call("compose_board", {"board": SLUG, "cards": list(cards), "layout": "row"}, ANA)
    return [c["id"] for c in out["cards"]]


def _payload(api: Api, card_id: int) -> dict[str, Any]:
    return _card(api, card_id).payload


def _texts(api: Api, card_id: int) -> list[str]:
    return [i["text"] for i in _payload(api, card_id)["items"]]


def _undo_count(page: Any) -> str:
    return page.evaluate("document.body.dataset.undo || ''")


def _corner(page: Any, api: Api, card_id: int) -> tuple[float, float]:
    c = _card(api, card_id)
    return _screen(page, c.x + 5, c.y + 5)


def _pick(page: Any, api: Api, card_id: int) -> None:
    """Pick a card with a click in its corner (a checklist's items are its own buttons)."""
    page.mouse.click(*_corner(page, api, card_id))
    _wait(lambda: _selection(page) == [card_id])


def _item(page: Any, card_id: int, n: int | str) -> Any:
    return page.locator(f".live.editing[data-card-id='{card_id}'] input.itemtext[data-item='{n}']")


def _focused_item(page: Any) -> str:
    return page.evaluate("document.activeElement.dataset.item || ''")


def _undo(page: Any, n: int, keys: str = "Control+z") -> None:
    """Undo (or with Shift redo) once more, and wait for the page to have finished it."""
    page.keyboard.press(keys)
    _wait(lambda: page.evaluate("document.body.dataset.undone") == str(n))


def _changes_since(api: Api, rev: int) -> set[int]:
    out = api.ws.call("board_changes", {"board": SLUG, "since": rev}, AGENT)
    return {c["id"] for c in out["cards"]}


def _rev(api: Api) -> int:
    return api.ws.call("board_changes", {"board": SLUG, "since": 0}, AGENT)["rev"]


# --------------------------------------------------------------------------- checklists


def test_a_checklists_items_are_edited_added_removed_and_moved_by_keyboard(
    api: Api, pages: Pages
) -> None:
    (card,) = _board(api, {"kind": "checklist", "payload": LIST})
    page = pages.new()
    _open(page, api, _person(api))
    rev = _rev(api)
    # Enter on the picked checklist opens its items; the focus is in the first one.
    _pick(page, api, card)
    page.keyboard.press("Enter")
    _item(page, card, 0).wait_for()
    assert _focused_item(page) == "0"

    # Edit an item's text: Enter writes it (naming the version), as the person.
    page.keyboard.type(" and help")
    page.keyboard.press("Enter")
    _wait(lambda: _texts(api, card) == ["Docs and help", "Bench"])
    record = _card(api, card)
    assert (record.version, record.author) == (2, "user:ana")
    assert card in _changes_since(api, rev)
    # Enter at the end opened a new item below; what is typed there is added on Enter.
    _wait(lambda: _focused_item(page) == "new")
    page.keyboard.type("Changelog")
    page.keyboard.press("Enter")
    _wait(lambda: _texts(api, card) == ["Docs and help", "Changelog", "Bench"])
    assert _payload(api, card)["items"][1] == {"text": "Changelog", "done": False}
    # The next new item waits, empty: Enter on it ends the adding.
    _wait(lambda: _focused_item(page) == "new")
    page.keyboard.press("Enter")
    _wait(lambda: _focused_item(page) == "1")
    assert _card(api, card).version == 3

    # Alt+Up moves the item up; the focus goes with it.
    page.keyboard.press("Alt+ArrowUp")
    _wait(lambda: _texts(api, card) == ["Changelog", "Docs and help", "Bench"])
    _wait(lambda: _focused_item(page) == "0")
    page.keyboard.press("Alt+ArrowDown")
    page.keyboard.press("Alt+ArrowDown")
    _wait(lambda: _texts(api, card) == ["Docs and help", "Bench", "Changelog"])
    _wait(lambda: _focused_item(page) == "2")
    # Ticks are kept through the moves: "Bench" was done and still is.
    assert [i["done"] for i in _payload(api, card)["items"]] == [False, True, False]

    # Backspace on an emptied item removes it.
    wrote = _wrote(page)
    page.keyboard.press("Control+A")
    page.keyboard.press("Backspace")
    page.keyboard.press("Backspace")
    _wait(lambda: _texts(api, card) == ["Docs and help", "Bench"])
    _wait(lambda: _focused_item(page) == "1")
    # The page has its own answer (the database has the write a moment earlier), so
    # the next removal names the version that write made.
    _wait(lambda: _wrote(page) > wrote)
    _wait(lambda: page.locator(f".live.editing[data-card-id='{card}'] button.remove").count() == 2)
    # The button removes one too.
    page.locator(f".live.editing[data-card-id='{card}'] button.remove").nth(0).click()
    _wait(lambda: _texts(api, card) == ["Bench"])
    # Ticking still works while the items are open, and the tick is kept.
    page.locator(f".live.editing[data-card-id='{card}'] input[type=checkbox]").nth(0).click()
    _wait(lambda: [i["done"] for i in _payload(api, card)["items"]] == [False])
    # An agent reads what the person made.
    scraped = next(
        c for c in api.ws.call("scrape_board", {"board": SLUG}, AGENT)["cards"] if c["id"] == card
    )
    assert scraped["payload"]["items"] == [{"text": "Bench", "done": False}]

    # Undo walks the item writes back one by one, from the open editor (its tick box has
    # the focus) or from the board, and redo goes forward again. A tick is not a step of
    # the person's history: an undone or redone item change keeps each item's tick.
    _wait(lambda: _undo_count(page) == "7,0")
    version = _card(api, card).version
    undo = functools.partial(_undo, page)
    undo(1)  # the button's removal: "Docs and help" is back, "Bench" still unticked
    assert _payload(api, card)["items"] == [
        {"text": "Docs and help", "done": False},
        {"text": "Bench", "done": False},
    ]
    assert _card(api, card).version == version + 1
    # The editor shows what the database holds.
    _wait(
        lambda: (
            _item(page, card, 0).count() == 1
            and _item(page, card, 0).input_value() == "Docs and help"
        )
    )
    page.keyboard.press("Escape")
    _wait(lambda: page.locator(".live.editing").count() == 0)
    undo(2)  # the Backspace removal: "Changelog" is back
    assert _texts(api, card) == ["Docs and help", "Bench", "Changelog"]
    assert [i["done"] for i in _payload(api, card)["items"]] == [False, False, False]
    undo(3, "Control+Shift+Z")  # redo: removed again
    assert _texts(api, card) == ["Docs and help", "Bench"]
    # The overlay shows what the database holds after each step.
    _wait(
        lambda: (
            page.locator(f".live[data-card-id='{card}'] label span").all_inner_texts()
            == ["Docs and help", "Bench"]
        )
    )


def test_a_stale_checklist_edit_snaps_to_the_servers_items_without_an_error(
    api: Api, pages: Pages
) -> None:
    (card,) = _board(api, {"kind": "checklist", "payload": LIST})
    page = pages.new()
    # No pushed changes: the page knows only what it read itself.
    page.route("**/events*", lambda route: route.abort())
    page.route("**/ops/board_changes", lambda route: route.abort())
    _open(page, api, _person(api))
    _pick(page, api, card)
    page.keyboard.press("Enter")
    _item(page, card, 0).wait_for()
    # Someone else (the person in another tab, say) writes first.
    api.ws.call(
        "update_cards",
        {"patch": [{"id": card, "payload": {"items": [{"text": "Theirs"}]}}]},
        ANA,
    )
    page.keyboard.type(" and ours")
    page.keyboard.press("Enter")
    _wait(lambda: page.evaluate("document.body.dataset.snapped") == str(card))
    assert _texts(api, card) == ["Theirs"] and _card(api, card).version == 2
    # The editor shows the server's items, and no error was put in front of the person.
    _item(page, card, 0).wait_for()
    _wait(lambda: _item(page, card, 0).input_value() == "Theirs")
    assert page.locator("#toast.error:not([hidden])").count() == 0
    assert page.locator("dialog[open]").count() == 0


# --------------------------------------------------------------------------- tables


def _cell(page: Any, r: int, c: int) -> Any:
    return page.locator(f".grid .cell[data-r='{r}'][data-c='{c}']")


def _at(page: Any) -> tuple[int, int]:
    got = page.evaluate("[document.activeElement.dataset.r, document.activeElement.dataset.c]")
    return int(got[0]), int(got[1])


def test_a_tables_cells_are_edited_in_a_grid_with_the_keyboard(api: Api, pages: Pages) -> None:
    (card,) = _board(api, {"kind": "table", "payload": TABLE})
    page = pages.new()
    _open(page, api, _person(api))
    rev = _rev(api)
    # A double-click opens the grid on the first cell.
    page.mouse.dblclick(*_centre(page, api, card))
    _cell(page, 0, 0).wait_for()
    _wait(lambda: _at(page) == (0, 0))
    assert _cell(page, 0, 0).input_value() == "Docs"
    # Tab and Shift+Tab go along the row, the arrows across rows and columns.
    page.keyboard.press("Tab")
    assert _at(page) == (0, 1)
    page.keyboard.press("ArrowDown")
    assert _at(page) == (1, 1)
    page.keyboard.type("Bo Li")  # the cell's text was selected: typing replaces it
    page.keyboard.press("Tab")
    assert _at(page) == (1, 2)
    page.keyboard.type("8")
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Shift+Tab")
    assert _at(page) == (1, 0)
    page.keyboard.press("ArrowUp")
    page.keyboard.press("ArrowUp")
    assert _at(page) == (-1, 0)  # the headings are the top row
    page.keyboard.type("Part")
    # Nothing is written until Enter.
    assert _card(api, card).version == 1
    page.keyboard.press("Enter")
    _wait(lambda: _card(api, card).version == 2)
    _wait(lambda: page.locator(".grid").count() == 0)
    saved = _payload(api, card)
    assert saved["cols"][0] == {"key": "area", "label": "Part"}
    assert saved["rows"][1] == {"area": "Bench", "who": {"v": "Bo Li", "tone": "good"}, "hours": 8}
    assert saved["rows"][0] == TABLE["rows"][0]
    assert _card(api, card).author == "user:ana"
    assert card in _changes_since(api, rev)

    # Escape cancels: nothing is written.
    page.keyboard.press("Enter")
    _cell(page, 0, 0).wait_for()
    page.keyboard.type("Thrown away")
    page.keyboard.press("Escape")
    _wait(lambda: page.locator(".grid").count() == 0)
    assert _card(api, card).version == 2

    # A row (Shift+Enter adds one below) and a column (the button) are added.
    page.keyboard.press("Enter")
    _cell(page, 0, 0).wait_for()
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Shift+Enter")
    _wait(lambda: _at(page) == (2, 0))
    page.keyboard.type("Ship")
    page.keyboard.press("Tab")
    page.keyboard.type("Cy")
    page.keyboard.press("Tab")
    page.keyboard.type("2.5")
    page.locator(".grid [data-role='add-col']").click()
    _wait(lambda: _at(page) == (-1, 3))
    page.keyboard.type("Due")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowDown")
    assert _at(page) == (2, 3)
    page.keyboard.type("Friday")
    page.keyboard.press("Enter")
    _wait(lambda: _card(api, card).version == 3)
    _wait(lambda: page.locator(".grid").count() == 0)
    saved = _payload(api, card)
    assert [c["key"] for c in saved["cols"]] == ["area", "who", "hours", "col4"]
    assert saved["cols"][3] == {"key": "col4", "label": "Due", "type": "text"}
    assert saved["rows"][2] == {"area": "Ship", "who": "Cy", "hours": 2.5, "col4": "Friday"}

    # Removing a row and a column; the grid keeps at least one column.
    page.keyboard.press("Enter")
    _cell(page, 0, 0).wait_for()
    page.keyboard.press("ArrowDown")
    page.locator(".grid [data-role='remove-row']").click()
    _cell(page, 1, 3).click()
    page.locator(".grid [data-role='remove-col']").click()
    _wait(lambda: page.locator(".grid th").count() == 3)
    page.locator(".grid [data-role='save']").click()
    _wait(lambda: _card(api, card).version == 4)
    _wait(lambda: page.locator(".grid").count() == 0)
    saved = _payload(api, card)
    assert [c["key"] for c in saved["cols"]] == ["area", "who", "hours"]
    assert [r["area"] for r in saved["rows"]] == ["Part" if False else "Docs", "Ship"]
    assert all("col4" not in r for r in saved["rows"])

    # Undo takes each save back as a new version, redo puts it again.
    _wait(lambda: _undo_count(page) == "3,0")
    page.locator("#board").focus()
    _undo(page, 1)
    assert _card(api, card).version == 5
    assert [c["key"] for c in _payload(api, card)["cols"]] == ["area", "who", "hours", "col4"]
    assert len(_payload(api, card)["rows"]) == 3
    _undo(page, 2)
    assert _card(api, card).version == 6
    assert len(_payload(api, card)["rows"]) == 2 and len(_payload(api, card)["cols"]) == 3
    _undo(page, 3, "Control+Shift+Z")
    assert _card(api, card).version == 7
    assert _payload(api, card)["rows"][2]["col4"] == "Friday"


def test_a_table_keeps_a_column_and_a_refused_save_keeps_the_grid(api: Api, pages: Pages) -> None:
    table = {
        "cols": [
            {"key": "a", "label": "Pick", "type": "select", "options": ["x", "y"]},
            {"key": "b", "label": "Done", "type": "check"},
        ],
        "rows": [{"a": "x", "b": False}],
        "views": [{"name": "by done", "sort": [{"col": "b"}]}],
    }
    (card,) = _board(api, {"kind": "table", "payload": table})
    page = pages.new()
    _open(page, api, _person(api))
    page.mouse.dblclick(*_centre(page, api, card))
    _cell(page, 0, 0).wait_for()
    # A select column offers its options, a check column a box (Space ticks it).
    _cell(page, 0, 0).select_option("y")
    page.keyboard.press("Tab")
    assert _at(page) == (0, 1)
    page.keyboard.press("Space")
    page.keyboard.press("Enter")
    _wait(lambda: _payload(api, card)["rows"] == [{"a": "y", "b": True}])
    _wait(lambda: page.locator(".grid").count() == 0)

    # Removing a column a saved view sorts by: the server refuses the write (400, with
    # the field's path), the person is told, and the grid stays open with the draft.
    page.keyboard.press("Enter")
    _cell(page, 0, 1).wait_for()
    _cell(page, -1, 1).focus()
    page.locator(".grid [data-role='remove-col']").click()
    _wait(lambda: page.locator(".grid th").count() == 1)
    # The contract's table keeps one column or more: the last is not offered for removal.
    assert page.locator(".grid [data-role='remove-col']").is_disabled()
    with page.expect_response(lambda r: r.url.endswith("/ops/update_cards")) as answer:
        page.locator(".grid [data-role='save']").click()
    assert answer.value.status == 400
    body = answer.value.json()
    assert body["code"] == "unknown_column" and "views" in body["path"]
    toast = page.locator("#toast.error:not([hidden])")
    toast.wait_for()
    assert "no column has key" in toast.inner_text()
    assert page.locator(".grid th").count() == 1
    record = _card(api, card)
    assert record.version == 2 and len(record.payload["cols"]) == 2
    # Escape drops the draft.
    page.keyboard.press("Escape")
    _wait(lambda: page.locator(".grid").count() == 0)
    assert _card(api, card).version == 2

    # A table whose rows the server keeps apart (past SPILL_THRESHOLD_ROWS) is not
    # opened: the person is told why, and nothing is written.
    rows = [{"a": "x"} for _ in range(SPILL_THRESHOLD_ROWS + 1)]
    (big,) = api.ws.call(
        "compose_board",
        {"board": SLUG, "cards": [{"kind": "table", "payload": {**one_col(table), "rows": rows}}]},
        ANA,
    )["cards"]
    assert "dataRef" in _payload(api, big["id"])
    # Once the page has heard of it, the address takes the view there.
    _wait(lambda: page.evaluate("document.body.dataset.total") == "2")
    page.evaluate(f"location.hash = '#card={big['id']}'")
    _wait(lambda: page.evaluate("document.body.dataset.focus") == str(big["id"]))
    page.locator(f".cardfocus[data-card-id='{big['id']}']").focus()
    _wait(lambda: _selection(page) == [big["id"]])
    page.keyboard.press("Enter")
    page.locator("#toast.error:not([hidden])").get_by_text("kept apart").wait_for()
    assert page.locator(".grid").count() == 0
    assert _card(api, big["id"]).version == 1


def one_col(table: dict[str, Any]) -> dict[str, Any]:
    return {"cols": table["cols"][:1]}


def test_a_stale_table_save_snaps_to_the_servers_card_without_an_error(
    api: Api, pages: Pages
) -> None:
    (card,) = _board(api, {"kind": "table", "payload": TABLE})
    page = pages.new()
    page.route("**/events*", lambda route: route.abort())
    page.route("**/ops/board_changes", lambda route: route.abort())
    _open(page, api, _person(api))
    page.mouse.dblclick(*_centre(page, api, card))
    _cell(page, 0, 0).wait_for()
    api.ws.call(
        "update_cards",
        {"patch": [{"id": card, "payload": {"rows": [{"area": "Theirs"}]}}]},
        ANA,
    )
    page.keyboard.type("Ours")
    page.keyboard.press("Enter")
    _wait(lambda: page.evaluate("document.body.dataset.snapped") == str(card))
    assert _payload(api, card)["rows"] == [{"area": "Theirs"}] and _card(api, card).version == 2
    _wait(lambda: page.locator(".grid").count() == 0)
    assert page.locator("#toast.error:not([hidden])").count() == 0
    assert page.locator("dialog[open]").count() == 0


# --------------------------------------------------------------------------- pages


def test_a_pages_text_is_written_with_its_mirror_so_the_mirror_is_fresh(
    api: Api, pages: Pages
) -> None:
    (card,) = _board(api, {"kind": "page", "payload": {"md": "# Plan\n\nShip on Friday"}})
    page = pages.new()
    _open(page, api, _person(api))
    rev = _rev(api)
    _pick(page, api, card)
    page.keyboard.press("Enter")
    editor = page.locator("textarea.editor")
    editor.wait_for()
    assert editor.input_value() == "# Plan\n\nShip on Friday"
    page.keyboard.press("Control+A")
    page.keyboard.type("# Plan")
    page.keyboard.press("Shift+Enter")
    page.keyboard.press("Shift+Enter")
    page.keyboard.type("Ship on **Monday**")
    page.keyboard.press("Shift+Enter")
    page.keyboard.type("- docs")
    page.keyboard.press("Enter")
    _wait(lambda: _payload(api, card)["md"] == "# Plan\n\nShip on **Monday**\n- docs")
    stored = _payload(api, card)
    # md is the truth; the editor wrote its mirror with it, so the mirror is fresh.
    assert stored["pmStale"] is False
    assert stored["pm"] == {
        "type": "doc",
        "content": [
            {
                "type": "heading",
                "attrs": {"level": 1},
                "content": [{"type": "text", "text": "Plan"}],
            },
            {"type": "paragraph", "content": [{"type": "text", "text": "Ship on **Monday**"}]},
            {
                "type": "bullet_list",
                "content": [
                    {
                        "type": "list_item",
                        "content": [
                            {"type": "paragraph", "content": [{"type": "text", "text": "docs"}]}
                        ],
                    }
                ],
            },
        ],
    }
    assert (_card(api, card).version, _card(api, card).author) == (2, "user:ana")
    assert card in _changes_since(api, rev)

    # md written elsewhere without the mirror (the person's script, say): the server marks
    # the mirror stale; the next edit here makes it fresh again.
    api.ws.call("update_cards", {"patch": [{"id": card, "payload": {"md": "# Plan v3"}}]}, ANA)
    assert _payload(api, card)["pmStale"] is True
    _wait(lambda: page.evaluate("document.body.dataset.editing || ''") == "")
    page.locator("#inspector [data-role='edit']").click()
    editor.wait_for()
    assert editor.input_value() == "# Plan v3"
    page.keyboard.type("!")
    page.keyboard.press("Enter")
    _wait(lambda: _payload(api, card)["md"] == "# Plan v3!")
    assert _payload(api, card)["pmStale"] is False
    assert _payload(api, card)["pm"]["content"][0]["content"][0]["text"] == "Plan v3!"

    # Undo writes the text before, with its own mirror: still fresh. Redo the same.
    _wait(lambda: _undo_count(page) == "2,0")
    page.locator("#board").focus()
    _undo(page, 1)
    assert _payload(api, card)["md"] == "# Plan v3"
    assert _payload(api, card)["pmStale"] is False
    assert _payload(api, card)["pm"]["content"][0]["content"][0]["text"] == "Plan v3"
    _undo(page, 2, "Control+Shift+Z")
    assert _payload(api, card)["md"] == "# Plan v3!" and _payload(api, card)["pmStale"] is False


# --------------------------------------------------------------------------- share links

_WRITE = """(id) => fetch('/api/v1/ops/update_cards', {method: 'POST', credentials: 'same-origin',
  headers: {'content-type': 'application/json'},
  body: JSON.stringify({board: 'hands', patch: [{id, payload: {items: [{text: 'forged'}]}}]})})
  .then((r) => r.status)"""


@pytest.mark.parametrize("mode", ["view", "annotate"])
def test_a_share_link_edits_nothing_in_place_and_only_annotate_ticks(
    api: Api, pages: Pages, mode: str
) -> None:
    checklist, table, doc = _board(
        api,
        {"kind": "checklist", "payload": LIST},
        {"kind": "table", "payload": TABLE},
        {"kind": "page", "payload": {"md": "# Plan"}},
    )
    url = api.op("share_board", {"board": SLUG, "mode": mode}).json()["url"]
    page = pages.new()
    page.goto(f"{api.url}{url}")
    page.wait_for_selector("body[data-ready='1']", timeout=20_000)
    before = {c: (_card(api, c).version, _payload(api, c)) for c in (checklist, table, doc)}
    for card in (checklist, table, doc):
        _pick(page, api, card)
        assert page.locator("#inspector [data-role='edit']").count() == 0
        page.keyboard.press("Enter")
        page.mouse.dblclick(
            *_centre(page, api, card) if card != checklist else _corner(page, api, card)
        )
        assert page.locator(".grid, .live.editing, textarea.editor").count() == 0
        page.keyboard.press("Control+z")
    # The server refuses the write too, whatever the page offers.
    assert page.evaluate(_WRITE, checklist) == 403
    assert {c: (_card(api, c).version, _payload(api, c)) for c in before} == before
    assert _wrote(page) == 0
    boxes = page.locator(f".live[data-card-id='{checklist}'] input[type=checkbox]")
    if mode == "view":
        assert all(boxes.nth(i).is_disabled() for i in range(boxes.count()))
    else:
        # An annotate link ticks, and nothing else.
        with page.expect_response(lambda r: r.url.endswith("/ops/tick_checklist")) as answer:
            boxes.nth(0).click()
        assert answer.value.status == 200
        assert [i["done"] for i in _payload(api, checklist)["items"]] == [True, True]
        assert [i["text"] for i in _payload(api, checklist)["items"]] == ["Docs", "Bench"]
    # After those round trips, still no editor opened late.
    assert page.locator(".grid, .live.editing, textarea.editor").count() == 0


# --------------------------------------------------------------------------- how it looks


@pytest.mark.parametrize(
    ("name", "viewport"),
    [("wide", {"width": 1440, "height": 900}), ("phone", {"width": 390, "height": 844})],
)
def test_checklist_and_table_editors_look(
    api: Api, pages: Pages, name: str, viewport: dict[str, int]
) -> None:
    from tests.render.test_browser import compare

    checklist, table = _board(
        api,
        {"kind": "checklist", "payload": {**LIST, "items": [*LIST["items"], {"text": "Ship"}]}},
        {"kind": "table", "payload": TABLE},
    )
    page = pages.new(viewport)
    _open(page, api, _person(api))
    (ARTIFACTS / "render").mkdir(parents=True, exist_ok=True)
    # The checklist's items open, a new one being typed under the second.
    _pick(page, api, checklist)
    page.keyboard.press("Enter")
    _item(page, checklist, 0).wait_for()
    page.keyboard.press("ArrowDown")
    page.keyboard.press("End")
    page.keyboard.press("Enter")
    _wait(lambda: _focused_item(page) == "new")
    page.keyboard.type("Release notes")
    shots = {"list": ARTIFACTS / f"viewer-inplace-{name}-list.png"}
    page.screenshot(path=str(shots["list"]), mask=[page.locator("#status")])
    page.keyboard.press("Escape")
    _wait(lambda: page.locator(".live.editing").count() == 0)
    assert _texts(api, checklist) == ["Docs", "Bench", "Ship"]
    # The table's grid, a cell being changed.
    page.keyboard.press("Escape")
    _pick(page, api, table)
    page.keyboard.press("Enter")
    _cell(page, 0, 0).wait_for()
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Tab")
    page.keyboard.type("Bo Li")
    shots["grid"] = ARTIFACTS / f"viewer-inplace-{name}-grid.png"
    page.screenshot(path=str(shots["grid"]), mask=[page.locator("#status")])
    page.keyboard.press("Escape")
    assert _card(api, table).version == 1
    for what, path in shots.items():
        compare(Image.open(path).convert("RGB"), f"viewer-inplace-{name}-{what}")
