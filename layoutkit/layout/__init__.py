"""Layout engine: text metrics, sizing, packing, placement, reflow and arrange.

Pure code over an in-memory board; no I/O. The operations wire it like this:

Build the board once per call from storage::

    board = Board(
        [Card(id, kind, payload, x, y, w, h, parent=..., children=[...],
              layer="ai" | "human", created=<order>, sized_by="content" | "person" | "frame")],
        [Wire(src, dst, rel)],
        flow=None | "document",
    )

compose_board::

    result = place_batch(board, Batch(cards=(BatchCard(kind, payload, ...), ...), ...))
    # result.placements: one Placement per batch card, in batch order:
    #   index, key ("new:<n>"), ref, kind, x, y, w, h, parent, placed_as, container
    # result.sections: NewSection(key, kind, payload, x, y, w, h, children) created on demand
    # result.changes: Changes(moves {id: (x, y, w, h)}, children {frame: (keys...)},
    #   parents {id: parent}, payloads {id: payload}, sized_by {id: ...}, removed)
    # result.flow / result.flow_changed: the board flow mode to persist
    # Keys in parent/container/children are stored ids (int) or provisional keys (str);
    # write sections first, then placements (result.new_keys() in that order), then
    # board.rekey({key: id, ...}) if the board object lives on.

update_cards::

    changes = apply_patches(board, [CardPatch(id, payload=<merged payload>, x=, y=, w=, h=)],
                            by_person=principal.layer == "human")
    changes = remove_cards(board, ids)
    changes = reflow(board, restored_ids)          # after board.add(restored card)

arrange::

    result = arrange(board, mode, gap=, padding=, scope="ai" | "all" | "section:<Name>" | [ids],
                     save=, sections_=[names], cols=3 | "auto", sort="reading" | "oldest")
    # result.changes, result.saved ({section, layout} to store), result.arranged

Sizing alone: ``size_card(kind, payload, width=None) -> (w, h)``.

Every refusal is a :class:`layoutkit.errors.LayoutError`; the board is left
unchanged when one is raised.
"""

from layoutkit.folding import fold
from layoutkit.layout.arrange import ARRANGE_MODES, ArrangeResult, arrange, arrange_reads
from layoutkit.layout.frames import (
    BLOCK_GAP,
    CARD_GAP,
    FRAME_PAD,
    SECTION_BAND,
    chrome,
    frame_layout,
)
from layoutkit.layout.model import FRAME_KINDS, MAX_FRAME_DEPTH, Board, Card, CardId, Wire
from layoutkit.layout.modes import shelf_pack
from layoutkit.layout.place import (
    Anchor,
    Batch,
    BatchCard,
    Changes,
    NewSection,
    Placement,
    PlacementResult,
    clamp_aspect,
    place_batch,
)
from layoutkit.layout.sections import nearly_matches
from layoutkit.layout.sizing import is_content_sized, size_card
from layoutkit.layout.spatial import GridIndex
from layoutkit.layout.update import CardPatch, apply_patches, reflow, remove_cards

__all__ = [
    "ARRANGE_MODES",
    "BLOCK_GAP",
    "CARD_GAP",
    "FRAME_KINDS",
    "FRAME_PAD",
    "MAX_FRAME_DEPTH",
    "SECTION_BAND",
    "Anchor",
    "ArrangeResult",
    "Batch",
    "BatchCard",
    "Board",
    "Card",
    "CardId",
    "CardPatch",
    "Changes",
    "GridIndex",
    "NewSection",
    "Placement",
    "PlacementResult",
    "Wire",
    "apply_patches",
    "arrange",
    "arrange_reads",
    "chrome",
    "clamp_aspect",
    "fold",
    "frame_layout",
    "is_content_sized",
    "nearly_matches",
    "place_batch",
    "reflow",
    "remove_cards",
    "shelf_pack",
    "size_card",
]
