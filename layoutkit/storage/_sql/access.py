"""Who may reach what: share links, API tokens and invitations, all kept only as hashes."""

from __future__ import annotations

import functools
import secrets
from datetime import datetime
from typing import Any, Literal

from sqlalchemy import bindparam, delete, insert, or_, select, update

from layoutkit.storage import _schema as s
from layoutkit.storage._records import (
    ApiTokenRecord,
    InvitationRecord,
    ShareLinkRecord,
    TokenKind,
)
from layoutkit.storage._sql._base import TxBase, columns, record, token_hash

_TOKEN_KINDS = ("owner", "user", "agent", "service")
ROLES = ("owner", "admin", "member")


def default_role(kind: str) -> str:
    """The role a token of ``kind`` gets in the workspace it is minted for."""
    return "owner" if kind == "owner" else "member"


# Every API request checks its token and the token's role: both statements built once.
@functools.cache
def _live_token() -> Any:
    t = s.api_tokens.c
    return select(s.api_tokens).where(t.token_hash == bindparam("hash"), t.revoked_at.is_(None))


@functools.cache
def _role() -> Any:
    m = s.memberships.c
    return select(m.role).where(m.workspace_id == bindparam("ws"), m.token_id == bindparam("token"))


class AccessRows(TxBase):
    def create_share_link(
        self,
        board_id: int,
        mode: Literal["view", "annotate"] = "view",
        *,
        card_id: int | None = None,
        created_by: str | None = None,
    ) -> tuple[ShareLinkRecord, str]:
        self._write()
        if mode not in ("view", "annotate"):
            raise ValueError(f"share mode must be view or annotate, not {mode!r}")
        token = "lks_" + secrets.token_urlsafe(32)
        link = ShareLinkRecord(
            "sh_" + secrets.token_hex(8), board_id, mode, card_id, created_by, self.now(), None
        )
        self.conn.execute(
            insert(s.share_links).values(**columns(link), token_hash=token_hash(token))
        )
        return link, token

    def share_link(self, link_id: str) -> ShareLinkRecord | None:
        row = self.conn.execute(select(s.share_links).where(s.share_links.c.id == link_id)).first()
        return None if row is None else record(row, ShareLinkRecord)

    def share_links(self, board_id: int) -> list[ShareLinkRecord]:
        rows = self.conn.execute(
            select(s.share_links)
            .where(s.share_links.c.board_id == board_id)
            .order_by(s.share_links.c.created_at, s.share_links.c.id)
        )
        return [record(r, ShareLinkRecord) for r in rows]

    def verify_share_token(self, token: str) -> ShareLinkRecord | None:
        row = self.conn.execute(
            select(s.share_links).where(
                s.share_links.c.token_hash == token_hash(token),
                s.share_links.c.revoked_at.is_(None),
            )
        ).first()
        return None if row is None else record(row, ShareLinkRecord)

    def revoke_share_link(self, link_id: str) -> bool:
        self._write()
        result = self.conn.execute(
            update(s.share_links)
            .where(s.share_links.c.id == link_id, s.share_links.c.revoked_at.is_(None))
            .values(revoked_at=self.now())
        )
        return result.rowcount > 0

    def create_api_token(
        self,
        kind: TokenKind,
        name: str,
        *,
        purpose: str | None = None,
        workspace_id: int | None = None,
        role: str | None = None,
    ) -> tuple[ApiTokenRecord, str]:
        self._write()
        if kind not in _TOKEN_KINDS:
            raise ValueError(f"token kind must be owner, user, agent or service, not {kind!r}")
        if role is not None and role not in ROLES:
            raise ValueError(f"role must be owner, admin or member, not {role!r}")
        token = "lkt_" + secrets.token_urlsafe(32)
        now = self.now()
        row = self.conn.execute(
            insert(s.api_tokens)
            .values(
                kind=kind,
                name=name,
                token_hash=token_hash(token),
                created_at=now,
                purpose=purpose,
                home_workspace_id=workspace_id,
            )
            .returning(*s.api_tokens.c)
        ).one()
        made = record(row, ApiTokenRecord)
        if workspace_id is not None:
            self.set_membership(workspace_id, made.id, role or default_role(kind))
        return made, token

    def set_membership(self, workspace_id: int, token_id: int, role: str) -> None:
        self._write()
        if role not in ROLES:
            raise ValueError(f"role must be owner, admin or member, not {role!r}")
        m = s.memberships.c
        found = self.conn.execute(
            update(s.memberships)
            .where(m.workspace_id == workspace_id, m.token_id == token_id)
            .values(role=role)
        )
        if found.rowcount == 0:
            self.conn.execute(
                insert(s.memberships).values(
                    workspace_id=workspace_id, token_id=token_id, role=role, created_at=self.now()
                )
            )

    def lock_memberships(self, workspace_id: int) -> None:
        self._write()
        # Writers that count a workspace's owners queue on its row, so two of them
        # never both see an owner the other is taking away.
        lock = select(s.workspaces.c.id).where(s.workspaces.c.id == workspace_id)
        self.conn.execute(lock.with_for_update() if self._pg else lock)

    def remove_membership(self, workspace_id: int, token_id: int) -> bool:
        self._write()
        m = s.memberships.c
        result = self.conn.execute(
            delete(s.memberships).where(m.workspace_id == workspace_id, m.token_id == token_id)
        )
        return result.rowcount > 0

    def membership(self, workspace_id: int, token_id: int) -> str | None:
        # Asked on every request, as is verify_api_token: through the driver.
        found = self.driver_execute(_role(), {"ws": workspace_id, "token": token_id})
        return str(found[0][0]) if found else None

    def memberships(
        self, *, workspace_id: int | None = None, token_id: int | None = None
    ) -> list[tuple[int, int, str]]:
        m = s.memberships.c
        query = select(m.workspace_id, m.token_id, m.role).order_by(m.workspace_id, m.token_id)
        if workspace_id is not None:
            query = query.where(m.workspace_id == workspace_id)
        if token_id is not None:
            query = query.where(m.token_id == token_id)
        return [(int(w), int(t), str(r)) for w, t, r in self.conn.execute(query)]

    def verify_api_token(self, token: str) -> ApiTokenRecord | None:
        found = self.driver_records(_live_token(), {"hash": token_hash(token)}, ApiTokenRecord)
        return found[0] if found else None

    def api_token(self, token_id: int) -> ApiTokenRecord | None:
        row = self.conn.execute(select(s.api_tokens).where(s.api_tokens.c.id == token_id)).first()
        return None if row is None else record(row, ApiTokenRecord)

    def api_tokens(self, workspace_id: int | None = None) -> list[ApiTokenRecord]:
        t = s.api_tokens.c
        query = select(s.api_tokens).order_by(t.id)
        if workspace_id is not None:
            members = select(s.memberships.c.token_id).where(
                s.memberships.c.workspace_id == workspace_id
            )
            query = query.where(or_(t.id.in_(members), t.home_workspace_id == workspace_id))
        rows = self.conn.execute(query)
        return [record(r, ApiTokenRecord) for r in rows]

    def revoke_api_token(self, token_id: int) -> bool:
        self._write()
        result = self.conn.execute(
            update(s.api_tokens)
            .where(s.api_tokens.c.id == token_id, s.api_tokens.c.revoked_at.is_(None))
            .values(revoked_at=self.now())
        )
        return result.rowcount > 0

    def create_invitation(
        self,
        workspace_id: int,
        role: str,
        *,
        invited_by: str,
        inviter_token_id: int | None,
        expires_at: datetime,
    ) -> tuple[InvitationRecord, str]:
        self._write()
        if role not in ROLES:
            raise ValueError(f"role must be owner, admin or member, not {role!r}")
        secret = "lki_" + secrets.token_urlsafe(32)
        row = self.conn.execute(
            insert(s.invitations)
            .values(
                workspace_id=workspace_id,
                token_hash=token_hash(secret),
                role=role,
                invited_by=invited_by,
                inviter_token_id=inviter_token_id,
                created_at=self.now(),
                expires_at=expires_at,
            )
            .returning(*s.invitations.c)
        ).one()
        return record(row, InvitationRecord), secret

    def invitation(self, secret: str) -> InvitationRecord | None:
        row = self.conn.execute(
            select(s.invitations).where(s.invitations.c.token_hash == token_hash(secret))
        ).first()
        return None if row is None else record(row, InvitationRecord)

    def use_invitation(self, invitation_id: int, token_id: int) -> bool:
        self._write()
        i = s.invitations.c
        result = self.conn.execute(
            update(s.invitations)
            .where(i.id == invitation_id, i.used_at.is_(None))
            .values(used_at=self.now(), used_by_token_id=token_id)
        )
        return result.rowcount > 0

    def server_key(self, name: str) -> str:
        found = self.conn.execute(
            select(s.server_keys.c.secret).where(s.server_keys.c.name == name)
        ).scalar()
        if found is not None:
            return str(found)
        self._write()
        # Two processes may both miss it: the loser's insert is a no-op, and both
        # read the winner's secret.
        stmt = self._insert_ignoring_conflict(s.server_keys).values(
            name=name, secret=secrets.token_hex(32), created_at=self.now()
        )
        self.conn.execute(stmt)
        secret = self.conn.execute(
            select(s.server_keys.c.secret).where(s.server_keys.c.name == name)
        ).scalar_one()
        return str(secret)
