"""A project's durable notes for agents: ``project_memories``.

One row per version of a note (``key`` per project): a write never replaces one,
so an agent can read what a note said before. ``load`` is when a task pickup
shows the note (first, on-demand, never). The table is new: nothing to backfill.

Revision ID: 0018
Revises: 0017
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0018"
down_revision = "0017"
branch_labels = None
depends_on = None

Id = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
When = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "project_memories",
        sa.Column("id", Id, primary_key=True, autoincrement=True),
        sa.Column(
            "workspace_id", Id, sa.ForeignKey("workspaces.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column(
            "project_id", Id, sa.ForeignKey("projects.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("key", sa.String(120), nullable=False),
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("text", sa.Text, nullable=False),
        sa.Column("load", sa.String(12), nullable=False),
        sa.Column("author", sa.String(300), nullable=False),
        sa.Column("created_at", When, nullable=False),
        sa.UniqueConstraint("project_id", "key", "version", name="uq_project_memories_version"),
    )


def downgrade() -> None:
    op.drop_table("project_memories")
