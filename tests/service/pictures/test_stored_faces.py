"""Stored faces: a board drawn once is drawn by any process from the faces kept in the
database, and only a changed card is drawn again."""

from __future__ import annotations

import base64
import re
import threading
import time
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import func, select

import layoutkit.render._glance as glance
from layoutkit import Principal, Workspace, render
from layoutkit.render._glance import FACES
from layoutkit.service.pictures import pictures
from layoutkit.service.review.scrape import scrape
from layoutkit.storage import FaceRow, NewCard
from layoutkit.storage import _schema as schema

AGENT = Principal.agent("claude")


#: In the text of every card these tests make: faces drawn behind other tests' writes
#: (their workspaces' drawing threads may still run) are not counted.
MARK = "faces-test"


@pytest.fixture
def drawn(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The kinds of the faces of this test's cards drawn (not read back) while it runs."""
    kinds: list[str] = []
    real = glance.card_face

    def counting(kind: str, payload: Any, rect: Any) -> Any:
        if MARK in repr(payload):
            kinds.append(kind)
        return real(kind, payload, rect)

    monkeypatch.setattr(glance, "card_face", counting)
    FACES.clear()
    yield kinds
    FACES.clear()


def _board(ws: Workspace) -> list[int]:
    ws.call("create", {"kind": "board", "slug": "faces"})
    out = ws.call(
        "compose_board",
        {
            "board": "faces",
            "cards": [
                {"kind": "note", "payload": {"md": f"Note number {i} {MARK}"}} for i in range(5)
            ]
            + [
                {"kind": "section", "payload": {"title": "Group"}, "children": ["c"]},
                {
                    "kind": "checklist",
                    "payload": {"items": [{"text": MARK}, {"text": "two"}]},
                    "ref": "c",
                },
            ],
        },
        AGENT,
    )
    ws.drawing.drain()  # the faces of the cards a write changed are drawn behind it
    return [c["id"] for c in out["cards"]]


def _render(ws: Workspace, **params: Any) -> str:
    svg = ws.call("render_board", {"board": "faces", **params})["svg"]
    ws.drawing.drain()  # the faces a drawing made are kept after the reply
    return str(svg)


def test_the_faces_of_a_write_are_drawn_behind_it_and_read_by_any_process(
    pair: tuple[Workspace, Workspace], drawn: list[str]
) -> None:
    one, two = pair
    _board(one)
    assert sorted(drawn) == ["checklist"] + ["note"] * 5
    FACES.clear()  # neither process holds a face in memory
    drawn.clear()
    first = _render(one)
    assert drawn == []
    assert _render(two) == first
    assert drawn == []


def test_a_board_stored_without_the_operations_is_drawn_once_then_read(
    pair: tuple[Workspace, Workspace], drawn: list[str]
) -> None:
    one, two = pair
    one.call("create", {"kind": "board", "slug": "faces"})
    with one.store.transaction() as tx:
        board = tx.board_by_slug(one.workspace_id, "faces")
        assert board is not None
        tx.insert_cards(
            board.id,
            [
                NewCard("note", {"md": f"n{i} {MARK}"}, i * 300.0, 0.0, 260.0, 120.0, "ai", "x")
                for i in range(4)
            ],
        )
    first = _render(one)
    assert drawn == ["note"] * 4
    FACES.clear()
    drawn.clear()
    assert _render(two) == first
    assert drawn == []


def test_only_a_changed_card_is_drawn_again(
    pair: tuple[Workspace, Workspace], drawn: list[str]
) -> None:
    one, two = pair
    ids = _board(one)
    FACES.clear()
    drawn.clear()
    patch = [{"id": ids[0], "payload": {"md": f"Changed {MARK}"}}]
    one.call("update_cards", {"patch": patch}, AGENT)
    one.drawing.drain()
    assert drawn == ["note"]  # behind the write
    FACES.clear()
    drawn.clear()
    svg = _render(two)
    assert drawn == [] and f">Changed {MARK}<" in svg


def test_a_moved_card_keeps_its_stored_face(
    pair: tuple[Workspace, Workspace], drawn: list[str]
) -> None:
    one, two = pair
    ids = _board(one)
    before = _render(one)
    FACES.clear()
    drawn.clear()
    one.call("update_cards", {"patch": [{"id": ids[1], "x": 2000, "y": 1500}]}, AGENT)
    one.drawing.drain()
    # Found by what it depends on, not by the row it was drawn for, and kept for the
    # card's new row.
    assert drawn == []
    with two.store.read() as tx:
        board = tx.board_by_slug(two.workspace_id, "faces")
        assert board is not None
        moved = tx.card_pictures(board.id, code=glance.code_digest(), card_ids=[ids[1]])
        assert moved[0].face is not None and moved[0].payload is None
    after = _render(two)
    assert drawn == []
    assert after != before and f'data-card-id="{ids[1]}"' in after


def test_faces_of_other_renderer_code_are_never_served(
    pair: tuple[Workspace, Workspace], drawn: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    one, two = pair
    _board(one)
    _render(one)
    glance.code_digest.cache_clear()
    monkeypatch.setattr(glance, "_code_digest", lambda: "0123456789abcdef")
    try:
        FACES.clear()
        drawn.clear()
        _render(two)
        assert len(drawn) == 6
    finally:
        glance.code_digest.cache_clear()


def test_sections_and_regions_draw_from_stored_faces(
    pair: tuple[Workspace, Workspace], drawn: list[str]
) -> None:
    one, two = pair
    ids = _board(one)
    _render(one)
    FACES.clear()
    drawn.clear()
    section = _render(two, section="Group")
    assert drawn == [] and f'data-card-id="{ids[-1]}"' in section
    with two.store.read() as tx:
        board = tx.board_by_slug(two.workspace_id, "faces")
        assert board is not None
        card = tx.card(ids[0])
        assert card is not None
    region = _render(two, region={"x": card.x, "y": card.y, "w": card.w, "h": card.h})
    assert drawn == [] and f'data-card-id="{ids[0]}"' in region


def test_a_png_draws_its_faces_itself(pair: tuple[Workspace, Workspace], drawn: list[str]) -> None:
    one, _ = pair
    _board(one)
    _render(one)
    FACES.clear()
    drawn.clear()
    png = one.call("render_board", {"board": "faces", "format": "png"})["image"]["data"]
    assert png and len(drawn) == 6


def test_faces_of_cards_gone_are_not_kept_and_go_with_their_card(
    own_pair: tuple[Workspace, Workspace],
) -> None:
    one, _ = own_pair
    ids = _board(one)
    _render(one)

    def faces(tx: Any) -> int:
        f, c = schema.card_faces.c, schema.cards.c
        query = (
            select(func.count())
            .select_from(schema.card_faces.join(schema.cards, c.id == f.card_id))
            .where(c.id.in_(ids))
        )
        return int(tx.conn.execute(query).scalar_one())

    with one.store.transaction() as tx:
        assert tx.store_faces([FaceRow(10**9, 1, "0" * 16, "k" * 32, "<g/>")]) == 0
        assert faces(tx) == 6
    one.call("update_cards", {"remove": [ids[0]]}, AGENT)
    with one.store.transaction() as tx:
        assert tx.purge_deleted_cards(timedelta(0)) == 1
        assert faces(tx) == 5


def test_a_stored_face_shows_the_same_picture_as_a_drawn_one(
    pair: tuple[Workspace, Workspace], drawn: list[str]
) -> None:
    one, two = pair
    _board(one)
    first = _render(one)
    FACES.clear()
    again = _render(two)
    # Faces are drawn at the origin and placed: every card is moved by a transform.
    assert len(re.findall(r'<g transform="translate\(', again)) == 6
    assert again == first


def test_a_board_drawn_as_glances_reads_only_what_glances_show(any_ws: Workspace) -> None:
    # 40 cards in a row 18,400 px wide: a 1,600 px picture shows them as glances.
    any_ws.call("create", {"kind": "board", "slug": "wide"})
    kinds = [
        ("note", {"md": "# Plan\n" + "long text " * 200, "color": "blue"}),
        ("callout", {"tone": "warn", "md": "Careful"}),
        ("shape", {"shape": "ellipse", "label": "Start", "fill": "#ffd8a8"}),
        ("text", {"role": "title", "text": "Heading"}),
        ("link", {"url": "https://example.com/a", "title": "Example"}),
    ]
    with any_ws.store.transaction() as tx:
        board = tx.board_by_slug(any_ws.workspace_id, "wide")
        assert board is not None
        tx.insert_cards(
            board.id,
            [
                NewCard(*kinds[i % 5], i * 460.0, 0.0, 420.0, 320.0, "ai", AGENT.label)
                for i in range(40)
            ],
        )
    picture = any_ws.call("render_board", {"board": "wide", "format": "png"})["image"]["data"]
    with any_ws.store.read() as tx:
        board = tx.board_by_slug(any_ws.workspace_id, "wide")
        assert board is not None
        whole = scrape(any_ws, tx, board, {"pages": "full"})
    assert render.png_glances(whole)
    assert base64.b64decode(picture) == render.render_board(whole, format="png")


def test_faces_wait_for_a_lull_in_the_calls(
    pair: tuple[Workspace, Workspace], drawn: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    one, _ = pair
    monkeypatch.setattr(pictures, "LULL_S", 0.5)
    behind: list[str] = []
    real = render.card_faces

    def drawing_behind(cards: list[dict], stored: Any = None) -> Any:
        behind.extend(c["kind"] for c in cards if MARK in repr(c.get("payload")))
        return real(cards, stored)

    monkeypatch.setattr(render, "card_faces", drawing_behind)
    one.call("create", {"kind": "board", "slug": "faces"})
    card = {"kind": "note", "payload": {"md": f"busy {MARK}"}}
    one.call("compose_board", {"board": "faces", "cards": [card]}, AGENT)
    # The compose drew the face once, to say whether it cuts anything.
    assert drawn == ["note"]
    assert not one.idle_for(0.5)
    # Calls keep coming faster than the lull: nothing is drawn behind meanwhile.
    until = time.monotonic() + 1.0
    while time.monotonic() < until:
        one.call("board_stamp", {"board": "faces"})
        time.sleep(0.05)
    assert behind == []
    one.drawing.drain()
    assert behind == ["note"] and one.idle_for(0.5)
    # The drawing behind found the compose's face kept: it was not drawn again.
    assert drawn == ["note"]


def test_writes_while_a_drawing_waits_join_it_and_every_face_is_kept(
    pair: tuple[Workspace, Workspace], drawn: list[str]
) -> None:
    one, two = pair
    one.call("create", {"kind": "board", "slug": "faces"})
    held = threading.Event()
    one.drawing.submit(held.wait)  # the one drawing thread is busy: what follows queues
    ids: list[int] = []
    for batch in range(3):
        out = one.call(
            "compose_board",
            {
                "board": "faces",
                "cards": [
                    {"kind": "note", "payload": {"md": f"Batch {batch} note {i} {MARK}"}}
                    for i in range(2)
                ],
            },
            AGENT,
        )
        ids += [c["id"] for c in out["cards"]]
    assert one.drawing.pending == 2  # the busy job and one drawing for the three writes
    held.set()
    one.drawing.drain()
    assert sorted(drawn) == ["note"] * 6  # each face drawn once
    FACES.clear()
    drawn.clear()
    svg = _render(two)
    assert drawn == []  # every face was kept, for any process to read
    assert all(f"Batch {b} note {i} {MARK}" in svg for b in range(3) for i in range(2))


def test_faces_a_compose_drew_are_written_out_here_others_go_to_the_engines(
    pair: tuple[Workspace, Workspace], drawn: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A compose draws its new cards' faces to find their cuts: the drawing behind it
    writes those out in this process; faces it does not hold go to the engine pool."""
    one, two = pair
    sent: list[int] = []
    real = pictures.offload.run

    def engines(fn: Any, cards: list[dict], *rest: Any) -> Any:
        sent.append(len(cards))
        return real(fn, cards, *rest)

    monkeypatch.setattr(pictures.offload, "run", engines)
    ids = _board(one)
    assert sent == []
    assert sorted(drawn) == ["checklist"] + ["note"] * 5  # each drawn once, in the compose
    FACES.clear()  # as in a process that did not draw them
    patch = [{"id": ids[0], "payload": {"md": f"Changed {MARK}"}}]
    with one.store.transaction() as tx:
        before = tx.board_by_slug(one.workspace_id, "faces")
        assert before is not None
        tx.update_cards(patch)
    pictures.draw_behind(one, before.id, before.rev)
    one.drawing.drain()
    assert sent == [1]
    drawn.clear()
    svg = _render(two)
    assert drawn == [] and f">Changed {MARK}<" in svg
