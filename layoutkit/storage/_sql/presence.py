"""Who has a board open now: one short-lived row per caller and page (``board_presence``).

A page rewrites its row with every cursor move and heartbeat; rows not seen for a
while are skipped by readers and cleared by the next writer, so a page closed
without saying goodbye leaves nothing behind for long.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from sqlalchemy import delete, select
from sqlalchemy.dialects import postgresql, sqlite

from layoutkit.storage import _schema as s
from layoutkit.storage._records import PresenceRecord
from layoutkit.storage._sql._base import TxBase, record, utc


class PresenceRows(TxBase):
    def write_presence(
        self,
        board_id: int,
        who: str,
        page: str,
        *,
        kind: str,
        name: str,
        state: Mapping[str, Any],
        expired: datetime,
    ) -> PresenceRecord:
        self._write()
        p = s.board_presence
        # Stale rows of every board go with any write: the table stays as small as
        # the number of pages open now, and no sweeper is needed.
        self.conn.execute(delete(p).where(p.c.seen < expired))
        values = {
            "board_id": board_id,
            "who": who,
            "page": page,
            "kind": kind,
            "name": name,
            "state": dict(state),
            "seen": self.now(),
        }
        dialect = postgresql if self._pg else sqlite
        upsert = dialect.insert(p).values(**values)
        upsert = upsert.on_conflict_do_update(
            index_elements=[p.c.board_id, p.c.who, p.c.page],
            set_={k: upsert.excluded[k] for k in ("kind", "name", "state", "seen")},
        )
        row = self.conn.execute(upsert.returning(*p.c)).one()
        return _presence(row)

    def leave_presence(self, board_id: int, who: str, page: str) -> bool:
        self._write()
        p = s.board_presence
        gone = self.conn.execute(
            delete(p).where(p.c.board_id == board_id, p.c.who == who, p.c.page == page)
        )
        return bool(gone.rowcount)

    def presence(self, board_id: int, since: datetime) -> list[PresenceRecord]:
        p = s.board_presence
        query = (
            select(p).where(p.c.board_id == board_id, p.c.seen >= since).order_by(p.c.who, p.c.page)
        )
        return [_presence(row) for row in self.conn.execute(query)]


def _presence(row: Any) -> PresenceRecord:
    # SQLite hands timestamps back without their zone.
    return record(row, PresenceRecord, seen=utc(row.seen))
