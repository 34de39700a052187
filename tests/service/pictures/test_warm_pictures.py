"""Warm glance reads: a PNG of a whole large board reads only the rows changed since
the last picture this process drew, whichever process changed them, and draws what
a fresh read draws."""

from __future__ import annotations

import base64
from collections.abc import Callable

import pytest

from layoutkit import Workspace
from layoutkit.render._glance import GLANCES
from layoutkit.service.pictures.warm_pictures import WarmPictures
from layoutkit.storage import NewCard, Tx


def _wide_board(ws: Workspace, slug: str = "wide") -> dict[str, int]:
    """A board 24,000 px wide: a 1,600 px PNG of it draws glances."""
    ws.call("create", {"kind": "board", "slug": slug})
    with ws.store.transaction() as tx:
        board = tx.board_by_slug(ws.workspace_id, slug)
        assert board is not None
        note = {"color": "blue"}
        cards = [
            NewCard("note", {**note, "md": f"Note {i}"}, i * 2000.0, 0, 300, 160, "ai", "t")
            for i in range(12)
        ]
        cards.append(NewCard("section", {"title": "Left"}, -40, -80, 2500, 400, "ai", "t"))
        made = tx.insert_cards(board.id, cards)
    ids = {f"n{i}": c.id for i, c in enumerate(made[:12])}
    ids["section"] = made[12].id
    return ids


def _png(ws: Workspace, slug: str = "wide") -> bytes:
    return base64.b64decode(
        ws.call("render_board", {"board": slug, "format": "png"})["image"]["data"]
    )


def _fresh_png(store_url: str, name: str) -> bytes:
    """The picture as a process that never drew the board draws it."""
    GLANCES.clear()
    with Workspace.open(store_url, name=name) as ws:
        png = _png(ws)
        assert ws.extension(WarmPictures).last == "fresh"
        return png


def _workspace_name(ws: Workspace) -> str:
    with ws.store.read() as tx:
        return next(w.name for w in tx.workspaces() if w.id == ws.workspace_id)


def test_a_picture_drawn_again_reads_nothing_new(pair: tuple[Workspace, Workspace]) -> None:
    one, _ = pair
    _wide_board(one)
    first = _png(one)
    assert one.extension(WarmPictures).last == "fresh"
    assert _png(one) == first
    assert one.extension(WarmPictures).last == "warm"


def test_another_process_edit_is_read_as_a_delta(
    pair: tuple[Workspace, Workspace], store_url: str
) -> None:
    one, two = pair
    ids = _wide_board(one)
    before = _png(one)
    with two.store.transaction() as tx:
        tx.update_cards([{"id": ids["n3"], "payload": {"md": "Changed", "color": "red"}}])
    after = _png(one)
    assert one.extension(WarmPictures).last == "delta:1"
    assert after != before  # the note turned red
    assert after == _fresh_png(store_url, _workspace_name(one))


def test_deleted_and_restored_cards_leave_and_come_back(
    pair: tuple[Workspace, Workspace], store_url: str
) -> None:
    one, two = pair
    ids = _wide_board(one)
    whole = _png(one)
    with two.store.transaction() as tx:
        tx.remove_cards([ids["n5"]], by="agent:test")
    without = _png(one)
    assert one.extension(WarmPictures).last == "delta:1"
    assert without != whole
    assert without == _fresh_png(store_url, _workspace_name(one))
    with two.store.transaction() as tx:
        tx.restore_cards([ids["n5"]])
    assert _png(one) == whole
    assert one.extension(WarmPictures).last == "delta:1"


def _delete_the_frame(tx: Tx, ids: dict[str, int]) -> None:
    tx.remove_cards([ids["section"]], by="agent:test")


def _move_most_cards(tx: Tx, ids: dict[str, int]) -> None:
    tx.update_cards([{"id": ids[f"n{i}"], "x": i * 2100.0} for i in range(8)])


@pytest.mark.parametrize("write", [_delete_the_frame, _move_most_cards])
def test_a_deleted_frame_or_a_change_to_most_of_the_board_makes_a_fresh_read(
    pair: tuple[Workspace, Workspace], write: Callable[[Tx, dict[str, int]], None]
) -> None:
    one, two = pair
    ids = _wide_board(one)
    _png(one)
    with two.store.transaction() as tx:
        write(tx, ids)
    _png(one)
    assert one.extension(WarmPictures).last == "fresh"


def test_reads_are_verified_against_a_fresh_read_in_the_suite(
    pair: tuple[Workspace, Workspace],
) -> None:
    one, _ = pair
    assert one.extension(WarmPictures).verify  # tests/conftest.py sets LAYOUTKIT_VERIFY_MODELS=1
    _wide_board(one)
    _png(one)
    # A kept read that went wrong (here: a card dropped) is caught, not drawn.
    (kept,) = one.extension(WarmPictures)._reads.values()
    kept.cards.pop(next(iter(kept.cards)))
    with pytest.raises(AssertionError, match="differs"):
        _png(one)


def test_the_least_recently_drawn_boards_leave_first(pair: tuple[Workspace, Workspace]) -> None:
    one, _ = pair
    one.extension(WarmPictures).max_cards = 20
    _wide_board(one, "wide")
    _wide_board(one, "other")
    _png(one, "wide")
    _png(one, "other")  # 26 cards held: the wide board leaves
    assert len(one.extension(WarmPictures)) == 1
    _png(one, "other")
    assert one.extension(WarmPictures).last == "warm"
    _png(one, "wide")
    assert one.extension(WarmPictures).last == "fresh"
