"""Several workspaces in one database: ``memberships`` binds an API token to each
workspace it may reach with a role (owner, admin, member); ``transfer_map`` keeps
which destination row each transferred source row became, so a project transfer
can be run again without writing anything twice; ``tasks.deleted_at`` and the
``task_trash`` ledger let a transfer that moves a project trash the source's live
tasks and keep them recoverable.

Tokens made before this revision reached every workspace of the database; each
becomes a member of every workspace that exists now (owner tokens as owners, the
rest as members), so nothing that worked before stops working.

Revision ID: 0012
Revises: 0011
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None

Id = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
Json = sa.JSON(none_as_null=True).with_variant(postgresql.JSONB(none_as_null=True), "postgresql")
When = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "memberships",
        sa.Column(
            "workspace_id",
            Id,
            sa.ForeignKey("workspaces.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column(
            "token_id", Id, sa.ForeignKey("api_tokens.id", ondelete="CASCADE"), primary_key=True
        ),
        sa.Column("role", sa.String(10), nullable=False),
        sa.Column("created_at", When, nullable=False),
    )
    op.create_index("ix_memberships_token", "memberships", ["token_id"])
    op.execute(
        "INSERT INTO memberships (workspace_id, token_id, role, created_at) "
        "SELECT w.id, t.id, CASE WHEN t.kind = 'owner' THEN 'owner' ELSE 'member' END, "
        "t.created_at FROM workspaces w CROSS JOIN api_tokens t"
    )
    op.create_table(
        "transfer_map",
        sa.Column(
            "source_workspace_id",
            Id,
            sa.ForeignKey("workspaces.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column(
            "dest_workspace_id",
            Id,
            sa.ForeignKey("workspaces.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("tbl", sa.String(40), primary_key=True),
        sa.Column("source_id", sa.BigInteger(), primary_key=True, autoincrement=False),
        sa.Column("dest_id", sa.BigInteger(), nullable=False),
        sa.Column("merged", sa.Boolean(), nullable=False),
    )
    with op.batch_alter_table("tasks") as batch:
        batch.add_column(sa.Column("deleted_at", When, nullable=True))
    op.create_table(
        "task_trash",
        sa.Column("id", Id, primary_key=True, autoincrement=True),
        sa.Column(
            "workspace_id", Id, sa.ForeignKey("workspaces.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("task_id", Id, sa.ForeignKey("tasks.id", ondelete="CASCADE"), nullable=False),
        sa.Column("reason", sa.String(40), nullable=False),
        sa.Column("detail", Json, nullable=False),
        sa.Column("deleted_by", sa.String(300), nullable=False),
        sa.Column("deleted_at", When, nullable=False),
        sa.Column("restored_at", When, nullable=True),
    )
    op.create_index("ix_task_trash_workspace", "task_trash", ["workspace_id", "deleted_at"])


def downgrade() -> None:
    op.drop_index("ix_task_trash_workspace", "task_trash")
    op.drop_table("task_trash")
    with op.batch_alter_table("tasks") as batch:
        batch.drop_column("deleted_at")
    op.drop_table("transfer_map")
    op.drop_index("ix_memberships_token", "memberships")
    op.drop_table("memberships")
