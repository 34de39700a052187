"""Work delivered to agents: leases on delivered items, asks, and the wake-up signal.

A claim is one row per (workspace, item). Claiming inserts the row, or takes
over a row whose lease ran out; both are single statements whose WHERE is
re-checked under the row lock, so two processes claiming the same item at
once never both win. ``done`` rows are never delivered again.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import timedelta
from typing import Any

from sqlalchemy import String, and_, cast, insert, literal, or_, select, text, update

from layoutkit.storage import _schema as s
from layoutkit.storage._sql._base import TxBase, utc

#: The PostgreSQL channel every work-making write notifies on (payload: workspace id).
CHANNEL = "layoutkit_work"


def _item_key(prefix: str, column: Any) -> Any:
    # ``'annotation:' || id`` in SQL, matching the keys claims are stored under.
    return literal(prefix + ":", String) + cast(column, String)


def _ask(row: Any) -> dict[str, Any]:
    out = dict(row._mapping)
    out["created_at"] = utc(out["created_at"])
    out["answered_at"] = utc(out["answered_at"])
    return out


class WorkRows(TxBase):
    def signal_work(self, workspace_id: int) -> None:
        """Tell waiters in every process that work may have appeared (on commit)."""
        self._write()
        if self._pg:
            # NOTIFY is transactional: it reaches listeners when this commits.
            self.conn.execute(
                text("SELECT pg_notify(:channel, :payload)"),
                {"channel": CHANNEL, "payload": str(workspace_id)},
            )
            return
        w = s.work_signals
        bumped = self.conn.execute(
            update(w).where(w.c.workspace_id == workspace_id).values(n=w.c.n + 1)
        ).rowcount
        if not bumped:
            self.conn.execute(insert(w).values(workspace_id=workspace_id, n=1))

    def work_counters(self) -> dict[int, int]:
        """Every workspace's change counter (SQLite waiters poll this one small table)."""
        w = s.work_signals
        return {r.workspace_id: r.n for r in self.conn.execute(select(w.c.workspace_id, w.c.n))}

    def work_candidates(
        self,
        workspace_id: int,
        *,
        board_ids: Sequence[int],
        project: str | None,
        branch: str | None,
        board_id: int | None,
        limit: int,
    ) -> list[str]:
        """Item keys in scope that no live lease holds and nobody finished, oldest first
        within each kind (annotations, then comments, then choices, then asks)."""
        now = self.now()
        c = s.work_claims.c

        def free(key: Any) -> Any:
            held = select(c.item).where(
                c.workspace_id == workspace_id,
                c.item == key,
                or_(c.state == "done", c.lease_until >= now),
            )
            return ~held.exists()

        out: list[str] = []
        if board_ids:
            a = s.annotations.c
            key = _item_key("annotation", a.id)
            q = (
                select(a.id)
                # A person's comment thread is delivered by its latest message instead
                # (service/delivery/work.py): one item per thread would be done forever.
                .where(
                    a.board_id.in_(list(board_ids)),
                    a.state == "open",
                    a.kind == "finding",
                    free(key),
                )
                .order_by(a.id)
                .limit(limit)
            )
            out += [f"annotation:{i}" for i in self.conn.execute(q).scalars()]
            # A comment thread is work after each newest message of a person
            # (``attention``): an acknowledged one is done, the next one a new item.
            key = _item_key("comment", a.id) + literal(".", String) + cast(a.attention, String)
            q = (
                select(a.id, a.attention)
                .where(
                    a.board_id.in_(list(board_ids)),
                    a.state == "open",
                    a.kind == "comment",
                    a.attention.is_not(None),
                    free(key),
                )
                .order_by(a.id)
                .limit(limit)
            )
            out += [f"comment:{i}.{n}" for i, n in self.conn.execute(q)]
            qs = s.questions.c
            key = _item_key("choice", qs.id)
            q = (
                select(qs.id)
                .where(qs.board_id.in_(list(board_ids)), qs.state == "released", free(key))
                .order_by(qs.released_at, qs.id)
                .limit(limit)
            )
            out += [f"choice:{i}" for i in self.conn.execute(q).scalars()]
        k = s.work_asks.c
        key = _item_key("ask", k.id)
        where = [k.workspace_id == workspace_id, k.answered_at.is_(None), free(key)]
        if board_id is not None:
            where.append(k.board_id == board_id)
        else:
            where.append(k.project == project)
            if branch is not None:
                where.append(or_(k.branch == branch, k.branch.is_(None)))
        q = select(k.id).where(*where).order_by(k.id).limit(limit)
        out += [f"ask:{i}" for i in self.conn.execute(q).scalars()]
        return out

    def claim_work(self, workspace_id: int, item: str, agent: str, lease_s: float) -> bool:
        """Lease ``item`` to ``agent``: True when this call won it (it was unclaimed,
        or its previous lease ran out and it was not finished)."""
        self._write()
        now = self.now()
        until = now + timedelta(seconds=lease_s)
        values = {
            "agent": agent,
            "state": "leased",
            "claimed_at": now,
            "heartbeat_at": now,
            "lease_until": until,
        }
        c = s.work_claims.c
        # RETURNING, not rowcount: the driver's rowcount of an INSERT that
        # skipped on conflict is not a count of the rows written.
        inserted = self.conn.execute(
            self._insert_ignoring_conflict(s.work_claims)
            .values(workspace_id=workspace_id, item=item, deliveries=1, **values)
            .returning(c.item)
        ).first()
        if inserted is not None:
            return True
        taken = self.conn.execute(
            update(s.work_claims)
            .where(
                c.workspace_id == workspace_id,
                c.item == item,
                c.state == "leased",
                c.lease_until < now,
            )
            .values(deliveries=c.deliveries + 1, **values)
            .returning(c.item)
        ).first()
        return taken is not None

    def holds_work(self, workspace_id: int, agent: str) -> bool:
        """Whether ``agent`` holds a live lease (so a look has a heartbeat to write)."""
        c = s.work_claims.c
        held = select(c.item).where(
            c.workspace_id == workspace_id,
            c.agent == agent,
            c.state == "leased",
            c.lease_until >= self.now(),
        )
        return self.conn.execute(held.limit(1)).first() is not None

    def heartbeat_work(self, workspace_id: int, agent: str, lease_s: float) -> list[str]:
        """Extend every live lease ``agent`` holds; the items whose lease it kept."""
        self._write()
        now = self.now()
        c = s.work_claims.c
        rows = self.conn.execute(
            update(s.work_claims)
            .where(
                c.workspace_id == workspace_id,
                c.agent == agent,
                c.state == "leased",
                c.lease_until >= now,
            )
            .values(heartbeat_at=now, lease_until=now + timedelta(seconds=lease_s))
            .returning(c.item)
        ).scalars()
        return sorted(rows)

    def finish_work(
        self, workspace_id: int, agent: str | None, items: Iterable[str], *, release: bool
    ) -> list[str]:
        """Mark ``items`` done (or hand them back at once with ``release``) when
        ``agent`` holds them (any holder when ``agent`` is None); the items changed."""
        self._write()
        keys = list(items)
        if not keys:
            return []
        now = self.now()
        c = s.work_claims.c
        where = [c.workspace_id == workspace_id, c.item.in_(keys), c.state == "leased"]
        if agent is not None:
            where.append(c.agent == agent)
        values: dict[str, Any] = (
            {"lease_until": now - timedelta(microseconds=1)} if release else {"state": "done"}
        )
        changed = self.conn.execute(
            update(s.work_claims).where(and_(*where)).values(**values).returning(c.item)
        ).scalars()
        return sorted(changed)

    def work_claims(self, workspace_id: int, items: Iterable[str]) -> dict[str, dict[str, Any]]:
        """The claim rows of ``items`` by item key."""
        c = s.work_claims.c
        rows = self.conn.execute(
            select(s.work_claims).where(c.workspace_id == workspace_id, c.item.in_(list(items)))
        )
        out = {}
        for r in rows:
            row = dict(r._mapping)
            for k in ("claimed_at", "heartbeat_at", "lease_until"):
                row[k] = utc(row[k])
            out[row["item"]] = row
        return out

    def insert_ask(self, workspace_id: int, fields: Mapping[str, Any]) -> dict[str, Any]:
        self._write()
        row = self.conn.execute(
            insert(s.work_asks)
            .values(workspace_id=workspace_id, created_at=self.now(), **fields)
            .returning(*s.work_asks.c)
        ).one()
        return _ask(row)

    def work_ask(self, ask_id: int) -> dict[str, Any] | None:
        row = self.conn.execute(select(s.work_asks).where(s.work_asks.c.id == ask_id)).first()
        return None if row is None else _ask(row)

    def answer_work_ask(self, ask_id: int, answer: str, by: str) -> dict[str, Any]:
        self._write()
        row = self.conn.execute(
            update(s.work_asks)
            .where(s.work_asks.c.id == ask_id)
            .values(answer=answer, answered_by=by, answered_at=self.now())
            .returning(*s.work_asks.c)
        ).one()
        return _ask(row)
