"""Telling agents that work may exist: the one signal every family that makes work sends."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from layoutkit.service.road.workspace import Call


def signal_work(call: Call) -> None:
    """Announce, inside the write transaction of ``call``, that work may exist now:
    other processes hear it on commit, and this process's waiters right away."""
    tx = call.tx
    tx.signal_work(call.workspace_id)
    waker = call.workspace.store.waker
    tx.on_end(lambda committed: waker.fire() if committed else None)
