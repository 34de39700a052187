"""The in-memory board the layout engine works on.

A :class:`Board` holds :class:`Card` values keyed by id, the wires between
them and the board's flow mode. Stored cards have integer ids; cards created
by the engine during a call get provisional string keys (``"new:<n>"``) that
the caller swaps for real ids with :meth:`Board.rekey` after writing them.

The board keeps a spatial index and a few caches (top-level extent, section
list) up to date on every change, so one placement never has to scan the
whole board. Every change also lands in a journal so a failed call can be
rolled back and a successful one can report exactly what moved.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

import attrs

from layoutkit.elements.vocab import FRAME_KINDS
from layoutkit.geometry import Rect
from layoutkit.layout.spatial import GridIndex, key_order

CardId = int | str
Geometry = tuple[float, float, float, float]

#: Deepest allowed frame nesting (a frame inside four others is the limit).
MAX_FRAME_DEPTH = 5


@attrs.define(slots=True, eq=False)
class Card:
    """One card: kind, payload, box, frame membership, layer and age.

    ``sized_by`` is ``"content"`` when the engine derives the size from the
    payload, ``"person"`` once someone set the size by hand, and ``"frame"``
    for frames, whose size follows their children.
    """

    id: CardId
    kind: str
    payload: dict[str, Any] = attrs.field(factory=dict)
    x: float = 0.0
    y: float = 0.0
    w: float = 0.0
    h: float = 0.0
    parent: CardId | None = None
    children: list[CardId] = attrs.field(factory=list)
    layer: str = "ai"
    created: int = 0
    sized_by: str = "content"

    @property
    def rect(self) -> Rect:
        return Rect(self.x, self.y, self.w, self.h)

    @property
    def geometry(self) -> Geometry:
        return (self.x, self.y, self.w, self.h)

    @property
    def is_frame(self) -> bool:
        return self.kind in FRAME_KINDS

    @property
    def title(self) -> str | None:
        t = self.payload.get("title")
        return t if isinstance(t, str) and t.strip() else None


@attrs.define(slots=True)
class Wire:
    """A wire between two cards; ``rel`` None is a plain flow arrow."""

    src: CardId
    dst: CardId
    rel: str | None = None


@attrs.define(slots=True)
class _Snapshot:
    card: Card
    geometry: Geometry
    parent: CardId | None
    children: list[CardId]
    payload: dict[str, Any]
    sized_by: str


class Board:
    """Cards, wires and flow mode of one board, with a spatial index.

    Mutate only through the methods here so the index, caches and journal
    stay right.
    """

    def __init__(
        self,
        cards: Iterable[Card] = (),
        wires: Iterable[Wire] = (),
        flow: str | None = None,
    ) -> None:
        self.cards: dict[CardId, Card] = {}
        self.wires: list[Wire] = list(wires)
        self.flow = flow
        self.index = GridIndex()
        self._sections: dict[CardId, None] = {}
        self._extent: Rect | None = None
        self._extent_dirty = False
        self._next_created = 0
        self._seq = 0
        self._journal: dict[CardId, _Snapshot] | None = None
        self._added: list[CardId] = []
        self._added_set: set[CardId] = set()
        self._flow_before: str | None = None
        #: Counts changes made through the methods below (a rollback takes
        #: its own back), so a holder of the board can tell it is untouched.
        self.edits = 0
        self._edits_before = 0
        self._load(cards)

    def _load(self, cards: Iterable[Card]) -> None:
        """Take in the stored cards in one pass: the index is filled in bulk and the
        extent and created counter are worked out once, not per card."""
        by_id = self.cards
        sections = self._sections
        created = -1
        for card in cards:
            key = card.id
            if key in by_id:
                raise ValueError(f"duplicate card id {key!r}")
            by_id[key] = card
            if card.kind == "section":
                sections[key] = None
            if card.created > created:
                created = card.created
        self._next_created = max(self._next_created, created + 1)
        self.index.insert_many((c.id, c.x, c.y, c.w, c.h) for c in by_id.values())
        for card in by_id.values():
            if card.parent is not None and card.parent not in by_id:
                card.parent = None
        top = [c for c in by_id.values() if c.parent is None]
        if top:
            x0 = min(c.x for c in top)
            y0 = min(c.y for c in top)
            x1 = max(c.x + c.w for c in top)
            y1 = max(c.y + c.h for c in top)
            self._extent = Rect(x0, y0, x1 - x0, y1 - y0)

    # ----------------------------------------------------------------- reading
    def __contains__(self, key: object) -> bool:
        return key in self.cards

    def __len__(self) -> int:
        return len(self.cards)

    def get(self, key: CardId) -> Card:
        return self.cards[key]

    def sections(self) -> list[Card]:
        """Section frames, oldest first."""
        out = [self.cards[k] for k in self._sections]
        out.sort(key=lambda c: (c.created, key_order(c.id)))
        return out

    def top_level(self) -> list[Card]:
        """Cards not inside any frame (scans the board)."""
        return [c for c in self.cards.values() if c.parent is None]

    def ancestors(self, key: CardId) -> list[CardId]:
        """Frames containing ``key``, innermost first."""
        out: list[CardId] = []
        parent = self.cards[key].parent
        while parent is not None:
            out.append(parent)
            parent = self.cards[parent].parent
        return out

    def descendants(self, key: CardId) -> Iterator[CardId]:
        stack = list(reversed(self.cards[key].children))
        while stack:
            k = stack.pop()
            yield k
            stack.extend(reversed(self.cards[k].children))

    def frame_depth(self, key: CardId) -> int:
        """How many frames enclose ``key``, counting ``key`` itself when it is a frame."""
        depth = 1 if self.cards[key].is_frame else 0
        return depth + len(self.ancestors(key))

    def subtree_height(self, key: CardId) -> int:
        """Frame levels from ``key`` down to its deepest frame descendant (0 for a plain card)."""
        card = self.cards[key]
        if not card.is_frame:
            return 0
        return 1 + max((self.subtree_height(c) for c in card.children), default=0)

    def extent(self) -> Rect | None:
        """Bounding box of every top-level card, or None on an empty board."""
        if self._extent_dirty:
            # Plain floats, not a Rect per card: this scans the whole board.
            top = [c for c in self.cards.values() if c.parent is None]
            if top:
                x0 = min([c.x for c in top])
                y0 = min([c.y for c in top])
                x1 = max([c.x + c.w for c in top])
                y1 = max([c.y + c.h for c in top])
                self._extent = Rect(x0, y0, x1 - x0, y1 - y0)
            else:
                self._extent = None
            self._extent_dirty = False
        return self._extent

    def overlapping(self, rect: Rect) -> list[CardId]:
        """Cards whose box overlaps ``rect`` (interiors intersect)."""
        return self.index.query(rect.x, rect.y, rect.w, rect.h)

    def new_key(self) -> str:
        """A fresh provisional key for a card the engine creates."""
        while True:
            self._seq += 1
            key = f"new:{self._seq}"
            if key not in self.cards:
                return key

    def next_created(self) -> int:
        value = self._next_created
        self._next_created += 1
        return value

    # ----------------------------------------------------------------- writing
    def _insert(self, card: Card) -> None:
        if card.id in self.cards:
            raise ValueError(f"duplicate card id {card.id!r}")
        self.edits += 1
        self.cards[card.id] = card
        self.index.insert(card.id, card.x, card.y, card.w, card.h)
        if card.kind == "section":
            self._sections[card.id] = None
        self._next_created = max(self._next_created, card.created + 1)
        if card.parent is None:
            self._grow_extent(card.rect)

    def _grow_extent(self, rect: Rect) -> None:
        if self._extent_dirty:
            return
        self._extent = rect if self._extent is None else self._extent.union(rect)

    def _touch(self, key: CardId) -> None:
        self.edits += 1
        if self._journal is None or key in self._journal or key in self._added_set:
            return
        c = self.cards[key]
        self._journal[key] = _Snapshot(
            c, c.geometry, c.parent, list(c.children), dict(c.payload), c.sized_by
        )

    def add(self, card: Card) -> None:
        """Put a new card on the board (its parent's children list is not changed)."""
        self._insert(card)
        if self._journal is not None:
            self._added.append(card.id)
            self._added_set.add(card.id)

    def remove(self, key: CardId) -> None:
        """Take a card off the board; it must have no children left."""
        self._touch(key)
        card = self.cards.pop(key)
        self.index.remove(key)
        self._sections.pop(key, None)
        if card.parent is None:
            self._extent_dirty = True

    def set_rect(self, key: CardId, x: float, y: float, w: float, h: float) -> None:
        """Give one card a new box (its children are not moved)."""
        card = self.cards[key]
        if (card.x, card.y, card.w, card.h) == (x, y, w, h):
            return
        self._touch(key)
        shrinks = x > card.x or y > card.y or x + w < card.x + card.w or y + h < card.y + card.h
        card.x, card.y, card.w, card.h = x, y, w, h
        self.index.insert(key, x, y, w, h)
        if card.parent is None:
            if shrinks:
                self._extent_dirty = True
            self._grow_extent(card.rect)

    def move_tree(self, key: CardId, dx: float, dy: float) -> None:
        """Shift a card and everything inside it."""
        if dx == 0 and dy == 0:
            return
        for k in (key, *self.descendants(key)):
            c = self.cards[k]
            self.set_rect(k, c.x + dx, c.y + dy, c.w, c.h)

    def set_parent(self, key: CardId, parent: CardId | None, at: int | None = None) -> None:
        """Make ``key`` a child of ``parent`` (None: top level) at position ``at`` (None: last)."""
        card = self.cards[key]
        self._touch(key)
        old = card.parent
        if old is not None:
            self._touch(old)
            self.cards[old].children.remove(key)
        if parent is not None:
            self._touch(parent)
            kids = self.cards[parent].children
            kids.insert(len(kids) if at is None else at, key)
        if (old is None) != (parent is None):
            self._extent_dirty = True
        card.parent = parent

    def set_children(self, key: CardId, children: list[CardId]) -> None:
        self._touch(key)
        self.cards[key].children = list(children)

    def set_payload(self, key: CardId, payload: dict[str, Any]) -> None:
        self._touch(key)
        self.cards[key].payload = payload

    def set_sized_by(self, key: CardId, sized_by: str) -> None:
        self._touch(key)
        self.cards[key].sized_by = sized_by

    def set_flow(self, flow: str | None) -> None:
        self.edits += 1
        self.flow = flow

    def rekey(self, mapping: Mapping[CardId, CardId]) -> None:
        """Swap provisional keys for stored ids once the caller has written the cards."""
        self.edits += 1
        for old, new in mapping.items():
            if old == new or old not in self.cards:
                continue
            card = self.cards.pop(old)
            self.index.remove(old)
            card.id = new
            self.cards[new] = card
            self.index.insert(new, card.x, card.y, card.w, card.h)
            if old in self._sections:
                del self._sections[old]
                self._sections[new] = None
        # Only the renamed cards and the cards they link to can hold an old
        # key; visiting just those keeps a call's cost off the board's size.
        linked: dict[CardId, None] = {}
        for new in mapping.values():
            card = self.cards.get(new)
            if card is None:
                continue
            linked[new] = None
            if card.parent is not None:
                linked[mapping.get(card.parent, card.parent)] = None
            for k in card.children:
                linked[mapping.get(k, k)] = None
        for key in linked:
            card = self.cards.get(key)
            if card is None:
                continue
            if card.parent in mapping:
                card.parent = mapping[card.parent]
            if any(k in mapping for k in card.children):
                card.children = [mapping.get(k, k) for k in card.children]
        for wire in self.wires:
            wire.src = mapping.get(wire.src, wire.src)
            wire.dst = mapping.get(wire.dst, wire.dst)

    def sync(self, cards: Iterable[Card], removed: Iterable[CardId] = ()) -> None:
        """Catch up with changes stored by others, outside any journal.

        ``cards`` replace the cards of the same id (or join the board) and
        ``removed`` leave it. A card whose frame is not on the board is
        top-level, as when the board is built from scratch. The index, the
        section list and the extent follow; only the cards named are visited.
        """
        if self._journal is not None:
            raise RuntimeError("sync() while a change is being recorded")
        orphans = self._sync_removed(removed)
        fresh = list(cards)
        for card in fresh:
            self._sync_card(card)
        for card in fresh:
            if card.parent is not None and card.parent not in self.cards:
                card.parent = None
        for card in (*fresh, *orphans):
            if card.parent is None and self.cards.get(card.id) is card:
                self._grow_extent(card.rect)

    def _sync_removed(self, removed: Iterable[CardId]) -> list[Card]:
        """Drop the removed cards; their children left on the board, now top-level."""
        by_id = self.cards
        orphans: list[Card] = []
        for key in removed:
            card = by_id.pop(key, None)
            if card is None:
                continue
            self.index.remove(key)
            self._sections.pop(key, None)
            if card.parent is None:
                self._retire(card.rect)
            for k in card.children:
                child = by_id.get(k)
                if child is not None and child.parent == key:
                    child.parent = None
                    orphans.append(child)
        return orphans

    def _sync_card(self, card: Card) -> None:
        old = self.cards.get(card.id)
        if old is not None and old.parent is None and not _covers(card, old):
            self._retire(old.rect)
        self.cards[card.id] = card
        self.index.insert(card.id, card.x, card.y, card.w, card.h)
        if card.kind == "section":
            self._sections[card.id] = None
        else:
            self._sections.pop(card.id, None)
        if card.created >= self._next_created:
            self._next_created = card.created + 1

    def _retire(self, rect: Rect) -> None:
        """A top-level box leaves: the extent can only shrink if it touched an edge."""
        ext = self._extent
        if self._extent_dirty or ext is None:
            return
        if (
            rect.x <= ext.x
            or rect.y <= ext.y
            or rect.right >= ext.right
            or rect.bottom >= ext.bottom
        ):
            self._extent_dirty = True

    # ----------------------------------------------------------------- journal
    def begin(self) -> None:
        """Start recording changes (see :meth:`commit` and :meth:`rollback`)."""
        self._journal = {}
        self._added = []
        self._added_set = set()
        self._flow_before = self.flow
        self._edits_before = self.edits

    def commit(self) -> tuple[dict[CardId, _Snapshot], list[CardId]]:
        """Stop recording; returns the before-images of touched cards and the added keys."""
        journal, added = self._journal or {}, self._added
        self._journal = None
        self._added = []
        self._added_set = set()
        return journal, added

    def rollback(self) -> None:
        """Undo every change since :meth:`begin`."""
        journal, added = self.commit()
        for key in reversed(added):
            if key in self.cards:
                self.cards.pop(key)
                self.index.remove(key)
                self._sections.pop(key, None)
        for key, snap in journal.items():
            card = snap.card
            if key not in self.cards:
                self.cards[key] = card
                if card.kind == "section":
                    self._sections[key] = None
            card.x, card.y, card.w, card.h = snap.geometry
            card.parent = snap.parent
            card.children = snap.children
            card.payload = snap.payload
            card.sized_by = snap.sized_by
            self.index.insert(key, card.x, card.y, card.w, card.h)
        self.flow = self._flow_before
        self._extent_dirty = True
        self.edits = self._edits_before


def _bound(rects: list[Rect]) -> Rect | None:
    if not rects:
        return None
    x = min(r.x for r in rects)
    y = min(r.y for r in rects)
    return Rect(x, y, max(r.right for r in rects) - x, max(r.bottom for r in rects) - y)


def _covers(card: Card, old: Card) -> bool:
    """True when top-level ``card`` still covers the box ``old`` held, so the extent
    cannot shrink."""
    # Exact comparisons: the extent is compared exactly as well.
    return (
        card.parent is None
        and card.x <= old.x
        and card.y <= old.y
        and card.x + card.w >= old.x + old.w
        and card.y + card.h >= old.y + old.h
    )
