"""Loading a stored board into the layout engine's model and writing changes back.

A write on a large board should cost what it changes, not what the board
holds. :class:`BoardModels` keeps each board's model warm in the process
between calls, tagged with the board rev it matches (every stored change to a
board's cards or edges bumps ``boards.rev`` and stamps the changed card rows
with it). Under the board lock, the next write reads only the rows changed
since that rev, by this process or any other, and brings the model up to date
with :meth:`Board.sync`. A model goes back into the cache only when its
transaction commits, or untouched when it rolls back, so it never holds
anything the database does not.
"""

from __future__ import annotations

import os
import threading
from collections import Counter, OrderedDict
from collections.abc import Callable, Iterable
from datetime import datetime
from typing import Any

import attrs

from layoutkit import layout
from layoutkit.layout import Board, Card, Wire
from layoutkit.service.road import hooks
from layoutkit.storage import BoardRecord, BoardRevs, CardBox, CardRecord, EdgeRecord, Tx

#: How long a call waits for another thread of this process to hand a board's
#: model back before it builds one of its own. The board lock already orders
#: writers, so the wait is the few microseconds between commit and hand-back.
LEASE_WAIT_S = 2.0


def load_board(tx: Tx, board: BoardRecord, *, also: Iterable[int] = ()) -> Board:
    """The live cards of ``board`` as a layout :class:`Board`, built from scratch.

    Payloads are read only for frames (the engine needs their layout and
    titles; geometry is enough for everything else) and for the cards named
    in ``also``, which keeps work on a large board cheap. Writes take their
    model from :class:`BoardModels`, which builds it this way once.
    """
    wires = [Wire(e.from_card, e.to_card, e.rel) for e in tx.edges(board.id)]
    return Board(_cards(tx, board.id, also=also), wires, flow=board.flow)


def _cards(tx: Tx, board_id: int, *, also: Iterable[int] = ()) -> list[Card]:
    records = tx.card_boxes(board_id)
    wanted = {r.id for r in records if r.kind in layout.FRAME_KINDS} | set(also)
    bodies = {r.id: r.payload for r in tx.cards_by_id(sorted(wanted))} if wanted else {}
    return [layout_card(r, bodies.get(r.id, {})) for r in records]


@attrs.define(eq=False)
class _Entry:
    """A board's warm model and the stored state it matches."""

    board_id: int
    created_at: datetime  # with the id, names the board (SQLite may reuse a deleted board's id)
    rev: int
    seq: int  # the board's card_seq: every ordinal up to it has been seen
    model: Board
    edges: list[EdgeRecord]  # every edge of the board, trashed ends included


@attrs.define(eq=False)
class _Lease:
    lock: threading.Lock = attrs.field(factory=threading.Lock)
    owner: int | None = None


