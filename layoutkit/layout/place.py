"""Placement of a compose batch: from intent (layout, anchor, section, journey) to boxes.

:func:`place_batch` validates the whole batch first, then places it on the
board (mutating it), reflows frames and pushes neighbours away. On any
:class:`~layoutkit.errors.LayoutError` the board is left exactly as it was.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from layoutkit.errors import LayoutError
from layoutkit.formatting import an
from layoutkit.geometry import Rect
from layoutkit.layout import frames, modes, sections, sizing
from layoutkit.layout.frames import BLOCK_GAP, CARD_GAP
from layoutkit.layout.model import (
    FRAME_KINDS,
    MAX_FRAME_DEPTH,
    Board,
    Card,
    CardId,
    Geometry,
)

RELATIONS = ("after", "before", "under", "beside", "into")
LAYOUTS = ("column", "row", "grid")
DEFAULT_ASPECT = 1.6
ASPECT_RANGE = (1.0, 3.2)
#: A free batch joins the last row of the board while the row stays under this width
#: (or 1.6 x the board's height, when that is larger); otherwise it starts a new row below.
FREE_ROW_WIDTH = 2400.0


@attrs.frozen(slots=True)
class Anchor:
    """Where a batch (or one top-level card) goes relative to another card:
    ``card_id`` (a stored card) or ``ref`` (a card of the same batch)."""

    relation: str = "beside"
    card_id: CardId | None = None
    ref: str | None = None


@attrs.frozen(slots=True)
class BatchCard:
    """One card of a compose batch. ``size`` skips sizing when the caller knows it."""

    kind: str
    payload: dict[str, Any] = attrs.field(factory=dict)
    ref: str | None = None
    children: tuple[str, ...] | None = None
    anchor: Anchor | None = None
    size: tuple[float, float] | None = None
    layer: str | None = None
    #: The card's box as a person drew it (x, y, w, h), for a :attr:`Batch.drawn` batch.
    box: tuple[float, float, float, float] | None = None


@attrs.frozen(slots=True)
class Batch:
    """A compose batch with its placement intent (the compose_board parameters)."""

    cards: tuple[BatchCard, ...]
    layout: str | None = None
    aspect: float | None = None
    flow: str | None = None
    anchor: Anchor | None = None
    section: str | None = None
    create_section: bool = False
    journey: str | None = None
    pass_: str | int | None = None
    layer: str = "ai"
    #: A free batch starts below everything on the board instead of joining its last
    #: row: a chapter closes a board (the brief's Plan chapter), whatever its flow.
    at_end: bool = False
    #: Where a person put the batch by hand (board coordinates of its top-left): it
    #: lands there as it is, overlapping what it may, and pushes nothing away.
    at: tuple[float, float] | None = None
    #: Every card carries the box it was drawn at (an imported file): the batch keeps
    #: those boxes relative to each other, where they are on an empty board, else moved
    #: as one block into free space.
    drawn: bool = False


@attrs.frozen(slots=True)
class Placement:
    """Where one batch entry landed. ``key`` is its provisional key on the board;
    ``parent``/``container`` are stored ids or provisional keys."""

    index: int
    key: str
    ref: str | None
    kind: str
    x: float
    y: float
    w: float
    h: float
    parent: CardId | None
    placed_as: str
    container: CardId | None


@attrs.frozen(slots=True)
class NewSection:
    """A section the engine created (section on demand, journey pass)."""

    key: str
    kind: str
    payload: dict[str, Any]
    x: float
    y: float
    w: float
    h: float
    children: tuple[CardId, ...]


@attrs.frozen(slots=True)
class Changes:
    """What changed on cards that existed before the call (stored ids only), plus the
    children lists of every frame that is new or whose children changed."""

    moves: dict[CardId, Geometry] = attrs.field(factory=dict)
    children: dict[CardId, tuple[CardId, ...]] = attrs.field(factory=dict)
    parents: dict[CardId, CardId | None] = attrs.field(factory=dict)
    payloads: dict[CardId, dict[str, Any]] = attrs.field(factory=dict)
    sized_by: dict[CardId, str] = attrs.field(factory=dict)
    removed: tuple[CardId, ...] = ()


@attrs.frozen(slots=True)
class PlacementResult:
    """Everything compose_board needs to write: one :class:`Placement` per batch entry
    (batch order), created sections, changes to existing cards and the board flow."""

    placements: tuple[Placement, ...]
    sections: tuple[NewSection, ...]
    changes: Changes
    flow: str | None
    flow_changed: bool

    def new_keys(self) -> list[str]:
        """Provisional keys the caller must give stored ids to: sections first (they
        contain batch cards), then batch entries in order."""
        return [s.key for s in self.sections] + [p.key for p in self.placements]


def clamp_aspect(aspect: float | None) -> float:
    """0 or None → 1.6; otherwise clamped to [1, 3.2]."""
    if not aspect:
        return DEFAULT_ASPECT
    return min(max(float(aspect), ASPECT_RANGE[0]), ASPECT_RANGE[1])


def place_batch(board: Board, batch: Batch) -> PlacementResult:
    """Place ``batch`` on ``board`` and return where everything went.

    The board is updated in place (new cards under provisional keys, moved
    neighbours, grown frames); use :meth:`Board.rekey` after storing. Raises
    :class:`LayoutError` with ``code`` and ``index`` for a malformed batch,
    ``relation_unsupported`` (into a non-frame, anchor-ref cycle),
    ``exclusive_params`` / ``anchor_outside_section`` / ``nesting_too_deep``,
    ``unknown_anchor``, ``section_near_match`` with ``didYouMean``, ``unknown_pass``.
    The board is unchanged when it raises.
    """
    board.begin()
    try:
        placer = _Placer(board, batch)
        placer.run()
    except BaseException:
        board.rollback()
        raise
    journal, added = board.commit()
    return placer.result(journal, added)


def changes_from_journal(
    board: Board, journal: Mapping[CardId, Any], added: Sequence[CardId]
) -> Changes:
    """Diff the before-images in ``journal`` against the board (see :class:`Changes`)."""
    moves: dict[CardId, Geometry] = {}
    children: dict[CardId, tuple[CardId, ...]] = {}
    parents: dict[CardId, CardId | None] = {}
    payloads: dict[CardId, dict[str, Any]] = {}
    sized_by: dict[CardId, str] = {}
    removed: list[CardId] = []
    for key, snap in journal.items():
        card = board.cards.get(key)
        if card is None:
            removed.append(key)
            continue
        if card.geometry != snap.geometry:
            moves[key] = card.geometry
        if card.children != snap.children:
            children[key] = tuple(card.children)
        if card.parent != snap.parent:
            parents[key] = card.parent
        if card.payload != snap.payload:
            payloads[key] = card.payload
        if card.sized_by != snap.sized_by:
            sized_by[key] = card.sized_by
    for key in added:
        card = board.cards.get(key)
        if card is not None and card.is_frame:
            children[key] = tuple(card.children)
    return Changes(moves, children, parents, payloads, sized_by, tuple(removed))


class _Placer:
    def __init__(self, board: Board, batch: Batch) -> None:
        self.board = board
        self.batch = batch
        self.cards = batch.cards
        self.by_ref: dict[str, int] = {}
        self.parent_of: dict[int, int] = {}  # batch child index -> batch frame index
        self.keys: list[str] = []
        self.placed_as: dict[int, str] = {}
        self.local: dict[int, tuple[float, float]] = {}  # batch index -> (w, h)
        self.offset: dict[int, tuple[float, float]] = {}  # child -> offset in its batch frame
        self.new_sections: list[CardId] = []
        self.flow_before = board.flow
        self.aspect = clamp_aspect(batch.aspect)

    # --------------------------------------------------------------- checks
    def _fail(self, code: str, message: str, index: int | None = None, **extra: Any) -> None:
        if index is not None:
            extra["index"] = index
        raise LayoutError(code, message, **extra)

    def check(self) -> None:
        self._check_batch_params()
        self._check_refs()
        self._check_children()
        self._check_frame_cycles()
        self._check_card_anchors()
        self._check_anchor_cycles()

    def _check_batch_params(self) -> None:
        b = self.batch
        if b.layout is not None and b.layout not in LAYOUTS:
            self._fail(
                "invalid_layout",
                f"layout must be one of {', '.join(LAYOUTS)}",
                allowed=list(LAYOUTS),
            )
        if b.flow is not None and b.flow != "document":
            self._fail("invalid_flow", "flow must be 'document'", allowed=["document"])
        if b.section is not None and b.journey is not None:
            self._fail("exclusive_params", "section and journey cannot be combined")
        if b.pass_ is not None and b.journey is None:
            self._fail("exclusive_params", "pass needs journey")
        if (
            b.pass_ is not None
            and b.pass_ != "next"
            and not (isinstance(b.pass_, int) and b.pass_ >= 1)
        ):
            self._fail("invalid_pass", "pass is 'next' or a pass number from 1")
        if b.anchor is not None:
            self._check_relation(b.anchor, None)
            targeted = b.section is not None or b.journey is not None
            if targeted and b.anchor.relation == "beside":
                self._fail(
                    "exclusive_params", "a beside anchor cannot be combined with section or journey"
                )

    def _check_refs(self) -> None:
        for i, c in enumerate(self.cards):
            if c.ref is not None:
                if c.ref in self.by_ref:
                    self._fail("duplicate_ref", f"ref {c.ref!r} is used twice", i)
                self.by_ref[c.ref] = i

    def _check_children(self) -> None:
        for i, c in enumerate(self.cards):
            if c.children is None:
                continue
            if c.kind not in FRAME_KINDS:
                self._fail("children_on_non_frame", f"{an(c.kind)} card cannot have children", i)
            for ref in c.children:
                j = self.by_ref.get(ref)
                if j is None:
                    self._fail("unknown_ref", f"children names unknown ref {ref!r}", i)
                if j == i:
                    self._fail("frame_cycle", "a frame cannot contain itself", i)
                if j in self.parent_of:
                    self._fail("duplicate_child", f"ref {ref!r} is a child of two frames", i)
                self.parent_of[j] = i

    def _check_frame_cycles(self) -> None:
        for i in range(len(self.cards)):
            seen = {i}
            k = i
            while k in self.parent_of:
                k = self.parent_of[k]
                if k in seen:
                    self._fail("frame_cycle", "frames contain each other", i)
                seen.add(k)

    def _check_card_anchors(self) -> None:
        for i, c in enumerate(self.cards):
            if c.anchor is None:
                continue
            if i in self.parent_of:
                self._fail("anchor_on_child", "anchor is for top-level cards only", i)
            self._check_relation(c.anchor, i)

    def _check_anchor_cycles(self) -> None:
        # Anchor refs must form no cycle (a card anchored, through others, to itself).
        for i in range(len(self.cards)):
            seen = {i}
            k: int | None = i
            while k is not None:
                a = self.cards[k].anchor
                if a is None or a.ref is None:
                    break
                k = self._top(self.by_ref[a.ref])
                if k in seen:
                    self._fail("relation_unsupported", "anchor refs form a cycle", i)
                seen.add(k)

    def _top(self, i: int) -> int:
        while i in self.parent_of:
            i = self.parent_of[i]
        return i

    def _check_relation(self, a: Anchor, index: int | None) -> None:
        if a.relation not in RELATIONS:
            self._fail(
                "unknown_relation",
                f"relation {a.relation!r} is not one of {', '.join(RELATIONS)}",
                index,
                allowed=list(RELATIONS),
            )
        if (a.card_id is None) == (a.ref is None):
            self._fail("invalid_anchor", "anchor needs exactly one of cardId or ref", index)
        if a.ref is not None:
            if index is None:
                self._fail("invalid_anchor", "a batch anchor names a stored card (cardId)")
            j = self.by_ref.get(a.ref)
            if j is None:
                self._fail("unknown_ref", f"anchor names unknown ref {a.ref!r}", index)
            kind = self.cards[j].kind
        else:
            card = self.board.cards.get(a.card_id)
            if card is None:
                self._fail(
                    "unknown_anchor",
                    f"anchor card {a.card_id!r} is not on this board",
                    index,
                )
            kind = card.kind
        if a.relation == "into" and kind not in FRAME_KINDS:
            self._fail(
                "relation_unsupported", f"into needs a frame; the anchor is {an(kind)} card", index
            )

    # --------------------------------------------------------------- sizing
    def measure(self, i: int) -> tuple[float, float]:
        """Size of batch card ``i``; frames are laid out with their children."""
        if i in self.local:
            return self.local[i]
        c = self.cards[i]
        if c.children is None or c.kind not in FRAME_KINDS:
            size = c.size or sizing.size_card(c.kind, c.payload)
            self.local[i] = (float(size[0]), float(size[1]))
            return self.local[i]
        probe = Card("probe", c.kind, c.payload)
        kids = [self.by_ref[r] for r in c.children]
        items = [
            modes.Item(j, *self.measure(j), kind=self.cards[j].kind, payload=self.cards[j].payload)
            for j in kids
        ]
        lay = frames.frame_layout(probe)
        if lay is None:
            mode, opts = self._block_mode(), modes.Opts(gap=CARD_GAP, cols=3, aspect=self.aspect)
        else:
            mode = lay["mode"]
            opts = frames.layout_opts(lay, default_cols=2 if c.kind == "section" else 3)
        pos, w, h = modes.lay_out(mode, items, opts)
        pad, band = frames.chrome(probe)
        for it, (px, py) in zip(items, pos, strict=True):
            self.offset[it.key] = (pad + px, band + pad + py)
        self.local[i] = frames.frame_size(probe, w, h, bool(items))
        return self.local[i]

    def frame_levels(self, i: int) -> int:
        c = self.cards[i]
        if c.kind not in FRAME_KINDS:
            return 0
        return 1 + max((self.frame_levels(self.by_ref[r]) for r in c.children or ()), default=0)

    def _block_mode(self, relation: str | None = None) -> str:
        b = self.batch
        if b.layout is not None:
            return b.layout
        if relation in ("after", "before", "under"):
            return "row"
        if b.flow == "document" or (self.board.flow == "document" and relation is None):
            return "column"
        return "shelf"

    def block(
        self, idxs: Sequence[int], relation: str | None = None
    ) -> tuple[list[tuple[float, float]], float, float]:
        items = [modes.Item(i, *self.measure(i)) for i in idxs]
        mode = self._block_mode(relation)
        opts = modes.Opts(gap=CARD_GAP, cols=3, aspect=self.aspect)
        return modes.lay_out(mode, items, opts)

    # --------------------------------------------------------------- materialize
    def materialize(
        self, i: int, x: float, y: float, parent: CardId | None, at: int | None = None
    ) -> None:
        """Put batch card ``i`` (and its batch children) on the board at (x, y)."""
        c = self.cards[i]
        w, h = self.measure(i)
        kids = [self.by_ref[r] for r in c.children or ()]
        card = Card(
            self.keys[i],
            c.kind,
            dict(c.payload),
            x,
            y,
            w,
            h,
            parent=parent,
            children=[self.keys[j] for j in kids],
            layer=c.layer or self.batch.layer,
            created=self.board.next_created(),
            sized_by="frame"
            if c.kind in FRAME_KINDS
            else ("person" if c.box is not None else "content"),
        )
        self.board.add(card)
        if parent is not None and (
            at is not None or card.id not in self.board.cards[parent].children
        ):
            self._insert_child(parent, card.id, at)
        for j in kids:
            ox, oy = self.offset[j]
            self.placed_as[j] = "child"
            self.materialize(j, x + ox, y + oy, card.id, at=None)

    def _insert_child(self, parent: CardId, key: CardId, at: int | None) -> None:
        kids = list(self.board.cards[parent].children)
        if key in kids:
            return
        kids.insert(len(kids) if at is None else at, key)
        self.board.set_children(parent, kids)

    # --------------------------------------------------------------- targets
    def _depth_ok(self, container: CardId | None, idxs: Sequence[int]) -> None:
        base = 0 if container is None else self.board.frame_depth(container)
        for i in idxs:
            if base + self.frame_levels(i) > MAX_FRAME_DEPTH:
                self._fail(
                    "nesting_too_deep",
                    f"frames would nest {base + self.frame_levels(i)} deep; the limit is {MAX_FRAME_DEPTH}",
                    i,
                )

    def resolve_target(self, top: Sequence[int]) -> tuple[CardId | None, str]:
        """The container the batch targets (creating it when needed) and the placedAs word."""
        b = self.batch
        if b.journey is not None:
            return self._journey(top), "journey"
        if b.section is not None:
            found = sections.find_section(self.board, b.section)
            if found is not None:
                return found.id, "section"
            near = sections.near_sections(self.board, b.section)
            if near and not b.create_section:
                self._fail(
                    "section_near_match",
                    f"no section is titled {b.section!r}, but {near[0]!r} is close; "
                    "use that name or set createSection",
                    didYouMean=near,
                    field="section",
                )
            self._depth_ok(None, [])
            return self._new_section({"title": b.section}, top, None), "section"
        return None, ""

    def _journey(self, top: Sequence[int]) -> CardId:
        b = self.batch
        key = b.journey or ""
        passes = sections.journey_passes(self.board, key)
        if not passes:
            adopt = sections.adoptable_section(self.board, key)
            if adopt is not None:
                self.board.set_payload(adopt.id, {**adopt.payload, "journey": key, "pass": 1})
                passes = [adopt]
        if b.pass_ == "next" or (not passes and b.pass_ is None):
            number = passes[-1].payload["pass"] + 1 if passes else 1
            payload: dict[str, Any] = {
                "title": sections.pass_title(key, number),
                "journey": key,
                "pass": number,
            }
            prev = passes[-1] if passes else None
            if prev is not None and "layout" in prev.payload:
                payload["layout"] = prev.payload["layout"]
            return self._new_section(payload, top, prev)
        if isinstance(b.pass_, int):
            for s in passes:
                if s.payload["pass"] == b.pass_:
                    return s.id
            self._fail(
                "unknown_pass",
                f"journey {key!r} has no pass {b.pass_}",
                passes=[s.payload["pass"] for s in passes],
            )
        return passes[-1].id

    def _new_section(
        self, payload: dict[str, Any], top: Sequence[int], beside: Card | None
    ) -> CardId:
        probe = Card("probe", "section", payload)
        lay = frames.frame_layout(probe)
        items = [modes.Item(i, *self.measure(i)) for i in top]
        if lay is None:
            _, w, h = self.block(top)
        else:
            _, w, h = modes.lay_out(lay["mode"], items, frames.layout_opts(lay, 2))
        fw, fh = frames.frame_size(probe, w, h, bool(items))
        if beside is not None:
            x, y = self.beside_spot(beside, fw, fh, None, BLOCK_GAP)
        else:
            x, y = self.free_spot(fw, fh)
        key = self.board.new_key()
        self.board.add(
            Card(
                key,
                "section",
                payload,
                x,
                y,
                fw,
                fh,
                layer=self.batch.layer,
                created=self.board.next_created(),
                sized_by="frame",
            )
        )
        self.new_sections.append(key)
        return key

    # --------------------------------------------------------------- spots
    def free_spot(self, w: float, h: float) -> tuple[float, float]:
        """Top-left of a w x h block in free space at the top level."""
        if self.batch.at is not None:
            return self.batch.at
        ext = self.board.extent()
        if ext is None:
            return (0.0, 0.0)
        below = (ext.x, ext.bottom + BLOCK_GAP)
        if self.board.flow == "document" or self.batch.flow == "document" or self.batch.at_end:
            return below
        bottom_row = self._top_level_in(Rect(ext.x, ext.bottom - 1.0, ext.w, 1.0))
        if not bottom_row:
            return below
        row_top = min(c.y for c in bottom_row)
        row = self._top_level_in(Rect(ext.x, row_top, ext.w, ext.bottom - row_top))
        right = max(c.x + c.w for c in row)
        cand = Rect(right + BLOCK_GAP, row_top, w, h)
        limit = max(FREE_ROW_WIDTH, DEFAULT_ASPECT * ext.h)
        if cand.right - ext.x <= limit and not self.board.overlapping(cand.inflated(CARD_GAP)):
            return (cand.x, cand.y)
        return below

    def _top_level_in(self, rect: Rect) -> list[Card]:
        keys = {frames.at_level(self.board, k, None) for k in self.board.overlapping(rect)}
        return [self.board.cards[k] for k in sorted(keys, key=str) if k is not None]

    def beside_spot(
        self, anchor: Card, w: float, h: float, level: CardId | None, gap: float = CARD_GAP
    ) -> tuple[float, float]:
        """First free spot for a w x h block right of ``anchor``, top-aligned, among the
        cards at ``level``."""
        x, y = anchor.x + anchor.w + gap, anchor.y
        for _ in range(500):
            rect = Rect(x, y, w, h).inflated(CARD_GAP / 2)
            blockers = [
                b
                for b in (
                    frames.at_level(self.board, k, level) for k in self.board.overlapping(rect)
                )
                if b is not None
            ]
            if not blockers:
                return (x, y)
            x = max(self.board.cards[k].x + self.board.cards[k].w for k in blockers) + gap
        return (x, y)

    # --------------------------------------------------------------- placing
    def run(self) -> None:
        self.check()
        b = self.batch
        self.keys = [self.board.new_key() for _ in self.cards]
        top = [i for i in range(len(self.cards)) if i not in self.parent_of]
        free = [i for i in top if self.cards[i].anchor is None]
        anchored = [i for i in top if self.cards[i].anchor is not None]
        container, word = self.resolve_target(free)
        if b.flow == "document":
            self.board.set_flow("document")
        if b.drawn:
            self.place_drawn(top)
            return
        if b.anchor is not None:
            self._anchor_guard(b.anchor, container)
        if free:
            if b.anchor is not None:
                self.place_anchored(free, b.anchor)
            elif container is not None:
                self.place_into(free, container, word)
            else:
                self.place_free(free)
        for group, anchor in self._anchor_groups(anchored):
            if container is not None and anchor.card_id is not None:
                self._anchor_guard(anchor, container)
            self.place_anchored(group, anchor)

    def _anchor_guard(self, anchor: Anchor, container: CardId | None) -> None:
        """With a target section, an anchor must sit in that section (or be it, for into)."""
        if container is None or anchor.card_id is None:
            return
        a = self.board.cards[anchor.card_id]
        if a.parent == container or (anchor.relation == "into" and a.id == container):
            return
        self._fail(
            "anchor_outside_section",
            "with section or journey, the anchor must be a card of that section",
        )

    def _anchor_groups(self, anchored: Sequence[int]) -> list[tuple[list[int], Anchor]]:
        """Cards sharing one anchor form one group; groups come in dependency order."""
        groups: dict[tuple, list[int]] = {}
        for i in anchored:
            a = self.cards[i].anchor
            assert a is not None
            groups.setdefault((a.relation, a.card_id, a.ref), []).append(i)
        ordered: list[tuple[list[int], Anchor]] = []
        done: set[int] = set()
        pending = list(groups.items())
        top_anchored = set(anchored)
        while pending:
            for n, ((rel, cid, ref), idxs) in enumerate(pending):
                dep = self._top(self.by_ref[ref]) if ref is not None else None
                if dep is None or dep not in top_anchored or dep in done:
                    ordered.append((idxs, Anchor(rel, cid, ref)))
                    done.update(idxs)
                    del pending[n]
                    break
            else:  # unreachable: cycles were refused in check()
                self._fail("relation_unsupported", "anchor refs form a cycle")
        return ordered

    def place_free(self, idxs: Sequence[int]) -> None:
        self._depth_ok(None, idxs)
        pos, w, h = self.block(idxs)
        x, y = self.free_spot(w, h)
        word = "flow" if (self.board.flow == "document") else "free"
        for i, (px, py) in zip(idxs, pos, strict=True):
            self.placed_as[i] = word
            self.materialize(i, x + px, y + py, None)
        if self.batch.at is not None:
            # Set by hand: the cards stay where the person put them, over others if so.
            return
        frames.settle(self.board, [self.keys[i] for i in idxs], pinned=[self.keys[i] for i in idxs])

    def place_drawn(self, top: Sequence[int]) -> None:
        """Every card at its drawn box: where it was drawn on an empty board, otherwise the
        whole drawing moved (never resized or rearranged) into free space as one block."""
        boxes = []
        for i, c in enumerate(self.cards):
            if c.box is None:
                self._fail("missing_box", "every card of a drawn batch needs its box", i)
            assert c.box is not None
            boxes.append(c.box)
            self.local[i] = (float(c.box[2]), float(c.box[3]))
        for child, frame in self.parent_of.items():
            fb, cb = boxes[frame], boxes[child]
            self.offset[child] = (cb[0] - fb[0], cb[1] - fb[1])
        self._depth_ok(None, top)
        x0 = min(b[0] for b in boxes)
        y0 = min(b[1] for b in boxes)
        w = max(b[0] + b[2] for b in boxes) - x0
        h = max(b[1] + b[3] for b in boxes) - y0
        dx, dy = 0.0, 0.0
        if self.board.extent() is not None:
            fx, fy = self.free_spot(w, h)
            dx, dy = fx - x0, fy - y0
        for i in top:
            self.placed_as[i] = "drawn"
            self.materialize(i, boxes[i][0] + dx, boxes[i][1] + dy, None)

    def place_into(
        self, idxs: Sequence[int], container: CardId, word: str, at: int | None = None
    ) -> None:
        """Into a frame: appended (or inserted at ``at``) to a managed frame, or below the
        current content of an unmanaged one."""
        self._depth_ok(container, idxs)
        frame = self.board.cards[container]
        keys = [self.keys[i] for i in idxs]
        if frames.frame_layout(frame) is not None:
            ox, oy = frames.content_origin(frame)
            for n, i in enumerate(idxs):
                self.placed_as[i] = word
                self.materialize(i, ox, oy, container, None if at is None else at + n)
            frames.settle(self.board, keys)
            return
        pos, _, _ = self.block(idxs)
        ox, oy = frames.content_origin(frame)
        if frame.children:
            oy = (
                max(self.board.cards[k].y + self.board.cards[k].h for k in frame.children)
                + CARD_GAP
            )
        for i, (px, py) in zip(idxs, pos, strict=True):
            self.placed_as[i] = word
            self.materialize(i, ox + px, oy + py, container)
        frames.settle(self.board, keys, pinned=keys)

    def _anchor_card(self, a: Anchor) -> Card:
        if a.card_id is not None:
            return self.board.cards[a.card_id]
        return self.board.cards[self.keys[self.by_ref[a.ref]]]

    def place_anchored(self, idxs: Sequence[int], a: Anchor) -> None:
        anchor = self._anchor_card(a)
        rel = a.relation
        if rel == "into":
            self.place_into(idxs, anchor.id, "into")
            return
        level = anchor.parent
        if level is not None and frames.frame_layout(self.board.cards[level]) is not None:
            # Inside a managed frame every relation is an insertion in order.
            kids = self.board.cards[level].children
            at = kids.index(anchor.id) + (0 if rel == "before" else 1)
            self.place_into(idxs, level, "before" if rel == "before" else "after", at)
            return
        self._depth_ok(level, idxs)
        pos, w, h = self.block(idxs, rel)
        if rel == "after":
            x, y, prefer = anchor.x + anchor.w + CARD_GAP, anchor.y, "right"
        elif rel == "before":
            x, y, prefer = anchor.x, anchor.y, "right"
        elif rel == "under":
            x, y, prefer = anchor.x, anchor.y + anchor.h + CARD_GAP, "down"
        else:
            (x, y), prefer = self.beside_spot(anchor, w, h, level), None
        keys = [self.keys[i] for i in idxs]
        for i, (px, py) in zip(idxs, pos, strict=True):
            self.placed_as[i] = rel
            self.materialize(i, x + px, y + py, level)
        frames.settle(self.board, keys, pinned=keys, prefer=prefer)

    # --------------------------------------------------------------- result
    def result(self, journal: Mapping[CardId, Any], added: Sequence[CardId]) -> PlacementResult:
        board = self.board
        placements = []
        for i, c in enumerate(self.cards):
            card = board.cards[self.keys[i]]
            placements.append(
                Placement(
                    index=i,
                    key=self.keys[i],
                    ref=c.ref,
                    kind=c.kind,
                    x=card.x,
                    y=card.y,
                    w=card.w,
                    h=card.h,
                    parent=card.parent,
                    placed_as=self.placed_as.get(i, "free"),
                    container=card.parent,
                )
            )
        created = tuple(
            NewSection(
                key=str(k),
                kind="section",
                payload=dict(board.cards[k].payload),
                x=board.cards[k].x,
                y=board.cards[k].y,
                w=board.cards[k].w,
                h=board.cards[k].h,
                children=tuple(board.cards[k].children),
            )
            for k in self.new_sections
        )
        return PlacementResult(
            placements=tuple(placements),
            sections=created,
            changes=changes_from_journal(board, journal, added),
            flow=board.flow,
            flow_changed=board.flow != self.flow_before,
        )
