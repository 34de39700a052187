"""Work delivered to agents: ``work_claims`` holds one lease per delivered item
(annotation, choice or ask) of a workspace, ``work_asks`` the requests waiting
for an AI answerer, and ``work_signals`` a change counter per workspace that
SQLite waiters watch (PostgreSQL waiters are woken by NOTIFY instead).

Revision ID: 0011
Revises: 0010
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None

Id = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
Json = sa.JSON(none_as_null=True).with_variant(postgresql.JSONB(none_as_null=True), "postgresql")
When = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "work_claims",
        sa.Column(
            "workspace_id",
            Id,
            sa.ForeignKey("workspaces.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("item", sa.String(80), primary_key=True),
        sa.Column("agent", sa.String(300), nullable=False),
        sa.Column("state", sa.String(10), nullable=False),
        sa.Column("deliveries", sa.Integer(), nullable=False),
        sa.Column("claimed_at", When, nullable=False),
        sa.Column("heartbeat_at", When, nullable=False),
        sa.Column("lease_until", When, nullable=False),
    )
    op.create_index("ix_work_claims_agent", "work_claims", ["workspace_id", "agent", "state"])
    op.create_table(
        "work_asks",
        sa.Column("id", Id, primary_key=True, autoincrement=True),
        sa.Column(
            "workspace_id", Id, sa.ForeignKey("workspaces.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("project", sa.String(200), nullable=True),
        sa.Column("branch", sa.String(300), nullable=True),
        sa.Column("board_id", Id, sa.ForeignKey("boards.id", ondelete="CASCADE"), nullable=True),
        sa.Column("question", sa.Text(), nullable=False),
        sa.Column("context", Json, nullable=True),
        sa.Column("author", sa.String(300), nullable=False),
        sa.Column("answer", sa.Text(), nullable=True),
        sa.Column("answered_by", sa.String(300), nullable=True),
        sa.Column("created_at", When, nullable=False),
        sa.Column("answered_at", When, nullable=True),
    )
    op.create_index("ix_work_asks_open", "work_asks", ["workspace_id", "answered_at"])
    op.create_table(
        "work_signals",
        sa.Column(
            "workspace_id",
            Id,
            sa.ForeignKey("workspaces.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("n", sa.BigInteger(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("work_signals")
    op.drop_table("work_asks")
    op.drop_table("work_claims")
