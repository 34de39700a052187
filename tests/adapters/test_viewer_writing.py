"""Writing on a board by hand in the viewer: new notes, editing in place, pasted
text, wires, and undo/redo across a reload.

Playwright drives Debian's Chromium with a real pointer and keyboard against a
real server on 127.0.0.1; each action is then checked in the workspace's
database (the card's text, place, version, author, the wires, the trash).
"""

from __future__ import annotations

import base64
import io
import re
import time
from typing import Any

import httpx
import pytest
from PIL import Image

from layoutkit.principal import Principal
from tests.adapters.conftest import Api
from tests.adapters.test_viewer_hands import (
    SLUG,
    Pages,
    _board,
    _card,
    _centre,
    _drag,
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


def _edit(page: Any, api: Api, card_id: int) -> None:
    """Open the card's editor: a click picks it (the inspector docks and the view may
    shift to keep it in sight), a double-click where it is now opens the text."""
    page.mouse.click(*_centre(page, api, card_id))
    _wait(lambda: _selection(page) == [card_id])
    page.mouse.dblclick(*_centre(page, api, card_id))
    page.locator("textarea.editor").wait_for()


def _cards(api: Api) -> list[Any]:
    with api.ws.store.read() as tx:
        board = tx.board_by_slug(api.ws.workspace_id, SLUG)
        assert board is not None
        return tx.cards_by_id([c.id for c in tx.card_boxes(board.id)])


def _edges(api: Api) -> list[Any]:
    with api.ws.store.read() as tx:
        board = tx.board_by_slug(api.ws.workspace_id, SLUG)
        assert board is not None
        return tx.edges(board.id)


def _mine(api: Api, md: str) -> int:
    (card,) = api.ws.call(
        "compose_board", {"board": SLUG, "cards": [{"kind": "text", "payload": {"md": md}}]}, ANA
    )["cards"]
    return card["id"]


def _empty_spot(page: Any, api: Api) -> tuple[float, float, float, float]:
    """A board point in view with no card near it, and its page pixels."""
    box = page.locator("#board").bounding_box()
    vx, vy, s = (float(v) for v in page.evaluate("document.body.dataset.view").split(","))
    cards = _cards(api)
    for fy in (0.75, 0.65, 0.85, 0.25, 0.15):
        for fx in (0.3, 0.5, 0.15, 0.7):
            px, py = box["x"] + box["width"] * fx, box["y"] + box["height"] * fy
            bx, by = vx + (px - box["x"]) / s, vy + (py - box["y"]) / s
            clear = all(
                not (c.x - 30 <= bx <= c.x + c.w + 30 and c.y - 30 <= by <= c.y + c.h + 30)
                for c in cards
            )
            # Room for the new note's editor below and right of the spot, in view.
            if clear and fx < 0.75 and fy < 0.9:
                return bx, by, px, py
    raise AssertionError("no empty spot in view")


# --------------------------------------------------------------------------- creating


def test_a_double_click_starts_a_note_there_and_typing_goes_into_it(api: Api, pages: Pages) -> None:
    _board(api.ws)
    page, other = pages.new(), pages.new()
    _open(page, api, _person(api))
    _open(other, api, api.token)
    before = {c.id for c in _cards(api)}
    bx, by, px, py = _empty_spot(page, api)
    page.mouse.dblclick(px, py)
    page.wait_for_selector("textarea.editor")
    page.keyboard.type("Call the printer about the proofs")
    page.keyboard.press("Enter")
    _wait(lambda: len(_cards(api)) == len(before) + 1)
    (new,) = [c for c in _cards(api) if c.id not in before]
    assert new.kind == "note" and new.payload["md"] == "Call the printer about the proofs"
    assert (new.author, new.layer) == ("user:ana", "human")
    assert abs(new.x - bx) <= 1 and abs(new.y - by) <= 1
    _wait(lambda: _selection(page) == [new.id])
    assert page.locator("textarea.editor").count() == 0
    # Another browser on the board hears of it on its event stream.
    other.locator(f".cardfocus[data-card-id='{new.id}']").wait_for(state="attached")

    # N starts one where the pointer rests; Escape leaves nothing behind.
    page.mouse.move(px + 300, py)
    page.keyboard.press("n")
    page.wait_for_selector("textarea.editor")
    page.keyboard.type("never mind")
    page.keyboard.press("Escape")
    assert page.locator("textarea.editor").count() == 0
    page.keyboard.press("n")
    page.keyboard.type("Second thought")
    page.keyboard.press("Enter")
    _wait(lambda: len(_cards(api)) == len(before) + 2)
    texts = sorted(c.payload["md"] for c in _cards(api) if c.id not in before)
    assert texts == ["Call the printer about the proofs", "Second thought"]


def test_s_starts_a_shape_whose_figure_and_label_are_changed_by_hand(
    api: Api, pages: Pages
) -> None:
    _board(api.ws)
    page = pages.new()
    _open(page, api, _person(api))
    before = {c.id for c in _cards(api)}
    bx, by, px, py = _empty_spot(page, api)
    page.mouse.move(px, py)
    page.keyboard.press("s")
    page.wait_for_selector("textarea.editor")
    page.keyboard.type("Start")
    page.keyboard.press("Enter")
    _wait(lambda: len(_cards(api)) == len(before) + 1)
    (shape,) = [c for c in _cards(api) if c.id not in before]
    assert (shape.kind, shape.payload["shape"], shape.payload["label"]) == (
        "shape",
        "rect",
        "Start",
    )
    assert (shape.author, shape.layer) == ("user:ana", "human")
    assert abs(shape.x - bx) <= 1 and abs(shape.y - by) <= 1
    _wait(lambda: _selection(page) == [shape.id])
    # The inspector changes its figure; undo puts the old one back.
    page.locator("#inspector select[data-role='shape']").select_option("diamond")
    _wait(lambda: _card(api, shape.id).payload["shape"] == "diamond")
    # Drawn again as a diamond: a second piece of the drawing over the card.
    patch = f"#faces svg.patch rect[data-card-id='{shape.id}']"
    _wait(lambda: page.locator(patch).count() >= 2)
    page.screenshot(path=str(ARTIFACTS / "viewer-new-shape.png"))
    page.locator("#board").focus()
    page.keyboard.press("Control+z")
    _wait(lambda: _card(api, shape.id).payload["shape"] == "rect")
    # Its label is edited in place, as a note's text is.
    _edit(page, api, shape.id)
    page.keyboard.press("Control+A")
    page.keyboard.type("Begin")
    page.keyboard.press("Enter")
    _wait(lambda: _card(api, shape.id).payload["label"] == "Begin")


def test_the_viewers_shapes_are_the_contracts() -> None:
    from pathlib import Path

    from layoutkit.elements.vocab import CARD_SHAPES

    script = (
        Path(__file__).resolve().parents[2] / "layoutkit/adapters/static/viewer.js"
    ).read_text()
    line = next(x for x in script.splitlines() if "const CARD_SHAPES = [" in x)
    assert tuple(re.findall(r'"([a-z]+)"', line)) == CARD_SHAPES


def test_pasted_text_becomes_a_text_card_where_the_pointer_is(api: Api, pages: Pages) -> None:
    _board(api.ws)
    page = pages.new()
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    _open(page, api, _person(api))
    before = {c.id for c in _cards(api)}
    bx, by, px, py = _empty_spot(page, api)
    page.mouse.move(px, py)
    page.evaluate("navigator.clipboard.writeText('Pasted from a mail:\\nship on Friday')")
    page.keyboard.press("Control+V")
    _wait(lambda: len(_cards(api)) == len(before) + 1)
    (new,) = [c for c in _cards(api) if c.id not in before]
    assert new.kind == "text" and new.payload["md"] == "Pasted from a mail:\nship on Friday"
    assert abs(new.x - bx) <= 1 and abs(new.y - by) <= 1


_DROP = """([x, y, b64, how]) => {
  const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
  const dt = new DataTransfer();
  dt.items.add(new File([bytes], "shot.png", {type: "image/png"}));
  if (how === "drop") dt.items.add(new File(["ship on Friday"], "notes.txt", {type: "text/plain"}));
  const target = document.elementFromPoint(x, y);
  if (how === "paste") {
    target.dispatchEvent(new ClipboardEvent("paste", {clipboardData: dt, bubbles: true, cancelable: true}));
    return;
  }
  for (const type of ["dragenter", "dragover", "drop"]) {
    target.dispatchEvent(new DragEvent(type, {bubbles: true, cancelable: true, clientX: x, clientY: y, dataTransfer: dt}));
  }
}"""


def _png_b64(w: int, h: int) -> str:
    buf = io.BytesIO()
    Image.new("RGB", (w, h), (40, 120, 200)).save(buf, "PNG")
    return base64.b64encode(buf.getvalue()).decode()


def test_dropped_files_and_a_pasted_picture_land_where_they_were_put(
    api: Api, pages: Pages
) -> None:
    _board(api.ws)
    page = pages.new()
    _open(page, api, _person(api))
    before = {c.id for c in _cards(api)}
    bx, by, px, py = _empty_spot(page, api)
    page.evaluate(_DROP, [px, py, _png_b64(120, 80), "drop"])
    _wait(lambda: len(_cards(api)) == len(before) + 2)
    new = sorted((c for c in _cards(api) if c.id not in before), key=lambda c: c.id)
    shot, notes = new
    assert (shot.kind, notes.kind) == ("media", "file")
    assert (shot.payload["natW"], shot.payload["natH"]) == (120, 80)
    assert notes.payload["name"] == "notes.txt"
    assert all((c.author, c.layer) == ("user:ana", "human") for c in new)
    assert abs(shot.x - bx) <= 1 and abs(shot.y - by) <= 1
    _wait(lambda: sorted(_selection(page)) == [shot.id, notes.id])
    # Both faces drawn where they landed: a piece of the drawing laid over the board.
    for card in new:
        page.locator(f"#faces svg.patch rect[data-card-id='{card.id}']").first.wait_for(
            state="attached"
        )
    page.screenshot(path=str(ARTIFACTS / "viewer-dropped-files.png"))
    # Undo takes the drop back into the trash, as it does a new note.
    page.locator("#board").focus()
    page.keyboard.press("Control+z")
    _wait(lambda: all(_card(api, c.id).deleted for c in new))

    # A picture pasted from the clipboard lands where the pointer rests.
    page.mouse.move(px, py)
    page.evaluate(_DROP, [px, py, _png_b64(40, 30), "paste"])
    _wait(
        lambda: any(
            c.kind == "media"
            and not c.deleted
            and c.id not in before
            and c.id not in {shot.id, notes.id}
            for c in _cards(api)
        )
    )
    (pasted,) = [c for c in _cards(api) if c.id not in before and c.id not in {shot.id, notes.id}]
    assert (pasted.payload["natW"], pasted.payload["natH"]) == (40, 30)
    assert abs(pasted.x - bx) <= 1 and abs(pasted.y - by) <= 1


# --------------------------------------------------------------------------- editing


def test_editing_in_place_saves_on_enter_with_the_version_and_escape_cancels(
    api: Api, pages: Pages
) -> None:
    _board(api.ws)
    mine = _mine(api, "First draft")
    page = pages.new()
    _open(page, api, _person(api))
    # One double-click on a card not yet picked: the first press picks it (and the
    # dock opening may move the view), the editor opens on that card all the same.
    page.mouse.dblclick(*_centre(page, api, mine))
    editor = page.locator("textarea.editor")
    editor.wait_for()
    assert editor.input_value() == "First draft"
    page.keyboard.press("Control+A")
    page.keyboard.type("Second draft")
    page.keyboard.press("Escape")
    assert _card(api, mine).payload["md"] == "First draft"
    # The keyboard way in: Enter on the selected card.
    page.mouse.click(*_centre(page, api, mine))
    page.keyboard.press("Enter")
    editor.wait_for()
    page.keyboard.press("Control+A")
    page.keyboard.type("Second draft")
    page.keyboard.press("Enter")
    _wait(lambda: _card(api, mine).payload["md"] == "Second draft")
    assert _card(api, mine).version == 2
    # And the inspector's button.
    page.locator("#inspector [data-role='edit']").click()
    editor.wait_for()
    assert editor.input_value() == "Second draft"
    page.keyboard.press("Escape")
    assert _card(api, mine).version == 2


def test_a_stale_edit_snaps_to_the_servers_text_without_an_error(api: Api, pages: Pages) -> None:
    _board(api.ws)
    mine = _mine(api, "Ours")
    page = pages.new()
    page.route("**/events*", lambda route: route.abort())
    page.route("**/ops/board_changes", lambda route: route.abort())
    _open(page, api, _person(api))
    _edit(page, api, mine)
    # Someone else (another tab of the same person, say) writes first.
    api.ws.call("update_cards", {"patch": [{"id": mine, "payload": {"md": "Theirs"}}]}, ANA)
    page.keyboard.type(" and more")
    page.keyboard.press("Enter")
    _wait(lambda: page.evaluate("document.body.dataset.snapped") == str(mine))
    record = _card(api, mine)
    assert (record.payload["md"], record.version) == ("Theirs", 2)
    assert page.locator("#toast.error:not([hidden])").count() == 0
    assert page.locator("dialog[open]").count() == 0


def test_two_browsers_edit_one_card_the_later_write_snaps_quietly(api: Api, pages: Pages) -> None:
    _board(api.ws)
    token = _person(api)
    mine = _mine(api, "Agenda")
    first, second = pages.new(), pages.new()
    _open(first, api, token)
    _open(second, api, token)
    for page in (first, second):
        _edit(page, api, mine)
    first.keyboard.press("Control+A")
    first.keyboard.type("Agenda: budget")
    first.keyboard.press("Enter")
    _wait(lambda: _card(api, mine).version == 2)
    # The second editor opened on version 1: its save changes nothing and its
    # view takes the first one's text, with no error shown.
    second.keyboard.press("Control+A")
    second.keyboard.type("Agenda: hiring")
    second.keyboard.press("Enter")
    _wait(lambda: second.evaluate("document.body.dataset.snapped") == str(mine))
    record = _card(api, mine)
    assert (record.payload["md"], record.version) == ("Agenda: budget", 2)
    assert second.locator("#toast.error:not([hidden])").count() == 0
    assert second.locator("dialog[open]").count() == 0
    second.locator("#inspector").get_by_text("v2").wait_for()


def test_only_the_author_edits_a_cards_text(api: Api, pages: Pages) -> None:
    ids = _board(api.ws)
    page = pages.new()
    _open(page, api, _person(api))
    page.mouse.click(*_centre(page, api, ids["a"]))
    page.mouse.dblclick(*_centre(page, api, ids["a"]))
    page.locator("#toast.error:not([hidden])").wait_for()
    assert page.locator("textarea.editor").count() == 0
    got = api.op("get", {"kind": "cards", "board": SLUG, "ids": [ids["a"]]}).json()
    assert got["cards"][0]["mayEdit"] is True  # the owner's token may
    token = _person(api)
    with httpx.Client(base_url=api.url, headers={"authorization": f"Bearer {token}"}) as c:
        got = c.post("/api/v1/ops/get", json={"kind": "cards", "board": SLUG, "ids": [ids["a"]]})
    assert got.json()["cards"][0]["mayEdit"] is False


# --------------------------------------------------------------------------- wires


def test_dragging_the_dot_or_pressing_w_draws_a_wire(api: Api, pages: Pages) -> None:
    ids = _board(api.ws)
    page = pages.new()
    _open(page, api, _person(api))
    a, b, c = ids["a"], ids["b"], ids["c"]
    page.mouse.click(*_centre(page, api, a))
    dot = page.locator(".wiredot").bounding_box()
    start = (dot["x"] + dot["width"] / 2, dot["y"] + dot["height"] / 2)
    _drag(page, start, _centre(page, api, c), hold=True)
    assert page.locator(".wireline").count() == 1
    assert page.locator(".wiretarget").count() == 1
    page.mouse.up()
    _wait(lambda: len(_edges(api)) == 1)
    (edge,) = _edges(api)
    assert (edge.from_card, edge.to_card, edge.author) == (a, c, "user:ana")
    # W wires the two selected cards, the first picked to the second.
    page.mouse.click(*_centre(page, api, b))
    page.keyboard.down("Shift")
    page.mouse.click(*_centre(page, api, a))
    page.keyboard.up("Shift")
    page.keyboard.press("w")
    _wait(lambda: len(_edges(api)) == 2)
    assert (_edges(api)[1].from_card, _edges(api)[1].to_card) == (b, a)
    # A card moved: the piece drawn again reaches the far end of its wire. (On a page
    # opened afresh, so no redraw the new wires pushed can land over the pieces.)
    page.reload()
    page.wait_for_selector("body[data-ready='1']", timeout=20_000)
    drawn = int(page.evaluate("document.body.dataset.patches || '0'"))
    page.mouse.click(*_centre(page, api, a))
    page.keyboard.press("Shift+ArrowDown")
    _wait(lambda: _card(api, a).version == 2)
    _wait(lambda: int(page.evaluate("document.body.dataset.patches || '0'")) > drawn)
    ca, cc = _card(api, a), _card(api, c)
    pieces = page.evaluate(
        "[...document.querySelectorAll('#faces svg.patch')].map(e => [parseFloat(e.style.left),"
        " parseFloat(e.style.top), parseFloat(e.style.width), parseFloat(e.style.height)])"
    )
    assert any(
        x <= ca.x and x + w >= cc.x + cc.w and y <= min(ca.y, cc.y) for x, y, w, h in pieces
    ), pieces


# --------------------------------------------------------------------------- undo and redo


def test_undo_and_redo_walk_back_through_my_own_writes_across_a_reload(
    api: Api, pages: Pages
) -> None:
    ids = _board(api.ws)
    token = _person(api)
    mine = _mine(api, "Version one")
    page = pages.new()
    _open(page, api, token)
    b = ids["b"]
    start = _card(api, b)
    # A move, an edit, a new note and a delete.
    page.mouse.click(*_centre(page, api, b))
    page.keyboard.press("Shift+ArrowUp")
    _wait(lambda: _card(api, b).version == 2)
    # Nothing picked, the inspector's dock gives the board its room back.
    page.keyboard.press("Escape")
    _edit(page, api, mine)
    page.keyboard.press("Control+A")
    page.keyboard.type("Version two")
    page.keyboard.press("Enter")
    _wait(lambda: _card(api, mine).payload["md"] == "Version two")
    page.keyboard.press("Escape")
    page.mouse.move(*_screen(page, start.x, start.y - 300))
    page.keyboard.press("n")
    page.keyboard.type("Scratch")
    page.keyboard.press("Enter")
    _wait(lambda: any(c.payload.get("md") == "Scratch" for c in _cards(api)))
    (scratch,) = [c.id for c in _cards(api) if c.payload.get("md") == "Scratch"]
    _wait(lambda: _selection(page) == [scratch])
    page.keyboard.press("Delete")
    _wait(lambda: _card(api, scratch).deleted)
    _wait(lambda: page.evaluate("document.body.dataset.undo") == "4,0")

    # Across a reload the history is still there.
    page.reload()
    page.wait_for_selector("body[data-ready='1']", timeout=20_000)
    assert page.evaluate("document.body.dataset.undo") == "4,0"
    page.locator("#board").focus()

    def undo(n: int) -> None:
        page.keyboard.press("Control+z")
        _wait(lambda: page.evaluate("document.body.dataset.undone") == str(n))

    undo(1)  # the delete: restored
    assert not _card(api, scratch).deleted
    undo(2)  # the new note: in the trash
    assert _card(api, scratch).deleted
    undo(3)  # the edit: the text before it, as a new version
    assert _card(api, mine).payload["md"] == "Version one"
    assert _card(api, mine).version == 3
    undo(4)  # the move: the box before it, the size untouched
    back = _card(api, b)
    assert (back.x, back.y, back.w, back.h) == (start.x, start.y, start.w, start.h)
    assert back.sized_by == start.sized_by
    page.keyboard.press("Control+Shift+Z")
    _wait(lambda: page.evaluate("document.body.dataset.undone") == "5")
    assert _card(api, b).y == start.y - 50
    page.keyboard.press("Control+Shift+Z")
    _wait(lambda: page.evaluate("document.body.dataset.undone") == "6")
    assert _card(api, mine).payload["md"] == "Version two"
    assert page.evaluate("document.body.dataset.undo") == "2,2"


def test_the_inspector_lists_a_cards_history_and_restores_a_version(api: Api, pages: Pages) -> None:
    _board(api.ws)
    mine = _mine(api, "The first draft")
    api.ws.call(
        "update_cards",
        {"board": SLUG, "patch": [{"id": mine, "payload": {"md": "A rewrite"}}]},
        ANA,
    )
    page = pages.new()
    _open(page, api, _person(api))
    page.mouse.click(*_centre(page, api, mine))
    _wait(lambda: _selection(page) == [mine])
    page.locator("#inspector [data-role='history']").click()
    page.wait_for_selector("#inspector ul.history li[data-version='1']")
    items = page.locator("#inspector ul.history li").all_inner_texts()
    assert items[0].startswith("v2 (now)") and "A rewrite" in items[0]
    assert items[1].startswith("v1") and "The first draft" in items[1]
    page.screenshot(path=str(ARTIFACTS / "viewer-card-history.png"))
    page.locator("#inspector [data-role='restore-version']").click()
    _wait(lambda: _card(api, mine).payload["md"] == "The first draft")
    assert _card(api, mine).version == 3
    # Undo takes the restore back: the rewrite, as a new version. (The page records the
    # step once the answer is in, a moment after the database has the write.)
    _wait(lambda: page.evaluate("document.body.dataset.undo") == "1,0")
    page.locator("#board").focus()
    page.keyboard.press("Control+z")
    _wait(lambda: _card(api, mine).payload["md"] == "A rewrite")
    assert _card(api, mine).version == 4


# --------------------------------------------------------------------------- share links


def test_a_view_link_creates_edits_wires_and_undoes_nothing(api: Api, pages: Pages) -> None:
    ids = _board(api.ws)
    mine = _mine(api, "Mine")
    url = api.op("share_board", {"board": SLUG}).json()["url"]
    page = pages.new()
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    page.goto(f"{api.url}{url}")
    page.wait_for_selector("body[data-ready='1']", timeout=20_000)
    before = [(c.id, c.version, c.payload) for c in _cards(api)]
    _, _, px, py = _empty_spot(page, api)
    page.mouse.dblclick(px, py)
    page.keyboard.press("n")
    assert page.locator("textarea.editor").count() == 0
    page.mouse.dblclick(*_centre(page, api, mine))
    assert page.locator("textarea.editor").count() == 0
    page.mouse.move(px, py)
    page.evaluate("navigator.clipboard.writeText('not from a viewer')")
    page.keyboard.press("Control+V")
    page.evaluate(_DROP, [px, py, _png_b64(8, 8), "drop"])
    page.evaluate(_DROP, [px, py, _png_b64(8, 8), "paste"])
    page.mouse.click(*_centre(page, api, ids["a"]))
    assert page.locator(".wiredot").count() == 0
    page.keyboard.down("Shift")
    page.mouse.click(*_centre(page, api, ids["b"]))
    page.keyboard.up("Shift")
    assert page.locator("#inspector [data-role='connect']").count() == 0
    page.keyboard.press("w")
    page.keyboard.press("Control+z")
    time.sleep(0.6)
    assert [(c.id, c.version, c.payload) for c in _cards(api)] == before
    assert _edges(api) == [] and _wrote(page) == 0


def test_an_agents_token_may_not_put_cards_by_hand_over_http(api: Api) -> None:
    _board(api.ws)
    token = api.ws.create_token("agent", "claude")
    body = {
        "board": SLUG,
        "cards": [{"kind": "note", "payload": {"md": "x"}}],
        "at": {"x": 0, "y": 0},
    }
    with httpx.Client(base_url=api.url, headers={"authorization": f"Bearer {token}"}) as c:
        got = c.post("/api/v1/ops/compose_board", json=body)
    assert got.status_code == 403
    assert (got.json()["code"], got.json()["field"]) == ("people_only", "at")
    got = api.op("compose_board", {**body, "section": "Later"})
    assert got.status_code == 400
    assert (got.json()["code"], got.json()["field"]) == ("exclusive_params", "section")


# --------------------------------------------------------------------------- how it looks


@pytest.mark.parametrize(
    ("name", "viewport"),
    [("wide", {"width": 1440, "height": 900}), ("phone", {"width": 390, "height": 844})],
)
def test_editor_new_note_and_wire_look(
    api: Api, pages: Pages, name: str, viewport: dict[str, int]
) -> None:
    from tests.render.test_browser import compare

    ids = _board(api.ws)
    mine = _mine(api, "Launch **checklist** for Friday")
    page = pages.new(viewport)
    _open(page, api, _person(api))
    page.wait_for_timeout(300)
    (ARTIFACTS / "render").mkdir(parents=True, exist_ok=True)
    # The editor open on a card (the keyboard way: on a phone the dock under the
    # board moves the view when the card is picked).
    page.mouse.click(*_centre(page, api, mine))
    _wait(lambda: _selection(page) == [mine])
    page.keyboard.press("Enter")
    page.locator("textarea.editor").wait_for()
    page.keyboard.type(" and Monday")
    edit = ARTIFACTS / f"viewer-write-{name}-edit.png"
    page.screenshot(path=str(edit), mask=[page.locator("#status")])
    page.keyboard.press("Escape")
    page.keyboard.press("Escape")  # and nothing picked: the dock closes
    # A new note being typed.
    _, _, px, py = _empty_spot(page, api)
    page.mouse.dblclick(px, py)
    page.locator("textarea.editor").wait_for()
    page.keyboard.type("A new idea")
    note = ARTIFACTS / f"viewer-write-{name}-note.png"
    page.screenshot(path=str(note), mask=[page.locator("#status")])
    page.keyboard.press("Escape")
    # A wire being drawn, on the whole board in view.
    page.keyboard.press("Escape")
    page.locator("#board").focus()
    page.keyboard.press("0")
    page.mouse.click(*_centre(page, api, ids["a"]))
    dot = page.locator(".wiredot").bounding_box()
    start = (dot["x"] + dot["width"] / 2, dot["y"] + dot["height"] / 2)
    _drag(page, start, _centre(page, api, ids["b"]), hold=True)
    path = ARTIFACTS / f"viewer-write-{name}-wire.png"
    page.screenshot(path=str(path), mask=[page.locator("#status")])
    page.mouse.up()
    if page.locator("#minimap").is_visible():
        board, mini = page.locator("#board").bounding_box(), page.locator("#minimap").bounding_box()
        assert mini["x"] + mini["width"] <= board["x"] + board["width"]
        assert mini["y"] + mini["height"] <= board["y"] + board["height"]
    compare(Image.open(path).convert("RGB"), f"viewer-write-{name}")
    compare(Image.open(edit).convert("RGB"), f"viewer-write-{name}-edit")
    compare(Image.open(note).convert("RGB"), f"viewer-write-{name}-note")
