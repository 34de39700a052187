"""Who has a board open now: ``board_presence``.

One row per caller and page of a board, with the cursor, selection and dragged
card the page last reported; rows are read only while their ``seen`` is recent
and cleared as they age. The table is new: nothing to backfill.

Revision ID: 0020
Revises: 0019
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSONB

revision = "0020"
down_revision = "0019"
branch_labels = None
depends_on = None

Id = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
When = sa.DateTime(timezone=True)
Json = sa.JSON(none_as_null=True).with_variant(JSONB(none_as_null=True), "postgresql")


def upgrade() -> None:
    op.create_table(
        "board_presence",
        sa.Column("board_id", Id, sa.ForeignKey("boards.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("who", sa.String(300), primary_key=True),
        sa.Column("page", sa.String(40), primary_key=True),
        sa.Column("kind", sa.String(12), nullable=False),
        sa.Column("name", sa.String(300), nullable=False),
        sa.Column("state", Json, nullable=False),
        sa.Column("seen", When, nullable=False),
    )
    op.create_index("ix_board_presence_seen", "board_presence", ["seen"])


def downgrade() -> None:
    op.drop_index("ix_board_presence_seen", "board_presence")
    op.drop_table("board_presence")
