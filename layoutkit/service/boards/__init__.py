"""Boards and cards: composing, updating and arranging cards, a board's live
reads, questions, share links, content checks and the warm layout models."""

from layoutkit.service.boards import (  # noqa: F401  (importing registers the operations)
    board_live,
    boards,
    cards,
    components,
    compose,
    content,
    history,
    presence,
    sections,
    tags,
    wires,
)
