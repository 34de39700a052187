"""Whole-board glance reads kept warm between pictures.

A PNG of a whole large board draws its cards as glances (box and title), so
what it reads is a few short payload fields per card. Reading them for 5,000
cards was about a third of such a picture, and a viewer asks for the same
board again after every edit. :class:`WarmPictures` keeps each board's read
in the process, tagged with the board rev it matches (see
:mod:`layoutkit.service.boards.board_model`, which keeps layout models the same way),
and brings it up to date from the rows changed since: the writes of this
process and of any other, since every write stamps the rows it changes.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from datetime import datetime

import attrs

from layoutkit import render
from layoutkit.elements.vocab import FRAME_KINDS
from layoutkit.service.boards.board_model import verifying
from layoutkit.service.road import hooks
from layoutkit.storage import BoardRecord, CardPicture, EdgeRecord, Tx

#: A change touching more than this share of a board is read whole: one scan is
#: cheaper than a change list and a re-read of most rows.
DELTA_SHARE = 0.25


@attrs.frozen
class _Read:
    """A board's glance read as of board rev ``rev``; never changed once kept."""

    created_at: datetime  # with the id, names the board (SQLite may reuse a deleted board's id)
    rev: int
    cards: dict[int, CardPicture]
    edges: list[EdgeRecord]  # every wire, trashed ends included: the picture filters them


def glance_read(tx: Tx, board_id: int) -> dict[int, CardPicture]:
    """The board's live cards with only the glance fields of their payloads (frames
    whole), as :func:`layoutkit.render.png_glances` pictures need them."""
    read = tx.card_pictures(board_id, keys=render.GLANCE_KEYS, whole=FRAME_KINDS)
    return {c.id: c for c in read}


class WarmPictures:
    """The glance reads of the boards this process drew, at most ``max_cards`` cards
    over all boards (the least recently drawn boards leave first); safe across threads.

    ``verify`` compares every read handed out with one made from scratch and
    raises on a difference (the test suite turns it on, as for board models).
    ``last`` says how the latest read was made: ``"warm"``, ``"delta:<rows>"`` or
    ``"fresh"``.
    """

    def __init__(self, max_cards: int = 200_000, *, verify: bool = False) -> None:
        self.max_cards = max_cards
        self.verify = verify
        self.last = ""
        self._lock = threading.Lock()
        self._reads: OrderedDict[int, _Read] = OrderedDict()

    def __len__(self) -> int:
        return len(self._reads)

    def clear(self) -> None:
        with self._lock:
            self._reads.clear()

    def cards_of(
        self, tx: Tx, board: BoardRecord
    ) -> tuple[dict[int, CardPicture], list[EdgeRecord]]:
        """The board's cards as :func:`glance_read` gives them and all its wires."""
        # The revs first: rows read after them are as new or newer, and a newer row
        # read again at the next call changes nothing.
        revs = tx.board_revs(board.id)
        if revs is None:
            return {}, []
        with self._lock:
            kept = self._reads.get(board.id)
        read = None
        if kept is not None and kept.created_at == revs.created_at:
            if kept.rev == revs.rev:
                self.last = "warm"
                read = kept
            elif revs.purged_rev <= kept.rev < revs.rev:
                read = self._caught_up(tx, board.id, kept, revs.rev, revs.edges_rev)
        if read is None:
            self.last = "fresh"
            read = _Read(
                revs.created_at,
                revs.rev,
                glance_read(tx, board.id),
                tx.edges(board.id, include_trashed_ends=True),
            )
        if self.verify:
            fresh = glance_read(tx, board.id)
            if fresh != read.cards:
                raise AssertionError(f"warm glance read of board {board.id} differs ({self.last})")
        self._keep(board.id, read)
        return read.cards, read.edges

    def _caught_up(
        self, tx: Tx, board_id: int, kept: _Read, rev: int, edges_rev: int
    ) -> _Read | None:
        """``kept`` brought to ``rev``, or None when a whole read is the better way."""
        changes = tx.card_changes(board_id, kept.rev)
        if len(changes) > DELTA_SHARE * max(len(kept.cards), 1):
            return None
        if any(r.deleted and r.kind in FRAME_KINDS for r in changes):
            return None  # its members' frame links change in ways their rows do not show
        cards = dict(kept.cards)
        for row in changes:
            cards.pop(row.id, None)
        cards.update(
            (c.id, c)
            for c in tx.card_pictures(
                board_id, keys=render.GLANCE_KEYS, whole=FRAME_KINDS, since=kept.rev
            )
        )
        edges = (
            tx.edges(board_id, include_trashed_ends=True) if edges_rev > kept.rev else kept.edges
        )
        self.last = f"delta:{len(changes)}"
        return _Read(kept.created_at, rev, cards, edges)

    def _keep(self, board_id: int, read: _Read) -> None:
        with self._lock:
            self._reads[board_id] = read
            self._reads.move_to_end(board_id)
            held = sum(len(r.cards) for r in self._reads.values())
            while held > self.max_cards and len(self._reads) > 1:
                _, oldest = self._reads.popitem(last=False)
                held -= len(oldest.cards)


# The glance reads of whole boards drawn as PNG, kept warm like the board models.
hooks.extension(WarmPictures, lambda ws: WarmPictures(verify=verifying()))
