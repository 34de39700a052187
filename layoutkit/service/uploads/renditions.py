"""Renditions of large pictures: made once, kept beside the original, read by every drawing.

A stored picture longer than :data:`~layoutkit.imaging.RENDITION_SIDE` (2048 px) on a
side has a rendition: the picture fitted into 2048 px (:func:`layoutkit.imaging.rendition`),
kept as a derived blob of the original's key (kind :data:`KIND`). Every drawing that
reads such a picture reads its rendition too and hands both to the engine
(:class:`~layoutkit.imaging.Picture`), which decodes the rendition whenever it holds the
pixels the answer needs: a card image up to 2048 px, a contact sheet tile, the picture
on a board PNG. Only a region read near its natural size goes to the original, and
then within the ``decodePixels`` cap.

When it is made: after an upload commits, by a background job on the workspace's
drawing thread (one picture at a time; the decoding in an engine process when the
server runs them), so the upload's answer does not wait for it. Pictures stored
before renditions existed (or whose job never ran: the server stopped first) get
theirs lazily: a drawing that finds a large picture without one draws from the
original within the same cap, and queues the same job. Either way no rendition costs
more memory to make than the cap allows, and a picture the cap refuses (a huge
WebP, say) gets none and is refused when drawn, as before.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable

from layoutkit import imaging
from layoutkit.errors import EngineError
from layoutkit.service.road import offload
from layoutkit.service.road.workspace import Workspace
from layoutkit.storage import Tx

log = logging.getLogger("layoutkit.renditions")

#: The kind of derived blob a rendition is kept as.
KIND = f"r{imaging.RENDITION_SIDE}"

# Pictures queued or being made, per workspace: six drawings of one new picture queue
# one job, not six.
_queued: set[tuple[int, str]] = set()
_lock = threading.Lock()


def needs_one(data: bytes) -> bool:
    """Whether the picture in ``data`` is one that has a rendition (header only; False
    for bytes that are not a picture)."""
    try:
        head = imaging.header(data)
    except EngineError:
        return False
    return max(head.width, head.height) > imaging.RENDITION_SIDE


def kept(tx: Tx, key: str) -> bytes | None:
    """The rendition kept for blob ``key``, if any."""
    return tx.blobs.get_derived(key, KIND)


def picture(tx: Tx, key: str, data: bytes, lacking: set[str] | None = None) -> imaging.Picture:
    """Blob ``key`` (its bytes ``data``) with its rendition when it has one. A picture that
    should have one and has not is added to ``lacking``, for :func:`schedule`."""
    if not needs_one(data):
        return imaging.Picture(data)
    found = kept(tx, key)
    if found is None and lacking is not None:
        lacking.add(key)
    return imaging.Picture(data, found)


def make(tx: Tx, key: str) -> bool:
    """Make and keep the rendition of blob ``key`` in this transaction (tests and scripts;
    operations use :func:`schedule`). False when it needs none or one is kept already."""
    data = tx.blobs.get(key)
    if data is None or not needs_one(data) or kept(tx, key) is not None:
        return False
    made = imaging.rendition(data)
    if made is None:
        return False
    tx.blobs.put_derived(key, KIND, made)
    return True


def schedule(workspace: Workspace, keys: Iterable[str]) -> None:
    """Queue the making of the renditions of ``keys`` that are not kept yet, one job per
    picture on the workspace's drawing thread (:meth:`JobRunner.drain` waits for them)."""
    for key in keys:
        mark = (id(workspace), key)
        with _lock:
            if mark in _queued:
                continue
            _queued.add(mark)
        if not workspace.drawing.submit(_job(workspace, key), on_drop=lambda m=mark: _done(m)):
            _done(mark)


def _done(mark: tuple[int, str]) -> None:
    with _lock:
        _queued.discard(mark)


def _job(workspace: Workspace, key: str) -> Callable[[], None]:
    def run() -> None:
        try:
            if workspace.closing:
                return
            data = workspace.cache_read(
                lambda tx: None if kept(tx, key) is not None else tx.blobs.get(key)
            )
            if data is None:
                return
            made = offload.run(imaging.rendition, data)
            if made is not None:
                workspace.cache_write(lambda tx: tx.blobs.put_derived(key, KIND, made))
        except EngineError as exc:
            # Refused by the cap, or bytes that do not decode: the drawings say so.
            log.info("no rendition of %s: %s", key, exc.message)
        except Exception:
            log.warning("making the rendition of %s failed", key, exc_info=True)
        finally:
            _done((id(workspace), key))

    return run
