"""The search index rebuilt on a bare connection, for the migration that makes it.

The index readers are methods of the row families (tasks, boards, cards through
:class:`SearchRows`), so the rebuild composes those families over the connection
the migration holds, with no store around it. It lives apart from ``search.py`` so
the migrations, which the store runs, reach the families without a module that
imports the store.
"""

from __future__ import annotations

from types import SimpleNamespace

from sqlalchemy import Connection

from layoutkit.storage._sql._base import utc_now
from layoutkit.storage._sql.boards import BoardRows
from layoutkit.storage._sql.search import SearchRows
from layoutkit.storage._sql.tasks import TaskRows


class _Rebuild(SearchRows, BoardRows, TaskRows):
    """The row families the index readers call, over the bare connection."""


def rebuild_on_connection(conn: Connection) -> int:
    """:meth:`SearchRows.rebuild_search_index` of every workspace on a bare
    connection inside an open transaction (upgrading through the revision that makes
    the index)."""
    # The readers touch no blobs: a stand-in without them fails loudly if one ever does.
    store = SimpleNamespace(dialect=conn.dialect.name, clock=utc_now, blobs=None)
    return _Rebuild(store, conn, writable=True).rebuild_search_index()  # type: ignore[arg-type]