class BoardModels:
    """Warm board models of one process (see the module docs).

    ``max_cards`` bounds the cards held over all boards; the least recently
    used boards leave first. ``verify`` compares every model handed out with
    one built from scratch and raises on any difference (the test suite turns
    it on with ``LAYOUTKIT_VERIFY_MODELS=1``). ``last`` says how the latest
    model was obtained, for tests and benches: ``"warm"``, ``"delta:<rows>"``,
    ``"fresh"`` or ``"bypass"``; ``counts`` counts each way (deltas as ``"delta"``).
    """

    def __init__(self, max_cards: int = 250_000, *, verify: bool = False) -> None:
        self.max_cards = max_cards
        self.verify = verify
        self.last = ""
        self.counts: Counter[str] = Counter()
        self._lock = threading.Lock()
        self._entries: OrderedDict[int, _Entry] = OrderedDict()
        self._leases: dict[int, _Lease] = {}

    def __len__(self) -> int:
        return len(self._entries)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

    def load(
        self,
        tx: Tx,
        board: BoardRecord,
        *,
        also: Iterable[int] = (),
        also_of: Callable[[Board], Iterable[int]] | None = None,
    ) -> Board:
        """The model of ``board``, locked in the write transaction ``tx``; as
        :func:`load_board` with frame payloads plus those of ``also`` and of
        the cards ``also_of`` picks from the model (before their payloads are read).

        The caller may change the model freely: it returns to the cache when
        ``tx`` commits, and is dropped when ``tx`` rolls back after a change.
        """
        also = list(also)
        # The revs as of now, under the lock the road took, whatever record the caller holds.
        current = tx.board_revs(board.id)
        if current is None:
            raise ValueError(f"board {board.id} is gone")
        lease = self._lease(board.id)
        me = threading.get_ident()
        # A second load of one board in one transaction, or a thread that never
        # handed its model back: build from scratch, keep nothing.
        if lease.owner == me or not lease.lock.acquire(timeout=LEASE_WAIT_S):
            self.last = "bypass"
            self.counts["bypass"] += 1
            model = load_board(tx, board)
            _fill_payloads(tx, model, also + _picked(model, also_of))
            return model
        lease.owner = me
        try:
            entry = self._checkout(tx, board.id, current)
            model = entry.model
            also += _picked(model, also_of)
            _fill_payloads(tx, model, also)
            if self.verify:
                fresh = tx.board(board.id)
                assert fresh is not None
                _check_same(model, load_board(tx, fresh, also=also), board.slug)
        except BaseException:
            # Nothing was handed out: free the board for the next call, keep no model.
            lease.owner = None
            lease.lock.release()
            raise
        untouched = model.edits
        tx.on_end(lambda committed: self._check_in(entry, lease, also, committed, untouched))
        return model

    def _lease(self, board_id: int) -> _Lease:
        with self._lock:
            lease = self._leases.get(board_id)
            if lease is None:
                lease = self._leases[board_id] = _Lease()
            return lease

    def _checkout(self, tx: Tx, board_id: int, board: BoardRevs) -> _Entry:
        with self._lock:
            entry = self._entries.pop(board_id, None)
        if (
            entry is not None
            and entry.created_at == board.created_at
            and board.purged_rev <= entry.rev <= board.rev
            and self._catch_up(tx, board_id, board, entry)
        ):
            return entry
        self.last = "fresh"
        self.counts["fresh"] += 1
        edges = tx.edges(board_id, include_trashed_ends=True)
        model = Board(_cards(tx, board_id), flow=board.flow)
        model.wires = _wires(edges, model)
        return _Entry(board_id, board.created_at, board.rev, board.card_seq, model, edges)

    def _catch_up(self, tx: Tx, board_id: int, board: BoardRevs, entry: _Entry) -> bool:
        """Bring ``entry`` to ``board``'s rev; False when only a rebuild will do."""
        model = entry.model
        if entry.rev < board.rev:
            rows = tx.card_changes(board_id, entry.rev)
            upserts: list[Card] = []
            removed: list[int] = []
            for r in rows:
                frame = r.kind in layout.FRAME_KINDS
                present = r.id in model
                if r.deleted:
                    if present:
                        if frame:
                            return False  # its members' links change in ways rows do not show
                        removed.append(r.id)
                elif not present and r.ordinal <= entry.seq:
                    # A restored card: a fresh build takes it where it belongs.
                    return False
                else:
                    upserts.append(layout_card(r, r.payload if frame else {}))
            model.sync(upserts, removed)
            self.last = f"delta:{len(rows)}"
            self.counts["delta"] += 1
        else:
            self.last = "warm"
            self.counts["warm"] += 1
        if board.edges_rev > entry.rev:
            entry.edges = tx.edges(board_id, include_trashed_ends=True)
        entry.rev = board.rev
        entry.seq = board.card_seq
        model.wires = _wires(entry.edges, model)
        model.flow = board.flow
        return True

    def _check_in(
        self, entry: _Entry, lease: _Lease, also: list[int], committed: bool, untouched: int
    ) -> None:
        try:
            model = entry.model
            # A rolled-back call may keep its model only if nothing changed it;
            # a committed one keeps it at the rev it was taken at, so the next
            # load reads this call's own rows back and the model matches the
            # database again whatever the call did in memory.
            if not committed and model.edits != untouched:
                return
            for key in also:
                card = model.cards.get(key)
                if card is not None and not card.is_frame:
                    card.payload = {}
            with self._lock:
                self._entries[entry.board_id] = entry
                held = sum(len(e.model) for e in self._entries.values())
                while held > self.max_cards and self._entries:
                    _, oldest = self._entries.popitem(last=False)
                    held -= len(oldest.model)
        finally:
            lease.owner = None
            lease.lock.release()


def _picked(model: Board, also_of: Callable[[Board], Iterable[int]] | None) -> list[int]:
    return [] if also_of is None else [k for k in also_of(model) if isinstance(k, int)]


def _fill_payloads(tx: Tx, model: Board, ids: list[int]) -> None:
    """Give the model's cards named in ``ids`` their stored payloads."""
    for r in tx.cards_by_id(ids) if ids else ():
        if r.id in model:
            model.cards[r.id].payload = r.payload


