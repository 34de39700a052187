"""Card versions: ``card_versions`` keeps each card's kind, payload and size as of
every version that changed one of them, so an older version can be drawn as it was.
Cards that exist already keep their current version.

Revision ID: 0007
Revises: 0006
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None

Id = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
Json = sa.JSON(none_as_null=True).with_variant(postgresql.JSONB(none_as_null=True), "postgresql")


def upgrade() -> None:
    op.create_table(
        "card_versions",
        sa.Column("card_id", Id, sa.ForeignKey("cards.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("version", sa.Integer(), primary_key=True),
        sa.Column("kind", sa.String(60), nullable=False),
        sa.Column("payload", Json, nullable=False),
        sa.Column("w", sa.Float(), nullable=False),
        sa.Column("h", sa.Float(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    # Earlier versions of existing cards were never kept: their current one is.
    op.execute(
        "INSERT INTO card_versions (card_id, version, kind, payload, w, h, created_at) "
        "SELECT id, version, kind, payload, w, h, updated_at FROM cards"
    )


def downgrade() -> None:
    op.drop_table("card_versions")
