"""Reusable groups of cards: ``components``.

One row per version of a workspace's component (by ``name``): ``definition``
keeps the cards with their relative layout, the wires between them and the
slots ``compose_board`` fills. The table is new: nothing to backfill.

Revision ID: 0019
Revises: 0018
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSONB

revision = "0019"
down_revision = "0018"
branch_labels = None
depends_on = None

Id = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
When = sa.DateTime(timezone=True)
Json = sa.JSON(none_as_null=True).with_variant(JSONB(none_as_null=True), "postgresql")


def upgrade() -> None:
    op.create_table(
        "components",
        sa.Column("id", Id, primary_key=True, autoincrement=True),
        sa.Column(
            "workspace_id", Id, sa.ForeignKey("workspaces.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("name", sa.String(120), nullable=False),
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("description", sa.Text, nullable=True),
        sa.Column("definition", Json, nullable=False),
        sa.Column("author", sa.String(300), nullable=False),
        sa.Column("created_at", When, nullable=False),
        sa.UniqueConstraint("workspace_id", "name", "version", name="uq_components_version"),
    )


def downgrade() -> None:
    op.drop_table("components")
