"""Where families plug into the road without the road importing them.

The road runs every call, but what a family keeps per workspace (warm board
models, warm pictures), what it does once a board write commits (drawing the
faces that changed) and the background work it picks up when a server starts
(link fetches, PDF pages) belong to that family. A family registers them here
when it is imported; the road only calls what is registered, so its imports
never run back up into a family.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from layoutkit.service.road.workspace import Workspace
    from layoutkit.storage import BoardRecord, Tx

#: Per-workspace state by its class: made the first time a workspace asks for it
#: (:meth:`Workspace.extension`), then kept for the workspace's life.
EXTENSIONS: dict[type, Callable[[Workspace], Any]] = {}

#: Called after a write to a board committed, as background work is started, with
#: the workspace, the board's id and its rev before the write.
BOARD_WRITTEN: list[Callable[[Workspace, int, int], None]] = []

#: Called inside the transaction of a write to a board (an operation's, once its
#: handler returned, or a background job's landing), with the workspace, the open
#: transaction and the board as locked before the write: what must commit or roll
#: back with the write itself (an outbox row).
BOARD_WRITING: list[Callable[[Workspace, Tx, BoardRecord], None]] = []

#: Background work a server picks up when it starts, by name: each returns how
#: many jobs it queued (:meth:`Workspace.resume`).
RESUMERS: dict[str, Callable[[Workspace], int]] = {}


def extension(kind: type, make: Callable[[Workspace], Any]) -> None:
    """Keep one ``kind`` per workspace, made by ``make(workspace)`` when first asked for."""
    if kind in EXTENSIONS:
        raise ValueError(f"extension {kind.__name__} registered twice")
    EXTENSIONS[kind] = make


def on_board_written(hook: Callable[[Workspace, int, int], None]) -> None:
    """Call ``hook(workspace, board_id, rev_before)`` after each committed board write."""
    BOARD_WRITTEN.append(hook)


def on_board_writing(hook: Callable[[Workspace, Tx, BoardRecord], None]) -> None:
    """Call ``hook(workspace, tx, board_before)`` inside the transaction of each board
    write, after its handler: an operation's, or a background job's landing."""
    BOARD_WRITING.append(hook)


def resumer(name: str, resume: Callable[[Workspace], int]) -> None:
    """Register background work ``name`` that a starting server queues again."""
    if name in RESUMERS:
        raise ValueError(f"resumer {name!r} registered twice")
    RESUMERS[name] = resume