def _wires(edges: list[EdgeRecord], model: Board) -> list[Wire]:
    """The wires between live cards, as :meth:`Tx.edges` without trashed ends gives them."""
    cards = model.cards
    return [
        Wire(e.from_card, e.to_card, e.rel)
        for e in edges
        if e.from_card in cards and e.to_card in cards
    ]


def _check_same(warm: Board, fresh: Board, slug: str) -> None:
    """Raise when a warm model differs from one built from the database.

    Compared: every card's stored state, the wires in order, the flow, the
    sections, the extent and the spatial index. Not compared: the order of
    the card dict (no engine rule reads it; placement sorts what it scans)
    and the next creation number (a call only needs it above every card's).
    """
    problems: list[str] = []

    def state(card: Card) -> tuple[Any, ...]:
        return (
            card.kind,
            card.payload,
            card.geometry,
            card.parent,
            card.children,
            card.layer,
            card.created,
            card.sized_by,
        )

    if warm.cards.keys() != fresh.cards.keys():
        extra = sorted(map(str, warm.cards.keys() - fresh.cards.keys()))[:5]
        missing = sorted(map(str, fresh.cards.keys() - warm.cards.keys()))[:5]
        problems.append(f"cards differ: extra {extra}, missing {missing}")
    else:
        for key, card in fresh.cards.items():
            if state(warm.cards[key]) != state(card):
                problems.append(f"card {key}: {state(warm.cards[key])} != {state(card)}")
                break
    if [attrs.astuple(w) for w in warm.wires] != [attrs.astuple(w) for w in fresh.wires]:
        problems.append("wires differ")
    if warm.flow != fresh.flow:
        problems.append(f"flow {warm.flow!r} != {fresh.flow!r}")
    if [c.id for c in warm.sections()] != [c.id for c in fresh.sections()]:
        problems.append("sections differ")
    if warm.extent() != fresh.extent():
        problems.append(f"extent {warm.extent()} != {fresh.extent()}")
    if any(warm.index.box(k) != fresh.index.box(k) for k in fresh.cards):
        problems.append("spatial index differs")
    if problems:
        raise AssertionError(f"warm model of board {slug!r} is stale: " + "; ".join(problems))


def layout_card(
    record: CardRecord | CardBox, payload: dict[str, Any], *, linked: bool = True
) -> Card:
    """The layout engine's :class:`Card` for a stored card.

    A card stored before ``sized_by`` was recorded is sized by its frame when it
    is a frame and by its content otherwise. ``linked=False`` leaves out the
    stored parent and children, for a caller that re-links the card itself
    (its old frame may no longer be on the board).
    """
    return Card(
        record.id,
        record.kind,
        payload,
        record.x,
        record.y,
        record.w,
        record.h,
        parent=record.parent_id if linked else None,
        children=list(record.children or []) if linked else [],
        layer=record.layer,
        created=record.ordinal,
        sized_by=record.sized_by or ("frame" if record.kind in layout.FRAME_KINDS else "content"),
    )


def write_changes(tx: Tx, changes: layout.Changes, ids: dict[Any, int] | None = None) -> int:
    """Store what the engine changed on existing cards; returns how many were touched.

    ``ids`` maps provisional keys to stored ids for parents and children that
    were created in the same call.
    """
    ids = ids or {}

    def real(key: Any) -> Any:
        return ids.get(key, key)

    patches: dict[int, dict[str, Any]] = {}
    for key, (x, y, w, h) in changes.moves.items():
        patches.setdefault(key, {}).update(x=x, y=y, w=w, h=h)
    for key, kids in changes.children.items():
        if isinstance(key, int):
            patches.setdefault(key, {})["children"] = [real(k) for k in kids]
    for key, parent in changes.parents.items():
        patches.setdefault(key, {})["parent_id"] = real(parent) if parent is not None else None
    for key, payload in changes.payloads.items():
        patches.setdefault(key, {})["payload"] = payload
    for key, sized_by in changes.sized_by.items():
        patches.setdefault(key, {})["sized_by"] = sized_by
    rows = [{"id": key, **fields} for key, fields in patches.items() if isinstance(key, int)]
    if rows:
        tx.update_cards(rows)
    return len(rows)


def verifying() -> bool:
    """Whether warm models are checked against a fresh build on every use: the test
    suite turns it on (``LAYOUTKIT_VERIFY_MODELS=1``)."""
    return os.environ.get("LAYOUTKIT_VERIFY_MODELS") == "1"


# Warm layout models of the boards this process writes to, one set per workspace.
hooks.extension(BoardModels, lambda ws: BoardModels(verify=verifying()))
