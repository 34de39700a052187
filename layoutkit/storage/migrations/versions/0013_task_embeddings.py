"""Meaning search: ``task_embeddings`` keeps one vector per task, with the
embedder that made it, the digest of the text it was made from and the task's
``updated_at`` at the time.

Revision ID: 0013
Revises: 0012
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None

Id = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
Bytes = sa.LargeBinary().with_variant(postgresql.BYTEA(), "postgresql")
When = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "task_embeddings",
        sa.Column("task_id", Id, sa.ForeignKey("tasks.id", ondelete="CASCADE"), primary_key=True),
        sa.Column(
            "workspace_id", Id, sa.ForeignKey("workspaces.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("model", sa.String(200), nullable=False),
        sa.Column("dim", sa.Integer(), nullable=False),
        sa.Column("text_hash", sa.String(64), nullable=False),
        sa.Column("task_updated_at", When, nullable=False),
        sa.Column("vector", Bytes, nullable=False),
    )
    op.create_index("ix_task_embeddings_workspace", "task_embeddings", ["workspace_id"])


def downgrade() -> None:
    op.drop_table("task_embeddings")
